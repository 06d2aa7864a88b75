//! The compiler from ARMLang to an ARM deployment template (JSON).
//!
//! Inputs become `parameters`, top-level variables `variables` (a variable that uses a resource or
//! a loop is written out where it is used instead: ARM evaluates `variables` before deploying
//! anything), resources `resources` with `dependsOn` from the dependency graph, outputs `outputs`.
//! Literal values stay JSON; every other expression becomes an ARM template expression string
//! (`[parameters('x')]`, `[format('{0}-x', ...)]`, `[resourceId(...)]`, `[reference(...)]`). A
//! resource inside loops gets a `copy` (nested loops are flattened into one, their items and
//! indexes read from `copyIndex()`). Parameters, variables and outputs are sorted by name and
//! resources by their loops' names and their own, so the output does not depend on the order of
//! the declarations.

use super::{
    model::{Model, Problem, SymbolId, SymbolKind},
    types::{Checker, FUNCTIONS, INPUT_TYPES, Ty},
};
use crate::{codes::AnalysisCode, hcldec::json::Json};
use nacl_syntax::{
    TextRange,
    arm::{
        SyntaxKind::*,
        SyntaxNode,
        ast::{Expr, StrPart},
    },
    rowan::ast::AstNode,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// How many variables deep the compiler writes a variable out inside another's use.
const MAX_INLINED: usize = 64;

/// The `$schema` of a resource-group deployment template.
pub const SCHEMA: &str = "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#";

/// The template of the file `root` with its model, and what cannot be compiled.
pub fn build(root: &SyntaxNode, model: &Model) -> (Json, Vec<Problem>) {
    let mut compiler = Compiler::new(root, model);
    let json = compiler.template();
    let mut problems = compiler.problems;
    problems.sort_by_key(|p| (p.range.start(), p.range.end()));
    problems.dedup();
    (json, problems)
}

struct Compiler<'m> {
    root: SyntaxNode,
    model: &'m Model,
    deps: Vec<BTreeSet<SymbolId>>,
    /// The variables written out where they are used.
    inlined: BTreeSet<SymbolId>,
    /// The ARM copy name of each resource inside loops.
    copy_names: HashMap<SymbolId, String>,
    problems: Vec<Problem>,
    /// Variables being written out (a cycle, reported by the model, is cut).
    active: Vec<SymbolId>,
}

/// What the loop variables mean where an expression is translated.
type Scope = HashMap<SymbolId, String>;

