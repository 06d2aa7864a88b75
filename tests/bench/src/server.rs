//! The server as an editor sees it, over stdio: time from `initialized` to the end of indexing
//! (every file checked and its diagnostics published), latency from a `didChange` to that
//! document's diagnostics, and the latency of hover, definition, references, completion,
//! workspace symbols and semantic tokens; the server's peak memory.

#[allow(dead_code)] // Shared with the end-to-end tests.
#[path = "../../support/lsp_client.rs"]
mod lsp_client;

use lsp_client::{Client, file_uri as uri};
use serde_json::{Value, json};
use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

/// Edits timed per workspace.
const EDITS: usize = 100;
/// Requests timed per kind of request.
const READS: usize = 100;

/// Median and 99th percentile, in milliseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct Latency {
    /// The median.
    pub median: f64,
    /// The 99th percentile.
    pub p99: f64,
}

impl Latency {
    fn of(mut times: Vec<Duration>) -> Latency {
        times.sort();
        if times.is_empty() {
            return Latency::default();
        }
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
        Latency { median: at(0.5), p99: at(0.99) }
    }
}

/// Every server figure of one workspace.
#[derive(Debug, Clone, Default)]
pub struct ServerFigures {
    /// `initialized` to the end of indexing, in seconds, without the cache.
    pub indexed: f64,
    /// The same for a restart on the unchanged workspace, with the cache.
    pub warm_start: f64,
    /// `didChange` to the document's diagnostics.
    pub edit: Latency,
    /// The same for an HCL document (the largest file of the HCL corpus) opened in the workspace.
    pub hcl_edit: Latency,
    /// An edit of an hcldec spec to the new diagnostics of an open file it describes (the largest
    /// Packer template of the HCL corpus, with `tests/hcldec/specs/packer.hcldec`).
    pub spec_edit: Latency,
    /// Hover on an instance's type label.
    pub hover: Latency,
    /// Definition from there.
    pub definition: Latency,
    /// References to that type.
    pub references: Latency,
    /// Completion of a key in the instance's body.
    pub completion: Latency,
    /// Completion of a type name in the header.
    pub type_completion: Latency,
    /// Completion of a reference after `adapter.` in a value: every type of the adapter matches.
    pub reference_completion: Latency,
    /// Workspace symbols, typed one letter at a time.
    pub symbols: Latency,
    /// Semantic tokens of the workspace's largest file, and its size in bytes.
    pub tokens: (Latency, usize),
    /// A document of [`LARGE_DOCUMENT`] bytes or more.
    pub large: LargeDocument,
    /// The server's peak resident memory, in bytes, before the large document is opened.
    pub peak: u64,
}

/// The figures of a document of [`LARGE_DOCUMENT`] bytes or more ([`large_document`]).
#[derive(Debug, Clone, Default)]
pub struct LargeDocument {
    /// Its semantic tokens.
    pub tokens: Latency,
    /// `didChange` (typing into a string value) to its diagnostics.
    pub edits: Latency,
    /// `didChange` (the same typing) to the answer of a hover on the edited line's key, sent
    /// right after it: the first request that reads the document's syntax tree after an edit.
    pub hover_after_edit: Latency,
    /// `didChange` (typing into that line's key, after its first letter) to its diagnostics.
    pub key_edits: Latency,
}

/// Where the benchmark works: an instance file with a string value on a line of its own (where
/// the edits go) and the instance's type in its header (where hover and definition point).
struct Target {
    path: PathBuf,
    text: String,
    edit: (usize, usize),
    header: usize,
}

fn pick_file(files: &[PathBuf]) -> Option<Target> {
    files.iter().find_map(|path| {
        let text = std::fs::read_to_string(path).ok()?;
        let header = text.lines().position(|l| starts_an_instance(l) && l.trim_end().ends_with('{'))?;
        let edit = string_value(&text, header + 1)?;
        Some(Target { path: path.clone(), text, edit, header })
    })
}

/// Whether `line` may be an instance's header: a top-level line that is not a type's.
fn starts_an_instance(line: &str) -> bool {
    !line.starts_with([' ', '\t']) && !line.starts_with("type ")
}

/// Where the edits of a benchmark go in `text`: just inside the first string value written on a
/// line of its own (`key = "..."`, a short line), from line `from` on; as (line, character).
fn string_value(text: &str, from: usize) -> Option<(usize, usize)> {
    text.lines().enumerate().skip(from).find_map(|(i, l)| {
        let at = l.find(" = \"")?;
        (l.ends_with('"') && l.len() < 200).then_some((i, at + 4))
    })
}

