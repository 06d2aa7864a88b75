//! The writer thread: owns the open documents and the analysis database, applies every message
//! in arrival order, answers requests that read documents, and computes the diagnostics of the
//! documents that changed.

use crate::line_index::{Encoding, LineIndex};
use nacl_analysis::{
    diagnostics::Diagnostic as NaclDiagnostic, layout, navigation, structure, workspace::LoadedWorkspace,
};
use nacl_syntax::{Severity, TextRange, TextSize};
use std::{
    collections::{BTreeSet, HashMap},
    path::{Path, PathBuf},
    sync::{Arc, mpsc},
};
use tokio::sync::{mpsc::UnboundedSender, oneshot};
use tower_lsp_server::ls_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol, FoldingRange, FoldingRangeKind,
    Hover, HoverContents, Location, MarkupContent, MarkupKind, NumberOrString, Position, Range, SymbolKind,
    TextDocumentContentChangeEvent, TextEdit, Uri,
};

/// What the handlers send the writer, in arrival order.
pub enum Message {
    /// The client's workspace folders and the negotiated position encoding.
    Initialize {
        /// Workspace folders (the first one holding `salto.config/` wins).
        roots: Vec<PathBuf>,
        /// How positions count columns.
        encoding: Encoding,
    },
    /// A document was opened.
    Open {
        /// The document.
        uri: Uri,
        /// Its version.
        version: i32,
        /// Its text.
        text: String,
    },
    /// A document changed.
    Change {
        /// The document.
        uri: Uri,
        /// Its new version.
        version: i32,
        /// The changes, in order.
        changes: Vec<TextDocumentContentChangeEvent>,
    },
    /// A document was closed.
    Close {
        /// The document.
        uri: Uri,
    },
    /// Find the definitions of the symbol at a position.
    Definition {
        /// The document.
        uri: Uri,
        /// The position.
        position: Position,
        /// Where to send the locations.
        reply: oneshot::Sender<Vec<Location>>,
    },
    /// Describe the symbol at a position.
    Hover {
        /// The document.
        uri: Uri,
        /// The position.
        position: Position,
        /// Where to send the description.
        reply: oneshot::Sender<Option<Hover>>,
    },
    /// The full element ID at a position ("Copy NaCl Reference").
    ElementId {
        /// The document.
        uri: Uri,
        /// The position.
        position: Position,
        /// Where to send the ID.
        reply: oneshot::Sender<Option<String>>,
    },
    /// The outline of a document.
    Symbols {
        /// The document.
        uri: Uri,
        /// Where to send the outline.
        reply: oneshot::Sender<Vec<DocumentSymbol>>,
    },
    /// The foldable regions of a document.
    Folds {
        /// The document.
        uri: Uri,
        /// Where to send the regions.
        reply: oneshot::Sender<Vec<FoldingRange>>,
    },
    /// Format a document (or a range of it).
    Format {
        /// The document.
        uri: Uri,
        /// The range, for range formatting.
        range: Option<Range>,
        /// Where to send the edits.
        reply: oneshot::Sender<Option<Vec<TextEdit>>>,
    },
}

