//! `nacl-ls fmt`: format `.nacl` files in the one canonical style.

use nacl_analysis::files;
use rayon::prelude::*;
use similar::TextDiff;
use std::{
    io::{self, Read, Write},
    path::{Path, PathBuf},
    process::ExitCode,
};

/// What `fmt` does with the formatted text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Rewrite files in place.
    Write,
    /// Only list the files that would change.
    Check,
    /// Print a unified diff of the changes.
    Diff,
}

/// The outcome for one file.
enum Outcome {
    Unchanged,
    Changed { original: String, formatted: String },
    Failed(String),
}

/// Formats `paths` (files or directories; `-` alone reads stdin and writes stdout).
pub fn run(mut paths: Vec<PathBuf>, mode: Mode) -> io::Result<ExitCode> {
    if paths.len() == 1 && paths[0] == Path::new("-") {
        return format_stdin(mode);
    }
    if paths.is_empty() {
        paths.push(PathBuf::from("."));
    }
    let (files, discovery_errors) = files::discover(&paths);
    for error in &discovery_errors {
        eprintln!("error: cannot search {}: {}", error.path.display(), error.error);
    }
    let outcomes: Vec<(PathBuf, Outcome)> =
        files.into_par_iter().map(|path| (path.clone(), format_file(&path, mode))).collect();

    let mut out = io::stdout().lock();
    let (mut changed, mut failed) = (0usize, 0usize);
    for (path, outcome) in &outcomes {
        match outcome {
            Outcome::Unchanged => {}
            Outcome::Changed { original, formatted } => {
                changed += 1;
                match mode {
                    Mode::Check => writeln!(out, "{}", path.display())?,
                    Mode::Diff => write_diff(&mut out, path, original, formatted)?,
                    Mode::Write => {}
                }
            }
            Outcome::Failed(message) => {
                failed += 1;
                eprintln!("error: {}: {message}", path.display());
            }
        }
    }
    let total = outcomes.len();
    let verb = if mode == Mode::Write { "reformatted" } else { "would be reformatted" };
    eprintln!(
        "{changed} of {total} files {verb}{}",
        if failed > 0 { format!(", {failed} failed") } else { String::new() }
    );
    Ok(if failed > 0 || !discovery_errors.is_empty() {
        ExitCode::from(2)
    } else if changed > 0 && mode != Mode::Write {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn format_file(path: &Path, mode: Mode) -> Outcome {
    let loaded = files::load(path);
    if let Some(error) = loaded.error {
        return Outcome::Failed(format!("{} (file left unchanged)", error.message));
    }
    let formatted = nacl_syntax::format::format(&loaded.text);
    if formatted == loaded.text {
        return Outcome::Unchanged;
    }
    if mode == Mode::Write
        && let Err(err) = write_atomically(path, &formatted)
    {
        return Outcome::Failed(format!("cannot write the formatted file: {err}"));
    }
    Outcome::Changed { original: loaded.text, formatted }
}

/// Replaces `path` by writing a sibling file and renaming it over, keeping its permissions, so
/// a crash or a full disk never leaves a half-written file.
fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    let permissions = std::fs::metadata(path)?.permissions();
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = path.with_file_name(format!(".{file_name}.nacl-ls-fmt.tmp"));
    let result = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::set_permissions(&temp, permissions)?;
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

fn write_diff(out: &mut impl Write, path: &Path, original: &str, formatted: &str) -> io::Result<()> {
    let name = path.display().to_string();
    let diff = TextDiff::from_lines(original, formatted);
    write!(out, "{}", diff.unified_diff().context_radius(3).header(&name, &name))
}

fn format_stdin(mode: Mode) -> io::Result<ExitCode> {
    let mut text = String::new();
    io::stdin().read_to_string(&mut text)?;
    let formatted = nacl_syntax::format::format(&text);
    let mut out = io::stdout().lock();
    match mode {
        Mode::Write => out.write_all(formatted.as_bytes())?,
        Mode::Check if formatted != text => writeln!(out, "<stdin>")?,
        Mode::Diff if formatted != text => write_diff(&mut out, Path::new("<stdin>"), &text, &formatted)?,
        _ => {}
    }
    Ok(if mode != Mode::Write && formatted != text { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
