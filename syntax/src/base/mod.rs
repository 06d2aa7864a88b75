//! What every language's syntax shares: the event-based parser core, the green-tree builder, the
//! parse result, diagnostic codes and errors, text edits, and the fixture harness.

pub(crate) mod builder;
pub(crate) mod cursor;
pub(crate) mod error;
pub(crate) mod event;
pub mod fixtures;
pub(crate) mod flat;
pub(crate) mod kinds;

use rowan::{GreenNode, Language};
use std::{fmt::Write, marker::PhantomData, sync::Arc};

pub use error::{Code, Severity, Stage, SyntaxError};
pub use flat::{FlatNode, FlatToken, FlatTree};

/// One token: its kind and its length in bytes (never zero). Offsets follow from the lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<K> {
    /// What it is.
    pub kind: K,
    /// Its length in bytes.
    pub len: u32,
}

/// The tokens of a text and the lexical errors in it.
#[derive(Debug)]
pub struct Lexed<K> {
    /// Every token, in order; their lengths add up to the text's length.
    pub tokens: Vec<Token<K>>,
    /// Lexical errors, in text order.
    pub errors: Vec<SyntaxError>,
}

impl<K> Default for Lexed<K> {
    fn default() -> Self {
        Lexed { tokens: Vec::new(), errors: Vec::new() }
    }
}

/// The start offset of each token of the given lengths, then the end of the text.
pub(crate) fn token_starts(lengths: impl ExactSizeIterator<Item = u32>) -> Vec<u32> {
    let mut starts = Vec::with_capacity(lengths.len() + 1);
    let mut offset = 0u32;
    for len in lengths {
        starts.push(offset);
        offset += len;
    }
    starts.push(offset);
    starts
}

/// A green tree in one line, for tests: `kind(child child ...)`, tokens as their text.
#[cfg(test)]
pub(crate) fn green_shape(node: &rowan::GreenNodeData) -> String {
    let children: Vec<String> = node
        .children()
        .map(|child| match child {
            rowan::NodeOrToken::Node(n) => green_shape(n),
            rowan::NodeOrToken::Token(t) => t.text().to_owned(),
        })
        .collect();
    format!("{}({})", node.kind().0, children.join(" "))
}

/// Orders errors by position, as every parse reports them.
pub(crate) fn sort_errors(errors: &mut [SyntaxError]) {
    errors.sort_by_key(|e| (e.range.start(), e.range.end()));
}

/// The largest text a parser accepts: rowan measures offsets in `u32`.
pub const MAX_TEXT_LEN: usize = u32::MAX as usize;

/// The result of parsing one file of language `L`: a lossless tree and the errors found in it.
///
/// Cheap to clone and `Send + Sync`; build a syntax node per thread with [`Parse::syntax`].
pub struct Parse<L> {
    green: GreenNode,
    errors: Arc<[SyntaxError]>,
    language: PhantomData<fn() -> L>,
}

impl<L> Clone for Parse<L> {
    fn clone(&self) -> Self {
        Parse { green: self.green.clone(), errors: self.errors.clone(), language: PhantomData }
    }
}

impl<L> PartialEq for Parse<L> {
    fn eq(&self, other: &Self) -> bool {
        self.green == other.green && self.errors == other.errors
    }
}

impl<L> Eq for Parse<L> {}

impl<L> std::fmt::Debug for Parse<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parse").field("green", &self.green).field("errors", &self.errors).finish()
    }
}

impl<L: Language> Parse<L> {
    /// A parse result from its tree and errors (sorted here by position).
    pub(crate) fn new(green: GreenNode, mut errors: Vec<SyntaxError>) -> Parse<L> {
        sort_errors(&mut errors);
        Parse { green, errors: errors.into(), language: PhantomData }
    }

    /// The root of the tree.
    pub fn syntax(&self) -> rowan::SyntaxNode<L> {
        rowan::SyntaxNode::new_root(self.green.clone())
    }

    /// The green (position-independent, shareable) tree.
    pub fn green(&self) -> &GreenNode {
        &self.green
    }

    /// Lexical, grammar and structure errors, ordered by position.
    pub fn errors(&self) -> &[SyntaxError] {
        &self.errors
    }

    /// The tree and the errors as text, for tests and `nacl-ls parse --tree`.
    pub fn debug_dump(&self) -> String {
        let mut out = format!("{:#?}", self.syntax());
        for error in self.errors.iter() {
            let _ = writeln!(
                out,
                "error {}..{} {}: {}",
                u32::from(error.range.start()),
                u32::from(error.range.end()),
                error.code,
                error.message
            );
        }
        out
    }
}

/// A replacement of part of a file, in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    /// The range of the original text to replace.
    pub range: rowan::TextRange,
    /// The new text.
    pub new_text: String,
}
