//! Editor help from hcldec specs: in a file a spec describes, completion of the attributes and
//! blocks the spec allows here and that are not written yet, hover with an item's spec (type,
//! required, the spec's comments), go to definition from an item to its spec and from a custom
//! function's call to its `function` block, and the decoded value as JSON; in a spec file,
//! completion of spec block types and their arguments and hover with what each block type does.

use super::{
    Source,
    body::Body,
    decode::decode,
    json::value_json,
    schema::{Association, association, is_spec_file, loaded_spec},
    spec::{SPEC_BLOCK_TYPES, Spec, SpecFile, SpecKind},
    types::type_expression,
};
use crate::{
    completion::{CompletionItem, CompletionKind, Completions},
    db::{Db, SourceFile, Workspace},
    navigation::{HoverInfo, Target},
};
use nacl_syntax::{
    TextRange, TextSize,
    hcl::{SyntaxKind::*, SyntaxNode, SyntaxToken},
};

/// The spec file describing `file` and its loaded spec, when it has one without errors.
fn spec_of(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Option<(SourceFile, &SpecFile)> {
    match association(db, workspace, file) {
        Association::Spec { spec, .. } => loaded_spec(db, *spec).spec.as_ref().map(|s| (*spec, s)),
        _ => None,
    }
}

/// The spec that reads blocks of `kind` in the body `spec` reads, if any.
fn block_spec<'s>(spec: &'s Spec, kind: &str) -> Option<&'s Spec> {
    if spec.block_type() == Some(kind) {
        return Some(spec);
    }
    spec.same_body_children().into_iter().find_map(|child| block_spec(child, kind))
}

/// The spec that reads attribute `name` in the body `spec` reads, if any.
fn attr_spec<'s>(spec: &'s Spec, name: &str) -> Option<&'s Spec> {
    match &spec.kind {
        SpecKind::Attr { name: n, .. } if n == name => Some(spec),
        _ => spec.same_body_children().into_iter().find_map(|child| attr_spec(child, name)),
    }
}

/// Every attribute and block spec reading the body `spec` reads.
fn item_specs<'s>(spec: &'s Spec, out: &mut Vec<&'s Spec>) {
    match &spec.kind {
        SpecKind::Attr { .. } => out.push(spec),
        _ if spec.block_type().is_some() => out.push(spec),
        _ => {
            for child in spec.same_body_children() {
                item_specs(child, out);
            }
        }
    }
}

/// The blocks enclosing `offset`'s body, outermost first (their type tokens), and whether the
/// offset is inside the innermost one's braces.
fn enclosing_blocks(root: &SyntaxNode, offset: TextSize) -> Vec<SyntaxNode> {
    let token = root.token_at_offset(offset).left_biased();
    let Some(token) = token else { return Vec::new() };
    let mut blocks: Vec<SyntaxNode> = token
        .parent_ancestors()
        .filter(|n| n.kind() == BODY)
        .filter(|body| {
            // Inside the braces: after `{` (and before `}` when there is one).
            let range = body.text_range();
            let closed = body.last_token().is_some_and(|t| t.kind() == R_BRACE);
            offset > range.start() && (offset < range.end() || !closed)
        })
        .filter_map(|body| body.parent())
        .collect();
    blocks.reverse();
    blocks
}

fn block_type_token(block: &SyntaxNode) -> Option<SyntaxToken> {
    block.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == IDENT)
}

/// The spec reading the body at `offset`: the root's, or a nested block spec's; `None` where the
/// spec does not describe the body (a block it does not know, `block_attrs`' free attributes).
fn body_spec_at<'s>(spec: &'s SpecFile, root: &SyntaxNode, offset: TextSize) -> Option<&'s Spec> {
    let mut current = &spec.root;
    for block in enclosing_blocks(root, offset) {
        let kind = block_type_token(&block)?;
        current = block_spec(current, kind.text())?.nested_block_spec()?;
    }
    Some(current)
}

