//! The input guard: reads LSP messages from stdin and passes on only well-formed ones.
//!
//! tower-lsp-server stops reading its input for good after the first message it cannot decode (a
//! body that is not JSON, JSON that is not JSON-RPC, a bad header): one stray byte from a client
//! would end the session. This guard sits between stdin and the server. Each well-formed message
//! is passed on unchanged (with a plain `Content-Length` header); a malformed one is logged and
//! dropped, or, when it carries an `id`, replaced by a request the server answers with an
//! `InvalidRequest` error for that `id`, so the client is never left waiting.

use std::io;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tower_lsp_server::jsonrpc::{Request, Response};

/// The method a malformed request with an `id` is replaced by.
pub const INVALID_REQUEST: &str = "nacl/invalidRequest";

/// The largest message body accepted (a 128 MiB file in a `didOpen`, escaped, fits).
const MAX_BODY: usize = 512 << 20;

/// Copies messages from `input` to `output` until `input` ends, dropping or replacing malformed ones.
pub async fn guard(input: impl AsyncRead + Unpin, mut output: impl AsyncWrite + Unpin) -> io::Result<()> {
    let mut input = BufReader::with_capacity(1 << 16, input);
    loop {
        let Some(length) = read_header(&mut input).await? else { return Ok(()) };
        let Some(length) = length.filter(|&l| l <= MAX_BODY) else {
            tracing::warn!("dropped a message without a valid Content-Length header (or over {MAX_BODY} bytes)");
            continue;
        };
        let mut body = vec![0; length];
        if let Err(error) = input.read_exact(&mut body).await {
            tracing::warn!("the input ended inside a message: {error}");
            return Ok(());
        }
        let Some(body) = checked(body) else { continue };
        output.write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes()).await?;
        output.write_all(&body).await?;
        output.flush().await?;
    }
}

/// Reads one header block: `Ok(None)` at the end of the input, else the `Content-Length` it
/// gives (`None` when it gives none that parses).
async fn read_header(input: &mut (impl AsyncBufReadExt + Unpin)) -> io::Result<Option<Option<usize>>> {
    let mut length = None;
    let mut seen_any = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line).await? == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            // Blank lines before a header are noise; one after it ends the header.
            if seen_any {
                return Ok(Some(length));
            }
            continue;
        }
        seen_any = true;
        if let Some((name, value)) = text.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok();
        }
    }
}

/// The body to pass on: itself when the server can decode it, a replacement request for a
/// malformed one with an `id`, or `None` (logged) for anything else.
fn checked(body: Vec<u8>) -> Option<Vec<u8>> {
    if serde_json::from_slice::<Request>(&body).is_ok() || serde_json::from_slice::<Response>(&body).is_ok() {
        return Some(body);
    }
    let preview = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
    let id = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v.get("id").cloned())
        .filter(|id| id.is_number() || id.is_string());
    match id {
        Some(id) => {
            tracing::warn!("answering a malformed request with an error: {preview}");
            let replacement = serde_json::json!({ "jsonrpc": "2.0", "id": id, "method": INVALID_REQUEST });
            Some(replacement.to_string().into_bytes())
        }
        None => {
            tracing::warn!("dropped a message that is not JSON-RPC: {preview}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(input: &[u8]) -> String {
        let mut output = Vec::new();
        guard(input, &mut output).await.expect("in memory");
        String::from_utf8(output).expect("UTF-8")
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[tokio::test]
    async fn well_formed_messages_pass_and_malformed_ones_do_not() {
        let request = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
        let input = [
            frame("{oops"),
            frame(r#"{"hello":"world"}"#),
            frame(r#"{"id":7,"params":3}"#),
            format!(
                "Content-Type: application/vscode-jsonrpc; charset=latin1\r\nContent-Length: {}\r\n\r\n{request}",
                request.len()
            ),
            "Bogus: header\r\n\r\n".to_owned(),
            frame(request),
        ]
        .concat();
        let replaced = r#"{"id":7,"jsonrpc":"2.0","method":"nacl/invalidRequest"}"#;
        assert_eq!(run(input.as_bytes()).await, [frame(replaced), frame(request), frame(request)].concat());
    }

    #[tokio::test]
    async fn a_truncated_message_ends_the_input_quietly() {
        assert_eq!(run(b"Content-Length: 100\r\n\r\n{\"jsonrpc\"").await, "");
    }
}
