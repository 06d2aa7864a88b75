//! ARMLang's editor features over one file's tree and model: outline, folding, selection,
//! semantic highlighting, hover, definition, references, rename, completion and the dependency
//! lens of each resource.

use super::{
    model::{Model, SymbolId, SymbolKind as Kind},
    types::{Checker, FUNCTIONS, INPUT_TYPES, RESOURCE_MEMBERS, function},
};
use crate::{
    completion::{CompletionItem, CompletionKind, Completions},
    highlight::{Highlight, HighlightKind},
    navigation::HoverInfo,
    structure::{CommentKinds, Fold, FoldKind, Symbol, SymbolKind},
};
use nacl_syntax::{
    TextRange, TextSize,
    arm::{DECLARATION_KEYWORDS, SyntaxKind::*, SyntaxNode, SyntaxToken, ast::Expr},
};

/// The outline: declarations, loops holding theirs.
pub fn symbols(model: &Model) -> Vec<Symbol> {
    symbols_in(model, 0)
}

fn symbols_in(model: &Model, scope: usize) -> Vec<Symbol> {
    let mut out = Vec::new();
    for &id in &model.scopes[scope].symbols {
        let symbol = &model.symbols[id];
        let (kind, detail, children) = match &symbol.kind {
            Kind::Input { ty } => (SymbolKind::Variable, format!("input {ty}"), Vec::new()),
            Kind::Output => (SymbolKind::Property, "output".to_owned(), Vec::new()),
            Kind::Variable => (SymbolKind::Variable, "variable".to_owned(), Vec::new()),
            Kind::Resource { ty, api_version, .. } => (SymbolKind::Instance, format!("{ty}@{api_version}"), Vec::new()),
            Kind::Loop { body } => (SymbolKind::Variables, "for".to_owned(), symbols_in(model, *body)),
            Kind::LoopItem { .. } | Kind::LoopIndex { .. } => continue,
        };
        let name = if symbol.name.is_empty() { model.display_name(id) } else { symbol.name.clone() };
        out.push(Symbol {
            name,
            detail: Some(detail),
            kind,
            range: symbol.range,
            selection: symbol.name_range.unwrap_or(symbol.range),
            children,
        });
    }
    out.sort_by_key(|s| s.range.start());
    out
}

/// The foldable regions.
pub fn folding_ranges(root: &SyntaxNode, text: &str) -> Vec<Fold> {
    crate::structure::folding_ranges_in(
        root,
        text,
        |kind| match kind {
            OBJECT | ARRAY | LOOP_BODY | ARG_LIST | STRING => Some(FoldKind::Region),
            _ => None,
        },
        &CommentKinds { line: LINE_COMMENT, block: BLOCK_COMMENT, newline: NEWLINE, whitespace: WHITESPACE },
    )
}

/// The ranges "expand selection" steps through from `offset`, innermost first.
pub fn selection_ranges(root: &SyntaxNode, offset: TextSize) -> Vec<TextRange> {
    crate::structure::selection_ranges_in(root, offset, |kind| kind.is_trivia() || kind == NEWLINE)
}

/// The semantic highlights of the tokens overlapping `range` (all when `None`).
pub fn highlights(root: &SyntaxNode, model: &Model, range: Option<TextRange>) -> Vec<Highlight> {
    root.descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| range.is_none_or(|r| t.text_range().intersect(r).is_some_and(|i| !i.is_empty())))
        .filter_map(|t| highlight(&t, model))
        .collect()
}

fn highlight(token: &SyntaxToken, model: &Model) -> Option<Highlight> {
    let parent = token.parent().map(|p| p.kind());
    let (kind, declaration, builtin) = match token.kind() {
        LINE_COMMENT | BLOCK_COMMENT => (HighlightKind::Comment, false, false),
        NUMBER => (HighlightKind::Number, false, false),
        STRING_START | STRING_TEXT | STRING_END | MULTILINE_STRING => (HighlightKind::String, false, false),
        INTERP_START | INTERP_END => (HighlightKind::Keyword, false, false),
        PLUS | MINUS | STAR | BANG | EQ2 | NEQ | EQ_TILDE | NOT_TILDE | AND | OR | QUESTION => {
            (HighlightKind::Operator, false, false)
        }
        COLON if parent == Some(TERNARY_EXPR) => (HighlightKind::Operator, false, false),
        IDENT => match parent? {
            INPUT_DECL | OUTPUT_DECL | VARIABLE_DECL | RESOURCE_DECL | FOR_LOOP | LITERAL => {
                (HighlightKind::Keyword, false, false)
            }
            INPUT_TYPE => (HighlightKind::Type, false, true),
            PROVIDER => (HighlightKind::Keyword, false, true),
            NAME => (HighlightKind::Element, true, false),
            PROPERTY_KEY => (HighlightKind::Field, true, false),
            NAME_REF if token.parent().and_then(|p| p.parent()).is_some_and(|p| p.kind() == CALL) => {
                let builtin = function(token.text()).is_some();
                (HighlightKind::Function, false, builtin)
            }
            NAME_REF => {
                let target = model.target_at(token.text_range());
                match target.map(|t| &model.symbols[t].kind) {
                    Some(Kind::Resource { .. }) => (HighlightKind::Type, false, false),
                    _ => (HighlightKind::Element, false, false),
                }
            }
            PROPERTY_ACCESS if token.parent().and_then(|p| p.parent()).is_some_and(|p| p.kind() == CALL) => {
                (HighlightKind::Function, false, true)
            }
            PROPERTY_ACCESS => (HighlightKind::Field, false, false),
            _ => return None,
        },
        _ => return None,
    };
    Some(Highlight { range: token.text_range(), kind, declaration, builtin })
}

