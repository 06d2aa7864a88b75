//! The command-line commands.

pub mod arm;
pub mod check;
pub mod elements;
pub mod fmt;
pub mod hcldec;
pub mod parse;
mod progress;

use annotate_snippets::Renderer;
use std::io::IsTerminal;

/// How a command prints its results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Snippets and a summary for people.
    Human,
    /// One JSON document for machines.
    Json,
}

/// A snippet renderer: coloured on a terminal (unless `NO_COLOR` is set), plain otherwise.
fn renderer() -> Renderer {
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let renderer = if colour { Renderer::styled() } else { Renderer::plain() };
    renderer.term_width(160)
}

/// `1 error` / `2 errors`.
fn plural(count: usize, word: &str) -> String {
    if count == 1 { format!("{count} {word}") } else { format!("{count} {word}s") }
}

/// Writes `text` to the file at `path`, created or truncated, never through a symbolic link
/// planted at that name; the error says which file.
pub fn write_output(path: &std::path::Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("can't open {} for writing: {e}", path.display()))
}
