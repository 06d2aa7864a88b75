//! Reading a spec file: its one root spec block (with the nested specs), its `variables` and its
//! `function` blocks, with a diagnostic for every mistake (an unknown block type, a nested spec
//! without its name label, a missing `type` or `name`, two specs for one property, a bad type
//! expression, a call to a function a spec cannot call, an argument of the wrong type).
//!
//! Where HashiCorp's `hcldec` misbehaves, this does better: `block_attrs` is accepted (the
//! reference lists it in its documentation but not in its schema), a `default` with one spec is a
//! warning on that spec (the reference crashes), and two specs for one property are an error (the
//! reference keeps the last silently).

use super::{SPEC_BLOCK_TYPES, Spec, SpecExpr, SpecFile, SpecKind, UserFunction, spec_context};
use crate::hcl::{
    eval::{EvalError, evaluate},
    value::{Type, Value},
};
use crate::hcldec::{
    Problem, Source,
    body::{self, Attribute, Body, Expr, Schema},
    functions::NAMES,
    types::type_of,
};
use nacl_syntax::{
    TextRange,
    hcl::{SyntaxKind, SyntaxNode, ast::AstNodeExt},
};
use std::collections::BTreeMap;

/// Reads a parsed spec file (`source` numbers it in the problems).
pub fn load(file: &nacl_syntax::hcl::ast::SourceFile, source: Source) -> (SpecFile, Vec<Problem>) {
    let mut loader = Loader { source, problems: Vec::new() };
    let body = Body::of_file(file, source);
    let mut functions = Vec::new();
    let mut variables = BTreeMap::new();
    let mut spec_blocks = Vec::new();
    for attribute in &body.attributes {
        loader.error(
            "Unsupported argument",
            format!(
                "An argument named {:?} is not expected at the top of a spec file: it holds one spec block, and `variables` and `function` blocks.",
                attribute.name
            ),
            attribute.name_range,
        );
    }
    for block in &body.blocks {
        match block.kind.as_str() {
            "function" => functions.extend(loader.function(block)),
            "variables" => loader.variables(block, &mut variables),
            _ => spec_blocks.push(block),
        }
    }
    let root = match spec_blocks.as_slice() {
        [] => {
            loader.error(
                "Missing spec block",
                "A spec file must have exactly one root block specifying how to map to a JSON value.",
                body.missing,
            );
            Spec::invalid(body.missing)
        }
        [first, rest @ ..] => {
            for extra in rest {
                loader.error(
                    "Extraneous spec block",
                    "A spec file must have exactly one root block specifying how to map to a JSON value.",
                    extra.def_range,
                );
            }
            loader.spec(first, file.syntax(), false)
        }
    };
    (SpecFile { root, variables, functions }, loader.problems)
}

struct Loader {
    source: Source,
    problems: Vec<Problem>,
}

/// The arguments a spec block type takes, and whether it holds nested spec blocks.
fn arguments_of(kind: &str) -> (&'static [&'static str], bool) {
    match kind {
        "object" | "array" | "default" => (&[], true),
        "attr" => (&["name", "type", "required"], false),
        "block" => (&["block_type", "required"], true),
        "block_list" | "block_set" => (&["block_type", "min_items", "max_items"], true),
        "block_map" => (&["block_type", "labels"], true),
        "block_attrs" => (&["block_type", "element_type", "required"], false),
        "literal" => (&["value"], false),
        "transform" => (&["result"], true),
        _ => (&[], false),
    }
}

/// The comments on the lines just above a block, without their markers.
fn doc_comment(root: &SyntaxNode, block_range: TextRange) -> String {
    let Some(block) =
        root.descendants().find(|n| n.kind() == SyntaxKind::BLOCK && n.text_range().start() == block_range.start())
    else {
        return String::new();
    };
    let mut lines = Vec::new();
    let mut newlines = 0;
    let mut at = block.prev_sibling_or_token();
    while let Some(element) = at {
        match element.kind() {
            SyntaxKind::NEWLINE => {
                newlines += 1;
                if newlines > 1 {
                    break;
                }
            }
            SyntaxKind::WHITESPACE => {}
            SyntaxKind::LINE_COMMENT => {
                newlines = 0;
                let text = element.to_string();
                let text = text.trim_start_matches('#').trim_start_matches("//").trim();
                lines.push(text.to_owned());
            }
            _ => break,
        }
        at = element.prev_sibling_or_token();
    }
    lines.reverse();
    lines.join("\n")
}

