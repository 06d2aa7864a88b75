//! The semantic model of one ARMLang file: its scopes (the file's, and one per loop body), the
//! symbols declared in them, every name used and what it resolves to, and the dependency graph
//! between declarations.
//!
//! Identifiers are unique within a scope; inner scopes see outer ones and not the reverse. Order
//! does not matter: a name may be used before its declaration.

use crate::codes::AnalysisCode;
use nacl_syntax::{
    TextRange,
    arm::{
        SyntaxKind, SyntaxNode,
        ast::{Declaration, Expr, ForLoop},
    },
    rowan::ast::AstNode,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The index of a symbol in [`Model::symbols`].
pub type SymbolId = usize;
/// The index of a scope in [`Model::scopes`]; the file's scope is 0.
pub type ScopeId = usize;

/// What a symbol is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SymbolKind {
    /// `input <type> <name>`.
    Input {
        /// The type as written.
        ty: String,
    },
    /// `output <name>` (not in any scope: nothing can use an output).
    Output,
    /// `variable <name>`.
    Variable,
    /// `resource <provider> '<type>@<apiVersion>' <name>`.
    Resource {
        /// The provider.
        provider: String,
        /// The resource type.
        ty: String,
        /// The API version.
        api_version: String,
    },
    /// A loop; its name is the `as` name (a loop without one is in no scope).
    Loop {
        /// The scope of its body.
        body: ScopeId,
    },
    /// A loop's item variable.
    LoopItem {
        /// The loop.
        owner: SymbolId,
    },
    /// A loop's index variable.
    LoopIndex {
        /// The loop.
        owner: SymbolId,
    },
}

impl SymbolKind {
    /// What the symbol is, in words, with its article (`an input`, `a loop`).
    pub fn with_article(&self) -> String {
        let word = self.describe();
        let article = if word.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
        format!("{article} {word}")
    }

    /// What the symbol is, in words.
    pub fn describe(&self) -> &'static str {
        match self {
            SymbolKind::Input { .. } => "input",
            SymbolKind::Output => "output",
            SymbolKind::Variable => "variable",
            SymbolKind::Resource { .. } => "resource",
            SymbolKind::Loop { .. } => "loop",
            SymbolKind::LoopItem { .. } => "loop item",
            SymbolKind::LoopIndex { .. } => "loop index",
        }
    }
}

/// A declared identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Its name (empty for a loop without `as`).
    pub name: String,
    /// What it is.
    pub kind: SymbolKind,
    /// The scope it is declared in.
    pub scope: ScopeId,
    /// Where its name is.
    pub name_range: Option<TextRange>,
    /// The whole declaration.
    pub range: TextRange,
    /// Its value (an input's default), if any.
    pub value: Option<TextRange>,
}

/// A scope: the file's or a loop body's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The scope it is inside.
    pub parent: Option<ScopeId>,
    /// The loop whose body it is.
    pub owner: Option<SymbolId>,
    /// Where it is.
    pub range: TextRange,
    /// Its names, and the symbols declared with each (more than one is an error).
    pub names: BTreeMap<String, Vec<SymbolId>>,
    /// Every symbol declared in it, in order (outputs and unnamed loops included).
    pub symbols: Vec<SymbolId>,
}

/// A name used in an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use {
    /// Where the name is.
    pub range: TextRange,
    /// The name.
    pub name: String,
    /// The symbol whose declaration holds the use (for a loop's collection, the loop's item).
    pub from: SymbolId,
    /// The scope it is looked up in.
    pub scope: ScopeId,
    /// What it resolves to.
    pub target: Option<SymbolId>,
    /// Whether the declaration holding it depends on the target: not for the loop named in
    /// `loop[i].member`, which depends on the member alone.
    pub dependency: bool,
}

/// A problem the model finds, with other places in the same file that take part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Its code.
    pub code: AnalysisCode,
    /// Where it is.
    pub range: TextRange,
    /// What is wrong.
    pub message: String,
    /// Other places that take part, and what they are.
    pub related: Vec<(TextRange, String)>,
}

