//! Finding `.nacl` files on disk, loading them safely, and checking their syntax in parallel.

use nacl_syntax::{ErrorCode, SyntaxError, TextRange, TextSize};
use std::{
    io,
    path::{Path, PathBuf},
};

/// The largest file nacl-ls reads. Larger files get one clear error instead of being analysed.
pub const MAX_FILE_SIZE: u64 = 128 << 20;

/// Whether `path` names a NaCl file.
pub fn is_nacl_file(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext == "nacl")
}

/// A path given on the command line that could not be searched.
#[derive(Debug)]
pub struct DiscoveryError {
    /// The path.
    pub path: PathBuf,
    /// Why it could not be searched.
    pub error: io::Error,
}

/// Every `.nacl` file under `roots` (files given directly are kept whatever their name),
/// sorted and without duplicates. Hidden folders (`.git`, ...) and `node_modules` are skipped;
/// symbolic links are not followed, so link loops cannot hang the search.
pub fn discover(roots: &[PathBuf]) -> (Vec<PathBuf>, Vec<DiscoveryError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for root in roots {
        match std::fs::metadata(root) {
            Ok(meta) if meta.is_file() => files.push(root.clone()),
            Ok(_) => {
                let walker = walkdir::WalkDir::new(root).into_iter().filter_entry(|entry| {
                    entry.depth() == 0 || !entry.file_type().is_dir() || !is_skipped_dir(entry.file_name())
                });
                for entry in walker {
                    match entry {
                        Ok(entry) if entry.file_type().is_file() && is_nacl_file(entry.path()) => {
                            files.push(entry.into_path())
                        }
                        Ok(_) => {}
                        Err(err) => {
                            let path = err.path().map_or_else(|| root.clone(), Path::to_path_buf);
                            errors.push(DiscoveryError { path, error: err.into() });
                        }
                    }
                }
            }
            Err(error) => errors.push(DiscoveryError { path: root.clone(), error }),
        }
    }
    files.sort();
    files.dedup();
    (files, errors)
}

fn is_skipped_dir(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_some_and(|name| name.starts_with('.') || name == "node_modules")
}

/// A file's text as nacl-ls reads it, or why it cannot be analysed.
#[derive(Debug)]
pub struct LoadedFile {
    /// The text; invalid UTF-8 is replaced by U+FFFD so the rest can still be shown.
    pub text: String,
    /// A file-level error (unreadable, not UTF-8, too large), if any.
    pub error: Option<SyntaxError>,
}

/// Reads a file for analysis, never failing: problems become a file-level error.
pub fn load(path: &Path) -> LoadedFile {
    let start = TextSize::from(0);
    let fail =
        |code, message: String| LoadedFile { text: String::new(), error: Some(SyntaxError::at(code, start, message)) };
    match std::fs::metadata(path) {
        Ok(meta) if meta.len() > MAX_FILE_SIZE => {
            return fail(
                ErrorCode::FileTooLarge,
                format!("file is {} MiB; nacl-ls analyses files up to {} MiB", meta.len() >> 20, MAX_FILE_SIZE >> 20),
            );
        }
        Ok(meta) if !meta.is_file() => return fail(ErrorCode::UnreadableFile, "not a regular file".to_owned()),
        Ok(_) => {}
        Err(err) => return fail(ErrorCode::UnreadableFile, format!("cannot read the file: {err}")),
    }
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => LoadedFile { text, error: None },
            Err(err) => {
                let valid_up_to = err.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
                let at = TextSize::from(u32::try_from(valid_up_to).unwrap_or(u32::MAX));
                let message =
                    format!("the file is not valid UTF-8 (first bad byte at offset {valid_up_to}); save it as UTF-8");
                LoadedFile {
                    text,
                    error: Some(SyntaxError::new(ErrorCode::InvalidUtf8, TextRange::empty(at), message)),
                }
            }
        },
        Err(err) => fail(ErrorCode::UnreadableFile, format!("cannot read the file: {err}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_is_reported_at_the_bad_byte() {
        let dir = std::env::temp_dir().join(format!("nacl-analysis-utf8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("bad.nacl");
        std::fs::write(&path, b"salto.t a {\n  x = \"\xff\"\n}\n").expect("write");
        let loaded = load(&path);
        let error = loaded.error.expect("an encoding error");
        assert_eq!(error.code, ErrorCode::InvalidUtf8);
        assert_eq!(u32::from(error.range.start()), 19);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn discovery_skips_hidden_folders_and_sorts() {
        let dir = std::env::temp_dir().join(format!("nacl-analysis-discover-{}", std::process::id()));
        for sub in ["b", "a", ".git"] {
            std::fs::create_dir_all(dir.join(sub)).expect("dir");
            std::fs::write(dir.join(sub).join("x.nacl"), "").expect("write");
        }
        std::fs::write(dir.join("a/readme.md"), "").expect("write");
        let (files, errors) = discover(std::slice::from_ref(&dir));
        assert!(errors.is_empty());
        let names: Vec<_> = files.iter().map(|f| f.strip_prefix(&dir).expect("under dir").to_path_buf()).collect();
        assert_eq!(names, vec![PathBuf::from("a/x.nacl"), PathBuf::from("b/x.nacl")]);
        std::fs::remove_dir_all(&dir).ok();
    }
}
