//! Locates the real-world NaCl corpus for tests and benchmarks, unpacking it on first use, and
//! prepares fixture workspaces (with gzip state files) for tests.
//!
//! The archives live in `../shared/corpus` beside the checkout (override with
//! `NACL_CORPUS_ARCHIVES`); they are unpacked once into `target/corpus` (override with
//! `NACL_CORPUS_DIR`, which may also point at an already unpacked copy).

use std::{
    fs::File,
    path::{Path, PathBuf},
    process::Command,
};

/// The workspace root of this repository.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The folder holding one unpacked folder per corpus workspace, unpacking it if needed.
///
/// Panics with instructions when the corpus archives cannot be found: a test that needs the
/// corpus must not pass silently without it.
pub fn corpus_dir() -> PathBuf {
    let dest =
        std::env::var_os("NACL_CORPUS_DIR").map(PathBuf::from).unwrap_or_else(|| repo_root().join("target/corpus"));
    let archives = std::env::var_os("NACL_CORPUS_ARCHIVES")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared/corpus"));
    let unpack = archives.join("unpack");
    if !unpack.exists() {
        if dest.is_dir() && std::fs::read_dir(&dest).is_ok_and(|mut d| d.next().is_some()) {
            return dest;
        }
        panic!(
            "the NaCl corpus is missing: expected {} (set NACL_CORPUS_ARCHIVES to the folder with the archives, or NACL_CORPUS_DIR to an unpacked copy)",
            unpack.display()
        );
    }
    std::fs::create_dir_all(&dest).expect("cannot create the corpus folder");
    // Test binaries run in parallel: unpack under a lock. The script itself is idempotent.
    let lock = File::create(dest.join(".lock")).expect("cannot create the corpus lock file");
    lock.lock().expect("cannot lock the corpus folder");
    let status = Command::new("bash").arg(&unpack).arg(&dest).status().expect("cannot run the corpus unpack script");
    assert!(status.success(), "unpacking the corpus failed: {status}");
    lock.unlock().expect("cannot unlock the corpus folder");
    dest
}

/// The corpus workspaces: one folder each, sorted by name.
pub fn workspaces() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("cannot read the corpus folder")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The corpus workspace with the most bytes of NaCl, if the corpus has any.
pub fn largest_workspace() -> Option<PathBuf> {
    workspaces()
        .into_iter()
        .max_by_key(|dir| nacl_files(dir).iter().filter_map(|f| f.metadata().ok()).map(|m| m.len()).sum::<u64>())
}

/// Every `.nacl` file below `dir`, sorted.
pub fn nacl_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "nacl"))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    files
}

/// The texts of `files` (unreadable ones left out).
pub fn read_all(files: &[PathBuf]) -> Vec<String> {
    files.iter().filter_map(|f| std::fs::read_to_string(f).ok()).collect()
}

/// Gzip-compresses bytes, as Salto writes state files.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).expect("compressing in memory cannot fail");
    encoder.finish().expect("compressing in memory cannot fail")
}

/// Encodes each byte as one UTF-8 code point, as Salto before 0.3.31 wrote its gzip state files.
pub fn mangle(bytes: &[u8]) -> Vec<u8> {
    bytes.iter().map(|&b| char::from(b)).collect::<String>().into_bytes()
}

