//! The answers to requests, computed on a [`Snapshot`] on a worker thread.

use super::paths::Uris;
use super::{
    convert::{self, Lines, Locator},
    writer::{OpenDocument, Snapshot},
};
use crate::line_index::{Encoding, LineIndex};
use nacl_analysis::{
    ide::{self, DocumentView},
    workspace::LoadedWorkspace,
};
use nacl_syntax::TextRange;
use std::collections::HashMap;
use tower_lsp_server::ls_types::{
    DocumentHighlight, DocumentHighlightKind, DocumentSymbol, FoldingRange, Hover, HoverContents, Location,
    MarkupContent, MarkupKind, OneOf, Position, PrepareRenameResponse, Range, SelectionRange, TextEdit, WorkspaceEdit,
    WorkspaceSymbol,
};

/// The definitions of the symbol at a position: every fragment of a split element.
pub fn definition(snapshot: &Snapshot, position: Position) -> Vec<Location> {
    let (Some(document), Some(workspace)) = (&snapshot.document, &snapshot.workspace) else { return Vec::new() };
    let offset = document.lines(snapshot.encoding).offset(position);
    let mut locator = Locator::new(workspace, snapshot.encoding, &snapshot.uris);
    ide::definition(workspace, &document.path, offset)
        .into_iter()
        .filter_map(|t| locator.location(&t.path, t.range))
        .collect()
}

/// A description of the symbol at a position.
pub fn hover(snapshot: &Snapshot, position: Position) -> Option<Hover> {
    let (document, workspace) = (snapshot.document.as_ref()?, snapshot.workspace.as_ref()?);
    let lines = document.lines(snapshot.encoding);
    let info = ide::hover(workspace, &document.path, lines.offset(position))?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: info.markdown }),
        range: Some(lines.range(info.range)),
    })
}

/// The full element ID at a position ("Copy NaCl Reference").
pub fn element_id(snapshot: &Snapshot, position: Position) -> Option<String> {
    let document = snapshot.document.as_ref()?;
    let offset = document.lines(snapshot.encoding).offset(position);
    view(snapshot, document).element_id(offset)
}

/// The service URL of the field or element at a position ("Go To Service").
pub fn service_url(snapshot: &Snapshot, position: Position) -> Option<String> {
    let (document, workspace) = (snapshot.document.as_ref()?, snapshot.workspace.as_ref()?);
    ide::service_url(workspace, &document.path, document.lines(snapshot.encoding).offset(position))
}

/// The JSON the document decodes to with its hcldec spec, or why there is none; `None` without a
/// workspace.
pub fn decoded_json(snapshot: &Snapshot) -> Option<Result<String, String>> {
    let (document, workspace) = (snapshot.document.as_ref()?, snapshot.workspace.as_ref()?);
    Some(ide::decoded_json(workspace, &document.path))
}

/// The ARM template of an ARMLang document, or why there is none.
pub fn arm_template(snapshot: &Snapshot) -> Option<Result<String, String>> {
    let (document, workspace) = (snapshot.document.as_ref()?, snapshot.workspace.as_ref()?);
    Some(ide::arm_template(workspace, &document.path))
}

/// The semantic tokens of a document, or of a range of it.
pub fn semantic_tokens(
    snapshot: &Snapshot,
    range: Option<Range>,
) -> Option<Vec<tower_lsp_server::ls_types::SemanticToken>> {
    let document = snapshot.document.as_ref()?;
    let lines = document.lines(snapshot.encoding);
    let range = range.map(|r| TextRange::new(lines.offset(r.start), lines.offset(r.end).max(lines.offset(r.start))));
    let highlights = view(snapshot, document).highlights(range);
    Some(convert::semantic_tokens(lines, &highlights))
}

/// An open document as the analysis's syntax-only features see it.
fn view<'a>(snapshot: &'a Snapshot, document: &'a OpenDocument) -> DocumentView<'a> {
    DocumentView { path: &document.path, text: &document.text, workspace: snapshot.workspace.as_ref() }
}

/// The outline of a document.
pub fn document_symbols(snapshot: &Snapshot) -> Vec<DocumentSymbol> {
    let Some(document) = &snapshot.document else { return Vec::new() };
    convert::document_symbols(&view(snapshot, document).symbols(), document.lines(snapshot.encoding))
}

/// The foldable regions of a document.
pub fn folding_ranges(snapshot: &Snapshot) -> Vec<FoldingRange> {
    let Some(document) = &snapshot.document else { return Vec::new() };
    convert::folding_ranges(&view(snapshot, document).folding_ranges(), document.lines(snapshot.encoding))
}