impl<'m> Compiler<'m> {
    fn new(root: &SyntaxNode, model: &'m Model) -> Compiler<'m> {
        let deps = model.dependencies();
        let mut compiler = Compiler {
            root: root.clone(),
            model,
            inlined: BTreeSet::new(),
            copy_names: HashMap::new(),
            deps,
            problems: Vec::new(),
            active: Vec::new(),
        };
        compiler.inlined = compiler.inlined_variables();
        compiler.name_copies();
        compiler
    }

    fn problem(&mut self, range: TextRange, message: impl Into<String>) {
        self.problems.push(Problem::new(AnalysisCode::NotCompilable, range, message));
    }

    fn symbols_of(&self, pick: impl Fn(&SymbolKind) -> bool) -> Vec<SymbolId> {
        (0..self.model.symbols.len()).filter(|&id| pick(&self.model.symbols[id].kind)).collect()
    }

    /// Variables inside loops, and those that use (through other variables) a resource or a loop:
    /// marked from the variables that use one directly, then back along the uses of variables.
    fn inlined_variables(&self) -> BTreeSet<SymbolId> {
        let is_variable = |id: SymbolId| matches!(self.model.symbols[id].kind, SymbolKind::Variable);
        let mut users: Vec<Vec<SymbolId>> = vec![Vec::new(); self.model.symbols.len()];
        let mut marked = BTreeSet::new();
        let mut stack = Vec::new();
        for id in (0..self.model.symbols.len()).filter(|&id| is_variable(id)) {
            let direct = self.model.symbols[id].scope != 0
                || self.deps[id].iter().any(|&d| {
                    matches!(self.model.symbols[d].kind, SymbolKind::Resource { .. } | SymbolKind::Loop { .. })
                });
            if direct && marked.insert(id) {
                stack.push(id);
            }
            for &d in self.deps[id].iter().filter(|&&d| is_variable(d)) {
                users[d].push(id);
            }
        }
        while let Some(id) = stack.pop() {
            for &user in &users[id] {
                if marked.insert(user) {
                    stack.push(user);
                }
            }
        }
        marked
    }

    /// The copy name of each resource inside loops: its loops' names (`for-<item>` for a loop
    /// without `as`) and its own, joined by `-`.
    fn name_copies(&mut self) {
        let mut seen: HashMap<String, SymbolId> = HashMap::new();
        for id in self.symbols_of(|k| matches!(k, SymbolKind::Resource { .. })) {
            let loops = self.model.enclosing_loops(id);
            if loops.is_empty() {
                continue;
            }
            let mut parts: Vec<String> = loops.iter().map(|&l| self.loop_label(l)).collect();
            parts.push(self.model.symbols[id].name.clone());
            let name = parts.join("-");
            if let Some(&other) = seen.get(&name) {
                let range = self.model.symbols[id].name_range.unwrap_or(self.model.symbols[id].range);
                let other = self.model.symbols[other].name_range.unwrap_or_default();
                let mut problem = Problem::new(
                    AnalysisCode::NotCompilable,
                    range,
                    format!("two resources would get the copy loop name `{name}`: name one of their loops with `as`"),
                );
                problem.related.push((other, "the other resource".to_owned()));
                self.problems.push(problem);
            }
            seen.insert(name.clone(), id);
            self.copy_names.insert(id, name);
        }
    }

    fn loop_label(&self, l: SymbolId) -> String {
        let symbol = &self.model.symbols[l];
        if symbol.name.is_empty() {
            let item = self.model.loop_item(l).map(|i| self.model.symbols[i].name.clone()).unwrap_or_default();
            format!("for-{item}")
        } else {
            symbol.name.clone()
        }
    }

    fn value_of(&self, id: SymbolId) -> Option<Expr> {
        super::model::expr_at(&self.root, self.model.symbols[id].value?)
    }

    fn collection_of(&self, l: SymbolId) -> Option<Expr> {
        super::model::loop_collection(&self.root, self.model.symbols[l].range)
    }

    fn ty(&self, expr: &Expr) -> Ty {
        Checker::new(self.model, self.root.clone()).infer(expr)
    }

    // ---- The template ---------------------------------------------------------------------

    fn template(&mut self) -> Json {
        let parameters = self.parameters();
        let variables = self.variables();
        let resources = self.resources();
        let outputs = self.outputs();
        Json::Object(vec![
            ("$schema".to_owned(), Json::String(SCHEMA.to_owned())),
            ("contentVersion".to_owned(), Json::String("1.0.0.0".to_owned())),
            ("parameters".to_owned(), Json::Object(parameters)),
            ("variables".to_owned(), Json::Object(variables)),
            ("resources".to_owned(), Json::Array(resources)),
            ("outputs".to_owned(), Json::Object(outputs)),
        ])
    }

    fn parameters(&mut self) -> Vec<(String, Json)> {
        let mut out = BTreeMap::new();
        for id in self.symbols_of(|k| matches!(k, SymbolKind::Input { .. })) {
            let SymbolKind::Input { ty } = &self.model.symbols[id].kind else { continue };
            let arm_type = INPUT_TYPES.iter().find(|(n, _, _)| n == ty).map_or("string", |(_, _, arm)| arm);
            let mut parameter = vec![("type".to_owned(), Json::String(arm_type.to_owned()))];
            if let Some(default) = self.value_of(id) {
                parameter.push(("defaultValue".to_owned(), self.json(&default, &Scope::new())));
            }
            out.insert(self.model.symbols[id].name.clone(), Json::Object(parameter));
        }
        out.into_iter().collect()
    }

    fn variables(&mut self) -> Vec<(String, Json)> {
        let mut out = BTreeMap::new();
        for id in self.symbols_of(|k| matches!(k, SymbolKind::Variable)) {
            if self.inlined.contains(&id) {
                continue;
            }
            if let Some(value) = self.value_of(id) {
                let json = self.json(&value, &Scope::new());
                out.insert(self.model.symbols[id].name.clone(), json);
            }
        }
        out.into_iter().collect()
    }

    fn outputs(&mut self) -> Vec<(String, Json)> {
        let mut out = BTreeMap::new();
        for id in self.symbols_of(|k| matches!(k, SymbolKind::Output)) {
            let Some(value) = self.value_of(id) else { continue };
            let ty = match self.ty(&value) {
                Ty::Number => "int",
                Ty::Bool => "bool",
                Ty::Object | Ty::Resource(_) => "object",
                Ty::Array => "array",
                _ => "string",
            };
            let value = self.json(&value, &Scope::new());
            out.insert(
                self.model.symbols[id].name.clone(),
                Json::Object(vec![("type".to_owned(), Json::String(ty.to_owned())), ("value".to_owned(), value)]),
            );
        }
        out.into_iter().collect()
    }

    fn resources(&mut self) -> Vec<Json> {
        let mut resources: Vec<(Vec<String>, Json)> = Vec::new();
        for id in self.symbols_of(|k| matches!(k, SymbolKind::Resource { .. })) {
            let mut key: Vec<String> = self.model.enclosing_loops(id).iter().map(|&l| self.loop_label(l)).collect();
            key.push(self.model.symbols[id].name.clone());
            let json = self.resource(id);
            resources.push((key, json));
        }
        resources.sort_by(|a, b| a.0.cmp(&b.0));
        resources.into_iter().map(|(_, json)| json).collect()
    }

    /// What the loop variables of the loops around `id` are inside it, and its `copy` (its count),
    /// or `None` outside loops.
    fn loop_scope(&mut self, id: SymbolId) -> (Scope, Option<String>) {
        let loops = self.model.enclosing_loops(id);
        if loops.is_empty() {
            return (Scope::new(), None);
        }
        let mut scope = Scope::new();
        // Each loop's collection and its length, read outside every loop.
        let mut collections = Vec::new();
        for (depth, &l) in loops.iter().enumerate() {
            let Some(collection) = self.collection_of(l) else { return (scope, None) };
            if depth > 0 {
                self.check_independent(&collection, &loops[..depth]);
            }
            let is_object = self.ty(&collection) == Ty::Object;
            let range_count = self.range_count(&collection);
            let arm = self.arm(&collection, &Scope::new());
            let is_range = range_count.is_some();
            let length = range_count
                .unwrap_or_else(|| if is_object { format!("length(items({arm}))") } else { format!("length({arm})") });
            collections.push((l, arm, length, is_object, is_range));
        }
        for (k, (l, arm, length, is_object, is_range)) in collections.iter().enumerate() {
            let inner: Vec<&str> = collections[k + 1..].iter().map(|c| c.2.as_str()).collect();
            let mut index = "copyIndex()".to_owned();
            if !inner.is_empty() {
                index = format!("div({index}, {})", product(&inner));
            }
            if k > 0 {
                index = format!("mod({index}, {length})");
            }
            let item = if *is_range {
                index.clone()
            } else if *is_object {
                format!("items({arm})[{index}].key")
            } else {
                format!("{arm}[{index}]")
            };
            if let Some(i) = self.model.loop_item(*l) {
                scope.insert(i, item);
            }
            if let SymbolKind::Loop { body } = self.model.symbols[*l].kind {
                for &s in &self.model.scopes[body].symbols {
                    if matches!(self.model.symbols[s].kind, SymbolKind::LoopIndex { .. }) {
                        scope.insert(s, index.clone());
                    }
                }
            }
        }
        let lengths: Vec<&str> = collections.iter().map(|c| c.2.as_str()).collect();
        (scope, Some(product(&lengths)))
    }

    /// `n` when `collection` is `range(n)`: its count, without building the array.
    fn range_count(&mut self, collection: &Expr) -> Option<String> {
        let Expr::Call(call) = collection else { return None };
        if call.receiver().is_some() || call.name()?.text() != "range" {
            return None;
        }
        let [n] = call.args().try_into().ok()?;
        Some(self.arm(&n, &Scope::new()))
    }

    /// An inner loop's collection may not use what the outer loops define: a flattened copy
    /// loop has one count.
    fn check_independent(&mut self, collection: &Expr, outer: &[SymbolId]) {
        let range = collection.syntax().text_range();
        let outer_scopes: Vec<usize> = outer
            .iter()
            .filter_map(|&l| match self.model.symbols[l].kind {
                SymbolKind::Loop { body } => Some(body),
                _ => None,
            })
            .collect();
        let mut bad = None;
        for u in self.model.uses.iter().filter(|u| range.contains_range(u.range)) {
            if let Some(target) = u.target
                && outer_scopes.contains(&self.model.symbols[target].scope)
            {
                bad = Some(u.range);
            }
        }
        if let Some(at) = bad {
            self.problem(
                at,
                "an inner loop's collection cannot use the outer loop's variables or declarations: an ARM copy loop has one count",
            );
        }
    }

    fn resource(&mut self, id: SymbolId) -> Json {
        let SymbolKind::Resource { ty, api_version, .. } = self.model.symbols[id].kind.clone() else {
            return Json::Null;
        };
        let (scope, count) = self.loop_scope(id);
        let mut out = vec![("type".to_owned(), Json::String(ty)), ("apiVersion".to_owned(), Json::String(api_version))];
        let value = self.value_of(id);
        let name_range = self.model.symbols[id].name_range.unwrap_or(self.model.symbols[id].range);
        let mut rest = Vec::new();
        match &value {
            Some(Expr::Object(object)) => {
                let mut name = None;
                for property in object.properties() {
                    let (Some(key), Some(v)) = (property.key(), property.value()) else { continue };
                    let json = self.json(&v, &scope);
                    if key == "name" {
                        name = Some(json);
                    } else if matches!(key.as_str(), "type" | "apiVersion" | "copy" | "dependsOn") {
                        let range = property.syntax().text_range();
                        self.problem(
                            range,
                            format!("`{key}` is written by the compiler, from the declaration and its loops"),
                        );
                    } else {
                        rest.push((key, json));
                    }
                }
                match name {
                    Some(name) => out.push(("name".to_owned(), name)),
                    None => self.problem(name_range, "a resource needs a `name` property"),
                }
            }
            Some(other) => {
                let range = other.syntax().text_range();
                self.problem(range, "a resource's value is written as an object `{ ... }`");
            }
            None => {}
        }
        if let (Some(count), Some(copy)) = (count, self.copy_names.get(&id)) {
            out.push((
                "copy".to_owned(),
                Json::Object(vec![
                    ("name".to_owned(), Json::String(copy.clone())),
                    ("count".to_owned(), Json::String(format!("[{count}]"))),
                ]),
            ));
        }
        out.extend(rest);
        // A resource in the same loops depends on the same copy (the one `copyIndex()` names);
        // one in other loops on all of its loop's copies.
        let loops = self.model.enclosing_loops(id);
        let depends: BTreeSet<String> = self
            .model
            .resource_dependencies(id, &self.deps)
            .into_iter()
            .filter(|&d| d != id)
            .map(|d| match self.copy_names.get(&d) {
                Some(_) if self.model.enclosing_loops(d) == loops => format!("[{}]", self.resource_id(d, &scope)),
                Some(copy) => copy.clone(),
                None => format!("[{}]", self.resource_id(d, &Scope::new())),
            })
            .collect();
        if !depends.is_empty() {
            out.push(("dependsOn".to_owned(), Json::Array(depends.into_iter().map(Json::String).collect())));
        }
        Json::Object(out)
    }

    // ---- Expressions ----------------------------------------------------------------------

    /// `expr` as a JSON value: literals as they are, anything else as an expression string.
    fn json(&mut self, expr: &Expr, scope: &Scope) -> Json {
        match expr {
            Expr::Literal(n) => match n.text().to_string().as_str() {
                "true" => Json::Bool(true),
                "false" => Json::Bool(false),
                "null" => Json::Null,
                number => Json::Number(number.to_owned()),
            },
            Expr::Str(s) => match s.literal_value() {
                // ARM reads a string in brackets as an expression; `[[` escapes the bracket.
                Some(text) if text.starts_with('[') => Json::String(format!("[{text}")),
                Some(text) => Json::String(text),
                None => Json::String(format!("[{}]", self.arm(expr, scope))),
            },
            Expr::Object(o) => Json::Object(
                o.properties()
                    .filter_map(|p| Some((p.key()?, p.value()?)))
                    .map(|(k, v)| (k, self.json(&v, scope)))
                    .collect(),
            ),
            Expr::Array(a) => Json::Array(a.items().map(|i| self.json(&i, scope)).collect()),
            Expr::Paren(_) => match expr.operands().first() {
                Some(inner) => self.json(inner, scope),
                None => Json::Null,
            },
            Expr::NameRef(_) => match self.target(expr) {
                Some(id) if self.inlined.contains(&id) && !self.active.contains(&id) && self.inlining_fits(expr) => {
                    let Some(value) = self.value_of(id) else { return Json::Null };
                    self.active.push(id);
                    let scope = self.scope_for(id, scope);
                    let json = self.json(&value, &scope);
                    self.active.pop();
                    json
                }
                _ => Json::String(format!("[{}]", self.arm(expr, scope))),
            },
            _ => Json::String(format!("[{}]", self.arm(expr, scope))),
        }
    }

    /// Whether one more variable can be written out inside the ones being written; reports the
    /// use at `expr` when not.
    fn inlining_fits(&mut self, expr: &Expr) -> bool {
        self.inlining_fits_at(expr.syntax().text_range())
    }

    fn inlining_fits_at(&mut self, at: TextRange) -> bool {
        if self.active.len() < MAX_INLINED {
            return true;
        }
        self.problem(at, format!("variables that use resources nest more than {MAX_INLINED} deep here: the compiler writes each out where it is used"));
        false
    }

    /// The loop-variable meanings to translate declaration `id`'s value with: `scope` when it
    /// already covers the loops around `id`, else the loops' own (`id` used from inside them).
    fn scope_for(&mut self, id: SymbolId, scope: &Scope) -> Scope {
        let loops = self.model.enclosing_loops(id);
        let covered = loops.iter().all(|&l| self.model.loop_item(l).is_none_or(|i| scope.contains_key(&i)));
        if covered { scope.clone() } else { self.loop_scope(id).0 }
    }

    fn target(&self, expr: &Expr) -> Option<SymbolId> {
        let range = expr.ident()?.text_range();
        self.model.target_at(range)
    }

    /// `expr` as an ARM template expression (without the brackets).
    fn arm(&mut self, expr: &Expr, scope: &Scope) -> String {
        let operands = expr.operands();
        match expr {
            Expr::Literal(n) => match n.text().to_string().as_str() {
                "true" => "true()".to_owned(),
                "false" => "false()".to_owned(),
                "null" => "null()".to_owned(),
                number if number.bytes().all(|b| b.is_ascii_digit()) => number.to_owned(),
                number => format!("json('{number}')"),
            },
            Expr::Str(s) => {
                let parts = s.parts();
                if let [StrPart::Interpolation(i)] = parts.as_slice() {
                    return match i.expr() {
                        Some(e) => format!("string({})", self.arm(&e, scope)),
                        None => "''".to_owned(),
                    };
                }
                let mut pattern = String::new();
                let mut args = Vec::new();
                for part in parts {
                    match part {
                        StrPart::Text(text) => pattern.push_str(&text.replace('{', "{{").replace('}', "}}")),
                        StrPart::Interpolation(i) => {
                            pattern.push_str(&format!("{{{}}}", args.len()));
                            args.push(i.expr().map_or("''".to_owned(), |e| self.arm(&e, scope)));
                        }
                    }
                }
                if args.is_empty() {
                    return arm_string(&s.literal_value().unwrap_or_default());
                }
                format!("format({}, {})", arm_string(&pattern), args.join(", "))
            }
            Expr::Object(o) => {
                let mut args = Vec::new();
                for p in o.properties() {
                    let (Some(k), Some(v)) = (p.key(), p.value()) else { continue };
                    args.push(arm_string(&k));
                    args.push(self.arm(&v, scope));
                }
                format!("createObject({})", args.join(", "))
            }
            Expr::Array(a) => {
                let items: Vec<String> = a.items().map(|i| self.arm(&i, scope)).collect();
                format!("createArray({})", items.join(", "))
            }
            Expr::Paren(_) => operands.first().map_or_else(|| "null()".to_owned(), |e| self.arm(e, scope)),
            Expr::Unary(_) => {
                let operand = operands.first().map_or_else(|| "null()".to_owned(), |e| self.arm(e, scope));
                match expr.operator().map(|t| t.kind()) {
                    Some(BANG) => format!("not({operand})"),
                    _ if operand.bytes().all(|b| b.is_ascii_digit()) => format!("-{operand}"),
                    _ => format!("sub(0, {operand})"),
                }
            }
            Expr::Binary(_) => {
                let [a, b] = operands.as_slice() else { return "null()".to_owned() };
                let (a, b) = (self.arm(a, scope), self.arm(b, scope));
                match expr.operator().map(|t| t.kind()) {
                    Some(PLUS) => format!("add({a}, {b})"),
                    Some(MINUS) => format!("sub({a}, {b})"),
                    Some(STAR) => format!("mul({a}, {b})"),
                    Some(EQ2) => format!("equals({a}, {b})"),
                    Some(NEQ) => format!("not(equals({a}, {b}))"),
                    Some(EQ_TILDE) => format!("equals(toLower({a}), toLower({b}))"),
                    Some(NOT_TILDE) => format!("not(equals(toLower({a}), toLower({b})))"),
                    Some(AND) => format!("and({a}, {b})"),
                    _ => format!("or({a}, {b})"),
                }
            }
            Expr::Ternary(_) => {
                let [c, a, b] = operands.as_slice() else { return "null()".to_owned() };
                format!("if({}, {}, {})", self.arm(c, scope), self.arm(a, scope), self.arm(b, scope))
            }
            Expr::IndexAccess(_) => {
                let [base, index] = operands.as_slice() else { return "null()".to_owned() };
                format!("{}[{}]", self.arm(base, scope), self.arm(index, scope))
            }
            Expr::NameRef(n) => match self.target(expr) {
                Some(id) => self.symbol(id, scope, n.text_range()),
                None => "null()".to_owned(),
            },
            Expr::PropertyAccess(_) => self.property(expr, &operands, scope),
            Expr::Call(call) => {
                let Some(name) = call.name() else { return "null()".to_owned() };
                let args: Vec<String> = call.args().iter().map(|a| self.arm(a, scope)).collect();
                if let Some(receiver) = call.receiver() {
                    // `resource.id()`, or `loop[i].resource.id()`.
                    return match self.resource_of(&receiver, scope) {
                        Some((id, scope)) if name.text() == "id" => self.resource_id(id, &scope),
                        _ => "null()".to_owned(),
                    };
                }
                match FUNCTIONS.iter().find(|f| f.name == name.text()) {
                    Some(f) if f.name == "range" => format!("range(0, {})", args.join(", ")),
                    Some(f) => format!("{}({})", f.arm, args.join(", ")),
                    None => "null()".to_owned(),
                }
            }
        }
    }

    /// The resource `expr` names (`res`, or `loop[i].res`) and the loop-variable meanings to read
    /// it with.
    fn resource_of(&mut self, expr: &Expr, scope: &Scope) -> Option<(SymbolId, Scope)> {
        match expr {
            Expr::NameRef(_) => {
                let id = self.target(expr)?;
                matches!(self.model.symbols[id].kind, SymbolKind::Resource { .. })
                    .then(|| (id, self.scope_for(id, scope)))
            }
            Expr::PropertyAccess(_) => {
                let (member, scope) = self.loop_member(expr, scope)?;
                matches!(self.model.symbols[member].kind, SymbolKind::Resource { .. }).then_some((member, scope))
            }
            Expr::Paren(_) => self.resource_of(expr.operands().first()?, scope),
            _ => None,
        }
    }

    /// For `loop[i].member`: the member and the meanings of the loop's variables for copy `i`.
    fn loop_member(&mut self, expr: &Expr, scope: &Scope) -> Option<(SymbolId, Scope)> {
        let member = self.target(expr)?;
        let Some(Expr::IndexAccess(index_node)) = expr.operands().into_iter().next() else { return None };
        let index_expr = Expr::cast(index_node)?;
        let [base, index] = index_expr.operands().try_into().ok()?;
        let l = self.target(&base)?;
        let index = self.arm(&index, scope);
        let collection = self.collection_of(l)?;
        // `outer[i].inner[j].member`: the outer loop's variables are those of its copy `i`.
        let mut inner = match base {
            Expr::PropertyAccess(_) => self.loop_member(&base, scope)?.1,
            _ => scope.clone(),
        };
        let item = match self.range_count(&collection) {
            Some(_) => index.clone(),
            None if self.ty(&collection) == Ty::Object => {
                format!("items({})[{index}].key", self.arm(&collection, scope))
            }
            None => format!("{}[{index}]", self.arm(&collection, scope)),
        };
        if let Some(i) = self.model.loop_item(l) {
            inner.insert(i, item);
        }
        if let SymbolKind::Loop { body } = self.model.symbols[l].kind {
            for &s in &self.model.scopes[body].symbols {
                if matches!(self.model.symbols[s].kind, SymbolKind::LoopIndex { .. }) {
                    inner.insert(s, index.clone());
                }
            }
        }
        Some((member, inner))
    }

    fn property(&mut self, expr: &Expr, operands: &[Expr], scope: &Scope) -> String {
        let Some(name) = expr.ident() else { return "null()".to_owned() };
        let name = name.text().to_owned();
        let Some(base) = operands.first() else { return "null()".to_owned() };
        if let Some((member, inner)) = self.loop_member(expr, scope) {
            return self.symbol(member, &inner, expr.syntax().text_range());
        }
        if let Some((id, inner)) = self.resource_of(base, scope) {
            let SymbolKind::Resource { ty, api_version, .. } = self.model.symbols[id].kind.clone() else {
                return "null()".to_owned();
            };
            return match name.as_str() {
                "name" => self.resource_name(id, &inner),
                "type" => arm_string(&ty),
                "apiVersion" => arm_string(&api_version),
                "properties" => format!("reference({}, {})", self.resource_id(id, &inner), arm_string(&api_version)),
                other => {
                    format!("reference({}, {}, 'Full').{other}", self.resource_id(id, &inner), arm_string(&api_version))
                }
            };
        }
        format!("{}.{name}", self.arm(base, scope))
    }

    /// A use of the symbol `id` as an ARM expression.
    fn symbol(&mut self, id: SymbolId, scope: &Scope, at: TextRange) -> String {
        let symbol = &self.model.symbols[id];
        match &symbol.kind {
            SymbolKind::Input { .. } => format!("parameters({})", arm_string(&symbol.name)),
            SymbolKind::Variable if !self.inlined.contains(&id) => format!("variables({})", arm_string(&symbol.name)),
            SymbolKind::Variable => {
                if self.active.contains(&id) || !self.inlining_fits_at(at) {
                    return "null()".to_owned();
                }
                let Some(value) = self.value_of(id) else { return "null()".to_owned() };
                self.active.push(id);
                let inner = self.scope_for(id, scope);
                let arm = self.arm(&value, &inner);
                self.active.pop();
                arm
            }
            SymbolKind::Resource { api_version, .. } => {
                let api_version = api_version.clone();
                let inner = self.scope_for(id, scope);
                format!("reference({}, {}, 'Full')", self.resource_id(id, &inner), arm_string(&api_version))
            }
            SymbolKind::LoopItem { .. } | SymbolKind::LoopIndex { .. } => match scope.get(&id) {
                Some(arm) => arm.clone(),
                None => {
                    self.problem(at, "a loop variable is used outside the copies of its loop's resources");
                    "null()".to_owned()
                }
            },
            SymbolKind::Loop { .. } => {
                let name = symbol.name.clone();
                self.problem(at, format!("the copies of loop `{name}` are used one at a time: `{name}[0].<name>`"));
                "null()".to_owned()
            }
            SymbolKind::Output => "null()".to_owned(),
        }
    }

    /// The `name` of resource `id` as an ARM expression.
    fn resource_name(&mut self, id: SymbolId, scope: &Scope) -> String {
        let Some(Expr::Object(object)) = self.value_of(id) else { return "''".to_owned() };
        let name = object.properties().find(|p| p.key().as_deref() == Some("name")).and_then(|p| p.value());
        match name {
            Some(name) => self.arm(&name, scope),
            None => "''".to_owned(),
        }
    }

    /// `resourceId('<type>', <name segments>)` of resource `id`.
    fn resource_id(&mut self, id: SymbolId, scope: &Scope) -> String {
        let SymbolKind::Resource { ty, .. } = self.model.symbols[id].kind.clone() else { return "null()".to_owned() };
        let name = self.resource_name(id, scope);
        // A child resource's literal name `parent/child` is one segment per level.
        let segments = match name.strip_prefix('\'').and_then(|n| n.strip_suffix('\'')) {
            Some(literal) if literal.contains('/') => {
                literal.split('/').map(|s| format!("'{s}'")).collect::<Vec<_>>().join(", ")
            }
            _ => name,
        };
        format!("resourceId({}, {segments})", arm_string(&ty))
    }
}

fn product(factors: &[&str]) -> String {
    match factors {
        [] => "1".to_owned(),
        [one] => (*one).to_owned(),
        [first, rest @ ..] => format!("mul({first}, {})", product(rest)),
    }
}

/// `text` as a string literal of ARM's expression language (`'` doubled).
pub fn arm_string(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}
