//! The HCL lexer: text to tokens, in one pass with a stack of modes (expressions, quoted
//! templates, heredocs, and expressions again inside `${ }` and `%{ }`).
//!
//! Every byte of the text lands in exactly one token; a character that starts no token becomes an
//! `ERROR_TOKEN`. Lexical errors are reported beside the tokens, never by failing.

use super::{
    ErrorCode,
    SyntaxKind::{self, *},
};
use crate::SyntaxError;
use rowan::{TextRange, TextSize};

/// One token of this language.
pub type Token = crate::base::Token<SyntaxKind>;
/// The tokens of a text of this language and the lexical errors in it.
pub type Lexed = crate::base::Lexed<SyntaxKind>;

/// What the lexer is inside.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mode {
    /// Expressions and structure; `braces` counts the `{` opened in this mode, so that the `}`
    /// closing an interpolation (when `in_template`) is told from an object's.
    Expr { braces: u32, in_template: bool },
    /// A quoted template.
    Quoted,
    /// A heredoc template ending at a line holding `marker`; `line_start` when at the start of a line.
    Heredoc { marker: String, line_start: bool },
}

/// Lexes `text`. Never fails.
pub fn lex(text: &str) -> Lexed {
    let mut lexer =
        Lexer { text, pos: 0, out: Lexed::default(), modes: vec![Mode::Expr { braces: 0, in_template: false }] };
    lexer.run();
    lexer.out
}

struct Lexer<'t> {
    text: &'t str,
    pos: usize,
    out: Lexed,
    modes: Vec<Mode>,
}

/// Whether `c` can start an identifier.
pub fn is_ident_start(c: char) -> bool {
    unicode_ident::is_xid_start(c)
}

/// Whether `c` can continue an identifier.
pub fn is_ident_continue(c: char) -> bool {
    unicode_ident::is_xid_continue(c) || c == '-'
}

/// Whether `text` is one identifier.
pub fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(is_ident_start) && chars.all(is_ident_continue)
}

