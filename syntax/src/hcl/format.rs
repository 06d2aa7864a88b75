//! The HCL formatter: HashiCorp's canonical layout, the one `hclfmt` and `terraform fmt` write.
//!
//! Formatting changes only the spaces between tokens on a line; it never adds or removes a line
//! break, never touches a token (template text, heredoc bodies and comments stay byte for byte),
//! and copies top-level items that hold a syntax error as they are. The rules:
//! - a line is indented two spaces per bracket (`{ [ ( ${ %{`) left open by the lines before it,
//!   counting only lines that open or close more than they close or open;
//! - between two tokens of a line there is one space or none, by the kinds of the two tokens (no
//!   space inside brackets, before `,`, around `.`, after a unary `-` or `!`, inside templates; one
//!   inside braces and everywhere else);
//! - in a run of consecutive lines holding `name = value` (with the value complete on the line), the
//!   `=` signs line up one space after the longest name, and in a run of lines ending in a line
//!   comment the comments line up one space after the longest line;
//! - trailing spaces go, and so do the spaces before a line break.

use super::{
    Parse,
    SyntaxKind::{self, *},
};
use crate::TextEdit;
use rowan::{TextRange, TextSize};
use unicode_segmentation::UnicodeSegmentation;

/// Formats a whole file.
pub fn format(text: &str) -> String {
    format_parsed(text, &super::parse(text))
}

/// Formats a whole file that has already been parsed; `parse` must be the parse of `text`.
pub fn format_parsed(text: &str, parse: &Parse) -> String {
    let layout = Layout::new(text, parse);
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for line in 0..layout.lines.len() {
        layout.write_line(line, &mut out);
    }
    layout.write_end(&mut out);
    out
}

/// Formats the lines that intersect `range`, leaving the rest of the file alone (alignment is
/// computed as for the whole file). Returns `None` when formatting changes nothing there.
pub fn format_range(text: &str, parse: &Parse, range: TextRange) -> Option<TextEdit> {
    let layout = Layout::new(text, parse);
    let touching: Vec<usize> = (0..layout.lines.len())
        .filter(|&i| {
            let span = layout.line_span(i);
            span.intersect(range).is_some() || span.contains(range.start())
        })
        .collect();
    let (&first, &last) = (touching.first()?, touching.last()?);
    let covered = layout.line_span(first).cover(layout.line_span(last));
    let mut new_text = String::new();
    for line in first..=last {
        layout.write_line(line, &mut new_text);
    }
    (new_text != text[covered]).then_some(TextEdit { range: covered, new_text })
}

/// One token as the formatter sees it: trivia merged the way HCL's own tokens are (a line comment
/// with its line break, a strip marker with its `${`, `%{` or `}`).
#[derive(Debug, Clone, Copy)]
struct Tok {
    kind: SyntaxKind,
    start: usize,
    end: usize,
    /// Whether it ends a line (a line break, or a line comment with its line break).
    newline: bool,
    /// The spaces the formatter puts before it.
    spaces: usize,
}

/// A line: `tokens[start..end]`, the last one its line break (except at the end of the file),
/// split into cells: `lead`, then from `assign` the `= value`, then from `comment` a line comment.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    assign: Option<usize>,
    comment: Option<usize>,
    /// Copied as it is: part of a top-level item with a syntax error.
    verbatim: bool,
}

struct Layout<'t> {
    text: &'t str,
    toks: Vec<Tok>,
    lines: Vec<Line>,
    /// Where the whitespace after the last token starts.
    last_end: usize,
}

impl<'t> Layout<'t> {
    fn new(text: &'t str, parse: &Parse) -> Layout<'t> {
        let toks = tokens(parse);
        let last_end = toks.last().map_or(0, |t| t.end);
        let mut layout = Layout { text, toks, lines: Vec::new(), last_end };
        layout.split_lines(&broken_ranges(parse));
        layout.indent();
        layout.space();
        layout.align();
        layout
    }

    fn tok_text(&self, i: usize) -> &'t str {
        &self.text[self.toks[i].start..self.toks[i].end]
    }

