//! Decoding: a spec applied to a configuration body gives a value and the problems, as HashiCorp's
//! `hcldec` decodes (`hcldec.Decode`): each body is read with the schema of the specs that read
//! it, unexpected items are errors, each spec contributes its part of the value.

use super::{
    Problem, Source,
    body::{Attribute, Block, Body, Content, Expr},
    json::value_from_json,
    spec::{Spec, SpecKind, spec_context},
};
use crate::hcl::{
    eval::{Context, evaluate},
    value::{Type, Value, convert, unify},
};
use nacl_syntax::TextRange;
use std::collections::BTreeMap;

/// Decodes `body` with `spec`, evaluating expressions in `context`.
pub fn decode(body: &Body, spec: &Spec, context: &Context) -> (Value, Vec<Problem>) {
    let mut decoder = Decoder { context, problems: Vec::new() };
    let value = decoder.body(body, spec);
    (value, decoder.problems)
}

struct Decoder<'c> {
    context: &'c Context,
    problems: Vec<Problem>,
}

/// The value of an attribute's expression.
fn attribute_value(attribute: &Attribute, context: &Context) -> (Value, Vec<Problem>) {
    match &attribute.expr {
        Expr::Json(json) => (value_from_json(json), Vec::new()),
        Expr::Native(node) => {
            let (value, errors) = evaluate(node, context);
            let problems = errors
                .into_iter()
                .map(|e| Problem::error(summary_of(&e.message), e.message, attribute.source, e.range))
                .collect();
            (value, problems)
        }
    }
}

/// A short summary for an evaluation error, in the reference's words where it has them.
fn summary_of(message: &str) -> &'static str {
    if message.starts_with("there is no variable") {
        "Unknown variable"
    } else if message.starts_with("there is no function") {
        "Call to unknown function"
    } else {
        "Invalid expression"
    }
}

