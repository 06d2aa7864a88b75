//! One workspace's figures, and the table of all of them with ratios.

use crate::{
    server::{self, Latency, ServerFigures},
    throughput::{self, Allocations, Check, Rate},
};
use std::path::Path;

/// Every figure of one workspace.
pub struct Column {
    name: String,
    files: usize,
    bytes: u64,
    read: Rate,
    parallel_read: Rate,
    parse: Rate,
    fragments: Rate,
    format: Rate,
    check: Option<Check>,
    first_check: Option<Check>,
    warm_check: Option<Check>,
    file_cache_check: Option<Check>,
    allocations: Option<Allocations>,
    server: Option<ServerFigures>,
}

/// Measures one workspace (the server too, when its binary is given).
pub fn measure(name: &str, dir: &Path, server_binary: Option<&Path>) -> Column {
    let files = nacl_corpus::nacl_files(dir);
    let (read, parallel_read, parse, fragments, format) = {
        // Read once untimed first: the reference is reading from the page cache, as parsing does.
        let texts = nacl_corpus::read_all(&files);
        (
            throughput::read_and_count(&files),
            throughput::read_parallel(&files),
            throughput::parse(&texts),
            throughput::parse_and_fragments(&texts),
            throughput::format(&texts),
        )
    };
    let check = throughput::check(dir);
    let first_check = throughput::first_check(dir);
    let warm_check = throughput::warm_check(dir);
    let file_cache_check = throughput::file_cache_check(dir);
    let allocations = throughput::allocations(dir);
    let root = nacl_analysis::layout::find_root(dir);
    let server = server_binary.and_then(|binary| server::measure(binary, &root, &files));
    Column {
        name: name.to_owned(),
        files: files.len(),
        bytes: read.bytes,
        read,
        parallel_read,
        parse,
        fragments,
        format,
        check,
        first_check,
        warm_check,
        file_cache_check,
        allocations,
        server,
    }
}

