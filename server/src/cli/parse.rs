//! `nacl-ls parse`: show how one file parses.

use super::renderer;
use crate::diagnostics::{Texts, render_human};
use nacl_analysis::{diagnostics::Diagnostic, files};
use std::{
    io::{self, Write},
    path::Path,
    process::ExitCode,
};

/// Prints the syntax errors of `path` (and its tree with `tree`); exit code 1 when there are errors.
pub fn run(path: &Path, tree: bool) -> io::Result<ExitCode> {
    let loaded = files::load(path);
    let parse = nacl_syntax::nacl::parse(&loaded.text);
    let mut out = io::stdout().lock();
    if tree {
        write!(out, "{:#?}", parse.syntax())?;
    }
    let diagnostics: Vec<Diagnostic> = loaded.error.iter().chain(parse.errors()).map(Diagnostic::from_syntax).collect();
    let renderer = renderer();
    for diagnostic in &diagnostics {
        writeln!(out, "{}\n", render_human(&renderer, path, &loaded.text, diagnostic, &Texts::new()))?;
    }
    Ok(if diagnostics.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