impl<'t> Lexer<'t> {
    fn rest(&self) -> &'t str {
        &self.text[self.pos..]
    }

    fn push(&mut self, kind: SyntaxKind, len: usize) {
        if len == 0 {
            return;
        }
        self.out.tokens.push(Token { kind, len: len as u32 });
        self.pos += len;
    }

    fn error(&mut self, code: ErrorCode, start: usize, end: usize, message: impl Into<String>) {
        let range = TextRange::new(TextSize::from(start as u32), TextSize::from(end as u32));
        self.out.errors.push(SyntaxError::new(code, range, message));
    }

    fn run(&mut self) {
        while self.pos < self.text.len() {
            match self.modes.last().cloned() {
                Some(Mode::Quoted) => self.quoted(),
                Some(Mode::Heredoc { marker, line_start }) => self.heredoc(&marker, line_start),
                Some(Mode::Expr { .. }) | None => self.expr(),
            }
        }
        match self.modes.last() {
            Some(Mode::Heredoc { marker, .. }) => {
                let message = format!("the heredoc is never closed: add a line holding only `{marker}`");
                self.error(ErrorCode::UnterminatedHeredoc, self.text.len(), self.text.len(), message);
            }
            Some(Mode::Quoted) => {
                self.error(
                    ErrorCode::UnterminatedString,
                    self.text.len(),
                    self.text.len(),
                    "the string is never closed: add `\"`",
                );
            }
            _ => {}
        }
    }

    /// One token in expression mode.
    fn expr(&mut self) {
        let rest = self.rest();
        let bytes = rest.as_bytes();
        let Some(c) = rest.chars().next() else { return };
        let two = bytes.get(..2).unwrap_or(bytes);
        let kind_len: (SyntaxKind, usize) = match c {
            ' ' | '\t' => (WHITESPACE, bytes.iter().take_while(|&&b| b == b' ' || b == b'\t').count()),
            '\n' => (NEWLINE, 1),
            '\r' if two == b"\r\n" => (NEWLINE, 2),
            '#' => (LINE_COMMENT, line_len(rest)),
            '/' if two == b"//" => (LINE_COMMENT, line_len(rest)),
            '/' if two == b"/*" => match rest[2..].find("*/") {
                Some(end) => (BLOCK_COMMENT, end + 4),
                None => {
                    self.error(
                        ErrorCode::UnterminatedComment,
                        self.pos,
                        self.pos + 2,
                        "the comment is never closed: add `*/`",
                    );
                    (BLOCK_COMMENT, rest.len())
                }
            },
            '0'..='9' => (NUMBER, number_len(bytes)),
            '"' => {
                self.push(OPEN_QUOTE, 1);
                self.modes.push(Mode::Quoted);
                return;
            }
            '<' if two == b"<<" => match heredoc_open(rest) {
                Some((len, marker)) => {
                    self.push(HEREDOC_OPEN, len);
                    self.modes.push(Mode::Heredoc { marker, line_start: true });
                    return;
                }
                None => (LT, 1),
            },
            '{' => {
                if let Some(Mode::Expr { braces, .. }) = self.modes.last_mut() {
                    *braces += 1;
                }
                (L_BRACE, 1)
            }
            '}' => match self.modes.last_mut() {
                Some(Mode::Expr { braces, in_template: true }) if *braces == 0 => {
                    self.modes.pop();
                    (TEMPLATE_CLOSE, 1)
                }
                Some(Mode::Expr { braces, .. }) => {
                    *braces = braces.saturating_sub(1);
                    (R_BRACE, 1)
                }
                _ => (R_BRACE, 1),
            },
            '~' if self.closes_template_after_strip() => (STRIP, 1),
            '[' => (L_BRACK, 1),
            ']' => (R_BRACK, 1),
            '(' => (L_PAREN, 1),
            ')' => (R_PAREN, 1),
            ',' => (COMMA, 1),
            '.' if rest.starts_with("...") => (ELLIPSIS, 3),
            '.' => (DOT, 1),
            '=' if two == b"=>" => (FAT_ARROW, 2),
            '=' if two == b"==" => (EQ2, 2),
            '=' => (EQ, 1),
            '!' if two == b"!=" => (NEQ, 2),
            '!' => (BANG, 1),
            '<' if two == b"<=" => (LTEQ, 2),
            '<' => (LT, 1),
            '>' if two == b">=" => (GTEQ, 2),
            '>' => (GT, 1),
            '&' if two == b"&&" => (AND, 2),
            '|' if two == b"||" => (OR, 2),
            ':' => (COLON, 1),
            '?' => (QUESTION, 1),
            '+' => (PLUS, 1),
            '-' => (MINUS, 1),
            '*' => (STAR, 1),
            '/' => (SLASH, 1),
            '%' => (PERCENT, 1),
            c if is_ident_start(c) => {
                let len = rest.char_indices().find(|&(_, c)| !is_ident_continue(c)).map_or(rest.len(), |(i, _)| i);
                (IDENT, len)
            }
            c => {
                let message = match c {
                    '\u{feff}' => "a byte order mark is not allowed in HCL".to_owned(),
                    '\r' => "a carriage return must be followed by a line feed".to_owned(),
                    c if c.is_control() => format!("the control character U+{:04X} is not allowed here", c as u32),
                    c => format!("`{c}` is not allowed here"),
                };
                self.error(ErrorCode::InvalidCharacter, self.pos, self.pos + c.len_utf8(), message);
                (ERROR_TOKEN, c.len_utf8())
            }
        };
        self.push(kind_len.0, kind_len.1);
    }

    /// Whether a `~` here is a strip marker before the `}` that closes an interpolation or directive.
    fn closes_template_after_strip(&self) -> bool {
        matches!(self.modes.last(), Some(Mode::Expr { braces: 0, in_template: true }))
            && self.rest()[1..].starts_with('}')
    }

    /// Opens `${` or `%{` with its optional `~`.
    fn template_open(&mut self, kind: SyntaxKind) {
        self.push(kind, 2);
        if self.rest().starts_with('~') {
            self.push(STRIP, 1);
        }
        self.modes.push(Mode::Expr { braces: 0, in_template: true });
    }

    /// One token in a quoted template.
    fn quoted(&mut self) {
        let rest = self.rest();
        if rest.starts_with('"') {
            self.push(CLOSE_QUOTE, 1);
            self.modes.pop();
            return;
        }
        if rest.starts_with("${") {
            return self.template_open(INTERP_OPEN);
        }
        if rest.starts_with("%{") {
            return self.template_open(DIRECTIVE_OPEN);
        }
        if rest.starts_with('\n') || rest.starts_with("\r\n") {
            self.error(
                ErrorCode::UnterminatedString,
                self.pos,
                self.pos,
                "the string is not closed on its line: add `\"`",
            );
            self.modes.pop();
            return;
        }
        // Literal text up to the next quote, template sequence or line break.
        let bytes = rest.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'"' | b'\n' => break,
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => break,
                b'$' | b'%' if bytes.get(i + 1) == Some(&b'{') => break,
                b'$' | b'%' if bytes.get(i + 1) == Some(&bytes[i]) && bytes.get(i + 2) == Some(&b'{') => i += 3,
                b'\\' => i += self.escape(i),
                _ => i += 1,
            }
        }
        self.push(TEMPLATE_TEXT, i.min(bytes.len()));
    }

    /// Checks the escape sequence at `self.pos + at` (a backslash) and returns its length.
    fn escape(&mut self, at: usize) -> usize {
        let start = self.pos + at;
        let text = self.text;
        let rest = &text[start..];
        let bytes = rest.as_bytes();
        let hex = |n: usize| bytes.get(2..n + 2).is_some_and(|digits| digits.iter().all(u8::is_ascii_hexdigit));
        let len = match bytes.get(1) {
            Some(b'n' | b'r' | b't' | b'"' | b'\\') => return 2,
            Some(b'u') if hex(4) => 6,
            Some(b'U') if hex(8) => 10,
            Some(b'u' | b'U') => {
                let expected = if bytes[1] == b'u' { 4 } else { 8 };
                self.error(
                    ErrorCode::InvalidEscape,
                    start,
                    start + 2,
                    format!("`\\{}` must be followed by {expected} hexadecimal digits", bytes[1] as char),
                );
                return 2;
            }
            Some(b'\n' | b'\r') | None => {
                self.error(
                    ErrorCode::InvalidEscape,
                    start,
                    start + 1,
                    "a backslash at the end of a line escapes nothing",
                );
                return 1;
            }
            Some(_) => {
                let c = rest[1..].chars().next().unwrap_or('\\');
                let message = format!(
                    "`\\{c}` is not an escape sequence: HCL has `\\n`, `\\r`, `\\t`, `\\\"`, `\\\\`, `\\uNNNN` and `\\UNNNNNNNN`"
                );
                self.error(ErrorCode::InvalidEscape, start, start + 1 + c.len_utf8(), message);
                return 1 + c.len_utf8();
            }
        };
        let digits = &rest[2..len];
        if u32::from_str_radix(digits, 16).ok().and_then(char::from_u32).is_none() {
            self.error(ErrorCode::InvalidEscape, start, start + len, format!("U+{digits} is not a Unicode character"));
        }
        len
    }

    /// One token in a heredoc.
    fn heredoc(&mut self, marker: &str, line_start: bool) {
        let rest = self.rest();
        if line_start && let Some(newline) = rest.find('\n') {
            // A line holding only the marker (spaces around it allowed) closes the heredoc; the
            // line break after it is a token of its own, so that it can end an attribute.
            let content = rest[..newline].strip_suffix('\r').unwrap_or(&rest[..newline]);
            if content.trim() == marker {
                self.push(HEREDOC_CLOSE, content.len());
                self.modes.pop();
                return;
            }
        }
        if rest.starts_with("${") {
            self.set_line_start(false);
            return self.template_open(INTERP_OPEN);
        }
        if rest.starts_with("%{") {
            self.set_line_start(false);
            return self.template_open(DIRECTIVE_OPEN);
        }
        // Literal text to the end of the line (its line break included) or the next template sequence.
        let bytes = rest.as_bytes();
        let mut i = 0;
        let mut ends_line = false;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => {
                    i += 1;
                    ends_line = true;
                    break;
                }
                b'$' | b'%' if bytes.get(i + 1) == Some(&b'{') => break,
                b'$' | b'%' if bytes.get(i + 1) == Some(&bytes[i]) && bytes.get(i + 2) == Some(&b'{') => i += 3,
                _ => i += 1,
            }
        }
        self.push(TEMPLATE_TEXT, i.min(bytes.len()));
        self.set_line_start(ends_line);
    }

    fn set_line_start(&mut self, value: bool) {
        if let Some(Mode::Heredoc { line_start, .. }) = self.modes.last_mut() {
            *line_start = value;
        }
    }
}

