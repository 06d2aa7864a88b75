//! `nacl-ls parse`: show how one file parses.

use super::renderer;
use crate::diagnostics::{LineIndexes, Texts, render_human};
use nacl_analysis::{diagnostics::Diagnostic, files, ide, language::Language};
use std::{
    io::{self, Write},
    path::Path,
    process::ExitCode,
};

/// Prints the syntax errors of `path` (and its tree with `tree`), parsed in the language its name
/// says (NaCl when nacl-ls does not know the name); exit code 1 when there are errors.
pub fn run(path: &Path, tree: bool) -> io::Result<ExitCode> {
    let loaded = files::load(path);
    let (printed, errors) = ide::parse_text(Language::of_path(path).unwrap_or(Language::Nacl), &loaded.text);
    let mut out = io::stdout().lock();
    if tree {
        write!(out, "{printed}")?;
    }
    let diagnostics: Vec<Diagnostic> = loaded.error.iter().chain(&errors).map(Diagnostic::from_syntax).collect();
    let (renderer, texts, mut indexes) = (renderer(), Texts::new(), LineIndexes::default());
    for diagnostic in &diagnostics {
        writeln!(out, "{}\n", render_human(&renderer, path, &loaded.text, diagnostic, &texts, &mut indexes))?;
    }
    Ok(if diagnostics.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
