//! ARMLang's editor features on one file: each test marks the cursor with `$0` in its text.

use nacl_analysis::arm::{ide, model::Model};
use nacl_syntax::TextSize;

/// The text without its `$0` marker, and the marker's offset.
fn cursor(marked: &str) -> (String, TextSize) {
    let at = marked.find("$0").expect("a $0 marker");
    (marked.replacen("$0", "", 1), TextSize::from(at as u32))
}

fn labels(marked: &str, resource_types: &[String]) -> Vec<String> {
    let (text, offset) = cursor(marked);
    let root = nacl_syntax::arm::parse(&text).syntax();
    let model = Model::build(&root);
    ide::completions(&root, &model, &text, offset, resource_types).items.into_iter().map(|i| i.label).collect()
}

#[test]
fn completion_knows_where_it_is() {
    let at_line_start = labels("input string a\n$0", &[]);
    assert_eq!(at_line_start, ["input", "output", "variable", "resource", "for"]);
    let types = labels("input $0", &[]);
    assert!(types.contains(&"secureString".to_owned()) && types.contains(&"array".to_owned()), "{types:?}");
    let used = ["Microsoft.Web/sites@2019-08-01".to_owned(), "Microsoft.Web/sites@2019-08-01".to_owned()];
    let in_type = labels("resource azrm 'Mic$0'", &used);
    assert_eq!(in_type, ["Microsoft.Web/sites@2019-08-01"]);
    // Inside a loop: its variables, the outer names, functions and literals; not the inner names
    // of another loop.
    let in_loop = labels(
        "variable outer: 1\nfor x, i in [1] {\n  variable y: $0\n}\nfor z in [2] {\n  variable hidden: z\n}\n",
        &[],
    );
    for wanted in ["x", "i", "y", "outer", "range", "true"] {
        assert!(in_loop.contains(&wanted.to_owned()), "{wanted} missing from {in_loop:?}");
    }
    assert!(!in_loop.contains(&"hidden".to_owned()) && !in_loop.contains(&"z".to_owned()), "{in_loop:?}");
    assert!(labels("variable s: 'a$0'", &[]).is_empty());
}

fn rename(marked: &str, new_name: &str) -> Result<String, String> {
    let (text, offset) = cursor(marked);
    let root = nacl_syntax::arm::parse(&text).syntax();
    let model = Model::build(&root);
    let mut edits = ide::rename(&model, offset, new_name)?;
    edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start()));
    let mut out = text.clone();
    for (range, replacement) in edits {
        out.replace_range(std::ops::Range::<usize>::from(range), &replacement);
    }
    Ok(out)
}

#[test]
fn rename_changes_every_use_and_refuses_what_would_change_meanings() {
    let text = "input string lo$0c\nvariable v: loc\nfor x in [loc] {\n  variable w: '${loc}'\n}\n";
    assert_eq!(
        rename(text, "region").as_deref(),
        Ok("input string region\nvariable v: region\nfor x in [region] {\n  variable w: '${region}'\n}\n")
    );
    assert!(rename(text, "v").is_err_and(|e| e.contains("already a variable")));
    // `w` is declared in the loop where `loc` is used: the use would mean `w`.
    assert!(rename(text, "w").is_err_and(|e| e.contains("already a variable")));
    assert!(rename(text, "for").is_err_and(|e| e.contains("keyword")));
    assert!(rename(text, "1x").is_err_and(|e| e.contains("not an identifier")));
}

#[test]
fn hover_and_definition_of_loop_members() {
    let (text, offset) = cursor(
        "for v in [1] as l {\n  resource azrm 'T@2020-01-01' res: {\n    name: 'n${v}'\n  }\n}\noutput o: l[0].r$0es.id()\n",
    );
    let root = nacl_syntax::arm::parse(&text).syntax();
    let model = Model::build(&root);
    let definition = ide::definition(&model, offset).expect("a definition");
    assert_eq!(&text[std::ops::Range::<usize>::from(definition)], "res");
    assert!(definition.start() < TextSize::from(60), "the declaration inside the loop");
    let hover = ide::hover(&root, &model, offset).expect("a hover");
    assert!(
        hover.markdown.contains("'T@2020-01-01'") && hover.markdown.contains("API version `2020-01-01`"),
        "{}",
        hover.markdown
    );
    let lenses = ide::dependency_lenses(&model);
    assert_eq!(lenses.len(), 1);
    assert_eq!(lenses[0].1, "depends on nothing");
}

#[test]
fn outline_folds_and_highlights() {
    let text = "// a\n// b\nvariable o: {\n  k: 1\n}\nfor x in [1] as l {\n  variable y: x + f(1)\n}\n";
    let root = nacl_syntax::arm::parse(text).syntax();
    let model = Model::build(&root);
    let outline: Vec<(String, usize)> = ide::symbols(&model).into_iter().map(|s| (s.name, s.children.len())).collect();
    assert_eq!(outline, [("o".to_owned(), 0), ("l".to_owned(), 1)]);
    let folds: Vec<&str> =
        ide::folding_ranges(&root, text).iter().map(|f| &text[std::ops::Range::<usize>::from(f.range)]).collect();
    assert_eq!(folds, ["// a\n// b", "{\n  k: 1\n}", "{\n  variable y: x + f(1)\n}"]);
    let words: Vec<String> = ide::highlights(&root, &model, None)
        .iter()
        .map(|h| format!("{:?}:{}", h.kind, &text[std::ops::Range::<usize>::from(h.range)]))
        .collect();
    expect_test::expect![[r#"Comment:// a Comment:// b Keyword:variable Element:o Field:k Number:1 Keyword:for Element:x Keyword:in Number:1 Keyword:as Element:l Keyword:variable Element:y Element:x Operator:+ Function:f Number:1"#]]
        .assert_eq(&words.join(" "));
}
