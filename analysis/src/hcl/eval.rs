//! Evaluating HCL expressions: the value of an expression given variables and functions, with the
//! semantics of `hcl-native-syntax.md` and `hcl-information-model.md` (operators with their
//! conversions, templates with directives and strip markers, heredocs, collections, `for`
//! expressions, splats, traversals, calls with `...` expansion, conditionals with unification).
//!
//! Evaluation never stops at the first problem: an erroneous part evaluates to the dynamic value and
//! an [`EvalError`] with its range is recorded, so one mistake does not hide the next.

use super::value::{Number, Type, Value, convert, unify};
use nacl_syntax::{
    TextRange,
    hcl::{SyntaxKind::*, SyntaxNode, SyntaxToken},
    rowan,
};
use std::{collections::BTreeMap, sync::Arc};
use unicode_segmentation::UnicodeSegmentation;

/// A parameter of a function.
#[derive(Clone, Debug)]
pub struct Param {
    /// Its name, for messages.
    pub name: String,
    /// The type arguments are converted to (`Type::Dynamic` for any).
    pub ty: Type,
    /// Whether a null argument is accepted.
    pub allow_null: bool,
}

/// What a function computes from its (converted) arguments.
pub type Implementation = Arc<dyn Fn(&[Value]) -> Result<Value, String> + Send + Sync>;

/// A function the evaluated expressions may call.
#[derive(Clone)]
pub struct Function {
    /// Positional parameters.
    pub params: Vec<Param>,
    /// The parameter that collects further arguments, if any.
    pub variadic: Option<Param>,
    /// The result's type, known before the arguments are (`Type::Dynamic` when it depends on
    /// them): the type of the unknown result of a call with unknown arguments.
    pub returns: Type,
    /// The result for known arguments.
    pub implementation: Implementation,
}

/// What expressions are evaluated in: the variables and functions in scope.
#[derive(Clone, Default)]
pub struct Context {
    /// Variables by name.
    pub variables: BTreeMap<String, Value>,
    /// Functions by name (shared: contexts are cheap to copy).
    pub functions: Arc<BTreeMap<String, Function>>,
}

/// A problem found while evaluating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    /// Where.
    pub range: TextRange,
    /// What is wrong.
    pub message: String,
}

/// Evaluates the expression `node` in `context`: its value, and the problems found.
pub fn evaluate(node: &SyntaxNode, context: &Context) -> (Value, Vec<EvalError>) {
    let mut evaluator = Evaluator { context, scopes: Vec::new(), errors: Vec::new() };
    let value = evaluator.expr(node);
    (value, evaluator.errors)
}

/// Whether a node is an expression.
pub fn is_expression(node: &SyntaxNode) -> bool {
    matches!(
        node.kind(),
        LITERAL
            | TEMPLATE
            | HEREDOC
            | VARIABLE
            | CALL
            | TUPLE
            | OBJECT
            | FOR_EXPR
            | PAREN_EXPR
            | GET_ATTR
            | INDEX
            | SPLAT
            | UNARY_EXPR
            | BINARY_EXPR
            | CONDITIONAL
    )
}

/// The expression children of a node, in order.
pub fn expressions(node: &SyntaxNode) -> Vec<SyntaxNode> {
    node.children().filter(is_expression).collect()
}

fn tokens(node: &SyntaxNode) -> impl Iterator<Item = SyntaxToken> + use<> {
    node.children_with_tokens().filter_map(|e| e.into_token())
}

struct Evaluator<'c> {
    context: &'c Context,
    /// Variables of `for` expressions and directives, innermost last.
    scopes: Vec<BTreeMap<String, Value>>,
    errors: Vec<EvalError>,
}

/// A step of a traversal after its base.
enum Step {
    Attr(SyntaxNode),
    Index(SyntaxNode),
    Splat { full: bool },
}

