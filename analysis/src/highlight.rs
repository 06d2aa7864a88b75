//! Semantic highlighting: what each word of a file is (keyword, type, element, field, core
//! annotation, string, number, comment), from the syntax tree alone, so it is instant on every
//! keystroke and never waits for the workspace.

use crate::{
    elem_id::{ElemId, IdType},
    navigation::{Symbol, token_symbol},
};
use nacl_syntax::TextRange;
use nacl_syntax::nacl::{
    SyntaxKind::*,
    SyntaxNode, SyntaxToken,
    ast::{AstNodeExt, Block},
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

/// The highlights of the tokens of `root` that overlap `range` (all when `None`), in order.
pub fn highlights(root: &SyntaxNode, range: Option<TextRange>) -> Vec<Highlight> {
    let tokens = match range {
        Some(range) => root.covering_element(range).as_node().cloned().unwrap_or_else(|| root.clone()),
        None => root.clone(),
    };
    tokens
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| range.is_none_or(|r| t.text_range().intersect(r).is_some_and(|i| !i.is_empty())))
        .filter_map(|t| highlight(&t))
        .collect()
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
