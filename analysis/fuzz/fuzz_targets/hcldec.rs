//! hcldec never panics: a spec and a configuration (split at the first NUL byte; without one, the
//! text is both) are loaded, decoded, written as JSON and searched for variable references, and
//! every problem lies inside the text it points into.
#![no_main]

use nacl_analysis::hcldec::{self, Problem, Source, Syntax};

fn inside(problems: &[Problem], texts: &[&str]) {
    for problem in problems {
        if let Some((Source(i), range)) = problem.location {
            let len = texts.get(i).map_or(0, |t| t.len());
            assert!(usize::from(range.end()) <= len, "{problem:?} outside its text");
        }
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (spec_text, input) = text.split_once('\0').unwrap_or((text, text));
    let texts = [spec_text, input];
    let (spec, problems) = hcldec::load_spec(spec_text, Source(0));
    inside(&problems, &texts);
    for syntax in [Syntax::Native, Syntax::Json] {
        let (body, problems) = hcldec::parse_input(input, syntax, Source(1));
        inside(&problems, &texts);
        let (Some(spec), Some(body)) = (&spec, body) else { continue };
        let context = hcldec::spec::input_context(spec, &Default::default());
        let (value, problems) = hcldec::decode::decode(&body, &spec.root, &context);
        inside(&problems, &texts);
        if let Ok(json) = hcldec::json::value_json(&value) {
            let _ = json.without_nulls().text();
        }
        let _ = spec.root.implied_type();
        let _ = hcldec::refs::variables_needed(&body, &spec.root);
    }
});
