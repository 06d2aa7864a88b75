//! Hostile input for `nacl-ls serve`: malformed and misplaced messages, files no workspace should
//! hold, and thousands of edits sent without waiting with cancellations in between. After each
//! scenario the server must still answer, and its text of every open document (the
//! `nacl/documentText` request) must equal the client's.

#[allow(dead_code)] // Shared with the benchmarks, which time answers by when they arrived.
#[path = "support/lsp_client.rs"]
mod lsp_client;

use lsp_client::{Client, file_uri as uri};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn start() -> Client {
    Client::start(env!("CARGO_BIN_EXE_nacl-ls"))
}

/// A server initialized on `dir` (with progress reports), once it has indexed it.
fn start_indexed(dir: &Path) -> Client {
    let mut client = start();
    client.request(
        "initialize",
        json!({ "processId": null, "rootUri": uri(dir), "capabilities": { "window": { "workDoneProgress": true } } }),
    );
    client.notify("initialized", json!({}));
    client.wait_for(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end");
    client
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nacl-ls-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir.canonicalize().expect("scratch folder")
}

fn codes(diagnostics: &[Value]) -> Vec<String> {
    diagnostics.iter().map(|d| d["code"].as_str().unwrap_or_default().to_owned()).collect()
}

/// The server's text of an open document.
fn server_text(client: &mut Client, uri: &str) -> String {
    let answer = client.request("nacl/documentText", json!({ "uri": uri }));
    answer["text"].as_str().unwrap_or_default().to_owned()
}

/// Proves the server still serves: a healthy document opens, gets its diagnostics and an
/// outline, and the server holds exactly its text.
fn assert_serving(client: &mut Client, dir: &Path) {
    let file = dir.join("healthy.nacl");
    let file_uri = uri(&file);
    let text = "salto.t healthy {\n  name = \"still here\"\n}\n";
    client.open(&file_uri, 1, text);
    let _ = client.diagnostics(&file_uri, 1);
    let symbols = client.request("textDocument/documentSymbol", json!({ "textDocument": { "uri": file_uri } }));
    assert_eq!(symbols.as_array().map(Vec::len), Some(1), "{symbols}");
    assert_eq!(server_text(client, &file_uri), text);
    client.notify("textDocument/didClose", json!({ "textDocument": { "uri": file_uri } }));
}

#[test]
fn messages_out_of_place_or_out_of_shape_are_refused_and_the_server_goes_on() {
    let dir = scratch("messages");
    let mut client = start();
    // Before `initialize`.
    let early = client.respond(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri(&dir.join("a.nacl")) }, "position": { "line": 0, "character": 0 } }),
    );
    assert_eq!(early["error"]["code"], -32002, "{early}");
    client.initialize(json!(uri(&dir)), json!({}));
    // A body that is not JSON, then a message that is not JSON-RPC.
    client.send_raw(b"Content-Length: 5\r\n\r\n{oops");
    client.send(json!({ "hello": "world" }));
    // Wrong parameter shapes, unknown methods, unknown notifications.
    let wrong = client.respond("textDocument/hover", json!({ "textDocument": 5 }));
    assert_eq!(wrong["error"]["code"], -32602, "{wrong}");
    let wrong = client.respond("nacl/documentText", json!([1, 2, 3]));
    assert_eq!(wrong["error"]["code"], -32602, "{wrong}");
    let unknown = client.respond("nacl/noSuchMethod", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    client.notify("nacl/noSuchNotification", json!({ "x": 1 }));
    client.notify("textDocument/didChange", json!({ "textDocument": { "uri": uri(&dir.join("never-opened.nacl")), "version": 2 }, "contentChanges": [{ "text": "x" }] }));
    client.notify("textDocument/didOpen", json!({ "textDocument": { "uri": 17 } }));
    // Edits with ranges past the end of the document are clamped, never applied out of bounds.
    let file_uri = uri(&dir.join("edge.nacl"));
    client.open(&file_uri, 1, "ab\n");
    client.notify("textDocument/didChange", json!({ "textDocument": { "uri": file_uri, "version": 2 }, "contentChanges": [{ "range": { "start": { "line": 9, "character": 9 }, "end": { "line": 10, "character": 0 } }, "text": "Z" }] }));
    client.notify("textDocument/didChange", json!({ "textDocument": { "uri": file_uri, "version": 3 }, "contentChanges": [{ "range": { "start": { "line": 0, "character": 99 }, "end": { "line": 0, "character": 1 } }, "text": "-" }] }));
    // (A reversed range replaces nothing: the text goes in at its start.)
    assert_eq!(server_text(&mut client, &file_uri), "ab-\nZ");
    assert_serving(&mut client, &dir);
    // After `shutdown`, requests are refused; `exit` then ends the process cleanly.
    client.request("shutdown", Value::Null);
    let late = client.respond("textDocument/documentSymbol", json!({ "textDocument": { "uri": file_uri } }));
    assert_eq!(late["error"]["code"], -32600, "{late}");
    client.notify("exit", Value::Null);
    let status = client.child.wait().expect("the server exits");
    assert!(status.success(), "{status}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn files_no_workspace_should_hold_get_diagnostics_not_crashes() {
    let dir = scratch("files");
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes).expect("write");
    write("invalid-utf8.nacl", b"salto.t a {\n  name = \"caf\xe9\"\n}\n");
    write("binary.nacl", &(0..=255u8).cycle().take(4096).collect::<Vec<u8>>());
    let deep = 10_000;
    write("deep.nacl", format!("salto.t d {{\n  x = {}{}\n}}\n", "[".repeat(deep), "]".repeat(deep)).as_bytes());
    write(
        "deep-blocks.nacl",
        format!("type salto.t {{\n{}{}}}\n", "a b {\n".repeat(deep), "}\n".repeat(deep)).as_bytes(),
    );
    let long_line = format!("salto.t long {{\n  x = \"{}\"\n}}\n", "x".repeat(10 << 20));
    write("long-line.nacl", long_line.as_bytes());
    // 50 MB in 5,000 instances of 100 attributes each.
    let mut big = String::with_capacity(51 << 20);
    let mut i = 0;
    while big.len() < 50 << 20 {
        big.push_str(&format!("salto.t big{i} {{\n"));
        for key in 0..100 {
            big.push_str(&format!("  key{key} = \"{}\"\n", "v".repeat(90)));
        }
        big.push_str("}\n");
        i += 1;
    }
    write("big.nacl", big.as_bytes());
    write("escapes.nacl", b"salto.t e {\n  a = file(\"/etc/passwd\")\n  b = file(\"../../../../etc/passwd\")\n}\n");
    // A link to its own folder: discovery must not loop.
    #[cfg(unix)]
    std::os::unix::fs::symlink(&dir, dir.join("loop")).expect("symlink");

    let mut client = start();
    client.request(
        "initialize",
        json!({ "processId": null, "rootUri": uri(&dir), "capabilities": { "window": { "workDoneProgress": true } } }),
    );
    client.notify("initialized", json!({}));
    let mut published: std::collections::HashMap<String, Vec<String>> = Default::default();
    loop {
        let m = client.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                || (m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end")
        });
        if m["method"] == "$/progress" {
            break;
        }
        let file = m["params"]["uri"].as_str().unwrap_or_default().rsplit('/').next().unwrap_or_default().to_owned();
        published.insert(file, codes(m["params"]["diagnostics"].as_array().map_or(&[][..], Vec::as_slice)));
    }
    let has = |file: &str, code: &str| published.get(file).is_some_and(|c| c.iter().any(|c| c == code));
    assert!(has("invalid-utf8.nacl", "E0002"), "{published:?}");
    assert!(published.get("binary.nacl").is_some_and(|c| !c.is_empty()), "{published:?}");
    assert!(has("deep.nacl", "E0212") && has("deep-blocks.nacl", "E0212"), "{published:?}");
    assert_eq!(published.get("escapes.nacl"), Some(&vec!["E0607".to_owned(), "E0607".to_owned()]));
    assert!(!published.contains_key("long-line.nacl") && !published.contains_key("big.nacl"), "{published:?}");

    // A file deleted while it is open: the editor's buffer wins until it is closed.
    let open = dir.join("deep.nacl");
    let open_uri = uri(&open);
    let text = std::fs::read_to_string(&open).expect("read");
    client.open(&open_uri, 1, &text);
    assert_eq!(codes(&client.diagnostics(&open_uri, 1)), ["E0212"]);
    std::fs::remove_file(&open).expect("delete");
    client.notify("workspace/didChangeWatchedFiles", json!({ "changes": [{ "uri": open_uri, "type": 3 }] }));
    assert_eq!(server_text(&mut client, &open_uri), text);
    client.notify("textDocument/didClose", json!({ "textDocument": { "uri": open_uri } }));
    assert_eq!(client.any_diagnostics(&open_uri), Vec::<Value>::new());
    assert_serving(&mut client, &dir);
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small deterministic random source (xorshift), so a failure can be replayed.
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// The LSP position (UTF-16 columns) of a char index in `text`.
fn position(text: &[char], at: usize) -> Value {
    let (mut line, mut column) = (0, 0);
    for c in &text[..at] {
        if *c == '\n' {
            line += 1;
            column = 0;
        } else {
            column += c.len_utf16();
        }
    }
    json!({ "line": line, "character": column })
}

