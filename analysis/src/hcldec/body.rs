//! Bodies as a schema sees them: the attributes and blocks of one level of an HCL file (native
//! syntax or JSON), and picking out what a schema asks for with the diagnostics HCL's
//! `Body.Content` gives (an unsupported argument or block type, a missing required argument, a
//! block with too many or too few labels, the same argument in two merged files).

use super::{Problem, Source};
use crate::hcl::eval::label_value;
use nacl_syntax::{
    TextRange, TextSize,
    hcl::{
        SyntaxNode,
        ast::{self, AstNodeExt, BodyItem},
    },
};
use std::{collections::BTreeMap, rc::Rc};

/// Where an attribute's value comes from.
#[derive(Clone, Debug)]
pub enum Expr {
    /// An expression of a native-syntax file.
    Native(SyntaxNode),
    /// A value of a JSON file.
    Json(serde_json::Value),
}

/// An attribute: `name = value`.
#[derive(Clone, Debug)]
pub struct Attribute {
    /// Its name.
    pub name: String,
    /// Where the name is.
    pub name_range: TextRange,
    /// Its value.
    pub expr: Expr,
    /// Where the value is.
    pub expr_range: TextRange,
    /// The file it is in.
    pub source: Source,
}

/// A block: `type "label"... { body }`.
#[derive(Clone, Debug)]
pub struct Block {
    /// Its type.
    pub kind: String,
    /// Where the type is.
    pub type_range: TextRange,
    /// Its labels' values and ranges.
    pub labels: Vec<(String, TextRange)>,
    /// The opening brace.
    pub open_brace: TextRange,
    /// The header, type to last label: where problems with the block as a whole are shown.
    pub def_range: TextRange,
    /// Its content.
    pub body: Body,
}

/// A place in a file.
pub type Place = (Source, TextRange);

/// An attribute set twice: its name, where it is set again, and where first.
pub type Duplicate = (String, Place, Place);

/// One level of a file: attributes and blocks in order, and where a missing item is reported.
#[derive(Clone, Debug, Default)]
pub struct Body {
    /// The attributes, in order.
    pub attributes: Vec<Rc<Attribute>>,
    /// The blocks, in order.
    pub blocks: Vec<Rc<Block>>,
    /// An empty range at the body's start (a block's opening brace, a file's first byte).
    pub missing: TextRange,
    /// The file it is in.
    pub source: Source,
    /// Attributes set twice.
    pub duplicates: Vec<Duplicate>,
}

/// What a body is asked for.
#[derive(Clone, Debug, Default)]
pub struct Schema {
    /// Attribute names, and whether each is required.
    pub attributes: Vec<(String, bool)>,
    /// Block types and the names of their labels.
    pub blocks: Vec<(String, Vec<String>)>,
}

/// What a schema picked out of a body.
#[derive(Clone, Debug, Default)]
pub struct Content {
    /// The attributes asked for, by name.
    pub attributes: BTreeMap<String, Rc<Attribute>>,
    /// The blocks asked for (with the right number of labels), in order.
    pub blocks: Vec<Rc<Block>>,
    /// Where a missing item is reported.
    pub missing: TextRange,
    /// The file.
    pub source: Source,
}

fn empty_at(offset: TextSize) -> TextRange {
    TextRange::empty(offset)
}

impl Body {
    /// The top-level body of a native-syntax file.
    pub fn of_file(file: &ast::SourceFile, source: Source) -> Body {
        Body::from_items(file.items(), empty_at(0.into()), source)
    }

    fn from_items(items: impl Iterator<Item = BodyItem>, missing: TextRange, source: Source) -> Body {
        let mut body = Body { missing, source, ..Body::default() };
        let mut seen: BTreeMap<String, TextRange> = BTreeMap::new();
        for item in items {
            match item {
                BodyItem::Attribute(attribute) => {
                    let (Some(name), Some(value)) = (attribute.name(), attribute.value()) else { continue };
                    let text = name.text().to_owned();
                    if let Some(first) = seen.get(&text) {
                        body.duplicates.push((text, (source, name.text_range()), (source, *first)));
                        continue;
                    }
                    seen.insert(text.clone(), name.text_range());
                    body.attributes.push(Rc::new(Attribute {
                        name: text,
                        name_range: name.text_range(),
                        expr_range: value.text_range(),
                        expr: Expr::Native(value),
                        source,
                    }));
                }
                BodyItem::Block(block) => {
                    let Some(kind) = block.type_name() else { continue };
                    let Some(inner) = block.body() else { continue };
                    let open = inner.syntax().first_token().map_or(inner.syntax().text_range(), |t| t.text_range());
                    let labels: Vec<(String, TextRange)> =
                        block.labels().iter().map(|l| (label_value(l), l.range())).collect();
                    let header_end = labels.last().map_or(kind.text_range().end(), |(_, r)| r.end());
                    body.blocks.push(Rc::new(Block {
                        kind: kind.text().to_owned(),
                        type_range: kind.text_range(),
                        labels,
                        open_brace: open,
                        def_range: TextRange::new(kind.text_range().start(), header_end),
                        body: Body::from_items(inner.items(), empty_at(open.start()), source),
                    }));
                }
            }
        }
        body
    }