/// Starts `server` on the workspace at `root` with more environment variables; the seconds from
/// `initialized` to the end of indexing (all diagnostics published), and the client.
fn start_indexed(server: &Path, root: &Path, env: &[(&str, &str)]) -> (f64, Client) {
    let mut client = Client::start_with_env(&server.to_string_lossy(), env);
    client.request(
        "initialize",
        json!({ "processId": null, "rootUri": uri(root), "capabilities": { "window": { "workDoneProgress": true } } }),
    );
    let start = Instant::now();
    client.notify("initialized", json!({}));
    client.wait_within(Duration::from_secs(1800), |m| {
        m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end"
    });
    (client.answered_after(start).as_secs_f64(), client)
}

/// Measures the server binary `server` on the workspace at `root`; `None` when it has no file to
/// edit.
pub fn measure(server: &Path, root: &Path, files: &[PathBuf]) -> Option<ServerFigures> {
    let target = pick_file(files)?;
    // A restart with the cache: one start writes it (not timed), the next reads it.
    let cache = crate::bench_cache();
    let cache_env = [("NACL_LS_CACHE_DIR", cache.to_str().unwrap_or_default())];
    let _ = std::fs::remove_dir_all(&cache);
    start_indexed(server, root, &cache_env).1.shutdown();
    let (warm_start, warm) = start_indexed(server, root, &cache_env);
    warm.shutdown();
    // The cold start and every other figure without the cache.
    let (indexed, mut client) = start_indexed(server, root, &[("NACL_LS_CACHE_DIR", "")]);

    let file_uri = uri(&target.path);
    client.open(&file_uri, 1, &target.text);
    client.diagnostics(&file_uri, 1);
    let edits = time_edits(&mut client, &file_uri, target.edit, 2);
    let hcl_edit = hcl_edits(&mut client, root);
    let spec_edit = spec_edits(&mut client, root);
    let header = target.text.lines().nth(target.header).unwrap_or_default().to_owned();
    let position = json!({ "line": target.header, "character": 2 });
    let params =
        json!({ "textDocument": { "uri": file_uri }, "position": position, "context": { "includeDeclaration": true } });
    // The edits above leave a whole-workspace check to run in the background (seconds at 1 GB):
    // `NACL_LS_BENCH_SETTLE=SECONDS` waits for it before the requests below are timed, which
    // otherwise share the cores with it for as long as it runs.
    if let Some(settle) = std::env::var("NACL_LS_BENCH_SETTLE").ok().and_then(|s| s.parse().ok()) {
        std::thread::sleep(std::time::Duration::from_secs(settle));
    }
    let hover = timed(&mut client, "textDocument/hover", &params);
    let definition = timed(&mut client, "textDocument/definition", &params);
    let references = timed(&mut client, "textDocument/references", &params);
    // Queries typed one letter at a time, as an editor sends them: the type's name.
    let type_name = header.split(['.', ' ']).nth(1).unwrap_or("a").to_lowercase();
    let symbols = Latency::of(
        (0..50)
            .map(|i| {
                let query: String = type_name.chars().take(1 + i % type_name.chars().count().max(1)).collect();
                let started = Instant::now();
                std::hint::black_box(client.request("workspace/symbol", json!({ "query": query })));
                client.answered_after(started)
            })
            .collect(),
    );
    let completion_at = |client: &mut Client, line: usize, character: usize| {
        let params =
            json!({ "textDocument": { "uri": file_uri }, "position": { "line": line, "character": character } });
        timed(client, "textDocument/completion", &params)
    };
    let completion = completion_at(&mut client, target.edit.0, 2);
    let type_completion = completion_at(&mut client, target.header, header.find('.').map_or(0, |d| d + 1));
    // A new attribute after the header, `zzReference = adapter.`, completed at its end.
    let adapter = header.split('.').next().unwrap_or_default();
    let line = format!("  zzReference = {adapter}.");
    let at = json!({ "line": target.header, "character": header.chars().count() });
    let version = EDITS as i64 + 2;
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": file_uri, "version": version }, "contentChanges": [{ "range": { "start": at, "end": at }, "text": format!("\n{line}") }] }),
    );
    client.diagnostics(&file_uri, version);
    let reference_completion = completion_at(&mut client, target.header + 1, line.chars().count());
    let largest = files.iter().max_by_key(|f| f.metadata().map(|m| m.len()).unwrap_or(0));
    let largest = largest.and_then(|path| Some((std::fs::read_to_string(path).ok()?, path)));
    let tokens = match &largest {
        Some((text, path)) => {
            let large_uri = uri(path);
            client.open(&large_uri, 1, text);
            let params = json!({ "textDocument": { "uri": large_uri } });
            (timed(&mut client, "textDocument/semanticTokens/full", &params), text.len())
        }
        None => (Latency::default(), 0),
    };
    // The peak before the large document, which is not part of the workspace.
    let peak = nacl_corpus::peak_rss(client.child.id());
    let large = largest.and_then(|(text, _)| large_document(&mut client, root, &text)).unwrap_or_default();
    client.shutdown();
    Some(ServerFigures {
        indexed,
        warm_start,
        edit: Latency::of(edits),
        hcl_edit,
        spec_edit,
        hover,
        definition,
        references,
        completion,
        type_completion,
        reference_completion,
        symbols,
        tokens,
        large,
        peak,
    })
}

