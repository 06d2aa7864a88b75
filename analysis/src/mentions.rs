//! Which files may mention a name: a small Bloom filter of the words of each NaCl file, kept per
//! part of the workspace's files, so that find references and rename read the few files that
//! hold the name instead of scanning the text of every file (a gigabyte, at the largest sizes).
//!
//! A word is a maximal run of ASCII letters, digits, `_`, `@` and non-ASCII characters: the
//! names references and renames look for are such runs, and everything that writes one (a
//! header, a label, a reference, a key) delimits it with other characters. A filter may say yes
//! for a name the file lacks (about one in thirty), never no for one it holds.
//!
//! Building the filters reads text at about 550 MB/s on one thread (about a third of parsing it)
//! and they take about 7% of the text, while scanning the texts is quick in a small workspace
//! (10 ms at 100 MB, 150 ms at 1 GB, on 2 cores): only workspaces of [`FILTERED_FROM`] files or
//! more have them.

use crate::db::{Db, SourceFile, Workspace, part_files};

/// From this many files, a workspace has word filters (see the module's documentation).
pub const FILTERED_FROM: usize = 16_384;

/// How many bits of a file's filter each distinct word of it gets, at least.
const BITS_PER_WORD: usize = 8;
/// How many bits one word sets.
const PROBES: u64 = 3;

/// Which bytes belong to a word.
const WORD_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_alphanumeric() || b == b'_' || b == b'@' || b >= 0x80;
        byte += 1;
    }
    table
};

/// Whether `name` is one whole word (what a filter can answer for).
pub fn is_word(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| WORD_BYTES[b as usize])
}

/// The hash of a word: eight bytes at a time (FxHash's step), then mixed (MurmurHash3's
/// finalizer) so that its low bits, which pick the filter's bits, depend on every byte.
fn word_hash(word: &[u8]) -> u64 {
    const SEED: u64 = 0x517c_c1b7_2722_0a95;
    let step = |hash: u64, chunk: u64| (hash.rotate_left(5) ^ chunk).wrapping_mul(SEED);
    let mut chunks = word.chunks_exact(8);
    let mut hash = word.len() as u64;
    for chunk in &mut chunks {
        hash = step(hash, u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
    }
    hash = step(hash, little_endian(chunks.remainder()));
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^ (hash >> 33)
}

/// Up to eight bytes as a little-endian number, as if padded with zeros. They are shifted in:
/// copying them to a buffer and reading it back stalls on the store (it was a third of the
/// time building the filters took).
fn little_endian(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0, |value, &byte| value << 8 | u64::from(byte))
}

/// The words of one file, as a Bloom filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordFilter {
    /// The bits, a power of two of them.
    bits: Box<[u64]>,
}

