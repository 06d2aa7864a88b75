//! Semantic highlighting: what each word of a file is (keyword, type, element, field, core
//! annotation, string, number, comment), from the syntax tree alone, so it is instant on every
//! keystroke and never waits for the workspace.

use crate::{
    elem_id::{ElemId, IdType},
    navigation::{Symbol, token_symbol},
};
use nacl_syntax::nacl::{
    SyntaxKind::*,
    SyntaxNode, SyntaxToken,
    ast::{AstNodeExt, Block},
    green::{GNode, GToken},
    view::{NodeView, TokenView},
};
use nacl_syntax::{TextRange, rowan::NodeOrToken};

/// What a highlighted word is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HighlightKind {
    /// `type`, `settings`, `is`, `annotations`, `vars`, `true`, `false`.
    Keyword,
    /// A type name: in a header, a field's type, a reference to a type.
    Type,
    /// An instance or a variable: its name in a header, or a reference to it.
    Element,
    /// A field, annotation or value key: a field's name, an instance's key, a path into a value.
    Field,
    /// A core annotation key such as `_required`.
    CoreAnnotation,
    /// A function name (`file`).
    Function,
    /// String content.
    String,
    /// A number.
    Number,
    /// A comment.
    Comment,
    /// An operator (HCL).
    Operator,
}

/// One highlighted word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Highlight {
    /// Where it is.
    pub range: TextRange,
    /// What it is.
    pub kind: HighlightKind,
    /// It is where the element or field is declared (a header, a field definition).
    pub declaration: bool,
    /// It is built into Salto (a built-in type, a core annotation).
    pub builtin: bool,
}

/// The highlights of the tokens of the file `root` that overlap `range` (all when `None`), in
/// order.
///
/// The walk reads the green tree (no red cursor per node or token): most words are decided by
/// their kind and their ancestors' kinds alone; the rest (the labels of headers and `file()`
/// arguments) are resolved on the red token, as [`highlight`] does for every word.
pub fn highlights(root: &SyntaxNode, range: Option<TextRange>) -> Vec<Highlight> {
    let overlaps = |r: TextRange| range.is_none_or(|range| r.intersect(range).is_some_and(|i| !i.is_empty()));
    let green = root.green();
    let top = GNode::at(&green, root.text_range().start());
    let mut found = Vec::new();
    // The nodes from `root` down to the current token's parent, each with its unread children.
    let mut stack = vec![(top, top.children())];
    while let Some((_, children)) = stack.last_mut() {
        match children.next() {
            None => {
                stack.pop();
            }
            Some(NodeOrToken::Node(node)) if overlaps(node.range()) => stack.push((node, node.children())),
            Some(NodeOrToken::Token(token)) if overlaps(token.range()) => {
                let ancestor = |up: usize| stack.len().checked_sub(up + 1).map(|at| stack[at].0);
                let decided = match quick_highlight(token, &ancestor) {
                    Some(decided) => decided,
                    None => red_token(root, token.range()).and_then(|red| highlight(&red)),
                };
                found.extend(decided);
            }
            Some(_) => {}
        }
    }
    found
}

/// The highlight of a word decided from its kind, its text and its ancestors' kinds (`ancestor(0)`
/// is its parent): `None` when that is not enough and the red token must be read.
fn quick_highlight<'a>(token: GToken<'a>, ancestor: &dyn Fn(usize) -> Option<GNode<'a>>) -> Option<Option<Highlight>> {
    let kind_of = |up: usize| ancestor(up).map(GNode::kind);
    let parent = kind_of(0)?;
    let highlight = |kind, declaration, builtin| Some(Highlight { range: token.range(), kind, declaration, builtin });
    let plain = |kind| highlight(kind, false, false);
    Some(match token.kind() {
        COMMENT | HASH_COMMENT | BLOCK_COMMENT => plain(HighlightKind::Comment),
        NUMBER => plain(HighlightKind::Number),
        IDENT if parent == LITERAL && KEYWORDS.contains(&token.text()) => plain(HighlightKind::Keyword),
        IDENT if parent == CALL => plain(HighlightKind::Function),
        IDENT if parent == REFERENCE || parent == TEMPLATE => ElemId::parse(token.text()).ok().map(|id| {
            let (kind, declaration, builtin) = element_kind(&id, false, parent);
            Highlight { range: token.range(), kind, declaration, builtin }
        }),
        IDENT if parent == KEY => match crate::builtins::core_annotation(token.text()) {
            Some(_) => highlight(HighlightKind::CoreAnnotation, false, true),
            // A key directly in a top-level `vars` block names a variable.
            None if is_vars_block(ancestor(3), kind_of(4)) => highlight(HighlightKind::Element, true, false),
            None => plain(HighlightKind::Field),
        },
        // String text that is neither a label, a key nor a `file()` argument.
        STRING_TEXT
            if parent != KEY
                && parent != LABEL
                && (parent != STRING || !matches!(kind_of(1), Some(LABEL | ARG_LIST))) =>
        {
            plain(HighlightKind::String)
        }
        IDENT | STRING_TEXT => return None,
        ESCAPE | QUOTE | MULTILINE_OPEN | MULTILINE_CLOSE if kind_of(1) != Some(LABEL) => plain(HighlightKind::String),
        _ => None,
    })
}

