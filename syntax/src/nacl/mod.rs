//! NaCl, the configuration language of Salto workspaces.
//!
//! [`parse`] turns any text into a rowan concrete syntax tree that holds every byte of the input
//! (comments and whitespace included) and a list of [`SyntaxError`]s, each with a stable
//! [`ErrorCode`]. The typed [`ast`] layer reads the tree.

pub mod ast;
mod error;
mod escape;
pub mod format;
pub mod green;
mod kind;
pub mod lexer;
mod parser;
mod reparse;
mod validation;
pub mod view;

pub use error::ErrorCode;
pub use escape::StringDecoder;
pub use kind::{NaclLanguage, SyntaxElement, SyntaxKind, SyntaxNode, SyntaxToken};
pub use parser::MAX_NESTING;
pub use reparse::{reparse, reparse_token};

use crate::{FlatTree, SyntaxError, TextRange};
use rowan::ast::AstNode;

/// The result of parsing a NaCl file.
pub type Parse = crate::Parse<NaclLanguage>;

impl crate::Parse<NaclLanguage> {
    /// The typed root of the tree.
    pub fn tree(&self) -> ast::SourceFile {
        ast::SourceFile::cast(self.syntax()).expect("the root is always a SOURCE_FILE")
    }
}

/// Parses NaCl text. Never fails and never panics: errors are reported in [`crate::Parse::errors`]
/// and the tree still holds every byte of `text`.
///
/// `text` must be shorter than [`crate::MAX_TEXT_LEN`]; callers reading files enforce a lower limit.
pub fn parse(text: &str) -> Parse {
    let (tree, errors) = parse_flat(text);
    crate::Parse::new(tree.green(), errors)
}

/// Parses NaCl text into a flat tree (read through [`view::NodeView`]) and its errors, ordered by
/// position: the same tree and errors as [`parse`], without building the rowan tree. For passes
/// over whole workspaces, which read each file once.
pub fn parse_flat(text: &str) -> (FlatTree<'_>, Vec<SyntaxError>) {
    let lexed = lexer::lex(text);
    let (tree, mut errors) = parser::parse_tokens(text, &lexed);
    let generic_ranges: Vec<TextRange> =
        errors.iter().filter(|e| e.code == ErrorCode::UnquotedGenericType).map(|e| e.range).collect();
    // An unquoted `List<x>` is reported once, not also as unexpected `<` and `>`.
    errors.extend(lexed.errors.into_iter().filter(|e| {
        e.code != ErrorCode::UnexpectedCharacter || !generic_ranges.iter().any(|r| r.contains_range(e.range))
    }));
    errors.extend(validation::validate(tree.root()));
    crate::base::sort_errors(&mut errors);
    (tree, errors)
}
