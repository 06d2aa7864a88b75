//! Salto state files of the real corpus: every one is read, and the workspaces whose types live
//! only in state type-check their instances with it.

use nacl_analysis::codes::AnalysisCode;
use nacl_analysis::{
    layout::Layout,
    state::{StateStatus, WorkspaceState},
};

#[test]
fn every_corpus_state_file_is_read() {
    for root in nacl_corpus::workspaces() {
        let layout = Layout::load(&root, None);
        let started = std::time::Instant::now();
        let state = WorkspaceState::load(&layout);
        let name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        for env in state.envs() {
            println!(
                "{name} [{}]: {:?}, {} elements from {} files, accounts {:?}, problems {:?} ({:.2}s)",
                env.env,
                env.status,
                env.len(),
                env.files.len(),
                env.accounts,
                env.problems,
                started.elapsed().as_secs_f64()
            );
            assert!(env.problems.is_empty(), "{name}: {:?}", env.problems);
        }
    }
}

/// Where the types of a workspace's instances come from.
#[derive(Debug, Default)]
struct TypeSources {
    in_nacl: usize,
    hidden_in_state: usize,
    visible_in_state: usize,
    nowhere: usize,
}

/// Where the instance types of the workspace at `root` come from, and whether its current
/// environment has readable state.
fn type_sources(root: &std::path::Path) -> (TypeSources, bool) {
    let loaded = nacl_analysis::workspace::load_with_state(root, None, true);
    let env = loaded.workspace.layout(&loaded.db).current_env.clone();
    let state = nacl_analysis::db::env_state(&loaded.db, loaded.workspace, env.as_deref());
    let index = nacl_analysis::db::element_index(&loaded.db, loaded.workspace);
    let readable = state.is_some_and(|s| s.status == StateStatus::Loaded && s.problems.is_empty());
    let mut sources = TypeSources::default();
    for id in index.files.keys() {
        if id.id_type != nacl_analysis::elem_id::IdType::Instance || id.type_name == "_config" {
            continue;
        }
        let type_id = id.type_of();
        if nacl_analysis::db::element_exists(&loaded.db, loaded.workspace, env.as_deref(), &type_id) {
            sources.in_nacl += 1;
        } else if state.and_then(|s| s.hidden_element(&type_id)).is_some() {
            sources.hidden_in_state += 1;
        } else if state.and_then(|s| s.element(&type_id)).is_some() {
            sources.visible_in_state += 1;
        } else {
            sources.nowhere += 1;
        }
    }
    (sources, readable)
}

#[test]
fn with_state_every_instance_type_is_known() {
    for root in nacl_corpus::workspaces() {
        if !root.join("salto.config/states").is_dir() {
            continue;
        }
        let name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let (sources, readable) = type_sources(&root);
        println!("{name}: {sources:?}");
        if readable {
            assert_eq!(sources.nowhere, 0, "{name}: instances whose type is neither in NaCl nor in the state");
        }
    }
}

#[test]
fn jira_and_zendesk_types_come_from_state() {
    for name in ["sagibracha__Jira", "salto-io__tamir-zendesk", "pgonzaleznetwork__zendesk-production"] {
        let root = nacl_corpus::corpus_dir().join(name);
        let (sources, _) = type_sources(&root);
        assert!(sources.hidden_in_state > 500 && sources.in_nacl == 0, "{name}: {sources:?}");
        let loaded = nacl_analysis::workspace::load_with_state(&root, None, true);
        let missing: usize = loaded
            .check(None)
            .iter()
            .flat_map(|r| &r.diagnostics)
            .filter(|d| d.code == AnalysisCode::MissingType || d.code == AnalysisCode::TypeOnlyInState)
            .count();
        assert_eq!(missing, 0, "{name}");
        assert!(loaded.untyped_instances().is_empty(), "{name}");
    }
}

#[test]
fn hover_on_a_jira_instance_field_shows_its_type_from_state() {
    let root = nacl_corpus::corpus_dir().join("sagibracha__Jira");
    let loaded = nacl_analysis::workspace::load_with_state(&root, None, true);
    // The first instance file with a top-level key, and that key.
    let found = nacl_corpus::nacl_files(&root).into_iter().find_map(|path| {
        let text = std::fs::read_to_string(&path).ok()?;
        let line = text.lines().nth(1).filter(|l| l.starts_with("  ") && l.contains(" = "))?;
        let at = text.find(line)? + 2;
        Some((path, at))
    });
    let (path, at) = found.expect("a Jira instance with a key");
    let hover = loaded.hover(&path, nacl_syntax::TextSize::from(at as u32)).map(|h| h.markdown).unwrap_or_default();
    assert!(
        hover.contains("(a hidden type, from Salto's state)") && hover.contains("Type `"),
        "{}: {hover}",
        path.display()
    );
}
