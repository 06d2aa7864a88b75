//! Lexing and parsing throughput over the real-world corpus, single-threaded.
//!
//! `cargo bench -p nacl-syntax` prints MB/s for each stage: the best of several rounds over all
//! files held in memory (so disk speed does not count). `NACL_BENCH_ROUNDS` sets the rounds.

use std::time::{Duration, Instant};

fn main() {
    let rounds: usize = std::env::var("NACL_BENCH_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    let texts: Vec<String> = nacl_corpus::workspaces()
        .iter()
        .flat_map(|w| nacl_corpus::nacl_files(w))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let tokens: usize = texts.iter().map(|t| nacl_syntax::lexer::lex(t).tokens.len()).sum();
    println!("corpus: {} files, {:.1} MB, {} tokens", texts.len(), bytes as f64 / 1e6, tokens);
    println!("{:<46} {:>10} {:>10}", "stage (single thread, best of rounds)", "time", "MB/s");

    type Stage = (&'static str, fn(&str) -> usize);
    let stages: [Stage; 4] = [
        ("count lines (reference)", |t| t.bytes().filter(|&b| b == b'\n').count()),
        ("lex", |t| nacl_syntax::lexer::lex(t).tokens.len()),
        ("rowan tree of the tokens, no parsing (floor)", |t| {
            let lexed = nacl_syntax::lexer::lex(t);
            let mut b = rowan::GreenNodeBuilder::new();
            b.start_node(nacl_syntax::SyntaxKind::SOURCE_FILE.into());
            let mut at = 0usize;
            for tok in &lexed.tokens {
                let end = at + tok.len as usize;
                b.token(tok.kind.into(), &t[at..end]);
                at = end;
            }
            b.finish_node();
            b.finish().children().len()
        }),
        ("parse (lex + CST + structure checks)", |t| nacl_syntax::parse(t).errors().len()),
    ];
    for (name, stage) in stages {
        let best = (0..rounds)
            .map(|_| {
                let start = Instant::now();
                let sink: usize = texts.iter().map(|t| stage(t)).sum();
                std::hint::black_box(sink);
                start.elapsed()
            })
            .min()
            .unwrap_or(Duration::ZERO);
        println!("{:<46} {:>8.0}ms {:>10.1}", name, best.as_secs_f64() * 1e3, bytes as f64 / 1e6 / best.as_secs_f64());
    }
}