/// What a spec says of its item, in markdown.
fn describe(spec: &Spec) -> String {
    let mut out = match &spec.kind {
        SpecKind::Attr { name, ty, required, .. } => {
            let required = if *required { ", required" } else { "" };
            format!("attribute `{name}`: `{}`{required}", type_expression(ty))
        }
        SpecKind::Block { block_type, required, .. } => {
            let required = if *required { ", required" } else { "" };
            format!("block `{block_type}`: at most one{required}")
        }
        SpecKind::BlockList { block_type, min_items, max_items, set, .. } => {
            let what = if *set { "a set" } else { "a list" };
            let bounds = match (min_items, max_items) {
                (0, 0) => String::new(),
                (min, 0) => format!(", at least {min}"),
                (0, max) => format!(", at most {max}"),
                (min, max) => format!(", {min} to {max}"),
            };
            format!("blocks `{block_type}`: {what}{bounds}")
        }
        SpecKind::BlockMap { block_type, labels, .. } => {
            format!(
                "blocks `{block_type}`, by label: {}",
                labels.iter().map(|l| format!("`{l}`")).collect::<Vec<_>>().join(", ")
            )
        }
        SpecKind::BlockAttrs { block_type, element_type, required } => {
            let required = if *required { ", required" } else { "" };
            format!("block `{block_type}` of attributes: `map({})`{required}", type_expression(element_type))
        }
        _ => String::new(),
    };
    if !spec.doc.is_empty() {
        out.push_str("\n\n");
        out.push_str(&spec.doc);
    }
    out
}

/// The identifier being typed at `offset` (its range, possibly empty) when the cursor is where a
/// body item's name goes: nothing but white space before it on its line.
fn item_name_at(text: &str, offset: TextSize) -> Option<TextRange> {
    let at = usize::from(offset).min(text.len());
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..at];
    let typed = before.trim_start();
    if !typed.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-') {
        return None;
    }
    let start = TextSize::from((at - typed.len()) as u32);
    let end = text[at..].find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')).map_or(text.len(), |i| at + i);
    Some(TextRange::new(start, TextSize::from(end as u32)))
}

/// Names written in the body at `offset` (attributes and block types).
fn written_names(root: &SyntaxNode, offset: TextSize, skip: TextRange) -> Vec<String> {
    let body = enclosing_blocks(root, offset).last().and_then(|b| b.children().find(|c| c.kind() == BODY));
    let container = body.unwrap_or_else(|| root.clone());
    container
        .children()
        .filter(|c| matches!(c.kind(), ATTRIBUTE | BLOCK))
        .filter_map(|c| c.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == IDENT))
        .filter(|t| t.text_range() != skip)
        .map(|t| t.text().to_owned())
        .collect()
}

/// Completion in an HCL file at `offset`: from its spec when one describes it, or of spec block
/// types and arguments in a spec file.
pub fn completions(db: &dyn Db, workspace: Workspace, file: SourceFile, offset: TextSize) -> Completions {
    let text = file.text(db).get();
    let Some(range) = item_name_at(text, offset) else { return Completions::default() };
    let root = crate::hcl::parse(db, file).syntax();
    if is_spec_file(file.path(db)) {
        return spec_file_completions(&root, offset, range);
    }
    let Some((_, spec)) = spec_of(db, workspace, file) else { return Completions::default() };
    let Some(body_spec) = body_spec_at(spec, &root, offset) else { return Completions::default() };
    let written = written_names(&root, offset, range);
    let mut specs = Vec::new();
    item_specs(body_spec, &mut specs);
    let mut items = Vec::new();
    for item in specs {
        let (label, insert, kind, repeatable) = match &item.kind {
            SpecKind::Attr { name, .. } => (name.clone(), format!("{name} = $0"), CompletionKind::Field, false),
            SpecKind::BlockMap { block_type, labels, .. } => {
                let placeholders: Vec<String> =
                    labels.iter().enumerate().map(|(i, l)| format!("\"${{{}:{l}}}\"", i + 1)).collect();
                (
                    block_type.clone(),
                    format!("{block_type} {} {{\n  $0\n}}", placeholders.join(" ")),
                    CompletionKind::Keyword,
                    true,
                )
            }
            SpecKind::BlockList { block_type, .. } => {
                (block_type.clone(), format!("{block_type} {{\n  $0\n}}"), CompletionKind::Keyword, true)
            }
            SpecKind::Block { block_type, .. } | SpecKind::BlockAttrs { block_type, .. } => {
                (block_type.clone(), format!("{block_type} {{\n  $0\n}}"), CompletionKind::Keyword, false)
            }
            _ => continue,
        };
        if !repeatable && written.contains(&label) {
            continue;
        }
        if items.iter().any(|i: &CompletionItem| i.label == label) {
            continue;
        }
        let required =
            matches!(item.kind, SpecKind::Attr { required: true, .. } | SpecKind::Block { required: true, .. });
        items.push(CompletionItem {
            detail: describe(item).lines().next().map(str::to_owned),
            documentation: (!item.doc.is_empty()).then(|| item.doc.clone()),
            label,
            kind,
            insert,
            snippet: true,
            range,
            rank: if required { 0 } else { 1 },
        });
    }
    Completions { items, incomplete: false }
}

