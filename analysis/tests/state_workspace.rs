//! A workspace whose types live in Salto's state (`test_data/state_workspace`): instances of
//! hidden types are type-checked, references to hidden instances resolve, visible state-only
//! types get a softer diagnostic, and hover and "Go To Service" read the state.

use expect_test::expect;
use nacl_analysis::fragments::Text;
use nacl_analysis::workspace::{LoadedWorkspace, load_with_state};
use std::path::{Path, PathBuf};

fn workspace(with_state: bool) -> (PathBuf, LoadedWorkspace) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/state_workspace");
    let root = nacl_corpus::fixture_workspace(&src);
    let loaded = load_with_state(&root, None, with_state);
    (root, loaded)
}

fn diagnostics(root: &Path, loaded: &LoadedWorkspace) -> String {
    let mut lines = Vec::new();
    for report in loaded.check(None) {
        let path = report.path.strip_prefix(root).unwrap_or(&report.path).display().to_string();
        for d in &report.diagnostics {
            let line = report.text[..usize::from(d.range.start())].lines().count().max(1);
            lines.push(format!("{path}:{line} {} {}", d.code, d.message));
        }
    }
    lines.join("\n")
}

/// The byte offset of the first `needle` in the file at `path` (plus `delta`).
fn offset(path: &Path, needle: &str, delta: usize) -> nacl_syntax::TextSize {
    let text = std::fs::read_to_string(path).expect("fixture file");
    let at = text.find(needle).unwrap_or_else(|| panic!("`{needle}` not in {}", path.display()));
    nacl_syntax::TextSize::from((at + delta) as u32)
}