    /// The top-level body of a JSON file: its object's properties, which the schema makes
    /// attributes or blocks (ranges are the whole file: JSON values carry no positions here).
    pub fn of_json(value: serde_json::Value, whole: TextRange, source: Source) -> Result<Body, String> {
        match value {
            serde_json::Value::Object(_) => Ok(Body {
                attributes: Vec::new(),
                blocks: Vec::new(),
                missing: empty_at(whole.start()),
                source,
                duplicates: Vec::new(),
            }
            .with_json(value, whole)),
            _ => Err("the root of a JSON configuration must be an object".to_owned()),
        }
    }

    fn with_json(mut self, value: serde_json::Value, whole: TextRange) -> Body {
        if let serde_json::Value::Object(properties) = value {
            for (name, value) in properties {
                self.attributes.push(Rc::new(Attribute {
                    name,
                    name_range: whole,
                    expr: Expr::Json(value),
                    expr_range: whole,
                    source: self.source,
                }));
            }
        }
        self
    }

    /// JSON properties the schema names as blocks become blocks: an object (or an array of
    /// objects) per block, one level of object keys per label.
    fn json_blocks(&mut self, schema: &Schema) {
        let wanted: BTreeMap<&str, usize> =
            schema.blocks.iter().map(|(k, labels)| (k.as_str(), labels.len())).collect();
        let mut kept = Vec::new();
        for attribute in std::mem::take(&mut self.attributes) {
            let (Some(&labels), Expr::Json(value)) = (wanted.get(attribute.name.as_str()), &attribute.expr) else {
                kept.push(attribute);
                continue;
            };
            let mut found = Vec::new();
            json_block_bodies(value, labels, Vec::new(), &mut found);
            for (labels, body) in found {
                let whole = attribute.expr_range;
                self.blocks.push(Rc::new(Block {
                    kind: attribute.name.clone(),
                    type_range: attribute.name_range,
                    labels: labels.into_iter().map(|l| (l, whole)).collect(),
                    open_brace: whole,
                    def_range: whole,
                    body: Body { missing: empty_at(whole.start()), source: self.source, ..Body::default() }
                        .with_json(body, whole),
                }));
            }
        }
        self.attributes = kept;
    }

    /// What `schema` picks out: the named attributes and blocks, with a diagnostic for each
    /// required attribute missing and each block with the wrong number of labels. With
    /// `partial`, other items are left alone; otherwise each is an error.
    pub fn content(&self, schema: &Schema, partial: bool) -> (Content, Vec<Problem>) {
        // A JSON body's blocks depend on the schema: convert a copy (it shares the items).
        let converted;
        let body = if self.attributes.iter().any(|a| matches!(a.expr, Expr::Json(_))) {
            let mut copy = self.clone();
            copy.json_blocks(schema);
            converted = copy;
            &converted
        } else {
            self
        };
        let mut problems = Vec::new();
        problems.extend(body.duplicate_problems());
        let mut content = Content { missing: body.missing, source: body.source, ..Content::default() };
        for (name, required) in &schema.attributes {
            match body.attributes.iter().find(|a| &a.name == name) {
                Some(attribute) => {
                    content.attributes.insert(name.clone(), attribute.clone());
                }
                None if *required => problems.push(Problem::error(
                    "Missing required argument",
                    format!("The argument {name:?} is required, but no definition was found."),
                    body.source,
                    body.missing,
                )),
                None => {}
            }
        }
        for block in &body.blocks {
            let Some((_, label_names)) = schema.blocks.iter().find(|(k, _)| *k == block.kind) else { continue };
            if block.labels.len() > label_names.len() {
                let detail = if label_names.is_empty() {
                    format!("No labels are expected for {} blocks.", block.kind)
                } else {
                    format!(
                        "Only {} labels ({}) are expected for {} blocks.",
                        label_names.len(),
                        label_names.join(", "),
                        block.kind
                    )
                };
                let at = block.labels[label_names.len()].1;
                problems.push(Problem::error(format!("Extraneous label for {}", block.kind), detail, body.source, at));
                continue;
            }
            if block.labels.len() < label_names.len() {
                problems.push(Problem::error(
                    format!("Missing {} for {}", label_names[block.labels.len()], block.kind),
                    format!(
                        "All {} blocks must have {} labels ({}).",
                        block.kind,
                        label_names.len(),
                        label_names.join(", ")
                    ),
                    body.source,
                    block.open_brace,
                ));
                continue;
            }
            content.blocks.push(block.clone());
        }
        if !partial {
            problems.extend(body.unexpected(schema, &content));
        }
        (content, problems)
    }