/// Opens the largest file of the HCL corpus as a document of the workspace at `root` and times
/// [`EDITS`] edits to its diagnostics: typing into a string value.
fn hcl_edits(client: &mut Client, root: &Path) -> Latency {
    let largest = nacl_corpus::hcl_corpus()
        .into_iter()
        .filter(|f| f.parse_ok)
        .max_by_key(|f| f.path.metadata().map(|m| m.len()).unwrap_or(0));
    let Some(text) = largest.and_then(|f| std::fs::read_to_string(f.path).ok()) else { return Latency::default() };
    let Some((line, character)) = string_value(&text, 0) else { return Latency::default() };
    let file_uri = uri(&root.join("nacl-ls-bench-edits.hcl"));
    client.open(&file_uri, 1, &text);
    client.diagnostics(&file_uri, 1);
    let times = time_edits(client, &file_uri, (line, character), 2);
    client.notify("textDocument/didClose", json!({ "textDocument": { "uri": file_uri } }));
    Latency::of(times)
}

/// Opens a spec and a Packer template it describes (by its directive) in the workspace at `root`,
/// then edits the spec [`EDITS`] times, timing each from the change to the template's new
/// diagnostics.
fn spec_edits(client: &mut Client, root: &Path) -> Latency {
    let spec_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hcldec/specs/packer.hcldec");
    let Ok(spec) = std::fs::read_to_string(spec_path) else { return Latency::default() };
    let largest = nacl_corpus::hcl_corpus()
        .into_iter()
        .filter(|f| f.parse_ok && f.path.to_string_lossy().ends_with(".pkr.hcl"))
        .max_by_key(|f| f.path.metadata().map(|m| m.len()).unwrap_or(0));
    let Some(template) = largest.and_then(|f| std::fs::read_to_string(f.path).ok()) else { return Latency::default() };
    let (spec_uri, described_uri) =
        (uri(&root.join("nacl-ls-bench.hcldec")), uri(&root.join("nacl-ls-bench-described.pkr.hcl")));
    client.open(&spec_uri, 1, &spec);
    client.diagnostics(&spec_uri, 1);
    client.open(&described_uri, 1, &format!("# hcldec-spec: nacl-ls-bench.hcldec\n{template}"));
    client.diagnostics(&described_uri, 1);
    // Each edit renames the spec's `build` blocks and back, so that the template's diagnostics
    // change (the server publishes only changes).
    let renamed = spec.replace("block_list \"build\"", "block_list \"builds\"");
    let times = (0..EDITS)
        .map(|i| {
            let text = if i % 2 == 0 { &renamed } else { &spec };
            let started = Instant::now();
            client.notify(
                "textDocument/didChange",
                json!({ "textDocument": { "uri": spec_uri, "version": i as i64 + 2 }, "contentChanges": [{ "text": text }] }),
            );
            client.diagnostics(&described_uri, 1);
            client.answered_after(started)
        })
        .collect();
    for closed in [&described_uri, &spec_uri] {
        client.notify("textDocument/didClose", json!({ "textDocument": { "uri": closed } }));
    }
    Latency::of(times)
}

