//! Decoding string contents: JSON escapes in `"` strings, the few escapes of `'''` strings.

use crate::nacl::SyntaxKind::{self, ESCAPE};

/// Builds the value of a string from its text and escape pieces, in order.
#[derive(Debug, Default)]
pub struct StringDecoder {
    out: String,
    /// A `\uD800`-`\uDBFF` escape waiting for its low surrogate.
    pending_high: Option<u16>,
}

impl StringDecoder {
    /// Adds a piece of a `"` string: literal text, or a JSON escape (`\n`, `\u00e9`, `\${` ...).
    pub fn push_string_piece(&mut self, kind: SyntaxKind, text: &str) {
        if kind != ESCAPE {
            self.push_str(text);
            return;
        }
        let mut chars = text.chars();
        chars.next(); // the backslash
        let decoded = match chars.next() {
            Some('"') => '"',
            Some('\\') => '\\',
            Some('/') => '/',
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('$') => return self.push_str("${"),
            Some('u') => match u16::from_str_radix(chars.as_str(), 16) {
                Ok(unit) if text.len() == 6 => return self.push_utf16(unit),
                _ => char::REPLACEMENT_CHARACTER,
            },
            _ => char::REPLACEMENT_CHARACTER,
        };
        self.push_char(decoded);
    }

    /// Adds a piece of a `'''` string: text is verbatim, line breaks as written (`\r\n` stays
    /// `\r\n`, as Salto reads it); escapes are `\\` (before `${` or `'''`), `\${` and `\'''`.
    pub fn push_multiline_piece(&mut self, kind: SyntaxKind, text: &str) {
        if kind == ESCAPE {
            self.push_str(&text[1..]);
        } else {
            self.push_str(text);
        }
    }

    /// Adds a piece of a `'''` string when `multiline`, else of a `"` string.
    pub fn push_piece(&mut self, kind: SyntaxKind, text: &str, multiline: bool) {
        if multiline { self.push_multiline_piece(kind, text) } else { self.push_string_piece(kind, text) }
    }

    /// Returns the decoded value.
    pub fn finish(mut self) -> String {
        self.flush_high();
        self.out
    }

    /// Returns the decoded value of the end of a `'''` string: without the line break that ends
    /// its last content line. That is one `\n` (a `\r` before it stays, as Salto reads it: a
    /// value ending in `\r` round-trips through Salto's dumper) or a lone `\r`.
    pub fn finish_multiline(self) -> String {
        let mut out = self.finish();
        out.truncate(without_final_break(&out).len());
        out
    }

    fn push_utf16(&mut self, unit: u16) {
        match unit {
            0xD800..=0xDBFF => {
                self.flush_high();
                self.pending_high = Some(unit);
            }
            0xDC00..=0xDFFF => match self.pending_high.take() {
                Some(high) => {
                    let code = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                    self.out.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                }
                None => self.out.push(char::REPLACEMENT_CHARACTER),
            },
            _ => self.push_char(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER)),
        }
    }

    fn flush_high(&mut self) {
        if self.pending_high.take().is_some() {
            self.out.push(char::REPLACEMENT_CHARACTER);
        }
    }

    fn push_char(&mut self, c: char) {
        self.flush_high();
        self.out.push(c);
    }

    fn push_str(&mut self, s: &str) {
        self.flush_high();
        self.out.push_str(s);
    }
}

/// The text of a `'''` string's content lines without the line break that ends the last: one
/// `\n` (a `\r` before it stays, as Salto reads it) or a lone `\r`.
pub fn without_final_break(text: &str) -> &str {
    text.strip_suffix(['\n', '\r']).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nacl::SyntaxKind::STRING_TEXT;

    #[test]
    fn surrogate_pairs_join() {
        let mut d = StringDecoder::default();
        d.push_string_piece(ESCAPE, "\\ud83d");
        d.push_string_piece(ESCAPE, "\\ude00");
        d.push_string_piece(STRING_TEXT, "!");
        assert_eq!(d.finish(), "😀!");
    }

    #[test]
    fn lone_surrogate_is_replaced() {
        let mut d = StringDecoder::default();
        d.push_string_piece(ESCAPE, "\\ud83d");
        assert_eq!(d.finish(), "\u{FFFD}");
    }
}
