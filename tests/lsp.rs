//! End-to-end tests of `nacl-ls serve`: the real binary driven over stdio as an editor would.

#[allow(dead_code)] // Shared with the benchmarks, which time answers by when they arrived.
#[path = "support/lsp_client.rs"]
mod lsp_client;

use lsp_client::{Client, file_uri as uri};
use serde_json::{Value, json};

fn start() -> Client {
    Client::start(env!("CARGO_BIN_EXE_nacl-ls"))
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("nacl-ls-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

#[test]
fn diagnostics_follow_edits_and_formatting_edits_the_document() {
    let dir = scratch("edits");
    let file = dir.join("a.nacl");
    let broken = "salto.t a {\n  x = \"open\n}\n";
    std::fs::write(&file, broken).expect("write");
    let (root, uri) = (uri(&dir), uri(&file));
    let mut client = start();
    let capabilities =
        client.initialize(json!(root), json!({ "general": { "positionEncodings": ["utf-8", "utf-16"] } }));
    assert_eq!(capabilities["positionEncoding"], "utf-8");

    client.open(&uri, 1, broken);
    let diagnostics = client.diagnostics(&uri, 1);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "E0101");
    assert_eq!(diagnostics[0]["range"]["start"], json!({ "line": 1, "character": 6 }));

    // A burst of small edits sent without waiting: type `"` at the end of line 1 one character at
    // a time after typing and deleting 150 letters (300 edits); the last diagnostics match the final text.
    let mut version = 1;
    for i in 0..150 {
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
    let mut client = start();
    let capabilities = client.initialize(Value::Null, json!({}));
    assert_eq!(capabilities["positionEncoding"], "utf-16");
    client.open(&uri, 7, text);
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
    let mut client = start();
    client.initialize(json!(uri(&demo)), json!({}));
    client.open(&file_uri, 1, &text);
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

fn codes(diagnostics: &[Value]) -> Vec<String> {
    diagnostics.iter().map(|d| d["code"].as_str().unwrap_or_default().to_owned()).collect()
}

/// Capabilities of an editor that shows progress, watches files and serves its configuration.
fn full_client_capabilities() -> Value {
    json!({
        "window": { "workDoneProgress": true },
        "workspace": { "configuration": true, "didChangeWatchedFiles": { "dynamicRegistration": true }, "workspaceFolders": true }
    })
}

#[test]
fn indexing_reports_progress_and_closed_files_follow_the_disk() {
    let dir = scratch("index");
    std::fs::write(dir.join("types.nacl"), "type salto.t {\n  string name {\n  }\n}\n").expect("write");
    std::fs::write(dir.join("broken.nacl"), "salto.t a {\n  name = \"open\n}\n").expect("write");
    let broken = uri(&dir.join("broken.nacl"));
    let mut client = start();
    client.request(
        "initialize",
        json!({ "processId": null, "workspaceFolders": [{ "uri": uri(&dir), "name": "ws" }], "capabilities": full_client_capabilities() }),
    );
    client.notify("initialized", json!({}));
    // The file watcher is registered, indexing reports progress from begin to end, and before it
    // ends a closed file with an error gets diagnostics without a version: a syntax error as soon
    // as the files are parsed, before the workspace-wide check begins.
    let (mut registered, mut begun, mut published, mut checked) = (false, false, None, None);
    let (mut checking, mut published_before_checking) = (false, false);
    loop {
        let m = client.wait_for(|_| true);
        if m["method"] == "client/registerCapability" {
            assert_eq!(m["params"]["registrations"][0]["method"], "workspace/didChangeWatchedFiles");
            registered = true;
        } else if m["method"] == "$/progress" && m["params"]["value"]["kind"] == "begin" {
            begun = true;
        } else if m["method"] == "$/progress"
            && m["params"]["value"]["message"].as_str().is_some_and(|t| t.starts_with("checked"))
        {
            checked = Some(m["params"]["value"].clone());
        } else if m["method"] == "$/progress" && m["params"]["value"]["message"] == "checking" {
            checking = true;
        } else if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == broken {
            published_before_checking |= published.is_none() && !checking;
            published = Some(m["params"].clone());
        } else if m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end" {
            break;
        }
    }
    assert!(registered && begun && checking && published_before_checking);
    // The first check moves the report on to 100%.
    let checked = checked.expect("a progress report of the check");
    assert_eq!((checked["message"].as_str(), checked["percentage"].as_u64()), (Some("checked 2/2 files"), Some(100)));
    let published = published.expect("diagnostics of the closed file");
    assert_eq!(published["version"], Value::Null);
    assert_eq!(codes(published["diagnostics"].as_array().expect("diagnostics")), ["E0101"]);

    // Files created, fixed and deleted outside the editor are picked up.
    let created = dir.join("created.nacl");
    std::fs::write(&created, "salto.t b {\n  name = \"x\"\n  name = \"y\"\n}\n").expect("write");
    std::fs::write(dir.join("broken.nacl"), "salto.t a {\n  name = \"closed\"\n}\n").expect("write");
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": uri(&created), "type": 1 }, { "uri": broken, "type": 2 }] }),
    );
    assert_eq!(codes(&client.any_diagnostics(&uri(&created))), ["E0315"]);
    assert_eq!(client.any_diagnostics(&broken), Vec::<Value>::new());
    std::fs::remove_file(&created).expect("delete");
    client.notify("workspace/didChangeWatchedFiles", json!({ "changes": [{ "uri": uri(&created), "type": 3 }] }));
    assert_eq!(client.any_diagnostics(&uri(&created)), Vec::<Value>::new());
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Starts the server on `dir` with `cache` as its cache folder; the client and the diagnostics of
/// closed files published until indexing ended, by URI.
fn start_on_with_cache(dir: &std::path::Path, cache: &std::path::Path) -> (Client, Vec<(String, Vec<String>)>) {
    start_on_with_cache_and(dir, cache, &[])
}

/// [`start_on_with_cache`], with more variables set in the server's environment.
fn start_on_with_cache_and(
    dir: &std::path::Path,
    cache: &std::path::Path,
    env: &[(&str, &str)],
) -> (Client, Vec<(String, Vec<String>)>) {
    let mut vars = vec![("NACL_LS_CACHE_DIR", cache.to_str().expect("UTF-8"))];
    vars.extend_from_slice(env);
    let mut client = Client::start_with_env(env!("CARGO_BIN_EXE_nacl-ls"), &vars);
    client.request(
        "initialize",
        json!({ "processId": null, "workspaceFolders": [{ "uri": uri(dir), "name": "ws" }], "capabilities": full_client_capabilities() }),
    );
    client.notify("initialized", json!({}));
    let mut published = std::collections::BTreeMap::new();
    loop {
        let m = client.wait_for(|_| true);
        if m["method"] == "textDocument/publishDiagnostics" {
            let diagnostics = codes(m["params"]["diagnostics"].as_array().expect("diagnostics"));
            published.insert(m["params"]["uri"].as_str().unwrap_or_default().to_owned(), diagnostics);
        } else if m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end" {
            break;
        }
    }
    (client, published.into_iter().collect())
}

#[test]
fn a_restart_reports_from_the_cache_and_edits_are_checked_as_before() {
    let dir = scratch("restart");
    let (ws, cache) = (dir.join("ws"), dir.join("cache"));
    std::fs::create_dir_all(&ws).expect("create");
    std::fs::write(ws.join("types.nacl"), "type salto.t {\n  string name {\n    _required = true\n  }\n}\n")
        .expect("write");
    std::fs::write(ws.join("a.nacl"), "salto.t a {\n  other = salto.t.instance.gone\n}\n").expect("write");
    let a = uri(&ws.join("a.nacl"));
    let expected = vec![(a.clone(), vec!["W0602".to_owned(), "W0501".to_owned()])];

    let (client, first) = start_on_with_cache(&ws, &cache);
    client.shutdown();
    assert_eq!(first, expected);
    let kept = std::fs::read_dir(&cache).expect("a cache folder").flatten();
    assert!(kept.into_iter().any(|e| e.path().extension().is_some_and(|x| x == "reports")), "the reports are kept");

    // The restart publishes the same; an edit is then checked as usual.
    let (mut client, restarted) = start_on_with_cache(&ws, &cache);
    assert_eq!(restarted, expected);
    client.open(&a, 1, "salto.t a {\n  other = salto.t.instance.gone\n}\n");
    assert_eq!(codes(&client.diagnostics(&a, 1)), ["W0602", "W0501"]);
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": a, "version": 2 }, "contentChanges": [{ "text": "salto.t a {\n  name = \"x\"\n  other = salto.t.instance.a\n}\n" }] }),
    );
    assert_eq!(client.diagnostics(&a, 2), Vec::<Value>::new());
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_restart_that_reads_no_file_reads_each_when_it_is_needed() {
    let dir = scratch("restart-unread");
    let (ws, cache) = (dir.join("ws"), dir.join("cache"));
    std::fs::create_dir_all(&ws).expect("create");
    let types = ws.join("types.nacl");
    std::fs::write(&types, "type salto.t {\n  string name {\n  }\n}\n").expect("write");
    let (a, b) = (ws.join("a.nacl"), ws.join("b.nacl"));
    std::fs::write(&a, "salto.t a {\n  name = \"a\"\n  other = salto.t.instance.gone\n}\n").expect("write");
    std::fs::write(&b, "salto.t b {\n}\n").expect("write");
    // The files need not settle for their metadata to be trusted (see `nacl_analysis::files::Stamp`).
    let env = [("NACL_LS_TEST_HOOKS", "1"), (nacl_analysis::files::TEST_SETTLED_AFTER_ENV, "0")];
    let (client, _) = start_on_with_cache_and(&ws, &cache, &env);
    client.shutdown();

    // The closed file's diagnostics, from the reports, at their lines in its text (read for them).
    let (mut client, _) = start_on_with_cache_and(&ws, &cache, &env);
    let report = client.request("workspace/diagnostic", json!({ "previousResultIds": [] }));
    let lines: Vec<String> = report["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{report}"))
        .iter()
        .flat_map(|item| item["items"].as_array().cloned().unwrap_or_default())
        .map(|d| format!("{} {}", d["code"].as_str().unwrap_or_default(), d["range"]["start"]["line"]))
        .collect();
    assert_eq!(lines, ["W0501 2"], "{report}");

    // From an open file to a type in a file not read yet.
    let text = std::fs::read_to_string(&a).expect("read");
    client.open(&uri(&a), 1, &text);
    let definition = client.request(
        "textDocument/definition",
        json!({ "textDocument": { "uri": uri(&a) }, "position": { "line": 0, "character": 6 } }),
    );
    let target = definition.as_array().and_then(|locations| locations.first());
    assert_eq!(
        target.map(|target| (target["uri"].as_str(), target["range"]["start"]["line"].as_u64())),
        Some((Some(uri(&types).as_str()), Some(0))),
        "{definition}"
    );

    // A file not read yet changes on disk: it is read, and what refers to it checked again.
    std::fs::write(&b, "salto.t gone {\n}\n").expect("write");
    client.notify("workspace/didChangeWatchedFiles", json!({ "changes": [{ "uri": uri(&b), "type": 2 }] }));
    let cleared = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri(&a)
            && m["params"]["diagnostics"].as_array().is_some_and(|d| d.is_empty())
    });
    assert_eq!(cleared["params"]["diagnostics"], json!([]));
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn settings_change_which_diagnostics_are_shown() {
    let dir = scratch("settings");
    let file = dir.join("a.nacl");
    let text = "salto.t a {\n  x = salto.t.instance.missing\n}\n";
    std::fs::write(&file, text).expect("write");
    let file_uri = uri(&file);
    let mut client = start();
    client.initialize(json!(uri(&dir)), json!({}));
    client.open(&file_uri, 1, text);
    let found = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == file_uri
            && m["params"]["version"] == 1
            && m["params"]["diagnostics"].as_array().is_some_and(|d| !d.is_empty())
    });
    assert!(codes(found["params"]["diagnostics"].as_array().expect("diagnostics")).contains(&"W0501".to_owned()));
    client.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "nacl": { "diagnostics": { "disabled": ["W0501"] } } } }),
    );
    let cleared = client.diagnostics(&file_uri, 1);
    assert!(!codes(&cleared).contains(&"W0501".to_owned()), "{cleared:?}");
    // Invalid settings are reported in the client's log and ignored.
    client.notify("workspace/didChangeConfiguration", json!({ "settings": { "nacl": { "environment": 3 } } }));
    let log = client.wait_for(|m| {
        m["method"] == "window/logMessage" && m["params"]["message"].as_str().is_some_and(|t| t.contains("invalid"))
    });
    assert!(log["params"]["message"].as_str().unwrap_or_default().contains("invalid nacl-ls settings"), "{log}");
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn workspace_folders_come_and_go() {
    let (first, second) = (scratch("folder-a"), scratch("folder-b"));
    std::fs::write(first.join("a.nacl"), "salto.t a {\n  x = \"open\n}\n").expect("write");
    std::fs::write(second.join("b.nacl"), "salto.t b {\n  x = 1\n  x = 2\n}\n").expect("write");
    let mut client = start();
    client.request(
        "initialize",
        json!({ "processId": null, "workspaceFolders": [{ "uri": uri(&first), "name": "a" }], "capabilities": { "workspace": { "workspaceFolders": true } } }),
    );
    client.notify("initialized", json!({}));
    let a = uri(&first.join("a.nacl"));
    assert_eq!(codes(&client.any_diagnostics(&a)), ["E0101"]);
    client.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({ "event": { "added": [{ "uri": uri(&second), "name": "b" }], "removed": [{ "uri": uri(&first), "name": "a" }] } }),
    );
    // The removed folder's diagnostics are cleared; the added folder is indexed and checked.
    let mut seen = (false, false);
    while seen != (true, true) {
        let m = client.wait_for(|m| m["method"] == "textDocument/publishDiagnostics");
        let diagnostics = m["params"]["diagnostics"].as_array().cloned().unwrap_or_default();
        if m["params"]["uri"] == a {
            assert!(diagnostics.is_empty(), "{m}");
            seen.0 = true;
        } else if m["params"]["uri"] == uri(&second.join("b.nacl")) {
            assert_eq!(codes(&diagnostics), ["E0315"]);
            seen.1 = true;
        }
    }
    client.shutdown();
    let _ = std::fs::remove_dir_all(&first);
    let _ = std::fs::remove_dir_all(&second);
}

