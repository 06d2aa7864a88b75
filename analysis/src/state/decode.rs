//! The container of a state file: gzip, or the older gzip that was additionally UTF-8-encoded
//! byte by byte (files written before Salto 0.3.31).

use flate2::bufread::MultiGzDecoder;
use std::io::{self, BufRead, BufReader, Read};

/// How a state file's bytes are packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// Plain gzip (`1f 8b`).
    Gzip,
    /// Gzip whose bytes were written as UTF-8 code points (`1f c2 8b`).
    MangledGzip,
}

impl Container {
    /// Recognises the container from the first bytes of a file.
    pub fn sniff(head: &[u8]) -> Option<Container> {
        match head {
            [0x1f, 0x8b, ..] => Some(Container::Gzip),
            [0x1f, 0xc2, 0x8b, ..] => Some(Container::MangledGzip),
            _ => None,
        }
    }
}

/// The most decompressed text one state file may hold: the largest real state file inflates to
/// about 25 MB, so this is far above any real one and far below what a decompression bomb
/// would cost.
pub const MAX_INFLATED: u64 = 512 << 20;

/// The longest line of decompressed text (state files put each element on its own line in the
/// keyed layout, and all of them on one line in the positional one).
pub const MAX_LINE: u64 = 256 << 20;

/// Decompressed text, buffered and capped.
pub type Inflated<R> = BufReader<Capped<MultiGzDecoder<BufReader<R>>>>;

/// The decompressed JSON text of a plain gzip state file, capped (see [`Capped`]). The reader
/// is a `BufReader` of a concrete type, which JSON parsing reads byte by byte quickly.
pub fn gunzip<R: Read>(file: R) -> Inflated<R> {
    let inflated = MultiGzDecoder::new(BufReader::with_capacity(1 << 16, file));
    BufReader::with_capacity(1 << 16, Capped::new(inflated, MAX_INFLATED, MAX_LINE))
}

/// The decompressed JSON text of a state file whose gzip bytes were UTF-8-encoded, capped.
pub fn gunzip_mangled<R: Read>(file: R) -> Inflated<Demangle<BufReader<R>>> {
    let demangled = Demangle { inner: BufReader::with_capacity(1 << 16, file) };
    let inflated = MultiGzDecoder::new(BufReader::with_capacity(1 << 16, demangled));
    BufReader::with_capacity(1 << 16, Capped::new(inflated, MAX_INFLATED, MAX_LINE))
}

/// A reader that fails once more than `max_total` bytes have passed through it, or a line
/// (bytes between two `\n`) grows longer than `max_line`: decompression bombs stop early,
/// with a clear error, instead of costing gigabytes.
pub struct Capped<R> {
    inner: R,
    total: u64,
    line: u64,
    max_total: u64,
    max_line: u64,
}

impl<R> Capped<R> {
    /// Caps `inner` at `max_total` bytes in all and `max_line` bytes a line.
    pub fn new(inner: R, max_total: u64, max_line: u64) -> Capped<R> {
        Capped { inner, total: 0, line: 0, max_total, max_line }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(out)?;
        let chunk = &out[..read];
        self.total += read as u64;
        self.line = match chunk.iter().rposition(|&b| b == b'\n') {
            Some(at) => (read - at - 1) as u64,
            None => self.line + read as u64,
        };
        if self.total > self.max_total {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "it inflates to more than {} MiB, far more than any real state file (a decompression bomb?)",
                    self.max_total >> 20
                ),
            ));
        }
        if self.line > self.max_line {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "it holds a line longer than {} MiB, far longer than in any real state file",
                    self.max_line >> 20
                ),
            ));
        }
        Ok(read)
    }
}

/// Undoes the byte-per-code-point UTF-8 encoding: ASCII bytes pass through, and a lead byte
/// `C2`/`C3` with its continuation byte gives back the one byte (`0x80..=0xFF`) it encoded.
pub struct Demangle<R> {
    inner: R,
}

impl<R: BufRead> Read for Demangle<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut written = 0;
        while written < out.len() {
            let available = self.inner.fill_buf()?;
            if available.is_empty() {
                break;
            }
            let mut used = 0;
            while used < available.len() && written < out.len() {
                let byte = available[used];
                if byte < 0x80 {
                    out[written] = byte;
                    used += 1;
                } else if byte == 0xc2 || byte == 0xc3 {
                    let Some(&next) = available.get(used + 1) else {
                        // The pair straddles the buffer: take the lead byte alone next time.
                        break;
                    };
                    out[written] = ((byte & 0x03) << 6) | (next & 0x3f);
                    used += 2;
                } else {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("byte {byte:#04x} cannot occur in a UTF-8-encoded gzip state file"),
                    ));
                }
                written += 1;
            }
            if used == 0 {
                // A lone lead byte at the end of the buffer: read it with its continuation.
                let mut pair = [0u8; 2];
                self.inner.read_exact(&mut pair)?;
                out[written] = ((pair[0] & 0x03) << 6) | (pair[1] & 0x3f);
                written += 1;
                continue;
            }
            self.inner.consume(used);
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nacl_corpus::{gzip, mangle};

    fn read_all(bytes: Vec<u8>) -> String {
        let mut text = String::new();
        let result = match Container::sniff(&bytes).expect("a state container") {
            Container::Gzip => gunzip(&bytes[..]).read_to_string(&mut text),
            Container::MangledGzip => gunzip_mangled(&bytes[..]).read_to_string(&mut text),
        };
        result.expect("decodes");
        text
    }

    #[test]
    fn both_containers_decode() {
        let text = "[{\"a\":1}]\n{\"x\":\"é\"}\n".repeat(5000);
        assert_eq!(read_all(gzip(text.as_bytes())), text);
        let mangled = mangle(&gzip(text.as_bytes()));
        assert_eq!(Container::sniff(&mangled), Some(Container::MangledGzip));
        assert_eq!(read_all(mangled), text);
    }

    #[test]
    fn capped_readers_stop_bombs() {
        let mut text = String::new();
        let error = Capped::new("ab\ncd\n".repeat(100).as_bytes(), 50, 10).read_to_string(&mut text);
        assert!(error.expect_err("over the total").to_string().contains("inflates to more than"));
        let error = Capped::new(" ".repeat(100).as_bytes(), 1000, 10).read_to_string(&mut String::new());
        assert!(error.expect_err("over the line").to_string().contains("line longer than"));
        let fits = Capped::new("ab\ncd\n".repeat(100).as_bytes(), 600, 3).read_to_string(&mut text);
        assert_eq!(fits.expect("within both caps"), 600);
    }

    #[test]
    fn other_bytes_are_not_a_state_file() {
        assert_eq!(Container::sniff(b"PK\x03\x04"), None);
        assert_eq!(Container::sniff(b"{\"account\":\"jira\"}"), None);
        assert_eq!(Container::sniff(b""), None);
    }
}
