//! What a single HCL file can resolve on its own: the variables a `for` expression or a `%{ for }`
//! directive declares, their uses inside it, and where each use is declared. (Other names need a
//! schema: the hcldec issue.)

use nacl_syntax::{
    TextRange, TextSize,
    hcl::{SyntaxKind::*, SyntaxNode, SyntaxToken},
};

/// A `for` variable: where it is declared and every place it is used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The name in the `for` header.
    pub declaration: TextRange,
    /// The variable expressions that read it.
    pub uses: Vec<TextRange>,
}

/// The `for` variable declared or used at `offset`, if any.
pub fn binding_at(root: &SyntaxNode, offset: TextSize) -> Option<Binding> {
    let token = root.token_at_offset(offset).find(|t| t.kind() == IDENT)?;
    let name = token.text().to_owned();
    let (declaration, scope) = match token.parent()?.kind() {
        FOR_INTRO | DIRECTIVE if declares(&token) => (token.clone(), token.parent()?.parent()?),
        VARIABLE => token
            .parent_ancestors()
            .filter(|n| matches!(n.kind(), FOR_EXPR | TEMPLATE_FOR))
            .find_map(|scope| declared(&scope).into_iter().find(|d| d.text() == name).map(|d| (d, scope)))?,
        _ => return None,
    };
    let mut uses = Vec::new();
    collect_uses(&scope, &name, &scope, &mut uses);
    Some(Binding { declaration: declaration.text_range(), uses })
}

/// The variables a `for` expression or directive declares.
fn declared(scope: &SyntaxNode) -> Vec<SyntaxToken> {
    let header = scope.children().find(|c| matches!(c.kind(), FOR_INTRO | DIRECTIVE));
    header
        .map(|h| h.children_with_tokens().filter_map(|e| e.into_token()).filter(declares).collect())
        .unwrap_or_default()
}

/// Whether an identifier of a `for` header is one of its variables (not `for` or `in`).
fn declares(token: &SyntaxToken) -> bool {
    if token.kind() != IDENT || matches!(token.text(), "for" | "in") {
        return false;
    }
    // Variables come before `in`.
    let mut before = token.prev_sibling_or_token();
    let mut saw_for = false;
    while let Some(element) = before {
        if let Some(t) = element.as_token() {
            match t.text() {
                "in" if t.kind() == IDENT => return false,
                "for" if t.kind() == IDENT => saw_for = true,
                _ => {}
            }
        }
        before = element.prev_sibling_or_token();
    }
    saw_for
}

/// The uses of `name` under `node` that `scope` binds (not those a nested `for` rebinds).
fn collect_uses(node: &SyntaxNode, name: &str, scope: &SyntaxNode, out: &mut Vec<TextRange>) {
    for child in node.children() {
        if child != *scope
            && matches!(child.kind(), FOR_EXPR | TEMPLATE_FOR)
            && declared(&child).iter().any(|d| d.text() == name)
        {
            continue;
        }
        if child.kind() == VARIABLE && child.text() == name {
            out.push(child.text_range());
        }
        collect_uses(&child, name, scope, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn for_variables_resolve_inside_their_expression() {
        let text = "a = [for i, v in list : v if i > 0]\nb = v\nc = [for v in x : [for v in y : v]]\nd = \"%{ for s in l }${s}%{ endfor }\"\n";
        let root = nacl_syntax::hcl::parse(text).syntax();
        let at =
            |needle: &str, nth: usize| TextSize::from(text.match_indices(needle).nth(nth).expect("needle").0 as u32);
        let binding = binding_at(&root, at("v", 1)).expect("a binding");
        assert_eq!(&text[binding.declaration], "v");
        assert_eq!(binding.declaration.start(), at("v", 0));
        assert_eq!(binding.uses.len(), 1);
        assert!(binding_at(&root, at("b = v", 0) + TextSize::from(4)).is_none(), "outside its expression");
        // The inner `for v` shadows the outer one.
        let outer = binding_at(&root, at("for v in x", 0) + TextSize::from(4)).expect("outer");
        assert!(outer.uses.is_empty());
        let directive = binding_at(&root, at("${s}", 0) + TextSize::from(2)).expect("directive variable");
        assert_eq!(&text[directive.declaration], "s");
    }
}