#[test]
fn odd_requests_get_answers_and_the_server_keeps_serving() {
    let dir = scratch("odd");
    let file = dir.join("a.nacl");
    let text = "salto.t a {\r\n  x = 1\r\n}\r\n";
    let file_uri = uri(&file);
    let mut client = start();
    client.initialize(json!(uri(&dir)), json!({}));
    client.open(&file_uri, 1, text);
    // Positions past the end of a line or of the file are clamped.
    let hover = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": file_uri }, "position": { "line": 99, "character": 99 } }),
    );
    assert_eq!(hover, Value::Null);
    // A request cancelled at once is answered (with its result or as cancelled), never dropped.
    let id = client.next_id;
    client.next_id += 1;
    client.send(json!({ "jsonrpc": "2.0", "id": id, "method": "textDocument/documentSymbol", "params": { "textDocument": { "uri": file_uri } } }));
    client.notify("$/cancelRequest", json!({ "id": id }));
    let answer = client.wait_for(|m| lsp_client::is_answer(m, id));
    assert!(answer.get("result").is_some() || answer["error"]["code"] == -32800, "{answer}");
    // Requests about documents that are not open, and unknown commands.
    let missing = uri(&dir.join("missing.nacl"));
    let definition = client.request(
        "textDocument/definition",
        json!({ "textDocument": { "uri": missing }, "position": { "line": 0, "character": 0 } }),
    );
    assert_eq!(definition, Value::Null);
    let unknown = client.respond("workspace/executeCommand", json!({ "command": "nacl.nothing" }));
    assert_eq!(unknown["error"]["code"], -32602);
    // An edit on a CRLF document lands where the client meant it.
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": file_uri, "version": 2 }, "contentChanges": [{ "range": { "start": { "line": 1, "character": 6 }, "end": { "line": 1, "character": 7 } }, "text": "\"two" }] }),
    );
    assert_eq!(codes(&client.diagnostics(&file_uri, 2)), ["E0101"]);
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn references_rename_workspace_symbols_and_selection() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../analysis/test_data/rename")
        .canonicalize()
        .expect("fixture");
    let file = root.join("people.nacl");
    let text = std::fs::read_to_string(&file).expect("read");
    let file_uri = uri(&file);
    let mut client = start();
    client.initialize(json!(uri(&root)), json!({}));
    client.open(&file_uri, 1, &text);
    let alice = json!({ "textDocument": { "uri": file_uri }, "position": { "line": 0, "character": 15 } });
    let mut with_context = alice.clone();
    with_context["context"] = json!({ "includeDeclaration": true });
    let references = client.request("textDocument/references", with_context);
    assert_eq!(references.as_array().map(Vec::len), Some(4), "{references}");
    let highlights = client.request("textDocument/documentHighlight", alice.clone());
    assert_eq!(highlights.as_array().map(Vec::len), Some(2), "{highlights}");
    let prepared = client.request("textDocument/prepareRename", alice.clone());
    assert_eq!(prepared["placeholder"], "alice");
    assert_eq!(
        prepared["range"],
        json!({ "start": { "line": 0, "character": 13 }, "end": { "line": 0, "character": 18 } })
    );
    let mut rename = alice.clone();
    rename["newName"] = json!("alicia");
    let edit = client.request("textDocument/rename", rename.clone());
    let changes = edit["changes"].as_object().expect("changes");
    assert_eq!(changes.len(), 3, "{edit}");
    assert!(changes[&file_uri].as_array().is_some_and(|e| e.iter().all(|e| e["newText"] == "alicia")));
    rename["newName"] = json!("bob");
    let refused = client.respond("textDocument/rename", rename);
    assert!(refused["error"]["message"].as_str().unwrap_or_default().contains("already exists"), "{refused}");

    let symbols = client.request("workspace/symbol", json!({ "query": "alice" }));
    assert_eq!(symbols[0]["name"], "salto.person.instance.alice", "{symbols}");
    assert!(symbols[0]["location"]["uri"].as_str().is_some_and(|u| u.ends_with("people.nacl")));
    let selection = client.request(
        "textDocument/selectionRange",
        json!({ "textDocument": { "uri": file_uri }, "positions": [{ "line": 1, "character": 12 }] }),
    );
    // The word `Alice`, the string, the attribute, the body, the block, the file.
    let mut depth = 0;
    let mut step = &selection[0];
    while step.is_object() {
        depth += 1;
        step = &step["parent"];
    }
    assert!(depth >= 5, "{selection}");
    assert_eq!(selection[0]["range"]["start"], json!({ "line": 1, "character": 10 }));
    client.shutdown();
}

