//! Text from a repository made safe to print for people: file names and decoded strings can
//! hold control characters (escape sequences that move the cursor or recolour the terminal,
//! line breaks that forge `error[...]` lines or `::error::` CI commands) and bidirectional
//! overrides that reorder what is shown. JSON output needs none of this: JSON escapes them.

use std::{borrow::Cow, ops::Range};

/// Whether a character must not reach a terminal as it is.
fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A message or a name for one line of human output: unsafe characters (tabs and line breaks
/// too) written as escapes (`\n`, `\u{1b}`).
pub fn escaped(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(|c| if is_unsafe(c) { c.escape_debug().collect() } else { c.to_string() }).collect())
}

/// Source lines for a snippet, with `span` (a byte range in them) moved to match: a control
/// character (but a tab or a line break) is shown as its Unicode control picture (`␛`), others
/// as `�`, so columns stay where they were.
pub fn pictured(source: &str, span: Range<usize>) -> (Cow<'_, str>, Range<usize>) {
    if !source.chars().any(|c| is_unsafe(c) && !matches!(c, '\t' | '\n' | '\r')) {
        return (Cow::Borrowed(source), span);
    }
    let mut out = String::with_capacity(source.len() + 8);
    let (mut start, mut end) = (span.start, span.end);
    for (at, c) in source.char_indices() {
        if at == span.start {
            start = out.len();
        }
        if at == span.end {
            end = out.len();
        }
        match c {
            '\t' | '\n' | '\r' => out.push(c),
            '\0'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}')),
            '\u{7f}' => out.push('\u{2421}'),
            c if is_unsafe(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    if span.start >= source.len() {
        start = out.len();
    }
    if span.end >= source.len() {
        end = out.len();
    }
    (Cow::Owned(out), start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escaped("plain/path.nacl"), "plain/path.nacl");
        assert_eq!(escaped("a\nerror[E0001]: forged"), "a\\nerror[E0001]: forged");
        assert_eq!(escaped("x\u{1b}[2Jy\u{202e}"), "x\\u{1b}[2Jy\\u{202e}");
    }

    #[test]
    fn pictures_keep_the_span_on_its_characters() {
        let (shown, span) = pictured("a = \"\u{1b}[31mred\"", 5..13);
        assert_eq!(shown, "a = \"\u{241b}[31mred\"");
        assert_eq!(&shown[span], "\u{241b}[31mred");
        let (shown, span) = pictured("plain", 1..3);
        assert_eq!((&*shown, span), ("plain", 1..3));
    }
}
