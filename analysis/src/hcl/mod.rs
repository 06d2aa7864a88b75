//! HCL's part of the analysis: per-file queries over HCL's syntax (its parse, its diagnostics), the
//! outline, folds and selection steps, semantic highlighting, hover, the value model and the
//! evaluator, and static analysis of expressions. HCL files are analysed one by one:
//! what a name means across files is the business of schemas (hcldec specs).

pub mod eval;
pub mod highlight;
pub mod hover;
pub mod number;
pub mod scope;
pub mod statics;
pub mod structure;
pub mod value;

use crate::{
    db::{Db, SourceFile},
    diagnostics::Diagnostic,
};

/// The parse of an HCL file (kept for the files editors ask about most).
#[salsa::tracked(returns(ref), no_eq, lru = 32)]
pub fn parse(db: &dyn Db, file: SourceFile) -> nacl_syntax::hcl::Parse {
    nacl_syntax::hcl::parse(file.text(db).get())
}

/// The diagnostics of an HCL file: its syntax errors, by position.
#[salsa::tracked(returns(ref))]
pub fn diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    parse(db, file).errors().iter().map(Diagnostic::from_syntax).collect()
}
