//! Conversions from the analysis's answers (byte offsets) to LSP types (positions in the
//! negotiated encoding).

use super::paths::Uris;
use crate::line_index::{Encoding, LineIndex, encoded_len};
use nacl_analysis::fragments::Text;
use nacl_analysis::{
    diagnostics::Diagnostic as NaclDiagnostic,
    highlight::{Highlight, HighlightKind},
    structure,
    workspace::LoadedWorkspace,
};
use nacl_syntax::{Severity, TextRange, TextSize};
use std::{
    collections::HashMap,
    path::{Path, PathBuf},
};
use tower_lsp_server::ls_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol, FoldingRange, FoldingRangeKind,
    Location, NumberOrString, Position, Range, SemanticToken, SemanticTokenModifier, SemanticTokenType,
    SemanticTokensEdit, SymbolKind,
};

/// A text with its line index: everything needed to convert offsets of one file.
#[derive(Clone, Copy)]
pub struct Lines<'a> {
    /// The text.
    pub text: &'a str,
    /// Its line index.
    pub index: &'a LineIndex,
    /// How columns are counted.
    pub encoding: Encoding,
}

impl Lines<'_> {
    /// The LSP range of a byte range.
    pub fn range(&self, range: TextRange) -> Range {
        Range { start: self.position(range.start()), end: self.position(range.end()) }
    }

    /// The LSP position of a byte offset.
    pub fn position(&self, offset: TextSize) -> Position {
        let (line, character) = self.index.to_lsp(self.text, offset, self.encoding);
        Position { line, character }
    }

    /// The byte offset of an LSP position (clamped to the text).
    pub fn offset(&self, position: Position) -> TextSize {
        self.index.offset(self.text, position.line, position.character, self.encoding)
    }

    /// The byte range of an LSP range (clamped, never reversed).
    pub fn text_range(&self, range: Range) -> TextRange {
        let start = self.offset(range.start);
        TextRange::new(start, self.offset(range.end).max(start))
    }
}

/// Converts byte ranges in any workspace file to LSP locations, indexing each file's lines once.
pub struct Locator<'a> {
    workspace: &'a LoadedWorkspace,
    encoding: Encoding,
    uris: &'a Uris,
    files: HashMap<PathBuf, Option<(Text, LineIndex)>>,
}

impl<'a> Locator<'a> {
    /// A locator for the files of `workspace`, naming them by the URIs the client knows.
    pub fn new(workspace: &'a LoadedWorkspace, encoding: Encoding, uris: &'a Uris) -> Locator<'a> {
        Locator { workspace, encoding, uris, files: HashMap::new() }
    }

    /// The location of `range` in the file at `path`. Files the analysis does not hold (static
    /// files) are pointed at their start.
    pub fn location(&mut self, path: &Path, range: TextRange) -> Option<Location> {
        let workspace = self.workspace;
        let file = self.files.entry(path.to_path_buf()).or_insert_with(|| {
            let text = workspace.text_of(path)?;
            let index = LineIndex::new(&text);
            Some((text, index))
        });
        let range = match file {
            Some((text, index)) => Lines { text, index, encoding: self.encoding }.range(range),
            None => Range::default(),
        };
        Some(Location { uri: self.uris.uri_of(path)?, range })
    }
}