#[test]
fn instances_of_hidden_types_are_checked() {
    let (root, loaded) = workspace(true);
    expect![[r#"
        jira/Records/Dashboard/home.nacl:1 I0608 type `jira.Dashboard` is only in Salto's state, where it is not hidden, so Salto does not merge it and `jira.Dashboard.instance.home` is not type-checked; fetch it into NaCl to check it
        jira/Records/Project/OPS.nacl:1 W0602 `jira.Project.instance.OPS` does not set `key`, which its type marks `_required`
        jira/Records/Project/OPS.nacl:4 W0501 unresolved reference: element `jira.Status.instance.Gone` does not exist in environment `prod`
        jira/Records/Project/SUP.nacl:4 W0603 "other" is not allowed for `projectTypeKey`: expected one of "software", "business"
        jira/Records/Project/SUP.nacl:5 W0601 `lead` expects a string (type `string`), found a number
        jira/Records/Typo/x.nacl:1 W0605 type `jira.Projekt` does not exist in NaCl nor in Salto's state (did you mean `jira.Project`?), so `jira.Projekt.instance.x` is not type-checked"#]]
    .assert_eq(&diagnostics(&root, &loaded));
    assert!(loaded.untyped_instances().is_empty());
}

#[test]
fn without_state_hidden_types_are_only_counted() {
    let (root, loaded) = workspace(false);
    expect![[r#"
        jira/Records/Project/OPS.nacl:4 W0501 unresolved reference: element `jira.Status.instance.Gone` does not exist in environment `prod`
        jira/Records/Project/SUP.nacl:6 W0501 unresolved reference: element `jira.Status.instance.Done` does not exist in environment `prod`"#]]
    .assert_eq(&diagnostics(&root, &loaded));
    let untyped = loaded.untyped_instances();
    assert_eq!((untyped.len(), untyped[0].instances, untyped[0].types), (1, 4, 3), "{untyped:?}");
}

#[test]
fn hover_and_service_urls_come_from_state() {
    let (root, loaded) = workspace(true);
    let sup = root.join("jira/Records/Project/SUP.nacl");
    let hover = |path: &Path, needle: &str, delta: usize| {
        loaded.hover(path, offset(path, needle, delta)).map(|h| h.markdown).unwrap_or_default()
    };
    expect![[r#"
        **field** `key` of `jira.Project` (a hidden type, from Salto's state)

        Type `string`
        - `_required` = true
        - `_service_url` = "https://example.atlassian.net/jira/projects/key""#]]
    .assert_eq(&hover(&sup, "key =", 1));
    let type_hover = hover(&sup, "jira.Project", 2);
    assert!(
        type_hover.starts_with("**hidden type, 7 fields** `jira.Project`")
            && type_hover.contains("Kept in Salto's state (`salto.config/states/prod.jira.jsonl.zip`)"),
        "{type_hover}"
    );
    let instance_hover = hover(&sup, "SUP", 1);
    assert!(
        instance_hover.contains("[Open in the service](https://example.atlassian.net/jira/projects/SUP)")
            && instance_hover.ends_with("Hidden values, in Salto's state:\n- `id` = 10001"),
        "{instance_hover}"
    );
    let done = hover(&sup, "Done", 1);
    assert!(done.starts_with("**hidden instance** `jira.Status.instance.Done`"), "{done}");
    assert!(loaded.definition(&sup, offset(&sup, "jira.Project", 2)).is_empty(), "a hidden type has no source");

    let url = |path: &Path, needle: &str| loaded.service_url(path, offset(path, needle, 1));
    assert_eq!(url(&sup, "name =").as_deref(), Some("https://example.atlassian.net/jira/projects/SUP"));
    let board_type = root.join("jira/Types/Board.nacl");
    assert_eq!(url(&board_type, "name").as_deref(), Some("https://example.atlassian.net/jira/boards/name"));
    assert_eq!(url(&board_type, "type").as_deref(), Some("https://example.atlassian.net/jira/boards"));
    assert_eq!(url(&root.join("jira/Records/Typo/x.nacl"), "key"), None);
}

/// The completions at the end of `line` typed into a new line of `OPS.nacl`, one label per line.
fn complete_after(root: &Path, loaded: &mut LoadedWorkspace, line: &str) -> String {
    let path = root.join("jira/Records/Project/OPS.nacl");
    let text = std::fs::read_to_string(&path).expect("the fixture");
    let at = text.find("  name").expect("a name line");
    let edited = format!("{}{line}\n{}", &text[..at], &text[at..]);
    loaded.set_file_text(&path, Text::from(edited.as_str()));
    let offset = nacl_syntax::TextSize::from((at + line.len()) as u32);
    let found = loaded.completions(&path, offset);
    found.items.iter().map(|i| format!("{} {}\n", i.label, i.detail.as_deref().unwrap_or(""))).collect()
}

#[test]
fn completion_offers_hidden_types_fields_and_instances_from_state() {
    let (root, mut loaded) = workspace(true);
    expect![[r#"
        key string (required)
        components List<jira.Component>
        lead string
        _alias string
        _depends_on List<dependency>
        _generated_dependencies List<dependency>
        _hidden boolean
        _parent List<reference>
    "#]]
    .assert_eq(&complete_after(&root, &mut loaded, "  "));
    expect![[r#"
        Board 
        Color hidden type (in state)
        Component hidden type (in state)
        Project hidden type (in state)
        Secret hidden type (in state)
        Status hidden type (in state)
    "#]]
    .assert_eq(&complete_after(&root, &mut loaded, "  x = jira."));
    expect![[r#"
        Done hidden instance (in state)
    "#]]
    .assert_eq(&complete_after(&root, &mut loaded, "  x = jira.Status.instance."));
}

#[test]
fn a_value_nacl_sets_where_the_state_keeps_a_hidden_one_is_a_merge_conflict() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/state_workspace");
    let root = nacl_corpus::fixture_workspace(&src);
    let sup = root.join("jira/Records/Project/SUP.nacl");
    let text = std::fs::read_to_string(&sup).expect("fixture file");
    // `id` is a `_hidden_value` field of `jira.Project`: the state keeps SUP's, 10001.
    std::fs::write(&sup, text.replace("  key = \"SUP\"\n", "  key = \"SUP\"\n  id = 10001\n")).expect("write");
    let loaded = load_with_state(&root, None, true);
    let found = diagnostics(&root, &loaded);
    assert!(
        found.contains("SUP.nacl:3 E0401 `id` of `jira.Project.instance.SUP` is also in Salto's state (`prod.jira.jsonl.zip`), which keeps it because its field is hidden (`_hidden_value`)"),
        "{found}"
    );
    // Without the state there is nothing to conflict with.
    assert!(!diagnostics(&root, &load_with_state(&root, None, false)).contains("E0401"));
}
