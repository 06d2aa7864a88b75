//! The ARMLang lexer: text to tokens, in one pass with a stack of modes (expressions, strings, and
//! expressions again inside `${ }`).
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Expressions and structure; `braces` counts the `{` opened in this mode, so that the `}`
    /// closing an interpolation (when `in_interpolation`) is told from an object's.
    Expr { braces: u32, in_interpolation: bool },
    /// A single-quoted string that starts at this offset.
    Str(usize),
}

/// Lexes `text`. Never fails.
pub fn lex(text: &str) -> Lexed {
    let mut lexer =
        Lexer { text, pos: 0, out: Lexed::default(), modes: vec![Mode::Expr { braces: 0, in_interpolation: false }] };
    lexer.run();
    lexer.out
}

/// Whether `text` is one identifier (and so can be an unquoted object key).
pub fn is_identifier(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The characters a single-quoted string must escape, and their escapes.
pub const ESCAPES: &[(char, &str)] =
    &[('\\', "\\\\"), ('\'', "\\'"), ('$', "\\$"), ('\n', "\\n"), ('\r', "\\r"), ('\t', "\\t")];

struct Lexer<'t> {
    text: &'t str,
    pos: usize,
    out: Lexed,
    modes: Vec<Mode>,
}

impl<'t> Lexer<'t> {
    fn rest(&self) -> &'t str {
        &self.text[self.pos..]
    }

    fn push(&mut self, kind: SyntaxKind, len: usize) {
        let len = len.max(1).min(self.text.len() - self.pos);
        self.out.tokens.push(Token { kind, len: len as u32 });
        self.pos += len;
    }

    fn error(&mut self, code: ErrorCode, start: usize, end: usize, message: impl Into<String>) {
        let range = TextRange::new(TextSize::from(start as u32), TextSize::from(end as u32));
        self.out.errors.push(SyntaxError::new(code, range, message));
    }

    fn run(&mut self) {
        while self.pos < self.text.len() {
            match self.modes.last().copied() {
                Some(Mode::Str(start)) => self.string_part(start),
                Some(Mode::Expr { .. }) | None => self.expr_token(),
            }
        }
        if let Some(start) = self.modes.iter().rev().find_map(|m| match m {
            Mode::Str(start) => Some(*start),
            Mode::Expr { .. } => None,
        }) {
            let end = self.text.len();
            self.error(ErrorCode::UnterminatedString, start, end, "this string is never closed with `'`");
        }
    }

    fn expr_token(&mut self) {
        let rest = self.rest();
        let bytes = rest.as_bytes();
        let first = bytes[0];
        let second = bytes.get(1).copied();
        match first {
            b' ' | b'\t' => {
                let len = bytes.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
                self.push(WHITESPACE, len);
            }
            b'\n' => self.push(NEWLINE, 1),
            b'\r' if second == Some(b'\n') => self.push(NEWLINE, 2),
            b'/' if second == Some(b'/') => {
                let len = rest.find(['\n', '\r']).unwrap_or(rest.len());
                self.push(LINE_COMMENT, len);
            }
            b'/' if second == Some(b'*') => match rest[2..].find("*/") {
                Some(end) => self.push(BLOCK_COMMENT, end + 4),
                None => {
                    let start = self.pos;
                    self.error(
                        ErrorCode::UnterminatedComment,
                        start,
                        start + 2,
                        "this comment is never closed with `*/`",
                    );
                    self.push(BLOCK_COMMENT, rest.len());
                }
            },
            b'\'' if rest.starts_with("'''") => self.multiline_string(),
            b'\'' => {
                self.modes.push(Mode::Str(self.pos));
                self.push(STRING_START, 1);
            }
            b'0'..=b'9' => self.number(),
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let len = bytes.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
                self.push(IDENT, len);
            }
            b'{' => {
                if let Some(Mode::Expr { braces, .. }) = self.modes.last_mut() {
                    *braces += 1;
                }
                self.push(L_BRACE, 1);
            }
            b'}' => match self.modes.last_mut() {
                Some(Mode::Expr { braces: 0, in_interpolation: true }) => {
                    self.modes.pop();
                    self.push(INTERP_END, 1);
                }
                Some(Mode::Expr { braces, .. }) => {
                    *braces = braces.saturating_sub(1);
                    self.push(R_BRACE, 1);
                }
                _ => self.push(R_BRACE, 1),
            },
            b'[' => self.push(L_BRACK, 1),
            b']' => self.push(R_BRACK, 1),
            b'(' => self.push(L_PAREN, 1),
            b')' => self.push(R_PAREN, 1),
            b',' => self.push(COMMA, 1),
            b'.' => self.push(DOT, 1),
            b':' => self.push(COLON, 1),
            b'?' => self.push(QUESTION, 1),
            b'+' => self.push(PLUS, 1),
            b'-' => self.push(MINUS, 1),
            b'*' => self.push(STAR, 1),
            b'=' if second == Some(b'=') => self.push(EQ2, 2),
            b'=' if second == Some(b'~') => self.push(EQ_TILDE, 2),
            b'!' if second == Some(b'=') => self.push(NEQ, 2),
            b'!' if second == Some(b'~') => self.push(NOT_TILDE, 2),
            b'!' => self.push(BANG, 1),
            b'&' if second == Some(b'&') => self.push(AND, 2),
            b'|' if second == Some(b'|') => self.push(OR, 2),
            _ => {
                let c = rest.chars().next().unwrap_or('\u{fffd}');
                let start = self.pos;
                let message = match c {
                    '"' => "strings are written between single quotes: `'text'`".to_owned(),
                    '=' => "properties are written `key: value`, not `key = value`".to_owned(),
                    '#' => "comments start with `//` or are written `/* ... */`".to_owned(),
                    c if c.is_control() => format!("invalid character U+{:04X}", c as u32),
                    c => format!("invalid character `{c}`"),
                };
                self.error(ErrorCode::InvalidCharacter, start, start + c.len_utf8(), message);
                self.push(ERROR_TOKEN, c.len_utf8());
            }
        }
    }

    /// A JSON number literal (its sign is an operator): `0` or digits not starting with `0`, an
    /// optional fraction and an optional exponent.
    fn number(&mut self) {
        let bytes = self.rest().as_bytes();
        let digits = |from: usize| bytes[from.min(bytes.len())..].iter().take_while(|b| b.is_ascii_digit()).count();
        let mut len = digits(0);
        let mut problem = (bytes[0] == b'0' && len > 1).then_some("a number cannot start with `0`");
        if bytes.get(len) == Some(&b'.') {
            let fraction = digits(len + 1);
            if fraction == 0 {
                problem = Some("a `.` in a number must be followed by digits");
            }
            len += 1 + fraction;
        }
        if matches!(bytes.get(len), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(bytes.get(len + 1), Some(b'+' | b'-')));
            let exponent = digits(len + 1 + sign);
            if exponent == 0 {
                problem = Some("an exponent must have digits");
            }
            len += 1 + sign + exponent;
        }
        // Letters straight after a number belong to it: `1abc` is one bad number, not two tokens.
        let tail = bytes[len..].iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
        if tail > 0 {
            problem = Some("a number cannot be followed by letters");
            len += tail;
        }
        if let Some(problem) = problem {
            let start = self.pos;
            self.error(ErrorCode::InvalidNumber, start, start + len, problem);
        }
        self.push(NUMBER, len);
    }

    /// A `'''` string, up to the next `'''`: its text is taken as written, line breaks included.
    fn multiline_string(&mut self) {
        let rest = self.rest();
        match rest[3..].find("'''") {
            Some(end) => {
                // `''''` closes with the last three quotes: the text may end with a quote.
                let mut close = 3 + end;
                while rest.as_bytes().get(close + 3) == Some(&b'\'') {
                    close += 1;
                }
                self.push(MULTILINE_STRING, close + 3);
            }
            None => {
                let start = self.pos;
                self.error(
                    ErrorCode::UnterminatedString,
                    start,
                    start + 3,
                    "this multi-line string is never closed with `'''`",
                );
                self.push(MULTILINE_STRING, rest.len());
            }
        }
    }

    /// The next piece of a single-quoted string: text, an interpolation's start, or its end.
    fn string_part(&mut self, start: usize) {
        let rest = self.rest();
        let bytes = rest.as_bytes();
        match bytes[0] {
            b'\'' => {
                self.modes.pop();
                self.push(STRING_END, 1);
                return;
            }
            b'$' if bytes.get(1) == Some(&b'{') => {
                self.push(INTERP_START, 2);
                self.modes.push(Mode::Expr { braces: 0, in_interpolation: true });
                return;
            }
            b'\n' | b'\r' => {
                // A single-quoted string ends at its line; the line break is not part of it.
                self.error(
                    ErrorCode::UnterminatedString,
                    start,
                    self.pos,
                    "this string is not closed on its line (use `'''` for a multi-line string)",
                );
                self.modes.pop();
                return;
            }
            _ => {}
        }
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\'' | b'\n' | b'\r' => break,
                b'$' if bytes.get(i + 1) == Some(&b'{') => break,
                b'\\' => i += self.escape(i),
                _ => i += 1,
            }
        }
        self.push(STRING_TEXT, i);
    }

    /// Checks the escape at `at` bytes from here; its length.
    fn escape(&mut self, at: usize) -> usize {
        let rest = &self.text[self.pos + at..];
        let start = self.pos + at;
        match rest.as_bytes().get(1) {
            Some(b'\\' | b'\'' | b'$' | b'n' | b'r' | b't') => 2,
            Some(b'u') if rest.as_bytes().get(2) == Some(&b'{') => {
                let hex_len = rest[3..].bytes().take_while(u8::is_ascii_hexdigit).count();
                let closed = rest.as_bytes().get(3 + hex_len) == Some(&b'}');
                let value = u32::from_str_radix(&rest[3..3 + hex_len.min(6)], 16).ok();
                let valid = closed && (1..=6).contains(&hex_len) && value.and_then(char::from_u32).is_some();
                let len = 3 + hex_len + usize::from(closed);
                if !valid {
                    self.error(
                        ErrorCode::InvalidEscape,
                        start,
                        start + len,
                        "a Unicode escape is `\\u{` with 1 to 6 hex digits of a Unicode scalar value and `}`",
                    );
                }
                len
            }
            Some(_) => {
                let c = rest[1..].chars().next().unwrap_or('\\');
                if c == '\n' || c == '\r' {
                    self.error(ErrorCode::InvalidEscape, start, start + 1, "a `\\` cannot end a line");
                    return 1;
                }
                self.error(
                    ErrorCode::InvalidEscape,
                    start,
                    start + 1 + c.len_utf8(),
                    format!(
                        "`\\{c}` is not an escape: write `\\\\`, `\\'`, `\\$`, `\\n`, `\\r`, `\\t` or `\\u{{...}}`"
                    ),
                );
                1 + c.len_utf8()
            }
            None => {
                self.error(ErrorCode::InvalidEscape, start, start + 1, "a `\\` cannot end the text");
                1
            }
        }
    }
}

