//! The NaCl lexer: text to a lossless list of tokens.
//!
//! Every byte of the input belongs to exactly one token, whatever the input. Strings are lexed
//! into their parts (text, escapes, `${ }` templates) so the parser never looks at raw text.
//! Unlike Salto's lexer, a `//` comment ends at the line break whatever it contains, and
//! `#`/`/* */` comments and merge-conflict markers become trivia tokens with an error, so they
//! never swallow code.

use crate::SyntaxError;
use crate::nacl::{
    ErrorCode,
    SyntaxKind::{self, *},
};
use rowan::{TextRange, TextSize};

/// One token of this language.
pub type Token = crate::base::Token<SyntaxKind>;
/// The tokens of a text of this language and the lexical errors in it.
pub type Lexed = crate::base::Lexed<SyntaxKind>;

/// Lexes `text` into tokens. Never fails: bad input becomes error tokens and errors.
pub fn lex(text: &str) -> Lexed {
    let mut lexer = Lexer { src: text.as_bytes(), pos: 0, out: Lexed::default() };
    lexer.out.tokens.reserve(text.len() / 4);
    lexer.run();
    lexer.out
}

/// Whether `text` is a NaCl word: `[a-zA-Z_][a-zA-Z0-9_.@]*`. Such labels and keys need no quotes.
pub fn is_word(text: &str) -> bool {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(&b) if is_ident_start(b) => bytes[1..].iter().all(|&b| is_ident_continue(b)),
        _ => false,
    }
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_continue(b: u8) -> bool {
    CLASSES[b as usize] & IDENT_CONTINUE != 0
}

/// Byte class: continues a word (`[a-zA-Z0-9_.@]`).
const IDENT_CONTINUE: u8 = 1;
/// Byte class: ends the literal text of a `"` string (a quote, a backslash, a line break, a `$`)
/// or is a control character that must be reported inside one.
const STRING_STOP: u8 = 2;
/// Byte class: ends the literal text of a multiline string's line (a backslash, a line break, a
/// `$`).
const MULTILINE_STOP: u8 = 4;

/// The classes of every byte: the hot loops of the lexer (words and string text, most of any
/// NaCl file) test one table entry per byte.
static CLASSES: [u8; 256] = {
    let mut classes = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'@') {
            classes[b] |= IDENT_CONTINUE;
        }
        if matches!(byte, b'"' | b'\\' | b'\n' | b'\r' | b'$') || byte < 0x20 {
            classes[b] |= STRING_STOP;
        }
        if matches!(byte, b'\\' | b'\n' | b'\r' | b'$') {
            classes[b] |= MULTILINE_STOP;
        }
        b += 1;
    }
    classes
};

/// Whether `text`, in place of literal text inside a `"` string (or a line of a multiline one,
/// when `multiline`), would be lexed as one piece of literal text with no error: it is not empty
/// and holds no byte that ends such text or starts something else (nor, in a multiline string,
/// a `'`, which may close it).
pub(crate) fn is_plain_string_text(text: &[u8], multiline: bool) -> bool {
    let stops = if multiline { MULTILINE_STOP } else { STRING_STOP };
    !text.is_empty() && text.iter().all(|&b| CLASSES[b as usize] & stops == 0 && !(multiline && b == b'\''))
}

/// Whether every byte of `text` continues a word (`[a-zA-Z0-9_.@]`), so that after a word's
/// first byte it would be lexed as the rest of that word.
pub(crate) fn continues_a_word(text: &[u8]) -> bool {
    text.iter().all(|&b| is_ident_continue(b))
}

/// Where the first byte of class `stops` ([`STRING_STOP`] or [`MULTILINE_STOP`]) at or after
/// `from` is, or the length of `src` when there is none. String text runs long between stops, so
/// this tests eight bytes at a time: a byte equal to `b` is a zero byte of `x ^ b` in every
/// byte, and the lowest flagged byte of the usual zero-byte test is exact.
fn next_stop(src: &[u8], from: usize, stops: u8) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = ONES * 0x80;
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGHS;
    let equal = |x: u64, b: u8| below(x ^ (ONES * u64::from(b)), 1);
    let Some(rest) = src.get(from..) else { return src.len() };
    let (words, tail) = rest.as_chunks::<8>();
    for (i, word) in words.iter().enumerate() {
        let x = u64::from_le_bytes(*word);
        let found = if stops == STRING_STOP {
            below(x, 0x20) | equal(x, b'"') | equal(x, b'\\') | equal(x, b'$')
        } else {
            equal(x, b'\n') | equal(x, b'\r') | equal(x, b'\\') | equal(x, b'$')
        };
        if found != 0 {
            return from + i * 8 + (found.trailing_zeros() / 8) as usize;
        }
    }
    let tail_start = src.len() - tail.len();
    tail.iter().position(|&b| CLASSES[b as usize] & stops != 0).map_or(src.len(), |i| tail_start + i)
}

