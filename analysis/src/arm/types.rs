//! ARMLang's types and the checks on them: the input types, the operators' operand types, bool
//! conditions, the built-in functions and the member functions of resources, property and index
//! access.
//!
//! Inference is local and forgiving: what cannot be known (a resource's runtime properties, an
//! element of an array) is [`Ty::Any`], which fits everything, so only certain mistakes are
//! reported.

use super::model::{Model, Problem, SymbolId, SymbolKind};
use crate::codes::AnalysisCode;
use nacl_syntax::{
    TextRange,
    arm::{
        SyntaxKind::{self, *},
        SyntaxNode,
        ast::{Expr, StrPart},
    },
    rowan::ast::AstNode,
};

/// The type of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// Not known until deployment; fits everything.
    Any,
    /// A string.
    String,
    /// A number.
    Number,
    /// `true` or `false`.
    Bool,
    /// An object.
    Object,
    /// An array.
    Array,
    /// `null`.
    Null,
    /// A resource declared in this file.
    Resource(SymbolId),
    /// The copies a named loop makes (index it to get one).
    LoopCopies(SymbolId),
    /// One copy of a named loop's body (its declarations are its members).
    LoopCopy(SymbolId),
}

impl Ty {
    /// The type's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Ty::Any => "any",
            Ty::String => "string",
            Ty::Number => "number",
            Ty::Bool => "bool",
            Ty::Object => "object",
            Ty::Array => "array",
            Ty::Null => "null",
            Ty::Resource(_) => "resource",
            Ty::LoopCopies(_) => "loop",
            Ty::LoopCopy(_) => "loop copy",
        }
    }

    /// Whether a value of this type can be used where `wanted` is.
    pub fn fits(self, wanted: Ty) -> bool {
        self == Ty::Any || wanted == Ty::Any || self == wanted
    }
}

/// The input types: how they are written, the type of their values, and ARM's parameter type.
pub const INPUT_TYPES: &[(&str, Ty, &str)] = &[
    ("string", Ty::String, "string"),
    ("secureString", Ty::String, "securestring"),
    ("int", Ty::Number, "int"),
    ("bool", Ty::Bool, "bool"),
    ("object", Ty::Object, "object"),
    ("secureObject", Ty::Object, "secureObject"),
    ("array", Ty::Array, "array"),
];

/// A built-in function: its name, parameter types (the last repeated when `variadic`), its result,
/// the ARM template function it becomes, and what it does.
#[derive(Debug, Clone, Copy)]
pub struct Function {
    /// Its name in ARMLang.
    pub name: &'static str,
    /// Its parameters' types.
    pub params: &'static [Ty],
    /// Whether the last parameter repeats (at least once).
    pub variadic: bool,
    /// Its result's type.
    pub returns: Ty,
    /// The ARM template function it compiles to.
    pub arm: &'static str,
    /// What it does.
    pub doc: &'static str,
}

const fn f(
    name: &'static str,
    params: &'static [Ty],
    variadic: bool,
    returns: Ty,
    arm: &'static str,
    doc: &'static str,
) -> Function {
    Function { name, params, variadic, returns, arm, doc }
}

