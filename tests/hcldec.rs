//! `nacl-ls hcldec` end to end: the decoding fixtures in `tests/hcldec/cases/` (each a spec and a
//! configuration, with the output snapshot beside it), compared with HashiCorp's `hcldec` where the
//! oracle is built (`tests/hcl-oracle/setup.sh`; `NACL_LS_HCLFMT` names its folder); HashiCorp's
//! conformance suite `hclspecsuite` run against our binary; and the differential test over the HCL
//! corpus with the specs in `tests/hcldec/specs/`.

use expect_test::expect_file;
use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    process::Command,
};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The folder of HashiCorp's tools built by `tests/hcl-oracle/setup.sh`, when there is one; under
/// `NACL_LS_REQUIRE_ORACLE=1` (CI) its absence fails the test.
fn oracle_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("NACL_LS_HCLFMT").map(PathBuf::from).and_then(|p| p.parent().map(Path::to_path_buf));
    match dir.filter(|d| d.join("hcldec").is_file() && d.join("hclspecsuite").is_file()) {
        Some(dir) => Some(dir),
        None if std::env::var("NACL_LS_REQUIRE_ORACLE").is_ok_and(|v| v == "1") => {
            panic!("HashiCorp's hcldec is required: run tests/hcl-oracle/setup.sh and set NACL_LS_HCLFMT")
        }
        None => {
            eprintln!("skipping the comparison with HashiCorp's hcldec: run tests/hcl-oracle/setup.sh");
            None
        }
    }
}

/// The Go sources of HashiCorp's HCL, where Debian installs them.
const HCL_SOURCES: &str = "/usr/share/gocode/src/github.com/hashicorp/hcl/v2";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(program: &Path, dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(program).args(args).current_dir(dir).output().expect("the program runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn nacl_ls() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_nacl-ls"))
}

/// A scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nacl-ls-hcldec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// The files of an inline fixture: `//- name` lines start each file.
fn fixture_files(text: &str) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix("//- ") {
            files.push((name.trim().to_owned(), String::new()));
        } else if let Some((_, content)) = files.last_mut() {
            content.push_str(line);
        }
    }
    files
}

