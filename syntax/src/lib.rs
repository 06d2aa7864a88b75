//! `nacl-syntax`: a lossless, error-tolerant parser for NaCl, the configuration language of Salto
//! workspaces.
//!
//! [`parse`] turns any text into a rowan concrete syntax tree that holds every byte of the input
//! (comments and whitespace included) and a list of [`SyntaxError`]s, each with a stable
//! [`ErrorCode`]. The typed [`ast`] layer reads the tree. This crate knows nothing of salsa or
//! LSP.

pub mod ast;
mod builder;
mod error;
mod escape;
pub mod format;
mod green;
mod kind;
pub mod lexer;
mod parser;
mod validation;

pub use error::{ErrorCode, Severity, SyntaxError};
pub use escape::StringDecoder;
pub use kind::{NaclLanguage, SyntaxElement, SyntaxKind, SyntaxNode, SyntaxToken};
pub use parser::MAX_NESTING;
pub use rowan::{GreenNode, TextRange, TextSize};

use rowan::ast::AstNode;

use std::{fmt::Write, sync::Arc};

/// The largest text [`parse`] accepts: rowan measures offsets in `u32`.
pub const MAX_TEXT_LEN: usize = u32::MAX as usize;

/// The result of parsing one file: a lossless tree and the errors found in it.
///
/// Cheap to clone and `Send + Sync`; build a [`SyntaxNode`] per thread with [`Parse::syntax`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parse {
    green: GreenNode,
    errors: Arc<[SyntaxError]>,
}

impl Parse {
    /// The root of the tree.
    pub fn syntax(&self) -> SyntaxNode {
        SyntaxNode::new_root(self.green.clone())
    }

    /// The typed root of the tree.
    pub fn tree(&self) -> ast::SourceFile {
        ast::SourceFile::cast(self.syntax()).expect("the root is always a SOURCE_FILE")
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

/// Parses NaCl text. Never fails and never panics: errors are reported in [`Parse::errors`]
/// and the tree still holds every byte of `text`.
///
/// `text` must be shorter than [`MAX_TEXT_LEN`]; callers reading files enforce a lower limit.
pub fn parse(text: &str) -> Parse {
    let lexed = lexer::lex(text);
    let (green, mut errors) = parser::parse_tokens(text, &lexed);
    let generic_ranges: Vec<TextRange> =
        errors.iter().filter(|e| e.code == ErrorCode::UnquotedGenericType).map(|e| e.range).collect();
    // An unquoted `List<x>` is reported once, not also as unexpected `<` and `>`.
    errors.extend(lexed.errors.into_iter().filter(|e| {
        e.code != ErrorCode::UnexpectedCharacter || !generic_ranges.iter().any(|r| r.contains_range(e.range))
    }));
    errors.extend(validation::validate(&green));
    errors.sort_by_key(|e| (e.range.start(), e.range.end()));
    Parse { green, errors: errors.into() }
}