/// Runs Go To Service at `at`, which answers and shows a message (in either order): the answer's
/// result and the message's text.
fn go_to_service_with_message(client: &mut Client, at: Value) -> (Value, String) {
    let id = client.next_id;
    client.next_id += 1;
    let params = json!({ "command": "nacl.goToService", "arguments": [at] });
    client.send(json!({ "jsonrpc": "2.0", "id": id, "method": "workspace/executeCommand", "params": params }));
    let (mut answer, mut message) = (None, None);
    while answer.is_none() || message.is_none() {
        let m = client.wait_for(|m| lsp_client::is_answer(m, id) || m["method"] == "window/showMessage");
        if lsp_client::is_answer(&m, id) { answer = Some(m) } else { message = Some(m) }
    }
    let text = message.unwrap_or_default()["params"]["message"].as_str().unwrap_or_default().to_owned();
    (answer.map(|a| a["result"].clone()).unwrap_or_default(), text)
}

#[test]
fn salto_state_types_instances_and_opens_the_service() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../analysis/test_data/state_workspace");
    let root = nacl_corpus::fixture_workspace(&src).canonicalize().expect("fixture");
    let sup = root.join("jira/Records/Project/SUP.nacl");
    let text = std::fs::read_to_string(&sup).expect("fixture file");
    let mut client = start();
    client.initialize(json!(uri(&root)), json!({ "window": { "showDocument": { "support": true } } }));
    client.open(&uri(&sup), 1, &text);
    // Once the state is read, the instance is checked against its type, which only the state has.
    loop {
        let found = codes(&client.diagnostics(&uri(&sup), 1));
        if !found.is_empty() {
            assert_eq!(found, ["W0603", "W0601"]);
            break;
        }
    }
    let at = |line: u32, character: u32| json!({ "textDocument": { "uri": uri(&sup) }, "position": { "line": line, "character": character } });
    let hover = client.request("textDocument/hover", at(1, 3));
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        markdown.starts_with("**field** `key` of `jira.Project` (a hidden type, from Salto's state)"),
        "{markdown}"
    );
    assert!(markdown.contains("Type `string`"), "{markdown}");

    let url =
        client.request("workspace/executeCommand", json!({ "command": "nacl.goToService", "arguments": [at(2, 4)] }));
    assert_eq!(url, "https://example.atlassian.net/jira/projects/SUP");
    assert_eq!(client.shown, ["https://example.atlassian.net/jira/projects/SUP"]);
    // Where no URL is known, the command answers null and the editor shows why.
    let none_known = root.join("jira/Records/Typo/x.nacl");
    client.open(&uri(&none_known), 1, &std::fs::read_to_string(&none_known).expect("fixture file"));
    let at_typo = json!({ "textDocument": { "uri": uri(&none_known) }, "position": { "line": 1, "character": 3 } });
    let (answer, message) = go_to_service_with_message(&mut client, at_typo);
    assert_eq!(answer, Value::Null);
    assert!(message.contains("_service_url"), "{message}");

    // The state file deleted outside the editor: its types are gone too.
    let state = root.join("salto.config/states/prod.jira.jsonl.zip");
    std::fs::remove_file(&state).expect("delete the state file");
    client.notify("workspace/didChangeWatchedFiles", json!({ "changes": [{ "uri": uri(&state), "type": 3 }] }));
    assert_eq!(codes(&client.diagnostics(&uri(&sup), 1)), ["W0501"]);
    client.shutdown();
}