/// Whether `block` (whose parent is of kind `parent`) is a top-level `vars` block.
fn is_vars_block(block: Option<GNode<'_>>, parent: Option<nacl_syntax::nacl::SyntaxKind>) -> bool {
    block.is_some_and(|block| {
        block.kind() == BLOCK
            && parent == Some(SOURCE_FILE)
            && block.node(LABEL).is_some_and(|label| label.text() == "vars")
    })
}

/// The red token of `root` at exactly `range`.
fn red_token(root: &SyntaxNode, range: TextRange) -> Option<SyntaxToken> {
    if range.is_empty() {
        return None;
    }
    root.covering_element(range).into_token().filter(|token| token.text_range() == range)
}

const KEYWORDS: [&str; 7] = ["type", "settings", "is", "annotations", "vars", "true", "false"];

fn highlight(token: &SyntaxToken) -> Option<Highlight> {
    let parent = token.parent()?.kind();
    let plain = |kind| Some(Highlight { range: token.text_range(), kind, declaration: false, builtin: false });
    match token.kind() {
        COMMENT | HASH_COMMENT | BLOCK_COMMENT => return plain(HighlightKind::Comment),
        NUMBER => return plain(HighlightKind::Number),
        IDENT if parent == LITERAL && KEYWORDS.contains(&token.text()) => return plain(HighlightKind::Keyword),
        IDENT if parent == CALL => return plain(HighlightKind::Function),
        IDENT | STRING_TEXT => {}
        // Quotes and escapes belong to a string, which may be a label (highlighted as its name).
        ESCAPE | QUOTE | MULTILINE_OPEN | MULTILINE_CLOSE
            if token.parent().and_then(|string| string.parent()).is_none_or(|n| n.kind() != LABEL) =>
        {
            return plain(HighlightKind::String);
        }
        _ => return None,
    }
    let in_label = parent == LABEL || (parent == STRING && token.parent()?.parent().is_some_and(|p| p.kind() == LABEL));
    // Keys are fields, core annotations or variables: no need to resolve which field.
    if parent == KEY && crate::builtins::core_annotation(token.text()).is_none() {
        let kind = if is_variable_key(token) { HighlightKind::Element } else { HighlightKind::Field };
        return Some(Highlight {
            range: token.text_range(),
            kind,
            declaration: kind == HighlightKind::Element,
            builtin: false,
        });
    }
    let symbol = token_symbol(token);
    let (kind, declaration, builtin) = match symbol {
        Some(Symbol::CoreAnnotation(_)) => (HighlightKind::CoreAnnotation, false, true),
        Some(Symbol::Field(..)) => (HighlightKind::Field, in_label, false),
        Some(Symbol::Element(id)) => element_kind(&id, in_label && declares_type(token), parent),
        Some(Symbol::StaticFile(_)) => (HighlightKind::String, false, false),
        None if in_label && KEYWORDS.contains(&token.text()) => (HighlightKind::Keyword, false, false),
        // The name of an annotation type, declared in a type's `annotations` block.
        None if in_label && token.parent_ancestors().skip(1).any(|n| n.kind() == BLOCK) => {
            (HighlightKind::Field, true, false)
        }
        None if parent == KEY => (HighlightKind::Field, false, false),
        None if token.kind() == STRING_TEXT && !in_label => (HighlightKind::String, false, false),
        None => return None,
    };
    Some(Highlight { range: token.text_range(), kind, declaration, builtin })
}

/// Whether a key token is a variable's name: a key directly in a top-level `vars` block.
fn is_variable_key(token: &SyntaxToken) -> bool {
    let block = token
        .parent()
        .and_then(|key| key.parent())
        .and_then(|attribute| attribute.parent())
        .and_then(|body| body.parent());
    block.is_some_and(|block| {
        block.kind() == BLOCK
            && block.parent().is_some_and(|p| p.kind() == SOURCE_FILE)
            && block.children().find(|n| n.kind() == LABEL).is_some_and(|label| label.text() == "vars")
    })
}

/// Whether a label token is the name a header declares: the type of `type x` or `settings x`,
/// or the instance of `<type> <name>`.
fn declares_type(token: &SyntaxToken) -> bool {
    let Some(label) = token.parent_ancestors().find(|n| n.kind() == LABEL) else { return false };
    let Some(block) = label.parent().and_then(Block::cast) else { return false };
    if block.syntax().parent().is_none_or(|p| p.kind() != SOURCE_FILE) {
        return false;
    }
    let labels: Vec<SyntaxNode> = block.syntax().children().filter(|n| n.kind() == LABEL).collect();
    let index = labels.iter().position(|l| *l == label);
    let first = labels.first().map(|l| l.text().to_string());
    match first.as_deref() {
        Some("type" | "settings") => index == Some(1),
        _ => index == Some(1) && labels.len() == 2,
    }
}