/// The length of a line's text, without its line break.
fn line_len(rest: &str) -> usize {
    let end = rest.find('\n').unwrap_or(rest.len());
    if end > 0 && rest.as_bytes()[end - 1] == b'\r' { end - 1 } else { end }
}

/// The length of the number at the start of `bytes`: `digits ("." digits)? ([eE] [+-]? digits)?`.
fn number_len(bytes: &[u8]) -> usize {
    let digits = |from: usize| bytes[from.min(bytes.len())..].iter().take_while(|b| b.is_ascii_digit()).count();
    let mut len = digits(0);
    if bytes.get(len) == Some(&b'.') && digits(len + 1) > 0 {
        len += 1 + digits(len + 1);
    }
    if matches!(bytes.get(len), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(bytes.get(len + 1), Some(b'+' | b'-')));
        let exponent = digits(len + 1 + sign);
        if exponent > 0 {
            len += 1 + sign + exponent;
        }
    }
    len
}

/// `<<ID` or `<<-ID` and the line break after it: its length and the marker.
fn heredoc_open(rest: &str) -> Option<(usize, String)> {
    let after = rest.strip_prefix("<<")?;
    let dash = usize::from(after.starts_with('-'));
    let name = &after[dash..];
    let len = name.char_indices().find(|&(_, c)| !is_ident_continue(c)).map_or(name.len(), |(i, _)| i);
    let marker = &name[..len];
    if !is_identifier(marker) {
        return None;
    }
    let tail = &name[len..];
    let newline = if tail.starts_with('\n') {
        1
    } else if tail.starts_with("\r\n") {
        2
    } else {
        return None;
    };
    Some((2 + dash + len + newline, marker.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(SyntaxKind, &str)> {
        let lexed = lex(text);
        let mut at = 0;
        lexed
            .tokens
            .iter()
            .map(|t| {
                let s = &text[at..at + t.len as usize];
                at += t.len as usize;
                (t.kind, s)
            })
            .collect()
    }

    #[test]
    fn interpolation_braces_are_told_from_objects() {
        let k = kinds(r#""a${ {b = 1}.b }c""#);
        assert_eq!(k.iter().filter(|(k, _)| *k == TEMPLATE_CLOSE).count(), 1);
        assert_eq!(k.iter().filter(|(k, _)| *k == R_BRACE).count(), 1);
        assert_eq!(k.last(), Some(&(CLOSE_QUOTE, "\"")));
    }

    #[test]
    fn heredocs_end_at_their_marker_line() {
        let text = "x = <<-EOT\n  a ${b}\n  EOT\ny = 1\n";
        let k = kinds(text);
        assert!(k.contains(&(HEREDOC_OPEN, "<<-EOT\n")));
        assert!(k.contains(&(HEREDOC_CLOSE, "  EOT")));
        assert!(lex(text).errors.is_empty());
        assert_eq!(kinds("x = <<EOT\nEOTX\n").last().map(|t| t.0), Some(TEMPLATE_TEXT));
        assert!(kinds("x = <<EOT\n\tEOT \t\r\n").contains(&(HEREDOC_CLOSE, "\tEOT \t")));
        // The marker must end its line: at the very end of the file it closes nothing.
        assert_eq!(lex("x = <<EOT\nEOT").errors[0].code, ErrorCode::UnterminatedHeredoc);
    }

    #[test]
    fn escapes_are_checked_and_doubled_template_signs_are_text() {
        assert!(lex(r#""\n \u00e9 \U0001F600 $${x} %%{y}""#).errors.is_empty());
        assert_eq!(lex(r#""\q""#).errors[0].code, ErrorCode::InvalidEscape);
        // A short escape at the very end of the text (found by fuzzing).
        assert_eq!(lex("\"\\U0001F60").errors[0].code, ErrorCode::InvalidEscape);
        assert_eq!(lex("\"abc\nx").errors[0].code, ErrorCode::UnterminatedString);
    }

    #[test]
    fn numbers_identifiers_and_strip_markers() {
        assert_eq!(kinds("1.5e-3")[0], (NUMBER, "1.5e-3"));
        assert_eq!(kinds("1.x")[0], (NUMBER, "1"));
        assert_eq!(kinds("é-x_1")[0], (IDENT, "é-x_1"));
        let k = kinds("\"${~ a ~}\"");
        assert_eq!(k.iter().filter(|(k, _)| *k == STRIP).count(), 2);
    }
}
