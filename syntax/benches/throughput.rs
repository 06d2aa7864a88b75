//! Lexing, parsing and formatting throughput over the real-world corpus, single-threaded.
//!
//! `cargo bench -p nacl-syntax` prints MB/s for each stage: the best of several rounds over all
//! files held in memory (so disk speed does not count), and the time to format a 1 MB file.
//! `NACL_BENCH_ROUNDS` sets the rounds (default 3).

use std::time::{Duration, Instant};

// The nacl-ls binary uses mimalloc too.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Runs `f` `rounds` times and returns the fastest time.
fn best_of(rounds: usize, mut f: impl FnMut() -> usize) -> Duration {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .min()
        .unwrap_or(Duration::ZERO)
}

fn report(name: &str, bytes: usize, time: Duration) {
    println!("{:<48} {:>8.0}ms {:>10.1}", name, time.as_secs_f64() * 1e3, bytes as f64 / 1e6 / time.as_secs_f64());
}

fn main() {
    let rounds: usize = std::env::var("NACL_BENCH_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    let texts: Vec<String> = nacl_corpus::workspaces()
        .iter()
        .flat_map(|w| nacl_corpus::nacl_files(w))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let tokens: usize = texts.iter().map(|t| nacl_syntax::nacl::lexer::lex(t).tokens.len()).sum();
    println!("corpus: {} files, {:.1} MB, {} tokens", texts.len(), bytes as f64 / 1e6, tokens);
    println!("{:<48} {:>10} {:>10}", "stage (single thread, best of rounds)", "time", "MB/s");

    type Stage = (&'static str, fn(&str) -> usize);
    let stages: [Stage; 5] = [
        ("count lines (reference)", |t| t.bytes().filter(|&b| b == b'\n').count()),
        ("lex", |t| nacl_syntax::nacl::lexer::lex(t).tokens.len()),
        ("rowan tree of the tokens, no parsing (floor)", |t| {
            let lexed = nacl_syntax::nacl::lexer::lex(t);
            let mut b = rowan::GreenNodeBuilder::new();
            b.start_node(nacl_syntax::nacl::SyntaxKind::SOURCE_FILE.into());
            let mut at = 0usize;
            for tok in &lexed.tokens {
                let end = at + tok.len as usize;
                b.token(tok.kind.into(), &t[at..end]);
                at = end;
            }
            b.finish_node();
            b.finish().children().len()
        }),
        ("parse (lex + CST + structure checks)", |t| nacl_syntax::nacl::parse(t).errors().len()),
        ("parse + format", |t| nacl_syntax::nacl::format::format(t).len()),
    ];
    for (name, stage) in stages {
        report(name, bytes, best_of(rounds, || texts.iter().map(|t| stage(t)).sum()));
    }

    let parses: Vec<nacl_syntax::nacl::Parse> = texts.iter().map(|t| nacl_syntax::nacl::parse(t)).collect();
    let format_only = best_of(rounds, || {
        texts.iter().zip(&parses).map(|(t, p)| nacl_syntax::nacl::format::format_parsed(t, p).len()).sum()
    });
    report("format an already parsed tree", bytes, format_only);

    // A 1 MB file made of whole corpus files from the largest workspace, in order.
    let mut big = String::new();
    for text in texts.iter().filter(|t| t.ends_with('\n')) {
        if big.len() >= 1 << 20 {
            break;
        }
        big.push_str(text);
    }
    let time = best_of(rounds.max(20), || nacl_syntax::nacl::format::format(&big).len());
    println!("format one {:.2} MB file (parse + format): {:.1} ms", big.len() as f64 / 1e6, time.as_secs_f64() * 1e3);

    // Linear growth: parsing one file of 10x the blocks takes about 10x the time.
    for blocks in [20_000, 200_000] {
        let text = generated(blocks);
        let time = best_of(rounds, || nacl_syntax::nacl::parse(&text).errors().len());
        report(&format!("parse one generated file of {blocks} blocks"), text.len(), time);
    }
}

/// A generated file of `blocks` small instances with distinct names: a hostile shape (one file
/// holding hundreds of thousands of distinct names) whose parse time must grow linearly.
fn generated(blocks: usize) -> String {
    (0..blocks).map(|i| format!("salto.t big{i} {{\n  name = \"value {i}\"\n  n = {i}\n}}\n")).collect()
}