/// How an element ID is highlighted: by what it names, declared when it is a header's own name.
fn element_kind(id: &ElemId, declared: bool, parent: nacl_syntax::nacl::SyntaxKind) -> (HighlightKind, bool, bool) {
    let builtin = id.adapter.is_empty();
    match id.id_type {
        IdType::Type if id.name_parts.is_empty() => (HighlightKind::Type, declared, builtin),
        IdType::Instance if id.is_top_level() => (HighlightKind::Element, declared, false),
        IdType::Var => (HighlightKind::Element, parent == KEY, false),
        _ => (HighlightKind::Field, false, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The highlights [`highlight`] gives each red token overlapping `range`: what the green walk
    /// must equal.
    fn red_highlights(root: &SyntaxNode, range: Option<TextRange>) -> Vec<Highlight> {
        root.descendants_with_tokens()
            .filter_map(|e| e.into_token())
            .filter(|t| range.is_none_or(|r| t.text_range().intersect(r).is_some_and(|i| !i.is_empty())))
            .filter_map(|t| highlight(&t))
            .collect()
    }

    #[test]
    fn the_green_walk_equals_the_red_one_on_every_fixture() {
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/test_data");
        let mut checked = 0;
        for entry in walkdir::WalkDir::new(fixtures).into_iter().filter_map(Result::ok) {
            if entry.path().extension().is_some_and(|e| e == "nacl") {
                let text = std::fs::read_to_string(entry.path()).expect("fixtures are UTF-8");
                let root = nacl_syntax::nacl::parse(&text).syntax();
                assert_eq!(highlights(&root, None), red_highlights(&root, None), "{}", entry.path().display());
                checked += 1;
            }
        }
        assert!(checked > 20, "only {checked} fixtures found");
    }

    /// NaCl-like text made of the words highlighting tells apart.
    fn nacl_words() -> impl Strategy<Value = String> {
        let words = prop::sample::select(vec![
            "type salto.t ",
            "salto.t a ",
            "settings ",
            "vars ",
            "vars {\n  v = 1\n}\n",
            "annotations ",
            "is ",
            "string ",
            "\"List<salto.t>\" ",
            "{\n",
            "}\n",
            "[",
            "]",
            ", ",
            " = ",
            "x",
            "_required",
            "_alias",
            "true",
            "1.5",
            "\"s\"",
            "\"a${ salto.t.instance.a.b }\"",
            "salto.t.field.f",
            "var.v",
            "file(\"p\")",
            "'''\nm\n'''",
            "\"\\n\"",
            "// c\n",
            "# h\n",
            "\"q w\" ",
        ]);
        prop::collection::vec(words, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn the_green_walk_equals_the_red_one(text in nacl_words(), start in 0usize..400, len in 0usize..200) {
            let root = nacl_syntax::nacl::parse(&text).syntax();
            prop_assert_eq!(highlights(&root, None), red_highlights(&root, None));
            let start = start.min(text.len());
            let range = TextRange::new((start as u32).into(), ((start + len).min(text.len()) as u32).into());
            prop_assert_eq!(highlights(&root, Some(range)), red_highlights(&root, Some(range)));
        }
    }

    /// Each highlighted word with its kind and flags, one per line.
    fn shown(text: &str) -> String {
        let root = nacl_syntax::nacl::parse(text).syntax();
        highlights(&root, None)
            .iter()
            .map(|h| {
                let flags = format!(
                    "{}{}",
                    if h.declaration { " declaration" } else { "" },
                    if h.builtin { " builtin" } else { "" }
                );
                format!("{:?} {:?}{flags}", &text[h.range], h.kind)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn words_are_highlighted_by_what_they_are() {
        let text = "// types\ntype salto.t is string {\n}\ntype salto.o {\n  annotations {\n    string label {\n    }\n  }\n  \"List<salto.t>\" names {\n    _required = true\n  }\n}\nsalto.o a {\n  names = [\"x ${ salto.o.instance.b.label }\", 2]\n  f = file(\"p.txt\")\n  r = var.v\n}\nvars {\n  v = 3\n}\n";
        expect_test::expect![[r#"
            "// types" Comment
            "type" Keyword
            "salto.t" Type declaration
            "is" Keyword
            "string" Type builtin
            "type" Keyword
            "salto.o" Type declaration
            "annotations" Keyword
            "string" Type builtin
            "label" Field declaration
            "List<salto.t>" Type
            "names" Field declaration
            "_required" CoreAnnotation builtin
            "true" Keyword
            "salto.o" Type
            "a" Element declaration
            "names" Field
            "\"" String
            "x " String
            "salto.o.instance.b.label" Field
            "\"" String
            "2" Number
            "f" Field
            "file" Function
            "\"" String
            "p.txt" String
            "\"" String
            "r" Field
            "var.v" Element
            "vars" Keyword
            "v" Element declaration
            "3" Number"#]]
        .assert_eq(&shown(text));
    }
}
