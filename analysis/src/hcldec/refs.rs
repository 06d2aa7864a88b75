//! The variable references a configuration's expressions would need, as `hcldec --var-refs`
//! lists them: for each attribute a spec reads (in nested blocks too), each traversal from a variable
//! through its literal steps, with ranges.

use super::{
    Source,
    body::{Attribute, Body, Content, Expr},
    spec::{Spec, SpecKind},
};
use crate::hcl::{
    eval::{Context, evaluate},
    value::Value,
};
use nacl_syntax::{
    TextRange,
    hcl::{SyntaxKind, SyntaxNode},
};

/// One step of a variable reference, with where it is (for `hcldec --var-refs`).
#[derive(Clone, Debug)]
pub enum RefStep {
    /// The variable's name.
    Root(String, TextRange),
    /// `.name`.
    Attr(String, TextRange),
    /// `[key]` with a literal key (its value).
    Index(Value, TextRange),
}

/// A reference to a variable in the configuration: its steps, the file, the whole range.
#[derive(Clone, Debug)]
pub struct VariableRef {
    /// The steps, root first.
    pub steps: Vec<RefStep>,
    /// The file.
    pub source: Source,
    /// Where the whole reference is.
    pub range: TextRange,
}

/// The references to variables the expressions the spec reads would need (`hcldec --var-refs`),
/// in the order the reference gives them: by spec, then by position.
pub fn variables_needed(body: &Body, spec: &Spec) -> Vec<VariableRef> {
    let (content, _) = body.content(&spec.schema(), true);
    let mut out = Vec::new();
    collect_refs(&content, spec, &mut out);
    out
}

fn collect_refs(content: &Content, spec: &Spec, out: &mut Vec<VariableRef>) {
    match &spec.kind {
        SpecKind::Attr { name, .. } => {
            if let Some(attribute) = content.attributes.get(name) {
                attribute_refs(attribute, out);
            }
        }
        SpecKind::BlockAttrs { block_type, .. } => {
            if let Some(block) = content.blocks.iter().find(|b| &b.kind == block_type) {
                let mut refs = Vec::new();
                for attribute in &block.body.attributes {
                    attribute_refs(attribute, &mut refs);
                }
                refs.sort_by_key(|r| r.range.start());
                out.extend(refs);
            }
        }
        SpecKind::Block { block_type, nested, .. } => {
            if let Some(block) = content.blocks.iter().find(|b| &b.kind == block_type) {
                out.extend(variables_needed(&block.body, nested));
            }
        }
        SpecKind::BlockList { block_type, nested, .. } | SpecKind::BlockMap { block_type, nested, .. } => {
            for block in content.blocks.iter().filter(|b| &b.kind == block_type) {
                out.extend(variables_needed(&block.body, nested));
            }
        }
        _ => {
            for child in spec.same_body_children() {
                collect_refs(content, child, out);
            }
        }
    }
}

fn attribute_refs(attribute: &Attribute, out: &mut Vec<VariableRef>) {
    if let Expr::Native(node) = &attribute.expr {
        for traversal in expression_variables(node) {
            out.push(VariableRef { range: traversal_range(&traversal), steps: traversal, source: attribute.source });
        }
    }
}

fn traversal_range(steps: &[RefStep]) -> TextRange {
    let range = |s: &RefStep| match s {
        RefStep::Root(_, r) | RefStep::Attr(_, r) | RefStep::Index(_, r) => *r,
    };
    match (steps.first(), steps.last()) {
        (Some(first), Some(last)) => range(first).cover(range(last)),
        _ => TextRange::default(),
    }
}

/// The variables an expression reads, as traversals (root and the literal steps after it), in
/// order; names bound by `for` expressions inside are not variables.
pub fn expression_variables(node: &SyntaxNode) -> Vec<Vec<RefStep>> {
    let mut out = Vec::new();
    walk_variables(node, &mut Vec::new(), &mut out);
    out
}

fn walk_variables(node: &SyntaxNode, bound: &mut Vec<String>, out: &mut Vec<Vec<RefStep>>) {
    use SyntaxKind::*;
    match node.kind() {
        VARIABLE => {
            let Some(token) = node.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == IDENT)
            else {
                return;
            };
            if bound.iter().any(|b| b == token.text()) {
                return;
            }
            let mut steps = vec![RefStep::Root(token.text().to_owned(), token.text_range())];
            // Extend with the literal steps of the traversal this variable starts.
            let mut at = node.clone();
            while let Some(parent) = at.parent() {
                let first_child = parent.children().next();
                if first_child.as_ref() != Some(&at) {
                    break;
                }
                match parent.kind() {
                    GET_ATTR => {
                        let Some(name) = parent
                            .children_with_tokens()
                            .filter_map(|e| e.into_token())
                            .filter(|t| matches!(t.kind(), IDENT | NUMBER))
                            .last()
                        else {
                            break;
                        };
                        let range = TextRange::new(
                            parent
                                .children_with_tokens()
                                .filter_map(|e| e.into_token())
                                .find(|t| t.kind() == DOT)
                                .map_or(name.text_range().start(), |d| d.text_range().start()),
                            name.text_range().end(),
                        );
                        if name.kind() == NUMBER {
                            let index = crate::hcl::number::Number::parse(name.text()).map(Value::Number);
                            match index {
                                Some(v) => steps.push(RefStep::Index(v, range)),
                                None => break,
                            }
                        } else {
                            steps.push(RefStep::Attr(name.text().to_owned(), range));
                        }
                    }
                    INDEX => {
                        let Some(key) = parent.children().nth(1) else { break };
                        if key.descendants().any(|d| matches!(d.kind(), VARIABLE | CALL)) {
                            break;
                        }
                        let (value, errors) = evaluate(&key, &Context::default());
                        if !errors.is_empty() {
                            break;
                        }
                        let range = TextRange::new(key.text_range().start(), parent.text_range().end());
                        let open = parent
                            .children_with_tokens()
                            .filter_map(|e| e.into_token())
                            .find(|t| t.kind() == L_BRACK)
                            .map_or(range.start(), |t| t.text_range().start());
                        steps.push(RefStep::Index(value, TextRange::new(open, range.end())));
                    }
                    _ => break,
                }
                at = parent;
            }
            out.push(steps);
        }
        FOR_EXPR => {
            let names: Vec<String> = node
                .children()
                .find(|c| c.kind() == FOR_INTRO)
                .map(|intro| {
                    intro
                        .children_with_tokens()
                        .filter_map(|e| e.into_token())
                        .filter(|t| t.kind() == IDENT && t.text() != "for" && t.text() != "in")
                        .map(|t| t.text().to_owned())
                        .collect()
                })
                .unwrap_or_default();
            for child in node.children() {
                // The collection is outside the names' scope; the rest is inside.
                if child.kind() == FOR_INTRO {
                    walk_variables(&child, bound, out);
                    continue;
                }
                let depth = bound.len();
                bound.extend(names.iter().cloned());
                walk_variables(&child, bound, out);
                bound.truncate(depth);
            }
        }
        _ => {
            for child in node.children() {
                walk_variables(&child, bound, out);
            }
        }
    }
}
