//! The token cursor every recursive-descent grammar reads with: where it is in the tokens, which
//! tokens it skips (trivia always, line breaks where the grammar says they are insignificant),
//! the events it records and the errors it reports (one per position).

use super::{
    Token,
    error::{Code, SyntaxError},
    event::{CompletedMarker, Events, Marker},
};
use rowan::{TextRange, TextSize};

/// What the cursor needs to know of a language's token kinds.
pub(crate) trait CursorKind: Copy + PartialEq + Into<rowan::SyntaxKind> {
    /// The kind of a line break.
    const NEWLINE: Self;

    /// Whether this kind is skipped everywhere (spaces and comments, not line breaks).
    fn is_trivia_kind(self) -> bool;
}

/// A grammar's position in the tokens of a text, and what it has recorded so far.
pub(crate) struct Cursor<'t, K> {
    /// The text.
    pub(crate) text: &'t str,
    /// Its tokens.
    pub(crate) tokens: &'t [Token<K>],
    /// Start offset of every token, plus the end of the text.
    pub(crate) starts: Vec<u32>,
    /// The index of the next token.
    pub(crate) pos: usize,
    /// The events recorded.
    pub(crate) events: Events,
    /// The errors reported.
    pub(crate) errors: Vec<SyntaxError>,
    /// Whether line breaks are significant, innermost last.
    pub(crate) newlines: Vec<bool>,
    /// How deeply the grammar has descended (it stops at its own limit).
    pub(crate) depth: u32,
}

impl<'t, K: CursorKind> Cursor<'t, K> {
    /// A cursor at the start of `tokens` of `text`, line breaks significant.
    pub(crate) fn new(text: &'t str, tokens: &'t [Token<K>]) -> Cursor<'t, K> {
        Cursor {
            text,
            tokens,
            starts: super::token_starts(tokens.iter().map(|t| t.len)),
            pos: 0,
            events: Events::with_capacity(tokens.len()),
            errors: Vec::new(),
            newlines: vec![true],
            depth: 0,
        }
    }

    /// Whether line breaks are significant here.
    pub(crate) fn newlines_significant(&self) -> bool {
        self.newlines.last().copied().unwrap_or(true)
    }

    fn is_skipped(&self, kind: K) -> bool {
        kind.is_trivia_kind() || (kind == K::NEWLINE && !self.newlines_significant())
    }

    /// The index of the `n`th token from here that is not skipped.
    pub(crate) fn nth_index(&self, n: usize) -> usize {
        let mut seen = 0;
        let mut i = self.pos;
        while i < self.tokens.len() {
            if !self.is_skipped(self.tokens[i].kind) {
                if seen == n {
                    return i;
                }
                seen += 1;
            }
            i += 1;
        }
        self.tokens.len()
    }

    /// The kind of the `n`th significant token from here; `None` at the end.
    pub(crate) fn nth(&self, n: usize) -> Option<K> {
        self.tokens.get(self.nth_index(n)).map(|t| t.kind)
    }

    /// The kind of the current significant token.
    pub(crate) fn current(&self) -> Option<K> {
        self.nth(0)
    }

    /// Whether the current significant token is of `kind`.
    pub(crate) fn at(&self, kind: K) -> bool {
        self.current() == Some(kind)
    }

    /// The text of the token at `index`.
    pub(crate) fn text_of(&self, index: usize) -> &'t str {
        match (self.starts.get(index), self.starts.get(index + 1)) {
            (Some(&s), Some(&e)) => &self.text[s as usize..e as usize],
            _ => "",
        }
    }

    /// The text of the `n`th significant token from here.
    pub(crate) fn nth_text(&self, n: usize) -> &'t str {
        self.text_of(self.nth_index(n))
    }

    /// The range of the current significant token (empty at the end of the text).
    pub(crate) fn current_range(&self) -> TextRange {
        let i = self.nth_index(0);
        let start = self.starts.get(i).copied().unwrap_or(self.text.len() as u32);
        let end = self.starts.get(i + 1).copied().unwrap_or(start);
        TextRange::new(TextSize::from(start), TextSize::from(end))
    }

    /// Emits the skipped tokens before the next significant one.
    pub(crate) fn skip_trivia(&mut self) {
        while let Some(token) = self.tokens.get(self.pos) {
            if !self.is_skipped(token.kind) {
                break;
            }
            self.events.token(token.kind, token.len);
            self.pos += 1;
        }
    }

    /// Emits every remaining token that is trivia or a line break.
    pub(crate) fn skip_trivia_all(&mut self) {
        self.newlines.push(false);
        self.skip_trivia();
        self.newlines.pop();
    }

    /// Opens a node at the next significant token (the trivia before it stays outside).
    pub(crate) fn start(&mut self) -> Marker {
        self.skip_trivia();
        self.events.start()
    }

    /// Consumes the current significant token.
    pub(crate) fn bump(&mut self) {
        self.skip_trivia();
        if let Some(token) = self.tokens.get(self.pos) {
            self.events.token(token.kind, token.len);
            self.pos += 1;
        }
    }

    /// Consumes the current significant token if it is of `kind`; whether it was.
    pub(crate) fn eat(&mut self, kind: K) -> bool {
        let found = self.at(kind);
        if found {
            self.bump();
        }
        found
    }

    /// Closes `marker`'s node as `kind`.
    pub(crate) fn complete(&mut self, marker: Marker, kind: K) -> CompletedMarker {
        marker.complete(&mut self.events, kind)
    }

    /// Reports an error, unless one was reported at the same position: a cascade there says
    /// nothing new.
    pub(crate) fn error(&mut self, code: impl Into<Code>, range: TextRange, message: impl Into<String>) {
        if self.errors.last().is_some_and(|e| e.range.start() == range.start()) {
            return;
        }
        self.errors.push(SyntaxError::new(code, range, message));
    }

    /// Reports an error at the current significant token.
    pub(crate) fn error_here(&mut self, code: impl Into<Code>, message: impl Into<String>) {
        let range = self.current_range();
        self.error(code, range, message);
    }

    /// The current significant token in words, for messages.
    pub(crate) fn describe_current(&self) -> String {
        match self.current() {
            None => "the end of the file".to_owned(),
            Some(kind) if kind == K::NEWLINE => "the end of the line".to_owned(),
            Some(_) => format!("`{}`", self.nth_text(0).trim_end()),
        }
    }
}
