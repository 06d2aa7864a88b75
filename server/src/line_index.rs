//! Line and column positions for byte offsets, with the line breaks LSP knows: `\n`, `\r\n`, `\r`.

use nacl_syntax::{TextRange, TextSize};

/// The start offset of every line of a text.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Offset of the first byte of each line; the first is always 0.
    line_starts: Vec<TextSize>,
    /// Length of the text.
    len: TextSize,
}

/// A zero-based line and a zero-based column counted in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCol {
    /// The line, from 0.
    pub line: u32,
    /// The byte offset within the line.
    pub col: u32,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut line_starts = vec![TextSize::from(0)];
        for at in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            // The `\r` of a `\r\n` is not a line break of its own.
            if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
                continue;
            }
            line_starts.push(TextSize::from(at as u32 + 1));
        }
        LineIndex { line_starts, len: TextSize::of(text) }
    }

    /// The line and byte column of `offset` (clamped to the text).
    pub fn line_col(&self, offset: TextSize) -> LineCol {
        let offset = offset.min(self.len);
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        LineCol { line: line as u32, col: u32::from(offset - self.line_starts[line]) }
    }

    /// The range of a line, without its line break.
    pub fn line_range(&self, line: u32, text: &str) -> TextRange {
        let line = (line as usize).min(self.line_starts.len() - 1);
        let start = self.line_starts[line];
        let next = self.line_starts.get(line + 1).copied().unwrap_or(self.len);
        let content = text[usize::from(start)..usize::from(next)].trim_end_matches(['\n', '\r']);
        TextRange::at(start, TextSize::of(content))
    }
}

/// `offset` in `text`: the end of the text when past it, the start of its character when inside
/// one. Ranges come from the analysis and its cache; slicing the text by them must never panic.
pub fn clamp_offset(text: &str, offset: TextSize) -> TextSize {
    let mut at = usize::from(offset).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    TextSize::from(at as u32)
}

/// The unit LSP positions count columns in, as negotiated with the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 bytes.
    Utf8,
    /// UTF-16 code units (the LSP default).
    Utf16,
}

impl LineIndex {
    /// The LSP position (line, column in `encoding` units) of a byte offset.
    pub fn to_lsp(&self, text: &str, offset: TextSize, encoding: Encoding) -> (u32, u32) {
        let LineCol { line, col } = self.line_col(clamp_offset(text, offset));
        match encoding {
            Encoding::Utf8 => (line, col),
            Encoding::Utf16 => {
                let start = usize::from(self.line_starts[line as usize]);
                (line, utf16_len(&text[start..start + col as usize]))
            }
        }
    }

    /// A converter of offsets to LSP positions for offsets that mostly increase (the words of a
    /// file in order): each conversion reads only the text since the previous one.
    pub fn cursor<'a>(&'a self, text: &'a str, encoding: Encoding) -> PositionCursor<'a> {
        PositionCursor { index: self, text, encoding, line: 0, at: TextSize::from(0), column: 0 }
    }

    /// The byte offset of an LSP position; positions past the end of a line or of the text are
    /// clamped to it, and a column inside a character moves to its start.
    pub fn offset(&self, text: &str, line: u32, column: u32, encoding: Encoding) -> TextSize {
        let Some(&start) = self.line_starts.get(line as usize) else { return self.len };
        let range = self.line_range(line, text);
        let content = &text[range];
        let bytes = match encoding {
            Encoding::Utf8 => usize::from(clamp_offset(content, TextSize::from(column))),
            Encoding::Utf16 => {
                let mut units = 0u32;
                let mut at = content.len();
                for (index, c) in content.char_indices() {
                    if units + c.len_utf16() as u32 > column {
                        at = index;
                        break;
                    }
                    units += c.len_utf16() as u32;
                }
                at
            }
        };
        start + TextSize::from(bytes as u32)
    }
}

/// The length of `text` in `encoding` units.
pub fn encoded_len(text: &str, encoding: Encoding) -> u32 {
    match encoding {
        Encoding::Utf8 => text.len() as u32,
        Encoding::Utf16 => utf16_len(text),
    }
}

/// The length of `text` in UTF-16 code units: one per character, two for those past U+FFFF
/// (whose UTF-8 form starts with a byte of `0xF0` or more). Counted on bytes, which the compiler
/// vectorizes.
fn utf16_len(text: &str) -> u32 {
    if text.is_ascii() {
        return text.len() as u32;
    }
    text.bytes().map(|b| u32::from(b & 0xC0 != 0x80) + u32::from(b >= 0xF0)).sum()
}

/// How many lines a [`PositionCursor`] steps over one by one before it searches.
const NEAR_LINES: usize = 8;

