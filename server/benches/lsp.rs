//! The server as an editor sees it, on the largest corpus workspace, over stdio: time from
//! `initialized` to the end of indexing (every file checked and its diagnostics published),
//! latency from a `didChange` to that document's diagnostics, hover, definition, references,
//! completion and semantic-token latency, and the server's peak memory.
//!
//! `cargo bench -p nacl-ls --bench lsp`.

#[allow(dead_code)] // Shared with the end-to-end tests, which use all of it.
#[path = "../../tests/support/lsp_client.rs"]
mod lsp_client;

use lsp_client::{Client, file_uri as uri};
use serde_json::json;
use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

const EDITS: usize = 200;
const READS: usize = 200;

/// Median and 99th percentile, in milliseconds.
fn percentiles(mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    (at(0.5), at(0.99))
}

/// Peak resident memory of a process in bytes (Linux), or 0 when unknown.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// The largest corpus workspace by bytes of NaCl, and that size.
fn largest_workspace() -> (PathBuf, u64) {
    nacl_corpus::workspaces()
        .into_iter()
        .map(|dir| {
            let bytes = nacl_corpus::nacl_files(&dir).iter().filter_map(|f| f.metadata().ok()).map(|m| m.len()).sum();
            (dir, bytes)
        })
        .max_by_key(|(_, bytes)| *bytes)
        .expect("the corpus has workspaces")
}

/// Where the benchmark works: an instance file with a string value on a line of its own (where
/// the edits go) and the instance's type in its header (where hover and definition point).
struct Target {
    path: PathBuf,
    text: String,
    edit: (usize, usize),
    header: (usize, usize),
}

fn pick_file(dir: &Path) -> Option<Target> {
    nacl_corpus::nacl_files(dir).into_iter().find_map(|path| {
        let text = std::fs::read_to_string(&path).ok()?;
        let header = text.lines().position(|l| !l.starts_with("type ") && l.trim_end().ends_with('{'))?;
        let edit = text.lines().enumerate().skip(header + 1).find_map(|(i, l)| {
            let at = l.find(" = \"")?;
            (l.ends_with('"') && l.len() < 200).then_some((i, at + 4))
        })?;
        Some(Target { path, text, edit, header: (header, 2) })
    })
}

/// The median and p99 latency in milliseconds of [`READS`] identical requests.
fn timed(client: &mut Client, method: &str, params: &serde_json::Value) -> (f64, f64) {
    let times: Vec<Duration> = (0..READS)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(client.request(method, params.clone()));
            started.elapsed()
        })
        .collect();
    percentiles(times)
}