/// Diagnostics to publish for one document.
pub struct Publish {
    /// The document.
    pub uri: Uri,
    /// The version they were computed for.
    pub version: Option<i32>,
    /// The diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Starts the writer thread; returns the channel to send it messages.
pub fn spawn(publish: UnboundedSender<Publish>) -> mpsc::Sender<Message> {
    let (sender, receiver) = mpsc::channel();
    let writer = Writer { publish, encoding: Encoding::Utf16, workspace: None, documents: HashMap::new() };
    // If the thread cannot start, the receiver is dropped and every send fails with an error.
    let _ = std::thread::Builder::new().name("nacl-ls writer".to_owned()).spawn(move || writer.run(receiver));
    sender
}

struct Document {
    path: PathBuf,
    text: String,
    version: i32,
}

struct Writer {
    publish: UnboundedSender<Publish>,
    encoding: Encoding,
    workspace: Option<LoadedWorkspace>,
    documents: HashMap<Uri, Document>,
}

impl Writer {
    fn run(mut self, messages: mpsc::Receiver<Message>) {
        while let Ok(first) = messages.recv() {
            // Apply everything already waiting before computing diagnostics: a burst of edits
            // costs one analysis, and no stale result is published.
            let mut changed = BTreeSet::new();
            self.handle_safely(first, &mut changed);
            while let Ok(next) = messages.try_recv() {
                self.handle_safely(next, &mut changed);
            }
            for uri in changed {
                let publish = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.diagnostics(&uri)));
                if let Ok(Some(publish)) = publish {
                    let _ = self.publish.send(publish);
                }
            }
        }
    }

    /// Handles a message; a panic is contained so the server keeps serving.
    fn handle_safely(&mut self, message: Message, changed: &mut BTreeSet<String>) {
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.handle(message, changed))).is_err() {
            eprintln!("nacl-ls: internal error while handling a message; continuing");
        }
    }

    fn handle(&mut self, message: Message, changed: &mut BTreeSet<String>) {
        match message {
            Message::Initialize { roots, encoding } => {
                self.encoding = encoding;
                if let Some(root) = roots.first() {
                    let root = layout::find_root(root);
                    self.workspace = Some(nacl_analysis::workspace::load(&root, None));
                }
            }
            Message::Open { uri, version, text } => {
                let path = path_of(&uri);
                self.workspace_for(&path).set_file_text(&path, Arc::from(text.as_str()));
                changed.insert(uri.as_str().to_owned());
                self.documents.insert(uri, Document { path, text, version });
            }
            Message::Change { uri, version, changes } => {
                let encoding = self.encoding;
                let Some(document) = self.documents.get_mut(&uri) else { return };
                for change in changes {
                    apply_change(&mut document.text, &change, encoding);
                }
                document.version = version;
                let (path, text) = (document.path.clone(), Arc::from(document.text.as_str()));
                self.workspace_for(&path).set_file_text(&path, text);
                changed.insert(uri.as_str().to_owned());
            }
            Message::Close { uri } => {
                if let Some(document) = self.documents.remove(&uri) {
                    self.workspace_for(&document.path).reload_file(&document.path);
                }
                changed.remove(uri.as_str());
                let _ = self.publish.send(Publish { uri, version: None, diagnostics: Vec::new() });
            }
            Message::Definition { uri, position, reply } => {
                let _ = reply.send(self.definition(&uri, position).unwrap_or_default());
            }
            Message::Hover { uri, position, reply } => {
                let _ = reply.send(self.hover(&uri, position));
            }
            Message::ElementId { uri, position, reply } => {
                let id = self.documents.get(&uri).and_then(|d| {
                    let offset =
                        LineIndex::new(&d.text).offset(&d.text, position.line, position.character, self.encoding);
                    navigation::element_id_at(&nacl_syntax::parse(&d.text).syntax(), offset)
                });
                let _ = reply.send(id.map(|id| id.to_string()));
            }
            Message::Symbols { uri, reply } => {
                let symbols =
                    self.documents.get(&uri).map(|d| document_symbols(&d.text, self.encoding)).unwrap_or_default();
                let _ = reply.send(symbols);
            }
            Message::Folds { uri, reply } => {
                let folds = self.documents.get(&uri).map(|d| folding_ranges(&d.text)).unwrap_or_default();
                let _ = reply.send(folds);
            }
            Message::Format { uri, range, reply } => {
                let edits = self.documents.get(&uri).map(|d| format(&d.text, range, self.encoding));
                let _ = reply.send(edits);
            }
        }
    }

    /// The workspace a file belongs to; a file opened without a workspace folder gets one of its own.
    fn workspace_for(&mut self, path: &Path) -> &mut LoadedWorkspace {
        self.workspace.get_or_insert_with(|| LoadedWorkspace::empty(path.parent().unwrap_or(path)))
    }

    fn definition(&self, uri: &Uri, position: Position) -> Option<Vec<Location>> {
        let document = self.documents.get(uri)?;
        let workspace = self.workspace.as_ref()?;
        let offset =
            LineIndex::new(&document.text).offset(&document.text, position.line, position.character, self.encoding);
        let locations = workspace
            .definition(&document.path, offset)
            .into_iter()
            .filter_map(|target| {
                // Static files are not analysed: point at their start.
                let range = match workspace.text_of(&target.path) {
                    Some(text) => to_range(&text, &LineIndex::new(&text), target.range, self.encoding),
                    None => Range::default(),
                };
                Some(Location { uri: Uri::from_file_path(&target.path)?, range })
            })
            .collect();
        Some(locations)
    }

    fn hover(&self, uri: &Uri, position: Position) -> Option<Hover> {
        let document = self.documents.get(uri)?;
        let workspace = self.workspace.as_ref()?;
        let index = LineIndex::new(&document.text);
        let offset = index.offset(&document.text, position.line, position.character, self.encoding);
        let info = workspace.hover(&document.path, offset)?;
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: info.markdown }),
            range: Some(to_range(&document.text, &index, info.range, self.encoding)),
        })
    }

    fn diagnostics(&self, uri_text: &str) -> Option<Publish> {
        let (uri, document) = self.documents.iter().find(|(u, _)| u.as_str() == uri_text)?;
        let workspace = self.workspace.as_ref()?;
        let file = workspace.file(&document.path)?;
        let index = LineIndex::new(&document.text);
        let diagnostics = workspace
            .file_diagnostics(file)
            .iter()
            .map(|d| to_lsp_diagnostic(d, &document.text, &index, workspace, self.encoding))
            .collect();
        Some(Publish { uri: uri.clone(), version: Some(document.version), diagnostics })
    }
}

/// The path of a document (or a stand-in for documents that are not files).
fn path_of(uri: &Uri) -> PathBuf {
    uri.to_file_path().map_or_else(|| PathBuf::from(uri.as_str()), |p| p.into_owned())
}