/// The markdown table: a row per figure, a column per workspace. Throughputs are followed by
/// their ratio to reading the same files (`x read`), latencies by their ratio to the workspace
/// named `latency_reference` (`x ref`).
pub fn table(columns: &[Column], latency_reference: Option<&str>) -> String {
    let reference = columns.iter().find(|c| Some(c.name.as_str()) == latency_reference);
    let mut rows: Vec<(String, Vec<String>, &str)> = Vec::new();
    let mut row = |label: &str, goal: &'static str, cell: &dyn Fn(&Column) -> String| {
        rows.push((label.to_owned(), columns.iter().map(cell).collect(), goal));
    };
    row("files / MB of NaCl", "", &|c| format!("{} / {:.1}", c.files, c.bytes as f64 / 1e6));
    row("read files and count lines (reference), MB/s", "", &|c| format!("{:.0}", c.read.mb_per_s()));
    row("read the files on all cores (reference for the check), s", "", &|c| format!("{:.3}", c.parallel_read.seconds));
    row("parse, 1 thread, MB/s (x read)", "", &|c| throughput_cell(c.parse, c.read));
    row("parse + fragments, 1 thread, MB/s (x read)", "", &|c| throughput_cell(c.fragments, c.read));
    row("format, 1 thread, MB/s (x read)", "", &|c| throughput_cell(c.format, c.read));
    row("full check, all cores, s (x parallel read)", "<= 1.5x", &|c| seconds_cell(c.check, c.parallel_read));
    row("full check, MB/s (x read)", "", &|c| c.check.map_or("-".into(), |k| throughput_cell(k.rate, c.read)));
    row("full check writing a new cache (a first run), s (x parallel read)", "", &|c| {
        seconds_cell(c.first_check, c.parallel_read)
    });
    row("full check from the cache (unchanged workspace), s (x parallel read)", "", &|c| {
        seconds_cell(c.warm_check, c.parallel_read)
    });
    row("full check from the cache's file results alone (as after a change), s (x parallel read)", "", &|c| {
        seconds_cell(c.file_cache_check, c.parallel_read)
    });
    row("full check, allocations per MB of input", "", &|c| {
        c.allocations.map_or("-".into(), |a| format!("{:.0}", a.count as f64 / (c.bytes.max(1) as f64 / 1e6)))
    });
    row("every file's results (fragments), heap MB held besides the texts (x input)", "<= 0.7x", &|c| {
        c.allocations.map_or("-".into(), |a| {
            format!("{:.0} ({:.2}x)", a.results_held as f64 / 1e6, a.results_held as f64 / c.bytes.max(1) as f64)
        })
    });
    row("full check, peak RSS MB (x input)", "<= 2x", &|c| {
        c.check.map_or("-".into(), |k| {
            format!("{:.0} ({:.1}x)", k.peak as f64 / 1e6, k.peak as f64 / c.bytes.max(1) as f64)
        })
    });
    row("full check, errors / warnings", "", &|c| {
        c.check.map_or("-".into(), |k| format!("{} / {}", k.errors, k.warnings))
    });
    let reference_server = reference.and_then(|r| r.server.as_ref());
    let server_row = |rows: &mut Vec<(String, Vec<String>, &str)>,
                      label: &str,
                      goal: &'static str,
                      pick: &dyn Fn(&ServerFigures) -> Latency| {
        let cells = columns
            .iter()
            .map(|c| c.server.as_ref().map_or("-".into(), |s| latency_cell(pick(s), reference_server.map(pick))))
            .collect();
        rows.push((label.to_owned(), cells, goal));
    };
    let mut server_rows = Vec::new();
    server_row(&mut server_rows, "server: initialized to all diagnostics, s (x ref)", "corpus: <= 1 s", &|s| Latency {
        median: s.indexed,
        p99: s.indexed,
    });
    server_row(&mut server_rows, "server: restart on the unchanged workspace (cache), s (x ref)", "<= 0.3 s", &|s| {
        Latency { median: s.warm_start, p99: s.warm_start }
    });
    server_row(
        &mut server_rows,
        "server: didChange to diagnostics, median / p99 ms (x ref)",
        "<= 10 / 30 ms; 1 GB <= 1.5x 10 MB",
        &|s| s.edit,
    );
    server_row(
        &mut server_rows,
        "server: didChange to diagnostics of an HCL file in the workspace, median / p99 ms (x ref)",
        "<= 10 / 30 ms",
        &|s| s.hcl_edit,
    );
    server_row(
        &mut server_rows,
        "server: an hcldec spec's didChange to diagnostics of a file it describes, median / p99 ms (x ref)",
        "<= 10 / 30 ms",
        &|s| s.spec_edit,
    );
    server_row(&mut server_rows, "server: hover, median / p99 ms (x ref)", "p99 <= 5 ms", &|s| s.hover);
    server_row(&mut server_rows, "server: definition, median / p99 ms (x ref)", "p99 <= 5 ms", &|s| s.definition);
    server_row(&mut server_rows, "server: references to a type, median / p99 ms (x ref)", "<= 50 ms", &|s| {
        s.references
    });
    server_row(&mut server_rows, "server: completion of a key, median / p99 ms (x ref)", "p99 <= 10 ms", &|s| {
        s.completion
    });
    server_row(&mut server_rows, "server: completion of a type name, median / p99 ms (x ref)", "p99 <= 10 ms", &|s| {
        s.type_completion
    });
    server_row(
        &mut server_rows,
        "server: completion of a reference after `adapter.`, median / p99 ms (x ref)",
        "p99 <= 10 ms",
        &|s| s.reference_completion,
    );
    server_row(&mut server_rows, "server: workspace symbols, median / p99 ms (x ref)", "<= 20 ms", &|s| s.symbols);
    server_row(
        &mut server_rows,
        "server: semantic tokens of the largest file, median / p99 ms (x ref)",
        "p99 <= 10 ms for 1 MB",
        &|s| s.tokens.0,
    );
    server_row(
        &mut server_rows,
        "server: semantic tokens of a 1 MB document (copies of the largest file), median / p99 ms (x ref)",
        "p99 <= 10 ms",
        &|s| s.large.tokens,
    );
    server_row(
        &mut server_rows,
        "server: didChange to diagnostics of that 1 MB document, median / p99 ms (x ref)",
        "<= 10 / 30 ms",
        &|s| s.large.edits,
    );
    server_row(
        &mut server_rows,
        "server: didChange to a hover's answer right after it, in that 1 MB document, median / p99 ms (x ref)",
        "<= 10 / 30 ms",
        &|s| s.large.hover_after_edit,
    );
    server_row(
        &mut server_rows,
        "server: didChange to diagnostics of that 1 MB document, typing into a key, median / p99 ms (x ref)",
        "<= 10 / 30 ms",
        &|s| s.large.key_edits,
    );
    rows.extend(server_rows);
    let mut out = String::new();
    out.push_str(&format!(
        "| figure | {} | goal |\n",
        columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(" | ")
    ));
    out.push_str(&format!("|---|{}---|\n", "---|".repeat(columns.len())));
    for (label, cells, goal) in rows {
        out.push_str(&format!("| {label} | {} | {goal} |\n", cells.join(" | ")));
    }
    let largest_file = columns
        .iter()
        .map(|c| c.server.as_ref().map_or(String::from("-"), |s| format!("{:.2}", s.tokens.1 as f64 / 1e6)))
        .collect::<Vec<_>>();
    out.push_str(&format!("| server: size of that largest file, MB | {} | |\n", largest_file.join(" | ")));
    let peaks = columns
        .iter()
        .map(|c| {
            c.server.as_ref().map_or(String::from("-"), |s| {
                format!("{:.0} ({:.1}x)", s.peak as f64 / 1e6, s.peak as f64 / c.bytes.max(1) as f64)
            })
        })
        .collect::<Vec<_>>();
    out.push_str(&format!("| server: peak RSS MB (x input) | {} | <= 2x |\n", peaks.join(" | ")));
    out
}

/// A check's seconds and their ratio to reading the files on all cores.
fn seconds_cell(check: Option<Check>, parallel_read: Rate) -> String {
    check.map_or("-".into(), |k| {
        format!("{:.2} ({:.1}x)", k.rate.seconds, k.rate.seconds / parallel_read.seconds.max(1e-9))
    })
}

fn throughput_cell(rate: Rate, read: Rate) -> String {
    format!("{:.1} ({:.2}x)", rate.mb_per_s(), rate.mb_per_s() / read.mb_per_s().max(1e-9))
}

fn latency_cell(latency: Latency, reference: Option<Latency>) -> String {
    let value = if latency.median == latency.p99 {
        format!("{:.2}", latency.median)
    } else {
        format!("{:.2} / {:.2}", latency.median, latency.p99)
    };
    match reference {
        Some(r) if latency.median == latency.p99 => format!("{value} ({:.2}x)", latency.median / r.median.max(1e-9)),
        Some(r) => {
            format!("{value} ({:.2}x / {:.2}x)", latency.median / r.median.max(1e-9), latency.p99 / r.p99.max(1e-9))
        }
        None => value,
    }
}
