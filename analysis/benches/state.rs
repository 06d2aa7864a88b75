//! Reading Salto state files: the largest state file of the corpus (by decompressed size),
//! its read time (median of several reads, one thread) and the peak heap while reading it,
//! against its decompressed JSON size.
//!
//! `cargo bench -p nacl-analysis --bench state`. Memory is the growth of the peak resident memory
//! (`VmHWM` over `VmRSS` before reading) of a fresh child process that reads the file once.

use nacl_analysis::state::read_state_file;
use std::{io::Read, path::PathBuf, time::Instant};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A memory figure of this process from `/proc/self/status` (Linux), in bytes, or 0.
fn proc_status(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// In the child: reads the file once and prints how much the peak resident memory grew.
fn measure_memory(path: &std::path::Path) {
    let before = proc_status("VmRSS:");
    let file = read_state_file(path).expect("the corpus state files are readable");
    let peak = proc_status("VmHWM:");
    println!("{}", peak.saturating_sub(before));
    drop(file);
}

/// The decompressed size of a gzip state file (either container).
fn decompressed_size(path: &PathBuf) -> usize {
    let bytes = std::fs::read(path).unwrap_or_default();
    let bytes = if bytes.starts_with(&[0x1f, 0xc2]) {
        String::from_utf8_lossy(&bytes).chars().map(|c| c as u32 as u8).collect()
    } else {
        bytes
    };
    let mut text = Vec::new();
    let _ = flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_end(&mut text);
    text.len()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, path, ..] = args.as_slice()
        && flag == "--measure-memory"
    {
        measure_memory(std::path::Path::new(path));
        return;
    }
    let mut files: Vec<PathBuf> = nacl_corpus::workspaces()
        .into_iter()
        .filter_map(|w| std::fs::read_dir(w.join("salto.config/states")).ok())
        .flat_map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".jsonl.zip"))
        .collect();
    files.sort_by_key(decompressed_size);
    let Some(largest) = files.last() else {
        println!("no state files in the corpus");
        return;
    };
    let raw = decompressed_size(largest);
    let mut times = Vec::new();
    let mut elements = 0;
    for _ in 0..7 {
        let started = Instant::now();
        let file = read_state_file(largest).expect("the corpus state files are readable");
        times.push(started.elapsed().as_secs_f64());
        elements = file.elements.len();
    }
    times.sort_by(f64::total_cmp);
    // Memory is measured in a fresh process, so earlier reads do not count.
    let output = std::process::Command::new(&args[0])
        .arg("--measure-memory")
        .arg(largest)
        .output()
        .expect("the benchmark can run itself");
    let peak: f64 = String::from_utf8_lossy(&output.stdout).trim().parse().unwrap_or(0.0);
    let name = largest.strip_prefix(nacl_corpus::corpus_dir()).unwrap_or(largest).display();
    println!("largest state file: {name}");
    println!("  {:.1} MB of JSON, {elements} elements", raw as f64 / 1e6);
    println!(
        "  read: median {:.3} s, min {:.3} s ({:.0} MB/s)",
        times[times.len() / 2],
        times[0],
        raw as f64 / 1e6 / times[times.len() / 2]
    );
    println!("  peak memory growth while reading: {:.1} MB ({:.2}x the JSON)", peak / 1e6, peak / raw as f64);
}