#[test]
fn semantic_tokens_full_delta_and_range() {
    let dir = scratch("tokens");
    let file_uri = uri(&dir.join("a.nacl"));
    let text = "type salto.t {\n  string name {\n    _required = true\n  }\n}\nsalto.t a {\n  name = '''\n    two\n    lines\n    '''\n}\n";
    let mut client = start();
    let capabilities = client.initialize(json!(uri(&dir)), json!({}));
    let legend = &capabilities["semanticTokensProvider"]["legend"];
    assert_eq!(legend["tokenTypes"][0], "keyword");
    client.open(&file_uri, 1, text);
    let document = json!({ "textDocument": { "uri": file_uri } });
    let full = client.request("textDocument/semanticTokens/full", document.clone());
    let data: Vec<u64> = serde_json::from_value(full["data"].clone()).expect("token data");
    // `type`: line 0, column 0, 4 long, a keyword; the multiline string is one token per line.
    assert_eq!(&data[..5], &[0, 0, 4, 0, 0]);
    assert_eq!(data.len() / 5, 13, "{data:?}");
    // An edit, then a delta against the first result: applying it gives the new full result.
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": file_uri, "version": 2 }, "contentChanges": [{ "range": { "start": { "line": 5, "character": 8 }, "end": { "line": 5, "character": 9 } }, "text": "b" }] }),
    );
    let delta = client.request(
        "textDocument/semanticTokens/full/delta",
        json!({ "textDocument": { "uri": file_uri }, "previousResultId": full["resultId"] }),
    );
    let mut patched = data.clone();
    for edit in delta["edits"].as_array().expect("edits") {
        let (start, delete) =
            (edit["start"].as_u64().unwrap_or(0) as usize, edit["deleteCount"].as_u64().unwrap_or(0) as usize);
        let inserted: Vec<u64> = serde_json::from_value(edit["data"].clone()).unwrap_or_default();
        patched.splice(start..start + delete, inserted);
    }
    let fresh = client.request("textDocument/semanticTokens/full", document);
    assert_eq!(serde_json::to_value(&patched).unwrap_or_default(), fresh["data"]);
    // A range: only the tokens of its lines.
    let range = client.request(
        "textDocument/semanticTokens/range",
        json!({ "textDocument": { "uri": file_uri }, "range": { "start": { "line": 2, "character": 0 }, "end": { "line": 3, "character": 0 } } }),
    );
    let data: Vec<u64> = serde_json::from_value(range["data"].clone()).expect("token data");
    assert_eq!(data, [2, 4, 9, 4, 2, 0, 12, 4, 0, 0], "`_required` and `true`");
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn completion_of_values_fields_and_references() {
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/demo").canonicalize().expect("the demo");
    let file = demo.join("salesforce/Records/ApexClass/GreetingService.nacl");
    let text = std::fs::read_to_string(&file).expect("read");
    // Region__c's value emptied, and the Active__c line being retyped.
    let text = text.replace("  Region__c = \"EMEA\"\n", "  Region__c = \n").replace("  Active__c = true\n", "  \n");
    let file_uri = uri(&file);
    let mut client = start();
    let snippets = json!({ "textDocument": { "completion": { "completionItem": { "snippetSupport": true } } } });
    let capabilities = client.initialize(json!(uri(&demo)), snippets);
    assert_eq!(capabilities["completionProvider"]["triggerCharacters"], json!([".", "\"", "{", "/"]));
    client.open(&file_uri, 1, &text);
    let complete = |client: &mut Client, line: u32, character: u32| {
        let list = client.request(
            "textDocument/completion",
            json!({ "textDocument": { "uri": file_uri }, "position": { "line": line, "character": character } }),
        );
        list["items"].as_array().cloned().unwrap_or_default()
    };
    let labels =
        |items: &[Value]| items.iter().filter_map(|i| i["label"].as_str().map(str::to_owned)).collect::<Vec<_>>();

    // The value of Region__c: its restriction's values first.
    let values = complete(&mut client, 13, 14);
    assert_eq!(labels(&values)[..3], ["\"AMER\"", "\"APAC\"", "\"EMEA\""], "{values:?}");
    assert_eq!(values[0]["textEdit"]["range"]["start"], json!({ "line": 13, "character": 14 }));

    // A new key: the fields not set yet, as snippets.
    let fields = complete(&mut client, 14, 2);
    assert_eq!(labels(&fields)[0], "Active__c", "{fields:?}");
    assert!(!labels(&fields).contains(&"Tags__c".to_owned()), "{fields:?}");
    assert_eq!(fields[0]["textEdit"]["newText"], "Active__c = ${1|true,false|}");
    assert_eq!(fields[0]["insertTextFormat"], 2, "{fields:?}");

    // A reference, segment by segment, inside a template.
    let line = text.lines().nth(19).expect("the owner_note line");
    let instances = complete(&mut client, 19, line.find("Acme").expect("a template") as u32);
    assert!(labels(&instances).contains(&"Acme".to_owned()), "{instances:?}");
    client.shutdown();
}

#[test]
fn code_actions_inlay_hints_links_and_reference_lenses() {
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/demo").canonicalize().expect("the demo");
    let file = demo.join("salesforce/Records/ApexClass/GreetingService.nacl");
    let text = std::fs::read_to_string(&file)
        .expect("read")
        .replace("  Active__c = true\n", "  Active__c = salesforce.Account.instance.Acm\n");
    let file_uri = uri(&file);
    let mut client = start();
    let capabilities = client.initialize(json!(uri(&demo)), json!({}));
    assert_eq!(capabilities["codeLensProvider"]["resolveProvider"], true);
    client.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "nacl": { "codeLens": { "references": true } } } }),
    );
    client.open(&file_uri, 1, &text);
    let document = json!({ "uri": file_uri });

    // A misspelled instance: "did you mean" the existing one.
    let line = json!({ "start": { "line": 14, "character": 0 }, "end": { "line": 14, "character": 40 } });
    let actions = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": document, "range": line, "context": { "diagnostics": [] } }),
    );
    assert_eq!(actions[0]["title"], "Change to `salesforce.Account.instance.Acme`", "{actions}");
    assert_eq!(actions[0]["kind"], "quickfix");
    assert_eq!(actions[0]["diagnostics"][0]["code"], "W0501");
    let edit = &actions[0]["edit"]["changes"][file_uri.as_str()][0];
    assert_eq!(edit["newText"], "salesforce.Account.instance.Acme");
    let only_format = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": document, "range": line, "context": { "diagnostics": [], "only": ["source"] } }),
    );
    assert!(only_format.as_array().is_some_and(|a| a.iter().all(|a| a["kind"] == "source.format")), "{only_format}");

    // `file("...")` links to the static file (of the current environment, prod).
    let links = client.request("textDocument/documentLink", json!({ "textDocument": document }));
    assert!(
        links[0]["target"]
            .as_str()
            .unwrap_or_default()
            .ends_with("static-resources/salesforce/classes/GreetingService.cls"),
        "{links}"
    );
    assert_eq!(links[0]["range"]["start"], json!({ "line": 5, "character": 18 }));

    let whole = json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 30, "character": 0 } });
    let hints = client.request("textDocument/inlayHint", json!({ "textDocument": document, "range": whole }));
    assert!(hints.is_array(), "{hints}");

    // Reference counts, resolved lazily.
    let lenses = client.request("textDocument/codeLens", json!({ "textDocument": document }));
    assert_eq!(lenses.as_array().map(Vec::len), Some(2), "{lenses}");
    let acme = lenses
        .as_array()
        .and_then(|l| l.iter().find(|l| l["range"]["start"]["line"] == 12))
        .cloned()
        .expect("Acme's lens");
    let resolved = client.request("codeLens/resolve", acme);
    assert_eq!(resolved["command"]["command"], "nacl.showReferences");
    assert!(resolved["command"]["title"].as_str().unwrap_or_default().ends_with("references"), "{resolved}");
    client.shutdown();
}

/// The `kind` and diagnostic codes of a pulled report.
fn pulled(report: &Value) -> (String, Vec<String>) {
    let items = report["items"].as_array().cloned().unwrap_or_default();
    (report["kind"].as_str().unwrap_or_default().to_owned(), codes(&items))
}