/// The built-in functions.
pub const FUNCTIONS: &[Function] = &[
    f("range", &[Ty::Number], false, Ty::Array, "range", "`range(n)`: the `n` integers from 0 to `n - 1`."),
    f(
        "guid",
        &[Ty::String],
        true,
        Ty::String,
        "guid",
        "`guid(s, ...)`: a GUID made from the strings, the same each time.",
    ),
    f(
        "uniqueString",
        &[Ty::String],
        true,
        Ty::String,
        "uniqueString",
        "`uniqueString(s, ...)`: a 13-character hash of the strings.",
    ),
    f("concat", &[Ty::Any], true, Ty::Any, "concat", "`concat(a, ...)`: strings joined, or arrays appended."),
    f(
        "format",
        &[Ty::String, Ty::Any],
        true,
        Ty::String,
        "format",
        "`format('{0}-{1}', a, b)`: a string with the values in its placeholders.",
    ),
    f(
        "length",
        &[Ty::Any],
        false,
        Ty::Number,
        "length",
        "`length(x)`: the number of characters of a string, items of an array or properties of an object.",
    ),
    f("toLower", &[Ty::String], false, Ty::String, "toLower", "`toLower(s)`: the string in lower case."),
    f("toUpper", &[Ty::String], false, Ty::String, "toUpper", "`toUpper(s)`: the string in upper case."),
    f("string", &[Ty::Any], false, Ty::String, "string", "`string(x)`: the value as a string."),
    f("int", &[Ty::Any], false, Ty::Number, "int", "`int(x)`: the value as an integer."),
    f(
        "contains",
        &[Ty::Any, Ty::Any],
        false,
        Ty::Bool,
        "contains",
        "`contains(container, x)`: whether a string, array or object holds `x`.",
    ),
    f("empty", &[Ty::Any], false, Ty::Bool, "empty", "`empty(x)`: whether a string, array or object is empty."),
    f(
        "replace",
        &[Ty::String, Ty::String, Ty::String],
        false,
        Ty::String,
        "replace",
        "`replace(s, old, new)`: `s` with every `old` replaced by `new`.",
    ),
    f(
        "split",
        &[Ty::String, Ty::String],
        false,
        Ty::Array,
        "split",
        "`split(s, delimiter)`: the parts of `s` between delimiters.",
    ),
    f("base64", &[Ty::String], false, Ty::String, "base64", "`base64(s)`: the string in base64."),
    f(
        "resourceGroup",
        &[],
        false,
        Ty::Object,
        "resourceGroup",
        "`resourceGroup()`: the resource group deployed to (`.name`, `.location`, `.id`).",
    ),
    f(
        "subscription",
        &[],
        false,
        Ty::Object,
        "subscription",
        "`subscription()`: the subscription deployed to (`.subscriptionId`, ...).",
    ),
    f("deployment", &[], false, Ty::Object, "deployment", "`deployment()`: the current deployment (`.name`, ...)."),
];

/// The member functions of a resource, with what they do.
pub const RESOURCE_MEMBERS: &[(&str, &str)] =
    &[("id", "`resource.id()`: the resource's ID (`resourceId(type, name)` in the template).")];

/// The built-in function called `name`.
pub fn function(name: &str) -> Option<&'static Function> {
    FUNCTIONS.iter().find(|f| f.name == name)
}

/// The type of the input type written `name`.
pub fn input_type(name: &str) -> Option<Ty> {
    INPUT_TYPES.iter().find(|(n, _, _)| *n == name).map(|(_, ty, _)| *ty)
}

/// How many variables deep a type is followed through other variables; deeper is `Any`, so a
/// long chain costs no stack.
const MAX_CHAIN: usize = 64;

/// Type checking over a model: the types of expressions, and the problems found on the way.
pub struct Checker<'m> {
    model: &'m Model,
    root: SyntaxNode,
    problems: Vec<Problem>,
    /// The symbols whose type is being inferred (a cycle's types are `Any`).
    active: Vec<SymbolId>,
    /// The types of the variables and loop items inferred so far.
    known: std::collections::HashMap<SymbolId, Ty>,
}

