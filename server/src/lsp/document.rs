//! An open document: the editor's buffer as a rope, so each incremental change costs
//! O(log n) whatever the size of the file.

use crate::line_index::Encoding;
use nacl_analysis::fragments::Text;
use ropey::Rope;
use std::path::PathBuf;
use tower_lsp_server::ls_types::{Position, TextDocumentContentChangeEvent};

/// The client's copy of a file.
pub struct Document {
    /// The file the document is (or stands in for).
    pub path: PathBuf,
    /// The version the client gave the last change.
    pub version: i32,
    rope: Rope,
}

impl Document {
    /// A document opened with `text`.
    pub fn new(path: PathBuf, version: i32, text: &str) -> Document {
        Document { path, version, rope: Rope::from_str(text) }
    }

    /// Applies one `didChange` event: a range replacement, or the whole text. Positions past the
    /// end of a line or of the document are clamped, as the protocol asks.
    pub fn apply(&mut self, change: &TextDocumentContentChangeEvent, encoding: Encoding) {
        let Some(range) = change.range else {
            self.rope = Rope::from_str(&change.text);
            return;
        };
        let start = self.char_index(range.start, encoding);
        let end = self.char_index(range.end, encoding).max(start);
        self.rope.remove(start..end);
        self.rope.insert(start, &change.text);
    }

    /// The size of the text in bytes.
    pub fn len_bytes(&self) -> usize {
        self.rope.len_bytes()
    }

    /// The whole text.
    pub fn text(&self) -> Text {
        let mut text = String::with_capacity(self.rope.len_bytes());
        for chunk in self.rope.chunks() {
            text.push_str(chunk);
        }
        Text::from(text)
    }

    /// The char index of an LSP position (clamped to the line's content and to the text).
    fn char_index(&self, position: Position, encoding: Encoding) -> usize {
        let line = position.line as usize;
        if line >= self.rope.len_lines() {
            return self.rope.len_chars();
        }
        let line_start = self.rope.line_to_char(line);
        let mut units = 0usize;
        let mut chars = 0usize;
        for c in self.rope.line(line).chars() {
            if c == '\n' || c == '\r' || units >= position.character as usize {
                break;
            }
            units += match encoding {
                Encoding::Utf8 => c.len_utf8(),
                Encoding::Utf16 => c.len_utf16(),
            };
            chars += 1;
        }
        line_start + chars
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::ls_types::Range;

    fn change(start: (u32, u32), end: (u32, u32), text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range { start: Position::new(start.0, start.1), end: Position::new(end.0, end.1) }),
            range_length: None,
            text: text.to_owned(),
        }
    }

    #[test]
    fn changes_count_columns_in_the_negotiated_unit() {
        let mut doc = Document::new(PathBuf::from("a.nacl"), 1, "a = \"😀x\"\r\nb = 1\rc = 2\n");
        // `x` is after 5 + 2 UTF-16 units, or 5 + 4 UTF-8 bytes.
        doc.apply(&change((0, 7), (0, 8), "y"), Encoding::Utf16);
        assert_eq!(&*doc.text(), "a = \"😀y\"\r\nb = 1\rc = 2\n");
        doc.apply(&change((0, 9), (0, 10), "z"), Encoding::Utf8);
        assert_eq!(&*doc.text(), "a = \"😀z\"\r\nb = 1\rc = 2\n");
        // A lone `\r` ends a line too.
        doc.apply(&change((2, 4), (2, 5), "3"), Encoding::Utf16);
        assert_eq!(&*doc.text(), "a = \"😀z\"\r\nb = 1\rc = 3\n");
    }

    #[test]
    fn positions_past_the_end_are_clamped() {
        let mut doc = Document::new(PathBuf::from("a.nacl"), 1, "ab\r\ncd");
        doc.apply(&change((0, 99), (0, 99), "!"), Encoding::Utf16);
        assert_eq!(&*doc.text(), "ab!\r\ncd");
        doc.apply(&change((7, 0), (9, 9), "?"), Encoding::Utf16);
        assert_eq!(&*doc.text(), "ab!\r\ncd?");
        doc.apply(&change((1, 1), (0, 0), "-"), Encoding::Utf16);
        assert_eq!(&*doc.text(), "ab!\r\nc-d?");
    }
}