#[test]
fn diagnostics_are_pulled_when_the_client_pulls_them() {
    let dir = scratch("pull");
    std::fs::write(dir.join("types.nacl"), "type salto.t {\n  string name {\n  }\n}\n").expect("write");
    let closed = dir.join("closed.nacl");
    std::fs::write(&closed, "salto.t c {\n  other = salto.t.instance.nope\n}\n").expect("write");
    let opened = dir.join("open.nacl");
    let duplicate = "salto.t a {\n  name = \"x\"\n  name = \"y\"\n}\n";
    std::fs::write(&opened, duplicate).expect("write");
    let (closed_uri, open_uri) = (uri(&closed), uri(&opened));
    let mut client = start();
    let capabilities = client.initialize(
        json!(uri(&dir)),
        json!({ "textDocument": { "diagnostic": {} }, "workspace": { "diagnostics": { "refreshSupport": true } } }),
    );
    assert_eq!(capabilities["diagnosticProvider"]["identifier"], "nacl");
    assert_eq!(capabilities["diagnosticProvider"]["workspaceDiagnostics"], true);

    // Until the client pulls the workspace, closed files are pushed as before (a client may pull
    // only open documents); a file opened loses what was pushed for it, and is pulled.
    let mut pushed = std::collections::BTreeMap::new();
    while pushed.len() < 2 {
        let m = client.wait_for(|m| m["method"] == "textDocument/publishDiagnostics");
        let diagnostics = m["params"]["diagnostics"].as_array().cloned().unwrap_or_default();
        pushed.insert(m["params"]["uri"].as_str().unwrap_or_default().to_owned(), codes(&diagnostics));
    }
    assert_eq!(pushed[&open_uri], ["E0315"]);
    assert_eq!(pushed[&closed_uri], ["W0501"]);
    client.open(&open_uri, 1, duplicate);
    assert_eq!(client.any_diagnostics(&open_uri), Vec::<Value>::new());
    let report = client.request("textDocument/diagnostic", json!({ "textDocument": { "uri": open_uri } }));
    assert_eq!(pulled(&report), ("full".to_owned(), vec!["E0315".to_owned()]));
    let result_id = report["resultId"].clone();
    let again = client.request(
        "textDocument/diagnostic",
        json!({ "textDocument": { "uri": open_uri }, "previousResultId": result_id }),
    );
    assert_eq!((again["kind"].clone(), again["resultId"].clone()), (json!("unchanged"), result_id));

    // The workspace pulled: every file with diagnostics is reported, and what was pushed goes.
    let report = client.request("workspace/diagnostic", json!({ "previousResultIds": [] }));
    let items = report["items"].as_array().cloned().unwrap_or_default();
    let of = |uri: &str| items.iter().find(|i| i["uri"] == uri).cloned().unwrap_or(Value::Null);
    assert_eq!(pulled(&of(&closed_uri)), ("full".to_owned(), vec!["W0501".to_owned()]));
    let previous = json!([{ "uri": closed_uri, "value": of(&closed_uri)["resultId"] }]);
    // The clearing push may come before or after the answer.
    let is_push = |m: &Value| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == closed_uri;
    let cleared = client.received.iter().rfind(|m| is_push(m)).is_some_and(|m| m["params"]["diagnostics"] == json!([]));
    if !cleared {
        assert_eq!(client.any_diagnostics(&closed_uri), Vec::<Value>::new());
    }
    let unchanged = client.request("workspace/diagnostic", json!({ "previousResultIds": previous }));
    assert_eq!(unchanged["items"].as_array().map(|i| i.iter().filter(|i| i["uri"] == closed_uri).count()), Some(1));
    assert!(
        unchanged["items"]
            .as_array()
            .is_some_and(|i| i.iter().any(|i| i["uri"] == closed_uri && i["kind"] == "unchanged"))
    );

    // Fixed on disk: the server asks the client to pull again, and the report clears the file.
    let pushed_before = client.received.len();
    std::fs::write(&closed, "salto.t c {\n  other = salto.t.instance.a\n}\n").expect("write");
    client.notify("workspace/didChangeWatchedFiles", json!({ "changes": [{ "uri": closed_uri, "type": 2 }] }));
    client.wait_for(|m| m["method"] == "workspace/diagnostic/refresh");
    let report = client.request("workspace/diagnostic", json!({ "previousResultIds": previous }));
    let items = report["items"].as_array().cloned().unwrap_or_default();
    let cleared = items.iter().find(|i| i["uri"] == closed_uri).cloned().unwrap_or(Value::Null);
    assert_eq!(pulled(&cleared), ("full".to_owned(), Vec::new()));

    // An edit that fixes the open document shows in its next pull; nothing is pushed for it.
    let end = json!({ "line": 3, "character": 0 });
    let start_of_dup = json!({ "line": 2, "character": 0 });
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": open_uri, "version": 2 }, "contentChanges": [{ "range": { "start": start_of_dup, "end": end }, "text": "" }] }),
    );
    let report = client.request("textDocument/diagnostic", json!({ "textDocument": { "uri": open_uri } }));
    assert_eq!(pulled(&report), ("full".to_owned(), Vec::new()));
    let pushed: Vec<_> =
        client.received[pushed_before..].iter().filter(|m| m["method"] == "textDocument/publishDiagnostics").collect();
    assert!(pushed.is_empty(), "nothing is pushed once the client pulls: {pushed:?}");
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn requests_cancelled_mid_flight_by_the_client_or_by_an_edit() {
    let dir = scratch("cancel");
    let file = dir.join("a.nacl");
    let text = "salto.t a {\n  x = 1\n}\n";
    std::fs::write(&file, text).expect("write");
    let file_uri = uri(&file);
    let mut client = Client::start_with_env(env!("CARGO_BIN_EXE_nacl-ls"), &[("NACL_LS_TEST_HOOKS", "1")]);
    client.initialize(json!(uri(&dir)), json!({}));
    client.open(&file_uri, 1, text);
    // A request that runs until cancelled: the server says when it is running.
    let in_flight = |client: &mut Client| {
        let id = client.next_id;
        client.next_id += 1;
        let params = json!({ "uri": file_uri });
        client.send(json!({ "jsonrpc": "2.0", "id": id, "method": "nacl/testWaitForCancel", "params": params }));
        client.wait_for(|m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"].as_str().is_some_and(|s| s.contains("waiting for cancellation"))
        });
        id
    };

    // `$/cancelRequest` while it runs: answered as cancelled.
    let id = in_flight(&mut client);
    client.notify("$/cancelRequest", json!({ "id": id }));
    let answer = client.wait_for(|m| lsp_client::is_answer(m, id));
    assert_eq!(answer["error"]["code"], -32800, "{answer}");

    // An edit while it runs: answered as overtaken by the edit (`ContentModified`), and the edit
    // is applied.
    let id = in_flight(&mut client);
    let at = json!({ "line": 1, "character": 6 });
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": file_uri, "version": 2 }, "contentChanges": [{ "range": { "start": at, "end": at }, "text": "2" }] }),
    );
    let answer = client.wait_for(|m| lsp_client::is_answer(m, id));
    assert_eq!(answer["error"]["code"], -32801, "{answer}");
    let document = client.request("nacl/documentText", json!({ "uri": file_uri }));
    assert_eq!(document, json!({ "version": 2, "text": "salto.t a {\n  x = 21\n}\n" }));
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A workspace of two files, one referring to the other, and one unresolved reference.
fn two_file_workspace(dir: &std::path::Path) -> (std::path::PathBuf, String) {
    let ws = dir.join("ws");
    std::fs::create_dir_all(ws.join("salto.config")).expect("dir");
    std::fs::create_dir_all(ws.join("envs/prod")).expect("dir");
    std::fs::write(
        ws.join("salto.config/envs.nacl"),
        "envs {\n  envs = [\n    {\n      name = \"prod\"\n    },\n  ]\n}\n",
    )
    .expect("write");
    std::fs::write(
        ws.join("types.nacl"),
        "type salto.person {\n  string name {\n  }\n}\nsalto.person bob {\n  name = \"Bob\"\n}\n",
    )
    .expect("write");
    let text =
        "salto.person alice {\n  name = salto.person.instance.bob.name\n  friend = salto.person.instance.nobody\n}\n";
    std::fs::write(ws.join("envs/prod/alice.nacl"), text).expect("write");
    std::fs::write(ws.join("other.nacl"), "salto.person carol {\n  name = salto.person.instance.nobody.name\n}\n")
        .expect("write");
    (ws, text.to_owned())
}