fn is_line_break(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// Length of the UTF-8 character starting with byte `b`.
fn utf8_len(b: u8) -> usize {
    match b {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

const CONFLICT_MARKERS: [&[u8]; 4] = [b"<<<<<<<", b"=======", b">>>>>>>", b"|||||||"];

struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    out: Lexed,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.src.get(self.pos + ahead).copied()
    }

    fn rest(&self) -> &[u8] {
        &self.src[self.pos..]
    }

    fn push(&mut self, kind: SyntaxKind, len: usize) {
        debug_assert!(len > 0);
        self.out.tokens.push(Token { kind, len: len as u32 });
        self.pos += len;
    }

    fn error(&mut self, code: ErrorCode, start: usize, end: usize, message: impl Into<String>) {
        let range = TextRange::new(TextSize::from(start as u32), TextSize::from(end as u32));
        self.out.errors.push(SyntaxError::new(code, range, message));
    }

    /// Length of the run of bytes from the current position that satisfy `pred`.
    fn run_len(&self, pred: impl Fn(u8) -> bool) -> usize {
        self.rest().iter().take_while(|&&b| pred(b)).count()
    }

    /// Length of the run of bytes of class `class` from `from`.
    fn class_run(&self, from: usize, class: u8) -> usize {
        self.src[from..].iter().take_while(|&&b| CLASSES[b as usize] & class != 0).count()
    }

    /// Length up to (not including) the next line break or the end of the text.
    fn line_len(&self) -> usize {
        self.run_len(|b| !is_line_break(b))
    }

    fn at_line_start(&self) -> bool {
        self.pos == 0 || is_line_break(self.src[self.pos - 1])
    }

    fn run(&mut self) {
        // A byte order mark (editors on Windows add one) is white space where a file starts.
        if self.rest().starts_with("\u{feff}".as_bytes()) {
            self.push(WHITESPACE, 3);
        }
        while let Some(b) = self.peek(0) {
            match b {
                b' ' | b'\t' => {
                    let len = self.run_len(|b| b == b' ' || b == b'\t');
                    self.push(WHITESPACE, len);
                }
                b'\n' | b'\r' => self.newline(),
                b'/' if self.peek(1) == Some(b'/') => {
                    let len = self.line_len();
                    self.push(COMMENT, len);
                }
                b'/' if self.peek(1) == Some(b'*') => self.block_comment(),
                b'#' => {
                    let start = self.pos;
                    let len = self.line_len();
                    self.error(
                        ErrorCode::UnsupportedComment,
                        start,
                        start + len,
                        "`#` comments are not NaCl: use `//`",
                    );
                    self.push(HASH_COMMENT, len);
                }
                b'<' | b'=' | b'>' | b'|'
                    if self.at_line_start() && CONFLICT_MARKERS.iter().any(|m| self.rest().starts_with(m)) =>
                {
                    self.conflict()
                }
                b'"' => self.string(),
                b'\'' if self.rest().starts_with(b"'''") => self.multiline_string(),
                b'-' if self.peek(1).is_some_and(|b| b.is_ascii_digit()) => self.number(),
                b'0'..=b'9' => self.number(),
                _ if is_ident_start(b) => {
                    let len = 1 + self.class_run(self.pos + 1, IDENT_CONTINUE);
                    self.push(IDENT, len);
                }
                b'{' => self.push(L_BRACE, 1),
                b'}' => self.push(R_BRACE, 1),
                b'[' => self.push(L_BRACK, 1),
                b']' => self.push(R_BRACK, 1),
                b'(' => self.push(L_PAREN, 1),
                b')' => self.push(R_PAREN, 1),
                b',' => self.push(COMMA, 1),
                b'=' => self.push(EQ, 1),
                _ if self.rest().starts_with("\u{2028}".as_bytes())
                    || self.rest().starts_with("\u{2029}".as_bytes()) =>
                {
                    self.push(NEWLINE, 3)
                }
                _ => self.error_token(),
            }
        }
    }

    /// Line breaks and the indentation after the last one, as one token.
    fn newline(&mut self) {
        let len = self.run_len(|b| matches!(b, b'\n' | b'\r' | b' ' | b'\t'));
        // Leave trailing blanks of the last line break's line in the token: they are its indentation.
        self.push(NEWLINE, len);
    }

    fn block_comment(&mut self) {
        let start = self.pos;
        let len = match self.rest()[2..].windows(2).position(|w| w == b"*/") {
            Some(i) => i + 4,
            None => self.rest().len(),
        };
        self.error(
            ErrorCode::UnsupportedComment,
            start,
            start + len,
            "`/* */` comments are not NaCl: use `//` on each line",
        );
        self.push(BLOCK_COMMENT, len);
    }

    /// A merge conflict: from `<<<<<<<` through the `>>>>>>>` line, or a stray marker line.
    fn conflict(&mut self) {
        let start = self.pos;
        let first_line = self.line_len();
        let mut len = first_line;
        let rest = self.rest();
        if rest.starts_with(b"<<<<<<<") {
            let mut at = first_line;
            while at < rest.len() {
                at += if rest[at..].starts_with(b"\r\n") { 2 } else { 1 };
                let line_end = at + rest[at..].iter().take_while(|&&b| !is_line_break(b)).count();
                if rest[at..].starts_with(b">>>>>>>") {
                    len = line_end;
                    break;
                }
                at = line_end;
            }
        }
        let message = if len > first_line {
            "unresolved git merge conflict: keep one side and delete the `<<<<<<<`, `=======` and `>>>>>>>` lines"
        } else {
            "git merge-conflict marker without its conflict: resolve the conflict and delete this line"
        };
        self.error(ErrorCode::MergeConflict, start, start + first_line, message);
        self.push(CONFLICT_MARKER, len);
    }

    fn number(&mut self) {
        let start = self.pos;
        let mut len = usize::from(self.peek(0) == Some(b'-'));
        let digits =
            |lexer: &Self, from: usize| lexer.src[lexer.pos + from..].iter().take_while(|b| b.is_ascii_digit()).count();
        let int_len = digits(self, len);
        len += int_len;
        if self.peek(len) == Some(b'.') {
            len += 1 + digits(self, len + 1);
        }
        if matches!(self.peek(len), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(self.peek(len + 1), Some(b'+' | b'-')));
            let exp = digits(self, len + 1 + sign);
            if exp > 0 {
                len += 1 + sign + exp;
            }
        }
        let int_start = start + usize::from(self.src[start] == b'-');
        if int_len > 1 && self.src[int_start] == b'0' {
            self.error(
                ErrorCode::InvalidNumber,
                start,
                start + len,
                "numbers cannot start with `0` unless they are `0` or `0.…`",
            );
        }
        self.push(NUMBER, len);
    }

    /// A run of characters that cannot start any token.
    fn error_token(&mut self) {
        let start = self.pos;
        let mut len = 0;
        while let Some(&b) = self.src.get(self.pos + len) {
            let starts_token = b.is_ascii_whitespace()
                || is_ident_start(b)
                || b.is_ascii_digit()
                || b"{}[](),=\"/#".contains(&b)
                || self.src[self.pos + len..].starts_with("\u{2028}".as_bytes())
                || self.src[self.pos + len..].starts_with("\u{2029}".as_bytes());
            if starts_token && len > 0 {
                break;
            }
            len += utf8_len(b).min(self.src.len() - self.pos - len);
        }
        let text = String::from_utf8_lossy(&self.src[start..start + len]);
        let message = match text.as_ref() {
            ":" => "unexpected `:`: NaCl assigns with `=`".to_owned(),
            "'" | "''" => {
                "unexpected `'`: strings are written in double quotes, multiline strings with `'''`".to_owned()
            }
            _ => format!("unexpected `{text}`"),
        };
        self.error(ErrorCode::UnexpectedCharacter, start, start + len, message);
        self.push(ERROR_TOKEN, len);
    }

    /// A `"` string: its parts up to the closing quote or the end of the line.
    fn string(&mut self) {
        let start = self.pos;
        self.push(QUOTE, 1);
        loop {
            let Some(b) = self.peek(0) else {
                self.error(ErrorCode::UnterminatedString, start, self.pos, "unterminated string: add the closing `\"`");
                return;
            };
            match b {
                b'"' => {
                    self.push(QUOTE, 1);
                    return;
                }
                b'\n' | b'\r' => {
                    self.error(
                        ErrorCode::UnterminatedString,
                        start,
                        self.pos,
                        "unterminated string: add the closing `\"` before the end of the line",
                    );
                    return;
                }
                b'\\' => self.escape(),
                b'$' if self.template() => {}
                _ => self.string_text(STRING_STOP),
            }
        }
    }

    /// Literal text up to a byte of class `stops` ([`STRING_STOP`] or [`MULTILINE_STOP`]); the
    /// first byte is text whatever it is (a `$` that does not start a template). Control
    /// characters inside a `"` string are text with an error.
    fn string_text(&mut self, stops: u8) {
        let start = self.pos;
        let mut len = 0;
        while let Some(&b) = self.src.get(start + len) {
            if CLASSES[b as usize] & stops == 0 {
                // Plain text, up to the next stop.
                len = next_stop(self.src, start + len + 1, stops) - start;
                continue;
            }
            if stops == STRING_STOP && b < 0x20 && !is_line_break(b) {
                let shown = if b == b'\t' { "a tab".to_owned() } else { format!("control character U+{b:04X}") };
                self.error(
                    ErrorCode::ControlCharacter,
                    start + len,
                    start + len + 1,
                    format!("{shown} inside a string: write it as an escape such as `\\t` or `\\u{b:04x}`"),
                );
            } else if len > 0 {
                break;
            }
            len += 1;
        }
        self.push(STRING_TEXT, len);
    }

    /// An escape sequence in a `"` string (the JSON escapes and `\${`).
    fn escape(&mut self) {
        let start = self.pos;
        match self.peek(1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.push(ESCAPE, 2),
            Some(b'u') => {
                let hex = self.src[start + 2..].iter().take(4).take_while(|b| b.is_ascii_hexdigit()).count();
                if hex < 4 {
                    self.error(
                        ErrorCode::InvalidEscape,
                        start,
                        start + 2 + hex,
                        "invalid unicode escape: `\\u` needs exactly four hex digits",
                    );
                }
                self.push(ESCAPE, 2 + hex);
            }
            Some(b'$') if self.peek(2) == Some(b'{') => self.push(ESCAPE, 3),
            Some(b) if !is_line_break(b) => {
                let len = 1 + utf8_len(b).min(self.src.len() - start - 1);
                let shown = String::from_utf8_lossy(&self.src[start..start + len]).into_owned();
                self.error(
                    ErrorCode::InvalidEscape,
                    start,
                    start + len,
                    format!("invalid escape `{shown}`: valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX and \\${{"),
                );
                self.push(ESCAPE, len);
            }
            _ => {
                self.error(ErrorCode::InvalidEscape, start, start + 1, "a backslash cannot end a line inside a string");
                self.push(STRING_TEXT, 1);
            }
        }
    }

    /// A `${ element.id }` template reference, if one starts here. Returns whether one did.
    fn template(&mut self) -> bool {
        let rest = self.rest();
        if !rest.starts_with(b"${") {
            return false;
        }
        let blank = |b: &u8| *b == b' ' || *b == b'\t';
        let ws1 = rest[2..].iter().take_while(|b| blank(b)).count();
        let id_at = 2 + ws1;
        if !rest.get(id_at).is_some_and(|&b| is_ident_start(b)) {
            return false;
        }
        let id = self.class_run(self.pos + id_at, IDENT_CONTINUE);
        let ws2 = rest[id_at + id..].iter().take_while(|b| blank(b)).count();
        if rest.get(id_at + id + ws2) != Some(&b'}') {
            return false;
        }
        self.push(TEMPLATE_START, 2);
        if ws1 > 0 {
            self.push(WHITESPACE, ws1);
        }
        self.push(IDENT, id);
        if ws2 > 0 {
            self.push(WHITESPACE, ws2);
        }
        self.push(TEMPLATE_END, 1);
        true
    }

    /// A `'''` multiline string, from the opening marker through the closing `'''` line start.
    fn multiline_string(&mut self) {
        let start = self.pos;
        let blanks = self.src[start + 3..].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
        let after = start + 3 + blanks;
        let line_break = match (self.src.get(after), self.src.get(after + 1)) {
            (Some(b'\r'), Some(b'\n')) => 2,
            (Some(b'\r' | b'\n'), _) => 1,
            _ => 0,
        };
        if line_break == 0 {
            // `'''abc'''` on one line, or `'''` at the very end: not a multiline string.
            let len = self.line_len();
            self.error(
                ErrorCode::MultilineOpen,
                start,
                start + len,
                "a multiline string starts with `'''` at the end of a line; its text begins on the next line",
            );
            self.push(ERROR_TOKEN, len);
            return;
        }
        self.push(MULTILINE_OPEN, 3 + blanks + line_break);
        loop {
            if self.pos >= self.src.len() {
                self.error(
                    ErrorCode::UnterminatedMultiline,
                    start,
                    start + 3,
                    "unterminated multiline string: add a line starting with `'''`",
                );
                return;
            }
            // At the start of a content line: is it the closing line?
            let indent = self.run_len(|b| b == b' ' || b == b'\t');
            if self.rest()[indent..].starts_with(b"'''") {
                self.push(MULTILINE_CLOSE, indent + 3);
                return;
            }
            self.multiline_line();
        }
    }

    /// One content line of a multiline string, including its line break.
    fn multiline_line(&mut self) {
        loop {
            let Some(b) = self.peek(0) else { return };
            match b {
                b'\\' => {
                    let run = self.run_len(|b| b == b'\\');
                    let after = &self.rest()[run..];
                    let marker = after.starts_with(b"${");
                    if marker || after.starts_with(b"'''") {
                        for _ in 0..run / 2 {
                            self.push(ESCAPE, 2);
                        }
                        if run % 2 == 1 {
                            let len = if marker { 3 } else { 4 };
                            self.push(ESCAPE, len);
                        }
                    } else {
                        self.push(STRING_TEXT, run);
                    }
                }
                b'$' if self.template() => {}
                b'\n' | b'\r' => {
                    let len = if self.rest().starts_with(b"\r\n") { 2 } else { 1 };
                    self.push(STRING_TEXT, len);
                    return;
                }
                _ => self.string_text(MULTILINE_STOP),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The eight-bytes-at-a-time search finds the same stop as testing each byte's class.
        #[test]
        fn next_stop_finds_the_first_byte_of_its_class(
            bytes in proptest::collection::vec(prop_oneof![
                Just(b'"'), Just(b'\\'), Just(b'$'), Just(b'\n'), Just(b'\r'), Just(b'\t'),
                0u8..0x20, 0x20u8..0x80, 0x80u8..=0xff, Just(b'a'), Just(b'a'), Just(b'a'),
            ], 0..40),
            from in 0usize..45,
            multiline in any::<bool>(),
        ) {
            let stops = if multiline { MULTILINE_STOP } else { STRING_STOP };
            let naive = (from..bytes.len()).find(|&i| CLASSES[bytes[i] as usize] & stops != 0).unwrap_or(bytes.len());
            prop_assert_eq!(next_stop(&bytes, from, stops), naive);
        }
    }

    fn kinds(text: &str) -> Vec<(SyntaxKind, String)> {
        let lexed = lex(text);
        let mut at = 0;
        lexed
            .tokens
            .iter()
            .map(|t| {
                let s = text[at..at + t.len as usize].to_owned();
                at += t.len as usize;
                (t.kind, s)
            })
            .collect()
    }

    #[test]
    fn words_include_dots_and_at() {
        assert_eq!(kinds("salto.x.instance.My_name@s"), vec![(IDENT, "salto.x.instance.My_name@s".into())]);
        assert!(is_word("a.b@c") && !is_word("3me") && !is_word("a-b") && !is_word(""));
    }

    #[test]
    fn templates_split_inside_strings() {
        let k = kinds(r#""a${ b.c }d\${e}""#);
        let got: Vec<_> = k.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            got,
            vec![
                QUOTE,
                STRING_TEXT,
                TEMPLATE_START,
                WHITESPACE,
                IDENT,
                WHITESPACE,
                TEMPLATE_END,
                STRING_TEXT,
                ESCAPE,
                STRING_TEXT,
                QUOTE
            ]
        );
    }

    #[test]
    fn comment_with_triple_quote_does_not_swallow_code() {
        let k = kinds("// it's '''\nx");
        assert_eq!(k.last().map(|(k, _)| *k), Some(IDENT));
    }

    #[test]
    fn conflict_region_is_one_token() {
        let k = kinds("<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\ny");
        assert_eq!(k[0].0, CONFLICT_MARKER);
        assert_eq!(k[0].1, "<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x");
        assert_eq!(lex("<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\ny").errors.len(), 1);
    }

    #[test]
    fn a_leading_byte_order_mark_is_white_space() {
        let text = "\u{feff}salto.t a {\n}\n";
        assert_eq!(kinds(text)[0], (WHITESPACE, "\u{feff}".into()));
        assert!(lex(text).errors.is_empty());
        assert!(crate::nacl::parse(text).errors().is_empty());
        assert_eq!(crate::nacl::format::format(text), text, "formatting keeps it");
        // Anywhere else it is still a stray character.
        assert_eq!(lex("a \u{feff}").errors.len(), 1);
    }

    #[test]
    fn crlf_multiline_open_takes_both_bytes() {
        let k = kinds("'''\r\nab\r\n'''");
        assert_eq!(k[0], (MULTILINE_OPEN, "'''\r\n".into()));
        assert_eq!(k.last().cloned(), Some((MULTILINE_CLOSE, "'''".into())));
    }
}