/// The identifier token at `offset`.
fn ident_at(root: &SyntaxNode, offset: TextSize) -> Option<SyntaxToken> {
    root.token_at_offset(offset).find(|t| t.kind() == IDENT)
}

/// The symbol whose name or a use of which is at `offset`.
pub fn symbol_at(model: &Model, offset: TextSize) -> Option<(SymbolId, TextRange)> {
    let touches = |r: TextRange| r.contains_inclusive(offset);
    if let Some(u) = model.uses.iter().find(|u| touches(u.range)) {
        return u.target.map(|t| (t, u.range));
    }
    model.symbols.iter().enumerate().find_map(|(id, s)| s.name_range.filter(|r| touches(*r)).map(|r| (id, r)))
}

/// Where the name at `offset` is declared.
pub fn definition(model: &Model, offset: TextSize) -> Option<TextRange> {
    let (id, _) = symbol_at(model, offset)?;
    model.symbols[id].name_range
}

/// The declaration (when `declaration`) and uses of the symbol at `offset`: their ranges, and
/// whether each is the declaration.
pub fn occurrences(model: &Model, offset: TextSize, declaration: bool) -> Vec<(TextRange, bool)> {
    let Some((id, _)) = symbol_at(model, offset) else { return Vec::new() };
    let mut out = Vec::new();
    if declaration && let Some(range) = model.symbols[id].name_range {
        out.push((range, true));
    }
    out.extend(model.uses.iter().filter(|u| u.target == Some(id)).map(|u| (u.range, false)));
    out
}

/// What hovering at `offset` shows: a declaration with its kind and type, a function's signature.
pub fn hover(root: &SyntaxNode, model: &Model, offset: TextSize) -> Option<HoverInfo> {
    if let Some((id, range)) = symbol_at(model, offset) {
        return Some(HoverInfo { range, markdown: describe(root, model, id) });
    }
    let token = ident_at(root, offset)?;
    let parent = token.parent()?;
    let called = parent.parent().is_some_and(|p| p.kind() == CALL);
    let markdown = match parent.kind() {
        NAME_REF if called => function(token.text()).map(|f| f.doc.to_owned())?,
        PROPERTY_ACCESS if called => {
            RESOURCE_MEMBERS.iter().find(|(n, _)| *n == token.text()).map(|(_, d)| (*d).to_owned())?
        }
        INPUT_TYPE => INPUT_TYPES
            .iter()
            .find(|(n, _, _)| *n == token.text())
            .map(|(n, ty, arm)| format!("input type `{n}`: a {} (ARM parameter type `{arm}`)", ty.name()))?,
        INPUT_DECL | OUTPUT_DECL | VARIABLE_DECL | RESOURCE_DECL | FOR_LOOP => keyword_doc(token.text())?.to_owned(),
        _ => return None,
    };
    Some(HoverInfo { range: token.text_range(), markdown })
}

fn keyword_doc(keyword: &str) -> Option<&'static str> {
    Some(match keyword {
        "input" => {
            "`input <type> <name> [: <default>]`: a value supplied when the template is deployed (an ARM parameter)."
        }
        "output" => "`output <name>: <value>`: a value the deployment returns.",
        "variable" => "`variable <name>: <value>`: a named value; it cannot be reassigned.",
        "resource" => {
            "`resource <provider> '<type>@<apiVersion>' <name>: { ... }`: a resource deployed in the state given."
        }
        "for" | "in" | "as" => {
            "`for <item>[, <index>] in <collection> [as <name>] { ... }`: declares copies of its declarations for each item of an array or key of an object."
        }
        _ => return None,
    })
}

