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

/// Reads stdin whole as UTF-8 text, up to the size cap of a file
/// ([`nacl_analysis::files::MAX_FILE_SIZE`]); past it, or when it is not UTF-8, the error says so
/// (`command` names what the command does with it: "formats", "decodes").
pub fn read_stdin_text(command: &str) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind, Read};
    const CAP: u64 = nacl_analysis::files::MAX_FILE_SIZE;
    let mut bytes = Vec::new();
    std::io::stdin().lock().take(CAP + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > CAP {
        return Err(Error::new(
            ErrorKind::FileTooLarge,
            format!("stdin is larger than the {} MiB nacl-ls {command}", CAP >> 20),
        ));
    }
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorKind::InvalidData, "stdin is not UTF-8"))
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
