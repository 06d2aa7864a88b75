//! NaCl and HCL side by side: parse and format throughput of each language as ratios to reading its
//! files, taken in one run so the two compare on one machine under one load; then hcldec decoding
//! and ARMLang's checking and compiling, each as a ratio to parsing. Each figure is the best
//! of several passes over the files (the HCL corpus is small), so a noisy moment does not decide it.

use crate::throughput::{self, Rate};
use std::{path::PathBuf, time::Instant};

/// How many passes each figure takes the best of.
const PASSES: usize = 5;
/// Each pass processes at least this many bytes (repeating the files), so small corpora time well.
const PASS_BYTES: u64 = 50_000_000;

/// The figures of one language.
struct Figures {
    name: &'static str,
    files: usize,
    bytes: u64,
    read: Rate,
    parse: Rate,
    format: Rate,
}

/// Prints the table of both languages.
pub fn run() {
    let nacl_files = nacl_corpus::largest_workspace().map(|dir| nacl_corpus::nacl_files(&dir)).unwrap_or_default();
    let hcl_files: Vec<PathBuf> =
        nacl_corpus::hcl_corpus().into_iter().filter(|f| f.parse_ok).map(|f| f.path).collect();
    let columns = [
        measure(
            "NaCl (largest corpus workspace)",
            &nacl_files,
            |t| nacl_syntax::nacl::parse(t).errors().len(),
            |t| nacl_syntax::nacl::format::format(t).len(),
        ),
        measure(
            "HCL (corpus-hcl, files that parse)",
            &hcl_files,
            |t| nacl_syntax::hcl::parse(t).errors().len(),
            |t| nacl_syntax::hcl::format::format(t).len(),
        ),
    ];
    println!("| figure | {} | {} |", columns[0].name, columns[1].name);
    println!("|---|---|---|");
    let row = |label: &str, cell: &dyn Fn(&Figures) -> String| {
        println!("| {label} | {} | {} |", cell(&columns[0]), cell(&columns[1]));
    };
    row("files / MB", &|c| format!("{} / {:.1}", c.files, c.bytes as f64 / 1e6));
    row("read files and count lines (reference), MB/s", &|c| format!("{:.0}", c.read.mb_per_s()));
    let ratio = |rate: Rate, read: Rate| {
        format!("{:.1} ({:.3}x)", rate.mb_per_s(), rate.mb_per_s() / read.mb_per_s().max(1e-9))
    };
    row("parse, 1 thread, MB/s (x read)", &|c| ratio(c.parse, c.read));
    row("format, 1 thread, MB/s (x read)", &|c| ratio(c.format, c.read));
    decoding();
    armlang();
}

/// ARMLang: parsing, checking (scopes, dependencies, types and what the compiler cannot translate)
/// and compiling to a template, over the build fixtures of `analysis/test_data/arm/build` (the
/// document's examples among them), each as a ratio to parsing the same files.
fn armlang() {
    use nacl_analysis::arm::{self, model::Model};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../analysis/test_data/arm/build");
    let files = nacl_syntax::fixtures::files(&dir, "arm");
    let texts = nacl_corpus::read_all(&files);
    let bytes: u64 = texts.iter().map(|t| t.len() as u64).sum();
    let repeat = PASS_BYTES.div_ceil(bytes.max(1)) as usize / 10;
    let best = |work: &dyn Fn(&str)| {
        best_of(bytes * repeat as u64, &|| {
            for _ in 0..repeat {
                texts.iter().for_each(|t| work(t));
            }
        })
    };
    let parse = best(&|t| {
        std::hint::black_box(nacl_syntax::arm::parse(t).errors().len());
    });
    let check = best(&|t| {
        let root = nacl_syntax::arm::parse(t).syntax();
        std::hint::black_box(arm::semantic_problems(&root, &Model::build(&root)).len());
    });
    let build = best(&|t| {
        std::hint::black_box(arm::build_template(t, &dir).map(|j| j.len()).unwrap_or_default());
    });
    println!();
    println!(
        "| ARMLang ({} files, {:.1} KB: analysis/test_data/arm/build) | MB/s, 1 thread |",
        files.len(),
        bytes as f64 / 1e3
    );
    println!("|---|---|");
    println!("| parse | {:.1} |", parse.mb_per_s());
    let of_parse =
        |rate: Rate| format!("{:.1} ({:.3}x parse)", rate.mb_per_s(), rate.mb_per_s() / parse.mb_per_s().max(1e-9));
    println!("| parse and check | {} |", of_parse(check));
    println!("| parse, check and build the template | {} |", of_parse(build));
}

