//! Printing syntax errors for people (rustc-style snippets) and for machines (JSON).

use crate::line_index::LineIndex;
use annotate_snippets::{Level, Renderer, Snippet};
use nacl_analysis::files::FileCheck;
use nacl_syntax::{SyntaxError, TextRange, TextSize};
use serde::Serialize;
use std::{collections::BTreeMap, io::Write, path::Path};

/// How many source lines a snippet shows at most.
const MAX_SNIPPET_LINES: u32 = 6;

/// Renders one error as a rustc-style snippet.
pub fn render_human(renderer: &Renderer, path: &Path, text: &str, index: &LineIndex, error: &SyntaxError) -> String {
    let start = index.line_col(error.range.start());
    let end = index.line_col(error.range.end());
    let last_line = end.line.min(start.line + MAX_SNIPPET_LINES - 1);
    let first_range = index.line_range(start.line, text);
    let shown = first_range.cover(index.line_range(last_line, text));
    // The shown lines never include a line break, so an empty range at a line end stays there.
    let source = &text[shown];
    // The span, relative to the shown lines; an empty range marks the character at it.
    let span_start = usize::from(error.range.start() - shown.start());
    let mut span_end = usize::from(error.range.end().min(shown.end()) - shown.start());
    if span_end <= span_start {
        // Mark the character at an empty range, unless the range sits at the end of the line.
        span_end = source[span_start..].chars().next().map_or(span_start, |c| span_start + c.len_utf8());
    }
    // The renderer appends `:line:column` to the origin.
    let origin = path.display().to_string();
    let message = Level::Error.title(&error.message).id(error.code.as_str()).snippet(
        Snippet::source(source)
            .line_start(start.line as usize + 1)
            .origin(&origin)
            .annotation(Level::Error.span(span_start..span_end)),
    );
    renderer.render(message).to_string()
}

/// The one-based column of `offset`, counted in characters.
fn column(text: &str, index: &LineIndex, offset: TextSize) -> usize {
    let line_start = offset - TextSize::from(index.line_col(offset).col);
    text[TextRange::new(line_start, offset.min(TextSize::of(text)))].chars().count() + 1
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

/// One diagnostic in JSON output.
#[derive(Serialize)]
pub struct JsonDiagnostic {
    /// The file.
    pub path: String,
    /// The stable code, such as `E0101`.
    pub code: &'static str,
    /// `error` or `warning`.
    pub severity: &'static str,
    /// What is wrong.
    pub message: String,
    /// Where it starts.
    pub start: JsonPosition,
    /// Where it ends (exclusive).
    pub end: JsonPosition,
}

/// Totals of a check.
#[derive(Serialize, Default)]
pub struct Summary {
    /// Files read.
    pub files_checked: usize,
    /// Bytes read.
    pub bytes_checked: usize,
    /// Errors found.
    pub errors: usize,
    /// Files with at least one error.
    pub files_with_errors: usize,
    /// Errors per code.
    pub by_code: BTreeMap<&'static str, usize>,
}

impl Summary {
    /// Counts the results of a check.
    pub fn of(checks: &[FileCheck]) -> Summary {
        let mut summary = Summary { files_checked: checks.len(), ..Summary::default() };
        for check in checks {
            summary.bytes_checked += check.len;
            summary.errors += check.errors.len();
            summary.files_with_errors += usize::from(!check.errors.is_empty());
            for error in &check.errors {
                *summary.by_code.entry(error.code.as_str()).or_default() += 1;
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
    JsonPosition { line: index.line_col(offset).line + 1, column: column(text, index, offset), offset: offset.into() }
}

/// Builds the JSON report of a check.
pub fn json_report(checks: &[FileCheck]) -> JsonReport {
    let mut diagnostics = Vec::new();
    for check in checks {
        let Some(text) = &check.text else { continue };
        let index = LineIndex::new(text);
        for error in &check.errors {
            diagnostics.push(JsonDiagnostic {
                path: check.path.display().to_string(),
                code: error.code.as_str(),
                severity: "error",
                message: error.message.clone(),
                start: json_position(text, &index, error.range.start()),
                end: json_position(text, &index, error.range.end()),
            });
        }
    }
    JsonReport { diagnostics, summary: Summary::of(checks) }
}

/// Prints every error of the checks as snippets to `out`.
pub fn print_human(out: &mut impl Write, renderer: &Renderer, checks: &[FileCheck]) -> std::io::Result<()> {
    for check in checks {
        let Some(text) = &check.text else { continue };
        let index = LineIndex::new(text);
        for error in &check.errors {
            writeln!(out, "{}\n", render_human(renderer, &check.path, text, &index, error))?;
        }
    }
    Ok(())
}
