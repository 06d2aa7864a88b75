//! `nacl-ls-bench`: the performance suite of nacl-ls.
//!
//! - `all`: generates workspaces of 10 MB, 100 MB and 1 GB (once; kept under
//!   `target/bench-workspaces`), then measures them and the largest corpus workspace and prints
//!   one markdown table. Each throughput is also given as the ratio to reading the same files
//!   and counting their lines, each latency as the ratio to the 10 MB workspace's, so figures
//!   compare across machines.
//! - `corpus`: the full check of every corpus workspace.
//! - `languages`: NaCl's and HCL's parse and format throughput, as ratios to reading their files.
//! - `generate`: writes one generated workspace.
//! - `instructions`: the regression guard: instruction counts (valgrind's callgrind) of parsing
//!   and checking a fixed generated workspace, compared with the committed baseline.

mod generate;
mod instructions;
mod languages;
mod report;
mod server;
mod throughput;

use clap::{Parser, Subcommand};

// The check measured here allocates as `nacl-ls` does.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

#[derive(Parser)]
#[command(name = "nacl-ls-bench", about = "The performance suite of nacl-ls")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measures every figure on the largest corpus workspace and on generated ones; prints a table.
    All {
        /// Sizes of the generated workspaces, in MB.
        #[arg(long, value_delimiter = ',', default_values_t = [10u64, 100, 1000])]
        sizes: Vec<u64>,
        /// Leave out the corpus workspace.
        #[arg(long)]
        no_corpus: bool,
        /// Leave out the server figures.
        #[arg(long)]
        no_server: bool,
    },
    /// The full check of every corpus workspace: time, MB/s, peak memory, errors and warnings.
    Corpus,
    /// NaCl's and HCL's parse and format throughput, each as a ratio to reading its files.
    Languages,
    /// Writes a generated workspace.
    Generate {
        /// Where (a new folder).
        dir: PathBuf,
        /// Its size in MB of NaCl.
        #[arg(long, default_value_t = 10)]
        mb: u64,
        /// The seed: the same seed gives the same workspace.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Compares instruction counts of parsing and checking a fixed input with the baseline.
    Instructions {
        /// Write the counts measured now as the new baseline.
        #[arg(long)]
        update: bool,
    },
    /// (internal) Checks a workspace in this process and prints its figures.
    #[command(hide = true)]
    CheckHere {
        /// The workspace.
        dir: PathBuf,
    },
    /// (internal) Reads and parses every file of a workspace on one thread.
    #[command(hide = true)]
    ParseHere {
        /// The workspace.
        dir: PathBuf,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::All { sizes, no_corpus, no_server } => all(&sizes, no_corpus, no_server),
        Command::Generate { dir, mb, seed } => match generate::generate(&dir, mb * 1_000_000, seed) {
            Ok(g) => {
                println!(
                    "{} files, {:.1} MB, {} instances in {}",
                    g.files,
                    g.bytes as f64 / 1e6,
                    g.instances,
                    dir.display()
                );
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("cannot write {}: {error}", dir.display());
                ExitCode::FAILURE
            }
        },
        Command::Instructions { update } => instructions::run(update),
        Command::Languages => {
            languages::run();
            ExitCode::SUCCESS
        }
        Command::Corpus => {
            println!("| workspace | files | MB | check s | MB/s | peak MB (x input) | errors | warnings |");
            println!("|---|---|---|---|---|---|---|---|");
            for dir in nacl_corpus::workspaces() {
                let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let files = nacl_corpus::nacl_files(&dir).len();
                let Some(check) = throughput::check(&dir) else { continue };
                let mb = check.rate.bytes as f64 / 1e6;
                println!(
                    "| `{name}` | {files} | {mb:.1} | {:.2} | {:.1} | {:.0} ({:.1}x) | {} | {} |",
                    check.rate.seconds,
                    check.rate.mb_per_s(),
                    check.peak as f64 / 1e6,
                    check.peak as f64 / check.rate.bytes.max(1) as f64,
                    check.errors,
                    check.warnings
                );
            }
            ExitCode::SUCCESS
        }
        Command::CheckHere { dir } => {
            throughput::check_here(&dir);
            ExitCode::SUCCESS
        }
        Command::ParseHere { dir } => {
            let texts = nacl_corpus::read_all(&nacl_corpus::nacl_files(&dir));
            std::hint::black_box(throughput::parse(&texts));
            ExitCode::SUCCESS
        }
    }
}

/// The repository's root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The persistent cache folder the suite's checks and server starts use (emptied as each needs).
pub fn bench_cache() -> PathBuf {
    repo_root().join("target/bench-cache")
}

/// A generated workspace of `mb` MB, written once and kept under `target/bench-workspaces`.
pub fn generated(mb: u64, seed: u64) -> std::io::Result<PathBuf> {
    let dir = repo_root().join(format!("target/bench-workspaces/generated-{mb}mb-seed{seed}"));
    let done = dir.join(".complete");
    if !done.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        eprintln!("generating {mb} MB into {}", dir.display());
        generate::generate(&dir, mb * 1_000_000, seed)?;
        std::fs::write(&done, "")?;
    }
    Ok(dir)
}

/// The release build of the server, built first if needed.
fn server_binary() -> Option<PathBuf> {
    let status = std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["build", "--release", "--locked", "-p", "nacl-ls"])
        .current_dir(repo_root())
        .status()
        .ok()?;
    let binary = repo_root().join("target/release/nacl-ls");
    (status.success() && binary.exists()).then_some(binary)
}

fn all(sizes: &[u64], no_corpus: bool, no_server: bool) -> ExitCode {
    let server = if no_server { None } else { server_binary() };
    if !no_server && server.is_none() {
        eprintln!("cannot build the server (cargo build --release -p nacl-ls)");
        return ExitCode::FAILURE;
    }
    let mut workspaces: Vec<(String, PathBuf)> = Vec::new();
    if !no_corpus && let Some(dir) = nacl_corpus::largest_workspace() {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        workspaces.push((name, dir));
    }
    for &mb in sizes {
        match generated(mb, 1) {
            Ok(dir) => workspaces.push((format!("generated {mb} MB"), dir)),
            Err(error) => {
                eprintln!("cannot generate {mb} MB: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    let mut columns = Vec::new();
    for (name, dir) in &workspaces {
        eprintln!("measuring {name}");
        columns.push(report::measure(name, dir, server.as_deref()));
    }
    print!("{}", report::table(&columns, sizes.first().map(|mb| format!("generated {mb} MB")).as_deref()));
    ExitCode::SUCCESS
}
