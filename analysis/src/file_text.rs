//! A file's text as the database holds it: read, or vouched for by the persistent cache and
//! read only when something first needs it.
//!
//! A restart on an unchanged workspace finds each file's metadata equal to what the cache saw
//! ([`crate::files::Stamp`]); its results and its diagnostics come from the cache, and its text
//! is not read until an editor feature, a changed file's check or the symbol tables ask for it.

use crate::fragments::Text;
use std::{
    path::PathBuf,
    sync::{Arc, OnceLock},
};

/// A file's text (cloning it is cheap).
#[derive(Clone, Debug)]
pub struct FileText(Repr);

#[derive(Clone, Debug)]
enum Repr {
    /// Read from disk, or an editor's buffer.
    Read(Text),
    /// Not read yet: the file on disk was unchanged since the persistent cache saw it.
    Unread(Arc<Unread>),
}

/// A file whose text is read the first time it is needed.
#[derive(Debug)]
struct Unread {
    path: PathBuf,
    /// The length and hash ([`crate::cache::text_hash`]) of the text the cache saw.
    len: usize,
    hash: u64,
    /// The text once read, and whether it is the text the cache saw.
    read: OnceLock<(Text, bool)>,
}

impl FileText {
    /// A text read already.
    pub fn read(text: Text) -> FileText {
        FileText(Repr::Read(text))
    }

    /// The text of the file at `path`, to be read when first needed; the persistent cache saw
    /// it with length `len` and hash `hash`.
    pub fn unread(path: PathBuf, len: usize, hash: u64) -> FileText {
        FileText(Repr::Unread(Arc::new(Unread { path, len, hash, read: OnceLock::new() })))
    }

    /// The text, read now if it was not. A file that cannot be read any more (deleted, or no
    /// longer a regular file) reads as empty: that change on disk reaches the workspace as any
    /// other does, and sets the text again.
    pub fn get(&self) -> &Text {
        match &self.0 {
            Repr::Read(text) => text,
            Repr::Unread(unread) => &unread.read_once().0,
        }
    }

    /// Its length in bytes, without reading it.
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Read(text) => text.len(),
            Repr::Unread(unread) => unread.read.get().map_or(unread.len, |(text, _)| text.len()),
        }
    }

    /// Whether it is empty (without reading it).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether it is the text the file had when the workspace was loaded (for a text read
    /// later, whether it still was then), so that what the cache found for it holds. Reads it.
    pub fn is_as_loaded(&self) -> bool {
        match &self.0 {
            Repr::Read(_) => true,
            Repr::Unread(unread) => unread.read_once().1,
        }
    }

    /// Whether it has not been read yet.
    pub fn is_unread(&self) -> bool {
        matches!(&self.0, Repr::Unread(unread) if unread.read.get().is_none())
    }
}

impl From<Text> for FileText {
    fn from(text: Text) -> FileText {
        FileText::read(text)
    }
}

impl Unread {
    /// Reads the text once, as the workspace's load reads files.
    fn read_once(&self) -> &(Text, bool) {
        self.read.get_or_init(|| {
            let (text, error) = crate::files::load_text(&self.path);
            let same = error.is_none() && text.len() == self.len && crate::cache::text_hash(&text) == self.hash;
            (text, same)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unread_text_is_read_once_when_needed_and_checked_against_the_cache() {
        let dir = std::env::temp_dir().join(format!("nacl-ls-file-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create");
        let path = dir.join("a.nacl");
        std::fs::write(&path, "salto.t a {\n}\n").expect("write");
        let text = "salto.t a {\n}\n";
        let same = FileText::unread(path.clone(), text.len(), crate::cache::text_hash(text));
        assert!(same.is_unread());
        assert_eq!(same.len(), text.len());
        assert!(same.is_unread(), "the length is known without reading");
        assert_eq!(same.get().as_str(), text);
        assert!(!same.is_unread());
        assert!(same.is_as_loaded());

        // Changed since the cache saw it: the text read is the file's, and not the cache's.
        let changed = FileText::unread(path.clone(), text.len(), crate::cache::text_hash("salto.t b {\n}\n"));
        assert_eq!(changed.get().as_str(), text);
        assert!(!changed.is_as_loaded());

        // Gone: empty, and not the cache's.
        std::fs::remove_file(&path).expect("remove");
        let gone = FileText::unread(path, text.len(), crate::cache::text_hash(text));
        assert_eq!(gone.get().as_str(), "");
        assert!(!gone.is_as_loaded());
        assert_eq!(gone.len(), 0);
        std::fs::remove_dir_all(&dir).expect("remove");
    }
}
