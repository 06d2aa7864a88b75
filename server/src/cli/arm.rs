//! `nacl-ls arm build`: compile an ARMLang file to an ARM deployment template.

use super::renderer;
use crate::diagnostics::{LineIndexes, Texts, render_human};
use nacl_analysis::{arm, diagnostics::Diagnostic, files};
use std::{
    io::{self, Write},
    path::Path,
    process::ExitCode,
};

/// Compiles `path` and writes the template to `out` (stdout when `None`). With errors, prints
/// them on stderr and exits with 1; a file that cannot be read or written exits with 2.
pub fn build(path: &Path, out: Option<&Path>) -> io::Result<ExitCode> {
    let loaded = files::load(path);
    if let Some(error) = &loaded.error {
        let diagnostic = Diagnostic::from_syntax(error);
        eprintln!(
            "{}",
            render_human(&renderer(), path, &loaded.text, &diagnostic, &Texts::new(), &mut LineIndexes::default())
        );
        return Ok(ExitCode::from(2));
    }
    match arm::build_template(&loaded.text, path) {
        Ok(template) => match out {
            None => {
                io::stdout().lock().write_all(template.as_bytes())?;
                Ok(ExitCode::SUCCESS)
            }
            Some(out) => match super::write_output(out, &template) {
                Ok(()) => Ok(ExitCode::SUCCESS),
                Err(e) => {
                    eprintln!("error: {e}");
                    Ok(ExitCode::from(2))
                }
            },
        },
        Err(diagnostics) => {
            let (renderer, texts, mut indexes) = (renderer(), Texts::new(), LineIndexes::default());
            let mut err = io::stderr().lock();
            for diagnostic in &diagnostics {
                writeln!(err, "{}\n", render_human(&renderer, path, &loaded.text, diagnostic, &texts, &mut indexes))?;
            }
            let errors = diagnostics.iter().filter(|d| d.severity() == nacl_syntax::Severity::Error).count();
            writeln!(err, "{}: no template written", super::plural(errors, "error"))?;
            Ok(ExitCode::from(1))
        }
    }
}
