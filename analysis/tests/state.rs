//! Reading Salto state files of every generation and container, and what goes wrong.
//!
//! The fixtures in `test_data/state` hold one set of elements written the way each generation
//! of Salto wrote it (G1: old key names, inline type placeholders, an unquoted version and no
//! final newline; G2: positional lines with `fullName` in IDs; G3: keyed lines with versions and
//! update dates; G4: accounts, two `elements` lines and an unknown key). Every form must read
//! to the same elements.

use expect_test::expect;
use nacl_analysis::{
    layout::Layout,
    state::{StateElement, StateKind, StateStatus, WorkspaceState, read_state_file},
};
use nacl_corpus::{gzip, mangle};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/state").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A fresh folder for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nacl-state-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("cannot create a scratch folder");
    dir
}

/// One line per element: ID, kind, flags, fields and whether a value was kept.
fn summary(elements: &[StateElement], accounts: &[String]) -> String {
    let mut lines: Vec<String> = elements
        .iter()
        .map(|e| {
            let kind = match &e.kind {
                StateKind::Object { settings } => format!("object{}", if *settings { " settings" } else { "" }),
                StateKind::Primitive(p) => format!("primitive {}", p.as_str()),
                StateKind::Instance { type_id } => format!("instance of {type_id}"),
            };
            let flags = format!(
                "{}{}",
                if e.hidden { " _hidden" } else { "" },
                if e.hidden_value { " _hidden_value" } else { "" }
            );
            let fields: Vec<String> = e
                .fields
                .iter()
                .map(|f| format!("{}: {}{}", f.name, f.type_name, if f.hidden_value { " (hidden value)" } else { "" }))
                .collect();
            let url = e.annotation("_service_url").map(|u| format!(" url={u}")).unwrap_or_default();
            let value = if e.value.is_some() { " +value" } else { "" };
            format!("{} [{kind}{flags}]{url}{value} {{{}}}", e.id, fields.join(", "))
        })
        .collect();
    lines.sort();
    lines.push(format!("accounts: {accounts:?}"));
    lines.join("\n")
}

fn read_bytes(test: &str, bytes: Vec<u8>) -> String {
    let path = scratch(test).join("prod.jira.jsonl.zip");
    std::fs::write(&path, bytes).expect("cannot write a state file");
    let file = read_state_file(&path).unwrap_or_else(|e| panic!("{test}: {e}"));
    summary(&file.elements, &file.accounts)
}