/// Opens `file` (as `document_uri`) under a client started on `folders`, and checks that it is
/// analysed in its workspace: one unresolved reference, definition and hover across files.
/// Returns the name of every file the server published diagnostics for, with under how many URIs.
fn answers_as_in_its_workspace(folders: &[String], document_uri: &str, text: &str) -> Vec<(String, usize)> {
    let mut client = start();
    let folders: Vec<Value> = folders.iter().map(|f| json!({ "uri": f, "name": "ws" })).collect();
    client.request(
        "initialize",
        json!({ "processId": null, "workspaceFolders": folders, "capabilities": full_client_capabilities() }),
    );
    client.notify("initialized", json!({}));
    // Every folder here is one place: it is indexed once.
    client.wait_for(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end");
    client.open(document_uri, 1, text);
    let codes_found = codes(&client.diagnostics(document_uri, 1));
    assert_eq!(codes_found, ["W0501"], "only `nobody` is unresolved");
    let at = json!({ "textDocument": { "uri": document_uri }, "position": { "line": 1, "character": 36 } });
    let definition = client.request("textDocument/definition", at.clone());
    let target = definition[0]["uri"].as_str().unwrap_or_default().to_owned();
    let target_path = target.trim_start_matches("file://").trim_start_matches("localhost");
    let real = std::fs::canonicalize(target_path).expect("the target exists");
    assert!(real.ends_with("ws/types.nacl"), "{definition}");
    // Under the folder as the client wrote it.
    let folder =
        folders[0]["uri"].as_str().unwrap_or_default().trim_end_matches('/').replace("file://localhost", "file://");
    assert!(target.starts_with(&folder) || folder.contains("envs"), "{target} is not under {folder}");
    let hover = client.request("textDocument/hover", at);
    assert!(hover["contents"]["value"].as_str().is_some_and(|v| v.contains("`salto.person.instance.bob`")), "{hover}");
    // The closed file's diagnostics come from the workspace check (perhaps already).
    let other = |m: &Value| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"].as_str().is_some_and(|u| u.ends_with("/other.nacl"))
    };
    if !client.received.iter().any(other) {
        client.wait_for(other);
    }
    let mut uris: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
    for message in client.received.iter().filter(|m| m["method"] == "textDocument/publishDiagnostics") {
        if !message["params"]["diagnostics"].as_array().is_some_and(Vec::is_empty) {
            let uri = message["params"]["uri"].as_str().unwrap_or_default();
            uris.entry(uri.rsplit('/').next().unwrap_or_default().to_owned()).or_default().insert(uri.to_owned());
        }
    }
    client.shutdown();
    uris.into_iter().map(|(name, uris)| (name, uris.len())).collect()
}