/// Types [`EDITS`] letters at `(line, character)` of the open document `file_uri` (at version
/// `first - 1`), one `didChange` each, timing each from the change to the document's new
/// diagnostics.
fn time_edits(client: &mut Client, file_uri: &str, (line, character): (usize, usize), first: i64) -> Vec<Duration> {
    (0..EDITS)
        .map(|i| {
            let version = i as i64 + first;
            let started = Instant::now();
            type_a_letter(client, file_uri, version, (line, character));
            client.diagnostics(file_uri, version);
            client.answered_after(started)
        })
        .collect()
}

/// Types `e` at `(line, character)` of the document at `file_uri`, making it `version`.
fn type_a_letter(client: &mut Client, file_uri: &str, version: i64, (line, character): (usize, usize)) {
    let at = json!({ "line": line, "character": character });
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": file_uri, "version": version }, "contentChanges": [{ "range": { "start": at, "end": at }, "text": "e" }] }),
    );
}

/// The least size of the large document ([`large_document`]): real workspaces have NaCl files of
/// several MB (Salesforce profiles), larger than any of the corpus.
const LARGE_DOCUMENT: usize = 1 << 20;

/// Opens a NaCl document of at least [`LARGE_DOCUMENT`] bytes with no file on disk in the
/// workspace at `root`: copies of `text` (the workspace's largest file), each instance renamed.
/// Times its semantic tokens, then [`EDITS`] edits to its diagnostics, then as many edits each
/// followed by a hover, then as many edits of a key, and closes it; `None` when `text` has no
/// string value to edit.
fn large_document(client: &mut Client, root: &Path, text: &str) -> Option<LargeDocument> {
    let mut large = String::with_capacity(LARGE_DOCUMENT + text.len() * 2);
    for copy in 0..LARGE_DOCUMENT.div_ceil(text.len().max(1)) {
        for line in text.lines() {
            let head = line.trim_end().strip_suffix('{').filter(|_| starts_an_instance(line));
            match head {
                Some(head) => large.push_str(&format!("{}_copy{copy} {{", head.trim_end())),
                None => large.push_str(line),
            }
            large.push('\n');
        }
    }
    let edit = string_value(&large, 0)?;
    let large_uri = uri(&root.join("nacl-ls-bench-large.nacl"));
    client.open(&large_uri, 1, &large);
    client.diagnostics(&large_uri, 1);
    let tokens = timed(client, "textDocument/semanticTokens/full", &json!({ "textDocument": { "uri": large_uri } }));
    let edits = Latency::of(time_edits(client, &large_uri, edit, 2));
    let key = large.lines().nth(edit.0).map_or(0, |line| line.len() - line.trim_start().len());
    let hover_after_edit = Latency::of(time_hovers_after_edits(client, &large_uri, edit, key, EDITS as i64 + 2));
    let key_edits = Latency::of(time_edits(client, &large_uri, (edit.0, key + 1), 2 * EDITS as i64 + 2));
    client.notify("textDocument/didClose", json!({ "textDocument": { "uri": large_uri } }));
    Some(LargeDocument { tokens, edits, hover_after_edit, key_edits })
}

/// [`EDITS`] edits at `(line, character)` of the document at `file_uri` (whose version is
/// `version - 1`), each followed at once by a hover at `key` on the same line: the time from the
/// change to the hover's answer. Each edit's diagnostics are awaited before the next edit.
fn time_hovers_after_edits(
    client: &mut Client,
    file_uri: &str,
    (line, character): (usize, usize),
    key: usize,
    version: i64,
) -> Vec<Duration> {
    (0..EDITS as i64)
        .map(|i| {
            let version = version + i;
            client.received.clear();
            let started = Instant::now();
            type_a_letter(client, file_uri, version, (line, character));
            std::hint::black_box(client.request(
                "textDocument/hover",
                json!({ "textDocument": { "uri": file_uri }, "position": { "line": line, "character": key } }),
            ));
            let elapsed = client.answered_after(started);
            // The diagnostics may have come before the hover's answer.
            let published = |m: &Value| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == file_uri
                    && m["params"]["version"] == version
            };
            if !client.received.iter().any(published) {
                client.wait_for(published);
            }
            elapsed
        })
        .collect()
}

/// The latency of [`READS`] identical requests.
fn timed(client: &mut Client, method: &str, params: &Value) -> Latency {
    Latency::of(
        (0..READS)
            .map(|_| {
                let started = Instant::now();
                std::hint::black_box(client.request(method, params.clone()));
                client.answered_after(started)
            })
            .collect(),
    )
}