impl Evaluator<'_> {
    fn error(&mut self, range: TextRange, message: impl Into<String>) -> Value {
        self.errors.push(EvalError { range, message: message.into() });
        Value::dynamic()
    }

    fn expr(&mut self, node: &SyntaxNode) -> Value {
        match node.kind() {
            LITERAL => self.literal(node),
            VARIABLE => self.variable(node),
            PAREN_EXPR => match expressions(node).first() {
                Some(inner) => self.expr(inner),
                None => Value::dynamic(),
            },
            TEMPLATE | HEREDOC => self.template(node),
            TUPLE => Value::Tuple(expressions(node).iter().map(|e| self.expr(e)).collect()),
            OBJECT => self.object(node),
            FOR_EXPR => self.for_expr(node),
            CALL => self.call(node),
            UNARY_EXPR => self.unary(node),
            BINARY_EXPR => self.binary(node),
            CONDITIONAL => self.conditional(node),
            GET_ATTR | INDEX | SPLAT => self.traversal(node),
            _ => self.error(node.text_range(), "not an expression"),
        }
    }

    fn literal(&mut self, node: &SyntaxNode) -> Value {
        let Some(token) = tokens(node).find(|t| matches!(t.kind(), NUMBER | IDENT)) else { return Value::dynamic() };
        match token.text() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" => Value::Null(Type::Dynamic),
            text => match Number::parse(text) {
                Some(n) => Value::Number(n),
                None => self.error(token.text_range(), format!("`{text}` is not a number")),
            },
        }
    }

    fn lookup(&self, name: &str) -> Option<Value> {
        self.scopes.iter().rev().find_map(|s| s.get(name)).or_else(|| self.context.variables.get(name)).cloned()
    }

    fn variable(&mut self, node: &SyntaxNode) -> Value {
        let Some(token) = tokens(node).find(|t| t.kind() == IDENT) else { return Value::dynamic() };
        match self.lookup(token.text()) {
            Some(value) => value,
            None => {
                let mut known: Vec<&str> = self.context.variables.keys().map(String::as_str).collect();
                known.extend(self.scopes.iter().flat_map(|s| s.keys().map(String::as_str)));
                let hint = if known.is_empty() { String::new() } else { format!(" (known: {})", known.join(", ")) };
                self.error(token.text_range(), format!("there is no variable named `{}`{hint}", token.text()))
            }
        }
    }

    // ---- Traversals -------------------------------------------------------------------------

    fn traversal(&mut self, node: &SyntaxNode) -> Value {
        // Flatten `base.a[0].*.b` into its base and steps, innermost first.
        let mut steps = Vec::new();
        let mut at = node.clone();
        loop {
            let step = match at.kind() {
                GET_ATTR => Step::Attr(at.clone()),
                INDEX => Step::Index(at.clone()),
                SPLAT => Step::Splat { full: tokens(&at).any(|t| t.kind() == L_BRACK) },
                _ => break,
            };
            steps.push(step);
            let Some(inner) = expressions(&at).into_iter().next() else { return Value::dynamic() };
            at = inner;
        }
        steps.reverse();
        let base = self.expr(&at);
        self.apply(base, &steps)
    }

    /// Applies `steps` to `value`; a splat applies the steps after it (a full splat all of them,
    /// an attribute-only one its attribute steps) to each element.
    fn apply(&mut self, mut value: Value, steps: &[Step]) -> Value {
        let mut i = 0;
        while i < steps.len() {
            match &steps[i] {
                Step::Attr(node) => value = self.get_attr(value, node),
                Step::Index(node) => value = self.index(value, node),
                Step::Splat { full } => {
                    let end = if *full {
                        steps.len()
                    } else {
                        i + 1 + steps[i + 1..].iter().take_while(|s| matches!(s, Step::Attr(_))).count()
                    };
                    let each = &steps[i + 1..end];
                    value = match value {
                        Value::Null(_) => Value::Tuple(Vec::new()),
                        Value::Unknown(_) => Value::dynamic(),
                        Value::List(_, items) => {
                            let results: Vec<Value> = items.into_iter().map(|v| self.apply(v, each)).collect();
                            let types: Vec<Type> = results.iter().map(Value::ty).collect();
                            match unify(&types) {
                                Some(t) if results.iter().all(|r| convert(r, &t).is_ok()) => {
                                    Value::List(t.clone(), results.iter().filter_map(|r| convert(r, &t).ok()).collect())
                                }
                                _ => Value::Tuple(results),
                            }
                        }
                        Value::Set(_, items) | Value::Tuple(items) => {
                            Value::Tuple(items.into_iter().map(|v| self.apply(v, each)).collect())
                        }
                        single => Value::Tuple(vec![self.apply(single, each)]),
                    };
                    i = end;
                    continue;
                }
            }
            i += 1;
        }
        value
    }

    fn get_attr(&mut self, value: Value, node: &SyntaxNode) -> Value {
        let Some(name) = tokens(node).filter(|t| matches!(t.kind(), IDENT | NUMBER)).last() else {
            return Value::dynamic();
        };
        let range = name.text_range();
        if name.kind() == NUMBER {
            // The legacy index `.0`.
            return self.index_by(
                value,
                Value::Number(Number::parse(name.text()).unwrap_or(Number::from_i64(0))),
                range,
            );
        }
        let key = name.text();
        match value {
            Value::Unknown(_) => Value::dynamic(),
            Value::Null(_) => self.error(range, format!("cannot get attribute `{key}` of a null value")),
            Value::Object(mut attrs) => match attrs.remove(key) {
                Some(v) => v,
                None => {
                    let names: Vec<&String> = attrs.keys().collect();
                    self.error(range, format!("the object has no attribute `{key}` (it has {names:?})"))
                }
            },
            Value::Map(_, mut items) => match items.remove(key) {
                Some(v) => v,
                None => self.error(range, format!("the map has no element `{key}`")),
            },
            other => self.error(range, format!("a {} has no attributes (getting `{key}`)", other.ty())),
        }
    }

    fn index(&mut self, value: Value, node: &SyntaxNode) -> Value {
        let Some(key) = expressions(node).into_iter().nth(1) else { return Value::dynamic() };
        let range = key.text_range();
        let key = self.expr(&key);
        self.index_by(value, key, range)
    }

    fn index_by(&mut self, value: Value, key: Value, range: TextRange) -> Value {
        if value.is_unknown() || key.is_unknown() {
            return Value::dynamic();
        }
        match value {
            Value::List(_, items) | Value::Tuple(items) => {
                let index = convert(&key, &Type::Number).ok().and_then(|k| match k {
                    Value::Number(n) => n.as_index(),
                    _ => None,
                });
                match index {
                    Some(i) if i < items.len() => items[i].clone(),
                    Some(i) => {
                        self.error(range, format!("index {i} is out of range: there are {} elements", items.len()))
                    }
                    None => self.error(range, format!("{key} is not an index: use a whole number from 0")),
                }
            }
            Value::Map(_, items) | Value::Object(items) => match convert(&key, &Type::String) {
                Ok(Value::String(k)) => match items.get(&k) {
                    Some(v) => v.clone(),
                    None => self.error(range, format!("there is no element with key {k:?}")),
                },
                _ => self.error(range, format!("{key} is not a key: use a string")),
            },
            Value::Null(_) => self.error(range, "cannot index a null value"),
            Value::Set(..) => self.error(range, "a set's elements cannot be indexed: convert it to a list first"),
            other => self.error(range, format!("a {} cannot be indexed", other.ty())),
        }
    }

    // ---- Collections -----------------------------------------------------------------------

    fn object(&mut self, node: &SyntaxNode) -> Value {
        let mut out = BTreeMap::new();
        for item in node.children().filter(|c| c.kind() == OBJECT_ITEM) {
            let Some(key_node) = item.children().find(|c| c.kind() == OBJECT_KEY) else { continue };
            let Some(value_node) = expressions(&item).into_iter().next() else { continue };
            let Some(key_expr) = expressions(&key_node).into_iter().next() else { continue };
            // A bare name is the attribute's name, not a variable.
            let key = match key_expr.kind() {
                VARIABLE => Value::String(key_expr.text().to_string().trim().to_owned()),
                _ => self.expr(&key_expr),
            };
            let value = self.expr(&value_node);
            match convert(&key, &Type::String) {
                Ok(Value::String(k)) => {
                    out.insert(k, value);
                }
                Ok(_) => return Value::dynamic(),
                Err(e) => {
                    self.error(key_expr.text_range(), format!("an object key must be a string: {e}"));
                }
            }
        }
        Value::Object(out)
    }

    fn for_expr(&mut self, node: &SyntaxNode) -> Value {
        let object = tokens(node).next().is_some_and(|t| t.kind() == L_BRACE);
        let Some(intro) = node.children().find(|c| c.kind() == FOR_INTRO) else { return Value::dynamic() };
        let names = for_names(&intro);
        let Some(collection_node) = expressions(&intro).into_iter().next() else { return Value::dynamic() };
        let collection = self.expr(&collection_node);
        let body = expressions(node);
        let condition = node.children().find(|c| c.kind() == FOR_COND).and_then(|c| expressions(&c).into_iter().next());
        let grouping = tokens(node).any(|t| t.kind() == ELLIPSIS);
        let Some(pairs) = self.iterate(collection, collection_node.text_range()) else { return Value::dynamic() };
        let mut tuple = Vec::new();
        let mut groups: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        let mut attrs: BTreeMap<String, Value> = BTreeMap::new();
        for (key, value) in pairs {
            self.scopes.push(bind(&names, key, value));
            let keep = match &condition {
                Some(c) => {
                    let v = self.expr(c);
                    self.bool_operand(v, c.text_range())
                }
                None => Some(true),
            };
            if keep == Some(true) {
                match (object, body.as_slice()) {
                    (false, [value_node, ..]) => tuple.push(self.expr(value_node)),
                    (true, [key_node, value_node, ..]) => {
                        let k = self.expr(key_node);
                        let v = self.expr(value_node);
                        match convert(&k, &Type::String) {
                            Ok(Value::String(k)) if grouping => groups.entry(k).or_default().push(v),
                            Ok(Value::String(k)) => {
                                if attrs.insert(k.clone(), v).is_some() {
                                    self.error(
                                        key_node.text_range(),
                                        format!("the key {k:?} comes twice: add `...` after the value to group them"),
                                    );
                                }
                            }
                            _ => {
                                self.error(key_node.text_range(), "an object key must be a string");
                            }
                        }
                    }
                    _ => {}
                }
            }
            self.scopes.pop();
        }
        match (object, grouping) {
            (false, _) => Value::Tuple(tuple),
            (true, true) => Value::Object(groups.into_iter().map(|(k, v)| (k, Value::Tuple(v))).collect()),
            (true, false) => Value::Object(attrs),
        }
    }

    /// The key and value of each element of a collection, in HCL's order.
    fn iterate(&mut self, collection: Value, range: TextRange) -> Option<Vec<(Value, Value)>> {
        match collection {
            Value::List(_, items) | Value::Tuple(items) => {
                Some(items.into_iter().enumerate().map(|(i, v)| (Value::number(i as i64), v)).collect())
            }
            Value::Set(_, items) => Some(items.into_iter().map(|v| (v.clone(), v)).collect()),
            Value::Map(_, items) | Value::Object(items) => {
                Some(items.into_iter().map(|(k, v)| (Value::String(k), v)).collect())
            }
            Value::Unknown(_) => None,
            Value::Null(_) => {
                self.error(range, "cannot iterate over a null value");
                None
            }
            other => {
                self.error(range, format!("cannot iterate over a {}", other.ty()));
                None
            }
        }
    }

    // ---- Calls -----------------------------------------------------------------------------

    fn call(&mut self, node: &SyntaxNode) -> Value {
        let Some(name) = tokens(node).find(|t| t.kind() == IDENT) else { return Value::dynamic() };
        // An unknown function's arguments are not evaluated: its name is the one mistake.
        let Some(function) = self.context.functions.get(name.text()).cloned() else {
            let known: Vec<&str> = self.context.functions.keys().map(String::as_str).collect();
            // With no functions at all the call as a whole is the mistake; otherwise its name.
            let (range, message) = if known.is_empty() {
                (node.text_range(), format!("there is no function named `{}`: none are available here", name.text()))
            } else {
                (
                    name.text_range(),
                    format!("there is no function named `{}` (known: {})", name.text(), known.join(", ")),
                )
            };
            return self.error(range, message);
        };
        let Some(args_node) = node.children().find(|c| c.kind() == ARG_LIST) else { return Value::dynamic() };
        let arg_nodes = expressions(&args_node);
        let mut args: Vec<Value> = arg_nodes.iter().map(|a| self.expr(a)).collect();
        if tokens(&args_node).any(|t| t.kind() == ELLIPSIS) {
            match args.pop() {
                Some(last) if last.is_unknown() => return Value::dynamic(),
                Some(last) => match last.elements() {
                    Some(items) => args.extend(items.iter().cloned()),
                    None => {
                        let range = arg_nodes.last().map_or(node.text_range(), |n| n.text_range());
                        return self.error(range, format!("`...` expands a list, set or tuple, not a {}", last.ty()));
                    }
                },
                None => {}
            }
        }
        let range = node.text_range();
        if args.len() < function.params.len() || (function.variadic.is_none() && args.len() > function.params.len()) {
            let wanted = match &function.variadic {
                Some(_) => format!("at least {}", function.params.len()),
                None => function.params.len().to_string(),
            };
            let plural = if wanted == "1" { "" } else { "s" };
            return self.error(range, format!("`{}` takes {wanted} argument{plural}, not {}", name.text(), args.len()));
        }
        let mut converted = Vec::with_capacity(args.len());
        for (i, arg) in args.into_iter().enumerate() {
            let Some(param) = function.params.get(i).or(function.variadic.as_ref()) else { break };
            let at = arg_nodes.get(i).map_or(range, |n| n.text_range());
            if arg.is_null() && !param.allow_null {
                return self.error(at, format!("argument `{}` of `{}` cannot be null", param.name, name.text()));
            }
            match convert(&arg, &param.ty) {
                Ok(v) => converted.push(v),
                Err(e) => return self.error(at, format!("argument `{}` of `{}`: {e}", param.name, name.text())),
            }
        }
        if converted.iter().any(Value::is_unknown) {
            return Value::Unknown(function.returns.clone());
        }
        match (function.implementation)(&converted) {
            Ok(v) => v,
            Err(e) => self.error(range, format!("`{}`: {e}", name.text())),
        }
    }

    // ---- Operators -------------------------------------------------------------------------

    fn number_operand(&mut self, value: Value, range: TextRange) -> Option<Number> {
        match convert(&value, &Type::Number) {
            Ok(Value::Number(n)) => Some(n),
            Ok(_) => None,
            Err(e) => {
                self.error(range, format!("a number is required here: {e}"));
                None
            }
        }
    }

    fn bool_operand(&mut self, value: Value, range: TextRange) -> Option<bool> {
        match convert(&value, &Type::Bool) {
            Ok(Value::Bool(b)) => Some(b),
            Ok(Value::Null(_)) => {
                self.error(range, "a bool is required here, not null");
                None
            }
            Ok(_) => None,
            Err(e) => {
                self.error(range, format!("a bool is required here: {e}"));
                None
            }
        }
    }

    fn unary(&mut self, node: &SyntaxNode) -> Value {
        let Some(operand) = expressions(node).into_iter().next() else { return Value::dynamic() };
        let negate = tokens(node).any(|t| t.kind() == MINUS);
        let value = self.expr(&operand);
        let range = operand.text_range();
        if negate {
            match self.number_operand(value, range) {
                Some(n) => Value::Number(n.neg()),
                None => Value::Unknown(Type::Number),
            }
        } else {
            match self.bool_operand(value, range) {
                Some(b) => Value::Bool(!b),
                None => Value::Unknown(Type::Bool),
            }
        }
    }

    fn binary(&mut self, node: &SyntaxNode) -> Value {
        let operands = expressions(node);
        let (Some(left), Some(right)) = (operands.first(), operands.get(1)) else { return Value::dynamic() };
        let Some(op) = tokens(node).find(|t| !t.kind().is_trivia() && t.kind() != NEWLINE) else {
            return Value::dynamic();
        };
        let (a, b) = (self.expr(left), self.expr(right));
        let (ra, rb) = (left.text_range(), right.text_range());
        match op.kind() {
            EQ2 | NEQ => match a.equals(&b) {
                Some(equal) => Value::Bool(equal == (op.kind() == EQ2)),
                None => Value::Unknown(Type::Bool),
            },
            AND | OR => {
                let (x, y) = (self.bool_operand(a, ra), self.bool_operand(b, rb));
                match (x, y) {
                    (Some(x), Some(y)) => Value::Bool(if op.kind() == AND { x && y } else { x || y }),
                    _ => Value::Unknown(Type::Bool),
                }
            }
            LT | GT | LTEQ | GTEQ => {
                let (x, y) = (self.number_operand(a, ra), self.number_operand(b, rb));
                match (x, y) {
                    (Some(x), Some(y)) => Value::Bool(match op.kind() {
                        LT => x < y,
                        GT => x > y,
                        LTEQ => x <= y,
                        _ => x >= y,
                    }),
                    _ => Value::Unknown(Type::Bool),
                }
            }
            _ => {
                let (x, y) = (self.number_operand(a, ra), self.number_operand(b, rb));
                let (Some(x), Some(y)) = (x, y) else { return Value::Unknown(Type::Number) };
                let result = match op.kind() {
                    PLUS => x.add(&y),
                    MINUS => x.sub(&y),
                    STAR => x.mul(&y),
                    SLASH => x.div(&y),
                    _ => x.rem(&y),
                };
                match result {
                    Ok(n) => Value::Number(n),
                    Err(e) => self.error(node.text_range(), e),
                }
            }
        }
    }

    fn conditional(&mut self, node: &SyntaxNode) -> Value {
        let parts = expressions(node);
        let [condition, yes, no, ..] = parts.as_slice() else { return Value::dynamic() };
        let c = self.expr(condition);
        let c = self.bool_operand(c, condition.text_range());
        let (y, n) = (self.expr(yes), self.expr(no));
        let Some(ty) = unify(&[y.ty(), n.ty()]) else {
            return self.error(
                node.text_range(),
                format!("the two results have no common type: a {} and a {}", y.ty(), n.ty()),
            );
        };
        match c {
            Some(true) => convert(&y, &ty).unwrap_or(y),
            Some(false) => convert(&n, &ty).unwrap_or(n),
            None => Value::Unknown(ty),
        }
    }

    // ---- Templates -------------------------------------------------------------------------

    fn template(&mut self, node: &SyntaxNode) -> Value {
        let parts: Vec<rowan::NodeOrToken<SyntaxNode, SyntaxToken>> = node
            .children_with_tokens()
            .filter(|e| matches!(e.kind(), TEMPLATE_TEXT | INTERPOLATION | TEMPLATE_IF | TEMPLATE_FOR))
            .collect();
        // A template of one interpolation and nothing else is the interpolated value itself.
        if let [rowan::NodeOrToken::Node(only)] = parts.as_slice()
            && only.kind() == INTERPOLATION
            && let Some(inner) = expressions(only).into_iter().next()
        {
            return self.expr(&inner);
        }
        let flush = node.kind() == HEREDOC && tokens(node).next().is_some_and(|t| t.text().starts_with("<<-"));
        let indent = if flush { heredoc_indent(node) } else { 0 };
        let quoted = node.kind() == TEMPLATE;
        let mut out = Output { text: String::new(), literal_from: 0, strip_next: false, unknown: false };
        let mut at_line_start = true;
        let errors_before = self.errors.len();
        for part in &parts {
            self.part(part, quoted, indent, &mut at_line_start, &mut out);
        }
        if self.errors.len() > errors_before {
            Value::dynamic()
        } else if out.unknown {
            Value::Unknown(Type::String)
        } else {
            Value::string(&out.text)
        }
    }

    fn part(
        &mut self,
        part: &rowan::NodeOrToken<SyntaxNode, SyntaxToken>,
        quoted: bool,
        indent: usize,
        at_line_start: &mut bool,
        out: &mut Output,
    ) {
        match part {
            rowan::NodeOrToken::Token(text) => {
                let mut raw = text.text();
                if indent > 0 && *at_line_start && !is_blank_line(raw) {
                    let strip = indent.min(leading_spaces(raw));
                    raw = &raw[raw.grapheme_indices(true).nth(strip).map_or(raw.len(), |(i, _)| i)..];
                }
                *at_line_start = raw.ends_with('\n');
                let decoded = decode_literal(raw, quoted);
                let decoded = if out.strip_next { decoded.trim_start().to_owned() } else { decoded };
                out.strip_next = false;
                out.text.push_str(&decoded);
            }
            rowan::NodeOrToken::Node(node) => {
                *at_line_start = false;
                match node.kind() {
                    INTERPOLATION => {
                        out.strip_before(strips_before(node));
                        if let Some(inner) = expressions(node).into_iter().next() {
                            let value = self.expr(&inner);
                            self.push_value(value, inner.text_range(), out);
                        }
                        out.strip_next = strips_after(node);
                    }
                    TEMPLATE_IF => self.template_if(node, quoted, indent, at_line_start, out),
                    TEMPLATE_FOR => self.template_for(node, quoted, indent, at_line_start, out),
                    _ => {}
                }
            }
        }
    }

    fn push_value(&mut self, value: Value, range: TextRange, out: &mut Output) {
        if value.is_unknown() {
            out.unknown = true;
            return;
        }
        match convert(&value, &Type::String) {
            Ok(Value::String(s)) => out.text.push_str(&s),
            Ok(Value::Null(_)) => {
                self.error(range, "the interpolated value is null");
            }
            Ok(_) => out.unknown = true,
            Err(_) => {
                self.error(
                    range,
                    format!("a {} cannot be interpolated: only strings, numbers and bools can", value.ty()),
                );
            }
        }
        out.literal_from = out.text.len();
    }

    /// The parts of a directive's body: what lies between two of its tags.
    fn directive_parts(node: &SyntaxNode) -> Vec<Vec<rowan::NodeOrToken<SyntaxNode, SyntaxToken>>> {
        let mut bodies = vec![Vec::new()];
        let mut seen_tag = false;
        for element in node.children_with_tokens() {
            match &element {
                rowan::NodeOrToken::Node(n) if n.kind() == DIRECTIVE => {
                    if seen_tag {
                        bodies.push(Vec::new());
                    }
                    seen_tag = true;
                }
                e if matches!(e.kind(), TEMPLATE_TEXT | INTERPOLATION | TEMPLATE_IF | TEMPLATE_FOR) => {
                    if let Some(body) = bodies.last_mut() {
                        body.push(element.clone());
                    }
                }
                _ => {}
            }
        }
        bodies
    }

    fn template_if(
        &mut self,
        node: &SyntaxNode,
        quoted: bool,
        indent: usize,
        at_line_start: &mut bool,
        out: &mut Output,
    ) {
        let tags: Vec<SyntaxNode> = node.children().filter(|c| c.kind() == DIRECTIVE).collect();
        let bodies = Self::directive_parts(node);
        let Some(if_tag) = tags.first() else { return };
        out.strip_before(strips_before(if_tag));
        out.strip_next = strips_after(if_tag);
        let condition = expressions(if_tag).into_iter().next();
        let truth = match &condition {
            Some(c) => {
                let v = self.expr(c);
                self.bool_operand(v, c.text_range())
            }
            None => None,
        };
        let Some(truth) = truth else {
            out.unknown = true;
            return;
        };
        let else_tag = if tags.len() > 2 { tags.get(1) } else { None };
        let chosen = match (truth, else_tag) {
            (true, _) => bodies.first().cloned(),
            (false, Some(tag)) => {
                out.strip_next = strips_after(tag);
                bodies.get(1).cloned()
            }
            (false, None) => None,
        };
        if let Some(parts) = &chosen {
            for part in parts {
                self.part(part, quoted, indent, at_line_start, out);
            }
            // The tag after the body (`else` or `endif`) may strip the body's trailing spaces.
            let next = if truth { else_tag.or(tags.last()) } else { tags.last() };
            if let Some(tag) = next {
                out.strip_before(strips_before(tag));
            }
        }
        if let Some(end) = tags.last() {
            out.strip_next = strips_after(end);
        }
    }

    fn template_for(
        &mut self,
        node: &SyntaxNode,
        quoted: bool,
        indent: usize,
        at_line_start: &mut bool,
        out: &mut Output,
    ) {
        let tags: Vec<SyntaxNode> = node.children().filter(|c| c.kind() == DIRECTIVE).collect();
        let Some(for_tag) = tags.first() else { return };
        let names = for_names(for_tag);
        let Some(collection_node) = expressions(for_tag).into_iter().next() else { return };
        let collection = self.expr(&collection_node);
        out.strip_before(strips_before(for_tag));
        let body = Self::directive_parts(node).into_iter().next().unwrap_or_default();
        let Some(pairs) = self.iterate(collection, collection_node.text_range()) else {
            out.unknown = true;
            return;
        };
        for (key, value) in pairs {
            self.scopes.push(bind(&names, key, value));
            out.strip_next = strips_after(for_tag);
            for part in &body {
                self.part(part, quoted, indent, at_line_start, out);
            }
            if let Some(end) = tags.last() {
                out.strip_before(strips_before(end));
            }
            self.scopes.pop();
        }
        if let Some(end) = tags.last() {
            out.strip_next = strips_after(end);
        }
    }
}