impl Loader {
    fn error(&mut self, summary: impl Into<String>, detail: impl Into<String>, range: TextRange) {
        self.problems.push(Problem::error(summary, detail, self.source, range));
    }

    fn eval_problems(&mut self, errors: Vec<EvalError>) {
        for error in errors {
            self.error("Invalid expression", error.message, error.range);
        }
    }

    /// Errors for calls of functions a spec cannot call, inside `node`; whether there were any.
    fn check_calls(&mut self, node: &SyntaxNode, allowed: &[String]) -> bool {
        let before = self.problems.len();
        for call in node.descendants().filter(|n| n.kind() == SyntaxKind::CALL) {
            let Some(name) =
                call.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == SyntaxKind::IDENT)
            else {
                continue;
            };
            if NAMES.contains(&name.text()) || allowed.iter().any(|a| a == name.text()) {
                continue;
            }
            let suggestion =
                body::suggest(name.text(), &NAMES).map(|s| format!(" Did you mean {s:?}?")).unwrap_or_default();
            self.error(
                "Call to unknown function",
                format!(
                    "A spec cannot call {:?}: its expressions may call only {}.{suggestion}",
                    name.text(),
                    NAMES.join(", ")
                ),
                name.text_range(),
            );
        }
        self.problems.len() > before
    }

    fn native(attribute: &Attribute) -> Option<&SyntaxNode> {
        match &attribute.expr {
            Expr::Native(node) => Some(node),
            Expr::Json(_) => None,
        }
    }

    /// A constant argument's value converted to `ty`, or an error.
    fn constant(&mut self, attribute: &Attribute, ty: &Type, what: &str) -> Option<Value> {
        let node = Loader::native(attribute)?;
        if self.check_calls(node, &[]) {
            return None;
        }
        let (value, errors) = evaluate(node, &spec_context());
        if !errors.is_empty() {
            self.eval_problems(errors);
            return None;
        }
        match crate::hcl::value::convert(&value, ty) {
            Ok(v) if !v.is_null() || *ty == Type::Dynamic => Some(v),
            Ok(_) => None,
            Err(_) => {
                self.error(
                    "Incorrect attribute value type",
                    format!("Inappropriate value for attribute {:?}: {what} required.", attribute.name),
                    attribute.expr_range,
                );
                None
            }
        }
    }

    fn string_arg(&mut self, attribute: Option<&Attribute>) -> Option<String> {
        match self.constant(attribute?, &Type::String, "string")? {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    fn bool_arg(&mut self, attribute: Option<&Attribute>) -> bool {
        matches!(attribute.and_then(|a| self.constant(a, &Type::Bool, "bool")), Some(Value::Bool(true)))
    }

    fn count_arg(&mut self, attribute: Option<&Attribute>) -> usize {
        let Some(attribute) = attribute else { return 0 };
        match self.constant(attribute, &Type::Number, "whole number") {
            Some(Value::Number(n)) => match n.as_index() {
                Some(count) => count,
                None => {
                    self.error(
                        "Incorrect attribute value type",
                        format!(
                            "Inappropriate value for attribute {:?}: a whole number of at least 0 is required.",
                            attribute.name
                        ),
                        attribute.expr_range,
                    );
                    0
                }
            },
            _ => 0,
        }
    }

    fn type_arg(&mut self, attribute: Option<&Attribute>) -> (Type, Option<TextRange>) {
        let Some(attribute) = attribute else { return (Type::Dynamic, None) };
        let Some(node) = Loader::native(attribute) else { return (Type::Dynamic, None) };
        match type_of(node) {
            Ok(ty) => (ty, Some(attribute.expr_range)),
            Err((range, message)) => {
                self.error("Invalid type expression", message, range);
                (Type::Dynamic, Some(attribute.expr_range))
            }
        }
    }

    /// Reads one spec block. `labelled`: it is an object's property and must have one label.
    fn spec(&mut self, block: &body::Block, root: &SyntaxNode, labelled: bool) -> Spec {
        let range = block.def_range;
        let doc = doc_comment(root, range);
        let kind = block.kind.as_str();
        if !SPEC_BLOCK_TYPES.contains(&kind) {
            let suggestion =
                body::suggest(kind, &SPEC_BLOCK_TYPES).map(|s| format!(" Did you mean {s:?}?")).unwrap_or_default();
            self.error(
                "Invalid spec block",
                format!(
                    "Blocks of type {kind:?} are not expected here: a spec block is one of {}.{suggestion}",
                    SPEC_BLOCK_TYPES.join(", ")
                ),
                block.type_range,
            );
            return Spec { doc, ..Spec::invalid(range) };
        }
        let implied_name = block.labels.first().map(|(l, _)| l.clone());
        let missing_label = labelled && block.labels.is_empty();
        if missing_label {
            self.error(
                format!("Missing name label for {kind}"),
                format!(
                    "A spec inside an object needs a label naming the property it produces: {kind} \"name\" {{ ... }}."
                ),
                block.open_brace,
            );
        } else if !labelled && !block.labels.is_empty() {
            self.error(
                format!("Extraneous label for {kind}"),
                format!("Only the specs of an object's properties have a label; this {kind} is not inside an object."),
                block.labels[0].1,
            );
        } else if block.labels.len() > 1 {
            self.error(
                format!("Extraneous label for {kind}"),
                "A spec inside an object has one label: the property name.",
                block.labels[1].1,
            );
        }
        let (arguments, nests) = arguments_of(kind);
        let schema = Schema {
            attributes: arguments.iter().map(|a| ((*a).to_owned(), false)).collect(),
            blocks: if nests {
                SPEC_BLOCK_TYPES
                    .iter()
                    .map(|t| ((*t).to_owned(), if kind == "object" { vec!["name".to_owned()] } else { Vec::new() }))
                    .collect()
            } else {
                Vec::new()
            },
        };
        // Labels are checked here, with clearer words than a schema's: take the blocks as they are.
        let (mut content, problems) = block.body.content(&Schema { blocks: Vec::new(), ..schema.clone() }, true);
        self.problems.extend(problems);
        content.blocks = block.body.blocks.clone();
        self.unexpected(&block.body, &schema, kind);
        let arg = |name: &str| content.attributes.get(name).map(|a| Attribute::clone(a));
        let nested_blocks = content.blocks.clone();
        let spec_kind = match kind {
            "object" => {
                let mut properties: Vec<(String, Spec)> = Vec::new();
                for nested in &nested_blocks {
                    let spec = self.spec(nested, root, true);
                    let Some((name, name_range)) = nested.labels.first() else { continue };
                    if let Some((_, first)) = properties.iter().find(|(n, _)| n == name) {
                        let first = first.range;
                        self.problems.push(
                            Problem::error(
                                "Duplicate property spec",
                                format!(
                                    "The property {name:?} already has a spec in this object; each property has one."
                                ),
                                self.source,
                                *name_range,
                            )
                            .related(self.source, first),
                        );
                        continue;
                    }
                    properties.push((name.clone(), spec));
                }
                SpecKind::Object(properties)
            }
            "array" => SpecKind::Array(nested_blocks.iter().map(|b| self.spec(b, root, false)).collect()),
            "attr" => {
                let name = self.string_arg(arg("name").as_ref()).or(implied_name);
                let (ty, type_range) = self.type_arg(arg("type").as_ref());
                let required = self.bool_arg(arg("required").as_ref());
                match name {
                    Some(name) if !name.is_empty() => SpecKind::Attr { name, ty, required, type_range },
                    // Already said: the label that names it is missing.
                    _ if missing_label => SpecKind::Invalid,
                    _ => {
                        self.error(
                            "Missing name in attribute spec",
                            "The name attribute is required, to specify the attribute name that is expected in an input HCL file.",
                            block.open_brace,
                        );
                        SpecKind::Invalid
                    }
                }
            }
            "block" | "block_list" | "block_set" | "block_map" => {
                let block_type = self.string_arg(arg("block_type").as_ref()).or(implied_name);
                let nested = self.single_nested(block, &nested_blocks, root);
                let Some(block_type) = block_type.filter(|t| !t.is_empty()) else {
                    if missing_label {
                        return Spec { doc, ..Spec::invalid(range) };
                    }
                    self.error(
                        format!("Missing block_type in {kind} spec"),
                        "The block_type attribute is required, to specify the block type name that is expected in an input HCL file.",
                        block.open_brace,
                    );
                    return Spec { doc, ..Spec::invalid(range) };
                };
                match kind {
                    "block" => SpecKind::Block {
                        block_type,
                        required: self.bool_arg(arg("required").as_ref()),
                        nested: Box::new(nested),
                    },
                    "block_map" => {
                        let labels = self.labels_arg(arg("labels").as_ref(), block.open_brace);
                        if labels.is_empty() {
                            return Spec { doc, ..Spec::invalid(range) };
                        }
                        if has_dynamic(&nested.implied_type()) {
                            self.error(
                                "Invalid block_map spec",
                                "A block_map spec may not contain attributes with type 'any'.",
                                block.type_range,
                            );
                        }
                        SpecKind::BlockMap { block_type, labels, nested: Box::new(nested) }
                    }
                    _ => {
                        let min_items = self.count_arg(arg("min_items").as_ref());
                        let max_items = self.count_arg(arg("max_items").as_ref());
                        if max_items > 0
                            && max_items < min_items
                            && let Some(max) = arg("max_items")
                        {
                            self.error(
                                "Invalid max_items",
                                format!("max_items ({max_items}) must be at least min_items ({min_items})."),
                                max.expr_range,
                            );
                        }
                        SpecKind::BlockList {
                            block_type,
                            min_items,
                            max_items,
                            set: kind == "block_set",
                            nested: Box::new(nested),
                        }
                    }
                }
            }
            "block_attrs" => {
                let block_type = self.string_arg(arg("block_type").as_ref()).or(implied_name);
                let element = arg("element_type");
                if element.is_none() {
                    self.error(
                        "Missing required argument",
                        "The argument \"element_type\" is required, but no definition was found.",
                        block.open_brace,
                    );
                }
                let (element_type, _) = self.type_arg(element.as_ref());
                let required = self.bool_arg(arg("required").as_ref());
                match block_type.filter(|t| !t.is_empty()) {
                    Some(block_type) => SpecKind::BlockAttrs { block_type, element_type, required },
                    None => {
                        self.error(
                            "Missing block_type in block_attrs spec",
                            "The block_type attribute is required, to specify the block type name that is expected in an input HCL file.",
                            block.open_brace,
                        );
                        SpecKind::Invalid
                    }
                }
            }
            "literal" => match arg("value") {
                Some(value) => match self.constant(&value, &Type::Dynamic, "any value") {
                    Some(v) => SpecKind::Literal(v),
                    None => SpecKind::Invalid,
                },
                None => {
                    self.error(
                        "Missing required argument",
                        "The argument \"value\" is required, but no definition was found.",
                        block.open_brace,
                    );
                    SpecKind::Invalid
                }
            },
            "default" => {
                if nested_blocks.is_empty() {
                    self.error(
                        "Missing spec block",
                        "A default block must have at least one nested spec, each specifying a possible outcome.",
                        block.open_brace,
                    );
                    SpecKind::Invalid
                } else {
                    if let [only] = nested_blocks.as_slice() {
                        self.problems.push(Problem::warning(
                            "Useless default block",
                            "A default block with only one spec is equivalent to using that spec alone.",
                            self.source,
                            only.def_range,
                        ));
                    }
                    SpecKind::Default(nested_blocks.iter().map(|b| self.spec(b, root, false)).collect())
                }
            }
            "transform" => {
                let nested = self.single_nested(block, &nested_blocks, root);
                match arg("result").as_ref().and_then(|a| Loader::native(a).cloned()) {
                    Some(node) => {
                        let _ = self.check_calls(&node, &[]);
                        SpecKind::Transform { nested: Box::new(nested), result: SpecExpr::new(&node) }
                    }
                    None => {
                        self.error(
                            "Missing required argument",
                            "The argument \"result\" is required, but no definition was found.",
                            block.open_brace,
                        );
                        SpecKind::Invalid
                    }
                }
            }
            _ => SpecKind::Invalid,
        };
        Spec { kind: spec_kind, range, doc }
    }

    /// Errors for arguments and blocks a spec block type does not take.
    fn unexpected(&mut self, body: &Body, schema: &Schema, kind: &str) {
        let allowed: Vec<&str> = schema.attributes.iter().map(|(n, _)| n.as_str()).collect();
        for attribute in &body.attributes {
            if allowed.contains(&attribute.name.as_str()) {
                continue;
            }
            let suggestion =
                body::suggest(&attribute.name, &allowed).map(|s| format!(" Did you mean {s:?}?")).unwrap_or_default();
            let takes = if allowed.is_empty() { "no arguments".to_owned() } else { allowed.join(", ") };
            self.error(
                "Unsupported argument",
                format!(
                    "An argument named {:?} is not expected here: {kind} takes {takes}.{suggestion}",
                    attribute.name
                ),
                attribute.name_range,
            );
        }
        if schema.blocks.is_empty() {
            for nested in &body.blocks {
                self.error(
                    "Unsupported block type",
                    format!(
                        "{kind} is a leaf spec: it takes no nested blocks, and {:?} is not expected here.",
                        nested.kind
                    ),
                    nested.type_range,
                );
            }
        }
    }

    fn labels_arg(&mut self, attribute: Option<&Attribute>, open_brace: TextRange) -> Vec<String> {
        let labels = match attribute {
            Some(a) => match self.constant(a, &Type::List(Box::new(Type::String)), "list of string") {
                Some(Value::List(_, items)) => {
                    items.into_iter().filter_map(|v| if let Value::String(s) = v { Some(s) } else { None }).collect()
                }
                _ => return Vec::new(),
            },
            None => Vec::new(),
        };
        if labels.is_empty() {
            self.error(
                "Invalid block label name list",
                "A block_map must have at least one label specified: labels = [\"name\"].",
                attribute.map_or(open_brace, |a| a.expr_range),
            );
        }
        labels
    }

    /// The one nested spec of a `block`-like or `transform` spec.
    fn single_nested(&mut self, block: &body::Block, nested: &[std::rc::Rc<body::Block>], root: &SyntaxNode) -> Spec {
        match nested {
            [] => {
                self.error(
                    "Missing spec block",
                    format!(
                        "A {} spec must have exactly one nested spec saying what the block's body becomes.",
                        block.kind
                    ),
                    block.open_brace,
                );
                Spec::invalid(block.def_range)
            }
            [first, rest @ ..] => {
                for extra in rest {
                    self.error(
                        "Extraneous spec block",
                        format!("A {} spec must have exactly one nested spec.", block.kind),
                        extra.def_range,
                    );
                }
                self.spec(first, root, false)
            }
        }
    }

    fn variables(&mut self, block: &body::Block, out: &mut BTreeMap<String, Value>) {
        let (attributes, problems) = block.body.just_attributes();
        self.problems.extend(problems);
        for attribute in attributes {
            if let Some(value) = self.constant(&attribute, &Type::Dynamic, "any value") {
                out.insert(attribute.name.clone(), value);
            }
        }
    }

    fn function(&mut self, block: &body::Block) -> Option<UserFunction> {
        let Some((name, _)) = block.labels.first() else {
            self.error(
                "Missing name for function",
                "A function block has one label: its name, function \"name\" { ... }.",
                block.open_brace,
            );
            return None;
        };
        let schema = Schema {
            attributes: vec![
                ("params".to_owned(), true),
                ("variadic_param".to_owned(), false),
                ("result".to_owned(), true),
            ],
            blocks: Vec::new(),
        };
        let (content, problems) = block.body.content(&schema, false);
        self.problems.extend(problems);
        let mut params = Vec::new();
        if let Some(list) = content.attributes.get("params").and_then(|a| Loader::native(a).cloned()) {
            match crate::hcl::statics::static_list(&list) {
                Some(items) => {
                    for item in items {
                        match crate::hcl::statics::keyword(&item) {
                            Some(p) => params.push(p),
                            None => self.error(
                                "Invalid parameter name",
                                "A parameter is a bare name: params = [a, b].",
                                item.text_range(),
                            ),
                        }
                    }
                }
                None => self.error(
                    "Invalid parameter list",
                    "params is a list of bare names: params = [a, b].",
                    list.text_range(),
                ),
            }
        }
        let variadic = content.attributes.get("variadic_param").and_then(|a| {
            let node = Loader::native(a)?;
            let name = crate::hcl::statics::keyword(node);
            if name.is_none() {
                self.error(
                    "Invalid parameter name",
                    "variadic_param is a bare name: variadic_param = rest.",
                    a.expr_range,
                );
            }
            name
        });
        let result = content.attributes.get("result").and_then(|a| Loader::native(a).cloned());
        if let Some(node) = &result {
            let _ = self.check_calls(node, &[]);
        }
        Some(UserFunction {
            name: name.clone(),
            range: block.def_range,
            params,
            variadic,
            result: result.as_ref().map(SpecExpr::new),
        })
    }
}

fn has_dynamic(ty: &Type) -> bool {
    match ty {
        Type::Dynamic => true,
        Type::List(e) | Type::Set(e) | Type::Map(e) => has_dynamic(e),
        Type::Object(attributes) => attributes.values().any(has_dynamic),
        Type::Tuple(elements) => elements.iter().any(has_dynamic),
        _ => false,
    }
}