impl<'m> Checker<'m> {
    /// A checker of the file `root` with its model.
    pub fn new(model: &'m Model, root: SyntaxNode) -> Checker<'m> {
        Checker { model, root, problems: Vec::new(), active: Vec::new(), known: std::collections::HashMap::new() }
    }

    /// Checks every declaration; the problems found.
    pub fn check(mut self) -> Vec<Problem> {
        for (id, symbol) in self.model.symbols.iter().enumerate() {
            if let SymbolKind::Input { ty } = &symbol.kind {
                let wanted = input_type(ty);
                if wanted.is_none() && !ty.is_empty() {
                    let range = self.input_type_range(symbol.range).unwrap_or(symbol.range);
                    let known: Vec<&str> = INPUT_TYPES.iter().map(|(n, _, _)| *n).collect();
                    self.problems.push(Problem::new(
                        AnalysisCode::UnknownInputType,
                        range,
                        format!("`{ty}` is not an input type; the input types are {}", known.join(", ")),
                    ));
                }
                if let (Some(wanted), Some(value)) = (wanted, self.expr_at(symbol.value)) {
                    let found = self.infer(&value);
                    if !found.fits(wanted) {
                        self.problems.push(Problem::new(
                            AnalysisCode::TypeMismatch,
                            value.syntax().text_range(),
                            format!("the default of a `{ty}` input is a {}", found.name()),
                        ));
                    }
                }
                let _ = id;
                continue;
            }
            if let Some(value) = self.expr_at(symbol.value) {
                self.infer(&value);
            }
            if let SymbolKind::Loop { .. } = symbol.kind
                && let Some(collection) = self.loop_collection(symbol.range)
            {
                let ty = self.infer(&collection);
                if !matches!(ty, Ty::Any | Ty::Array | Ty::Object) {
                    self.problems.push(Problem::new(
                        AnalysisCode::TypeMismatch,
                        collection.syntax().text_range(),
                        format!("a loop goes over an array or an object, not a {}", ty.name()),
                    ));
                }
            }
        }
        self.problems.sort_by_key(|p| (p.range.start(), p.range.end()));
        self.problems.dedup();
        self.problems
    }

    fn expr_at(&self, range: Option<TextRange>) -> Option<Expr> {
        super::model::expr_at(&self.root, range?)
    }

    fn input_type_range(&self, declaration: TextRange) -> Option<TextRange> {
        let node = self.root.covering_element(declaration).into_node()?;
        node.children().find(|n| n.kind() == INPUT_TYPE).map(|n| n.text_range())
    }

    fn loop_collection(&self, range: TextRange) -> Option<Expr> {
        super::model::loop_collection(&self.root, range)
    }

    fn problem(&mut self, code: AnalysisCode, range: TextRange, message: String) {
        self.problems.push(Problem::new(code, range, message));
    }

    /// The type of the symbol `id` when used by name.
    pub fn symbol_type(&mut self, id: SymbolId) -> Ty {
        if let Some(&ty) = self.known.get(&id) {
            return ty;
        }
        let depth = self.active.len();
        let ty = self.infer_symbol_type(id);
        // A type cut short by a cycle or the depth limit is not remembered.
        if depth == 0 || ty != Ty::Any {
            self.known.insert(id, ty);
        }
        ty
    }

    fn infer_symbol_type(&mut self, id: SymbolId) -> Ty {
        let symbol = &self.model.symbols[id];
        match &symbol.kind {
            SymbolKind::Input { ty } => input_type(ty).unwrap_or(Ty::Any),
            SymbolKind::Output => Ty::Any,
            SymbolKind::Resource { .. } => Ty::Resource(id),
            SymbolKind::Loop { .. } => Ty::LoopCopies(id),
            SymbolKind::LoopIndex { .. } => Ty::Number,
            SymbolKind::LoopItem { owner } => {
                let owner = *owner;
                let range = self.model.symbols[owner].range;
                if self.active.contains(&id) || self.active.len() >= MAX_CHAIN {
                    return Ty::Any;
                }
                self.active.push(id);
                let collection = self.loop_collection(range).map(|c| self.infer_quiet(&c));
                self.active.pop();
                // Looping over an object gives its keys.
                if collection == Some(Ty::Object) { Ty::String } else { Ty::Any }
            }
            SymbolKind::Variable => {
                if self.active.contains(&id) || self.active.len() >= MAX_CHAIN {
                    return Ty::Any;
                }
                let Some(value) = self.expr_at(symbol.value) else { return Ty::Any };
                self.active.push(id);
                let ty = self.infer_quiet(&value);
                self.active.pop();
                ty
            }
        }
    }

    /// The type of `expr` without reporting (what another declaration's check reports itself).
    fn infer_quiet(&mut self, expr: &Expr) -> Ty {
        let before = self.problems.len();
        let ty = self.infer(expr);
        self.problems.truncate(before);
        ty
    }

    fn expect(&mut self, expr: &Expr, wanted: Ty, what: &str) {
        let found = self.infer(expr);
        if !found.fits(wanted) {
            self.problem(
                AnalysisCode::TypeMismatch,
                expr.syntax().text_range(),
                format!("{what} must be a {}, not a {}", wanted.name(), found.name()),
            );
        }
    }

    /// The type of `expr`, reporting what is wrong in it.
    pub fn infer(&mut self, expr: &Expr) -> Ty {
        let operands = expr.operands();
        match expr {
            Expr::Literal(n) => match n.first_token().map(|t| t.kind()) {
                Some(NUMBER) => Ty::Number,
                _ => match n.text().to_string().as_str() {
                    "true" | "false" => Ty::Bool,
                    _ => Ty::Null,
                },
            },
            Expr::Str(s) => {
                for part in s.parts() {
                    if let StrPart::Interpolation(i) = part
                        && let Some(e) = i.expr()
                    {
                        self.infer(&e);
                    }
                }
                Ty::String
            }
            Expr::NameRef(n) => {
                let range = n.text_range();
                match self.model.target_at(range) {
                    Some(id) => self.symbol_type(id),
                    None => Ty::Any,
                }
            }
            Expr::Object(o) => {
                for p in o.properties() {
                    if let Some(v) = p.value() {
                        self.infer(&v);
                    }
                }
                Ty::Object
            }
            Expr::Array(a) => {
                for item in a.items() {
                    self.infer(&item);
                }
                Ty::Array
            }
            Expr::Paren(_) => operands.first().map_or(Ty::Any, |e| self.infer(e)),
            Expr::Unary(_) => {
                let Some(operand) = operands.first() else { return Ty::Any };
                match expr.operator().map(|t| t.kind()) {
                    Some(BANG) => {
                        self.expect(operand, Ty::Bool, "the operand of `!`");
                        Ty::Bool
                    }
                    _ => {
                        self.expect(operand, Ty::Number, "the operand of `-`");
                        Ty::Number
                    }
                }
            }
            Expr::Binary(_) => self.binary(expr, &operands),
            Expr::Ternary(_) => {
                let [condition, a, b] = operands.as_slice() else {
                    for e in &operands {
                        self.infer(e);
                    }
                    return Ty::Any;
                };
                self.expect(condition, Ty::Bool, "a condition");
                let (a, b) = (self.infer(a), self.infer(b));
                if a == b { a } else { Ty::Any }
            }
            Expr::PropertyAccess(_) => self.property(expr, &operands),
            Expr::IndexAccess(_) => {
                let base = operands.first().map_or(Ty::Any, |e| self.infer(e));
                if let Some(index) = operands.get(1) {
                    self.infer(index);
                }
                match base {
                    Ty::LoopCopies(l) => Ty::LoopCopy(l),
                    Ty::Any | Ty::Array | Ty::Object => Ty::Any,
                    other => {
                        self.problem(
                            AnalysisCode::InvalidMember,
                            expr.syntax().text_range(),
                            format!("a {} cannot be indexed", other.name()),
                        );
                        Ty::Any
                    }
                }
            }
            Expr::Call(call) => self.call(call),
        }
    }

    fn binary(&mut self, expr: &Expr, operands: &[Expr]) -> Ty {
        let [a, b] = operands else {
            for e in operands {
                self.infer(e);
            }
            return Ty::Any;
        };
        let Some(op) = expr.operator() else { return Ty::Any };
        let (wanted, result) = match op.kind() {
            PLUS | MINUS | STAR => (Some(Ty::Number), Ty::Number),
            EQ_TILDE | NOT_TILDE => (Some(Ty::String), Ty::Bool),
            AND | OR => (Some(Ty::Bool), Ty::Bool),
            _ => (None, Ty::Bool),
        };
        let (ta, tb) = (self.infer(a), self.infer(b));
        if let Some(wanted) = wanted {
            for (operand, ty) in [(a, ta), (b, tb)] {
                if !ty.fits(wanted) {
                    let hint = if op.kind() == PLUS && ty == Ty::String {
                        " (join strings with interpolation, `'${a}${b}'`, or `concat(a, b)`)"
                    } else {
                        ""
                    };
                    self.problem(
                        AnalysisCode::TypeMismatch,
                        operand.syntax().text_range(),
                        format!(
                            "the operands of `{}` must be {}s, not a {}{hint}",
                            op.text(),
                            wanted.name(),
                            ty.name()
                        ),
                    );
                }
            }
        }
        result
    }

    fn property(&mut self, expr: &Expr, operands: &[Expr]) -> Ty {
        let base = operands.first().map_or(Ty::Any, |e| self.infer(e));
        let Some(name) = expr.ident() else { return Ty::Any };
        let range = name.text_range();
        match base {
            Ty::Resource(_) => match name.text() {
                "name" | "type" | "apiVersion" | "location" | "kind" => Ty::String,
                "properties" => Ty::Object,
                _ => Ty::Any,
            },
            Ty::LoopCopy(l) => {
                let SymbolKind::Loop { body } = self.model.symbols[l].kind else { return Ty::Any };
                let members = &self.model.scopes[body].names;
                match members.get(name.text()).and_then(|ids| ids.first()) {
                    Some(&id) => self.symbol_type(id),
                    None => {
                        let known: Vec<String> = members
                            .iter()
                            .filter(|(_, ids)| {
                                !ids.iter().any(|&i| {
                                    matches!(
                                        self.model.symbols[i].kind,
                                        SymbolKind::LoopItem { .. } | SymbolKind::LoopIndex { .. }
                                    )
                                })
                            })
                            .map(|(n, _)| format!("`{n}`"))
                            .collect();
                        let loop_name = self.model.display_name(l);
                        self.problem(
                            AnalysisCode::InvalidMember,
                            range,
                            format!(
                                "loop `{loop_name}` declares no `{}`; it declares {}",
                                name.text(),
                                list_or_nothing(&known)
                            ),
                        );
                        Ty::Any
                    }
                }
            }
            Ty::LoopCopies(l) => {
                let loop_name = self.model.display_name(l);
                self.problem(
                    AnalysisCode::InvalidMember,
                    range,
                    format!(
                        "`{loop_name}` is the list of the loop's copies: pick one with an index, `{loop_name}[0].{}`",
                        name.text()
                    ),
                );
                Ty::Any
            }
            Ty::Any | Ty::Object => Ty::Any,
            other => {
                self.problem(AnalysisCode::InvalidMember, range, format!("a {} has no properties", other.name()));
                Ty::Any
            }
        }
    }

    fn call(&mut self, call: &nacl_syntax::arm::ast::Call) -> Ty {
        let args = call.args();
        let arg_types: Vec<Ty> = args.iter().map(|a| self.infer(a)).collect();
        let Some(name) = call.name() else { return Ty::Any };
        let range = name.text_range();
        if let Some(receiver) = call.receiver() {
            let ty = self.infer(&receiver);
            return match ty {
                Ty::Resource(_) if name.text() == "id" => {
                    self.arity(call, "id", 0, Some(0), args.len());
                    Ty::String
                }
                Ty::Resource(_) => {
                    let known: Vec<String> = RESOURCE_MEMBERS.iter().map(|(n, _)| format!("`{n}()`")).collect();
                    self.problem(
                        AnalysisCode::InvalidMember,
                        range,
                        format!("a resource has no member function `{}`; it has {}", name.text(), known.join(", ")),
                    );
                    Ty::Any
                }
                Ty::Any => Ty::Any,
                other => {
                    self.problem(
                        AnalysisCode::InvalidMember,
                        range,
                        format!("a {} has no member functions (`{}()` is a resource's)", other.name(), "id"),
                    );
                    Ty::Any
                }
            };
        }
        if let Some(target) = self.model.target_at(range) {
            let what = self.model.symbols[target].kind.describe();
            self.problem(
                AnalysisCode::UnknownFunction,
                range,
                format!("`{}` is a {what}, not a function", name.text()),
            );
            return Ty::Any;
        }
        let Some(function) = function(name.text()) else {
            let names: Vec<String> = FUNCTIONS.iter().map(|f| f.name.to_owned()).collect();
            let suggestion =
                super::model::closest(name.text(), &names).map(|s| format!("did you mean `{s}`? ")).unwrap_or_default();
            self.problem(
                AnalysisCode::UnknownFunction,
                range,
                format!("`{}` is not a function; {suggestion}the functions are {}", name.text(), names.join(", ")),
            );
            return Ty::Any;
        };
        let max = (!function.variadic).then_some(function.params.len());
        if !self.arity(call, function.name, function.params.len(), max, args.len()) {
            return function.returns;
        }
        for (i, (arg, ty)) in args.iter().zip(&arg_types).enumerate() {
            let wanted = function.params.get(i).or(function.params.last()).copied().unwrap_or(Ty::Any);
            if !ty.fits(wanted) {
                self.problem(
                    AnalysisCode::TypeMismatch,
                    arg.syntax().text_range(),
                    format!(
                        "argument {} of `{}` must be a {}, not a {}",
                        i + 1,
                        function.name,
                        wanted.name(),
                        ty.name()
                    ),
                );
            }
        }
        if function.name == "concat" {
            let all = |t: Ty| arg_types.iter().all(|a| *a == t);
            return if all(Ty::String) {
                Ty::String
            } else if all(Ty::Array) {
                Ty::Array
            } else {
                Ty::Any
            };
        }
        function.returns
    }

    /// Checks a call's number of arguments; whether it is right.
    fn arity(
        &mut self,
        call: &nacl_syntax::arm::ast::Call,
        name: &str,
        min: usize,
        max: Option<usize>,
        found: usize,
    ) -> bool {
        if found >= min && max.is_none_or(|max| found <= max) {
            return true;
        }
        let wanted = match max {
            Some(max) if max == min => format!("{min}"),
            Some(max) => format!("{min} to {max}"),
            None => format!("at least {min}"),
        };
        let range = call
            .syntax()
            .children()
            .find(|n| n.kind() == SyntaxKind::ARG_LIST)
            .map_or(call.syntax().text_range(), |n| n.text_range());
        let s = if wanted == "1" { "" } else { "s" };
        self.problem(
            AnalysisCode::WrongArgumentCount,
            range,
            format!("`{name}` takes {wanted} argument{s}, not {found}"),
        );
        false
    }
}

fn list_or_nothing(names: &[String]) -> String {
    if names.is_empty() { "nothing".to_owned() } else { names.join(", ") }
}
