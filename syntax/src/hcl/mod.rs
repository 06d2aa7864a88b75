//! HCL native syntax (`hcl-native-syntax.md`): the configuration language of Terraform, Packer,
//! Nomad, Vault/OpenBao, Consul tools and Terragrunt, and the syntax hcldec spec files are written in.
//!
//! [`parse`] turns any text into a lossless rowan tree and a list of [`crate::SyntaxError`]s with
//! stable [`ErrorCode`]s; [`format`] writes HashiCorp's canonical layout (what `hclfmt` and
//! `terraform fmt` write).

pub mod ast;
mod error;
pub mod format;
mod kind;
pub mod lexer;
mod parser;

pub use error::ErrorCode;
pub use kind::{HclLanguage, SyntaxElement, SyntaxKind, SyntaxNode, SyntaxToken};
pub use parser::MAX_NESTING;

/// The result of parsing an HCL file.
pub type Parse = crate::Parse<HclLanguage>;

impl crate::Parse<HclLanguage> {
    /// The typed root of the tree.
    pub fn tree(&self) -> ast::SourceFile {
        use rowan::ast::AstNode;
        ast::SourceFile::cast(self.syntax()).expect("the root is always a SOURCE_FILE")
    }
}

/// Parses HCL native syntax. Never fails and never panics: errors are reported in
/// [`crate::Parse::errors`] and the tree holds every byte of `text`.
pub fn parse(text: &str) -> Parse {
    let lexed = lexer::lex(text);
    let (green, mut errors) = parser::parse_tokens(text, &lexed);
    errors.extend(lexed.errors);
    crate::Parse::new(green, errors)
}
