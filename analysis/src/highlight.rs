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
use nacl_syntax::{
    TextRange,
    rowan::{GreenNode, NodeOrToken},
};
use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::Arc,
};

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
    let green = root.green();
    let top = GNode::at(&green, root.text_range().start());
    let mut found = Vec::new();
    walk(root, top, None, range, None, &mut found);
    found
}

/// The highlights of the top-level blocks of one file, kept between requests: a block's
/// highlights depend only on its own text (and on being at the top level), so a block an edit
/// left untouched (the same green node, see [`nacl_syntax::nacl::reparse_part`]) is not walked
/// again, wherever the edit moved it.
#[derive(Default)]
pub struct BlockHighlights {
    /// Each block's highlights, with ranges from the block's start, by the address of its green
    /// node; the node is held so that the address stays its own.
    blocks: HashMap<usize, (GreenNode, Arc<[Highlight]>)>,
}

impl BlockHighlights {
    /// What [`highlights`] returns for `root` and `range`, with the highlights of each block
    /// read from those kept when it was seen before. Afterwards only the blocks of `root` are
    /// kept.
    pub fn highlights(&mut self, root: &SyntaxNode, range: Option<TextRange>) -> Vec<Highlight> {
        let green = root.green();
        let top = GNode::at(&green, root.text_range().start());
        let mut found = Vec::new();
        let mut seen = HashMap::with_capacity(self.blocks.len());
        walk(
            root,
            top,
            None,
            range,
            Some(&mut |block: GNode<'_>, found: &mut Vec<Highlight>| {
                let key = std::ptr::from_ref(block.green()) as usize;
                let start = block.range().start();
                let (node, kept) = self.blocks.remove(&key).unwrap_or_else(|| {
                    let mut own = Vec::new();
                    walk(root, block, Some(top), None, None, &mut own);
                    let relative = own.into_iter().map(|h| Highlight { range: h.range - start, ..h }).collect();
                    (block.green().to_owned(), relative)
                });
                found.extend(
                    kept.iter()
                        .map(|h| Highlight { range: h.range + start, ..h.clone() })
                        .filter(|h| overlaps(range, h.range)),
                );
                seen.insert(key, (node, kept));
            }),
            &mut found,
        );
        // Blocks outside `range` were not read: keep theirs too.
        if range.is_some() {
            for child in top.children() {
                if let NodeOrToken::Node(block) = child {
                    let key = std::ptr::from_ref(block.green()) as usize;
                    if let Some(kept) = self.blocks.remove(&key) {
                        seen.insert(key, kept);
                    }
                }
            }
        }
        self.blocks = seen;
        found
    }
}

/// The [`BlockHighlights`] of the last four files highlighted (the documents an editor shows).
#[derive(Default)]
pub struct RecentHighlights(crate::recent::Recent<PathBuf, BlockHighlights, 4>);

impl RecentHighlights {
    /// What [`highlights`] returns for `root`, the tree of the file at `path`, and `range`,
    /// reading the blocks' highlights kept for `path`.
    ///
    /// The file's kept highlights are taken out while it is highlighted, so that no lock is held
    /// meanwhile; a second request on the same file at the same time starts afresh.
    pub fn highlights(&self, path: &Path, root: &SyntaxNode, range: Option<TextRange>) -> Vec<Highlight> {
        let mut blocks = self.0.take(path).unwrap_or_default();
        let found = blocks.highlights(root, range);
        self.0.keep(path.to_path_buf(), blocks);
        found
    }

    /// Whether highlights are kept for the file at `path`.
    #[cfg(test)]
    pub(crate) fn holds(&self, path: &Path) -> bool {
        self.0.holds(path)
    }

    /// Drops what is kept for the file at `path` (an editor closed it, or it left the workspace).
    pub fn forget(&self, path: &Path) {
        self.0.forget(path);
    }
}

/// Whether `r` overlaps `range` (any range when `None`) by at least a character.
fn overlaps(range: Option<TextRange>, r: TextRange) -> bool {
    range.is_none_or(|range| r.intersect(range).is_some_and(|i| !i.is_empty()))
}