#[test]
fn every_generation_reads_to_the_same_elements() {
    let expected = expect![[r#"
        jira.Board [object] url="https://example.atlassian.net/jira/boards" {name: string}
        jira.Color [primitive string _hidden] {}
        jira.Component [object _hidden] {name: string, id: serviceid (hidden value)}
        jira.Project [object _hidden] url="https://example.atlassian.net/jira/projects" {key: string, name: string, projectTypeKey: string, lead: string, id: number (hidden value), components: List<jira.Component>, status: jira.Status}
        jira.Project.instance.SUP [instance of jira.Project] url="https://example.atlassian.net/jira/projects/SUP" +value {}
        jira.Secret [object _hidden _hidden_value] {value: string}
        jira.Secret.instance.token [instance of jira.Secret] +value {}
        jira.Status [object _hidden] {name: string}
        jira.Status.instance.Done [instance of jira.Status _hidden] +value {}
        accounts: ["jira"]"#]];
    let g4 = read_bytes("g4", gzip(&fixture("g4.jsonl")));
    expected.assert_eq(&g4);
    for (name, bytes) in [
        ("g1 (UTF-8-encoded gzip)", mangle(&gzip(&fixture("g1.jsonl")))),
        ("g1 (gzip)", gzip(&fixture("g1.jsonl"))),
        ("g2", gzip(&fixture("g2.jsonl"))),
        (
            "g2 written on Windows",
            gzip(&String::from_utf8_lossy(&fixture("g2.jsonl")).replace('\n', "\r\n").into_bytes()),
        ),
        ("g3", gzip(&fixture("g3.jsonl"))),
    ] {
        assert_eq!(read_bytes(&name.replace(' ', "_"), bytes), g4, "{name}");
    }
}

/// A workspace with `envs.nacl` naming `prod`, and the given files under `salto.config/states`.
fn workspace_with_states(test: &str, files: &[(&str, Vec<u8>)]) -> WorkspaceState {
    let root = scratch(test);
    let states = root.join("salto.config/states");
    std::fs::create_dir_all(&states).expect("cannot create the states folder");
    std::fs::write(
        root.join("salto.config/envs.nacl"),
        "envs {\n  envs = [\n    {\n      name = \"prod\"\n    },\n  ]\n}\n",
    )
    .expect("cannot write envs.nacl");
    for (name, bytes) in files {
        std::fs::write(states.join(name), bytes).expect("cannot write a state file");
    }
    WorkspaceState::load(&Layout::load(&root, None))
}

#[test]
fn broken_state_files_are_reported_and_skipped() {
    let full = gzip(&fixture("g2.jsonl"));
    let truncated_gzip = full[..full.len() / 2].to_vec();
    let truncated_json = gzip(&fixture("g2.jsonl")[..3000]);
    let state = workspace_with_states(
        "broken",
        &[
            ("prod.jira.jsonl.zip", truncated_gzip),
            ("prod.zendesk.jsonl.zip", b"PK\x03\x04 not gzip".to_vec()),
            ("prod.okta.jsonl.zip", truncated_json),
            // Another environment's file (`prod.x` with account `salesforce`) is not read.
            ("prod.x.salesforce.jsonl.zip", b"junk".to_vec()),
        ],
    );
    let env = state.env(Some("prod")).expect("prod has state");
    let problems: Vec<String> = env
        .problems
        .iter()
        .map(|(path, why)| format!("{}: {why}", path.file_name().unwrap_or_default().to_string_lossy()))
        .collect();
    expect![[r#"
        prod.jira.jsonl.zip: cannot read or decompress it: incomplete deflate stream
        prod.okta.jsonl.zip: its data ends too early: the file is truncated or its gzip data is damaged
        prod.zendesk.jsonl.zip: it is not a Salto state file (expected gzip data)"#]]
    .assert_eq(&problems.join("\n"));
    assert!(env.is_empty());
}

#[test]
fn state_in_cloud_storage_is_recognised() {
    let stub = br#"{"account":"jira","contentHash":"3a7c345abf835195f02fd8b1318ea095"}"#.to_vec();
    let state = workspace_with_states("remote", &[("prod.jira.json", stub)]);
    let env = state.env(Some("prod")).expect("prod has a pointer");
    assert_eq!(env.status, StateStatus::Remote);
    assert!(env.problems.is_empty() && env.is_empty());
}

#[test]
fn only_hidden_parts_of_visible_instances_are_kept() {
    let state = workspace_with_states("hidden", &[("prod.jira.jsonl.zip", gzip(&fixture("g4.jsonl")))]);
    let env = state.env(Some("prod")).expect("prod has state");
    let id = |s: &str| nacl_analysis::elem_id::ElemId::parse(s).expect("legal");
    let project = env.element(&id("jira.Project.instance.SUP")).expect("in state");
    assert!(project.value.is_none(), "a visible instance's value stays in NaCl");
    let hidden: Vec<String> =
        project.hidden_values.iter().map(|(path, value)| format!("{} = {}", path.join("."), value.get())).collect();
    assert_eq!(hidden, ["id = 10001"], "values inside lists stay in NaCl, as Salto leaves them there");
    assert!(env.hidden_element(&id("jira.Status.instance.Done")).is_some_and(|e| e.value.is_some()));
    assert!(env.hidden_element(&id("jira.Secret.instance.token")).is_some(), "an instance of a hidden value type");
    assert!(env.hidden_element(&id("jira.Board")).is_none(), "a visible type is not merged");
    assert!(env.element(&id("jira.Board")).is_some());
}

#[test]
fn one_bad_element_is_left_out_and_the_rest_is_read() {
    let text = String::from_utf8(fixture("g4.jsonl")).expect("UTF-8");
    // The first element's ID becomes a number: that element cannot be read, the others can.
    let broken = text.replacen(r#"{"elemID":{"#, r#"{"elemID":17,"unused":{"#, 1);
    assert_ne!(broken, text);
    let state = workspace_with_states("bad-element", &[("prod.jira.jsonl.zip", gzip(broken.as_bytes()))]);
    let env = state.env(Some("prod")).expect("prod has state");
    assert_eq!(env.status, StateStatus::Loaded);
    let id = |s: &str| nacl_analysis::elem_id::ElemId::parse(s).expect("legal");
    assert!(env.element(&id("jira.Project.instance.SUP")).is_some(), "the other elements are read");
    assert_eq!(env.problems.len(), 1);
    assert!(env.problems[0].1.starts_with("1 element was not readable and left out"), "{:?}", env.problems);
}

#[test]
fn an_unreadable_state_file_is_not_reported_as_missing() {
    let state = workspace_with_states("unreadable", &[("prod.jira.jsonl.zip", b"PK\x03\x04 not gzip".to_vec())]);
    assert_eq!(state.env(Some("prod")).expect("prod has a state file").status, StateStatus::Unreadable);
}