/// The value of a single-quoted string's text with its escapes resolved (invalid ones kept as written).
pub fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some((_, 'n')) => out.push('\n'),
            Some((_, 'r')) => out.push('\r'),
            Some((_, 't')) => out.push('\t'),
            Some((_, 'u')) => {
                let rest = &text[i + 2..];
                let decoded = rest
                    .strip_prefix('{')
                    .and_then(|r| r.find('}').map(|end| &r[..end]))
                    .filter(|hex| (1..=6).contains(&hex.len()))
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok().and_then(char::from_u32).map(|c| (c, hex.len())));
                match decoded {
                    Some((c, hex_len)) => {
                        out.push(c);
                        for _ in 0..hex_len + 2 {
                            chars.next();
                        }
                    }
                    None => out.push_str("\\u"),
                }
            }
            Some((_, c)) => out.push(c),
            None => out.push('\\'),
        }
    }
    out
}

/// `value` written as the text of a single-quoted string.
pub fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match ESCAPES.iter().find(|(e, _)| *e == c) {
            Some((_, escaped)) => out.push_str(escaped),
            None if c.is_control() => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<SyntaxKind> {
        lex(text).tokens.iter().map(|t| t.kind).collect()
    }

    #[test]
    fn interpolation_braces_are_told_from_objects() {
        assert_eq!(
            kinds("'a${ {x: 1}.x }b'"),
            [
                STRING_START,
                STRING_TEXT,
                INTERP_START,
                WHITESPACE,
                L_BRACE,
                IDENT,
                COLON,
                WHITESPACE,
                NUMBER,
                R_BRACE,
                DOT,
                IDENT,
                WHITESPACE,
                INTERP_END,
                STRING_TEXT,
                STRING_END
            ]
        );
    }

    #[test]
    fn escapes_round_trip() {
        let value = "it's \\ ${x} \n\t\r\u{1}";
        assert_eq!(unescape(&escape(value)), value);
        assert_eq!(unescape("\\u{e9}\\u{1F600}"), "é😀");
    }

    #[test]
    fn bad_input_is_reported_and_kept() {
        for text in ["'abc", "'\\q'", "01", "1.", "1e", "\"x\"", "/* x", "'''x", "'\\u{110000}'", "'\\"] {
            let lexed = lex(text);
            assert!(!lexed.errors.is_empty(), "{text}");
            assert_eq!(lexed.tokens.iter().map(|t| t.len as usize).sum::<usize>(), text.len(), "{text}");
        }
    }
}