    /// An error for each attribute and block `schema` does not name, with a suggestion.
    fn unexpected(&self, schema: &Schema, content: &Content) -> Vec<Problem> {
        let mut problems = Vec::new();
        for attribute in &self.attributes {
            if schema.attributes.iter().any(|(n, _)| *n == attribute.name) {
                continue;
            }
            let candidates: Vec<&str> = schema
                .attributes
                .iter()
                .map(|(n, _)| n.as_str())
                .filter(|n| !content.attributes.contains_key(*n))
                .collect();
            let suggestion = match suggest(&attribute.name, &candidates) {
                Some(s) => format!(" Did you mean {s:?}?"),
                None if schema.blocks.iter().any(|(k, _)| *k == attribute.name) => {
                    format!(" Did you mean to define a block of type {:?}?", attribute.name)
                }
                None => String::new(),
            };
            problems.push(Problem::error(
                "Unsupported argument",
                format!("An argument named {:?} is not expected here.{suggestion}", attribute.name),
                self.source,
                attribute.name_range,
            ));
        }
        for block in &self.blocks {
            if schema.blocks.iter().any(|(k, _)| *k == block.kind) {
                continue;
            }
            let candidates: Vec<&str> = schema.blocks.iter().map(|(k, _)| k.as_str()).collect();
            let suggestion = match suggest(&block.kind, &candidates) {
                Some(s) => format!(" Did you mean {s:?}?"),
                None if schema.attributes.iter().any(|(n, _)| *n == block.kind) => format!(
                    " Did you mean to define argument {:?}? If so, use the equals sign to assign it a value.",
                    block.kind
                ),
                None => String::new(),
            };
            problems.push(Problem::error(
                "Unsupported block type",
                format!("Blocks of type {:?} are not expected here.{suggestion}", block.kind),
                self.source,
                block.type_range,
            ));
        }
        problems
    }

    /// An error for each attribute set twice.
    fn duplicate_problems(&self) -> Vec<Problem> {
        self.duplicates
            .iter()
            .map(|(name, (source, at), (first_source, first))| {
                Problem::error(
                    "Duplicate argument",
                    format!("The argument {name:?} was already set. Each argument may be set only once."),
                    *source,
                    *at,
                )
                .related(*first_source, *first)
            })
            .collect()
    }

    /// All attributes, for a block read as a map (`block_attrs`, `variables`): an error for the
    /// first block inside, if any.
    pub fn just_attributes(&self) -> (Vec<Rc<Attribute>>, Vec<Problem>) {
        let mut problems = Vec::new();
        if let Some(block) = self.blocks.first() {
            problems.push(Problem::error(
                format!("Unexpected {:?} block", block.kind),
                "Blocks are not allowed here.",
                self.source,
                block.type_range,
            ));
        }
        problems.extend(self.duplicate_problems());
        (self.attributes.clone(), problems)
    }

    /// Several files' bodies read as one: attributes and blocks of all, in order; an attribute set
    /// in two files is an error.
    pub fn merge(bodies: Vec<Body>) -> Body {
        let mut merged = Body::default();
        let mut seen: BTreeMap<String, Place> = BTreeMap::new();
        for (i, body) in bodies.into_iter().enumerate() {
            if i == 0 {
                merged.missing = body.missing;
                merged.source = body.source;
            }
            merged.duplicates.extend(body.duplicates);
            for attribute in body.attributes {
                if let Some(first) = seen.get(&attribute.name) {
                    merged.duplicates.push((attribute.name.clone(), (attribute.source, attribute.name_range), *first));
                    continue;
                }
                seen.insert(attribute.name.clone(), (attribute.source, attribute.name_range));
                merged.attributes.push(attribute);
            }
            merged.blocks.extend(body.blocks);
        }
        merged
    }
}

fn json_block_bodies(
    value: &serde_json::Value,
    labels: usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, serde_json::Value)>,
) {
    match value {
        serde_json::Value::Array(items) => {
            for item in items {
                json_block_bodies(item, labels, prefix.clone(), out);
            }
        }
        serde_json::Value::Object(properties) if prefix.len() < labels => {
            for (key, inner) in properties {
                let mut next = prefix.clone();
                next.push(key.clone());
                json_block_bodies(inner, labels, next, out);
            }
        }
        serde_json::Value::Object(_) => out.push((prefix, value.clone())),
        _ => {}
    }
}

/// The candidate closest to `name` when it is close enough to be a likely typo (as HCL suggests:
/// a Levenshtein distance under 3).
pub fn suggest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (strsim::levenshtein(name, c), *c))
        .filter(|(d, _)| *d < 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}
