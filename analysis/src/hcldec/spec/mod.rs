//! Spec files: the model of what a spec file says (its root [`Spec`], `variables` and `function`
//! blocks), the types and schemas specs imply, and the contexts expressions are evaluated in. Reading
//! a spec file into the model, with its diagnostics, is [`load`]'s.

mod load;

pub use load::load;

use super::{body::Schema, functions::spec_functions};
use crate::hcl::{
    eval::{Context, EvalError, Function, Param, evaluate},
    value::{Type, Value},
};
use nacl_syntax::{TextRange, hcl::SyntaxNode, rowan::GreenNode};
use std::{collections::BTreeMap, sync::Arc};

/// The spec block types, in the order the documentation gives them.
pub const SPEC_BLOCK_TYPES: [&str; 11] = [
    "object",
    "array",
    "attr",
    "block",
    "block_list",
    "block_set",
    "block_map",
    "block_attrs",
    "literal",
    "default",
    "transform",
];

/// An expression of the spec file, kept to be evaluated later (a `transform`'s `result`, a
/// function's body). It holds the file's green tree, so it can cross threads.
#[derive(Clone, Debug)]
pub struct SpecExpr {
    root: GreenNode,
    range: TextRange,
}

impl SpecExpr {
    fn new(node: &SyntaxNode) -> SpecExpr {
        let root = node.ancestors().last().unwrap_or_else(|| node.clone());
        SpecExpr { root: root.green().into_owned(), range: node.text_range() }
    }

    /// The expression's node, in a tree of its own.
    pub fn node(&self) -> Option<SyntaxNode> {
        let root = SyntaxNode::new_root(self.root.clone());
        let element = root.covering_element(self.range);
        let start = match element {
            nacl_syntax::rowan::NodeOrToken::Node(n) => n,
            nacl_syntax::rowan::NodeOrToken::Token(t) => t.parent()?,
        };
        start.ancestors().find(|n| n.text_range() == self.range && crate::hcl::eval::is_expression(n))
    }

    /// Where it is in the spec file.
    pub fn range(&self) -> TextRange {
        self.range
    }

    /// Its value in `context`.
    pub fn evaluate(&self, context: &Context) -> (Value, Vec<EvalError>) {
        match self.node() {
            Some(node) => evaluate(&node, context),
            None => (Value::dynamic(), Vec::new()),
        }
    }
}

/// One spec: what it does, and where it is written.
#[derive(Clone, Debug)]
pub struct Spec {
    /// What it does.
    pub kind: SpecKind,
    /// The block's header (type and labels), for messages and navigation.
    pub range: TextRange,
    /// The comments written just above the block, for hover.
    pub doc: String,
}

/// What a spec does.
#[derive(Clone, Debug)]
pub enum SpecKind {
    /// An object of the nested specs' results, by property name.
    Object(Vec<(String, Spec)>),
    /// A tuple of the nested specs' results.
    Array(Vec<Spec>),
    /// The value of an attribute.
    Attr {
        /// The attribute's name in the configuration.
        name: String,
        /// The type it is converted to.
        ty: Type,
        /// Whether it must be there.
        required: bool,
        /// Where the `type` argument is, if written.
        type_range: Option<TextRange>,
    },
    /// The nested spec applied to one block's body.
    Block {
        /// The block type in the configuration.
        block_type: String,
        /// Whether the block must be there.
        required: bool,
        /// What the block's body becomes.
        nested: Box<Spec>,
    },
    /// A list (or, with `set`, a set) of the nested spec applied to each block of a type.
    BlockList {
        /// The block type.
        block_type: String,
        /// The fewest blocks allowed.
        min_items: usize,
        /// The most blocks allowed (0: no limit).
        max_items: usize,
        /// Whether the result is a set.
        set: bool,
        /// What each block's body becomes.
        nested: Box<Spec>,
    },
    /// Maps keyed by the blocks' labels of the nested spec applied to each block.
    BlockMap {
        /// The block type.
        block_type: String,
        /// The names of the labels, one level of map each.
        labels: Vec<String>,
        /// What each block's body becomes.
        nested: Box<Spec>,
    },
    /// A map of a block's attributes.
    BlockAttrs {
        /// The block type.
        block_type: String,
        /// The type of every attribute.
        element_type: Type,
        /// Whether the block must be there.
        required: bool,
    },
    /// A fixed value.
    Literal(Value),
    /// The first spec whose result is not null.
    Default(Vec<Spec>),
    /// An expression of the nested spec's result (`nested`).
    Transform {
        /// The spec whose result the expression reads.
        nested: Box<Spec>,
        /// The expression.
        result: SpecExpr,
    },
    /// A spec that could not be read: null.
    Invalid,
}

/// A custom function of the spec file.
#[derive(Clone, Debug)]
pub struct UserFunction {
    /// Its name.
    pub name: String,
    /// Where its block's header is.
    pub range: TextRange,
    /// Its parameters' names.
    pub params: Vec<String>,
    /// The variadic parameter's name, if any.
    pub variadic: Option<String>,
    /// Its body.
    pub result: Option<SpecExpr>,
}

/// What a spec file says.
#[derive(Clone, Debug)]
pub struct SpecFile {
    /// The root spec.
    pub root: Spec,
    /// The predefined variables (`variables` blocks).
    pub variables: BTreeMap<String, Value>,
    /// The custom functions (`function` blocks), callable from configurations.
    pub functions: Vec<UserFunction>,
}

impl Spec {
    fn invalid(range: TextRange) -> Spec {
        Spec { kind: SpecKind::Invalid, range, doc: String::new() }
    }

