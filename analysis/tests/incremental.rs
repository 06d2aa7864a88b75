//! Incrementality: editing a value inside one instance recomputes that file's parse, fragments
//! and merged element, and nothing that belongs to other files or to the whole workspace; a
//! reference into an edited value is resolved again, and its file checked again only when that
//! changes the answer.

use nacl_analysis::fragments::Text;
use nacl_analysis::language::Language;
use nacl_analysis::{
    db::element_index,
    db::{RootDatabase, SourceFile, Workspace},
    diagnostics::file_diagnostics,
    layout::Layout,
};
use salsa::Setter;
use std::path::PathBuf;

fn count(log: &[String], query: &str) -> usize {
    log.iter().filter(|entry| entry.starts_with(&format!("{query}("))).count()
}

/// A workspace of files under `/ws` with these names and texts.
fn workspace_of(db: &RootDatabase, texts: &[(&str, &str)]) -> (Workspace, Vec<SourceFile>) {
    let files: Vec<SourceFile> = texts
        .iter()
        .map(|(path, text)| {
            SourceFile::new(db, PathBuf::from(format!("/ws/{path}")), Language::Nacl, Text::from(*text).into())
        })
        .collect();
    let layout = Layout { root: PathBuf::from("/ws"), envs: Vec::new(), current_env: None };
    let workspace = Workspace::new(
        db,
        layout,
        files.clone(),
        Default::default(),
        nacl_analysis::state::WorkspaceState::none(),
        Default::default(),
    );
    (workspace, files)
}

#[test]
fn editing_a_value_recomputes_only_its_file() {
    let (mut db, log) = RootDatabase::with_execution_log();
    let texts = [
        ("types.nacl", "type salto.t {\n  string name {\n  }\n}\n"),
        ("a.nacl", "salto.t a {\n  name = \"A\"\n  other = salto.t.instance.b\n}\n"),
        ("b.nacl", "salto.t b {\n  name = \"B\"\n}\n"),
        ("c.nacl", "salto.t c {\n  name = \"C\"\n  ref = salto.t.instance.a\n}\n"),
    ];
    let files = workspace_of(&db, &texts).1;
    for &file in &files {
        file_diagnostics(&db, file);
    }
    let first = std::mem::take(&mut *log.lock().expect("log"));
    assert_eq!(count(&first, "file_fragments"), 4, "{first:#?}");

    // Edit the value of `name` inside instance `a`.
    files[1]
        .set_text(&mut db)
        .to(Text::from("salto.t a {\n  name = \"Edited, longer\"\n  other = salto.t.instance.b\n}\n").into());
    for &file in &files {
        file_diagnostics(&db, file);
    }
    let second = std::mem::take(&mut *log.lock().expect("log"));
    assert_eq!(count(&second, "file_fragments"), 1, "only the edited file is parsed again: {second:#?}");
    assert_eq!(count(&second, "element_index"), 0, "the element index is kept: {second:#?}");
    // Each element here has one fragment: its conflicts are found within its file's
    // diagnostics, without a per-element query.
    assert_eq!(count(&second, "element_conflicts"), 0, "no element is merged again: {second:#?}");
    assert_eq!(
        count(&second, "nacl_file_diagnostics"),
        1,
        "only the edited file's diagnostics are recomputed: {second:#?}"
    );
}

#[test]
fn editing_an_element_split_over_two_files_merges_it_again_once() {
    let (mut db, log) = RootDatabase::with_execution_log();
    let texts = [
        ("a.nacl", "salto.t a {\n  name = \"A\"\n}\n"),
        ("a2.nacl", "salto.t a {\n  other = 1\n}\n"),
        ("b.nacl", "salto.t b {\n  name = \"B\"\n}\n"),
    ];
    let files = workspace_of(&db, &texts).1;
    for &file in &files {
        file_diagnostics(&db, file);
    }
    let first = std::mem::take(&mut *log.lock().expect("log"));
    assert_eq!(count(&first, "element_conflicts"), 1, "only the split element is merged: {first:#?}");

    files[0].set_text(&mut db).to(Text::from("salto.t a {\n  name = \"Edited\"\n}\n").into());
    for &file in &files {
        file_diagnostics(&db, file);
    }
    let second = std::mem::take(&mut *log.lock().expect("log"));
    assert_eq!(count(&second, "element_conflicts"), 1, "the edited element is merged again, once: {second:#?}");
    // With a value added in the other file, the two fragments conflict.
    files[1].set_text(&mut db).to(Text::from("salto.t a {\n  name = \"B\"\n}\n").into());
    let codes: Vec<String> = file_diagnostics(&db, files[0]).iter().map(|d| d.code.to_string()).collect();
    assert_eq!(codes, ["E0401"], "the two values of `name` conflict");
}

