//! Printing diagnostics for people (rustc-style snippets) and for machines (JSON).

use crate::{
    line_index::{LineIndex, clamp_offset},
    terminal,
};
use annotate_snippets::{Level, Message, Renderer, Snippet};
use nacl_analysis::{diagnostics::Diagnostic, workspace::FileReport};
use nacl_syntax::{Severity, TextRange, TextSize};
use serde::Serialize;
use std::{collections::BTreeMap, collections::HashMap, io::Write, path::Path};

/// How many source lines a snippet shows at most.
const MAX_SNIPPET_LINES: u32 = 6;

/// The texts of the files diagnostics may point into, by path.
pub type Texts = HashMap<std::path::PathBuf, nacl_analysis::fragments::Text>;

/// The line index of each file a report shows, built once per file (a file with thousands of
/// diagnostics, or named by thousands of related places, is not indexed again for each).
#[derive(Default)]
pub struct LineIndexes {
    by_path: HashMap<std::path::PathBuf, LineIndex>,
}

impl LineIndexes {
    /// The index of `text`, the text of the file at `path`.
    pub fn of(&mut self, path: &Path, text: &str) -> &LineIndex {
        self.by_path.entry(path.to_path_buf()).or_insert_with(|| LineIndex::new(text))
    }
}

/// A path as shown: relative to the current folder when it is below it.
pub fn display_path(path: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let shown = cwd.as_deref().and_then(|cwd| path.strip_prefix(cwd).ok()).unwrap_or(path);
    shown.display().to_string()
}

/// The lines a range covers (at most [`MAX_SNIPPET_LINES`]) and the range's span within them.
fn snippet_span(text: &str, index: &LineIndex, range: TextRange) -> (TextRange, std::ops::Range<usize>, u32) {
    let range = TextRange::new(clamp_offset(text, range.start()), clamp_offset(text, range.end()));
    let start = index.line_col(range.start());
    let end = index.line_col(range.end());
    let last_line = end.line.min(start.line + MAX_SNIPPET_LINES - 1);
    // The shown lines never include a line break, so an empty range at a line end stays there.
    let shown = index.line_range(start.line, text).cover(index.line_range(last_line, text));
    let source = &text[shown];
    let span_start = usize::from(range.start() - shown.start());
    let mut span_end = usize::from(range.end().min(shown.end()) - shown.start());
    if span_end <= span_start {
        // Mark the character at an empty range, unless the range sits at the end of the line.
        span_end = source[span_start..].chars().next().map_or(span_start, |c| span_start + c.len_utf8());
    }
    (shown, span_start..span_end, start.line + 1)
}

fn level(severity: Severity) -> Level {
    match severity {
        Severity::Error => Level::Error,
        Severity::Warning => Level::Warning,
        Severity::Info => Level::Info,
    }
}

/// A related place, ready to render: the shown lines, the span in them, and the label.
struct RelatedSnippet<'a> {
    origin: String,
    source: std::borrow::Cow<'a, str>,
    span: std::ops::Range<usize>,
    line: u32,
    label: std::borrow::Cow<'a, str>,
}

/// Renders one diagnostic as a rustc-style snippet, with its related places from `texts`.
pub fn render_human(
    renderer: &Renderer,
    path: &Path,
    text: &str,
    diagnostic: &Diagnostic,
    texts: &Texts,
    indexes: &mut LineIndexes,
) -> String {
    let (shown, span, line) = snippet_span(text, indexes.of(path, text), diagnostic.range);
    let (source, span) = terminal::pictured(&text[shown], span);
    // The renderer appends `:line:column` to the origin.
    let origin = terminal::escaped(&display_path(path)).into_owned();
    let title = terminal::escaped(&diagnostic.message);
    let mut message: Message<'_> = level(diagnostic.severity()).title(&title).id(diagnostic.code.as_str()).snippet(
        Snippet::source(&source)
            .line_start(line as usize)
            .origin(&origin)
            .annotation(level(diagnostic.severity()).span(span)),
    );
    let related: Vec<RelatedSnippet<'_>> = diagnostic
        .related
        .iter()
        .filter_map(|r| {
            let other = texts.get(&r.path)?;
            let (shown, span, line) = snippet_span(other, indexes.of(&r.path, other), r.range);
            let (source, span) = terminal::pictured(&other.as_str()[shown], span);
            let origin = terminal::escaped(&display_path(&r.path)).into_owned();
            Some(RelatedSnippet { origin, source, span, line, label: terminal::escaped(&r.message) })
        })
        .collect();
    for r in &related {
        message = message.snippet(
            Snippet::source(&r.source)
                .line_start(r.line as usize)
                .origin(&r.origin)
                .annotation(Level::Note.span(r.span.clone()).label(&r.label)),
        );
    }
    renderer.render(message).to_string()
}

/// The one-based column of `offset` (in `text`: see [`clamp_offset`]), counted in characters.
fn column(text: &str, index: &LineIndex, offset: TextSize) -> usize {
    let line_start = offset - TextSize::from(index.line_col(offset).col);
    text[TextRange::new(line_start, offset)].chars().count() + 1
}

/// A position in JSON output.
#[derive(Serialize)]
pub struct JsonPosition {
    /// One-based line.
    pub line: u32,
    /// One-based column, in characters.
    pub column: usize,
    /// Zero-based byte offset.
    pub offset: u32,
}

