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

/// A workspace of `files` files whose elements and fields have varied names: several adapters,
/// camelCase, snake_case, digits, names of many lengths.
fn varied_workspace(files: usize) -> LoadedWorkspace {
    let root = Path::new("/nonexistent/varied");
    let mut loaded = LoadedWorkspace::empty(root);
    let words = ["Account", "record", "Obj", "customField", "ORDER", "line_item", "x", "Zed9", "acctCust", "r2d2"];
    let adapters = ["salesforce", "netsuite", "jira", "okta"];
    let mut seed = 7u64;
    let mut next = |n: usize| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for i in 0..files {
        let adapter = adapters[next(adapters.len())];
        let type_name = format!("{}{}", words[next(words.len())], next(40));
        let mut text = format!("type {adapter}.{type_name} {{\n");
        for f in 0..next(4) {
            text.push_str(&format!("  string {}_{f}{} {{\n  }}\n", words[next(words.len())], words[next(words.len())]));
        }
        text.push_str("}\n");
        text.push_str(&format!("{adapter}.{type_name} {}{} {{\n}}\n", words[next(words.len())], next(1000)));
        loaded.set_file_text(&root.join(format!("f{i:04}.nacl")), Text::from(text.as_str()));
    }
    loaded
}

#[test]
fn skipping_names_that_cannot_rank_keeps_the_exhaustive_order() {
    // A limit as large as the workspace scores every name; small limits skip most of them.
    let loaded = varied_workspace(1500);
    let queries = [
        "", "a", "r", "x", "ac", "re", "rec", "obj", "acc", "acct", "cust", "ord", "9", "r2", "_", ".", "sal", "nt",
        "Ob", "li", "j", "c", "d", "9r", "rec1", "obj12", "acct3", "cust_1", "order2", "r2d",
        // Few names hold these as a run, many with gaps of every width.
        "obj0", "rec0_", "acct1_", "order0", "zed90", "x0", "account0", "recf",
    ];
    for query in queries {
        let all = listed(&loaded, query, 100_000);
        for limit in [1, 3, 10, 50, 128] {
            assert_eq!(listed(&loaded, query, limit), all[..limit.min(all.len())], "{query:?}, limit {limit}");
        }
    }
}

#[test]
fn an_element_split_across_many_files_counts_once_toward_the_limit() {
    // Twenty fragments of one type tie at the top; the search must still find the next names.
    let root = Path::new("/nonexistent/split");
    let mut loaded = LoadedWorkspace::empty(root);
    for i in 0..20 {
        let text = format!("type salesforce.Lead {{\n  annotations {{\n    string note{i:02} {{\n    }}\n  }}\n}}\n");
        loaded.set_file_text(&root.join(format!("lead{i:02}.nacl")), Text::from(text.as_str()));
    }
    for i in 0..3 {
        let text = format!("salesforce.Lead lead{i} {{\n}}\n");
        loaded.set_file_text(&root.join(format!("records/r{i}.nacl")), Text::from(text.as_str()));
    }
    let all = listed(&loaded, "lead", 100);
    assert_eq!(all.len(), 4, "{all:#?}");
    for limit in 1..=4 {
        assert_eq!(listed(&loaded, "lead", limit), all[..limit], "limit {limit}");
    }
}
