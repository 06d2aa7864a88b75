//! Pulled diagnostics (`textDocument/diagnostic`, `workspace/diagnostic`), for clients that ask
//! for them instead of receiving them.
//!
//! Each report carries a result ID derived from its contents: a client that sends back the ID of
//! what it has gets an "unchanged" report when nothing changed, so nothing is sent twice.

use super::{
    convert::Lines,
    writer::{Snapshot, WorkspacesSnapshot, shown_diagnostics},
};
use crate::line_index::LineIndex;
use std::{
    collections::HashMap,
    hash::{Hash, Hasher},
};
use tower_lsp_server::ls_types::{
    Diagnostic, DocumentDiagnosticReport, FullDocumentDiagnosticReport, PreviousResultId,
    RelatedFullDocumentDiagnosticReport, RelatedUnchangedDocumentDiagnosticReport, UnchangedDocumentDiagnosticReport,
    Uri, WorkspaceDiagnosticReport, WorkspaceDocumentDiagnosticReport, WorkspaceFullDocumentDiagnosticReport,
    WorkspaceUnchangedDocumentDiagnosticReport,
};

/// The diagnostics of one document, or "unchanged" when they are those of `previous`.
pub fn document_report(snapshot: &Snapshot, previous: Option<String>) -> DocumentDiagnosticReport {
    let diagnostics = match (&snapshot.document, &snapshot.workspace) {
        (Some(document), Some(workspace)) => match workspace.file(&document.path) {
            Some(file) => shown_diagnostics(
                workspace,
                &snapshot.settings,
                snapshot.encoding,
                &snapshot.uris,
                workspace.file_diagnostics(file).iter(),
                document.lines(snapshot.encoding),
            ),
            None => Vec::new(),
        },
        _ => Vec::new(),
    };
    let result_id = result_id(&diagnostics);
    if previous.as_deref() == Some(result_id.as_str()) {
        return DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
            related_documents: None,
            unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport { result_id },
        });
    }
    DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
        related_documents: None,
        full_document_diagnostic_report: FullDocumentDiagnosticReport {
            result_id: Some(result_id),
            items: diagnostics,
        },
    })
}

/// The diagnostics of every file with some, "unchanged" for those the client already has, and
/// an empty report for each file the client had diagnostics for and that has none now.
pub fn workspace_report(snapshot: &WorkspacesSnapshot, previous: &[PreviousResultId]) -> WorkspaceDiagnosticReport {
    let mut previous: HashMap<&Uri, &str> = previous.iter().map(|p| (&p.uri, p.value.as_str())).collect();
    let mut items = Vec::new();
    for workspace in &snapshot.workspaces {
        for report in workspace.check(None) {
            if report.diagnostics.is_empty() {
                continue;
            }
            let Some(uri) = snapshot.uris.uri_of(&report.path) else { continue };
            let index = LineIndex::new(&report.text);
            let lines = Lines { text: &report.text, index: &index, encoding: snapshot.encoding };
            let diagnostics = shown_diagnostics(
                workspace,
                &snapshot.settings,
                snapshot.encoding,
                &snapshot.uris,
                report.diagnostics.iter(),
                lines,
            );
            if diagnostics.is_empty() {
                continue;
            }
            let result_id = result_id(&diagnostics);
            let known = previous.remove(&uri) == Some(result_id.as_str());
            items.push(if known {
                WorkspaceDocumentDiagnosticReport::Unchanged(WorkspaceUnchangedDocumentDiagnosticReport {
                    uri,
                    version: None,
                    unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport { result_id },
                })
            } else {
                full(uri, diagnostics, result_id)
            });
        }
    }
    // What the client still holds and nothing reports any more is cleared.
    let empty = result_id(&[]);
    for (uri, id) in previous {
        if id != empty {
            items.push(full(uri.clone(), Vec::new(), empty.clone()));
        }
    }
    WorkspaceDiagnosticReport { items }
}

fn full(uri: Uri, items: Vec<Diagnostic>, result_id: String) -> WorkspaceDocumentDiagnosticReport {
    WorkspaceDocumentDiagnosticReport::Full(WorkspaceFullDocumentDiagnosticReport {
        uri,
        version: None,
        full_document_diagnostic_report: FullDocumentDiagnosticReport { result_id: Some(result_id), items },
    })
}

/// An ID that changes when the diagnostics do.
fn result_id(diagnostics: &[Diagnostic]) -> String {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(diagnostics).unwrap_or_default().hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}