impl Decoder<'_> {
    fn body(&mut self, body: &Body, spec: &Spec) -> Value {
        let (content, problems) = body.content(&spec.schema(), false);
        self.problems.extend(problems);
        self.spec(&content, spec)
    }

    fn error(&mut self, summary: String, detail: String, source: Source, range: TextRange) {
        self.problems.push(Problem::error(summary, detail, source, range));
    }

    /// The one block of `block_type` (`block`, `block_attrs`): an error when a required one is
    /// missing, and for a second one.
    fn single_block<'c>(&mut self, content: &'c Content, block_type: &str, required: bool) -> Option<&'c Block> {
        let mut found = content.blocks.iter().filter(|b| b.kind == block_type);
        let Some(block) = found.next() else {
            if required {
                self.error(
                    format!("Missing {block_type} block"),
                    format!("A block of type {block_type:?} is required here."),
                    content.source,
                    content.missing,
                );
            }
            return None;
        };
        if let Some(second) = found.next() {
            self.problems.push(
                Problem::error(
                    format!("Duplicate {block_type} block"),
                    format!("Only one block of type {block_type:?} is allowed."),
                    second.body.source,
                    second.def_range,
                )
                .related(block.body.source, block.def_range),
            );
        }
        Some(block)
    }

    fn spec(&mut self, content: &Content, spec: &Spec) -> Value {
        match &spec.kind {
            SpecKind::Object(properties) => {
                Value::Object(properties.iter().map(|(k, s)| (k.clone(), self.spec(content, s))).collect())
            }
            SpecKind::Array(items) => Value::Tuple(items.iter().map(|s| self.spec(content, s)).collect()),
            SpecKind::Attr { name, ty, .. } => {
                let Some(attribute) = content.attributes.get(name) else { return Value::Null(ty.clone()) };
                let (value, problems) = attribute_value(attribute, self.context);
                self.problems.extend(problems);
                match convert(&value, ty) {
                    Ok(v) => v,
                    Err(e) => {
                        self.error(
                            "Incorrect attribute value type".to_owned(),
                            format!("Inappropriate value for attribute {name:?}: {e}."),
                            attribute.source,
                            attribute.expr_range,
                        );
                        Value::Unknown(ty.clone())
                    }
                }
            }
            SpecKind::Block { block_type, required, nested } => match self.single_block(content, block_type, *required)
            {
                Some(block) => self.body(&block.body, nested),
                None => Value::Null(nested.implied_type()),
            },
            SpecKind::BlockList { block_type, min_items, max_items, set, nested } => {
                let blocks: Vec<_> = content.blocks.iter().filter(|b| &b.kind == block_type).collect();
                let values: Vec<Value> = blocks.iter().map(|b| self.body(&b.body, nested)).collect();
                if values.len() < *min_items {
                    self.error(
                        format!("Insufficient {block_type} blocks"),
                        format!("At least {min_items} {block_type:?} blocks are required."),
                        content.source,
                        content.missing,
                    );
                } else if *max_items > 0 && values.len() > *max_items {
                    let (source, range) = source_range(&blocks[*max_items].body, nested);
                    self.error(
                        format!("Too many {block_type} blocks"),
                        format!("No more than {max_items} {block_type:?} blocks are allowed"),
                        source,
                        range,
                    );
                }
                let element = nested.implied_type();
                if values.is_empty() {
                    return if *set { Value::Set(element, Vec::new()) } else { Value::List(element, Vec::new()) };
                }
                let types: Vec<Type> = values.iter().map(Value::ty).collect();
                let (first_source, first_range) = source_range(&blocks[0].body, nested);
                let Some(unified) = unify(&types) else {
                    self.error(
                        format!("Unconsistent argument types in {block_type} blocks"),
                        "Corresponding attributes in all blocks of this type must be the same.".to_owned(),
                        first_source,
                        first_range,
                    );
                    return Value::dynamic();
                };
                let target = if *set { Type::Set(Box::new(unified)) } else { Type::List(Box::new(unified)) };
                match convert(&Value::Tuple(values), &target) {
                    Ok(v) => v,
                    Err(e) => {
                        self.error(
                            format!("Unconsistent argument types in {block_type} blocks"),
                            format!("The blocks have inconsistent argument types: {e}."),
                            first_source,
                            first_range,
                        );
                        Value::dynamic()
                    }
                }
            }
            SpecKind::BlockMap { block_type, labels, nested } => {
                let element = nested.implied_type();
                let mut tree = MapTree::default();
                for block in content.blocks.iter().filter(|b| &b.kind == block_type) {
                    let value = self.body(&block.body, nested);
                    let keys: Vec<String> = block.labels.iter().take(labels.len()).map(|(l, _)| l.clone()).collect();
                    if !tree.insert(&keys, value) {
                        let written: String = block.labels.iter().map(|(l, _)| format!(" {l:?}")).collect();
                        self.error(
                            format!("Duplicate {block_type} block"),
                            format!(
                                "A block for {block_type}{written} was already defined. The {block_type} labels must be unique."
                            ),
                            block.body.source,
                            block.def_range,
                        );
                    }
                }
                if tree.leaves.is_empty() && tree.branches.is_empty() {
                    // As the reference: no blocks is an empty map of the nested type, one level.
                    return Value::Map(element, BTreeMap::new());
                }
                tree.into_value(&element, labels.len())
            }
            SpecKind::BlockAttrs { block_type, element_type, required } => {
                let Some(block) = self.single_block(content, block_type, *required) else {
                    return Value::Null(Type::Map(Box::new(element_type.clone())));
                };
                let (attributes, problems) = block.body.just_attributes();
                self.problems.extend(problems);
                let mut items = BTreeMap::new();
                for attribute in attributes {
                    let (value, problems) = attribute_value(&attribute, self.context);
                    self.problems.extend(problems);
                    let value = match convert(&value, element_type) {
                        Ok(v) => v,
                        Err(e) => {
                            self.error(
                                "Invalid attribute value".to_owned(),
                                format!("Invalid value for attribute of {block_type:?} block: {e}."),
                                attribute.source,
                                attribute.expr_range,
                            );
                            Value::Unknown(element_type.clone())
                        }
                    };
                    items.insert(attribute.name.clone(), value);
                }
                match convert(&Value::Object(items.clone()), &Type::Map(Box::new(element_type.clone()))) {
                    Ok(v) => v,
                    Err(_) => Value::Map(element_type.clone(), items),
                }
            }
            SpecKind::Literal(value) => value.clone(),
            SpecKind::Default(specs) => {
                let mut value = Value::Null(spec.implied_type());
                for candidate in specs {
                    value = self.spec(content, candidate);
                    if !value.is_null() {
                        break;
                    }
                }
                value
            }
            SpecKind::Transform { nested, result } => {
                let before = self.problems.len();
                let nested_value = self.spec(content, nested);
                if super::has_errors(&self.problems[before..]) {
                    return Value::Unknown(spec.implied_type());
                }
                let mut context = spec_context();
                context.variables.insert("nested".to_owned(), nested_value);
                let (value, errors) = result.evaluate(&context);
                for error in errors {
                    // The problem is in the spec's expression: say so, at the configuration's body.
                    self.error(
                        "Transform failed".to_owned(),
                        format!("The spec's transform result failed: {}.", error.message),
                        content.source,
                        content.missing,
                    );
                }
                value
            }
            SpecKind::Invalid => Value::Null(Type::Dynamic),
        }
    }
}