/// Another place a JSON diagnostic involves.
#[derive(Serialize)]
pub struct JsonRelated {
    /// The file.
    pub path: String,
    /// Where it starts.
    pub start: JsonPosition,
    /// Where it ends (exclusive).
    pub end: JsonPosition,
    /// What is there.
    pub message: String,
}

/// One diagnostic in JSON output.
#[derive(Serialize)]
pub struct JsonDiagnostic {
    /// The file.
    pub path: String,
    /// The stable code, such as `E0101`.
    pub code: &'static str,
    /// `error`, `warning` or `info`.
    pub severity: &'static str,
    /// What is wrong.
    pub message: String,
    /// Where it starts.
    pub start: JsonPosition,
    /// Where it ends (exclusive).
    pub end: JsonPosition,
    /// Other places it involves.
    pub related: Vec<JsonRelated>,
}

/// Totals of a check.
#[derive(Serialize, Default)]
pub struct Summary {
    /// Files checked.
    pub files_checked: usize,
    /// Bytes checked.
    pub bytes_checked: usize,
    /// Errors found.
    pub errors: usize,
    /// Warnings found.
    pub warnings: usize,
    /// Files with at least one diagnostic.
    pub files_with_diagnostics: usize,
    /// Diagnostics per code.
    pub by_code: BTreeMap<&'static str, usize>,
    /// Things worth knowing about the whole workspace, such as instances not type-checked.
    pub notes: Vec<String>,
}

impl Summary {
    /// Counts the results of a check.
    pub fn of(reports: &[FileReport]) -> Summary {
        let mut summary = Summary { files_checked: reports.len(), ..Summary::default() };
        for report in reports {
            summary.bytes_checked += report.len;
            summary.files_with_diagnostics += usize::from(!report.diagnostics.is_empty());
            for diagnostic in &report.diagnostics {
                match diagnostic.severity() {
                    Severity::Error => summary.errors += 1,
                    Severity::Warning => summary.warnings += 1,
                    Severity::Info => {}
                }
                *summary.by_code.entry(diagnostic.code.as_str()).or_default() += 1;
            }
        }
        summary
    }
}

/// The JSON document `nacl-ls check --format json` prints.
#[derive(Serialize)]
pub struct JsonReport {
    /// Every diagnostic, by file then position.
    pub diagnostics: Vec<JsonDiagnostic>,
    /// Totals.
    pub summary: Summary,
}

fn json_position(text: &str, index: &LineIndex, offset: TextSize) -> JsonPosition {
    let offset = clamp_offset(text, offset);
    JsonPosition { line: index.line_col(offset).line + 1, column: column(text, index, offset), offset: offset.into() }
}

fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// Builds the JSON report of a check.
pub fn json_report(reports: &[FileReport], texts: &Texts) -> JsonReport {
    let mut diagnostics = Vec::new();
    let mut indexes = LineIndexes::default();
    // A line index only for the files with diagnostics (most files of a workspace have none).
    for report in reports.iter().filter(|r| !r.diagnostics.is_empty()) {
        let index = LineIndex::new(&report.text);
        for diagnostic in &report.diagnostics {
            let related = diagnostic
                .related
                .iter()
                .filter_map(|r| {
                    let other = texts.get(&r.path)?;
                    let index = indexes.of(&r.path, other);
                    Some(JsonRelated {
                        path: display_path(&r.path),
                        start: json_position(other, index, r.range.start()),
                        end: json_position(other, index, r.range.end()),
                        message: r.message.clone(),
                    })
                })
                .collect();
            diagnostics.push(JsonDiagnostic {
                path: display_path(&report.path),
                code: diagnostic.code.as_str(),
                severity: severity_name(diagnostic.severity()),
                message: diagnostic.message.clone(),
                start: json_position(&report.text, &index, diagnostic.range.start()),
                end: json_position(&report.text, &index, diagnostic.range.end()),
                related,
            });
        }
    }
    JsonReport { diagnostics, summary: Summary::of(reports) }
}

/// Prints every diagnostic of the reports as snippets to `out`.
pub fn print_human(
    out: &mut impl Write,
    renderer: &Renderer,
    reports: &[FileReport],
    texts: &Texts,
) -> std::io::Result<()> {
    let mut indexes = LineIndexes::default();
    for report in reports {
        for diagnostic in &report.diagnostics {
            let shown = render_human(renderer, &report.path, &report.text, diagnostic, texts, &mut indexes);
            writeln!(out, "{shown}\n")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_past_the_text_or_inside_a_character_are_shown_at_the_nearest_place() {
        let text = "salto.t i {\n  a = \"é\"\n}\n";
        let index = LineIndex::new(text);
        let e_acute = TextSize::from(text.find('é').expect("é") as u32);
        let inside = TextRange::empty(e_acute + TextSize::from(1));
        let past = TextRange::new(TextSize::of(text) + TextSize::from(2), TextSize::of(text) + TextSize::from(5));
        // Inside `é`: at `é`, marked whole.
        let (shown, span, line) = snippet_span(text, &index, inside);
        assert_eq!((&text[shown], span, line), ("  a = \"é\"", 7..9, 2));
        let position = json_position(text, &index, inside.start());
        assert_eq!((position.line, position.column, position.offset), (2, 8, u32::from(e_acute)));
        // Past the end: at the end.
        let (shown, span, line) = snippet_span(text, &index, past);
        assert_eq!((&text[shown], span, line), ("", 0..0, 4));
        let position = json_position(text, &index, past.start());
        assert_eq!((position.line, position.column, position.offset), (4, 1, text.len() as u32));
    }
}
