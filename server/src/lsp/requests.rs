//! The answers to requests, computed on a [`Snapshot`] on a worker thread.

use super::{convert, writer::Snapshot};
use nacl_analysis::navigation;
use tower_lsp_server::ls_types::{
    DocumentSymbol, FoldingRange, Hover, HoverContents, Location, MarkupContent, MarkupKind, Position, Range, TextEdit,
};

/// The definitions of the symbol at a position: every fragment of a split element.
pub fn definition(snapshot: &Snapshot, position: Position) -> Vec<Location> {
    let (Some(document), Some(workspace)) = (&snapshot.document, &snapshot.workspace) else { return Vec::new() };
    let offset = document.lines(snapshot.encoding).offset(position);
    workspace
        .definition(&document.path, offset)
        .into_iter()
        .filter_map(|target| convert::location(workspace, &target.path, target.range, snapshot.encoding))
        .collect()
}

/// A description of the symbol at a position.
pub fn hover(snapshot: &Snapshot, position: Position) -> Option<Hover> {
    let (document, workspace) = (snapshot.document.as_ref()?, snapshot.workspace.as_ref()?);
    let lines = document.lines(snapshot.encoding);
    let info = workspace.hover(&document.path, lines.offset(position))?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: info.markdown }),
        range: Some(lines.range(info.range)),
    })
}

/// The full element ID at a position ("Copy NaCl Reference").
pub fn element_id(snapshot: &Snapshot, position: Position) -> Option<String> {
    let document = snapshot.document.as_ref()?;
    let offset = document.lines(snapshot.encoding).offset(position);
    navigation::element_id_at(&nacl_syntax::parse(&document.text).syntax(), offset).map(|id| id.to_string())
}

/// The outline of a document.
pub fn document_symbols(snapshot: &Snapshot) -> Vec<DocumentSymbol> {
    snapshot.document.as_ref().map(|d| convert::document_symbols(d.lines(snapshot.encoding))).unwrap_or_default()
}

/// The foldable regions of a document.
pub fn folding_ranges(snapshot: &Snapshot) -> Vec<FoldingRange> {
    snapshot.document.as_ref().map(|d| convert::folding_ranges(d.lines(snapshot.encoding))).unwrap_or_default()
}

/// The edits that format a document, or a range of it.
pub fn format(snapshot: &Snapshot, range: Option<Range>) -> Option<Vec<TextEdit>> {
    snapshot.document.as_ref().map(|d| convert::format(d.lines(snapshot.encoding), range))
}