/// The errors' and warnings' places in `hcldec --diags=json` output: (severity, file, start, end).
fn diagnostic_places(stderr: &str) -> BTreeSet<(String, String, u64, u64)> {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(stderr) else { return BTreeSet::new() };
    let items = json["diagnostics"].as_array().cloned().unwrap_or_default();
    items
        .iter()
        .map(|d| {
            let subject = &d["subject"];
            (
                d["severity"].as_str().unwrap_or("").to_owned(),
                subject["filename"].as_str().unwrap_or("").to_owned(),
                subject["start"]["byte"].as_u64().unwrap_or(0),
                subject["end"]["byte"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

const ARGS: [&str; 5] = ["--spec=spec.hcldec", "--with-type", "--keep-nulls", "--diags=json", "input.hcl"];

#[test]
fn decoding_fixtures_match_their_snapshots_and_hashicorps_hcldec() {
    let oracle = oracle_dir();
    let cases = nacl_syntax::fixtures::files(&repo_root().join("tests/hcldec/cases"), "txt");
    let mut compared = 0;
    for case in cases {
        let text = std::fs::read_to_string(&case).expect("fixture");
        let dir = scratch(case.file_stem().and_then(|s| s.to_str()).unwrap_or("case"));
        for (name, content) in fixture_files(&text) {
            std::fs::write(dir.join(name), content).expect("fixture file");
        }
        let mut args = vec!["hcldec"];
        args.extend(ARGS);
        let ours = run(&nacl_ls(), &dir, &args);
        let snapshot = format!("exit {}\n--- stdout\n{}--- stderr\n{}", ours.code, ours.stdout, ours.stderr);
        expect_file![case.with_extension("out")].assert_eq(&snapshot);
        let deviation = text.lines().next().is_some_and(|l| l.contains("(deviation:"));
        if let (Some(oracle), false) = (&oracle, deviation) {
            let theirs = run(&oracle.join("hcldec"), &dir, &ARGS);
            let name = case.display();
            assert_eq!(
                ours.code, theirs.code,
                "{name}: exit codes differ; theirs:\n{}{}",
                theirs.stdout, theirs.stderr
            );
            assert_eq!(ours.stdout, theirs.stdout, "{name}: outputs differ");
            assert_eq!(
                diagnostic_places(&ours.stderr),
                diagnostic_places(&theirs.stderr),
                "{name}: the diagnostics' places differ; theirs:\n{}",
                theirs.stderr
            );
            compared += 1;
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    if oracle.is_some() {
        assert!(compared >= 10, "only {compared} fixtures were compared with hcldec");
    }
}

#[test]
fn hashicorps_conformance_suite_passes() {
    let Some(oracle) = oracle_dir() else { return };
    let dir = scratch("suite");
    let link = dir.join("hcldec");
    #[cfg(unix)]
    std::os::unix::fs::symlink(nacl_ls(), &link).expect("link named hcldec");
    let tests = Path::new(HCL_SOURCES).join("specsuite/tests");
    let link_text = link.to_string_lossy().into_owned();
    let tests_text = tests.to_string_lossy().into_owned();
    let result = run(&oracle.join("hclspecsuite"), &dir, &[&tests_text, &link_text]);
    let ran = result.stdout.lines().filter(|l| l.starts_with("- ")).count();
    assert_eq!(result.code, 0, "hclspecsuite failed:\n{}\n{}", result.stdout, result.stderr);
    assert!(ran >= 30, "the suite ran only {ran} test lines:\n{}", result.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A test on a corpus file's path.
type Applies = fn(&str) -> bool;

/// Which corpus files each spec of `tests/hcldec/specs/` describes: a spec, and a test on the
/// file's path under the corpus.
const CORPUS_SPECS: [(&str, Applies); 3] = [
    ("nomad-pack-metadata.hcldec", |p| p.contains("nomad-pack") && p.ends_with("/metadata.hcl")),
    ("nomad-pack-variables.hcldec", |p| p.contains("nomad-pack") && p.ends_with("/variables.hcl")),
    ("packer.hcldec", |p| p.ends_with(".pkr.hcl")),
];

#[test]
fn corpus_files_decode_as_hashicorps_hcldec_decodes_them() {
    let Some(oracle) = oracle_dir() else { return };
    let specs = repo_root().join("tests/hcldec/specs");
    let dir = scratch("corpus");
    let mut decoded = 0;
    let mut rejected = 0;
    for file in nacl_corpus::hcl_corpus().into_iter().filter(|f| f.parse_ok) {
        let name = file.path.to_string_lossy().replace('\\', "/");
        let Some((spec, _)) = CORPUS_SPECS.iter().find(|(_, applies)| applies(&name)) else { continue };
        let spec_arg = format!("--spec={}", specs.join(spec).display());
        let input = file.path.to_string_lossy().into_owned();
        let args = [spec_arg.as_str(), "--with-type", "--keep-nulls", "--diags=json", input.as_str()];
        let mut ours_args = vec!["hcldec"];
        ours_args.extend(args);
        let ours = run(&nacl_ls(), &dir, &ours_args);
        let theirs = run(&oracle.join("hcldec"), &dir, &args);
        assert_eq!(
            ours.code, theirs.code,
            "{name} with {spec}: exit codes differ\nours:\n{}{}\ntheirs:\n{}{}",
            ours.stdout, ours.stderr, theirs.stdout, theirs.stderr
        );
        assert_eq!(ours.stdout, theirs.stdout, "{name} with {spec}: outputs differ");
        assert_eq!(
            diagnostic_places(&ours.stderr),
            diagnostic_places(&theirs.stderr),
            "{name} with {spec}: the diagnostics' places differ\nours:\n{}\ntheirs:\n{}",
            ours.stderr,
            theirs.stderr
        );
        if ours.code == 0 { decoded += 1 } else { rejected += 1 }
    }
    eprintln!("corpus: {decoded} files decoded alike, {rejected} rejected alike");
    assert!(decoded >= 50, "only {decoded} corpus files decoded: the specs no longer fit the corpus");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn merged_files_json_input_variables_and_var_refs_as_hashicorps() {
    let Some(oracle) = oracle_dir() else { return };
    let dir = scratch("flags");
    let spec = "object {\n  attr \"name\" {\n    type = string\n  }\n  attr \"port\" {\n    type = number\n  }\n  block_list \"route\" {\n    object {\n      attr \"to\" {\n        type = string\n      }\n    }\n  }\n}\n";
    std::fs::write(dir.join("spec.hcldec"), spec).expect("write");
    std::fs::write(dir.join("a.hcl"), "name = \"web-${env}\"\nroute {\n  to = upstream.host\n}\n").expect("write");
    std::fs::write(dir.join("b.hcl"), "port = base + 1\nroute {\n  to = \"b\"\n}\n").expect("write");
    std::fs::write(dir.join("dup.hcl"), "name = \"again\"\n").expect("write");
    std::fs::write(
        dir.join("c.json"),
        "{\"name\": \"from-json\", \"port\": 8080, \"route\": [{\"to\": \"x\"}, {\"to\": \"y\"}]}",
    )
    .expect("write");
    std::fs::write(dir.join("vars.hcl"), "base = 8000\nupstream = { host = \"h\" }\n").expect("write");
    let vars = r#"-V={"env": "prod"}"#;
    let runs: [&[&str]; 5] = [
        &["--spec=spec.hcldec", vars, "-V=vars.hcl", "a.hcl", "b.hcl"],
        &["--spec=spec.hcldec", vars, "-V=vars.hcl", "--diags=json", "a.hcl", "b.hcl", "dup.hcl"],
        &["--spec=spec.hcldec", "--with-type", "c.json"],
        &["--spec=spec.hcldec", "--var-refs", "a.hcl", "b.hcl"],
        &["--spec=spec.hcldec", "--diags=json", "a.hcl"],
    ];
    for args in runs {
        let mut ours_args = vec!["hcldec"];
        ours_args.extend(args);
        let ours = run(&nacl_ls(), &dir, &ours_args);
        let theirs = run(&oracle.join("hcldec"), &dir, args);
        assert_eq!(
            ours.code, theirs.code,
            "{args:?}: exit codes differ\nours: {}\ntheirs: {}",
            ours.stderr, theirs.stderr
        );
        if args.contains(&"--var-refs") {
            // The reference lists references in the random order of Go's map of object specs.
            assert_eq!(sorted_refs(&ours.stdout), sorted_refs(&theirs.stdout), "{args:?}: references differ");
        } else {
            assert_eq!(ours.stdout, theirs.stdout, "{args:?}: outputs differ");
        }
        assert_eq!(diagnostic_places(&ours.stderr), diagnostic_places(&theirs.stderr), "{args:?}\n{}", theirs.stderr);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--var-refs` output as a sorted list of its entries' JSON texts.
fn sorted_refs(stdout: &str) -> Vec<String> {
    let json: serde_json::Value = serde_json::from_str(stdout).expect("--var-refs prints JSON");
    let mut entries: Vec<String> = json.as_array().into_iter().flatten().map(|e| e.to_string()).collect();
    entries.sort();
    entries
}

#[test]
fn run_as_hcldec_it_reads_stdin_and_asks_for_a_spec() {
    use std::io::Write;
    let dir = scratch("stdin");
    let link = dir.join("hcldec");
    #[cfg(unix)]
    std::os::unix::fs::symlink(nacl_ls(), &link).expect("link named hcldec");
    std::fs::write(dir.join("spec.hcldec"), "attr {\n  name = \"a\"\n  type = number\n}\n").expect("write");
    let piped = |args: &[&str], input: &str| {
        let mut child = Command::new(&link)
            .args(args)
            .current_dir(&dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("hcldec runs");
        child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write stdin");
        let output = child.wait_with_output().expect("output");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    // No arguments and a pipe on stdin: hcldec's complaint, not a language server.
    let (code, _, stderr) = piped(&[], "");
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(stderr, "Error: the --spec=... argument is required\n\n");
    let (code, stdout, stderr) = piped(&["--spec=spec.hcldec"], "a = 1 + 1\n");
    assert_eq!((code, stdout.as_str()), (Some(0), "2\n"), "{stderr}");
    let (code, _, stderr) = piped(&["--spec=spec.hcldec", "--diags=json"], "a = \"x\"\n");
    assert_eq!(code, Some(2));
    // As Go writes it: `<` and `>` escaped.
    assert!(stderr.contains(r#""filename": "\u003cstdin\u003e""#), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