/// What each spec block type takes: its arguments, and whether it nests specs.
fn spec_arguments(kind: &str) -> &'static [&'static str] {
    match kind {
        "attr" => &["name", "type", "required"],
        "block" => &["block_type", "required"],
        "block_list" | "block_set" => &["block_type", "min_items", "max_items"],
        "block_map" => &["block_type", "labels"],
        "block_attrs" => &["block_type", "element_type", "required"],
        "literal" => &["value"],
        "transform" => &["result"],
        "function" => &["params", "variadic_param", "result"],
        _ => &[],
    }
}

/// What a spec block type does, for hover and completion.
pub fn block_type_doc(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "object" => {
            "`object`: a JSON object of the nested specs' results; each nested spec has a label, the property it fills."
        }
        "array" => "`array`: a JSON array of the nested specs' results, in order.",
        "attr" => {
            "`attr`: the value of an attribute (`name`, default: the label), converted to `type`; `required` makes it mandatory."
        }
        "block" => {
            "`block`: the nested spec applied to the one block of `block_type` (default: the label); `required` makes it mandatory."
        }
        "block_list" => {
            "`block_list`: a list of the nested spec applied to each block of `block_type`, with `min_items` and `max_items`."
        }
        "block_set" => "`block_set`: like `block_list`, without order or duplicates.",
        "block_map" => {
            "`block_map`: maps keyed by the blocks' labels (one level per name in `labels`) of the nested spec applied to each block."
        }
        "block_attrs" => "`block_attrs`: a map of a block's attributes, each converted to `element_type`.",
        "literal" => "`literal`: the fixed `value`.",
        "default" => "`default`: the first nested spec whose result is not null.",
        "transform" => "`transform`: `result`, an expression of the nested spec's result `nested`.",
        "variables" => "`variables`: variables the configuration's expressions can use (command-line values win).",
        "function" => {
            "`function`: a function the configuration can call: `params`, `variadic_param`, and its `result`."
        }
        _ => return None,
    })
}

fn spec_file_completions(root: &SyntaxNode, offset: TextSize, range: TextRange) -> Completions {
    let blocks = enclosing_blocks(root, offset);
    let enclosing = blocks.last().and_then(block_type_token).map(|t| t.text().to_owned());
    let mut items = Vec::new();
    let nests = match enclosing.as_deref() {
        None => true,
        Some(kind) => matches!(
            kind,
            "object" | "array" | "block" | "block_list" | "block_set" | "block_map" | "default" | "transform"
        ),
    };
    if nests {
        let labelled = enclosing.as_deref() == Some("object");
        for kind in SPEC_BLOCK_TYPES {
            let insert =
                if labelled { format!("{kind} \"${{1:name}}\" {{\n  $0\n}}") } else { format!("{kind} {{\n  $0\n}}") };
            items.push(CompletionItem {
                label: kind.to_owned(),
                kind: CompletionKind::Keyword,
                detail: Some("spec block".to_owned()),
                documentation: block_type_doc(kind).map(str::to_owned),
                insert,
                snippet: true,
                range,
                rank: 1,
            });
        }
    }
    if enclosing.is_none() {
        for (kind, insert) in [
            ("variables", "variables {\n  $0\n}"),
            ("function", "function \"${1:name}\" {\n  params = [$2]\n  result = $0\n}"),
        ] {
            items.push(CompletionItem {
                label: kind.to_owned(),
                kind: CompletionKind::Keyword,
                detail: Some("spec file block".to_owned()),
                documentation: block_type_doc(kind).map(str::to_owned),
                insert: insert.to_owned(),
                snippet: true,
                range,
                rank: 2,
            });
        }
    }
    if let Some(kind) = &enclosing {
        let written = written_names(root, offset, range);
        for argument in spec_arguments(kind) {
            if written.iter().any(|w| w == argument) {
                continue;
            }
            items.push(CompletionItem {
                label: (*argument).to_owned(),
                kind: CompletionKind::Field,
                detail: Some(format!("argument of {kind}")),
                documentation: None,
                insert: format!("{argument} = $0"),
                snippet: true,
                range,
                rank: 0,
            });
        }
    }
    Completions { items, incomplete: false }
}

/// The identifier token at `offset`, preferring one over white space.
fn ident_at(root: &SyntaxNode, offset: TextSize) -> Option<SyntaxToken> {
    root.token_at_offset(offset).find(|t| t.kind() == IDENT)
}

/// Whether `token` names an attribute or a block (its first identifier), and which node.
fn item_of(token: &SyntaxToken) -> Option<SyntaxNode> {
    let parent = token.parent()?;
    if !matches!(parent.kind(), ATTRIBUTE | BLOCK) {
        return None;
    }
    (block_type_token(&parent).as_ref() == Some(token)).then_some(parent)
}