    /// The bytes of line `i` in the input, from the end of the previous line's break.
    fn line_span(&self, i: usize) -> TextRange {
        let line = self.lines[i];
        let start = if i == 0 { 0 } else { self.toks[self.lines[i - 1].end - 1].end };
        let end = if line.end > line.start { self.toks[line.end - 1].end } else { start };
        TextRange::new(TextSize::from(start as u32), TextSize::from(end as u32))
    }

    fn split_lines(&mut self, broken: &[TextRange]) {
        let mut start = 0;
        for i in 0..self.toks.len() {
            if self.toks[i].newline || i + 1 == self.toks.len() {
                self.lines.push(Line { start, end: i + 1, assign: None, comment: None, verbatim: false });
                start = i + 1;
            }
        }
        for index in 0..self.lines.len() {
            let span = self.line_span(index);
            let line = &mut self.lines[index];
            line.verbatim = broken.iter().any(|b| b.intersect(span).is_some_and(|r| !r.is_empty() || b.is_empty()));
            // The cells: a trailing line comment, and `= value` when the value closes what it opens.
            let mut content_end = line.end;
            if content_end > line.start
                && self.toks[content_end - 1].newline
                && self.toks[content_end - 1].kind == NEWLINE
            {
                content_end -= 1;
            }
            if content_end > line.start + 1 && self.toks[content_end - 1].kind == LINE_COMMENT {
                line.comment = Some(content_end - 1);
                content_end -= 1;
            }
            if let Some(eq) = (line.start + 1..content_end).find(|&i| self.toks[i].kind == EQ) {
                let net: i32 = (eq..line.end).map(|i| bracket_change(self.toks[i].kind)).sum();
                if net == 0 {
                    line.assign = Some(eq);
                }
            }
        }
    }

    /// The end of a line's lead cell.
    fn lead_end(&self, line: &Line) -> usize {
        line.assign.or(line.comment).unwrap_or(line.end)
    }

    /// Indentation: two spaces per bracket level left open by earlier lines.
    fn indent(&mut self) {
        let mut open: Vec<i32> = Vec::new();
        for index in 0..self.lines.len() {
            let line = self.lines[index];
            if line.verbatim {
                open.clear();
                continue;
            }
            if line.start == line.end {
                continue;
            }
            if self.toks[line.start].kind == NEWLINE {
                self.toks[line.start].spaces = 0;
                continue;
            }
            let mut net = 0;
            for i in line.start..self.lead_end(&line) {
                net += bracket_change(self.toks[i].kind);
                if self.toks[i].kind == HEREDOC_OPEN {
                    break;
                }
            }
            if let Some(assign) = line.assign {
                net +=
                    (assign..line.comment.unwrap_or(line.end)).map(|i| bracket_change(self.toks[i].kind)).sum::<i32>();
            }
            let before = open.len();
            if net > 0 {
                open.push(net);
            } else if net < 0 {
                let mut closed = -net;
                while closed > 0 {
                    let Some(top) = open.last_mut() else { break };
                    if closed >= *top {
                        closed -= *top;
                        open.pop();
                    } else {
                        *top -= closed;
                        closed = 0;
                    }
                }
            }
            let level = if net > 0 { before } else { open.len() };
            self.toks[line.start].spaces = 2 * level;
        }
    }

    /// Spaces between the tokens of each cell.
    fn space(&mut self) {
        for index in 0..self.lines.len() {
            let line = self.lines[index];
            if line.verbatim {
                continue;
            }
            let lead_end = self.lead_end(&line);
            self.space_cell(line.start, lead_end);
            if let Some(assign) = line.assign {
                self.toks[assign].spaces = 1;
                self.space_cell(assign, line.comment.unwrap_or(line.end));
            }
        }
    }

    fn space_cell(&mut self, start: usize, end: usize) {
        for i in start..end.saturating_sub(1) {
            let before = if i > start { Some(i - 1) } else { None };
            let space = self.space_after(i, before, i + 1);
            self.toks[i + 1].spaces = usize::from(space);
        }
    }

