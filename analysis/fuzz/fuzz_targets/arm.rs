//! ARMLang never panics: any text is parsed, modelled, type-checked, compiled and formatted, the
//! editor features run at a few offsets, every problem lies inside the text, formatting is
//! idempotent, and a file that checks without errors compiles to JSON.
#![no_main]

use nacl_analysis::arm::{self, ide, model::Model};
use nacl_syntax::{TextSize, arm::format};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let parse = nacl_syntax::arm::parse(text);
    let root = parse.syntax();
    let model = Model::build(&root);
    let problems = arm::semantic_problems(&root, &model);
    for problem in &problems {
        assert!(usize::from(problem.range.end()) <= text.len(), "{problem:?} outside the text");
    }
    if let Ok(template) = arm::build_template(text, std::path::Path::new("fuzz.arm")) {
        assert!(template.starts_with('{') && template.ends_with("}\n"), "a template is one JSON object");
    }
    let once = format::format(text);
    assert_eq!(format::format(&once), once, "formatting must be idempotent");
    for offset in [0, text.len() / 3, text.len() / 2, text.len()] {
        if !text.is_char_boundary(offset) {
            continue;
        }
        let offset = TextSize::from(offset as u32);
        let _ = ide::hover(&root, &model, offset);
        let _ = ide::occurrences(&model, offset, true);
        let _ = ide::rename(&model, offset, "renamed");
        let _ = ide::completions(&root, &model, text, offset, &[]);
        let _ = ide::selection_ranges(&root, offset);
    }
    let _ = ide::symbols(&model);
    let _ = ide::folding_ranges(&root, text);
    let _ = ide::highlights(&root, &model, None);
    let _ = ide::dependency_lenses(&model);
});