/// A symbol's hover: its declaration line and what is known of its type.
fn describe(root: &SyntaxNode, model: &Model, id: SymbolId) -> String {
    let symbol = &model.symbols[id];
    let name = &symbol.name;
    match &symbol.kind {
        Kind::Input { ty } => format!("```armlang\ninput {ty} {name}\n```\nAn input (ARM parameter)."),
        Kind::Output => format!("```armlang\noutput {name}\n```"),
        Kind::Variable => {
            let ty = Checker::new(model, root.clone()).symbol_type(id);
            format!("```armlang\nvariable {name}\n```\nA variable of type `{}`.", ty.name())
        }
        Kind::Resource { provider, ty, api_version } => format!(
            "```armlang\nresource {provider} '{ty}@{api_version}' {name}\n```\nResource type `{ty}`, API version `{api_version}`."
        ),
        Kind::Loop { .. } => format!(
            "```armlang\nfor ... as {name}\n```\nThe copies of a loop's declarations: `{name}[i].<declaration>`."
        ),
        Kind::LoopItem { owner } => {
            format!("```armlang\n{name}\n```\nThe item of `{}` for each copy.", model.display_name(*owner))
        }
        Kind::LoopIndex { owner } => {
            format!("```armlang\n{name}\n```\nThe index (from 0) of each copy of `{}`.", model.display_name(*owner))
        }
    }
}

/// The name a rename at `offset` replaces, or why it cannot be renamed.
pub fn prepare_rename(model: &Model, offset: TextSize) -> Result<(TextRange, String), String> {
    let (id, range) = symbol_at(model, offset).ok_or("there is no declared name here")?;
    Ok((range, model.symbols[id].name.clone()))
}

/// The edits renaming the symbol at `offset` to `new_name`, or why the rename is refused (not an
/// identifier, a keyword, or a name already seen where the symbol is declared or used, which the
/// rename would make mean something else).
pub fn rename(model: &Model, offset: TextSize, new_name: &str) -> Result<Vec<(TextRange, String)>, String> {
    let (id, _) = symbol_at(model, offset).ok_or("there is no declared name here")?;
    if !nacl_syntax::arm::lexer::is_identifier(new_name) {
        return Err(format!("`{new_name}` is not an identifier: a letter or `_`, then letters, digits or `_`"));
    }
    if DECLARATION_KEYWORDS.contains(&new_name) || ["true", "false", "null", "in", "as"].contains(&new_name) {
        return Err(format!("`{new_name}` is a keyword"));
    }
    let symbol = &model.symbols[id];
    if symbol.name == new_name {
        return Ok(Vec::new());
    }
    let clash = |scope| model.lookup(scope, new_name).filter(|&other| other != id);
    let scopes =
        std::iter::once(symbol.scope).chain(model.uses.iter().filter(|u| u.target == Some(id)).map(|u| u.scope));
    for scope in scopes {
        if let Some(other) = clash(scope) {
            let what = model.symbols[other].kind.with_article();
            return Err(format!("`{new_name}` is already {what} seen here: the rename would change what names mean"));
        }
    }
    let mut edits: Vec<(TextRange, String)> =
        occurrences(model, offset, true).into_iter().map(|(r, _)| (r, new_name.to_owned())).collect();
    edits.sort_by_key(|(r, _)| r.start());
    edits.dedup();
    Ok(edits)
}

