//! Code actions, inlay hints, code lenses and document links: the analysis's answers as LSP types.

use super::{
    convert::{self, Locator},
    writer::Snapshot,
};
use nacl_analysis::{
    assists::AssistKind,
    hints::{self, HintKind},
    ide,
};
use std::collections::HashMap;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeLens, Command, DocumentLink, InlayHint, InlayHintKind,
    InlayHintLabel, Location, Position, Range, TextEdit, WorkspaceEdit,
};

/// The kind of the "format file" source action.
pub fn format_kind() -> CodeActionKind {
    CodeActionKind::new("source.format")
}

/// The client-side command a reference-count lens runs: its arguments are the document URI, the
/// position and the locations (VS Code maps it to `editor.action.showReferences`).
pub const SHOW_REFERENCES: &str = "nacl.showReferences";

/// The code actions for a range, limited to the kinds in `only` when the client asks so.
pub fn code_actions(snapshot: &Snapshot, range: Range, only: Option<&[CodeActionKind]>) -> Vec<CodeActionOrCommand> {
    let (Some(document), Some(workspace)) = (&snapshot.document, &snapshot.workspace) else { return Vec::new() };
    let lines = document.lines(snapshot.encoding);
    let mut locator = Locator::new(workspace, snapshot.encoding, &snapshot.uris);
    let mut actions = Vec::new();
    for assist in ide::assists(workspace, &document.path, lines.text_range(range)) {
        let kind = match assist.kind {
            AssistKind::QuickFix => CodeActionKind::QUICKFIX,
            AssistKind::Format => format_kind(),
        };
        let wanted = only.is_none_or(|only| only.iter().any(|o| kind.as_str().starts_with(o.as_str())));
        if !wanted {
            continue;
        }
        let edits =
            assist.edits.iter().map(|(range, text)| TextEdit { range: lines.range(*range), new_text: text.clone() });
        let changes = HashMap::from([(document.uri.clone(), edits.collect())]);
        actions.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: assist.title,
            kind: Some(kind),
            diagnostics: assist.fixes.map(|d| vec![convert::diagnostic(&d, lines, &mut locator)]),
            edit: Some(WorkspaceEdit { changes: Some(changes), ..WorkspaceEdit::default() }),
            is_preferred: assist.preferred.then_some(true),
            ..CodeAction::default()
        }));
    }
    actions
}

/// The inlay hints of a range.
pub fn inlay_hints(snapshot: &Snapshot, range: Range) -> Vec<InlayHint> {
    let (Some(document), Some(workspace)) = (&snapshot.document, &snapshot.workspace) else { return Vec::new() };
    let lines = document.lines(snapshot.encoding);
    ide::inlay_hints(workspace, &document.path, lines.text_range(range))
        .into_iter()
        .map(|hint| InlayHint {
            position: lines.position(hint.offset),
            label: InlayHintLabel::String(hint.label),
            kind: match hint.kind {
                HintKind::Name => None,
                HintKind::Value => Some(InlayHintKind::PARAMETER),
            },
            text_edits: None,
            tooltip: None,
            padding_left: Some(true),
            padding_right: None,
            data: None,
        })
        .collect()
}

/// The links from `file("...")` paths to static files.
pub fn document_links(snapshot: &Snapshot) -> Vec<DocumentLink> {
    let (Some(document), Some(workspace)) = (&snapshot.document, &snapshot.workspace) else { return Vec::new() };
    let lines = document.lines(snapshot.encoding);
    ide::document_links(workspace, &document.path)
        .into_iter()
        .filter_map(|hints::DocumentLink { range, target }| {
            Some(DocumentLink {
                range: lines.range(range),
                target: Some(snapshot.uris.uri_of(&target)?),
                tooltip: Some("Open the static file".to_owned()),
                data: None,
            })
        })
        .collect()
}

/// The client command (VS Code's and Neovim's configurations define it) that shows an HCL
/// document's decoded JSON: it runs the server's `nacl.hcldec.decodedJson` and opens the result.
pub const SHOW_DECODED_JSON: &str = "nacl.showDecodedJson";

/// The client command (VS Code's and Neovim's configurations define it) that shows an ARMLang
/// document's ARM template: it runs the server's `nacl.arm.template` and opens the result.
pub const SHOW_ARM_TEMPLATE: &str = "nacl.showArmTemplate";

/// For an ARMLang document: "Show ARM template" on its first line, and on each resource what it
/// depends on (a label, with no command to run).
pub fn arm_lenses(snapshot: &Snapshot) -> Vec<CodeLens> {
    let (Some(document), Some(workspace)) = (&snapshot.document, &snapshot.workspace) else { return Vec::new() };
    if ide::language_of(Some(workspace), &document.path) != nacl_analysis::language::Language::Arm {
        return Vec::new();
    }
    let lines = document.lines(snapshot.encoding);
    let start = Position { line: 0, character: 0 };
    let mut lenses = vec![CodeLens {
        range: tower_lsp_server::ls_types::Range { start, end: start },
        command: Some(Command {
            title: "Show ARM template".to_owned(),
            command: SHOW_ARM_TEMPLATE.to_owned(),
            arguments: Some(vec![serde_json::json!({ "uri": document.uri.as_str() })]),
        }),
        data: None,
    }];
    for (range, title) in ide::dependency_lenses(workspace, &document.path) {
        lenses.push(CodeLens {
            range: lines.range(range),
            command: Some(Command { title, command: String::new(), arguments: None }),
            data: None,
        });
    }
    lenses
}

/// "Show decoded JSON" on the first line of an HCL document an hcldec spec describes.
pub fn decoded_json_lens(snapshot: &Snapshot) -> Option<CodeLens> {
    let (document, workspace) = (snapshot.document.as_ref()?, snapshot.workspace.as_ref()?);
    let spec = ide::spec_of(workspace, &document.path)?;
    let name = spec.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let start = Position { line: 0, character: 0 };
    Some(CodeLens {
        range: tower_lsp_server::ls_types::Range { start, end: start },
        command: Some(Command {
            title: format!("Show decoded JSON ({name})"),
            command: SHOW_DECODED_JSON.to_owned(),
            arguments: Some(vec![serde_json::json!({ "uri": document.uri.as_str() })]),
        }),
        data: None,
    })
}

/// A lens on each element header of the document, resolved later with its reference count.
pub fn code_lenses(snapshot: &Snapshot) -> Vec<CodeLens> {
    let (Some(document), Some(workspace)) = (&snapshot.document, &snapshot.workspace) else { return Vec::new() };
    let lines = document.lines(snapshot.encoding);
    let mut seen = std::collections::HashSet::new();
    ide::element_headers(workspace, &document.path)
        .into_iter()
        .filter(|(_, id)| seen.insert(id.clone()))
        .map(|(range, _)| CodeLens {
            range: lines.range(range),
            command: None,
            data: Some(serde_json::json!({ "uri": document.uri.as_str(), "position": lines.position(range.start()) })),
        })
        .collect()
}

/// The reference-count command of a lens at `position`.
pub fn reference_count(snapshot: &Snapshot, position: Position) -> Command {
    let locations: Vec<Location> = super::requests::references(snapshot, position, false);
    let title = match locations.len() {
        1 => "1 reference".to_owned(),
        n => format!("{n} references"),
    };
    let uri = snapshot.document.as_ref().map(|d| d.uri.as_str().to_owned()).unwrap_or_default();
    Command {
        title,
        command: SHOW_REFERENCES.to_owned(),
        arguments: Some(vec![serde_json::json!(uri), serde_json::json!(position), serde_json::json!(locations)]),
    }
}
