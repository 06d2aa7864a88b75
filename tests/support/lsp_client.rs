//! A minimal LSP client for end-to-end tests and benchmarks: starts a server binary and talks
//! JSON-RPC to it over stdio, answering the server's own requests as an editor would.

use serde_json::{Value, json};
use std::{
    io::{BufRead, BufReader, Read, Write},
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc,
    time::{Duration, Instant},
};

/// A client talking JSON-RPC to a running server.
pub struct Client {
    /// The server process.
    pub child: Child,
    stdin: ChildStdin,
    /// Each message the server sent, with when its last byte arrived (before it was parsed).
    messages: mpsc::Receiver<(Instant, Value)>,
    /// When the last byte of the message [`Client::wait_within`] last returned arrived.
    arrived: Option<Instant>,
    /// The id of the next request.
    pub next_id: i64,
    /// What the client answers to `workspace/configuration`.
    pub configuration: Value,
    /// The URIs the server asked the client to open with `window/showDocument`.
    pub shown: Vec<String>,
    /// Every notification and request the server sent, in order.
    pub received: Vec<Value>,
}

impl Client {
    /// Starts `binary serve`. Its log goes to the file `NACL_LS_TEST_LOG` names, if set.
    pub fn start(binary: &str) -> Client {
        Client::start_with_env(binary, &[])
    }

    /// Starts `binary serve` with more environment variables.
    pub fn start_with_env(binary: &str, env: &[(&str, &str)]) -> Client {
        let log = std::env::var_os("NACL_LS_TEST_LOG")
            .and_then(|path| std::fs::OpenOptions::new().create(true).append(true).open(path).ok())
            .map_or_else(Stdio::null, Stdio::from);
        let mut child = Command::new(binary)
            .arg("serve")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
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
                let arrived = Instant::now();
                if let Ok(message) = serde_json::from_slice(&body) {
                    let _ = sender.send((arrived, message));
                }
            }
        });
        Client {
            child,
            stdin,
            messages,
            arrived: None,
            next_id: 1,
            configuration: Value::Null,
            shown: Vec::new(),
            received: Vec::new(),
        }
    }

    /// Sends one message.
    pub fn send(&mut self, message: Value) {
        let body = message.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    /// Sends raw bytes, which need not be a well-formed message.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and waits for its successful answer.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let mut response = self.respond(method, params);
        assert!(response.get("error").is_none(), "{method} failed: {response}");
        // Moved out, not copied: the benchmarks time requests through this client.
        response["result"].take()
    }

    /// Sends a request and returns the whole response, an error or a result.
    pub fn respond(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.wait_for(|m| is_answer(m, id))
    }

    /// `initialize` with a root URI (or `null`) and client capabilities, then `initialized`;
    /// returns the server's capabilities.
    pub fn initialize(&mut self, root_uri: Value, capabilities: Value) -> Value {
        let init =
            self.request("initialize", json!({ "processId": null, "rootUri": root_uri, "capabilities": capabilities }));
        self.notify("initialized", json!({}));
        init["capabilities"].clone()
    }

    /// Opens a NaCl document.
    pub fn open(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "nacl", "version": version, "text": text } }),
        );
    }

    /// The next message matching `pred` (others are skipped), within ten seconds. Requests from
    /// the server are answered as an editor would (`null`, the configuration, or a shown document).
    #[track_caller]
    pub fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        self.wait_within(Duration::from_secs(10), pred)
    }

    /// The time from `started` to when the last byte of the message the client last waited for
    /// arrived: the server's latency, without the client's own parsing of the message (about
    /// 3 ms for a 500 KB answer) nor dropping it after.
    pub fn answered_after(&self, started: Instant) -> Duration {
        self.arrived.map_or(Duration::ZERO, |arrived| arrived.saturating_duration_since(started))
    }

    /// Like [`Client::wait_for`], with another limit on the wait for each message.
    #[track_caller]
    pub fn wait_within(&mut self, limit: Duration, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let Ok((arrived, message)) = self.messages.recv_timeout(limit) else {
                panic!("no answer from the server in time at {}", std::panic::Location::caller())
            };
            if message.get("method").is_some() {
                self.received.push(message.clone());
            }
            if message.get("method").is_some()
                && let Some(id) = message.get("id")
            {
                let result = match message["method"].as_str() {
                    Some("workspace/configuration") => json!([self.configuration]),
                    Some("window/showDocument") => {
                        self.shown.push(message["params"]["uri"].as_str().unwrap_or_default().to_owned());
                        json!({ "success": true })
                    }
                    _ => Value::Null,
                };
                self.send(json!({ "jsonrpc": "2.0", "id": id, "result": result }));
            }
            if pred(&message) {
                self.arrived = Some(arrived);
                return message;
            }
        }
    }

    /// The next diagnostics published for `uri`, whatever the version.
    #[track_caller]
    pub fn any_diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let message = self.wait_for(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri);
        message["params"]["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    /// The next diagnostics published for `uri` with `version`.
    #[track_caller]
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let message = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        message["params"]["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    /// Shuts the server down and checks that it exits cleanly.
    pub fn shutdown(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let status = self.child.wait().expect("the server exits");
        assert!(status.success(), "exit status {status}");
    }
}

/// Whether `message` answers the client's request `id`: a response, not a request of the
/// server's that happens to carry the same ID (the two sides number their requests each on its
/// own).
pub fn is_answer(message: &Value, id: i64) -> bool {
    message["id"] == id && message.get("method").is_none()
}

/// The `file://` URI of an absolute path, percent-encoded as editors send it.
pub fn file_uri(path: &std::path::Path) -> String {
    let mut uri = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => uri.push(byte as char),
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri
}