    /// Whether token `subject` is followed by a space when between `before` and `after`.
    fn space_after(&self, subject: usize, before: Option<usize>, after: usize) -> bool {
        let s = self.toks[subject].kind;
        let a = self.toks[after].kind;
        let b = before.map(|i| self.toks[i].kind);
        if self.toks[after].newline && a == NEWLINE {
            return false;
        }
        match (s, a) {
            // `2 .1` (a legacy index on a number) must not become the number `2.1`: hclfmt joins
            // them and so changes what the file says; nacl-ls keeps the space.
            (NUMBER, DOT) if self.toks.get(after + 1).is_some_and(|t| t.kind == NUMBER) => true,
            // Nor may dots glue into `...`, or `!` and `=` into `!=` (in text that does not parse
            // as written, these joins would change its tokens).
            (DOT | ELLIPSIS, DOT | ELLIPSIS) | (BANG, EQ | EQ2) => true,
            (IDENT, L_PAREN) => false,
            (DOT, _) | (_, DOT) => false,
            (_, COMMA | ELLIPSIS) => false,
            (COMMA, _) => true,
            (TEMPLATE_TEXT | OPEN_QUOTE | HEREDOC_OPEN, _) | (_, TEMPLATE_TEXT | CLOSE_QUOTE | HEREDOC_CLOSE) => false,
            (IDENT, _) if b == Some(IDENT) && self.tok_text(subject) == "in" => true,
            (IDENT | NUMBER, L_BRACK) => false,
            (_, L_BRACK) if bracket_change(s) < 0 => false,
            (BANG, _) => false,
            (MINUS, _) => !matches!(
                b,
                None | Some(
                    L_PAREN
                        | L_BRACE
                        | L_BRACK
                        | EQ
                        | COLON
                        | COMMA
                        | QUESTION
                        | PLUS
                        | STAR
                        | SLASH
                        | PERCENT
                        | MINUS
                        | EQ2
                        | NEQ
                        | GT
                        | GTEQ
                        | LT
                        | LTEQ
                        | AND
                        | OR
                        | BANG
                )
            ),
            (L_BRACE, R_BRACE) => false,
            (L_BRACE, _) | (_, R_BRACE) => true,
            (INTERP_OPEN | DIRECTIVE_OPEN, L_BRACE) => true,
            (R_BRACE, TEMPLATE_CLOSE) => true,
            (TEMPLATE_CLOSE, INTERP_OPEN | DIRECTIVE_OPEN) => false,
            _ if bracket_change(s) > 0 => false,
            _ if bracket_change(a) < 0 => false,
            _ => true,
        }
    }

    /// Aligns the `=` of runs of attribute lines, then the comments of runs of commented lines.
    fn align(&mut self) {
        // Widths are needed only where there is something to align.
        let lead_columns: Vec<usize> = (0..self.lines.len())
            .map(|i| {
                let line = self.lines[i];
                if line.assign.is_some() || line.comment.is_some() {
                    self.columns(line.start, self.lead_end(&line))
                } else {
                    0
                }
            })
            .collect();
        let assigns: Vec<Option<usize>> = self.lines.iter().map(|l| if l.verbatim { None } else { l.assign }).collect();
        for (run, width) in runs(&assigns, &lead_columns) {
            for i in run {
                if let Some(assign) = self.lines[i].assign {
                    self.toks[assign].spaces = width - lead_columns[i] + 1;
                }
            }
        }
        let line_columns: Vec<usize> = (0..self.lines.len())
            .map(|i| {
                let line = self.lines[i];
                if line.comment.is_none() {
                    return 0;
                }
                lead_columns[i] + line.assign.map_or(0, |a| self.columns(a, line.comment.unwrap_or(line.end)))
            })
            .collect();
        let comments: Vec<Option<usize>> =
            self.lines.iter().map(|l| if l.verbatim { None } else { l.comment }).collect();
        for (run, width) in runs(&comments, &line_columns) {
            for i in run {
                if let Some(comment) = self.lines[i].comment {
                    self.toks[comment].spaces = width - line_columns[i] + 1;
                }
            }
        }
    }

    /// The width of tokens `start..end` with their spaces, in grapheme clusters.
    fn columns(&self, start: usize, end: usize) -> usize {
        (start..end).map(|i| self.toks[i].spaces + width(self.tok_text(i))).sum()
    }