impl Problem {
    /// A problem without related places.
    pub fn new(code: AnalysisCode, range: TextRange, message: impl Into<String>) -> Problem {
        Problem { code, range, message: message.into(), related: Vec::new() }
    }
}

/// The semantic model of a file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Model {
    /// Every scope; 0 is the file's.
    pub scopes: Vec<Scope>,
    /// Every declared symbol.
    pub symbols: Vec<Symbol>,
    /// Every name used, in text order.
    pub uses: Vec<Use>,
    /// Duplicates, undefined names, misplaced declarations and dependency cycles.
    pub problems: Vec<Problem>,
}

impl Model {
    /// The model of the file whose tree is `root`.
    pub fn build(root: &SyntaxNode) -> Model {
        let mut model = Model {
            scopes: vec![Scope {
                parent: None,
                owner: None,
                range: root.text_range(),
                names: BTreeMap::new(),
                symbols: Vec::new(),
            }],
            ..Model::default()
        };
        let mut pending = Vec::new();
        model.declare(root.children().filter_map(Declaration::cast), 0, &mut pending);
        for (node, scope, from) in pending {
            model.collect_uses(&node, scope, from);
        }
        model.uses.sort_by_key(|u| u.range.start());
        model.check_duplicates();
        model.check_undefined();
        model.check_input_defaults();
        model.check_cycles();
        model.problems.sort_by_key(|p| (p.range.start(), p.range.end()));
        model
    }

    fn add_symbol(&mut self, symbol: Symbol, in_scope: bool) -> SymbolId {
        let id = self.symbols.len();
        let scope = symbol.scope;
        if in_scope && !symbol.name.is_empty() {
            self.scopes[scope].names.entry(symbol.name.clone()).or_default().push(id);
        }
        self.scopes[scope].symbols.push(id);
        self.symbols.push(symbol);
        id
    }

    /// Declares `declarations` in `scope`, and queues their expressions (with the scope they are
    /// read in and the symbol they belong to) for [`Model::collect_uses`].
    fn declare(
        &mut self,
        declarations: impl Iterator<Item = Declaration>,
        scope: ScopeId,
        pending: &mut Vec<(SyntaxNode, ScopeId, SymbolId)>,
    ) {
        for declaration in declarations {
            let node = declaration.syntax().clone();
            let name = declaration.name();
            let value = declaration.value();
            let kind = match &declaration {
                Declaration::Input(input) => {
                    SymbolKind::Input { ty: input.ty().map(|t| t.text().to_owned()).unwrap_or_default() }
                }
                Declaration::Output(_) => SymbolKind::Output,
                Declaration::Variable(_) => SymbolKind::Variable,
                Declaration::Resource(resource) => {
                    let (ty, api_version) = resource.type_and_version().unwrap_or_default();
                    let provider = resource.provider().map(|t| t.text().to_owned()).unwrap_or_default();
                    SymbolKind::Resource { provider, ty, api_version }
                }
                Declaration::ForLoop(l) => {
                    self.declare_loop(l, scope, pending);
                    continue;
                }
            };
            if scope != 0 && matches!(kind, SymbolKind::Input { .. } | SymbolKind::Output) {
                let what = kind.describe();
                let range = name.as_ref().map_or(node.text_range(), |n| n.text_range());
                self.problems.push(Problem::new(
                    AnalysisCode::MisplacedDeclaration,
                    range,
                    format!("an {what} is declared at the top level of the file, not inside a loop"),
                ));
            }
            let in_scope = !matches!(kind, SymbolKind::Output);
            let id = self.add_symbol(
                Symbol {
                    name: name.as_ref().map(|n| n.text().to_owned()).unwrap_or_default(),
                    kind,
                    scope,
                    name_range: name.map(|n| n.text_range()),
                    range: node.text_range(),
                    value: value.as_ref().map(|v| v.syntax().text_range()),
                },
                in_scope,
            );
            if let Some(value) = value {
                pending.push((value.syntax().clone(), scope, id));
            }
        }
    }