#[test]
fn a_reference_into_an_edited_value_is_resolved_again_without_rechecking_its_file() {
    let (mut db, log) = RootDatabase::with_execution_log();
    let texts = [
        ("a.nacl", "salto.t a {\n  name = \"A\"\n}\n"),
        ("c.nacl", "salto.t c {\n  ref = salto.t.instance.a.name\n}\n"),
    ];
    let files = workspace_of(&db, &texts).1;
    assert!(file_diagnostics(&db, files[1]).is_empty());
    log.lock().expect("log").clear();

    // Another value for `name`: the reference still resolves, so `c.nacl` is not checked again.
    files[0].set_text(&mut db).to(Text::from("salto.t a {\n  name = \"Edited\"\n}\n").into());
    assert!(file_diagnostics(&db, files[1]).is_empty());
    let second = std::mem::take(&mut *log.lock().expect("log"));
    assert_eq!(count(&second, "resolve_reference"), 1, "{second:#?}");
    assert_eq!(count(&second, "nacl_file_diagnostics"), 0, "{second:#?}");

    // `name` removed: the reference no longer resolves.
    files[0].set_text(&mut db).to(Text::from("salto.t a {\n  title = \"A\"\n}\n").into());
    let codes: Vec<&str> = file_diagnostics(&db, files[1]).iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["W0501"]);
}

#[test]
fn a_new_file_rebuilds_one_part_of_the_index_and_of_the_symbol_table() {
    let (mut db, log) = RootDatabase::with_execution_log();
    // Enough files for several parts; each type is split over two files far apart in path order.
    let mut texts: Vec<(String, String)> = (0..3000)
        .map(|i| {
            let half = if i % 2 == 0 { "a" } else { "z" };
            (format!("{half}/{i:04}.nacl"), format!("type salto.t{} {{\n  string f{i} {{\n  }}\n}}\n", i / 2))
        })
        .collect();
    texts.sort();
    let texts: Vec<(&str, &str)> = texts.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let (workspace, mut files) = workspace_of(&db, &texts);
    let symbols = |db: &RootDatabase| -> usize {
        (0..)
            .map_while(|part| {
                let symbols = nacl_analysis::symbols::symbol_part(db, workspace, part);
                (!symbols.entries.is_empty()).then_some(symbols.entries.len())
            })
            .sum()
    };
    let index = element_index(&db, workspace);
    let total = symbols(&db);
    assert_eq!(total, 3000 * 2, "every type's fragment and field is in the symbol table");
    for (id, in_files) in &index.files {
        let paths: Vec<&PathBuf> = in_files.iter().map(|(file, _)| file.path(&db)).collect();
        assert!(paths.is_sorted() && paths.len() == 2, "{id}: {paths:?}");
    }
    log.lock().expect("log").clear();

    // A buffer that is not on disk opens (`m/` sorts among the others).
    files.push(SourceFile::new(
        &db,
        PathBuf::from("/ws/m/new.nacl"),
        Language::Nacl,
        Text::from("salto.t0 x {\n}\n").into(),
    ));
    files.sort_by(|a, b| a.path(&db).cmp(b.path(&db)));
    workspace.set_files(&mut db).to(files);
    let index = element_index(&db, workspace);
    assert!(index.files.keys().any(|id| id.name_parts[..] == ["x"]));
    let index_len = index.files.len();
    assert_eq!(symbols(&db), 3000 * 2 + 1);
    let second = std::mem::take(&mut *log.lock().expect("log"));
    assert_eq!(count(&second, "index_part"), 1, "only the new file's part is read again: {second:#?}");
    assert_eq!(count(&second, "symbol_part"), 1, "{second:#?}");

    // An HCL file opens: no part defines anything new, so the element index is kept.
    let mut files = workspace.files(&db).clone();
    files.push(SourceFile::new(&db, PathBuf::from("/ws/m/new.hcl"), Language::Hcl, Text::from("a = 1\n").into()));
    files.sort_by(|a, b| a.path(&db).cmp(b.path(&db)));
    workspace.set_files(&mut db).to(files);
    assert_eq!(element_index(&db, workspace).files.len(), index_len);
    let third = std::mem::take(&mut *log.lock().expect("log"));
    assert_eq!(count(&third, "index_part"), 1, "{third:#?}");
    assert_eq!(count(&third, "element_index"), 0, "the element index is kept: {third:#?}");
}

/// The one file of a workspace holding only `text`.
fn single_file(db: &RootDatabase, text: &str) -> SourceFile {
    workspace_of(db, &[("a.nacl", text)]).1[0]
}

/// The green node of the `index`th top-level block of `file`'s tree.
fn block_green(db: &RootDatabase, file: SourceFile, index: usize) -> nacl_syntax::rowan::GreenNode {
    let root = nacl_analysis::db::parse(db, file).syntax();
    let block = root.children().nth(index).expect("the block");
    block.green().into_owned()
}