/// An analysis diagnostic as an LSP diagnostic, with related locations in other files.
pub fn diagnostic(d: &NaclDiagnostic, lines: Lines<'_>, locator: &mut Locator<'_>) -> Diagnostic {
    let related = d
        .related
        .iter()
        .filter_map(|r| {
            Some(DiagnosticRelatedInformation {
                location: locator.location(&r.path, r.range)?,
                message: r.message.clone(),
            })
        })
        .collect::<Vec<_>>();
    Diagnostic {
        range: lines.range(d.range),
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

/// The LSP kind of an outline or workspace symbol.
pub fn symbol_kind(kind: structure::SymbolKind) -> SymbolKind {
    match kind {
        structure::SymbolKind::Type => SymbolKind::CLASS,
        structure::SymbolKind::Instance => SymbolKind::OBJECT,
        structure::SymbolKind::Variables => SymbolKind::NAMESPACE,
        structure::SymbolKind::Variable => SymbolKind::VARIABLE,
        structure::SymbolKind::Field => SymbolKind::FIELD,
        structure::SymbolKind::AnnotationType => SymbolKind::INTERFACE,
        structure::SymbolKind::Object => SymbolKind::STRUCT,
        structure::SymbolKind::Property => SymbolKind::PROPERTY,
        structure::SymbolKind::Block => SymbolKind::CLASS,
    }
}

/// The outline of a document, as LSP document symbols.
pub fn document_symbols(symbols: &[structure::Symbol], lines: Lines<'_>) -> Vec<DocumentSymbol> {
    fn convert(symbol: &structure::Symbol, lines: Lines<'_>) -> DocumentSymbol {
        #[allow(deprecated)] // `deprecated` is a required field of the type
        DocumentSymbol {
            name: if symbol.name.is_empty() { "?".to_owned() } else { symbol.name.clone() },
            detail: symbol.detail.clone(),
            kind: symbol_kind(symbol.kind),
            tags: None,
            deprecated: None,
            range: lines.range(symbol.range),
            selection_range: lines.range(symbol.selection),
            children: Some(symbol.children.iter().map(|c| convert(c, lines)).collect()),
        }
    }
    symbols.iter().map(|s| convert(s, lines)).collect()
}

/// The foldable regions of a document, by line.
pub fn folding_ranges(folds: &[structure::Fold], lines: Lines<'_>) -> Vec<FoldingRange> {
    folds
        .iter()
        .map(|fold| FoldingRange {
            start_line: lines.index.line_col(fold.range.start()).line,
            end_line: lines.index.line_col(fold.range.end()).line,
            kind: Some(match fold.kind {
                structure::FoldKind::Comment => FoldingRangeKind::Comment,
                structure::FoldKind::Region => FoldingRangeKind::Region,
            }),
            ..FoldingRange::default()
        })
        .collect()
}

/// The semantic token types the server reports, in legend order.
pub const TOKEN_TYPES: [SemanticTokenType; 10] = [
    SemanticTokenType::KEYWORD,
    SemanticTokenType::TYPE,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::DECORATOR,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::STRING,
    SemanticTokenType::NUMBER,
    SemanticTokenType::COMMENT,
    SemanticTokenType::OPERATOR,
];

/// The semantic token modifiers the server reports, in legend order.
pub const TOKEN_MODIFIERS: [SemanticTokenModifier; 2] =
    [SemanticTokenModifier::DECLARATION, SemanticTokenModifier::DEFAULT_LIBRARY];

/// Highlights as LSP semantic tokens (relative positions), one token per line of a highlight
/// that spans lines (multiline strings). Highlights that touch and look the same are one token
/// (a string's quotes, text and escapes): fewer tokens to send, decode and draw.
pub fn semantic_tokens(lines: Lines<'_>, highlights: &[Highlight]) -> Vec<SemanticToken> {
    let mut tokens = Vec::with_capacity(highlights.len());
    // Highlights come in order: one pass over the text converts them all.
    let mut cursor = lines.index.cursor(lines.text, lines.encoding);
    let (mut last_line, mut last_start) = (0, 0);
    for (range, token_type, modifiers) in joined(highlights) {
        let mut push = |(line, character): (u32, u32), text: &str| {
            if text.is_empty() {
                return;
            }
            let delta_line = line - last_line;
            let delta_start = if delta_line == 0 { character - last_start } else { character };
            tokens.push(SemanticToken {
                delta_line,
                delta_start,
                length: encoded_len(text, lines.encoding),
                token_type,
                token_modifiers_bitset: modifiers,
            });
            (last_line, last_start) = (line, character);
        };
        // Each line's part separately (clients need not support tokens across lines), the
        // lines as the line index has them; most highlights lie on one.
        let (mut start, end) = (range.start(), range.end());
        loop {
            let at = cursor.position(start);
            let piece_end = cursor.next_line_start().map_or(end, |next| next.min(end));
            push(at, lines.text[usize::from(start)..usize::from(piece_end)].trim_end_matches(['\n', '\r']));
            if piece_end >= end || piece_end <= start {
                break;
            }
            start = piece_end;
        }
    }
    tokens
}

/// The highlights' ranges with their token type and modifiers in the legend, those that touch
/// with the same type and modifiers joined into one.
fn joined(highlights: &[Highlight]) -> impl Iterator<Item = (TextRange, u32, u32)> + '_ {
    let mut highlights = highlights.iter().map(|h| (h.range, token_type(h.kind), token_modifiers(h))).peekable();
    std::iter::from_fn(move || {
        let (mut range, token_type, modifiers) = highlights.next()?;
        while let Some(next) =
            highlights.next_if(|&(next, t, m)| next.start() == range.end() && (t, m) == (token_type, modifiers))
        {
            range = range.cover(next.0);
        }
        Some((range, token_type, modifiers))
    })
}

/// The modifiers of a highlight, as a bit set over [`TOKEN_MODIFIERS`].
fn token_modifiers(highlight: &Highlight) -> u32 {
    u32::from(highlight.declaration) | (u32::from(highlight.builtin) << 1)
}

/// The index in [`TOKEN_TYPES`] of a kind of highlight.
fn token_type(kind: HighlightKind) -> u32 {
    match kind {
        HighlightKind::Keyword => 0,
        HighlightKind::Type => 1,
        HighlightKind::Element => 2,
        HighlightKind::Field => 3,
        HighlightKind::CoreAnnotation => 4,
        HighlightKind::Function => 5,
        HighlightKind::String => 6,
        HighlightKind::Number => 7,
        HighlightKind::Comment => 8,
        HighlightKind::Operator => 9,
    }
}

/// The edit from one token list to the next: the tokens between their common start and end.
pub fn semantic_tokens_edit(old: &[SemanticToken], new: &[SemanticToken]) -> SemanticTokensEdit {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..].iter().rev().zip(new[prefix..].iter().rev()).take_while(|(a, b)| a == b).count();
    SemanticTokensEdit {
        // Positions count integers: five per token.
        start: (prefix * 5) as u32,
        delete_count: ((old.len() - prefix - suffix) * 5) as u32,
        data: Some(new[prefix..new.len() - suffix].to_vec()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each piece of each highlight converted on its own, both ends through the line index,
    /// after joining touching highlights of the same kind: what the one-pass conversion must
    /// equal.
    fn tokens_one_by_one(lines: Lines<'_>, highlights: &[Highlight]) -> Vec<(u32, u32, u32)> {
        let mut joined: Vec<Highlight> = Vec::new();
        for highlight in highlights {
            match joined.last_mut() {
                Some(last)
                    if last.range.end() == highlight.range.start()
                        && (last.kind, last.declaration, last.builtin)
                            == (highlight.kind, highlight.declaration, highlight.builtin) =>
                {
                    last.range = TextRange::new(last.range.start(), highlight.range.end());
                }
                _ => joined.push(highlight.clone()),
            }
        }
        let mut positions = Vec::new();
        for highlight in &joined {
            let mut start = usize::from(highlight.range.start());
            for piece in lines.text[highlight.range].split_inclusive(['\n', '\r']) {
                let text = piece.trim_end_matches(['\n', '\r']);
                let range = lines.range(TextRange::at(TextSize::from(start as u32), TextSize::of(text)));
                start += piece.len();
                if !text.is_empty() {
                    positions.push((
                        range.start.line,
                        range.start.character,
                        range.end.character - range.start.character,
                    ));
                }
            }
        }
        positions
    }

    #[test]
    fn semantic_tokens_are_placed_as_the_line_index_places_them() {
        let text =
            "salto.t a {\r\n  é😀 = \"x😀y\"\n  m = '''\n  lé\r\n  😀z\n  '''\n  r = salto.t.instance.a // 😀\n}\n";
        let index = LineIndex::new(text);
        let root = nacl_syntax::nacl::parse(text).syntax();
        let highlights = nacl_analysis::highlight::highlights(&root, None);
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            let lines = Lines { text, index: &index, encoding };
            let absolute = absolute(&semantic_tokens(lines, &highlights));
            assert_eq!(absolute, tokens_one_by_one(lines, &highlights), "{encoding:?}");
            assert!(absolute.len() > 10, "{absolute:?}");
            // `"x😀y"` is one token: its quotes and its text touch.
            let string = (1, if encoding == Encoding::Utf8 { 11 } else { 8 });
            let length = if encoding == Encoding::Utf8 { 8 } else { 6 };
            assert!(absolute.contains(&(string.0, string.1, length)), "{encoding:?}: {absolute:?}");
        }
    }

    /// The tokens as absolute (line, character, length), decoded from their deltas.
    fn absolute(tokens: &[SemanticToken]) -> Vec<(u32, u32, u32)> {
        let (mut line, mut character) = (0, 0);
        tokens
            .iter()
            .map(|t| {
                character = if t.delta_line == 0 { character + t.delta_start } else { t.delta_start };
                line += t.delta_line;
                (line, character, t.length)
            })
            .collect()
    }

    proptest::proptest! {
        /// Any text, with every form of line break inside and between tokens, converts as the
        /// line index places each piece.
        #[test]
        fn any_text_converts_as_the_line_index_places_it(
            text in r#"(salto\.t a \{|  [a-zé]{1,3} = |"[a-z😀\\]{0,3}|'''|\$\{ salto\.t\.a \}|[0-9]{1,2}|true|// x|\}|\r\n|\r|\n| ){0,40}"#
        ) {
            let index = LineIndex::new(&text);
            let root = nacl_syntax::nacl::parse(&text).syntax();
            let highlights = nacl_analysis::highlight::highlights(&root, None);
            for encoding in [Encoding::Utf8, Encoding::Utf16] {
                let lines = Lines { text: &text, index: &index, encoding };
                let converted = absolute(&semantic_tokens(lines, &highlights));
                proptest::prop_assert_eq!(converted, tokens_one_by_one(lines, &highlights));
            }
        }
    }
}