#[test]
fn five_thousand_edits_with_cancellations_lose_nothing() {
    let dir = scratch("edits");
    let file_uri = uri(&dir.join("edited.nacl"));
    let mut text: Vec<char> = "salto.t a {\n  name = \"x\"\n}\n".chars().collect();
    let mut client = start();
    client.initialize(json!(uri(&dir)), json!({}));
    client.open(&file_uri, 1, &text.iter().collect::<String>());
    let pieces = ["a", "{", "}", "\"", "\n", "é", "😀", " ", " = ", "salto.t.instance.a", "${", "[", "]", "'''\n"];
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let mut pending = Vec::new();
    let mut version = 1;
    for edit in 0..5000 {
        let start = random.below(text.len() + 1);
        let end = (start + random.below(4)).min(text.len());
        let inserted = if random.below(3) == 0 { "" } else { pieces[random.below(pieces.len())] };
        let range = json!({ "start": position(&text, start), "end": position(&text, end) });
        text.splice(start..end, inserted.chars());
        version += 1;
        client.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": file_uri, "version": version }, "contentChanges": [{ "range": range, "text": inserted }] }),
        );
        if edit % 25 == 0 {
            let id = client.next_id;
            client.next_id += 1;
            let method = if edit % 50 == 0 { "textDocument/documentSymbol" } else { "textDocument/foldingRange" };
            client.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": { "textDocument": { "uri": file_uri } } }));
            if edit % 75 == 0 {
                client.notify("$/cancelRequest", json!({ "id": id }));
            }
            pending.push(id);
        }
    }
    // Every request is answered, in any order: with a result, as cancelled, or as overtaken by an edit.
    // The diagnostics of the last version may come before the last answer: watch for both.
    let mut pending: std::collections::HashSet<i64> = pending.into_iter().collect();
    let mut after_edits = None;
    while !pending.is_empty() || after_edits.is_none() {
        let message = client.wait_for(|m| {
            m["id"].as_i64().is_some_and(|id| pending.contains(&id))
                || (m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == version)
        });
        if message.get("method").is_some() {
            after_edits = message["params"]["diagnostics"].as_array().cloned();
            continue;
        }
        pending.remove(&message["id"].as_i64().unwrap_or_default());
        let code = &message["error"]["code"];
        assert!(message.get("result").is_some() || *code == -32800 || *code == -32801, "{message}");
    }
    let expected: String = text.iter().collect();
    assert_eq!(server_text(&mut client, &file_uri), expected, "the server's text differs from the client's");
    let after_edits = after_edits.unwrap_or_default();
    client.shutdown();

    // The edited document is analysed exactly as the same text opened from scratch.
    let mut fresh = start();
    fresh.initialize(json!(uri(&dir)), json!({}));
    fresh.open(&file_uri, 1, &expected);
    assert_eq!(fresh.diagnostics(&file_uri, 1), after_edits);
    fresh.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_storm_of_static_file_events_is_applied_in_time_proportional_to_it() {
    let dir = scratch("static-storm");
    std::fs::create_dir_all(dir.join("salto.config")).expect("dir");
    for folder in 0..100 {
        let sub = dir.join(format!("static-resources/f{folder}"));
        std::fs::create_dir_all(&sub).expect("dir");
        for file in 0..200 {
            std::fs::write(sub.join(format!("{file}.txt")), "x").expect("write");
        }
    }
    let instance = dir.join("a.nacl");
    std::fs::write(&instance, "salto.t a {\n  old = file(\"f1/1.txt\")\n  new = file(\"late/4999.txt\")\n}\n")
        .expect("write");
    let mut client = start_indexed(&dir);
    let instance_uri = uri(&instance);
    let text = std::fs::read_to_string(&instance).expect("read");
    client.open(&instance_uri, 1, &text);
    assert_eq!(codes(&client.diagnostics(&instance_uri, 1)), ["E0606"]);

    // A branch switch: 5,000 files appear, each announced in its own notification.
    std::fs::create_dir_all(dir.join("static-resources/late")).expect("dir");
    for file in 0..5000 {
        let path = dir.join(format!("static-resources/late/{file}.txt"));
        std::fs::write(&path, "x").expect("write");
        client.notify("workspace/didChangeWatchedFiles", json!({ "changes": [{ "uri": uri(&path), "type": 1 }] }));
    }
    // The server answers at once (each event re-walked 20,000 files before), and the new file counts.
    let symbols = client.request("textDocument/documentSymbol", json!({ "textDocument": { "uri": instance_uri } }));
    assert_eq!(symbols.as_array().map(Vec::len), Some(1), "{symbols}");
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": instance_uri, "version": 2 }, "contentChanges": [{ "text": text }] }),
    );
    assert_eq!(client.diagnostics(&instance_uri, 2), Vec::<Value>::new());
    // A deleted folder takes its files with it.
    std::fs::remove_dir_all(dir.join("static-resources/late")).expect("rm");
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": uri(&dir.join("static-resources/late")), "type": 3 }] }),
    );
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": instance_uri, "version": 3 }, "contentChanges": [{ "text": text }] }),
    );
    assert_eq!(codes(&client.diagnostics(&instance_uri, 3)), ["E0606"]);
    assert_serving(&mut client, &dir);
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn documents_over_the_size_limit_are_refused_with_a_message() {
    let dir = scratch("huge-open");
    let mut client = start();
    client.initialize(json!(uri(&dir)), json!({}));
    let huge = format!("salto.t big {{\n  x = \"{}\"\n}}\n", "x".repeat(129 << 20));
    let big_uri = uri(&dir.join("big.nacl"));
    client.open(&big_uri, 1, &huge);
    let shown = client.wait_for(|m| m["method"] == "window/showMessage");
    let text = shown["params"]["message"].as_str().unwrap_or_default();
    assert!(text.contains("big.nacl: it is 130 MiB") && text.contains("up to 128 MiB"), "{shown}");
    assert_eq!(server_text(&mut client, &big_uri), "", "the document is not kept");

    // A document that grows past the limit is let go the same way.
    let small_uri = uri(&dir.join("small.nacl"));
    client.open(&small_uri, 1, "salto.t s {\n}\n");
    let _ = client.diagnostics(&small_uri, 1);
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": small_uri, "version": 2 }, "contentChanges": [{ "text": huge }] }),
    );
    let shown = client.wait_for(|m| m["method"] == "window/showMessage");
    assert!(shown["params"]["message"].as_str().is_some_and(|m| m.contains("small.nacl")), "{shown}");
    drop(huge);
    assert_serving(&mut client, &dir);
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_file_checked_out_as_a_link_out_of_the_workspace_is_taken_out_and_not_read() {
    let base = scratch("link-out");
    let dir = base.join("ws");
    std::fs::create_dir_all(dir.join("salto.config")).expect("dir");
    let secret = base.join("secret.nacl");
    std::fs::write(&secret, "salto.t leaked {\n  key = \"TOPSECRET\"\n}\n").expect("write");
    let file = dir.join("a.nacl");
    std::fs::write(&file, "salto.t a {\n}\n").expect("write");
    let mut client = start_indexed(&dir);
    // A document that refers to the file's element and to the secret's.
    let other = uri(&dir.join("b.nacl"));
    let text = "salto.t b {\n  x = salto.t.instance.a\n  y = salto.t.instance.leaked.key\n}\n";
    client.open(&other, 1, text);
    let unresolved = |diagnostics: &[Value]| -> Vec<u64> {
        diagnostics
            .iter()
            .filter(|d| d["code"] == "W0501")
            .filter_map(|d| d["range"]["start"]["line"].as_u64())
            .collect()
    };
    assert_eq!(unresolved(&client.diagnostics(&other, 1)), [2]);
    // A branch switch turns the file into a link to a file beside the workspace.
    std::fs::remove_file(&file).expect("rm");
    std::os::unix::fs::symlink(&secret, &file).expect("link");
    client.notify("workspace/didChangeWatchedFiles", json!({ "changes": [{ "uri": uri(&file), "type": 2 }] }));
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": other, "version": 2 }, "contentChanges": [{ "text": text }] }),
    );
    // The link is taken out of the workspace, and what it leads to, outside it, is not read.
    assert_eq!(unresolved(&client.diagnostics(&other, 2)), [1, 2]);
    assert_serving(&mut client, &dir);
    client.shutdown();
    let _ = std::fs::remove_dir_all(&base);
}