/// The variable names a `for` header (`for k, v in`) declares.
fn for_names(header: &SyntaxNode) -> Vec<String> {
    tokens(header)
        .filter(|t| t.kind() == IDENT && !matches!(t.text(), "for" | "in"))
        .map(|t| t.text().to_owned())
        .collect()
}

/// The scope of one iteration of a `for`: with one name, the value; with two, the key and the value.
fn bind(names: &[String], key: Value, value: Value) -> BTreeMap<String, Value> {
    let mut scope = BTreeMap::new();
    match names {
        [v] => {
            scope.insert(v.clone(), value);
        }
        [k, v, ..] => {
            scope.insert(k.clone(), key);
            scope.insert(v.clone(), value);
        }
        [] => {}
    }
    scope
}

/// A template's text as it is built.
struct Output {
    text: String,
    /// Where the literal text since the last interpolated value starts in `text`.
    literal_from: usize,
    /// The next literal's leading spaces go (a `~}` before it).
    strip_next: bool,
    /// An interpolated value was unknown: the whole template is.
    unknown: bool,
}

impl Output {
    /// Drops the trailing spaces of the literal text just written (a `${~` after it).
    fn strip_before(&mut self, strip: bool) {
        if strip {
            let keep = self.text[self.literal_from.min(self.text.len())..].trim_end().len();
            self.text.truncate(self.literal_from.min(self.text.len()) + keep);
        }
    }
}