    fn write_line(&self, index: usize, out: &mut String) {
        let line = self.lines[index];
        if line.verbatim {
            out.push_str(&self.text[self.line_span(index)]);
            return;
        }
        for i in line.start..line.end {
            push_spaces(out, self.toks[i].spaces);
            out.push_str(self.tok_text(i));
        }
    }

    /// What follows the last token: HCL keeps the spaces there, as spaces.
    fn write_end(&self, out: &mut String) {
        let rest = &self.text[self.last_end..];
        if self.lines.last().is_some_and(|l| l.verbatim) {
            out.push_str(rest);
        } else {
            push_spaces(out, rest.len());
        }
    }
}

/// The number of grapheme clusters of `text` (for ASCII: its bytes, a `\r\n` counting once).
fn width(text: &str) -> usize {
    if text.is_ascii() { text.len() - text.matches("\r\n").count() } else { text.graphemes(true).count() }
}

fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Runs of consecutive lines with a cell, and the widest of their `columns`.
fn runs(cells: &[Option<usize>], columns: &[usize]) -> Vec<(std::ops::Range<usize>, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < cells.len() {
        if cells[i].is_none() {
            i += 1;
            continue;
        }
        let start = i;
        while i < cells.len() && cells[i].is_some() {
            i += 1;
        }
        let width = columns[start..i].iter().copied().max().unwrap_or(0);
        out.push((start..i, width));
    }
    out
}

/// How a token changes the bracket depth.
fn bracket_change(kind: SyntaxKind) -> i32 {
    match kind {
        L_BRACE | L_BRACK | L_PAREN | INTERP_OPEN | DIRECTIVE_OPEN => 1,
        R_BRACE | R_BRACK | R_PAREN | TEMPLATE_CLOSE => -1,
        _ => 0,
    }
}

/// The tokens of a parsed file as the formatter sees them, whitespace dropped.
fn tokens(parse: &Parse) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::new();
    for token in parse.syntax().descendants_with_tokens().filter_map(|e| e.into_token()) {
        let range = token.text_range();
        let (start, end) = (usize::from(range.start()), usize::from(range.end()));
        let kind = token.kind();
        if kind == WHITESPACE {
            continue;
        }
        if let Some(last) = out.last_mut() {
            let glued = last.end == start;
            let merge = match (last.kind, kind) {
                // A line comment ends with its line break, as in HCL's own tokens.
                (LINE_COMMENT, NEWLINE) if glued && !last.newline => true,
                (INTERP_OPEN | DIRECTIVE_OPEN, STRIP) if glued => true,
                (STRIP, TEMPLATE_CLOSE) if glued => {
                    last.kind = TEMPLATE_CLOSE;
                    true
                }
                _ => false,
            };
            if merge {
                last.end = end;
                last.newline |= kind == NEWLINE;
                continue;
            }
        }
        out.push(Tok { kind, start, end, newline: kind == NEWLINE, spaces: 0 });
    }
    out
}

/// The ranges of the top-level items (and stray text) that hold a syntax error.
fn broken_ranges(parse: &Parse) -> Vec<TextRange> {
    let errors = parse.errors();
    if errors.is_empty() {
        return Vec::new();
    }
    let root = parse.syntax();
    let mut out = Vec::new();
    for error in errors {
        let item = root.children().map(|c| c.text_range()).find(|r| {
            r.contains_range(error.range) || r.contains(error.range.start()) || r.end() == error.range.start()
        });
        out.push(item.unwrap_or(error.range));
    }
    out
}

#[cfg(test)]
mod tests {
    /// Found by fuzzing: joining `2 .1` would make one number of a number and a legacy index.
    #[test]
    fn a_number_and_a_legacy_index_stay_apart() {
        assert_eq!(super::format("x = 2 .1\ny = a.0 .1\n"), "x = 2 .1\ny = a.0 .1\n");
        assert_eq!(super::format("x = a . 0\n"), "x = a.0\n");
        // Found by fuzzing: dots and `!` `=` stay apart, so formatting twice equals once.
        for text in ["x = * .. . b\n", "x = ! = 1\n"] {
            let once = super::format(text);
            assert_eq!(super::format(&once), once, "{text:?}");
        }
    }
}