impl WordFilter {
    /// The filter of the words of `text`. `hashes` and `scratch` are reused between files.
    ///
    /// The words are not deduplicated: their bits are set in a filter sized for all of them,
    /// which is then folded in halves (a bit of the half-size filter is the OR of the two bits
    /// that share its low index bits) down to the size the distinct words need, estimated from
    /// how many bits are set.
    fn of(text: &str, hashes: &mut Vec<u64>, scratch: &mut Vec<u64>) -> WordFilter {
        hashes.clear();
        let bytes = text.as_bytes();
        let mut start = None;
        for (at, &byte) in bytes.iter().enumerate() {
            match (WORD_BYTES[usize::from(byte)], start) {
                (true, None) => start = Some(at),
                (false, Some(from)) => {
                    hashes.push(word_hash(&bytes[from..at]));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(from) = start {
            hashes.push(word_hash(&bytes[from..]));
        }
        let mut bits = (hashes.len() * BITS_PER_WORD).next_power_of_two().max(64);
        scratch.clear();
        scratch.resize(bits / 64, 0);
        for &hash in hashes.iter() {
            probes(hash, bits).for_each(|(word, bit)| scratch[word] |= bit);
        }
        let set: u32 = scratch.iter().map(|w| w.count_ones()).sum();
        let fill = f64::from(set) / bits as f64;
        let distinct = -(bits as f64) / PROBES as f64 * (1.0 - fill.min(0.999_999)).ln();
        while bits > 64 && distinct * BITS_PER_WORD as f64 <= (bits / 2) as f64 {
            bits /= 2;
            let (low, high) = scratch.split_at_mut(bits / 64);
            low.iter_mut().zip(&high[..bits / 64]).for_each(|(l, h)| *l |= h);
        }
        WordFilter { bits: scratch[..bits / 64].into() }
    }

    /// Whether the file may hold the word of this hash.
    fn may_hold(&self, hash: u64) -> bool {
        probes(hash, self.bits.len() * 64).all(|(word, bit)| self.bits[word] & bit != 0)
    }
}

/// The words and bits a word of this hash sets in a filter of `bits` bits (a power of two): the
/// same low bits of the index for every size, which is what lets a filter be folded.
fn probes(hash: u64, bits: usize) -> impl Iterator<Item = (usize, u64)> {
    let mask = (bits - 1) as u64;
    let (low, high) = (hash & 0xffff_ffff, (hash >> 32) | 1);
    (0..PROBES).map(move |i| {
        let at = low.wrapping_add(i.wrapping_mul(high)) & mask;
        ((at / 64) as usize, 1 << (at % 64))
    })
}

/// The word filters of the NaCl files of the `part`th part of the workspace's files (built
/// when first asked for; an edit rebuilds its file's part only).
#[salsa::tracked(returns(ref))]
pub fn part_words(db: &dyn Db, workspace: Workspace, part: usize) -> Vec<(SourceFile, WordFilter)> {
    let (mut hashes, mut scratch) = (Vec::new(), Vec::new());
    part_files(db, workspace, part)
        .iter()
        .filter(|file| file.language(db) == crate::language::Language::Nacl)
        .map(|&file| (file, WordFilter::of(file.text(db).get(), &mut hashes, &mut scratch)))
        .collect()
}

impl crate::workspace::LoadedWorkspace {
    /// Whether this workspace has word filters ([`FILTERED_FROM`] files or more).
    pub fn has_word_filters(&self) -> bool {
        self.workspace.files(&self.db).len() >= FILTERED_FROM
    }

    /// Builds every part of the word filters (in a workspace that has them), in parallel, so
    /// that the first search for references does not. They read every byte of text: at 1 GB,
    /// about 1 s on two cores.
    pub fn warm_word_filters(&self) {
        if self.has_word_filters() {
            let workspace = self.workspace;
            self.par_map(&self.parts(), |db, &part| {
                part_words(db, workspace, part);
            });
        }
    }

    /// The NaCl files that may mention `name`, on all cores: for a word (see [`is_word`]) in a
    /// workspace with word filters, the files whose filter holds it; otherwise every NaCl file.
    pub fn files_mentioning(&self, name: &str) -> Vec<SourceFile> {
        let workspace = self.workspace;
        if !is_word(name) || !self.has_word_filters() {
            let files = workspace.files(&self.db).iter();
            return files.copied().filter(|f| f.language(&self.db) == crate::language::Language::Nacl).collect();
        }
        let hash = word_hash(name.as_bytes());
        let found = self.par_map(&self.parts(), |db, &part| {
            let filters = part_words(db, workspace, part).iter();
            filters.filter(|(_, filter)| filter.may_hold(hash)).map(|(file, _)| *file).collect::<Vec<_>>()
        });
        found.concat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn up_to_eight_bytes_read_as_little_endian_padded_with_zeros(bytes in proptest::collection::vec(any::<u8>(), 0..=8)) {
            let mut padded = [0u8; 8];
            padded[..bytes.len()].copy_from_slice(&bytes);
            prop_assert_eq!(little_endian(&bytes), u64::from_le_bytes(padded));
        }
    }
}