/// Whether an interpolation or tag opens with `~`.
fn strips_before(node: &SyntaxNode) -> bool {
    tokens(node).nth(1).is_some_and(|t| t.kind() == STRIP)
}

/// Whether an interpolation or tag closes with `~`.
fn strips_after(node: &SyntaxNode) -> bool {
    let all: Vec<SyntaxToken> = tokens(node).filter(|t| !t.kind().is_trivia() && t.kind() != NEWLINE).collect();
    all.len() >= 2 && all[all.len() - 2].kind() == STRIP
}

/// The spaces an indented heredoc (`<<-`) drops from each line: the fewest that start a line
/// (lines of spaces only do not count; a line starting with an interpolation counts as none).
fn heredoc_indent(node: &SyntaxNode) -> usize {
    let mut least: Option<usize> = None;
    let mut at_line_start = true;
    for element in node.children_with_tokens().skip(1) {
        let starts_line = at_line_start;
        match &element {
            rowan::NodeOrToken::Token(t) if t.kind() == TEMPLATE_TEXT => {
                if starts_line && !is_blank_line(t.text()) {
                    let spaces = leading_spaces(t.text());
                    least = Some(least.map_or(spaces, |l| l.min(spaces)));
                }
                at_line_start = t.text().ends_with('\n');
            }
            rowan::NodeOrToken::Node(_) => {
                if starts_line {
                    least = Some(0);
                }
                at_line_start = false;
            }
            _ => {}
        }
    }
    least.unwrap_or(0)
}

