//! Hover in HCL files: the type and value of the expression under the cursor when it needs no
//! variables (literals, operators, templates, collections built of them), and what the block or
//! attribute name under the cursor is.

use super::eval::{Context, evaluate, is_expression};
use crate::navigation::HoverInfo;
use nacl_syntax::{
    TextSize,
    hcl::{SyntaxKind::*, SyntaxNode},
};

/// What hovering at `offset` in the tree `root` shows, if anything.
pub fn hover(root: &SyntaxNode, offset: TextSize) -> Option<HoverInfo> {
    let token = root
        .token_at_offset(offset)
        .max_by_key(|t| !t.kind().is_trivia() && t.kind() != NEWLINE && t.kind() != WHITESPACE)?;
    let parent = token.parent()?;
    if token.kind() == IDENT && parent.kind() == BLOCK {
        let is_type = parent.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == IDENT)
            == Some(token.clone());
        let what = if is_type { "block type" } else { "block label" };
        return Some(HoverInfo { range: token.text_range(), markdown: format!("{what} `{}`", token.text()) });
    }
    let expression = token.parent_ancestors().find(is_expression)?;
    // Variables and calls need a context this file alone does not give: say nothing rather than guess.
    if expression.descendants().any(|n| matches!(n.kind(), VARIABLE | CALL | FOR_EXPR)) {
        return None;
    }
    let (value, errors) = evaluate(&expression, &Context::default());
    let markdown = match errors.first() {
        Some(error) => format!("```hcl\n{}\n```\n\nerror: {}", value.ty(), error.message),
        None => format!("```hcl\n{}\n```\n\n= `{value}`", value.ty()),
    };
    Some(HoverInfo { range: expression.text_range(), markdown })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hover_at(text: &str, needle: &str) -> Option<String> {
        let offset = TextSize::from(text.find(needle).expect("needle") as u32);
        hover(&nacl_syntax::hcl::parse(text).syntax(), offset).map(|h| h.markdown)
    }

    #[test]
    fn hover_shows_types_and_constant_values() {
        let text = "resource \"a\" {\n  n = 0.1 + 0.2\n  s = \"x${1}\"\n  v = var.x + 1\n  d = 1 / 0\n}\n";
        assert_eq!(hover_at(text, "+ 0.2").as_deref(), Some("```hcl\nnumber\n```\n\n= `0.3`"));
        assert_eq!(hover_at(text, "\"x").as_deref(), Some("```hcl\nstring\n```\n\n= `\"x1\"`"));
        assert_eq!(hover_at(text, "var.x"), None, "variables need a schema");
        assert_eq!(hover_at(text, "resource").as_deref(), Some("block type `resource`"));
        assert_eq!(hover_at(text, "/ 0").as_deref(), Some("```hcl\nnumber\n```\n\n= `+Inf`"));
    }
}
