//! Workspace symbols: the order of matches, split elements listed once, and that cutting the
//! list at any limit keeps the best ones in the same order (the search scores every name but
//! sorts only the best few).

use expect_test::expect;
use nacl_analysis::fragments::Text;
use nacl_analysis::workspace::LoadedWorkspace;
use std::path::Path;

/// A workspace of `files` files (more than one part of the symbol table), each declaring an
/// instance whose name ties with others on score and length, plus a split type.
fn workspace(files: usize) -> LoadedWorkspace {
    let root = Path::new("/nonexistent/symbols");
    let mut loaded = LoadedWorkspace::empty(root);
    for i in 0..files {
        let text = format!("salesforce.Account acct{:04} {{\n  Name = \"x\"\n}}\n", files - i);
        loaded.set_file_text(&root.join(format!("instances/file{i:04}.nacl")), Text::from(text.as_str()));
    }
    let types = [
        ("types/account.nacl", "type salesforce.Account {\n  string Name {\n  }\n}\n"),
        ("types/account_more.nacl", "type salesforce.Account {\n  number Rating {\n  }\n}\n"),
    ];
    for (path, text) in types {
        loaded.set_file_text(&root.join(path), Text::from(text));
    }
    loaded
}

fn listed(loaded: &LoadedWorkspace, query: &str, limit: usize) -> Vec<String> {
    loaded
        .workspace_symbols(query, limit)
        .into_iter()
        .map(|s| format!("{} {:?} {}", s.name, s.kind, s.path.file_name().unwrap_or_default().to_string_lossy()))
        .collect()
}

#[test]
fn best_matches_first_and_split_elements_once() {
    let loaded = workspace(3);
    expect![[r#"
        salesforce.Account Type account.nacl
        salesforce.Account.field.Name Field account.nacl
        salesforce.Account.field.Rating Field account_more.nacl
        salesforce.Account.instance.acct0001 Instance file0002.nacl
        salesforce.Account.instance.acct0002 Instance file0001.nacl
        salesforce.Account.instance.acct0003 Instance file0000.nacl
    "#]]
    .assert_eq(&(listed(&loaded, "account", 10).join("\n") + "\n"));
}

#[test]
fn any_limit_lists_a_prefix_of_the_full_order() {
    let loaded = workspace(700);
    for query in ["a", "acct", "acct06", "nm"] {
        let all = listed(&loaded, query, 10_000);
        for limit in [1, 2, 5, 17, 100, 128] {
            assert_eq!(listed(&loaded, query, limit), all[..limit.min(all.len())], "{query:?}, limit {limit}");
        }
    }
}