/// The edits that format a document, or a range of it.
pub fn format(snapshot: &Snapshot, range: Option<Range>) -> Option<Vec<TextEdit>> {
    let document = snapshot.document.as_ref()?;
    let lines = document.lines(snapshot.encoding);
    let edit = view(snapshot, document).format(range.map(|r| lines.text_range(r)));
    Some(edit.map(|e| vec![TextEdit { range: lines.range(e.range), new_text: e.new_text }]).unwrap_or_default())
}

/// Every place the symbol at a position is named, across the workspace.
pub fn references(snapshot: &Snapshot, position: Position, include_declaration: bool) -> Vec<Location> {
    let (Some(document), Some(workspace)) = (&snapshot.document, &snapshot.workspace) else { return Vec::new() };
    let offset = document.lines(snapshot.encoding).offset(position);
    let mut locator = Locator::new(workspace, snapshot.encoding, &snapshot.uris);
    let found = ide::references(workspace, &document.path, offset, include_declaration);
    found.into_iter().filter_map(|o| locator.location(&o.path, o.range)).collect()
}

/// The places the symbol at a position is named in its own document.
pub fn highlights(snapshot: &Snapshot, position: Position) -> Vec<DocumentHighlight> {
    let (Some(document), Some(workspace)) = (&snapshot.document, &snapshot.workspace) else { return Vec::new() };
    let lines = document.lines(snapshot.encoding);
    ide::document_highlights(workspace, &document.path, lines.offset(position))
        .into_iter()
        .map(|o| DocumentHighlight {
            range: lines.range(o.range),
            kind: Some(if o.declaration { DocumentHighlightKind::WRITE } else { DocumentHighlightKind::READ }),
        })
        .collect()
}

/// The name a rename at a position replaces, or why it cannot be renamed.
pub fn prepare_rename(snapshot: &Snapshot, position: Position) -> Result<Option<PrepareRenameResponse>, String> {
    let (Some(document), Some(workspace)) = (&snapshot.document, &snapshot.workspace) else { return Ok(None) };
    let lines = document.lines(snapshot.encoding);
    let (range, placeholder) = ide::prepare_rename(workspace, &document.path, lines.offset(position))?;
    Ok(Some(PrepareRenameResponse::RangeWithPlaceholder { range: lines.range(range), placeholder }))
}

/// The edits of a rename across the workspace, or why it is refused.
pub fn rename(snapshot: &Snapshot, position: Position, new_name: &str) -> Result<Option<WorkspaceEdit>, String> {
    let (Some(document), Some(workspace)) = (&snapshot.document, &snapshot.workspace) else { return Ok(None) };
    let offset = document.lines(snapshot.encoding).offset(position);
    let mut changes = HashMap::new();
    for (path, edits) in ide::rename(workspace, &document.path, offset, new_name)? {
        let (Some(uri), Some(text)) = (snapshot.uris.uri_of(&path), workspace.text_of(&path)) else { continue };
        let index = LineIndex::new(&text);
        let lines = Lines { text: &text, index: &index, encoding: snapshot.encoding };
        let edits = edits.into_iter().map(|(range, new_text)| TextEdit { range: lines.range(range), new_text });
        changes.insert(uri, edits.collect());
    }
    Ok(Some(WorkspaceEdit { changes: Some(changes), ..WorkspaceEdit::default() }))
}

/// The "expand selection" steps at each position.
pub fn selection_ranges(snapshot: &Snapshot, positions: &[Position]) -> Vec<SelectionRange> {
    let Some(document) = &snapshot.document else { return Vec::new() };
    let lines = document.lines(snapshot.encoding);
    let view = view(snapshot, document);
    positions
        .iter()
        .map(|&position| {
            let ranges = view.selection_ranges(lines.offset(position));
            // Outermost first, each wrapping the next.
            let mut selection: Option<SelectionRange> = None;
            for range in ranges.into_iter().rev() {
                selection = Some(SelectionRange { range: lines.range(range), parent: selection.map(Box::new) });
            }
            selection.unwrap_or(SelectionRange { range: Range::new(position, position), parent: None })
        })
        .collect()
}

/// The elements and fields of every workspace best matching `query`.
pub fn workspace_symbols(
    workspaces: &[LoadedWorkspace],
    query: &str,
    encoding: Encoding,
    uris: &Uris,
) -> Vec<WorkspaceSymbol> {
    const LIMIT: usize = 128;
    workspaces
        .iter()
        .flat_map(|workspace| {
            let mut locator = Locator::new(workspace, encoding, uris);
            workspace.workspace_symbols(query, LIMIT).into_iter().filter_map(move |symbol| {
                let location = locator.location(&symbol.path, symbol.range)?;
                Some(WorkspaceSymbol {
                    name: symbol.name,
                    kind: convert::symbol_kind(symbol.kind),
                    tags: None,
                    container_name: symbol.detail,
                    location: OneOf::Left(location),
                    data: None,
                })
            })
        })
        .take(LIMIT)
        .collect()
}
