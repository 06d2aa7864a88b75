//! Completion: the analysis's items as LSP completion items, with snippets turned into plain
//! text for clients that do not support them.

use super::{convert::Lines, writer::Snapshot};
use nacl_analysis::completion::{CompletionItem as Item, CompletionKind, snippet_text};
use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, CompletionList, CompletionTextEdit, Documentation, InsertTextFormat,
    InsertTextMode, MarkupContent, MarkupKind, Position, TextEdit,
};

/// The completions at a position; `snippets` when the client supports snippet syntax.
pub fn completion(snapshot: &Snapshot, position: Position, snippets: bool) -> Option<CompletionList> {
    let (document, workspace) = (snapshot.document.as_ref()?, snapshot.workspace.as_ref()?);
    let lines = document.lines(snapshot.encoding);
    let found = nacl_analysis::ide::completions(workspace, &document.path, lines.offset(position));
    // Items come sorted by rank, then label. When all share one rank, clients sorting by label
    // (the default without a sort text) get the same order: sort texts would only lengthen
    // the answer (hundreds of items as the user types an element ID).
    let ranked = found.items.first().is_some_and(|first| found.items.iter().any(|item| item.rank != first.rank));
    let items = found.items.iter().map(|item| completion_item(item, lines, snippets, ranked)).collect();
    Some(CompletionList { is_incomplete: found.incomplete, items })
}

fn completion_item(item: &Item, lines: Lines<'_>, snippets: bool, ranked: bool) -> CompletionItem {
    let snippet = item.snippet && snippets;
    let new_text = if item.snippet && !snippets { snippet_text(&item.insert) } else { item.insert.clone() };
    let multiline = new_text.contains('\n');
    CompletionItem {
        label: item.label.clone(),
        kind: Some(kind(item.kind)),
        detail: item.detail.clone(),
        documentation: item.documentation.as_ref().map(|value| {
            Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: value.clone() })
        }),
        // Ranks first, then labels.
        sort_text: ranked.then(|| format!("{:02}{}", item.rank, item.label)),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit { range: lines.range(item.range), new_text })),
        // Plain text is the protocol's default.
        insert_text_format: snippet.then_some(InsertTextFormat::SNIPPET),
        insert_text_mode: multiline.then_some(InsertTextMode::ADJUST_INDENTATION),
        ..CompletionItem::default()
    }
}

fn kind(kind: CompletionKind) -> CompletionItemKind {
    match kind {
        CompletionKind::Keyword => CompletionItemKind::KEYWORD,
        CompletionKind::Type => CompletionItemKind::CLASS,
        CompletionKind::Field => CompletionItemKind::FIELD,
        CompletionKind::Annotation => CompletionItemKind::PROPERTY,
        CompletionKind::Value => CompletionItemKind::VALUE,
        CompletionKind::Instance => CompletionItemKind::CONSTANT,
        CompletionKind::Variable => CompletionItemKind::VARIABLE,
        CompletionKind::Adapter => CompletionItemKind::MODULE,
        CompletionKind::Key => CompletionItemKind::PROPERTY,
        CompletionKind::File => CompletionItemKind::FILE,
        CompletionKind::Function => CompletionItemKind::FUNCTION,
    }
}
