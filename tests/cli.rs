//! End-to-end tests of the `nacl-ls` command line: the real binary on real files.

use expect_test::expect;
use std::{path::PathBuf, process::Command};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `nacl-ls` in the repository root; returns (exit code, stdout, stderr).
fn nacl_ls(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_nacl-ls"))
        .args(args)
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .output()
        .expect("the nacl-ls binary runs");
    let stdout = String::from_utf8(output.stdout).expect("stdout is UTF-8");
    let stderr = String::from_utf8(output.stderr).expect("stderr is UTF-8");
    (output.status.code().unwrap_or(-1), stdout, stderr)
}

/// Drops the timing from a summary line so the output is reproducible.
fn without_timing(text: &str) -> String {
    text.lines()
        .map(|line| match line.find(" MB in ") {
            Some(at) => format!("{}…", &line[..at]),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn check_reports_the_demo_mistakes() {
    let (code, stdout, stderr) = nacl_ls(&["check", "tests/demo"]);
    assert_eq!(code, 1, "errors give exit code 1; stderr: {stderr}");
    expect![[r#"
        error[E0401]: `Region__c` of `salesforce.Account.instance.Acme` is set in 2 fragments; a value can be set only once
          --> tests/demo/envs/prod/salesforce/Records/Account/Acme.nacl:3:3
           |
         3 |   Region__c = "AMER"
           |   ^^^^^^^^^
           |
          ::: tests/demo/salesforce/Records/ApexClass/GreetingService.nacl:14:3
           |
        14 |   Region__c = "EMEA"
           |   --------- note: the other definition
           |

        warning[W0501]: unresolved reference: element `salesforce.Account.instance.Globex` does not exist in environment `prod`
         --> tests/demo/envs/prod/salesforce/Records/Account/Acme.nacl:4:20
          |
        4 |   parent_account = salesforce.Account.instance.Globex
          |                    ----------------------------------
          |

        error[E0106]: `#` comments are not NaCl: use `//`
         --> tests/demo/envs/prod/salesforce/Records/Settings/AccountSettings.nacl:3:3
          |
        3 |   # Salto never reads this comment style
          |   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          |

        error[E0401]: `Region__c` of `salesforce.Account.instance.Acme` is set in 2 fragments; a value can be set only once
          --> tests/demo/salesforce/Records/ApexClass/GreetingService.nacl:14:3
           |
        14 |   Region__c = "EMEA"
           |   ^^^^^^^^^
           |
          ::: tests/demo/envs/prod/salesforce/Records/Account/Acme.nacl:3:3
           |
         3 |   Region__c = "AMER"
           |   --------- note: the other definition
           |

        error[E0101]: unterminated string: add the closing `"` before the end of the line
          --> tests/demo/salesforce/Records/ApexClass/GreetingService.nacl:20:16
           |
        20 |   owner_note = "Owned by the ${ salesforce.Account.instance.Acme.Region__c } team
           |                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
           |

        note: 2 salesforce instances of 2 types not defined in NaCl are not type-checked: Salto keeps such types in its state files, and no state file is present for the environment
        4 errors, 1 warning in 3 files: 9 files checked (0.0…
        by code: E0101 ×1, E0106 ×1, E0401 ×2, W0501 ×1"#]]
    .assert_eq(&without_timing(&stdout));
}

#[test]
fn check_json_is_machine_readable() {
    let (code, stdout, _) = nacl_ls(&["check", "--format", "json", "tests/demo"]);
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    let diagnostics = report["diagnostics"].as_array().expect("a diagnostics array");
    assert_eq!(diagnostics.len(), 5);
    let unterminated = diagnostics.iter().find(|d| d["code"] == "E0101").expect("the unterminated string");
    assert_eq!(unterminated["severity"], "error");
    assert_eq!(unterminated["start"]["line"], 20);
    assert_eq!(unterminated["start"]["column"], 16);
    let conflict = diagnostics.iter().find(|d| d["code"] == "E0401").expect("the conflict");
    assert_eq!(conflict["related"].as_array().map(Vec::len), Some(1), "the conflict links the other fragment");
    let unresolved = diagnostics.iter().find(|d| d["code"] == "W0501").expect("the unresolved reference");
    assert_eq!(unresolved["severity"], "warning");
    assert_eq!(report["summary"]["files_checked"], 9);
    assert_eq!(report["summary"]["errors"], 4);
    assert_eq!(report["summary"]["warnings"], 1);
}

#[test]
fn check_reports_on_the_given_folder_only() {
    let (code, stdout, _) = nacl_ls(&["check", "tests/demo/salesforce/Objects"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("no problems: 2 files checked"), "{stdout}");
    let (code, stdout, _) = nacl_ls(&["check", "tests/demo/envs/prod/salesforce/Records/Account"]);
    assert_eq!(code, 1, "the conflict is an error: {stdout}");
    assert!(stdout.contains("GreetingService.nacl:14:3"), "the other fragment is shown: {stdout}");
}

#[test]
fn deny_warnings_fails_on_warnings() {
    let scratch = Scratch::new("deny-warnings");
    std::fs::write(scratch.0.join("a.nacl"), "salto.t a {\n  r = salto.t.instance.missing\n}\n").expect("write");
    let dir = scratch.0.to_str().expect("UTF-8 path");
    let (code, stdout, _) = nacl_ls(&["check", dir]);
    assert_eq!(code, 0, "warnings alone pass: {stdout}");
    let (code, _, _) = nacl_ls(&["check", "--deny-warnings", dir]);
    assert_eq!(code, 1);
}

#[test]
fn check_of_a_missing_path_exits_two() {
    let (code, _, stderr) = nacl_ls(&["check", "does/not/exist"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot search does/not/exist"), "{stderr}");
}

#[test]
fn parse_prints_the_tree() {
    let (code, stdout, _) = nacl_ls(&["parse", "--tree", "tests/demo/salto.config/workspace.nacl"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("SOURCE_FILE@0..77\n  BLOCK@0..76\n    LABEL@0..9\n      IDENT@0..9 \"workspace\""),
        "{stdout}"
    );
}

#[test]
fn help_lists_the_commands() {
    let (code, stdout, _) = nacl_ls(&["--help"]);
    assert_eq!(code, 0);
    for command in ["check", "elements", "fmt", "serve", "parse"] {
        assert!(stdout.contains(command), "{command} missing from:\n{stdout}");
    }
}

/// A scratch folder for tests that write files, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("nacl-ls-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch folder");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const MESSY: &str = "salto.t a {\n      x =   1\n  l = [1, 2]\n}\n";
const CANONICAL: &str = "salto.t a {\n  x = 1\n  l = [\n    1,\n    2,\n  ]\n}\n";

#[test]
fn fmt_rewrites_files_in_place_and_check_then_passes() {
    let scratch = Scratch::new("fmt");
    let file = scratch.0.join("a.nacl");
    std::fs::write(&file, MESSY).expect("write");
    let dir = scratch.0.to_str().expect("UTF-8 temp path");

    let (code, stdout, _) = nacl_ls(&["fmt", "--check", dir]);
    assert_eq!(code, 1, "--check exits 1 when a file would change");
    assert!(stdout.trim_end().ends_with("a.nacl"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), MESSY, "--check changes nothing");

    let (code, _, stderr) = nacl_ls(&["fmt", dir]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), CANONICAL);

    let (code, _, _) = nacl_ls(&["fmt", "--check", dir]);
    assert_eq!(code, 0, "a formatted file passes --check");
}

#[test]
fn fmt_diff_prints_a_unified_diff() {
    let scratch = Scratch::new("fmt-diff");
    let file = scratch.0.join("a.nacl");
    std::fs::write(&file, MESSY).expect("write");
    let (code, stdout, _) = nacl_ls(&["fmt", "--diff", file.to_str().expect("UTF-8 path")]);
    assert_eq!(code, 1);
    assert!(stdout.contains("\n-      x =   1\n") && stdout.contains("\n+  x = 1\n"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), MESSY, "--diff changes nothing");
}

/// `nacl-ls fmt -` started with stdin, stdout and stderr piped.
fn fmt_stdin_child() -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_nacl-ls"))
        .args(["fmt", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("nacl-ls starts")
}

#[test]
fn fmt_formats_stdin_to_stdout() {
    use std::io::Write;
    let mut child = fmt_stdin_child();
    child.stdin.take().expect("stdin").write_all(MESSY.as_bytes()).expect("write stdin");
    let output = child.wait_with_output().expect("nacl-ls finishes");
    assert!(output.status.success());
    assert_eq!(String::from_utf8(output.stdout).expect("UTF-8"), CANONICAL);
}

#[test]
fn fmt_refuses_stdin_over_the_file_size_cap_with_a_message() {
    use std::io::Write;
    let mut child = fmt_stdin_child();
    let mut stdin = child.stdin.take().expect("stdin");
    // 129 MiB of blank lines, one over the cap; the writer stops when nacl-ls stops reading.
    let block = vec![b'\n'; 1 << 20];
    let writer = std::thread::spawn(move || (0..129).try_for_each(|_| stdin.write_all(&block)));
    let output = child.wait_with_output().expect("nacl-ls finishes");
    let _ = writer.join();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("stdin is larger than the 128 MiB nacl-ls formats"), "{stderr}");
}

#[test]
fn fmt_leaves_broken_blocks_alone() {
    let scratch = Scratch::new("fmt-broken");
    let file = scratch.0.join("a.nacl");
    let text = "salto.t bad {\n      x = \"open\n}\nsalto.t good {\n      y = 1\n}\n";
    std::fs::write(&file, text).expect("write");
    let (code, _, _) = nacl_ls(&["fmt", file.to_str().expect("UTF-8 path")]);
    assert_eq!(code, 0);
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        "salto.t bad {\n      x = \"open\n}\nsalto.t good {\n  y = 1\n}\n"
    );
}

#[test]
fn elements_lists_merged_elements_with_their_fragments_and_values() {
    let (code, stdout, _) = nacl_ls(&["elements", "--values", "--format", "json", "tests/demo"]);
    assert_eq!(code, 0);
    let elements: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    let elements = elements.as_array().expect("an array");
    let ids: Vec<&str> = elements.iter().filter_map(|e| e["id"].as_str()).collect();
    assert!(ids.windows(2).all(|w| w[0] <= w[1]), "sorted by ID: {ids:?}");
    let account = elements.iter().find(|e| e["id"] == "salesforce.Account").expect("the Account type");
    assert_eq!(account["kind"], "object type");
    assert_eq!(account["fragments"].as_array().map(Vec::len), Some(2), "split over two files");
    assert_eq!(account["value"]["fields"]["Region__c"]["type"], "salesforce.Text");
    let apex =
        elements.iter().find(|e| e["id"] == "salesforce.ApexClass.instance.GreetingService").expect("the Apex class");
    assert_eq!(apex["value"]["content"]["file"], "salesforce/classes/GreetingService.cls");
    assert_eq!(apex["value"]["apiVersion"], 58.0);
    let (code, stdout, _) = nacl_ls(&["elements", "tests/demo"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains(
            "object type salesforce.Account\n  tests/demo/salesforce/Objects/Account/AccountAnnotations.nacl:1:1\n"
        ),
        "{stdout}"
    );
}

#[test]
fn no_arguments_with_a_pipe_for_stdin_serves_lsp_and_exits_at_end_of_input() {
    // `output()` gives the child an empty, closed stdin: the server starts and sees the end.
    let (code, stdout, _) = nacl_ls(&[]);
    assert_eq!(code, 0);
    assert!(stdout.is_empty(), "nothing but LSP messages on stdout: {stdout}");
}

/// The summary lines of a human report (codes and notes), without timing.
fn summary_lines(stdout: &str) -> String {
    without_timing(stdout)
        .lines()
        .filter(|l| l.starts_with("note:") || l.starts_with("by code:") || l.contains(" checked"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn check_reads_salto_state_unless_told_not_to() {
    let fixture = nacl_corpus::fixture_workspace(&repo_root().join("analysis/test_data/state_workspace"));
    let path = fixture.to_string_lossy().into_owned();
    let (code, stdout, _) = nacl_ls(&["check", &path]);
    assert_eq!(code, 0, "warnings only");
    expect![[r#"
        0 errors, 5 warnings in 4 files: 8 files checked (0.0…
        by code: I0608 ×1, W0501 ×1, W0601 ×1, W0602 ×1, W0603 ×1, W0605 ×1"#]]
    .assert_eq(&summary_lines(&stdout));
    let (_, stdout, _) = nacl_ls(&["check", "--no-state", &path]);
    expect![[r#"
        note: 4 jira instances of 3 types not defined in NaCl are not type-checked: Salto keeps such types in its state files, and state files were not read (`--no-state`)
        0 errors, 2 warnings in 2 files: 8 files checked (0.0…
        by code: W0501 ×2"#]]
    .assert_eq(&summary_lines(&stdout));
    // `elements` lists what Salto merges from the state too.
    let (_, stdout, _) = nacl_ls(&["elements", &path]);
    let hidden: Vec<&str> = stdout.lines().filter(|l| l.starts_with("hidden")).collect();
    expect![[r#"
        hidden primitive type (string) jira.Color
        hidden object type jira.Component
        hidden object type jira.Project
        hidden object type jira.Secret
        hidden instance jira.Secret.instance.token
        hidden object type jira.Status
        hidden instance jira.Status.instance.Done"#]]
    .assert_eq(&hidden.join("\n"));
}

#[test]
fn check_takes_a_bare_file_name_in_the_current_folder() {
    let folder = repo_root().join("tests/demo/salesforce/Records/ApexClass");
    let output = Command::new(env!("CARGO_BIN_EXE_nacl-ls"))
        .args(["check", "GreetingService.nacl"])
        .current_dir(&folder)
        .env("NO_COLOR", "1")
        .output()
        .expect("the nacl-ls binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("1 file checked"), "{stdout}");
    assert!(stdout.contains("E0101"), "{stdout}");
}

/// Runs `nacl-ls` with a time limit: a hang is a failure, not a stuck test run.
#[cfg(unix)]
fn nacl_ls_within(seconds: u64, args: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nacl-ls"))
        .args(args)
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the nacl-ls binary runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while child.try_wait().expect("wait").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("nacl-ls {args:?} did not finish within {seconds} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output");
    let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
    (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
}

#[cfg(unix)]
fn mkfifo(path: &std::path::Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(status.success());
}

#[cfg(unix)]
fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[cfg(unix)]
#[test]
fn fmt_never_writes_through_a_planted_link() {
    use std::os::unix::fs::symlink;
    let scratch = Scratch::new("fmt-planted");
    let (ws, victim) = (scratch.0.join("ws"), scratch.0.join("victim.sh"));
    std::fs::create_dir_all(&ws).expect("dir");
    std::fs::write(&victim, "echo safe\n").expect("write");
    std::fs::write(ws.join("a.nacl"), MESSY).expect("write");
    // Every name an earlier version used for its temporary file, and a few likely others.
    for name in [".a.nacl.nacl-ls-fmt.tmp", "a.nacl.tmp", ".a.nacl.tmp", "a.nacl~"] {
        symlink(&victim, ws.join(name)).expect("symlink");
    }
    let before = names_in(&ws);
    let (code, _, stderr) = nacl_ls(&["fmt", ws.to_str().expect("UTF-8")]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(ws.join("a.nacl")).expect("read"), CANONICAL);
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "echo safe\n", "the link's target is untouched");
    assert_eq!(names_in(&ws), before, "no file is added or left behind");
}

#[cfg(unix)]
#[test]
fn fmt_updates_files_in_place_keeping_links_mode_and_identity() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
    let scratch = Scratch::new("fmt-identity");
    let ws = scratch.0.join("ws");
    std::fs::create_dir_all(ws.join("real")).expect("dir");
    let real = ws.join("real/a.nacl");
    std::fs::write(&real, MESSY).expect("write");
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    std::fs::hard_link(&real, ws.join("real/backup.txt")).expect("hard link");
    symlink("real/a.nacl", ws.join("link.nacl")).expect("symlink");
    let inode = std::fs::metadata(&real).expect("stat").ino();

    let (code, _, stderr) = nacl_ls(&["fmt", ws.to_str().expect("UTF-8")]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.starts_with("1 of 1 files reformatted"), "the file and the link to it count once: {stderr}");
    let meta = std::fs::metadata(&real).expect("stat");
    assert_eq!(std::fs::read_to_string(&real).expect("read"), CANONICAL);
    assert_eq!((meta.ino(), meta.mode() & 0o777, meta.nlink()), (inode, 0o640, 2), "same file, mode and links");
    assert_eq!(std::fs::read_to_string(ws.join("real/backup.txt")).expect("read"), CANONICAL);
    assert!(std::fs::symlink_metadata(ws.join("link.nacl")).expect("lstat").file_type().is_symlink());

    // A link given directly is formatted at its target too.
    std::fs::write(&real, MESSY).expect("write");
    let (code, _, stderr) = nacl_ls(&["fmt", ws.join("link.nacl").to_str().expect("UTF-8")]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&real).expect("read"), CANONICAL);
    assert!(std::fs::symlink_metadata(ws.join("link.nacl")).expect("lstat").file_type().is_symlink());
}

#[cfg(unix)]
#[test]
fn fmt_refuses_read_only_files_and_links_out_of_the_workspace() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let scratch = Scratch::new("fmt-refuse");
    let (ws, outside) = (scratch.0.join("ws"), scratch.0.join("outside"));
    std::fs::create_dir_all(&ws).expect("dir");
    std::fs::create_dir_all(&outside).expect("dir");
    let read_only = ws.join("ro.nacl");
    std::fs::write(&read_only, MESSY).expect("write");
    std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    std::fs::write(outside.join("victim.nacl"), MESSY).expect("write");
    symlink(outside.join("victim.nacl"), ws.join("out.nacl")).expect("symlink");
    std::fs::create_dir_all(ws.join("envs")).expect("dir");
    symlink(&outside, ws.join("envs/prod")).expect("symlink");

    let (code, _, stderr) = nacl_ls(&["fmt", ws.to_str().expect("UTF-8")]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("ro.nacl: the file is read-only"), "{stderr}");
    assert!(stderr.contains("out.nacl: it is a link to") && stderr.contains("outside the workspace"), "{stderr}");
    assert!(stderr.contains("envs/prod: it is a link to"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&read_only).expect("read"), MESSY);
    assert_eq!(std::fs::read_to_string(outside.join("victim.nacl")).expect("read"), MESSY);

    // A writable file in a read-only folder is formatted: it is updated, not replaced.
    std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    std::fs::remove_file(ws.join("out.nacl")).expect("rm");
    std::fs::remove_file(ws.join("envs/prod")).expect("rm");
    std::fs::set_permissions(&ws, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let (code, _, stderr) = nacl_ls(&["fmt", ws.to_str().expect("UTF-8")]);
    std::fs::set_permissions(&ws, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&read_only).expect("read"), CANONICAL);
}

#[cfg(unix)]
#[test]
fn links_inside_the_workspace_are_followed_and_fifos_never_hang() {
    use std::os::unix::fs::symlink;
    let scratch = Scratch::new("links-fifos");
    let ws = scratch.0.join("ws");
    std::fs::create_dir_all(ws.join("salto.config/states")).expect("dir");
    std::fs::create_dir_all(ws.join("shared")).expect("dir");
    std::fs::write(ws.join("shared/t.nacl"), "type salto.t {\n  number n {\n  }\n}\nsalto.t x {\n  n = \"one\"\n}\n")
        .expect("write");
    std::fs::create_dir_all(ws.join("envs")).expect("dir");
    symlink("../shared", ws.join("envs/prod")).expect("symlink");
    symlink(".", ws.join("loop")).expect("symlink");
    mkfifo(&ws.join("salto.config/envs.nacl"));
    mkfifo(&ws.join("salto.config/states/prod.salto.jsonl.zip"));
    mkfifo(&ws.join("pipe.nacl"));
    let root = ws.to_str().expect("UTF-8");

    let (code, stdout, stderr) = nacl_ls_within(30, &["check", root]);
    assert_eq!(code, 1, "the FIFO named like a NaCl file is an error: {stdout}{stderr}");
    assert_eq!(stdout.matches("expects a number").count(), 1, "a file reached through a link counts once: {stdout}");
    assert!(stdout.contains("pipe.nacl") && stdout.contains("not a regular file"), "{stdout}");
    assert!(stdout.contains("could not be read: cannot read or decompress it: it is not a regular file"), "{stdout}");
    std::fs::remove_file(ws.join("pipe.nacl")).expect("rm");

    let fifo = scratch.0.join("pipe.nacl");
    mkfifo(&fifo);
    let (code, stdout, stderr) = nacl_ls_within(30, &["check", fifo.to_str().expect("UTF-8")]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.contains("neither a regular file nor a folder"), "{stdout}");

    let linked = scratch.0.join("linked-ws");
    symlink(&ws, &linked).expect("symlink");
    let (code, stdout, stderr) = nacl_ls_within(30, &["check", linked.to_str().expect("UTF-8")]);
    assert_eq!(code, 1, "a workspace reached through a link is checked: {stdout}{stderr}");
    assert!(stdout.contains("expects a number"), "{stdout}");
}

#[cfg(unix)]
#[test]
fn a_state_file_bomb_is_refused_quickly() {
    let scratch = Scratch::new("state-bomb");
    let ws = scratch.0.join("ws");
    std::fs::create_dir_all(ws.join("salto.config/states")).expect("dir");
    std::fs::write(
        ws.join("salto.config/envs.nacl"),
        "envs {\n  envs = [\n    {\n      name = \"prod\"\n    },\n  ]\n}\n",
    )
    .expect("write");
    std::fs::write(ws.join("a.nacl"), "type salto.t {\n}\n").expect("write");
    // 300 gzip members of 1 MiB of spaces each: 300 MiB of one line, from a file of 300 KB.
    let member = nacl_corpus::gzip(&vec![b' '; 1 << 20]);
    std::fs::write(ws.join("salto.config/states/prod.salto.jsonl.zip"), member.repeat(300)).expect("write");
    let (code, stdout, stderr) = nacl_ls_within(120, &["check", ws.to_str().expect("UTF-8")]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("line longer than 256 MiB"), "{stdout}");
}

#[cfg(unix)]
#[test]
fn static_files_behind_links_out_of_the_workspace_or_fifos_are_refused_with_why() {
    use std::os::unix::fs::symlink;
    let scratch = Scratch::new("static-links");
    let ws = scratch.0.join("ws");
    std::fs::create_dir_all(ws.join("salto.config")).expect("dir");
    std::fs::create_dir_all(ws.join("static-resources/docs")).expect("dir");
    std::fs::create_dir_all(ws.join("inside")).expect("dir");
    std::fs::write(ws.join("inside/note.txt"), "inside").expect("write");
    symlink("../../inside/note.txt", ws.join("static-resources/docs/linked.txt")).expect("symlink");
    symlink("/etc", ws.join("static-resources/docs/etc")).expect("symlink");
    mkfifo(&ws.join("static-resources/docs/pipe.txt"));
    std::fs::write(
        ws.join("a.nacl"),
        "salto.t a {\n  inside = file(\"docs/linked.txt\")\n  out = file(\"docs/etc/passwd\")\n  pipe = file(\"docs/pipe.txt\")\n}\n",
    )
    .expect("write");
    let root = ws.to_str().expect("UTF-8");
    let (_, stdout, stderr) = nacl_ls_within(30, &["check", "--no-state", root]);
    assert!(!stdout.contains("linked.txt"), "a link inside the workspace is followed: {stdout}");
    assert!(
        stdout.contains("`docs/etc/passwd` is not read: it is a link to /etc, outside the workspace"),
        "{stdout}{stderr}"
    );
    assert!(stdout.contains("`docs/pipe.txt` is not read: it is not a regular file"), "{stdout}");

    // The whole folder linked to `/`: nothing under it counts, and the disk is not walked.
    let ws2 = scratch.0.join("ws2");
    std::fs::create_dir_all(ws2.join("salto.config")).expect("dir");
    symlink("/", ws2.join("static-resources")).expect("symlink");
    std::fs::write(ws2.join("a.nacl"), "salto.t a {\n  x = file(\"etc/passwd\")\n}\n").expect("write");
    let (_, stdout, _) = nacl_ls_within(30, &["check", "--no-state", ws2.to_str().expect("UTF-8")]);
    assert!(stdout.contains("`etc/passwd` is not read: it is a link to /, outside the workspace"), "{stdout}");
}

#[cfg(unix)]
#[test]
fn human_output_escapes_control_characters_from_the_repository() {
    let scratch = Scratch::new("inject");
    let ws = scratch.0.join("ws");
    std::fs::create_dir_all(ws.join("salto.config")).expect("dir");
    let forged_name = "x\n::error::forged\u{1b}[2J.nacl";
    std::fs::write(
        ws.join(forged_name),
        "salto.t a {\n  x = file(\"a\\u001b[31mb\\nerror[E9999]: forged\")\n  y = \"raw \u{1b}[2J here\"\n}\n",
    )
    .expect("write");
    let root = ws.to_str().expect("UTF-8");
    for args in [vec!["check", root], vec!["elements", root], vec!["fmt", "--check", root]] {
        let (_, stdout, stderr) = nacl_ls_within(30, &args);
        for output in [&stdout, &stderr] {
            assert!(!output.contains('\u{1b}'), "{args:?} printed an escape character: {output}");
            assert!(
                !output.lines().any(|l| l.starts_with("::error::") || l.starts_with("error[E9999]")),
                "{args:?} printed a forged line: {output}"
            );
        }
    }
    let (_, stdout, _) = nacl_ls_within(30, &["check", root]);
    assert!(stdout.contains("x\\n::error::forged\\u{1b}[2J.nacl"), "{stdout}");
}

#[cfg(unix)]
#[test]
fn two_fmt_runs_at_once_take_turns() {
    let scratch = Scratch::new("fmt-race");
    for i in 0..200 {
        std::fs::write(scratch.0.join(format!("f{i}.nacl")), MESSY).expect("write");
    }
    let dir = scratch.0.to_str().expect("UTF-8");
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_nacl-ls"))
            .args(["fmt", dir])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("nacl-ls starts")
    };
    let (first, second) = (spawn(), spawn());
    for child in [first, second] {
        let output = child.wait_with_output().expect("nacl-ls finishes");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    for i in 0..200 {
        assert_eq!(std::fs::read_to_string(scratch.0.join(format!("f{i}.nacl"))).expect("read"), CANONICAL);
    }
    assert_eq!(names_in(&scratch.0).len(), 200, "no temporary file is left");
}

/// Runs `nacl-ls` with its output on a terminal (through `script`); `None` when `script` is missing.
#[cfg(target_os = "linux")]
fn on_a_terminal(args: &str) -> Option<String> {
    let command = format!("{} {args}", env!("CARGO_BIN_EXE_nacl-ls"));
    let output = Command::new("script").args(["-qec", &command, "/dev/null"]).current_dir(repo_root()).output().ok()?;
    Some(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(target_os = "linux")]
#[test]
fn long_runs_draw_progress_on_a_terminal_only() {
    let Some(shown) = on_a_terminal("check tests/demo") else {
        eprintln!("skipped: `script` (util-linux) is not installed");
        return;
    };
    assert!(shown.contains("files/s"), "a progress bar on a terminal: {shown}");
    for quiet in ["check --quiet tests/demo", "check --format json tests/demo", "fmt --check --quiet tests/demo"] {
        let shown = on_a_terminal(quiet).unwrap_or_default();
        assert!(!shown.contains("files/s"), "no progress bar with `{quiet}`: {shown}");
    }
    // Not on a terminal (as in every other test here): no progress bar either.
    let (_, stdout, stderr) = nacl_ls(&["check", "tests/demo"]);
    assert!(!stdout.contains("files/s") && !stderr.contains("files/s"));
}

#[test]
fn check_stops_at_the_file_limit_with_e0004() {
    let scratch = Scratch::new("file-limit");
    for i in 0..20 {
        std::fs::write(scratch.0.join(format!("f{i:02}.nacl")), format!("salto.t i{i} {{\n}}\n")).expect("write");
    }
    let output = Command::new(env!("CARGO_BIN_EXE_nacl-ls"))
        .args(["check", scratch.0.to_str().expect("UTF-8")])
        .env("NO_COLOR", "1")
        .env("NACL_LS_TEST_HOOKS", "1")
        .env("NACL_LS_TEST_MAX_FILES", "5")
        .output()
        .expect("nacl-ls runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("error[E0004]: nacl-ls stopped looking for files after 5 NaCl files"), "{stdout}");
    // The five files read, and the report at the folder.
    assert!(stdout.contains("6 files checked"), "{stdout}");
    // Without the test hooks, the variable changes nothing.
    let output = Command::new(env!("CARGO_BIN_EXE_nacl-ls"))
        .args(["check", scratch.0.to_str().expect("UTF-8")])
        .env("NACL_LS_TEST_MAX_FILES", "5")
        .output()
        .expect("nacl-ls runs");
    assert!(String::from_utf8_lossy(&output.stdout).contains("20 files checked"));
}

/// A folder holding NaCl and HCL files: `check` reports on both, `fmt` formats each in its own
/// style, `parse` reads each in its language.
#[test]
fn check_fmt_and_parse_serve_nacl_and_hcl_side_by_side() {
    let dir = std::env::temp_dir().join(format!("nacl-ls-cli-mixed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    std::fs::write(dir.join("a.nacl"), "salto.t a {\n  x = \"open\n}\n").expect("write");
    std::fs::write(dir.join("main.tf"), "resource \"a\" \"b\" {\n  list = [1 2]\n}\n").expect("write");
    std::fs::write(dir.join("messy.hcl"), "a=1\nlong_name = {x=1}\n").expect("write");
    // Static files are resources, even when named like HCL.
    std::fs::create_dir_all(dir.join("static-resources")).expect("static folder");
    std::fs::write(dir.join("static-resources/resource.tf"), "not { hcl").expect("write");
    std::fs::write(dir.join("static-resources/kept.hcl"), "a=1\n").expect("write");
    let folder = dir.to_str().expect("a UTF-8 path");
    let (code, stdout, stderr) = nacl_ls(&["check", folder, "--quiet", "--format", "json"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let text = report.to_string();
    assert!(text.contains("\"E0101\"") && text.contains("\"H0208\""), "{text}");
    assert!(text.contains("main.tf") && text.contains("a.nacl"), "{text}");
    assert!(!text.contains("resource.tf"), "{text}");

    let (code, stdout, _) = nacl_ls(&["fmt", "--check", folder]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("messy.hcl"), "{stdout}");
    let (code, _, stderr) = nacl_ls(&["fmt", "--quiet", &format!("{folder}/messy.hcl")]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.join("messy.hcl")).expect("read"), "a         = 1\nlong_name = { x = 1 }\n");
    let (code, _, stderr) = nacl_ls(&["fmt", "--quiet", folder]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.join("static-resources/kept.hcl")).expect("read"),
        "a=1\n",
        "a resource is left alone"
    );

    let (code, stdout, _) = nacl_ls(&["parse", &format!("{folder}/main.tf")]);
    assert_eq!(code, 1);
    assert!(stdout.contains("H0208"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `nacl-ls check --format json DIR` with `cache` as the cache folder; the report.
fn check_with_cache(dir: &std::path::Path, cache: &std::path::Path) -> String {
    check_with_cache_and(dir, cache, &[])
}

/// Runs `nacl-ls check --format json ARGS DIR` with `cache` as the cache folder (none when
/// empty); the report.
fn check_with_cache_and(dir: &std::path::Path, cache: &std::path::Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_nacl-ls"))
        .args(["check", "--format", "json"])
        .args(args)
        .arg(dir)
        .env("NACL_LS_CACHE_DIR", cache)
        .output()
        .expect("the nacl-ls binary runs");
    String::from_utf8(output.stdout).expect("stdout is UTF-8")
}

#[test]
fn reports_from_the_cache_are_served_only_for_the_inputs_they_were_computed_from() {
    let scratch = Scratch::new("reports");
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../analysis/test_data/state_workspace");
    let ws = nacl_corpus::fixture_workspace(&fixture);
    let cache = scratch.0.join("cache");
    // What a check without any cache says, then the same from the run that writes the cache
    // and from the run that reads it.
    let same = |what: &str, args: &[&str]| {
        let fresh = check_with_cache_and(&ws, std::path::Path::new(""), args);
        assert!(fresh.contains("\"summary\""), "{what}: {fresh}");
        for run in ["writes", "reads"] {
            assert_eq!(check_with_cache_and(&ws, &cache, args), fresh, "{what}: the run that {run} the cache");
        }
        fresh
    };
    let first = same("as it is", &[]);
    let reports: Vec<PathBuf> = std::fs::read_dir(&cache)
        .expect("a cache folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "reports"))
        .collect();
    assert_eq!(reports.len(), 1, "the reports are kept");
    assert_ne!(same("without state", &["--no-state"]), first);

    // A file added that defines what another file refers to, then a change in it alone.
    let status = ws.join("jira/Records/Status/Gone.nacl");
    std::fs::create_dir_all(status.parent().expect("parent")).expect("create");
    std::fs::write(&status, "jira.Status Gone {\n}\n").expect("write");
    let added = same("a file added", &[]);
    assert!(first.contains("jira.Status.instance.Gone") && !added.contains("jira.Status.instance.Gone"), "{added}");
    std::fs::write(&status, "jira.Status Gone2 {\n}\n").expect("write");
    assert!(same("another file changed", &[]).contains("jira.Status.instance.Gone"));

    // A static file `file()` names appears.
    std::fs::write(ws.join("jira/Records/Typo/y.nacl"), "jira.Project y {\n  doc = file(\"jira/doc.txt\")\n}\n")
        .expect("write");
    let missing = same("a static file missing", &[]);
    std::fs::create_dir_all(ws.join("static-resources/jira")).expect("create");
    std::fs::write(ws.join("static-resources/jira/doc.txt"), "doc").expect("write");
    assert_ne!(same("a static file added", &[]), missing);
    std::fs::rename(ws.join("static-resources/jira/doc.txt"), ws.join("static-resources/jira/other.txt"))
        .expect("rename");
    assert_eq!(same("a static file renamed", &[]), missing);

    // The state file replaced by one that is not state.
    let state = ws.join("salto.config/states/prod.jira.jsonl.zip");
    let good = std::fs::read(&state).expect("read");
    std::fs::write(&state, b"not state").expect("write");
    let broken = same("the state broken", &[]);
    std::fs::write(&state, good).expect("write");
    assert_ne!(same("the state back", &[]), broken);

    // Damaged reports are not served.
    let bytes = std::fs::read(&reports[0]).expect("read");
    let expected = check_with_cache_and(&ws, std::path::Path::new(""), &[]);
    for damaged in [
        bytes.iter().enumerate().map(|(i, b)| if i == bytes.len() / 2 { b ^ 1 } else { *b }).collect::<Vec<u8>>(),
        bytes[..bytes.len() - 3].to_vec(),
    ] {
        std::fs::write(&reports[0], damaged).expect("write");
        assert_eq!(check_with_cache_and(&ws, &cache, &[]), expected);
    }
    let _ = std::fs::remove_dir_all(&ws);
}

#[test]
fn every_corpus_workspace_checks_the_same_from_its_reports_and_from_its_file_results() {
    let scratch = Scratch::new("corpus-cache");
    for dir in nacl_corpus::workspaces() {
        let cache = scratch.0.join(dir.file_name().expect("a name"));
        let fresh = check_with_cache(&dir, std::path::Path::new(""));
        assert!(fresh.contains("\"summary\""), "{}: {fresh}", dir.display());
        assert_eq!(check_with_cache(&dir, &cache), fresh, "{}: the run that writes the cache", dir.display());
        assert_eq!(check_with_cache(&dir, &cache), fresh, "{}: from the reports", dir.display());
        for entry in std::fs::read_dir(&cache).expect("a cache folder").flatten() {
            if entry.path().extension().is_some_and(|x| x == "reports") {
                std::fs::remove_file(entry.path()).expect("remove the reports");
            }
        }
        assert_eq!(check_with_cache(&dir, &cache), fresh, "{}: from the file results alone", dir.display());
    }
}

#[test]
fn a_second_check_reads_the_cache_and_reports_the_same_even_from_a_damaged_one() {
    let scratch = Scratch::new("cache");
    let (workspace, cache) = (scratch.0.join("ws"), scratch.0.join("cache"));
    std::fs::create_dir_all(&workspace).expect("create");
    let types = "type salto.t {\n  string name {\n    _required = true\n  }\n}\n";
    std::fs::write(workspace.join("types.nacl"), types).expect("write");
    std::fs::write(workspace.join("a.nacl"), "salto.t a {\n  name = 1\n  x = @\n}\n").expect("write");
    std::fs::write(workspace.join("b.nacl"), "salto.t b {\n}\n").expect("write");
    let fresh = check_with_cache(&workspace, &scratch.0.join("unused"));
    let _ = std::fs::remove_dir_all(scratch.0.join("unused"));

    assert_eq!(check_with_cache(&workspace, &cache), fresh, "the run that writes the cache");
    let written: Vec<PathBuf> =
        std::fs::read_dir(&cache).expect("a cache folder").flatten().map(|e| e.path()).collect();
    assert_eq!(written.len(), 2, "a cache file and its reports: {written:?}");
    // The file results alone: without the reports, which would be served instead.
    let written: Vec<PathBuf> = written.into_iter().filter(|p| p.extension().is_some_and(|x| x == "cache")).collect();
    let reports = written[0].with_extension("reports");
    std::fs::remove_file(&reports).expect("remove the reports");
    assert_eq!(check_with_cache(&workspace, &cache), fresh, "the run that reads it");
    let human = Command::new(env!("CARGO_BIN_EXE_nacl-ls"))
        .arg("check")
        .arg(&workspace)
        .env("NACL_LS_CACHE_DIR", &cache)
        .output()
        .expect("the nacl-ls binary runs");
    let human = String::from_utf8_lossy(&human.stdout);
    assert!(human.contains(", 3 read from the cache)"), "{human}");

    // Damaged, cut short or replaced by something else: ignored, and written again.
    let good = std::fs::read(&written[0]).expect("read");
    for damaged in [
        good.iter().enumerate().map(|(i, b)| if i == good.len() / 2 { b ^ 1 } else { *b }).collect::<Vec<u8>>(),
        good[..good.len() - 3].to_vec(),
        b"not a cache".to_vec(),
    ] {
        std::fs::write(&written[0], damaged).expect("write");
        std::fs::remove_file(&reports).expect("remove the reports");
        assert_eq!(check_with_cache(&workspace, &cache), fresh);
        assert_eq!(std::fs::read(&written[0]).expect("read"), good, "written again");
    }

    // A file changed since: its results are not taken from the cache.
    std::fs::write(workspace.join("b.nacl"), "salto.t b {\n  name = \"ok\"\n}\n").expect("write");
    let changed = check_with_cache(&workspace, &cache);
    assert_ne!(changed, fresh);
    assert_eq!(changed, check_with_cache(&workspace, &scratch.0.join("other")));
}

#[test]
fn a_check_of_an_unchanged_workspace_reads_no_file_and_reads_one_changed_whatever_its_times() {
    let scratch = Scratch::new("unread");
    let (workspace, cache) = (scratch.0.join("ws"), scratch.0.join("cache"));
    std::fs::create_dir_all(&workspace).expect("create");
    let types = "type salto.t {\n  string name {\n  }\n}\n";
    std::fs::write(workspace.join("types.nacl"), types).expect("write");
    let a = workspace.join("a.nacl");
    std::fs::write(&a, "salto.t a {\n  name = \"A\"\n}\n").expect("write");
    std::fs::write(workspace.join("b.nacl"), "salto.t b {\n}\n").expect("write");
    // The files need not settle for their metadata to be trusted (see `nacl_analysis::files::Stamp`).
    let check = |cache: &std::path::Path, format: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_nacl-ls"))
            .args(["check", "--format", format])
            .arg(&workspace)
            .env("NACL_LS_CACHE_DIR", cache)
            .env("NACL_LS_TEST_HOOKS", "1")
            .env(nacl_analysis::files::TEST_SETTLED_AFTER_ENV, "0")
            .output()
            .expect("the nacl-ls binary runs");
        String::from_utf8(output.stdout).expect("stdout is UTF-8")
    };
    let nowhere = std::path::Path::new("");
    let first = check(&cache, "human");
    assert!(first.starts_with("no problems: 3 files checked") && !first.contains("cache"), "{first}");
    let second = check(&cache, "human");
    assert!(second.contains(", 3 read from the cache, 3 unchanged files not read)"), "{second}");
    assert_eq!(check(&cache, "json"), check(nowhere, "json"));

    // The same length, the modification time put back: the metadata's change time tells.
    let modified = std::fs::metadata(&a).and_then(|m| m.modified()).expect("a time");
    std::fs::write(&a, "salto.t a {\n  name = 123\n}\n").expect("write");
    std::fs::File::options().write(true).open(&a).and_then(|f| f.set_modified(modified)).expect("set the time");
    // (A change anywhere needs every file's results, so the others are read too, for their
    // results in the cache.)
    let changed = check(&cache, "human");
    assert!(changed.contains("1 warning") && changed.contains(", 2 read from the cache)"), "{changed}");
    assert_eq!(check(&cache, "json"), check(nowhere, "json"));
}