    fn declare_loop(&mut self, l: &ForLoop, scope: ScopeId, pending: &mut Vec<(SyntaxNode, ScopeId, SymbolId)>) {
        let body_range = l.body().map_or(l.syntax().text_range(), |b| b.syntax().text_range());
        let body = self.scopes.len();
        self.scopes.push(Scope {
            parent: Some(scope),
            owner: None,
            range: body_range,
            names: BTreeMap::new(),
            symbols: Vec::new(),
        });
        let name = l.loop_name();
        let loop_id = self.add_symbol(
            Symbol {
                name: name.as_ref().map(|n| n.text().to_owned()).unwrap_or_default(),
                kind: SymbolKind::Loop { body },
                scope,
                name_range: name.map(|n| n.text_range()),
                range: l.syntax().text_range(),
                value: None,
            },
            true,
        );
        self.scopes[body].owner = Some(loop_id);
        let mut item_id = None;
        for (token, is_index) in [(l.item(), false), (l.index(), true)] {
            let Some(token) = token else { continue };
            let kind = if is_index {
                SymbolKind::LoopIndex { owner: loop_id }
            } else {
                SymbolKind::LoopItem { owner: loop_id }
            };
            let id = self.add_symbol(
                Symbol {
                    name: token.text().to_owned(),
                    kind,
                    scope: body,
                    name_range: Some(token.text_range()),
                    range: token.text_range(),
                    value: None,
                },
                true,
            );
            if !is_index {
                item_id = Some(id);
            }
        }
        if let Some(collection) = l.collection() {
            // The collection is read outside the body: a loop's variables do not see themselves.
            pending.push((collection.syntax().clone(), scope, item_id.unwrap_or(loop_id)));
        }
        if let Some(b) = l.body() {
            self.declare(b.declarations(), body, pending);
        }
    }

    /// Records the names used in `node` (an expression of `from`'s declaration, read in `scope`).
    fn collect_uses(&mut self, node: &SyntaxNode, scope: ScopeId, from: SymbolId) {
        // The names of loops read through `loop[i].member` (the member is the dependency).
        let mut through_member: std::collections::HashSet<TextRange> = std::collections::HashSet::new();
        for n in node.descendants() {
            match n.kind() {
                SyntaxKind::NAME_REF => {
                    let Some(token) = n.first_token().filter(|t| t.kind() == SyntaxKind::IDENT) else { continue };
                    // A called name is a function, unless it is declared.
                    let called = n.parent().is_some_and(|p| p.kind() == SyntaxKind::CALL);
                    let target = self.lookup(scope, token.text());
                    if called && target.is_none() {
                        continue;
                    }
                    let range = token.text_range();
                    let dependency = !through_member.contains(&range);
                    self.uses.push(Use { range, name: token.text().to_owned(), from, scope, target, dependency });
                }
                SyntaxKind::PROPERTY_ACCESS => {
                    // `loop[i].member`: the member is a name of the loop's body.
                    if let Some((member, target)) = self.loop_member(&n, scope) {
                        if let Some(base) = loop_name_of(&n) {
                            through_member.insert(base);
                        }
                        let range = member.text_range();
                        let dependency = !through_member.contains(&range);
                        self.uses.push(Use {
                            range,
                            name: member.text().to_owned(),
                            from,
                            scope,
                            target: Some(target),
                            dependency,
                        });
                    }
                }
                _ => {}
            }
        }
    }

