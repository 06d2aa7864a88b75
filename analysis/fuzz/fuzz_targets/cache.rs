//! The persistent cache's readers never panic: a file's results, stored as a save stores them,
//! read back the same; with bits flipped past the checksums that would turn them away (the input
//! is a text, a zero byte, then flips of three bytes each), the results and the index are read
//! without a panic, and what the index holds points inside what was read.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (text, flips) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    nacl_analysis::cache::fuzzing::check(&String::from_utf8_lossy(text), flips);
});
