//! Semantic highlighting of HCL from the syntax tree alone: block types, labels, attribute and
//! object keys, variables, functions, keywords, literals, operators and comments.

use crate::highlight::{Highlight, HighlightKind};
use nacl_syntax::TextRange;
use nacl_syntax::hcl::{SyntaxKind::*, SyntaxNode, SyntaxToken};

/// The highlights of the tokens of `root` that overlap `range` (all when `None`), in order.
pub fn highlights(root: &SyntaxNode, range: Option<TextRange>) -> Vec<Highlight> {
    let tokens = match range {
        Some(range) => root
            .descendants_with_tokens()
            .filter_map(|e| e.into_token())
            .filter(|t| t.text_range().intersect(range).is_some_and(|r| !r.is_empty()))
            .collect::<Vec<_>>(),
        None => root.descendants_with_tokens().filter_map(|e| e.into_token()).collect(),
    };
    tokens.iter().filter_map(highlight).collect()
}

fn highlight(token: &SyntaxToken) -> Option<Highlight> {
    let parent = token.parent().map(|p| p.kind());
    let (kind, declaration) = match token.kind() {
        LINE_COMMENT | BLOCK_COMMENT => (HighlightKind::Comment, false),
        NUMBER => (HighlightKind::Number, false),
        TEMPLATE_TEXT | OPEN_QUOTE | CLOSE_QUOTE | HEREDOC_OPEN | HEREDOC_CLOSE => (HighlightKind::String, false),
        INTERP_OPEN | DIRECTIVE_OPEN | TEMPLATE_CLOSE | STRIP => (HighlightKind::Keyword, false),
        PLUS | MINUS | STAR | SLASH | PERCENT | AND | OR | BANG | EQ2 | NEQ | LT | GT | LTEQ | GTEQ | QUESTION
        | FAT_ARROW | ELLIPSIS => (HighlightKind::Operator, false),
        COLON if parent == Some(CONDITIONAL) => (HighlightKind::Operator, false),
        IDENT => match parent? {
            BLOCK if is_first_ident(token) => (HighlightKind::Type, true),
            BLOCK => (HighlightKind::String, true),
            ATTRIBUTE => (HighlightKind::Field, true),
            LITERAL => (HighlightKind::Keyword, false),
            CALL => (HighlightKind::Function, false),
            VARIABLE if is_object_key(token) => (HighlightKind::Field, true),
            VARIABLE => (HighlightKind::Element, false),
            GET_ATTR => (HighlightKind::Field, false),
            FOR_INTRO | FOR_EXPR | FOR_COND | DIRECTIVE => match token.text() {
                "for" | "in" | "if" | "else" | "endif" | "endfor" => (HighlightKind::Keyword, false),
                _ => (HighlightKind::Element, true),
            },
            _ => return None,
        },
        _ => return None,
    };
    Some(Highlight { range: token.text_range(), kind, declaration, builtin: false })
}

/// Whether `token` is the first identifier of its block (the block type).
fn is_first_ident(token: &SyntaxToken) -> bool {
    token.parent().and_then(|p| p.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == IDENT))
        == Some(token.clone())
}

/// Whether `token` is a bare object key (`{ key = ... }`), which names an attribute, not a variable.
fn is_object_key(token: &SyntaxToken) -> bool {
    let Some(variable) = token.parent() else { return false };
    variable.parent().is_some_and(|key| key.kind() == OBJECT_KEY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_word_is_told_apart() {
        let text = "resource \"a\" b {\n  n = f(x.y, 1) # c\n  o = { k = true }\n  l = [for v in xs : v if v > 0]\n}\n";
        let parse = nacl_syntax::hcl::parse(text);
        let out: Vec<String> =
            highlights(&parse.syntax(), None).iter().map(|h| format!("{:?} {}", h.kind, &text[h.range])).collect();
        expect_test::expect![[r#"
            Type resource
            String "
            String a
            String "
            String b
            Field n
            Function f
            Element x
            Field y
            Number 1
            Comment # c
            Field o
            Field k
            Keyword true
            Field l
            Keyword for
            Element v
            Keyword in
            Element xs
            Element v
            Keyword if
            Element v
            Operator >
            Number 0"#]]
        .assert_eq(&out.join("\n"));
    }
}
