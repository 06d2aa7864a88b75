//! End-to-end tests of `nacl-ls serve`: the real binary driven over stdio as an editor would.

use serde_json::{Value, json};
use std::{
    io::{BufRead, BufReader, Read, Write},
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc,
    time::Duration,
};

/// A client talking JSON-RPC to a running server.
struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: mpsc::Receiver<Value>,
    next_id: i64,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_nacl-ls"))
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(value) = line.strip_prefix("Content-Length: ") {
                        length = value.parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                if let Ok(message) = serde_json::from_slice(&body) {
                    let _ = sender.send(message);
                }
            }
        });
        Client { child, stdin, messages, next_id: 1 }
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let response = self.wait_for(|m| m["id"] == id);
        assert!(response.get("error").is_none(), "{method} failed: {response}");
        response["result"].clone()
    }

    /// The next message matching `pred` (others are skipped), within ten seconds.
    fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let message = self.messages.recv_timeout(Duration::from_secs(10)).expect("the server answers in time");
            if pred(&message) {
                return message;
            }
        }
    }

    /// The next diagnostics published for `uri` with `version`.
    fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let message = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        message["params"]["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    fn shutdown(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let status = self.child.wait().expect("the server exits");
        assert!(status.success(), "exit status {status}");
    }
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("nacl-ls-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

fn uri(path: &std::path::Path) -> String {
    format!("file://{}", path.display())
}

#[test]
fn diagnostics_follow_edits_and_formatting_edits_the_document() {
    let dir = scratch("edits");
    let file = dir.join("a.nacl");
    let broken = "salto.t a {\n  x = \"open\n}\n";
    std::fs::write(&file, broken).expect("write");
    let (root, uri) = (uri(&dir), uri(&file));
    let mut client = Client::start();
    let init = client.request(
        "initialize",
        json!({ "processId": null, "rootUri": root, "capabilities": { "general": { "positionEncodings": ["utf-8", "utf-16"] } } }),
    );
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-8");
    client.notify("initialized", json!({}));

    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "nacl", "version": 1, "text": broken } }),
    );
    let diagnostics = client.diagnostics(&uri, 1);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "E0101");
    assert_eq!(diagnostics[0]["range"]["start"], json!({ "line": 1, "character": 6 }));

    // A burst of small edits sent without waiting: type `"` at the end of line 1 one character at
    // a time after typing and deleting 50 letters; the last diagnostics match the final text.
    let mut version = 1;
    for i in 0..50 {
        version += 1;
        let at = json!({ "line": 1, "character": 11 });
        client.notify("textDocument/didChange", json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "range": { "start": at, "end": at }, "text": "z" }] }));
        version += 1;
        let end = json!({ "line": 1, "character": 12 });
        client.notify("textDocument/didChange", json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "range": { "start": at, "end": end }, "text": "" }] }));
        let _ = i;
    }
    version += 1;
    let at = json!({ "line": 1, "character": 11 });
    client.notify("textDocument/didChange", json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "range": { "start": at, "end": at }, "text": "\"   " }] }));
    assert_eq!(client.diagnostics(&uri, version), Vec::<Value>::new(), "the string is closed now");

    let edits = client.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    let edits = edits.as_array().expect("edits");
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0]["newText"], "salto.t a {\n  x = \"open\"\n}\n");
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn utf16_positions_count_surrogate_pairs() {
    let dir = scratch("utf16");
    let file = dir.join("a.nacl");
    let text = "salto.t a {\n  x = \"😀😀\" \\q\n}\n";
    let uri = uri(&file);
    let mut client = Client::start();
    let init = client.request("initialize", json!({ "processId": null, "rootUri": null, "capabilities": {} }));
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-16");
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "nacl", "version": 7, "text": text } }),
    );
    let diagnostics = client.diagnostics(&uri, 7);
    let unexpected = diagnostics.iter().find(|d| d["code"] == "E0108").expect("the stray backslash");
    // `\` follows `  x = "😀😀" `: 2 + 4 + 1 + 2×2 (surrogate pairs) + 1 + 1 = 13 UTF-16 units.
    assert_eq!(unexpected["range"]["start"], json!({ "line": 1, "character": 13 }));
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn definition_and_hover_across_files() {
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/demo").canonicalize().expect("the demo");
    let file = demo.join("salesforce/Records/ApexClass/GreetingService.nacl");
    let text = std::fs::read_to_string(&file).expect("read");
    let file_uri = uri(&file);
    let mut client = Client::start();
    client.request("initialize", json!({ "processId": null, "rootUri": uri(&demo), "capabilities": {} }));
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": file_uri, "languageId": "nacl", "version": 1, "text": text } }),
    );
    // `salesforce.Account` in the header `salesforce.Account Acme {` (line 13, zero-based 12).
    let result = client.request(
        "textDocument/definition",
        json!({ "textDocument": { "uri": file_uri }, "position": { "line": 12, "character": 12 } }),
    );
    let mut targets: Vec<String> = result
        .as_array()
        .expect("locations")
        .iter()
        .map(|l| {
            format!(
                "{} {}",
                l["uri"].as_str().unwrap_or_default().rsplit('/').next().unwrap_or_default(),
                l["range"]["start"]["line"]
            )
        })
        .collect();
    targets.sort();
    assert_eq!(targets, ["AccountAnnotations.nacl 0", "AccountCustomFields.nacl 0"]);
    let hover = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": file_uri }, "position": { "line": 12, "character": 12 } }),
    );
    assert_eq!(hover["contents"]["kind"], "markdown");
    assert!(
        hover["contents"]["value"].as_str().unwrap_or_default().starts_with("**type, 3 fields** `salesforce.Account`"),
        "{hover}"
    );
    assert_eq!(hover["range"]["start"], json!({ "line": 12, "character": 0 }));
    let symbols = client.request("textDocument/documentSymbol", json!({ "textDocument": { "uri": file_uri } }));
    let names: Vec<&str> = symbols.as_array().expect("symbols").iter().filter_map(|s| s["name"].as_str()).collect();
    assert_eq!(names, ["GreetingService", "Acme"]);
    assert_eq!(symbols[1]["children"][2]["name"], "Tags__c");
    let id = client.request(
        "workspace/executeCommand",
        json!({ "command": "nacl.copyReference", "arguments": [{ "textDocument": { "uri": file_uri }, "position": { "line": 13, "character": 4 } }] }),
    );
    assert_eq!(id, "salesforce.Account.instance.Acme.Region__c");
    let folds = client.request("textDocument/foldingRange", json!({ "textDocument": { "uri": file_uri } }));
    assert!(folds.as_array().is_some_and(|f| f.iter().any(|r| r["startLine"] == 12 && r["endLine"] == 20)), "{folds}");
    client.shutdown();
}