#[cfg(unix)]
#[test]
fn a_workspace_root_is_a_place_not_a_spelling() {
    use std::os::unix::fs::symlink;
    let dir = scratch("roots").canonicalize().expect("real");
    let (ws, text) = two_file_workspace(&dir);
    std::fs::create_dir_all(dir.join("work")).expect("dir");
    symlink(&ws, dir.join("link")).expect("symlink");
    let real_doc = ws.join("envs/prod/alice.nacl");
    let linked_doc = dir.join("link/envs/prod/alice.nacl");
    let spelled = |path: &str| format!("{}/{path}", uri(&dir));

    // The plain root, and the spellings that once broke it.
    answers_as_in_its_workspace(&[uri(&ws)], &uri(&real_doc), &text);
    answers_as_in_its_workspace(&[spelled("work/../ws")], &uri(&real_doc), &text);
    answers_as_in_its_workspace(&[spelled("link")], &uri(&real_doc), &text);
    answers_as_in_its_workspace(&[uri(&ws)], &uri(&linked_doc), &text);
    answers_as_in_its_workspace(&[spelled("ws/envs/../envs/prod")], &uri(&real_doc), &text);
    // Spellings that always worked stay working.
    answers_as_in_its_workspace(&[format!("{}/", uri(&ws))], &uri(&real_doc), &text);
    answers_as_in_its_workspace(&[spelled("./ws")], &uri(&real_doc), &text);
    answers_as_in_its_workspace(&[uri(&ws).replace("file://", "file://localhost")], &uri(&real_doc), &text);

    // One folder added by two spellings: every diagnostic is published once.
    let once = [("alice.nacl".to_owned(), 1), ("other.nacl".to_owned(), 1)];
    assert_eq!(answers_as_in_its_workspace(&[uri(&ws)], &uri(&real_doc), &text), once);
    let published = answers_as_in_its_workspace(&[uri(&ws), spelled("link")], &uri(&real_doc), &text);
    assert_eq!(published, once);

    // A change on disk announced through the link is a change in the workspace.
    let mut client = start();
    client.request(
        "initialize",
        json!({ "processId": null, "rootUri": uri(&ws), "capabilities": full_client_capabilities() }),
    );
    client.notify("initialized", json!({}));
    let other = uri(&ws.join("other.nacl"));
    let is_other = |m: &Value| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == other;
    if !client.received.iter().any(is_other) {
        client.wait_for(is_other);
    }
    std::fs::write(ws.join("other.nacl"), "salto.person carol {\n  name = salto.person.instance.bob.name\n}\n")
        .expect("write");
    let through_link = uri(&dir.join("link/other.nacl"));
    client.notify("workspace/didChangeWatchedFiles", json!({ "changes": [{ "uri": through_link, "type": 2 }] }));
    let cleared = client.wait_for(is_other);
    assert_eq!(cleared["params"]["diagnostics"], json!([]), "{cleared}");
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn documents_that_are_not_files_are_islands_and_keep_their_uris() {
    let dir = scratch("islands").canonicalize().expect("real");
    let mut client = start();
    client.initialize(json!(uri(&dir)), json!({}));
    let text = "type salto.t {\n}\nsalto.t a {\n}\n";
    let others =
        ["untitled:Untitled-1", "untitled:Untitled-2", "http://example.com/a.nacl", "file://server/share/a.nacl"];
    for (i, document) in others.iter().enumerate() {
        client.open(document, 1, text);
        assert_eq!(client.diagnostics(document, 1), Vec::<Value>::new(), "document {i} shares nothing with the others");
    }
    let lone = uri(&dir.join("lone.nacl"));
    client.open(&lone, 1, text);
    assert_eq!(client.diagnostics(&lone, 1), Vec::<Value>::new());
    let at = json!({ "textDocument": { "uri": others[0] }, "position": { "line": 2, "character": 2 } });
    let definition = client.request("textDocument/definition", at);
    assert_eq!(definition[0]["uri"], others[0], "{definition}");
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn go_to_service_opens_only_web_urls() {
    // The state fixture with SUP's service URL turned into a local file.
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../analysis/test_data/state_workspace");
    let copy = scratch("service-url").join("src");
    let status = std::process::Command::new("cp").arg("-r").arg(&src).arg(&copy).status().expect("cp runs");
    assert!(status.success());
    let state = copy.join("salto.config/states/prod.jira.jsonl");
    let text = std::fs::read_to_string(&state).expect("state fixture");
    std::fs::write(&state, text.replace("https://example.atlassian.net/jira/projects/SUP", "file:///etc/passwd"))
        .expect("write");
    let root = nacl_corpus::fixture_workspace(&copy).canonicalize().expect("fixture");
    let sup = root.join("jira/Records/Project/SUP.nacl");
    let mut client = start();
    client.initialize(json!(uri(&root)), json!({ "window": { "showDocument": { "support": true } } }));
    client.open(&uri(&sup), 1, &std::fs::read_to_string(&sup).expect("fixture file"));
    // Wait until the state is read (the instance is then type-checked).
    while client.diagnostics(&uri(&sup), 1).is_empty() {}
    let at = json!({ "textDocument": { "uri": uri(&sup) }, "position": { "line": 2, "character": 4 } });
    let (answer, text) = go_to_service_with_message(&mut client, at);
    assert_eq!(answer, Value::Null);
    assert!(text.starts_with("Not opening `file:///etc/passwd`: only https and http"), "{text}");
    assert!(client.shown.is_empty(), "nothing was opened: {:?}", client.shown);
    client.shutdown();
    let _ = copy.parent().map(std::fs::remove_dir_all);
}

#[test]
fn hcl_files_get_diagnostics_outline_highlighting_folding_and_formatting() {
    let dir = scratch("hcl");
    std::fs::write(dir.join("a.nacl"), "salto.t a {\n  x = 1\n}\n").expect("write");
    let closed = dir.join("closed.tf");
    std::fs::write(&closed, "broken = [1 2]\n").expect("write");
    let file = dir.join("main.hcl");
    let text = "resource \"aws_instance\" web {\nami=\"x\"\n  tags = {\n    a = 1\n  }\n}\n";
    std::fs::write(&file, text).expect("write");
    let (root, file_uri) = (uri(&dir), uri(&file));
    let mut client = start();
    client.initialize(json!(root), json!({}));
    client.notify("initialized", json!({}));
    // Closed HCL files are checked with the workspace.
    let closed_diagnostics = client.any_diagnostics(&uri(&closed));
    assert_eq!(codes(&closed_diagnostics), ["H0208"], "{closed_diagnostics:?}");

    client.open(&file_uri, 1, text);
    assert_eq!(client.diagnostics(&file_uri, 1), Vec::<Value>::new());
    let broken = "resource \"aws_instance\" web {\n  ami = \"x\n}\n";
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": file_uri, "version": 2 }, "contentChanges": [{ "text": broken }] }),
    );
    let diagnostics = client.diagnostics(&file_uri, 2);
    assert_eq!(codes(&diagnostics), ["H0102"], "{diagnostics:?}");
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": file_uri, "version": 3 }, "contentChanges": [{ "text": text }] }),
    );
    assert_eq!(client.diagnostics(&file_uri, 3), Vec::<Value>::new());

    let document = json!({ "textDocument": { "uri": file_uri } });
    let symbols = client.request("textDocument/documentSymbol", document.clone());
    assert_eq!(symbols[0]["name"], "aws_instance web");
    assert_eq!(symbols[0]["detail"], "resource");
    let children: Vec<&Value> =
        symbols[0]["children"].as_array().expect("children").iter().map(|c| &c["name"]).collect();
    assert_eq!(children, [&json!("ami"), &json!("tags")]);

    let tokens = client.request("textDocument/semanticTokens/full", document.clone());
    let data: Vec<u64> = serde_json::from_value(tokens["data"].clone()).expect("token data");
    // `resource`: line 0, column 0, 8 long, a type (1), declared.
    assert_eq!(&data[..5], &[0, 0, 8, 1, 1]);

    let folds = client.request("textDocument/foldingRange", document.clone());
    assert_eq!(folds.as_array().map(Vec::len), Some(2), "{folds}");

    let edits = client.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": file_uri }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    assert_eq!(edits[0]["newText"], "resource \"aws_instance\" web {\n  ami = \"x\"\n  tags = {\n    a = 1\n  }\n}\n");
    // Hover shows a constant expression's type and value; on a name it shows nothing yet.
    let on_value = json!({ "textDocument": { "uri": file_uri }, "position": { "line": 1, "character": 5 } });
    let hover = client.request("textDocument/hover", on_value);
    assert!(hover["contents"]["value"].as_str().is_some_and(|v| v.contains("string")), "{hover}");
    // NaCl-only requests answer nothing for HCL rather than reading it as NaCl.
    let at = json!({ "textDocument": { "uri": file_uri }, "position": { "line": 1, "character": 1 } });
    assert_eq!(client.request("textDocument/hover", at.clone()), Value::Null);
    assert_eq!(client.request("textDocument/definition", at), Value::Null);
    // A `for` variable: definition and references within its expression.
    let loops = uri(&dir.join("loops.hcl"));
    client.open(&loops, 1, "x = [for v in l : v]\n");
    let use_site = json!({ "textDocument": { "uri": loops }, "position": { "line": 0, "character": 18 }, "context": { "includeDeclaration": true } });
    let definition = client.request("textDocument/definition", use_site.clone());
    assert_eq!(definition[0]["range"]["start"], json!({ "line": 0, "character": 9 }), "{definition}");
    let references = client.request("textDocument/references", use_site);
    assert_eq!(references.as_array().map(Vec::len), Some(2), "{references}");
    // The setting hcl.files makes more files HCL: a document opened afterwards is read as HCL.
    client.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "nacl": { "hcl": { "files": ["**/*.conf"] } } } }),
    );
    let conf = uri(&dir.join("app.conf"));
    client.open(&conf, 1, "port = [1 2]\n");
    assert_eq!(codes(&client.diagnostics(&conf, 1)), ["H0208"]);
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hcldec_specs_drive_diagnostics_completion_hover_definition_and_decoded_json() {
    let dir = scratch("hcldec");
    std::fs::create_dir_all(dir.join("specs")).expect("folder");
    let spec_path = dir.join("specs/app.hcldec");
    let spec = "object {\n  # The application's name.\n  attr \"name\" {\n    type     = string\n    required = true\n  }\n  attr \"port\" {\n    type = number\n  }\n  block_map \"route\" {\n    labels = [\"path\"]\n    object {\n      attr \"target\" {\n        type = string\n      }\n    }\n  }\n}\n";
    std::fs::write(&spec_path, spec).expect("write");
    // A closed file described by the settings' glob: checked with the workspace.
    std::fs::write(dir.join("other.app"), "").expect("write");
    let closed = dir.join("closed.hcl");
    std::fs::write(&closed, "# hcldec-spec: specs/app.hcldec\nname = \"x\"\nprot = 1\n").expect("write");
    let file = dir.join("app.hcl");
    let text = "# hcldec-spec: specs/app.hcldec\nname = \"web\"\nport = \"eighty\"\n\n";
    std::fs::write(&file, text).expect("write");
    let (root, file_uri, spec_uri) = (uri(&dir), uri(&file), uri(&spec_path));
    let mut client = start();
    client.initialize(json!(root), json!({}));
    client.notify("initialized", json!({}));
    let closed_diagnostics = client.any_diagnostics(&uri(&closed));
    assert_eq!(codes(&closed_diagnostics), ["E0703"], "{closed_diagnostics:?}");

    client.open(&file_uri, 1, text);
    let diagnostics = client.diagnostics(&file_uri, 1);
    assert_eq!(codes(&diagnostics), ["E0703"], "{diagnostics:?}");
    assert_eq!(diagnostics[0]["range"]["start"], json!({ "line": 2, "character": 7 }), "{diagnostics:?}");

    // Completion on the empty line: what the spec allows and is not written yet.
    let end = json!({ "textDocument": { "uri": file_uri }, "position": { "line": 3, "character": 0 } });
    let completion = client.request("textDocument/completion", end);
    let items = completion["items"].as_array().cloned().or_else(|| completion.as_array().cloned()).unwrap_or_default();
    let labels: Vec<&str> = items.iter().filter_map(|i| i["label"].as_str()).collect();
    assert_eq!(labels, ["route"], "{completion}");
    // This client takes no snippets: the label's placeholder becomes its name.
    assert_eq!(items[0]["textEdit"]["newText"], "route \"path\" {\n  \n}", "{completion}");

    // Hover and definition on `name`.
    let on_name = json!({ "textDocument": { "uri": file_uri }, "position": { "line": 1, "character": 1 } });
    let hover = client.request("textDocument/hover", on_name.clone());
    let shown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        shown.contains("attribute `name`: `string`, required") && shown.contains("The application's name."),
        "{hover}"
    );
    let definition = client.request("textDocument/definition", on_name);
    assert_eq!(definition[0]["uri"], json!(spec_uri), "{definition}");
    assert_eq!(definition[0]["range"]["start"], json!({ "line": 2, "character": 2 }), "{definition}");

    // The code lens and the command behind it.
    let lenses = client.request("textDocument/codeLens", json!({ "textDocument": { "uri": file_uri } }));
    assert_eq!(lenses[0]["command"]["command"], "nacl.showDecodedJson", "{lenses}");
    let fixed = "# hcldec-spec: specs/app.hcldec\nname = \"web\"\nport = 80\n";
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": file_uri, "version": 2 }, "contentChanges": [{ "text": fixed }] }),
    );
    assert_eq!(client.diagnostics(&file_uri, 2), Vec::<Value>::new());
    let decoded = client.request(
        "workspace/executeCommand",
        json!({ "command": "nacl.hcldec.decodedJson", "arguments": [{ "uri": file_uri }] }),
    );
    let decoded: Value = serde_json::from_str(decoded.as_str().expect("JSON text")).expect("JSON");
    assert_eq!(decoded, json!({ "name": "web", "port": 80, "route": {} }));

    // Editing the spec re-checks the open file that uses it.
    client.open(&spec_uri, 1, spec);
    let renamed = spec.replace("\"port\"", "\"listen\"");
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": spec_uri, "version": 2 }, "contentChanges": [{ "text": renamed }] }),
    );
    let rechecked = client.any_diagnostics(&file_uri);
    assert_eq!(codes(&rechecked), ["E0703"], "{rechecked:?}");
    assert!(rechecked[0]["message"].as_str().is_some_and(|m| m.contains("\"port\" is not expected")), "{rechecked:?}");

    // Globs in the settings associate specs with files that have no directive.
    client.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "nacl": { "hcl": { "files": ["**/*.app"] }, "hcldec": { "specs": { "*.app": "specs/app.hcldec" } } } } }),
    );
    let by_glob = uri(&dir.join("service.app"));
    client.open(&by_glob, 1, "name = \"svc\"\nextra = true\n");
    let glob_diagnostics = client.diagnostics(&by_glob, 1);
    assert_eq!(codes(&glob_diagnostics), ["E0703"], "{glob_diagnostics:?}");
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn armlang_files_get_diagnostics_navigation_completion_formatting_lenses_and_templates() {
    let dir = scratch("arm");
    let file = dir.join("main.arm");
    let text = "input string location\nresource azrm 'Microsoft.Network/virtualNetworks@2019-11-01' vnet: {\n  name: 'vnet'\n  location: location\n}\nresource azrm 'Microsoft.Network/networkInterfaces@2019-10-01' nic: {\n  name: 'nic'\n  properties: { subnet: vnet.id() }\n}\noutput nicId: nic.id()\n";
    std::fs::write(&file, text).expect("write");
    let (root, file_uri) = (uri(&dir), uri(&file));
    let mut client = start();
    client.initialize(json!(root), json!({}));
    client.notify("initialized", json!({}));
    client.open(&file_uri, 1, text);
    assert_eq!(client.diagnostics(&file_uri, 1), Vec::<Value>::new());

    let broken = text.replace("location: location", "location: locaton");
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": file_uri, "version": 2 }, "contentChanges": [{ "text": broken }] }),
    );
    // Until the workspace is indexed only syntax errors are published (a loaded machine can take
    // that long): the check's own come with the next publication of this version.
    let published = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == file_uri
            && m["params"]["version"] == 2
            && m["params"]["diagnostics"].as_array().is_some_and(|d| !d.is_empty())
    });
    let diagnostics = published["params"]["diagnostics"].as_array().cloned().unwrap_or_default();
    assert_eq!(codes(&diagnostics), ["E0802"], "{diagnostics:?}");
    assert!(
        diagnostics[0]["message"].as_str().is_some_and(|m| m.contains("did you mean `location`")),
        "{diagnostics:?}"
    );
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": file_uri, "version": 3 }, "contentChanges": [{ "text": text }] }),
    );
    assert_eq!(client.diagnostics(&file_uri, 3), Vec::<Value>::new());

    let at = |line: u32, character: u32| json!({ "textDocument": { "uri": file_uri }, "position": { "line": line, "character": character } });
    // `vnet` in `vnet.id()` goes to the resource's name, and hovers with its type and version.
    let definition = client.request("textDocument/definition", at(7, 25));
    assert_eq!(definition[0]["range"]["start"], json!({ "line": 1, "character": 61 }), "{definition}");
    let hover = client.request("textDocument/hover", at(7, 25));
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(markdown.contains("Microsoft.Network/virtualNetworks") && markdown.contains("2019-11-01"), "{hover}");
    let references = client.request("textDocument/references", json!({ "textDocument": { "uri": file_uri }, "position": { "line": 0, "character": 15 }, "context": { "includeDeclaration": true } }));
    assert_eq!(references.as_array().map(Vec::len), Some(2), "{references}");
    let rename = client.request(
        "textDocument/rename",
        json!({ "textDocument": { "uri": file_uri }, "position": { "line": 0, "character": 15 }, "newName": "region" }),
    );
    assert_eq!(rename["changes"][file_uri.as_str()].as_array().map(Vec::len), Some(2), "{rename}");
    let refused = client.respond(
        "textDocument/rename",
        json!({ "textDocument": { "uri": file_uri }, "position": { "line": 0, "character": 15 }, "newName": "vnet" }),
    );
    assert!(refused["error"]["message"].as_str().unwrap_or_default().contains("already"), "{refused}");

    // Completion in an expression offers names in scope and functions; after a resource's `.`, `id()`.
    let completion = client.request("textDocument/completion", at(3, 12));
    let labels: Vec<&str> =
        completion["items"].as_array().expect("items").iter().filter_map(|i| i["label"].as_str()).collect();
    assert!(labels.contains(&"location") && labels.contains(&"vnet") && labels.contains(&"guid"), "{labels:?}");
    let member = client.request("textDocument/completion", at(7, 29));
    let labels: Vec<&str> =
        member["items"].as_array().expect("items").iter().filter_map(|i| i["label"].as_str()).collect();
    assert!(labels.contains(&"id()"), "{labels:?}");

    let document = json!({ "textDocument": { "uri": file_uri } });
    let symbols = client.request("textDocument/documentSymbol", document.clone());
    let names: Vec<&str> = symbols.as_array().expect("symbols").iter().filter_map(|s| s["name"].as_str()).collect();
    assert_eq!(names, ["location", "vnet", "nic", "nicId"]);
    let lenses = client.request("textDocument/codeLens", document.clone());
    let titles: Vec<&str> =
        lenses.as_array().expect("lenses").iter().filter_map(|l| l["command"]["title"].as_str()).collect();
    assert_eq!(titles, ["Show ARM template", "depends on nothing", "depends on vnet"]);
    let template = client.request(
        "workspace/executeCommand",
        json!({ "command": "nacl.arm.template", "arguments": [{ "uri": file_uri }] }),
    );
    let template: Value = serde_json::from_str(template.as_str().expect("the template's text")).expect("JSON");
    assert_eq!(
        template["resources"][0]["dependsOn"],
        json!(["[resourceId('Microsoft.Network/virtualNetworks', 'vnet')]"])
    );

    let messy = "input   string location\nvariable  v:{a:1}\n";
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": file_uri, "version": 4 }, "contentChanges": [{ "text": messy }] }),
    );
    let edits = client.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": file_uri }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    assert_eq!(edits[0]["newText"], "input string location\nvariable v: {\n  a: 1\n}\n", "{edits}");
    let _ = std::fs::remove_dir_all(&dir);
}