/// The completions at `offset`: keywords where a declaration starts, input types after `input`,
/// the resource types and API versions of the workspace in a resource's type, member functions
/// after a resource's `.`, and names in scope and functions in an expression.
pub fn completions(
    root: &SyntaxNode,
    model: &Model,
    text: &str,
    offset: TextSize,
    resource_types: &[String],
) -> Completions {
    let before = &text[..usize::from(offset).min(text.len())];
    let line = before.rsplit('\n').next().unwrap_or(before);
    let typed_len = line.bytes().rev().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    let typed_start = offset - TextSize::from(typed_len as u32);
    let range = TextRange::new(typed_start, offset);
    let item = |label: &str, kind, detail: Option<String>, insert: String, snippet, rank| CompletionItem {
        label: label.to_owned(),
        kind,
        detail,
        documentation: None,
        insert,
        snippet,
        range,
        rank,
    };
    let mut items = Vec::new();
    let head = line[..line.len() - typed_len].trim_start();
    let token = root.token_at_offset(offset).left_biased();
    // Inside a resource's type string: the types and versions used in the workspace.
    if let Some(t) = &token
        && matches!(t.kind(), STRING_TEXT | STRING_START)
        && t.parent_ancestors().any(|n| n.kind() == RESOURCE_TYPE)
    {
        let string = t.parent().map_or(t.text_range(), |p| p.text_range());
        let inner = TextRange::new(string.start() + TextSize::from(1), offset.max(string.start() + TextSize::from(1)));
        let mut types: Vec<&String> = resource_types.iter().collect();
        types.sort();
        types.dedup();
        for ty in types {
            items.push(CompletionItem {
                range: inner,
                ..item(ty, CompletionKind::Type, Some("used in the workspace".to_owned()), ty.clone(), false, 0)
            });
        }
        return Completions { items, incomplete: false };
    }
    if token.as_ref().is_some_and(|t| {
        matches!(t.kind(), STRING_TEXT | STRING_START | LINE_COMMENT | BLOCK_COMMENT | MULTILINE_STRING)
    }) {
        return Completions::default();
    }
    if head.is_empty() {
        for keyword in DECLARATION_KEYWORDS {
            let (insert, snippet) = match *keyword {
                "input" => ("input ${1:string} ${2:name}".to_owned(), true),
                "resource" => {
                    ("resource ${1:azrm} '${2:type}@${3:apiVersion}' ${4:name}: {\n  name: $0\n}".to_owned(), true)
                }
                "for" => ("for ${1:item} in ${2:collection} {\n  $0\n}".to_owned(), true),
                other => (format!("{other} ${{1:name}}: $0"), true),
            };
            items.push(item(
                keyword,
                CompletionKind::Keyword,
                keyword_doc(keyword).map(str::to_owned),
                insert,
                snippet,
                0,
            ));
        }
        return Completions { items, incomplete: false };
    }
    if head.trim_end() == "input" {
        for (name, ty, _) in INPUT_TYPES {
            items.push(item(name, CompletionKind::Type, Some(ty.name().to_owned()), (*name).to_owned(), false, 0));
        }
        return Completions { items, incomplete: false };
    }
    // After `.`: a resource's members.
    if line[..line.len() - typed_len].ends_with('.') {
        let dot = typed_start - TextSize::from(1);
        let receiver = root.token_at_offset(dot).left_biased().and_then(|t| {
            t.parent_ancestors().find_map(|n| Expr::cast(n).filter(|e| e.syntax().text_range().end() <= dot))
        });
        let is_resource = receiver
            .as_ref()
            .is_some_and(|r| matches!(Checker::new(model, root.clone()).infer(r), super::types::Ty::Resource(_)));
        if is_resource {
            for (name, doc) in RESOURCE_MEMBERS {
                items.push(CompletionItem {
                    documentation: Some((*doc).to_owned()),
                    ..item(&format!("{name}()"), CompletionKind::Function, None, format!("{name}()"), false, 0)
                });
            }
            for property in ["name", "properties", "type", "apiVersion", "location"] {
                items.push(item(property, CompletionKind::Field, None, property.to_owned(), false, 1));
            }
        }
        return Completions { items, incomplete: false };
    }
    let scope = model.scope_at(offset);
    for (name, id) in model.visible(scope) {
        let kind = match model.symbols[id].kind {
            Kind::Resource { .. } => CompletionKind::Instance,
            _ => CompletionKind::Variable,
        };
        let detail = Some(model.symbols[id].kind.describe().to_owned());
        items.push(item(&name, kind, detail, name.clone(), false, 0));
    }
    for f in FUNCTIONS {
        let insert = if f.params.is_empty() { format!("{}()", f.name) } else { format!("{}($1)", f.name) };
        items.push(CompletionItem {
            documentation: Some(f.doc.to_owned()),
            ..item(f.name, CompletionKind::Function, Some(f.returns.name().to_owned()), insert, true, 1)
        });
    }
    for literal in ["true", "false", "null"] {
        items.push(item(literal, CompletionKind::Keyword, None, literal.to_owned(), false, 2));
    }
    Completions { items, incomplete: false }
}

/// A lens on each resource: what it depends on (the resources it needs deployed first).
pub fn dependency_lenses(model: &Model) -> Vec<(TextRange, String)> {
    let deps = model.dependencies();
    model
        .symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.kind, Kind::Resource { .. }))
        .map(|(id, s)| {
            let names: Vec<String> = model
                .resource_dependencies(id, &deps)
                .into_iter()
                .filter(|&d| d != id)
                .map(|d| model.display_name(d))
                .collect();
            let title = if names.is_empty() {
                "depends on nothing".to_owned()
            } else {
                format!("depends on {}", names.join(", "))
            };
            (s.name_range.unwrap_or(s.range), title)
        })
        .collect()
}