    /// For `l[i].member` with `l` a loop seen from `scope` (or itself such an access, for nested
    /// loops): the member's token and its symbol in the loop's body.
    fn loop_member(&self, node: &SyntaxNode, scope: ScopeId) -> Option<(nacl_syntax::arm::SyntaxToken, SymbolId)> {
        let access = Expr::cast(node.clone())?;
        let member = access.ident()?;
        let Some(Expr::IndexAccess(index)) = access.operands().into_iter().next() else { return None };
        let loop_id = match Expr::cast(index)?.operands().into_iter().next()? {
            Expr::NameRef(base) => self.lookup(scope, base.text().to_string().trim())?,
            Expr::PropertyAccess(base) => self.loop_member(&base, scope)?.1,
            _ => return None,
        };
        let SymbolKind::Loop { body } = self.symbols[loop_id].kind else { return None };
        let target = self.scopes[body].names.get(member.text())?.first().copied()?;
        Some((member, target))
    }

    /// The use of a name exactly at `range` (uses are sorted by position).
    pub fn use_at(&self, range: TextRange) -> Option<&Use> {
        let i = self.uses.partition_point(|u| u.range.start() < range.start());
        self.uses.get(i).filter(|u| u.range == range)
    }

    /// What the name used exactly at `range` resolves to.
    pub fn target_at(&self, range: TextRange) -> Option<SymbolId> {
        self.use_at(range)?.target
    }

    /// The symbol `name` means in `scope`: the innermost declaration of it.
    pub fn lookup(&self, mut scope: ScopeId, name: &str) -> Option<SymbolId> {
        loop {
            if let Some(ids) = self.scopes[scope].names.get(name) {
                return ids.first().copied();
            }
            scope = self.scopes[scope].parent?;
        }
    }