    /// The type decoding gives (the implied type).
    pub fn implied_type(&self) -> Type {
        match &self.kind {
            SpecKind::Object(properties) => {
                Type::Object(properties.iter().map(|(k, s)| (k.clone(), s.implied_type())).collect())
            }
            SpecKind::Array(items) => Type::Tuple(items.iter().map(Spec::implied_type).collect()),
            SpecKind::Attr { ty, .. } => ty.clone(),
            SpecKind::Block { nested, .. } => nested.implied_type(),
            SpecKind::BlockList { nested, set: false, .. } => Type::List(Box::new(nested.implied_type())),
            SpecKind::BlockList { nested, set: true, .. } => Type::Set(Box::new(nested.implied_type())),
            SpecKind::BlockMap { nested, labels, .. } => {
                labels.iter().fold(nested.implied_type(), |t, _| Type::Map(Box::new(t)))
            }
            SpecKind::BlockAttrs { element_type, .. } => Type::Map(Box::new(element_type.clone())),
            SpecKind::Literal(value) => value.ty(),
            SpecKind::Default(specs) => specs.first().map_or(Type::Dynamic, Spec::implied_type),
            SpecKind::Transform { nested, result } => {
                let mut context = spec_context();
                context.variables.insert("nested".to_owned(), Value::Unknown(nested.implied_type()));
                result.evaluate(&context).0.ty()
            }
            SpecKind::Invalid => Type::Dynamic,
        }
    }

    /// The specs that read the same body as this one (an object's properties, a default's
    /// candidates, a transform's nested spec), not those of nested blocks.
    pub fn same_body_children(&self) -> Vec<&Spec> {
        match &self.kind {
            SpecKind::Object(properties) => properties.iter().map(|(_, s)| s).collect(),
            SpecKind::Array(items) | SpecKind::Default(items) => items.iter().collect(),
            SpecKind::Transform { nested, .. } => vec![nested],
            _ => Vec::new(),
        }
    }

    /// The spec applied to the body of the blocks this spec reads, if it reads blocks.
    pub fn nested_block_spec(&self) -> Option<&Spec> {
        match &self.kind {
            SpecKind::Block { nested, .. } | SpecKind::BlockList { nested, .. } | SpecKind::BlockMap { nested, .. } => {
                Some(nested)
            }
            _ => None,
        }
    }

    /// The block type this spec reads, if it reads blocks.
    pub fn block_type(&self) -> Option<&str> {
        match &self.kind {
            SpecKind::Block { block_type, .. }
            | SpecKind::BlockList { block_type, .. }
            | SpecKind::BlockMap { block_type, .. }
            | SpecKind::BlockAttrs { block_type, .. } => Some(block_type),
            _ => None,
        }
    }

    /// What the body this spec reads is asked for: the attributes and blocks of every spec that
    /// reads it.
    pub fn schema(&self) -> Schema {
        let mut schema = Schema::default();
        self.add_to_schema(&mut schema);
        schema
    }

    fn add_to_schema(&self, schema: &mut Schema) {
        match &self.kind {
            SpecKind::Attr { name, required, .. } => {
                match schema.attributes.iter_mut().find(|(n, _)| n == name) {
                    Some((_, r)) => *r |= *required,
                    None => schema.attributes.push((name.clone(), *required)),
                }
                return;
            }
            SpecKind::BlockMap { block_type, labels, .. } => {
                schema.blocks.push((block_type.clone(), labels.clone()));
                return;
            }
            SpecKind::Block { block_type, .. }
            | SpecKind::BlockList { block_type, .. }
            | SpecKind::BlockAttrs { block_type, .. } => {
                schema.blocks.push((block_type.clone(), Vec::new()));
                return;
            }
            _ => {}
        }
        for child in self.same_body_children() {
            child.add_to_schema(schema);
        }
    }
}

/// The context spec expressions are evaluated in: the spec definition functions, no variables.
pub fn spec_context() -> Context {
    static FUNCTIONS: std::sync::LazyLock<Arc<BTreeMap<String, Function>>> =
        std::sync::LazyLock::new(|| Arc::new(spec_functions()));
    Context { variables: BTreeMap::new(), functions: FUNCTIONS.clone() }
}

/// The context configurations are evaluated in: the spec's variables (then `extra`, which wins)
/// and its custom functions.
pub fn input_context(spec: &SpecFile, extra: &BTreeMap<String, Value>) -> Context {
    let mut variables = spec.variables.clone();
    variables.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
    let functions = spec.functions.iter().map(|f| (f.name.clone(), user_function(f))).collect();
    Context { variables, functions: Arc::new(functions) }
}

fn user_function(f: &UserFunction) -> Function {
    let params: Vec<Param> =
        f.params.iter().map(|p| Param { name: p.clone(), ty: Type::Dynamic, allow_null: true }).collect();
    let variadic = f.variadic.as_ref().map(|p| Param { name: p.clone(), ty: Type::Dynamic, allow_null: true });
    let names = f.params.clone();
    let rest = f.variadic.clone();
    let result = f.result.clone();
    Function {
        params,
        variadic,
        returns: Type::Dynamic,
        implementation: Arc::new(move |args: &[Value]| {
            let mut context = spec_context();
            for (name, value) in names.iter().zip(args) {
                context.variables.insert(name.clone(), value.clone());
            }
            if let Some(rest) = &rest {
                context.variables.insert(rest.clone(), Value::Tuple(args.iter().skip(names.len()).cloned().collect()));
            }
            let Some(result) = &result else { return Ok(Value::dynamic()) };
            let (value, errors) = result.evaluate(&context);
            match errors.first() {
                Some(error) => Err(error.message.clone()),
                None => Ok(value),
            }
        }),
    }
}