/// A fresh copy of the fixture workspace at `src`, in which every state file written as text
/// (`salto.config/states/*.jsonl`, readable in review) is replaced by its gzip form
/// (`*.jsonl.zip`), as Salto keeps it.
pub fn fixture_workspace(src: &Path) -> PathBuf {
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let name = src.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dest = repo_root().join("target/fixtures").join(format!("{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dest);
    for entry in walkdir::WalkDir::new(src).into_iter().filter_map(|e| e.ok()) {
        let relative = entry.path().strip_prefix(src).expect("walked below src");
        let target = dest.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("cannot create a fixture folder");
        } else if entry.path().extension().is_some_and(|x| x == "jsonl") {
            let text = std::fs::read(entry.path()).expect("cannot read a fixture state file");
            let mut zipped = target.into_os_string();
            zipped.push(".zip");
            std::fs::write(zipped, gzip(&text)).expect("cannot write a fixture state file");
        } else {
            std::fs::copy(entry.path(), &target).expect("cannot copy a fixture file");
        }
    }
    dest
}

/// Peak resident memory of a process in bytes (Linux's `VmHWM`), or 0 when unknown: for
/// benchmarks that report memory.
pub fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// What HashiCorp's reference implementation says of one file of the HCL corpus.
#[derive(Debug, Clone)]
pub struct HclReference {
    /// The file, under [`hcl_corpus_dir`].
    pub path: PathBuf,
    /// Whether it parses without error diagnostics.
    pub parse_ok: bool,
    /// Whether `hclfmt` leaves it unchanged.
    pub canonical: bool,
    /// The SHA-256 (hex) of what `hclfmt` prints for it.
    pub formatted_sha256: String,
}

/// The folder of the real-world HCL corpus (`../shared/corpus-hcl`, or `NACL_HCL_CORPUS`).
pub fn hcl_corpus_dir() -> PathBuf {
    std::env::var_os("NACL_HCL_CORPUS").map(PathBuf::from).unwrap_or_else(|| repo_root().join("../shared/corpus-hcl"))
}

/// Every file of the HCL corpus with the reference's verdict, from its `REFERENCE.jsonl`.
///
/// Panics when the corpus is missing: a test that needs it must not pass silently without it.
pub fn hcl_corpus() -> Vec<HclReference> {
    let dir = hcl_corpus_dir();
    let index = dir.join("REFERENCE.jsonl");
    let text = std::fs::read_to_string(&index).unwrap_or_else(|e| {
        panic!("the HCL corpus is missing: cannot read {} ({e}); set NACL_HCL_CORPUS", index.display())
    });
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).expect("REFERENCE.jsonl lines are JSON");
            let field = |name: &str| value.get(name).cloned().unwrap_or(serde_json::Value::Null);
            HclReference {
                path: dir.join(field("file").as_str().expect("each line names its file")),
                parse_ok: field("parse_ok").as_bool().unwrap_or(false),
                canonical: field("canonical").as_bool().unwrap_or(false),
                formatted_sha256: field("formatted_sha256").as_str().unwrap_or_default().to_owned(),
            }
        })
        .collect()
}

/// HashiCorp's `hclfmt` (the reference implementation of HCL), when `NACL_LS_HCLFMT` names it
/// (`tests/hcl-oracle/setup.sh` builds it from Debian's packages and prints the path).
///
/// Returns `None` without it, after saying so on stderr, unless `NACL_LS_REQUIRE_ORACLE=1`
/// (`tests/run-all` sets it), where a missing oracle fails the test.
pub fn hclfmt() -> Option<PathBuf> {
    match std::env::var_os("NACL_LS_HCLFMT").map(PathBuf::from) {
        Some(path) if path.is_file() => Some(path),
        other => {
            let required = std::env::var_os("NACL_LS_REQUIRE_ORACLE").is_some_and(|v| v == "1");
            let why = match other {
                Some(path) => format!("NACL_LS_HCLFMT names {}, which is not a file", path.display()),
                None => "NACL_LS_HCLFMT is not set (run tests/hcl-oracle/setup.sh)".to_owned(),
            };
            assert!(!required, "the HCL reference implementation is required: {why}");
            eprintln!("skipping the comparison with HashiCorp's hclfmt: {why}");
            None
        }
    }
}

/// What the reference says of `text`: whether it parses without errors, and (when it does) its
/// canonical form.
pub fn hclfmt_reference(hclfmt: &Path, text: &str) -> (bool, String) {
    use std::io::Write;
    let mut child = Command::new(hclfmt)
        .arg("-check")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("cannot run hclfmt");
    child.stdin.take().expect("stdin is piped").write_all(text.as_bytes()).expect("cannot write to hclfmt");
    let output = child.wait_with_output().expect("hclfmt did not finish");
    (output.status.success(), String::from_utf8_lossy(&output.stdout).into_owned())
}