    /// Every name visible from `scope`, innermost first, each once.
    pub fn visible(&self, mut scope: ScopeId) -> Vec<(String, SymbolId)> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        loop {
            for (name, ids) in &self.scopes[scope].names {
                if let Some(&id) = ids.first()
                    && seen.insert(name.clone())
                {
                    out.push((name.clone(), id));
                }
            }
            match self.scopes[scope].parent {
                Some(parent) => scope = parent,
                None => return out,
            }
        }
    }

    /// The innermost scope holding `offset`.
    pub fn scope_at(&self, offset: nacl_syntax::TextSize) -> ScopeId {
        let mut best = 0;
        for (id, scope) in self.scopes.iter().enumerate().skip(1) {
            if scope.range.contains(offset) && scope.range.len() <= self.scopes[best].range.len() {
                best = id;
            }
        }
        best
    }

    fn check_duplicates(&mut self) {
        let mut problems = Vec::new();
        for scope in &self.scopes {
            for (name, ids) in &scope.names {
                if ids.len() < 2 {
                    continue;
                }
                for &id in ids {
                    let symbol = &self.symbols[id];
                    let Some(range) = symbol.name_range else { continue };
                    let related = ids
                        .iter()
                        .filter(|&&other| other != id)
                        .filter_map(|&other| self.symbols[other].name_range.map(|r| (r, format!("the other `{name}`"))))
                        .collect();
                    problems.push(Problem {
                        code: AnalysisCode::DuplicateIdentifier,
                        range,
                        message: format!("`{name}` is declared {} times in this scope", ids.len()),
                        related,
                    });
                }
            }
        }
        self.problems.extend(problems);
    }

    fn check_undefined(&mut self) {
        let mut problems = Vec::new();
        for u in self.uses.iter().filter(|u| u.target.is_none()) {
            let names: Vec<String> = self.visible(u.scope).into_iter().map(|(n, _)| n).collect();
            let suggestion = closest(&u.name, &names).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
            problems.push(Problem::new(
                AnalysisCode::UndefinedName,
                u.range,
                format!("`{}` is not declared{suggestion}", u.name),
            ));
        }
        self.problems.extend(problems);
    }

    /// An input's default may use other inputs only: ARM evaluates defaults before anything else.
    fn check_input_defaults(&mut self) {
        let mut problems = Vec::new();
        for u in &self.uses {
            let (Some(target), SymbolKind::Input { .. }) = (u.target, &self.symbols[u.from].kind) else { continue };
            if !matches!(self.symbols[target].kind, SymbolKind::Input { .. }) {
                problems.push(Problem::new(
                    AnalysisCode::MisplacedDeclaration,
                    u.range,
                    format!(
                        "an input's default can use other inputs only, and `{}` is {}",
                        u.name,
                        self.symbols[target].kind.with_article()
                    ),
                ));
            }
        }
        self.problems.extend(problems);
    }

    /// What each symbol depends on directly: the symbols its declaration uses, a loop's item on
    /// what its collection uses, a loop on its body's declarations, and what a loop's body
    /// declares on the loop's item (for how many copies there are).
    pub fn dependencies(&self) -> Vec<BTreeSet<SymbolId>> {
        let mut deps = vec![BTreeSet::new(); self.symbols.len()];
        for u in self.uses.iter().filter(|u| u.dependency) {
            if let Some(target) = u.target {
                deps[u.from].insert(target);
            }
        }
        for (id, symbol) in self.symbols.iter().enumerate() {
            match symbol.kind {
                SymbolKind::Loop { body } => {
                    let item = self.loop_item(id);
                    for &member in &self.scopes[body].symbols {
                        if Some(member) == item || matches!(self.symbols[member].kind, SymbolKind::LoopIndex { .. }) {
                            continue;
                        }
                        deps[id].insert(member);
                        if let Some(item) = item {
                            deps[member].insert(item);
                        }
                    }
                }
                SymbolKind::LoopIndex { owner } => {
                    if let Some(item) = self.loop_item(owner) {
                        deps[id].insert(item);
                    }
                }
                _ => {}
            }
        }
        deps
    }

    /// The item variable of the loop `id`.
    pub fn loop_item(&self, id: SymbolId) -> Option<SymbolId> {
        let SymbolKind::Loop { body } = self.symbols.get(id)?.kind else { return None };
        self.scopes[body].symbols.iter().copied().find(|&s| matches!(self.symbols[s].kind, SymbolKind::LoopItem { .. }))
    }

    /// The loops enclosing the declaration `id`, outermost first.
    pub fn enclosing_loops(&self, id: SymbolId) -> Vec<SymbolId> {
        let mut out = Vec::new();
        let mut scope = Some(self.symbols[id].scope);
        while let Some(s) = scope {
            out.extend(self.scopes[s].owner);
            scope = self.scopes[s].parent;
        }
        out.reverse();
        out
    }

    /// The resources `id` depends on, through variables, loop variables and loops (not through
    /// other resources), sorted.
    pub fn resource_dependencies(&self, id: SymbolId, deps: &[BTreeSet<SymbolId>]) -> BTreeSet<SymbolId> {
        let mut out = BTreeSet::new();
        let mut seen = BTreeSet::from([id]);
        let mut stack: Vec<SymbolId> = deps[id].iter().copied().collect();
        while let Some(next) = stack.pop() {
            if !seen.insert(next) {
                continue;
            }
            if matches!(self.symbols[next].kind, SymbolKind::Resource { .. }) {
                out.insert(next);
            } else {
                stack.extend(deps[next].iter().copied());
            }
        }
        out
    }

    fn check_cycles(&mut self) {
        let deps = self.dependencies();
        let components = strongly_connected(&deps);
        let mut component_of = vec![usize::MAX; self.symbols.len()];
        for (c, members) in components.iter().enumerate() {
            for &m in members {
                component_of[m] = c;
            }
        }
        let mut problems = Vec::new();
        for u in &self.uses {
            let Some(target) = u.target else { continue };
            let c = component_of[u.from];
            let cyclic = c == component_of[target] && (components[c].len() > 1 || u.from == target);
            if !cyclic {
                continue;
            }
            // The cycle through this edge: `from` → `target` → ... → `from`.
            let mut path = vec![u.from];
            path.extend(shortest_path(&deps, target, u.from, &component_of, c));
            let names: Vec<String> = path.iter().map(|&s| self.display_name(s)).collect();
            problems.push(Problem::new(
                AnalysisCode::DependencyCycle,
                u.range,
                format!("dependency cycle: {}", names.join(" → ")),
            ));
        }
        self.problems.extend(problems);
    }

    /// A symbol's name for messages (`loop over x` for a loop without a name).
    pub fn display_name(&self, id: SymbolId) -> String {
        let symbol = &self.symbols[id];
        if symbol.name.is_empty() {
            let item = self.loop_item(id).map(|i| self.symbols[i].name.clone()).unwrap_or_default();
            return format!("(loop over {item})");
        }
        symbol.name.clone()
    }
}

