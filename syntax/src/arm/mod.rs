//! ARMLang (`armlang-spec.md`): a declarative language for Azure Resource Manager deployments,
//! the proposal that became Bicep.
//!
//! [`parse`] turns any text into a lossless rowan tree and a list of [`crate::SyntaxError`]s with
//! stable [`ErrorCode`]s; [`format`] writes the one canonical layout.

pub mod ast;
mod error;
pub mod format;
mod kind;
pub mod lexer;
mod parser;

pub use error::ErrorCode;
pub use kind::{ArmLanguage, SyntaxElement, SyntaxKind, SyntaxNode, SyntaxToken};
pub use parser::{DECLARATION_KEYWORDS, MAX_NESTING};

/// The result of parsing an ARMLang file.
pub type Parse = crate::Parse<ArmLanguage>;

impl crate::Parse<ArmLanguage> {
    /// The typed root of the tree.
    pub fn tree(&self) -> ast::SourceFile {
        use rowan::ast::AstNode;
        ast::SourceFile::cast(self.syntax()).expect("the root is always a SOURCE_FILE")
    }
}

/// Parses ARMLang. Never fails and never panics: errors are reported in [`crate::Parse::errors`]
/// and the tree holds every byte of `text`.
pub fn parse(text: &str) -> Parse {
    let lexed = lexer::lex(text);
    let (green, mut errors) = parser::parse_tokens(text, &lexed);
    errors.extend(lexed.errors);
    crate::Parse::new(green, errors)
}