/// Converts offsets to LSP positions in one pass: see [`LineIndex::cursor`].
pub struct PositionCursor<'a> {
    index: &'a LineIndex,
    text: &'a str,
    encoding: Encoding,
    /// The line of the last offset converted.
    line: usize,
    /// The last offset converted.
    at: TextSize,
    /// Its column.
    column: u32,
}

impl PositionCursor<'_> {
    /// The LSP position (line, column) of `offset` (clamped to the text).
    pub fn position(&mut self, offset: TextSize) -> (u32, u32) {
        let offset = clamp_offset(self.text, offset);
        if offset < self.at {
            // Backwards: from the start of the offset's line.
            let line = self.index.line_col(offset).line as usize;
            (self.line, self.at, self.column) = (line, self.index.line_starts[line], 0);
        }
        let starts = &self.index.line_starts;
        if starts.get(self.line + 1).is_some_and(|&next| next <= offset) {
            // The next offset is most often a line or two on: step there, and search only
            // when it is further.
            let rest = &starts[self.line + 1..];
            let near = rest.iter().take(NEAR_LINES).take_while(|&&start| start <= offset).count();
            self.line += match near {
                NEAR_LINES => rest.partition_point(|&start| start <= offset),
                near => near,
            };
            (self.at, self.column) = (starts[self.line], 0);
        }
        self.column += encoded_len(&self.text[usize::from(self.at)..usize::from(offset)], self.encoding);
        self.at = offset;
        (self.line as u32, self.column)
    }

    /// Where the line of the last offset converted ends: the start of the next line, if any.
    pub fn next_line_start(&self) -> Option<TextSize> {
        self.index.line_starts.get(self.line + 1).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offset_inside_a_character_or_past_the_text_is_at_the_nearest_place() {
        let text = "a\né\n";
        let index = LineIndex::new(text);
        assert_eq!(index.to_lsp(text, TextSize::from(3), Encoding::Utf16), (1, 0));
        assert_eq!(index.to_lsp(text, TextSize::from(40), Encoding::Utf16), (2, 0));
        let mut cursor = index.cursor(text, Encoding::Utf16);
        assert_eq!(cursor.position(TextSize::from(3)), (1, 0));
        assert_eq!(cursor.position(TextSize::from(40)), (2, 0));
    }

    #[test]
    fn all_line_break_forms_count() {
        let text = "a\nb\r\nc\rd";
        let index = LineIndex::new(text);
        let at = |o: u32| index.line_col(TextSize::from(o));
        assert_eq!(at(0), LineCol { line: 0, col: 0 });
        assert_eq!(at(2), LineCol { line: 1, col: 0 });
        assert_eq!(at(5), LineCol { line: 2, col: 0 });
        assert_eq!(at(7), LineCol { line: 3, col: 0 });
        assert_eq!(index.line_range(1, text), TextRange::new(2.into(), 3.into()));
        assert_eq!(at(100), LineCol { line: 3, col: 1 });
    }

    #[test]
    fn lsp_positions_in_both_encodings() {
        let text = "a😀b\r\nxé";
        let index = LineIndex::new(text);
        // `b` is after one 4-byte character: UTF-8 column 5, UTF-16 column 3.
        assert_eq!(index.to_lsp(text, 5.into(), Encoding::Utf8), (0, 5));
        assert_eq!(index.to_lsp(text, 5.into(), Encoding::Utf16), (0, 3));
        assert_eq!(index.offset(text, 0, 3, Encoding::Utf16), 5.into());
        assert_eq!(
            index.offset(text, 0, 2, Encoding::Utf16),
            1.into(),
            "inside the surrogate pair: the character's start"
        );
        assert_eq!(index.offset(text, 1, 99, Encoding::Utf16), TextSize::of(text), "past the line end: clamped");
        assert_eq!(index.offset(text, 9, 0, Encoding::Utf8), TextSize::of(text), "past the last line: the end");
    }

    proptest::proptest! {
        #[test]
        fn the_cursor_agrees_with_to_lsp(
            text in "(a|é|😀|\n|\r\n|\r|  ){0,40}",
            picks in proptest::collection::vec(0usize..200, 0..30),
        ) {
            let index = LineIndex::new(&text);
            let boundaries: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
            for encoding in [Encoding::Utf8, Encoding::Utf16] {
                let mut cursor = index.cursor(&text, encoding);
                // In any order: forwards and backwards.
                for &pick in &picks {
                    let offset = TextSize::from(boundaries[pick % boundaries.len()] as u32);
                    proptest::prop_assert_eq!(cursor.position(offset), index.to_lsp(&text, offset, encoding));
                }
            }
        }

        #[test]
        fn encoded_lengths_count_code_units(text in "\\PC{0,20}") {
            proptest::prop_assert_eq!(encoded_len(&text, Encoding::Utf16) as usize, text.encode_utf16().count());
            proptest::prop_assert_eq!(encoded_len(&text, Encoding::Utf8) as usize, text.len());
        }
    }
}
