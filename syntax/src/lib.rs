//! `nacl-syntax`: lossless, error-tolerant parsers for the HCL family of configuration languages.
//!
//! [`base`] holds what every language shares (the event-based parser core, the green-tree builder,
//! [`Parse`], diagnostic [`Code`]s and [`SyntaxError`]s, text edits, the fixture harness); each
//! language is a module of its own with its own `SyntaxKind`, lexer, grammar, typed AST and
//! formatter: [`nacl`] for NaCl, the language of Salto workspaces, and [`hcl`] for HCL's native
//! syntax. Kinds are never shared across languages. This crate knows nothing of salsa or LSP.

pub mod arm;
pub mod base;
pub mod hcl;
pub mod nacl;

pub use base::{
    Code, FlatNode, FlatToken, FlatTree, MAX_TEXT_LEN, Parse, Severity, Stage, SyntaxError, TextEdit, fixtures,
};
pub use rowan::{self, GreenNode, TextRange, TextSize};
