//! `nacl-ls fmt`: format NaCl and HCL files, each in its language's one canonical style.

use crate::terminal::escaped;
use nacl_analysis::{files, ide, language::Language, layout};
use rayon::prelude::*;
use similar::TextDiff;
use std::{
    io::{self, Read, Seek, SeekFrom, Write},
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

/// The language of a file to format, from its name (NaCl when nacl-ls does not know the name).
fn language_of(path: &Path) -> Language {
    Language::of_path(path).unwrap_or(Language::Nacl)
}

/// Formats `paths` (files or directories; `-` alone reads stdin, in `stdin_language`, and writes
/// stdout).
pub fn run(mut paths: Vec<PathBuf>, mode: Mode, quiet: bool, stdin_language: Language) -> io::Result<ExitCode> {
    if paths.len() == 1 && paths[0] == Path::new("-") {
        return format_stdin(mode, stdin_language);
    }
    if paths.is_empty() {
        paths.push(PathBuf::from("."));
    }
    let (mut files, discovery_errors) = files::discover(&paths);
    // Static resources are not formatted, even when named like HCL, unless named on the command line.
    files.retain(|f| paths.contains(f) || language_of(f) != Language::Hcl || !layout::is_static_resource(f));
    for error in &discovery_errors {
        eprintln!("error: cannot search {}: {}", shown(&error.path), escaped(&error.error.to_string()));
    }
    let progress = super::progress::Progress::new(!quiet);
    progress.phase(if mode == Mode::Write { "formatting" } else { "reading" }, files.len());
    let outcomes: Vec<(PathBuf, Outcome)> = files
        .into_par_iter()
        .map(|path| {
            let outcome = format_file(&path, mode);
            progress.inc();
            (path, outcome)
        })
        .collect();
    progress.finish();

    let mut out = io::stdout().lock();
    let (mut changed, mut failed) = (0usize, 0usize);
    for (path, outcome) in &outcomes {
        match outcome {
            Outcome::Unchanged => {}
            Outcome::Changed { original, formatted } => {
                changed += 1;
                match mode {
                    Mode::Check => writeln!(out, "{}", shown(path))?,
                    Mode::Diff => write_diff(&mut out, path, original, formatted)?,
                    Mode::Write => {}
                }
            }
            Outcome::Failed(message) => {
                failed += 1;
                eprintln!("error: {}: {}", shown(path), escaped(message));
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
    if mode != Mode::Write {
        let loaded = files::load(path);
        if let Some(error) = loaded.error {
            return Outcome::Failed(format!("{} (file left unchanged)", error.message));
        }
        let formatted = ide::format_text(language_of(path), &loaded.text);
        return if formatted == loaded.text {
            Outcome::Unchanged
        } else {
            Outcome::Changed { original: loaded.text, formatted }
        };
    }
    match format_in_place(path) {
        Ok(None) => Outcome::Unchanged,
        Ok(Some((original, formatted))) => Outcome::Changed { original, formatted },
        Err(message) => Outcome::Failed(format!("{message} (file left unchanged)")),
    }
}

/// Formats a file where it is (through a link: its target): the file itself is rewritten,
/// never replaced, so its owner, mode, hard links and the link that leads to it stay as they were, and no temporary file is
/// made (none can be planted or left behind). The file is locked while it is read and written
/// (so two `fmt` runs take turns), and left alone when it changed since it was read, is
/// read-only, or is not a regular file.
fn format_in_place(path: &Path) -> Result<Option<(String, String)>, String> {
    // Discovery has checked that a link stays inside the workspace: format what it leads to.
    let target = std::fs::canonicalize(path).map_err(|e| format!("cannot resolve the path: {e}"))?;
    let mut file = files::open_for_update(&target).map_err(|e| format!("cannot open the file: {e}"))?;
    if file.metadata().map_err(|e| e.to_string())?.permissions().readonly() {
        return Err("the file is read-only; make it writable to format it".to_owned());
    }
    file.lock().map_err(|e| format!("cannot lock the file: {e}"))?;
    let before = file.metadata().map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    (&mut file).take(files::MAX_FILE_SIZE + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read it: {e}"))?;
    let loaded = files::decode(bytes);
    if let Some(error) = loaded.error {
        return Err(error.message);
    }
    let formatted = ide::format_text(language_of(path), &loaded.text);
    if formatted == loaded.text {
        return Ok(None);
    }
    let now = file.metadata().map_err(|e| e.to_string())?;
    if now.len() != before.len() || now.modified().ok() != before.modified().ok() {
        return Err("the file changed while it was being formatted; run fmt again".to_owned());
    }
    (|| {
        file.seek(SeekFrom::Start(0))?;
        file.write_all(formatted.as_bytes())?;
        file.set_len(formatted.len() as u64)?;
        file.sync_data()
    })()
    .map_err(|e| format!("cannot write the formatted text: {e}"))?;
    Ok(Some((loaded.text, formatted)))
}

fn write_diff(out: &mut impl Write, path: &Path, original: &str, formatted: &str) -> io::Result<()> {
    let name = shown(path);
    let diff = TextDiff::from_lines(original, formatted);
    write!(out, "{}", diff.unified_diff().context_radius(3).header(&name, &name))
}

fn format_stdin(mode: Mode, language: Language) -> io::Result<ExitCode> {
    let text = super::read_stdin_text("formats")?;
    let formatted = ide::format_text(language, &text);
    let mut out = io::stdout().lock();
    match mode {
        Mode::Write => out.write_all(formatted.as_bytes())?,
        Mode::Check if formatted != text => writeln!(out, "<stdin>")?,
        Mode::Diff if formatted != text => write_diff(&mut out, Path::new("<stdin>"), &text, &formatted)?,
        _ => {}
    }
    Ok(if mode != Mode::Write && formatted != text { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// A path as printed for people, control characters escaped.
fn shown(path: &Path) -> String {
    escaped(&path.display().to_string()).into_owned()
}