/// In `loop[i].member` (`node`), where the loop is named: the loop's name, or for a nested
/// `outer[i].inner[j].member` the inner loop's member name.
fn loop_name_of(node: &SyntaxNode) -> Option<TextRange> {
    let access = Expr::cast(node.clone())?;
    let Some(Expr::IndexAccess(index)) = access.operands().into_iter().next() else { return None };
    let base = Expr::cast(index)?.operands().into_iter().next()?;
    base.ident().map(|t| t.text_range())
}

/// The outermost expression of `root` whose range is exactly `range` (a declaration's value).
pub fn expr_at(root: &SyntaxNode, range: TextRange) -> Option<Expr> {
    let node = match root.covering_element(range) {
        nacl_syntax::rowan::NodeOrToken::Node(n) => n,
        nacl_syntax::rowan::NodeOrToken::Token(t) => t.parent()?,
    };
    node.ancestors().take_while(|n| n.text_range() == range).filter_map(Expr::cast).last()
}

/// The collection of the loop of `root` whose range is `range`.
pub fn loop_collection(root: &SyntaxNode, range: TextRange) -> Option<Expr> {
    let node = match root.covering_element(range) {
        nacl_syntax::rowan::NodeOrToken::Node(n) => n,
        nacl_syntax::rowan::NodeOrToken::Token(t) => t.parent()?,
    };
    let node = node.ancestors().find(|n| n.kind() == SyntaxKind::FOR_LOOP && n.text_range() == range)?;
    node.children().find_map(Expr::cast)
}

/// The strongly connected components of the graph `deps` (Tarjan's algorithm, iterative).
fn strongly_connected(deps: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    let n = deps.len();
    let (mut index, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, Vec<usize>)> = vec![(root, deps[root].iter().copied().collect())];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some((v, pending)) = work.last_mut() {
            let v = *v;
            if let Some(w) = pending.pop() {
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, deps[w].iter().copied().collect()));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some((parent, _)) = work.last() {
                low[*parent] = low[*parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

/// The nodes of a shortest path from `from` to `to` inside component `c` (both ends included;
/// just `[to]` when they are the same node).
fn shortest_path(deps: &[BTreeSet<usize>], from: usize, to: usize, component_of: &[usize], c: usize) -> Vec<usize> {
    let mut previous: HashMap<usize, usize> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([from]);
    let mut seen = BTreeSet::from([from]);
    while let Some(v) = queue.pop_front() {
        if v == to {
            let mut path = vec![to];
            let mut at = to;
            while let Some(&p) = previous.get(&at) {
                path.push(p);
                at = p;
            }
            path.reverse();
            return path;
        }
        for &w in &deps[v] {
            if component_of[w] == c && seen.insert(w) {
                previous.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    vec![to]
}

/// The name among `names` closest to `wanted`, when close enough to be a likely typo.
pub fn closest<'n>(wanted: &str, names: &'n [String]) -> Option<&'n str> {
    let lower = wanted.to_lowercase();
    names
        .iter()
        .map(|n| (strsim::osa_distance(&lower, &n.to_lowercase()), n))
        .filter(|(d, n)| *d <= (n.len().max(wanted.len()) / 3).max(1))
        .min_by_key(|(d, n)| (*d, n.len()))
        .map(|(_, n)| n.as_str())
}