/// Decoding with hcldec specs: the corpus's Packer templates and Nomad Pack files with the specs of
/// `tests/hcldec/specs`, as a ratio to parsing the same files (both on one thread, best of
/// [`PASSES`]).
fn decoding() {
    use nacl_analysis::hcldec::{self, Source, Syntax};
    let specs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../hcldec/specs");
    let spec_for = |path: &str| -> Option<&'static str> {
        if path.ends_with(".pkr.hcl") {
            Some("packer.hcldec")
        } else if path.contains("nomad-pack") && path.ends_with("/variables.hcl") {
            Some("nomad-pack-variables.hcldec")
        } else if path.contains("nomad-pack") && path.ends_with("/metadata.hcl") {
            Some("nomad-pack-metadata.hcldec")
        } else {
            None
        }
    };
    let mut jobs = Vec::new();
    for file in nacl_corpus::hcl_corpus().into_iter().filter(|f| f.parse_ok) {
        let name = file.path.to_string_lossy().into_owned();
        let Some(spec) = spec_for(&name) else { continue };
        let (Ok(spec_text), Ok(text)) =
            (std::fs::read_to_string(specs.join(spec)), std::fs::read_to_string(&file.path))
        else {
            continue;
        };
        let Some(spec) = hcldec::load_spec(&spec_text, Source(0)).0 else { continue };
        jobs.push((spec, text));
    }
    let bytes: u64 = jobs.iter().map(|(_, t)| t.len() as u64).sum();
    let repeat = PASS_BYTES.div_ceil(bytes.max(1)) as usize;
    let best = |work: &dyn Fn()| best_of(bytes * repeat as u64, work);
    let parse = best(&|| {
        for _ in 0..repeat {
            for (_, text) in &jobs {
                std::hint::black_box(nacl_syntax::hcl::parse(text).errors().len());
            }
        }
    });
    let decode = best(&|| {
        for _ in 0..repeat {
            for (spec, text) in &jobs {
                let (body, _) = hcldec::parse_input(text, Syntax::Native, Source(1));
                let Some(body) = body else { continue };
                let context = hcldec::spec::input_context(spec, &Default::default());
                std::hint::black_box(hcldec::decode::decode(&body, &spec.root, &context).1.len());
            }
        }
    });
    println!();
    println!(
        "| hcldec decoding ({} files, {:.2} MB, with the specs of tests/hcldec/specs) | MB/s, 1 thread |",
        jobs.len(),
        bytes as f64 / 1e6
    );
    println!("|---|---|");
    println!("| parse | {:.1} |", parse.mb_per_s());
    println!(
        "| parse and decode | {:.1} ({:.3}x parse) |",
        decode.mb_per_s(),
        decode.mb_per_s() / parse.mb_per_s().max(1e-9)
    );
}

fn measure(
    name: &'static str,
    files: &[PathBuf],
    parse: impl Fn(&str) -> usize,
    format: impl Fn(&str) -> usize,
) -> Figures {
    let texts = nacl_corpus::read_all(files);
    let bytes: u64 = texts.iter().map(|t| t.len() as u64).sum();
    let repeat = PASS_BYTES.div_ceil(bytes.max(1)) as usize;
    let best = |work: &dyn Fn()| best_of(bytes * repeat as u64, work);
    let read = best(&|| {
        for _ in 0..repeat {
            std::hint::black_box(throughput::read_and_count(files));
        }
    });
    let parse = best(&|| {
        for _ in 0..repeat {
            texts.iter().for_each(|t| {
                std::hint::black_box(parse(t));
            });
        }
    });
    let format = best(&|| {
        for _ in 0..repeat {
            texts.iter().for_each(|t| {
                std::hint::black_box(format(t));
            });
        }
    });
    Figures { name, files: files.len(), bytes, read, parse, format }
}

/// The best rate of [`PASSES`] runs of `work`, each processing `bytes`.
fn best_of(bytes: u64, work: &dyn Fn()) -> Rate {
    let seconds = (0..PASSES)
        .map(|_| {
            let start = Instant::now();
            work();
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);
    Rate { bytes, seconds }
}