/// A heredoc line of white space only: it neither sets nor loses indentation.
fn is_blank_line(text: &str) -> bool {
    text.trim_start().is_empty() && text.ends_with('\n')
}

/// The white space a heredoc line starts with, in grapheme clusters (any Unicode white space
/// counts, as in HCL's reference).
fn leading_spaces(text: &str) -> usize {
    text[..text.len() - text.trim_start().len()].graphemes(true).count()
}

/// A block label's value: a quoted label with its escapes decoded, or the identifier.
pub fn label_value(label: &nacl_syntax::hcl::ast::Label) -> String {
    match label {
        nacl_syntax::hcl::ast::Label::Quoted(_) => decode_literal(&label.text(), true),
        nacl_syntax::hcl::ast::Label::Ident(token) => token.text().to_owned(),
    }
}

/// A template literal's value: escapes decoded in quoted templates, `$${` and `%%{` in both.
fn decode_literal(raw: &str, quoted: bool) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if quoted => match chars.next() {
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some('t') => out.push('\t'),
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some(u @ ('u' | 'U')) => {
                    let digits: String = chars.by_ref().take(if u == 'u' { 4 } else { 8 }).collect();
                    out.extend(u32::from_str_radix(&digits, 16).ok().and_then(char::from_u32));
                }
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            },
            '$' | '%' if chars.peek() == Some(&c) => {
                let mut ahead = chars.clone();
                ahead.next();
                if ahead.peek() == Some(&'{') {
                    chars.next();
                }
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}