/// Where the value `spec` reads from `body` comes from, for problems about that value as a whole
/// (the reference's `sourceRange`): an attribute's expression, a nested block's, or the body's
/// start.
pub fn source_range(body: &Body, spec: &Spec) -> (Source, TextRange) {
    let (content, _) = body.content(&spec.schema(), true);
    content_source_range(&content, spec)
}

fn content_source_range(content: &Content, spec: &Spec) -> (Source, TextRange) {
    let missing = (content.source, content.missing);
    match &spec.kind {
        SpecKind::Attr { name, .. } => content.attributes.get(name).map_or(missing, |a| (a.source, a.expr_range)),
        SpecKind::Block { block_type, nested, .. }
        | SpecKind::BlockList { block_type, nested, .. }
        | SpecKind::BlockMap { block_type, nested, .. } => {
            content.blocks.iter().find(|b| &b.kind == block_type).map_or(missing, |b| source_range(&b.body, nested))
        }
        SpecKind::BlockAttrs { block_type, .. } => {
            content.blocks.iter().find(|b| &b.kind == block_type).map_or(missing, |b| (b.body.source, b.def_range))
        }
        SpecKind::Default(specs) => specs.first().map_or(missing, |s| content_source_range(content, s)),
        SpecKind::Transform { nested, .. } => content_source_range(content, nested),
        _ => missing,
    }
}

/// Nested maps keyed by block labels, one level per label.
#[derive(Default)]
struct MapTree {
    leaves: BTreeMap<String, Value>,
    branches: BTreeMap<String, MapTree>,
}

impl MapTree {
    /// Adds `value` under `keys`; false when there is one already.
    fn insert(&mut self, keys: &[String], value: Value) -> bool {
        match keys {
            [] => false,
            [last] => {
                if self.leaves.contains_key(last) {
                    return false;
                }
                self.leaves.insert(last.clone(), value);
                true
            }
            [first, rest @ ..] => self.branches.entry(first.clone()).or_default().insert(rest, value),
        }
    }

    fn into_value(self, element: &Type, depth: usize) -> Value {
        let ty = (1..depth).fold(element.clone(), |t, _| Type::Map(Box::new(t)));
        if depth <= 1 {
            Value::Map(ty, self.leaves)
        } else {
            Value::Map(ty, self.branches.into_iter().map(|(k, t)| (k, t.into_value(element, depth - 1))).collect())
        }
    }
}
