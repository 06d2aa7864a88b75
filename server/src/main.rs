//! `nacl-ls`: the language server and command-line checker for NaCl, the configuration
//! language of Salto workspaces.

mod cli;
mod diagnostics;
mod line_index;
mod lsp;
mod terminal;

use clap::{Parser, Subcommand};

// Building syntax trees is allocation-heavy; mimalloc parses the corpus about 1.5x faster than
// the system allocator (see `cargo bench -p nacl-syntax`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::{path::PathBuf, process::ExitCode};

/// Fast, correct tooling for NaCl (Salto) workspaces.
#[derive(Parser)]
#[command(name = "nacl-ls", version, about, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a workspace: syntax, conflicts between fragments, and references.
    ///
    /// Each path's workspace (the nearest folder above it holding `salto.config/`) is analysed
    /// whole; problems are reported for the files under the path.
    Check {
        /// Files or folders to report on (default: the current folder).
        paths: Vec<PathBuf>,
        /// The environment to analyse common files in (default: the first in `salto.config/envs.nacl`).
        #[arg(long)]
        env: Option<String>,
        /// Fail (exit code 1) on warnings too.
        #[arg(long)]
        deny_warnings: bool,
        /// Do not read Salto's state files (`salto.config/states/`): types kept only there are unknown.
        #[arg(long)]
        no_state: bool,
        /// How to print the results.
        #[arg(long, value_enum, default_value_t = cli::OutputFormat::Human)]
        format: cli::OutputFormat,
        /// Draw no progress bar (one is drawn on stderr when it is a terminal).
        #[arg(long, short)]
        quiet: bool,
    },
    /// List the merged elements of a workspace: ID, kind, and where each fragment is.
    Elements {
        /// A folder of the workspace (default: the current folder).
        path: Option<PathBuf>,
        /// The environment to merge in (default: the first in `salto.config/envs.nacl`).
        #[arg(long)]
        env: Option<String>,
        /// Also print each element's merged values (references written as element IDs).
        #[arg(long)]
        values: bool,
        /// Do not read Salto's state files (`salto.config/states/`).
        #[arg(long)]
        no_state: bool,
        /// How to print the results.
        #[arg(long, value_enum, default_value_t = cli::OutputFormat::Human)]
        format: cli::OutputFormat,
        /// Draw no progress bar (one is drawn on stderr when it is a terminal).
        #[arg(long, short)]
        quiet: bool,
    },
    /// Format NaCl, HCL and ARMLang files in place, each in its language's one canonical style (`-` formats stdin to stdout).
    Fmt {
        /// Files or directories to format (default: the current directory), or `-` for stdin.
        paths: Vec<PathBuf>,
        /// Change nothing; list the files that would change and exit with 1 if there are any.
        #[arg(long, conflicts_with = "diff")]
        check: bool,
        /// Change nothing; print a unified diff of the changes and exit with 1 if there are any.
        #[arg(long)]
        diff: bool,
        /// Draw no progress bar (one is drawn on stderr when it is a terminal).
        #[arg(long, short)]
        quiet: bool,
        /// The language of text read from stdin (`-`): files take theirs from their names.
        #[arg(long, value_enum, default_value = "nacl")]
        language: LanguageArg,
    },
    /// Serve the Language Server Protocol over stdin and stdout (what editors start).
    Serve,
    /// Decode HCL files with an hcldec spec and print the JSON value, as HashiCorp's `hcldec` does.
    ///
    /// The flags, output and exit codes are `hcldec`'s; a link named `hcldec` to this binary takes
    /// them directly (`hcldec --spec=app.hcldec app.hcl`).
    Hcldec(cli::hcldec::HcldecArgs),
    /// ARMLang: compile `.arm` files to ARM deployment templates.
    Arm {
        #[command(subcommand)]
        command: ArmCommand,
    },
    /// Parse one file and print its errors, and with `--tree` its concrete syntax tree.
    Parse {
        /// The file to parse.
        file: PathBuf,
        /// Print the concrete syntax tree.
        #[arg(long)]
        tree: bool,
    },
}

/// What `nacl-ls arm` does.
#[derive(Debug, clap::Subcommand)]
enum ArmCommand {
    /// Compile one ARMLang file to an ARM deployment template (JSON), printed or written to `-o`.
    Build {
        /// The `.arm` file.
        file: PathBuf,
        /// Write the template here instead of to stdout (never through a symbolic link).
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
}

/// A language named on the command line.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum LanguageArg {
    /// NaCl (Salto workspaces).
    Nacl,
    /// HCL's native syntax.
    Hcl,
    /// ARMLang.
    Arm,
}

impl From<LanguageArg> for nacl_analysis::language::Language {
    fn from(language: LanguageArg) -> Self {
        match language {
            LanguageArg::Nacl => nacl_analysis::language::Language::Nacl,
            LanguageArg::Hcl => nacl_analysis::language::Language::Hcl,
            LanguageArg::Arm => nacl_analysis::language::Language::Arm,
        }
    }
}

fn main() -> ExitCode {
    // Run under the name `hcldec` (a link to this binary), take hcldec's command line.
    let invoked_as = std::env::args_os().next().map(PathBuf::from);
    if invoked_as.as_deref().and_then(|p| p.file_stem()).is_some_and(|name| name == "hcldec") {
        return finish(cli::hcldec::run(cli::hcldec::HcldecCli::parse().into_args()));
    }
    // An editor starts the server with no arguments and stdin connected to a pipe.
    if std::env::args_os().len() == 1 && !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        return finish(lsp::serve());
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve => lsp::serve(),
        Command::Check { paths, env, deny_warnings, no_state, format, quiet } => {
            cli::check::run(cli::check::CheckArgs { paths, env, state: !no_state, deny_warnings, format, quiet })
        }
        Command::Elements { path, env, values, no_state, format, quiet } => {
            cli::elements::run(cli::elements::ElementsArgs { path, env, state: !no_state, values, format, quiet })
        }
        Command::Fmt { paths, check, diff, quiet, language } => {
            let mode = if check {
                cli::fmt::Mode::Check
            } else if diff {
                cli::fmt::Mode::Diff
            } else {
                cli::fmt::Mode::Write
            };
            cli::fmt::run(paths, mode, quiet, language.into())
        }
        Command::Hcldec(args) => cli::hcldec::run(args),
        Command::Arm { command: ArmCommand::Build { file, out } } => cli::arm::build(&file, out.as_deref()),
        Command::Parse { file, tree } => cli::parse::run(&file, tree),
    };
    finish(result)
}

/// The process's exit code for a command's result.
fn finish(result: std::io::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(err) => {
            // Output closed early (`nacl-ls check | head`) is not a failure worth a message.
            if err.kind() != std::io::ErrorKind::BrokenPipe {
                eprintln!("error: {err}");
            }
            ExitCode::from(2)
        }
    }
}