fn main() {
    let (dir, bytes) = largest_workspace();
    let dir = dir.canonicalize().unwrap_or(dir);
    let root = nacl_analysis::layout::find_root(&dir);
    let Some(target) = pick_file(&dir) else {
        println!("no instance file with a string value in {}", dir.display());
        return;
    };
    let mut client = Client::start(env!("CARGO_BIN_EXE_nacl-ls"));
    client.request(
        "initialize",
        json!({ "processId": null, "rootUri": uri(&root), "capabilities": { "window": { "workDoneProgress": true } } }),
    );
    let start = Instant::now();
    client.notify("initialized", json!({}));
    client.wait_for(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end");
    let indexed = start.elapsed();

    let file_uri = uri(&target.path);
    client.open(&file_uri, 1, &target.text);
    client.diagnostics(&file_uri, 1);
    let mut edits = Vec::with_capacity(EDITS);
    for i in 0..EDITS {
        let version = i as i64 + 2;
        let at = json!({ "line": target.edit.0, "character": target.edit.1 });
        let started = Instant::now();
        client.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": file_uri, "version": version }, "contentChanges": [{ "range": { "start": at, "end": at }, "text": "e" }] }),
        );
        client.diagnostics(&file_uri, version);
        edits.push(started.elapsed());
    }
    let position = json!({ "line": target.header.0, "character": target.header.1 });
    let params =
        json!({ "textDocument": { "uri": file_uri }, "position": position, "context": { "includeDeclaration": true } });
    let hover = timed(&mut client, "textDocument/hover", &params);
    let definition = timed(&mut client, "textDocument/definition", &params);
    let references = timed(&mut client, "textDocument/references", &params);
    let symbols: Vec<Duration> = (0..50)
        .map(|i| {
            let started = Instant::now();
            // Queries typed one letter at a time, as an editor sends them.
            let query = &"accountcustom"[..1 + i % 12];
            std::hint::black_box(client.request("workspace/symbol", json!({ "query": query })));
            started.elapsed()
        })
        .collect();
    let symbols = percentiles(symbols);
    // Completion of a key in the instance body (the edited line's start) and of a type name in
    // the header (after the adapter's `.`, where every type of the adapter is offered).
    let completion_at = |client: &mut Client, line: usize, character: usize| {
        let params =
            json!({ "textDocument": { "uri": file_uri }, "position": { "line": line, "character": character } });
        timed(client, "textDocument/completion", &params)
    };
    let key_completion = completion_at(&mut client, target.edit.0, 2);
    let header = target.text.lines().nth(target.header.0).unwrap_or_default();
    let type_completion = completion_at(&mut client, target.header.0, header.find('.').map_or(0, |d| d + 1));
    // Semantic tokens of the workspace's largest file.
    let largest = nacl_corpus::nacl_files(&dir).into_iter().max_by_key(|f| f.metadata().map(|m| m.len()).unwrap_or(0));
    let largest = largest.and_then(|path| Some((std::fs::read_to_string(&path).ok()?, path)));
    let (tokens, largest_bytes) = match &largest {
        Some((text, path)) => {
            let large_uri = uri(path);
            client.open(&large_uri, 1, text);
            let params = json!({ "textDocument": { "uri": large_uri } });
            (timed(&mut client, "textDocument/semanticTokens/full", &params), text.len())
        }
        None => ((0.0, 0.0), 0),
    };
    let peak = peak_rss(client.child.id());
    client.shutdown();

    let (edit_median, edit_p99) = percentiles(edits);
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    println!("nacl-ls over stdio on {name} ({:.1} MB of NaCl), {}", bytes as f64 / 1e6, target.path.display());
    println!("| measure | value | goal |");
    println!("|---|---|---|");
    println!("| initialized to all workspace diagnostics | {:.2} s | < 1 s |", indexed.as_secs_f64());
    println!(
        "| didChange to diagnostics, median / p99 ({EDITS} edits) | {edit_median:.2} / {edit_p99:.2} ms | <= 10 / 30 ms |"
    );
    println!("| hover, median / p99 ({READS} requests) | {:.2} / {:.2} ms | p99 <= 5 ms |", hover.0, hover.1);
    println!(
        "| definition, median / p99 ({READS} requests) | {:.2} / {:.2} ms | p99 <= 5 ms |",
        definition.0, definition.1
    );
    println!(
        "| references to the instance's type, median / p99 ({READS} requests) | {:.2} / {:.2} ms | <= 50 ms |",
        references.0, references.1
    );
    println!(
        "| completion of a key, median / p99 ({READS} requests) | {:.2} / {:.2} ms | p99 <= 10 ms |",
        key_completion.0, key_completion.1
    );
    println!(
        "| completion of a type name, median / p99 ({READS} requests) | {:.2} / {:.2} ms | p99 <= 10 ms |",
        type_completion.0, type_completion.1
    );
    println!(
        "| semantic tokens of the largest file ({:.1} MB), median / p99 ({READS} requests) | {:.2} / {:.2} ms | p99 <= 10 ms for 1 MB |",
        largest_bytes as f64 / 1e6,
        tokens.0,
        tokens.1
    );
    println!("| workspace symbols, median / p99 (50 queries) | {:.2} / {:.2} ms | < 20 ms |", symbols.0, symbols.1);
    println!("| peak RSS | {:.0} MB ({:.1}x the NaCl bytes) | <= 3x |", peak as f64 / 1e6, peak as f64 / bytes as f64);
}