#[cfg(unix)]
#[test]
fn fifos_where_files_are_read_never_stop_the_server() {
    let dir = scratch("fifos");
    std::fs::create_dir_all(dir.join("salto.config/states")).expect("dir");
    for fifo in ["salto.config/envs.nacl", "salto.config/states/prod.jira.jsonl.zip", "pipe.nacl"] {
        let status = std::process::Command::new("mkfifo").arg(dir.join(fifo)).status().expect("mkfifo runs");
        assert!(status.success());
    }
    // Indexing ends (nothing blocks on the FIFOs), and the FIFO named like a NaCl file is reported.
    let mut client = start_indexed(&dir);
    let pipe = uri(&dir.join("pipe.nacl"));
    let is_pipe = |m: &Value| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == pipe;
    let published = match client.received.iter().find(|m| is_pipe(m)) {
        Some(m) => m.clone(),
        None => client.wait_for(is_pipe),
    };
    assert_eq!(codes(published["params"]["diagnostics"].as_array().map_or(&[][..], Vec::as_slice)), ["E0001"]);
    assert_serving(&mut client, &dir);
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_folder_too_large_to_read_whole_is_read_up_to_the_limit_and_the_server_goes_on() {
    // A huge tree (a workspace folder of `/`), made small: the test hook lowers the file limit to 5.
    let dir = scratch("huge-tree");
    for i in 0..20 {
        std::fs::write(dir.join(format!("f{i:02}.nacl")), format!("salto.t i{i} {{\n}}\n")).expect("write");
    }
    let mut client = Client::start_with_env(
        env!("CARGO_BIN_EXE_nacl-ls"),
        &[("NACL_LS_TEST_HOOKS", "1"), ("NACL_LS_TEST_MAX_FILES", "5")],
    );
    client.request(
        "initialize",
        json!({ "processId": null, "rootUri": uri(&dir), "capabilities": { "window": { "workDoneProgress": true } } }),
    );
    client.notify("initialized", json!({}));
    let shown = client.wait_for(|m| m["method"] == "window/showMessage");
    let text = shown["params"]["message"].as_str().unwrap_or_default();
    assert!(text.contains("stopped looking for files after 5 NaCl files"), "{shown}");
    client.wait_for(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end");
    assert_serving(&mut client, &dir);
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Hostile HCL files: deep nesting, control characters and escape sequences in strings and
/// comments, a FIFO named like HCL, and a link out of the workspace. The server indexes the folder,
/// reports the HCL mistakes, keeps serving, and `check` prints no raw escape character.
#[test]
fn hostile_hcl_files_get_diagnostics_not_crashes() {
    let dir = scratch("hcl");
    let outside = scratch("hcl-outside");
    std::fs::write(outside.join("secret.tf"), "secret = \"outside\"\n").expect("write");
    std::fs::write(dir.join("deep.hcl"), format!("v = {}\n", "[".repeat(100_000))).expect("write");
    std::fs::write(dir.join("control.tf"), "a = \"x\u{1b}[2J\u{7}\" # \u{1b}]0;title\u{7}\nb = \u{1b}[31m\n")
        .expect("write");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.join("secret.tf"), dir.join("link.tf")).expect("link");
        // mkfifo(1) keeps this test free of unsafe code.
        let made = std::process::Command::new("mkfifo").arg(dir.join("pipe.hcl")).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    }
    let mut client = start_indexed(&dir);
    for (name, code) in [("control.tf", "H0101"), ("deep.hcl", "H0212")] {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path).expect("read");
        client.open(&uri(&path), 1, &text);
        let found = codes(&client.diagnostics(&uri(&path), 1));
        assert!(found.contains(&code.to_owned()), "{name}: {found:?}");
    }
    assert_serving(&mut client, &dir);
    client.shutdown();

    let output = std::process::Command::new(env!("CARGO_BIN_EXE_nacl-ls"))
        .args(["check", "--quiet"])
        .arg(&dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("nacl-ls runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(!stdout.contains('\u{1b}') && !stdout.contains('\u{7}'), "raw control characters: {stdout}");
    assert!(!stdout.contains("outside\""), "read through a link out of the workspace: {stdout}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&outside);
}

#[test]
fn hcldec_refuses_fifos_links_and_specs_outside_the_workspace() {
    let dir = scratch("hcldec");
    let run = |args: &[&str]| run_bounded(&dir, &[&["hcldec"], args].concat());
    std::fs::write(dir.join("spec.hcldec"), "object {\n  attr \"a\" {\n    type = string\n  }\n}\n").expect("write");
    std::fs::write(dir.join("in.hcl"), "a = \"x\"\n").expect("write");
    let status = std::process::Command::new("mkfifo").arg(dir.join("fifo.hcldec")).status().expect("mkfifo runs");
    assert!(status.success());
    // A FIFO as the spec or as an input: an error, not a hang.
    let (code, stderr) = run(&["--spec=fifo.hcldec", "in.hcl"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    let (code, stderr) = run(&["--spec=spec.hcldec", "fifo.hcldec"]);
    assert_eq!(code, 1, "{stderr}");
    // A link planted at the output's name is not followed: its target stays as it was.
    std::fs::write(dir.join("target.txt"), "keep").expect("write");
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("target.txt"), dir.join("out.json")).expect("link");
    let (code, stderr) = run(&["--spec=spec.hcldec", "-o", "out.json", "in.hcl"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.join("target.txt")).expect("read"), "keep");
    // Deep nesting in a spec and a configuration: diagnostics, not a stack overflow.
    let deep_spec = format!("{}object {{}}\n{}", "block {\n  block_type = \"b\"\n".repeat(300), "}\n".repeat(300));
    std::fs::write(dir.join("deep.hcldec"), deep_spec).expect("write");
    std::fs::write(dir.join("deep.hcl"), format!("{}{}", "b {\n".repeat(300), "}\n".repeat(300))).expect("write");
    let (code, stderr) = run(&["--spec=deep.hcldec", "deep.hcl"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("nest more than"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn arm_build_refuses_fifos_and_links_and_survives_deep_and_long_input() {
    let dir = scratch("arm");
    let run = |args: &[&str]| run_bounded(&dir, &[&["arm", "build"], args].concat());
    std::fs::write(dir.join("main.arm"), "resource azrm 'T@1' r: {\n  name: 'r'\n}\n").expect("write");
    let status = std::process::Command::new("mkfifo").arg(dir.join("fifo.arm")).status().expect("mkfifo runs");
    assert!(status.success());
    // A FIFO as the input: an error, not a hang.
    let (code, stderr) = run(&["fifo.arm"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    // A link planted at the output's name is not followed: its target stays as it was.
    std::fs::write(dir.join("target.txt"), "keep").expect("write");
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("target.txt"), dir.join("out.json")).expect("link");
    let (code, stderr) = run(&["main.arm", "-o", "out.json"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.join("target.txt")).expect("read"), "keep");
    // Deep nesting, deep loops and a long chain of variables: diagnostics or a template, no crash.
    let mut text = format!("variable deep: {}1{}\n", "(".repeat(5000), ")".repeat(5000));
    text.push_str(&format!("{}{}", "for x in [1] {\n".repeat(400), "}\n".repeat(400)));
    text.push_str(
        "resource azrm 'T@1' r: {\n  name: v0\n  other: r2.id()\n}\nresource azrm 'T@1' r2: {\n  name: 'r2'\n}\n",
    );
    for i in 0..5000 {
        text.push_str(&format!("variable v{i}: v{}\n", i + 1));
    }
    text.push_str("variable v5000: r2.id()\n");
    std::fs::write(dir.join("deep.arm"), &text).expect("write");
    let (code, stderr) = run(&["deep.arm"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("A0208") && stderr.contains("E0810"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `nacl-ls ARGS` in `dir` with stdin closed; its exit code and stderr. A run over 20 seconds
/// fails the test as a hang.
fn run_bounded(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    run_bounded_to(dir, args, std::process::Stdio::piped())
}

/// [`run_bounded`] with stdout sent to `stdout` (a pipe holds only so much of what is not read
/// before the end).
fn run_bounded_to(dir: &std::path::Path, args: &[&str], stdout: std::process::Stdio) -> (i32, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nacl-ls"))
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(stdout)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("nacl-ls runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().expect("wait").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("nacl-ls hung on {args:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output");
    (output.status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn thirty_thousand_errors_in_one_file_are_printed_without_indexing_it_for_each() {
    let dir = scratch("many-errors");
    let text: String = (0..30_000).map(|i| format!("salto.t inst{i} {{\n  a = @\n}}\n")).collect();
    std::fs::write(dir.join("big.nacl"), text).expect("write");
    // Snippets on stdout (far more than a pipe holds, so it goes to /dev/null): each diagnostic
    // once read its file's lines again, 30,000 times 0.9 MB.
    let (code, stderr) = run_bounded_to(&dir, &["check", "--quiet", "."], std::process::Stdio::null());
    assert_eq!(code, 1, "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
