#!/usr/bin/env bash
# Builds HashiCorp's reference implementation of HCL, which the HCL tests compare with, from
# Debian's packages (golang-go and golang-github-hashicorp-hcl-v2-dev, installed here when missing),
# offline in GOPATH mode, into a cache folder outside the checkout: `hclfmt`, `hcldec` and the
# conformance harness `hclspecsuite` (whose tests are in $src/specsuite/tests). Prints hclfmt's
# path on stdout (everything else goes to stderr); the other two are beside it:
#
#   export NACL_LS_HCLFMT="$(bash tests/hcl-oracle/setup.sh)"
set -euo pipefail
cache="${XDG_CACHE_HOME:-$HOME/.cache}/nacl-ls-hcl-oracle"
bin="$cache/hclfmt"
src=/usr/share/gocode/src/github.com/hashicorp/hcl/v2
tools="hclfmt hcldec hclspecsuite"
missing=""
for tool in $tools; do [ -x "$cache/$tool" ] || missing="$missing $tool"; done
if [ -n "$missing" ]; then
  if [ ! -d "$src" ] || ! command -v go >/dev/null; then
    echo "installing golang-go and golang-github-hashicorp-hcl-v2-dev from Debian" >&2
    packages="golang-go golang-github-hashicorp-hcl-v2-dev"
    if [ "$(id -u)" = 0 ]; then
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $packages) >&2
    else
      sudo sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $packages" >&2
    fi
  fi
  mkdir -p "$cache"
  for tool in $missing; do
    GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOCACHE="$cache/go-build" \
      go build -o "$cache/$tool.tmp" "github.com/hashicorp/hcl/v2/cmd/$tool" >&2
    mv "$cache/$tool.tmp" "$cache/$tool"
  done
fi
echo "$bin"
