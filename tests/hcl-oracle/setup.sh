#!/usr/bin/env bash
# Builds HashiCorp's hclfmt, the reference implementation of HCL that the HCL tests compare with,
# from Debian's packages (golang-go and golang-github-hashicorp-hcl-v2-dev, installed here when
# missing), offline in GOPATH mode, into a cache folder outside the checkout. Prints the binary's
# path on stdout (everything else goes to stderr):
#
#   export NACL_LS_HCLFMT="$(bash tests/hcl-oracle/setup.sh)"
set -euo pipefail
cache="${XDG_CACHE_HOME:-$HOME/.cache}/nacl-ls-hcl-oracle"
bin="$cache/hclfmt"
src=/usr/share/gocode/src/github.com/hashicorp/hcl/v2
if [ ! -x "$bin" ]; then
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
  GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOCACHE="$cache/go-build" \
    go build -o "$bin.tmp" github.com/hashicorp/hcl/v2/cmd/hclfmt >&2
  mv "$bin.tmp" "$bin"
fi
echo "$bin"