#[test]
fn an_edit_inside_a_value_or_a_block_body_reuses_the_rest_of_the_tree() {
    let mut db = RootDatabase::default();
    // Block `b` makes block `a` less than half the file, so that `a` may be parsed alone.
    let b = "salto.t b {\n  name = \"B\"\n  text = \"long enough to make the first block the smaller half\"\n}\n";
    let file = single_file(&db, &format!("salto.t a {{\n  name = \"A\"\n  o = {{ k = 1 }}\n}}\n{b}"));
    let untouched = block_green(&db, file, 1);
    for (a, reused) in [
        ("salto.t a {\n  name = \"A, longer\"\n  o = { k = 1 }\n}\n", true),
        ("salto.t a {\n  name = \"A, longer\"\n  o = { k = 1\n  j = [2] }\n}\n", true),
        ("salto.t a {\n  name = \"A, longer\"\n  o = { k = 1\n  j = [2] }\n  more = 1\n}\n", true),
        // A header: a full parse.
        ("salto.t a2 {\n  name = \"A, longer\"\n  o = { k = 1\n  j = [2] }\n  more = 1\n}\n", false),
    ] {
        let text = format!("{a}{b}");
        file.set_text(&mut db).to(Text::from(text.as_str()).into());
        let parse = nacl_analysis::db::parse(&db, file);
        assert_eq!(*parse, nacl_syntax::nacl::parse(&text), "the same tree as a full parse");
        let green = block_green(&db, file, 1);
        assert_eq!(std::ptr::eq(&*green, &*untouched), reused, "{text:?}");
    }
}

/// The `.nacl` files of the test data, and up to 300 files of each corpus workspace.
fn sample_texts() -> Vec<(PathBuf, String)> {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![manifest.join("test_data"), manifest.join("../syntax/test_data")];
    dirs.extend(nacl_corpus::workspaces());
    let mut texts = Vec::new();
    for dir in dirs {
        let mut stack = vec![dir];
        let mut taken = 0;
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "nacl")
                    && taken < 300
                    && let Ok(text) = std::fs::read_to_string(&path)
                {
                    taken += 1;
                    texts.push((path, text));
                }
            }
        }
    }
    texts
}

#[test]
fn fragments_read_from_the_syntax_tree_are_those_read_from_the_flat_tree() {
    let texts = sample_texts();
    assert!(texts.len() > 50, "only {} files", texts.len());
    for (path, text) in texts {
        let text = Text::from(text);
        let parse = nacl_syntax::nacl::parse(&text);
        assert_eq!(
            nacl_analysis::db::FileFragments::of_tree(&parse, &text),
            nacl_analysis::db::FileFragments::of_text(&text),
            "{}",
            path.display()
        );
    }
}

#[test]
fn the_fragments_of_a_file_edited_after_an_editor_read_it_are_those_of_its_text() {
    let mut db = RootDatabase::default();
    let file = single_file(
        &db,
        "salto.t a {\n  name = \"A\"\n  ref = salto.t.instance.b\n}\nsalto.t b {\n  name = \"B\"\n}\n",
    );
    // An editor reads the file (its tree is kept), then edits it: the fragments are read from
    // the tree with one token, object or list parsed again when the edit allows, else from a
    // parse of the text.
    nacl_analysis::db::parse(&db, file);
    for after in [
        "salto.t a {\n  name = \"A, longer\"\n  ref = salto.t.instance.b\n}\nsalto.t b {\n  name = \"B\"\n}\n",
        "salto.t a {\n  name = \"A, longer\"\n  ref = salto.t.instance.bb\n}\nsalto.t b {\n  name = \"B\"\n}\n",
        "salto.t a {\n  name = \"A, longer\"\n  ref = salto.t.instance.bb\n}\nsalto.t b {\n  nam = \"B\"\n}\n",
        "salto.t a {\n  name = \"A, longer\"\n  ref = salto.t.instance.bb\n}\nsalto.t b {\n  nam = \"B!\"\n}\n",
        "salto.t a {\n  name = \"A, longer\"\n  ref = salto.t.instance.bb\n  o = { k = [1] }\n}\nsalto.t b {\n  nam = \"B!\"\n}\n",
        "salto.t a {\n  name = \"A, longer\"\n  ref = salto.t.instance.bb\n  o = { k = [1, 2]\n  j = \"x\" }\n}\nsalto.t b {\n  nam = \"B!\"\n}\n",
        "salto.t a {\n  name = \"A, longer\"\n  ref = salto.t.instance.bb\n  o = { k = [1, 2]\n  k = \"x\" }\n}\nsalto.t b {\n  nam = \"B!\"\n}\n",
    ] {
        file.set_text(&mut db).to(Text::from(after).into());
        let fragments = nacl_analysis::db::file_fragments(&db, file);
        assert_eq!(*fragments, nacl_analysis::db::FileFragments::of_text(&Text::from(after)), "{after:?}");
        assert_eq!(*nacl_analysis::db::parse(&db, file), nacl_syntax::nacl::parse(after), "{after:?}");
    }
}
