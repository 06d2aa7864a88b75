//! Static analysis of HCL expressions (`hcl-information-model.md`, "Static Analysis"): reading an
//! expression's physical structure instead of its value, for applications that need a stricter
//! reading (lists of expressions, key/value pairs, calls, traversals, bare keywords).

use super::{eval::expressions, value::Value};
use nacl_syntax::hcl::{SyntaxKind::*, SyntaxNode};

/// A step of a static traversal after its root name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `.name`.
    Attr(String),
    /// `[key]` or the legacy `.0`, with a literal key.
    Index(String),
}

/// A reference to a variable and a path into it, all literal: `root.a["b"][0]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Traversal {
    /// The variable.
    pub root: String,
    /// The path.
    pub steps: Vec<Step>,
}

/// The elements of a tuple constructor (`[a, b]`), or `None` for any other expression.
pub fn static_list(node: &SyntaxNode) -> Option<Vec<SyntaxNode>> {
    let node = unwrap_parens(node);
    (node.kind() == TUPLE).then(|| expressions(&node))
}

/// The key and value expressions of an object constructor (`{ k = v }`), or `None`. Keys may be
/// any expression: a bare name is the variable expression of that name.
pub fn static_map(node: &SyntaxNode) -> Option<Vec<(SyntaxNode, SyntaxNode)>> {
    let node = unwrap_parens(node);
    (node.kind() == OBJECT).then(|| {
        node.children()
            .filter(|c| c.kind() == OBJECT_ITEM)
            .filter_map(|item| {
                let key = item.children().find(|c| c.kind() == OBJECT_KEY)?;
                Some((expressions(&key).into_iter().next()?, expressions(&item).into_iter().next()?))
            })
            .collect()
    })
}

/// The function name and argument expressions of a call, or `None`.
pub fn static_call(node: &SyntaxNode) -> Option<(String, Vec<SyntaxNode>)> {
    let node = unwrap_parens(node);
    if node.kind() != CALL {
        return None;
    }
    let name = node.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == IDENT)?;
    let args = node.children().find(|c| c.kind() == ARG_LIST).map(|a| expressions(&a)).unwrap_or_default();
    Some((name.text().to_owned(), args))
}

/// A bare name used as a keyword (`type = string`), or `None`.
pub fn keyword(node: &SyntaxNode) -> Option<String> {
    let node = unwrap_parens(node);
    (node.kind() == VARIABLE).then(|| node.text().to_string().trim().to_owned())
}

/// The traversal a reference expression spells, when every step is literal.
pub fn static_traversal(node: &SyntaxNode) -> Option<Traversal> {
    match node.kind() {
        VARIABLE => Some(Traversal { root: keyword(node)?, steps: Vec::new() }),
        GET_ATTR => {
            let mut traversal = static_traversal(&expressions(node).into_iter().next()?)?;
            let name = node
                .children_with_tokens()
                .filter_map(|e| e.into_token())
                .filter(|t| matches!(t.kind(), IDENT | NUMBER))
                .last()?;
            traversal.steps.push(match name.kind() {
                NUMBER => Step::Index(name.text().to_owned()),
                _ => Step::Attr(name.text().to_owned()),
            });
            Some(traversal)
        }
        INDEX => {
            let parts = expressions(node);
            let mut traversal = static_traversal(parts.first()?)?;
            let (value, errors) = super::eval::evaluate(parts.get(1)?, &super::eval::Context::default());
            let key = match value {
                Value::String(s) if errors.is_empty() => s,
                Value::Number(n) if errors.is_empty() => n.to_string(),
                _ => return None,
            };
            traversal.steps.push(Step::Index(key));
            Some(traversal)
        }
        PAREN_EXPR => static_traversal(&expressions(node).into_iter().next()?),
        _ => None,
    }
}

fn unwrap_parens(node: &SyntaxNode) -> SyntaxNode {
    let mut node = node.clone();
    while node.kind() == PAREN_EXPR {
        match expressions(&node).into_iter().next() {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

#[cfg(test)]
mod tests {
    use super::*;
    use nacl_syntax::hcl::ast::BodyItem;

    /// The value expression of each attribute of `text`.
    fn values(text: &str) -> Vec<SyntaxNode> {
        nacl_syntax::hcl::parse(text)
            .tree()
            .items()
            .filter_map(|item| match item {
                BodyItem::Attribute(a) => a.value(),
                BodyItem::Block(_) => None,
            })
            .collect()
    }

    #[test]
    fn physical_structure_of_expressions() {
        let v = values(
            "l = [a, 1 + 2]\nm = { k = 1, (x) = 2 }\nc = f(1, g(2))\nt = var.a[\"b\"][0].0\nk = string\nn = 1 + 2\n",
        );
        let texts = |nodes: Vec<SyntaxNode>| nodes.iter().map(|n| n.text().to_string()).collect::<Vec<_>>();
        assert_eq!(static_list(&v[0]).map(texts), Some(vec!["a".to_owned(), "1 + 2".to_owned()]));
        let pairs: Vec<(String, String)> = static_map(&v[1])
            .unwrap_or_default()
            .iter()
            .map(|(k, v)| (k.text().to_string(), v.text().to_string()))
            .collect();
        assert_eq!(pairs, [("k".to_owned(), "1".to_owned()), ("(x)".to_owned(), "2".to_owned())]);
        let (name, args) = static_call(&v[2]).expect("a call");
        assert_eq!((name.as_str(), texts(args)), ("f", vec!["1".to_owned(), "g(2)".to_owned()]));
        assert_eq!(
            static_traversal(&v[3]),
            Some(Traversal {
                root: "var".to_owned(),
                steps: vec![
                    Step::Attr("a".to_owned()),
                    Step::Index("b".to_owned()),
                    Step::Index("0".to_owned()),
                    Step::Index("0".to_owned())
                ]
            })
        );
        assert_eq!(keyword(&v[4]).as_deref(), Some("string"));
        assert!(static_list(&v[5]).is_none() && static_traversal(&v[5]).is_none() && keyword(&v[5]).is_none());
    }
}