fn to_range(text: &str, index: &LineIndex, range: TextRange, encoding: Encoding) -> Range {
    let (start_line, start_col) = index.to_lsp(text, range.start(), encoding);
    let (end_line, end_col) = index.to_lsp(text, range.end(), encoding);
    Range { start: Position::new(start_line, start_col), end: Position::new(end_line, end_col) }
}

fn to_lsp_diagnostic(
    d: &NaclDiagnostic,
    text: &str,
    index: &LineIndex,
    workspace: &LoadedWorkspace,
    encoding: Encoding,
) -> Diagnostic {
    let related = d
        .related
        .iter()
        .filter_map(|r| {
            let other = workspace.text_of(&r.path)?;
            let range = to_range(&other, &LineIndex::new(&other), r.range, encoding);
            Some(DiagnosticRelatedInformation {
                location: Location { uri: Uri::from_file_path(&r.path)?, range },
                message: r.message.clone(),
            })
        })
        .collect::<Vec<_>>();
    Diagnostic {
        range: to_range(text, index, d.range, encoding),
        severity: Some(match d.severity() {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Info => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(d.code.as_str().to_owned())),
        source: Some("nacl-ls".to_owned()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        ..Diagnostic::default()
    }
}

/// The outline of a document, as LSP document symbols.
fn document_symbols(text: &str, encoding: Encoding) -> Vec<DocumentSymbol> {
    let index = LineIndex::new(text);
    let root = nacl_syntax::parse(text).syntax();
    fn convert(symbol: &structure::Symbol, text: &str, index: &LineIndex, encoding: Encoding) -> DocumentSymbol {
        #[allow(deprecated)] // `deprecated` is a required field of the type
        DocumentSymbol {
            name: if symbol.name.is_empty() { "?".to_owned() } else { symbol.name.clone() },
            detail: symbol.detail.clone(),
            kind: match symbol.kind {
                structure::SymbolKind::Type => SymbolKind::CLASS,
                structure::SymbolKind::Instance => SymbolKind::OBJECT,
                structure::SymbolKind::Variables => SymbolKind::NAMESPACE,
                structure::SymbolKind::Variable => SymbolKind::VARIABLE,
                structure::SymbolKind::Field => SymbolKind::FIELD,
                structure::SymbolKind::AnnotationType => SymbolKind::INTERFACE,
                structure::SymbolKind::Object => SymbolKind::STRUCT,
                structure::SymbolKind::Property => SymbolKind::PROPERTY,
            },
            tags: None,
            deprecated: None,
            range: to_range(text, index, symbol.range, encoding),
            selection_range: to_range(text, index, symbol.selection, encoding),
            children: Some(symbol.children.iter().map(|c| convert(c, text, index, encoding)).collect()),
        }
    }
    structure::document_symbols(&root).iter().map(|s| convert(s, text, &index, encoding)).collect()
}

/// The foldable regions of a document, by line.
fn folding_ranges(text: &str) -> Vec<FoldingRange> {
    let index = LineIndex::new(text);
    let root = nacl_syntax::parse(text).syntax();
    structure::folding_ranges(&root, text)
        .into_iter()
        .map(|fold| FoldingRange {
            start_line: index.line_col(fold.range.start()).line,
            end_line: index.line_col(fold.range.end()).line,
            kind: Some(match fold.kind {
                structure::FoldKind::Comment => FoldingRangeKind::Comment,
                structure::FoldKind::Region => FoldingRangeKind::Region,
            }),
            ..FoldingRange::default()
        })
        .collect()
}

/// Applies one `didChange` event: a range replacement, or the whole text.
fn apply_change(text: &mut String, change: &TextDocumentContentChangeEvent, encoding: Encoding) {
    let Some(range) = change.range else {
        text.clone_from(&change.text);
        return;
    };
    let index = LineIndex::new(text);
    let start = usize::from(index.offset(text, range.start.line, range.start.character, encoding));
    let end = usize::from(index.offset(text, range.end.line, range.end.character, encoding)).max(start);
    text.replace_range(start..end, &change.text);
}

/// The formatting edits of a document: one edit replacing what changed.
fn format(text: &str, range: Option<Range>, encoding: Encoding) -> Vec<TextEdit> {
    let index = LineIndex::new(text);
    let whole = TextRange::up_to(TextSize::of(text));
    let edit = match range {
        None => {
            let formatted = nacl_syntax::format::format(text);
            (formatted != text).then_some((whole, formatted))
        }
        Some(range) => {
            let start = index.offset(text, range.start.line, range.start.character, encoding);
            let end = index.offset(text, range.end.line, range.end.character, encoding).max(start);
            let parse = nacl_syntax::parse(text);
            nacl_syntax::format::format_range(text, &parse, TextRange::new(start, end))
                .filter(|edit| text[edit.range] != edit.new_text)
                .map(|edit| (edit.range, edit.new_text))
        }
    };
    edit.map(|(range, new_text)| vec![TextEdit { range: to_range(text, &index, range, encoding), new_text }])
        .unwrap_or_default()
}