/// What answers for a top-level block in [`walk`], adding its highlights to the vector given.
type TopBlock<'s, 'a> = &'s mut dyn FnMut(GNode<'a>, &mut Vec<Highlight>);

/// Adds to `found` the highlights of the tokens under `start` that overlap `range`, in order.
/// `outer` is `start`'s parent, when `start` is not the root: the walk reads up to four
/// ancestors of a token. `top_block`, when given, answers for each top-level block instead of
/// the walk.
fn walk<'a>(
    root: &SyntaxNode,
    start: GNode<'a>,
    outer: Option<GNode<'a>>,
    range: Option<TextRange>,
    mut top_block: Option<TopBlock<'_, 'a>>,
    found: &mut Vec<Highlight>,
) {
    // The nodes from `start` down to the current token's parent, each with its unread children.
    let mut stack = vec![(start, start.children())];
    while let Some((_, children)) = stack.last_mut() {
        match children.next() {
            None => {
                stack.pop();
            }
            Some(NodeOrToken::Node(node)) if overlaps(range, node.range()) => match top_block.as_deref_mut() {
                Some(answer) if stack.len() == 1 && node.kind() == BLOCK => answer(node, found),
                _ => stack.push((node, node.children())),
            },
            Some(NodeOrToken::Token(token)) if overlaps(range, token.range()) => {
                let ancestor = |up: usize| match stack.len().checked_sub(up + 1) {
                    Some(at) => Some(stack[at].0),
                    None => outer.filter(|_| up == stack.len()),
                };
                let decided = match quick_highlight(token, &ancestor) {
                    Some(decided) => decided,
                    None => red_token(root, token.range()).and_then(|red| highlight(&red)),
                };
                found.extend(decided);
            }
            Some(_) => {}
        }
    }
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

    proptest! {
        /// Highlights read through the kept blocks equal a fresh walk after each of a series of
        /// edits, each reparsed as the editor's trees are (untouched blocks keep their nodes).
        #[test]
        fn kept_block_highlights_equal_a_fresh_walk(
            text in nacl_words(),
            edits in prop::collection::vec((0usize..400, 0usize..4, nacl_words()), 1..6),
            start in 0usize..400,
            len in 0usize..200,
        ) {
            let mut kept = BlockHighlights::default();
            let mut text = text;
            let mut parse = nacl_syntax::nacl::parse(&text);
            for (at, removed, inserted) in edits {
                let root = parse.syntax();
                prop_assert_eq!(kept.highlights(&root, None), highlights(&root, None));
                let from = (start.min(text.len()) as u32).into();
                let range = TextRange::new(from, ((start + len).min(text.len()) as u32).into());
                prop_assert_eq!(kept.highlights(&root, Some(range)), highlights(&root, Some(range)));
                let mut at = at.min(text.len());
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                let mut end = (at + removed).min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                let edited = format!("{}{}{}", &text[..at], &inserted[..inserted.len().min(12)], &text[end..]);
                parse = nacl_syntax::nacl::reparse(&parse, &text, &edited);
                text = edited;
            }
            let root = parse.syntax();
            prop_assert_eq!(kept.highlights(&root, None), highlights(&root, None));
        }
    }

    #[test]
    fn an_untouched_block_is_not_walked_again() {
        let text = "salto.t a {\n  x = \"one\"\n}\nsalto.t b {\n  y = 2\n}\n";
        let parse = nacl_syntax::nacl::parse(text);
        let mut kept = BlockHighlights::default();
        kept.highlights(&parse.syntax(), None);
        let before: Vec<Arc<[Highlight]>> = kept.blocks.values().map(|(_, h)| h.clone()).collect();
        let edited = text.replace("\"one\"", "\"one more\"");
        let reparsed = nacl_syntax::nacl::reparse(&parse, text, &edited);
        let root = reparsed.syntax();
        assert_eq!(kept.highlights(&root, None), highlights(&root, None));
        let after: Vec<Arc<[Highlight]>> = kept.blocks.values().map(|(_, h)| h.clone()).collect();
        let reused = after.iter().filter(|h| before.iter().any(|b| Arc::ptr_eq(b, h))).count();
        assert_eq!((after.len(), reused), (2, 1), "block `b` is read from what was kept, `a` walked again");
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
