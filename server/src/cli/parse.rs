//! `nacl-ls parse`: show how one file parses.

use super::renderer;
use crate::{diagnostics::render_human, line_index::LineIndex};
use nacl_analysis::files;
use std::{
    io::{self, Write},
    path::Path,
    process::ExitCode,
};

/// Prints the errors of `path` (and its tree with `tree`); exit code 1 when there are errors.
pub fn run(path: &Path, tree: bool) -> io::Result<ExitCode> {
    let loaded = files::load(path);
    let parse = nacl_syntax::parse(&loaded.text);
    let mut out = io::stdout().lock();
    if tree {
        write!(out, "{:#?}", parse.syntax())?;
    }
    let errors: Vec<_> = loaded.error.iter().chain(parse.errors()).collect();
    let index = LineIndex::new(&loaded.text);
    let renderer = renderer();
    for error in &errors {
        writeln!(out, "{}\n", render_human(&renderer, path, &loaded.text, &index, error))?;
    }
    Ok(if errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