/// The spec of the attribute or block named at `offset`, and the token.
fn item_spec_at<'s>(spec: &'s SpecFile, root: &SyntaxNode, offset: TextSize) -> Option<(&'s Spec, SyntaxToken)> {
    let token = ident_at(root, offset)?;
    let item = item_of(&token)?;
    // The body the item is in: the spec of the blocks around it.
    let body_spec = body_spec_at(spec, root, item.text_range().start())?;
    let found = match item.kind() {
        ATTRIBUTE => attr_spec(body_spec, token.text()),
        _ => block_spec(body_spec, token.text()),
    }?;
    Some((found, token))
}

/// Hover in an HCL file: an item's spec in a described file; a spec block type's meaning in a
/// spec file.
pub fn hover(db: &dyn Db, workspace: Workspace, file: SourceFile, offset: TextSize) -> Option<HoverInfo> {
    let root = crate::hcl::parse(db, file).syntax();
    let call = ident_at(&root, offset).filter(|t| t.parent().is_some_and(|p| p.kind() == CALL));
    if is_spec_file(file.path(db)) {
        let token = ident_at(&root, offset)?;
        if let Some(call) = call {
            let doc = super::functions::describe(call.text())?;
            return Some(HoverInfo { range: call.text_range(), markdown: format!("`{doc}`") });
        }
        let item = item_of(&token)?;
        if item.kind() != BLOCK {
            return None;
        }
        let doc = block_type_doc(token.text())?;
        return Some(HoverInfo { range: token.text_range(), markdown: doc.to_owned() });
    }
    let (spec_file, spec) = spec_of(db, workspace, file)?;
    if let Some(call) = call {
        let function = spec.functions.iter().find(|f| f.name == call.text())?;
        let mut params = function.params.clone();
        params.extend(function.variadic.iter().map(|v| format!("{v}...")));
        let markdown = format!("function `{}({})`, defined by the spec", function.name, params.join(", "));
        return Some(HoverInfo { range: call.text_range(), markdown });
    }
    let (item, token) = item_spec_at(spec, &root, offset)?;
    let name = spec_file.path(db).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Some(HoverInfo { range: token.text_range(), markdown: format!("{}\n\n*spec: {name}*", describe(item)) })
}

/// Go to definition in a described file: an item's spec, or a custom function's `function` block.
pub fn definition(db: &dyn Db, workspace: Workspace, file: SourceFile, offset: TextSize) -> Vec<Target> {
    let root = crate::hcl::parse(db, file).syntax();
    let Some((spec_file, spec)) = spec_of(db, workspace, file) else { return Vec::new() };
    let path = spec_file.path(db).clone();
    if let Some(token) = ident_at(&root, offset)
        && token.parent().is_some_and(|p| p.kind() == CALL)
    {
        return spec
            .functions
            .iter()
            .filter(|f| f.name == token.text())
            .map(|f| Target { path: path.clone(), range: f.range })
            .collect();
    }
    match item_spec_at(spec, &root, offset) {
        Some((item, _)) => vec![Target { path, range: item.range }],
        None => Vec::new(),
    }
}

/// The value the file decodes to with its spec, as indented JSON; the error says why there is
/// none (no spec, a spec with errors, a file the spec rejects).
pub fn decoded_json(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Result<String, String> {
    let (spec_file, spec) = match association(db, workspace, file) {
        Association::None => return Err(format!("no hcldec spec describes {}", file.path(db).display())),
        Association::Unavailable { message, .. } => return Err(message.clone()),
        Association::Spec { spec, .. } => match &loaded_spec(db, *spec).spec {
            Some(loaded) => (*spec, loaded),
            None => return Err(format!("the spec {} has errors", spec.path(db).display())),
        },
    };
    let parse = crate::hcl::parse(db, file);
    if !parse.errors().is_empty() {
        return Err("the file has syntax errors".to_owned());
    }
    let body = Body::of_file(&parse.tree(), Source(1));
    let context = super::spec::input_context(spec, &Default::default());
    let (value, problems) = decode(&body, &spec.root, &context);
    if let Some(problem) = problems.iter().find(|p| p.is_error()) {
        let detail = if problem.detail.is_empty() { &problem.summary } else { &problem.detail };
        return Err(format!(
            "{} does not decode with {}: {detail}",
            file.path(db).display(),
            spec_file.path(db).display()
        ));
    }
    value_json(&value).map(|json| json.pretty())
}
