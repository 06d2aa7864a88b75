//! The command-line commands.

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
