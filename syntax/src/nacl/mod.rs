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
pub use escape::{StringDecoder, without_final_break};
pub use kind::{NaclLanguage, SyntaxElement, SyntaxKind, SyntaxNode, SyntaxToken};
pub use parser::MAX_NESTING;
pub use reparse::{reparse, reparse_part};

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
    let (tree, errors) = parser::parse_tokens(text, &lexed);
    let errors = all_errors(&tree, errors, lexed.errors);
    (tree, errors)
}

/// [`parse_flat`] of `text` that is one part of a longer text: an object or a list (`kind`),
/// bracket to bracket, written at nesting depth `depth`, or a top-level block (see
/// `parser::parse_part_tokens`). Gives its green node and its errors, ranges counted from its
/// start; `None` when it would not end at its last bracket.
pub(crate) fn parse_part(text: &str, depth: u32, kind: SyntaxKind) -> Option<(rowan::GreenNode, Vec<SyntaxError>)> {
    let lexed = lexer::lex(text);
    let (tree, errors) = parser::parse_part_tokens(text, &lexed, depth, kind)?;
    let errors = all_errors(&tree, errors, lexed.errors);
    let green = tree.green();
    let part = match kind {
        // The block is the root's one child.
        SyntaxKind::BLOCK => green.children().next()?.into_node()?.to_owned(),
        _ => green,
    };
    Some((part, errors))
}

/// The parser's errors, the lexer's and the structure checks' over `tree`, ordered by position.
fn all_errors(tree: &FlatTree<'_>, mut errors: Vec<SyntaxError>, lexed: Vec<SyntaxError>) -> Vec<SyntaxError> {
    let generic_ranges: Vec<TextRange> =
        errors.iter().filter(|e| e.code == ErrorCode::UnquotedGenericType).map(|e| e.range).collect();
    // An unquoted `List<x>` is reported once, not also as unexpected `<` and `>`.
    errors.extend(lexed.into_iter().filter(|e| {
        e.code != ErrorCode::UnexpectedCharacter || !generic_ranges.iter().any(|r| r.contains_range(e.range))
    }));
    errors.extend(validation::validate(tree.root()));
    crate::base::sort_errors(&mut errors);
    errors
}
