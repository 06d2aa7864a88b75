//! hcldec specs (`hcldec-spec-format.md`): a spec file, itself HCL, says which attributes and
//! blocks a configuration may hold, their types, and how the configuration becomes one value.
//!
//! - [`spec`] reads a spec file into a [`spec::SpecFile`] (its root spec, variables and
//!   functions), with a diagnostic for each mistake in it;
//! - [`decode`] applies a spec to configuration bodies ([`body`]) and gives the value, its type
//!   and the problems, worded as HashiCorp's `hcldec` words them;
//! - [`json`] writes values and types in the JSON form `hcldec` prints; [`refs`] lists the variable
//!   references a configuration needs;
//! - [`functions`] are the functions spec expressions may call; [`types`] the type expressions.
//!
//! Everything here is in byte ranges of numbered [`Source`]s; the callers (the CLI, the server)
//! turn them into lines and columns.

pub mod body;
pub mod decode;
pub mod functions;
pub mod ide;
pub mod json;
pub mod refs;
pub mod schema;
pub mod spec;
pub mod types;

use nacl_syntax::TextRange;

/// Which file a range is in, as numbered by the caller (the spec file, the inputs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Source(pub usize);

/// How bad a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// Decoding fails.
    Error,
    /// Worth knowing; decoding goes on.
    Warning,
}

/// A problem with a spec or a configuration, in `hcldec`'s words: a summary and a detail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// How bad.
    pub severity: Severity,
    /// One line.
    pub summary: String,
    /// The explanation.
    pub detail: String,
    /// Where, when it has a place.
    pub location: Option<(Source, TextRange)>,
    /// A second place the detail refers to (the first definition of a duplicate).
    pub related: Option<(Source, TextRange)>,
}

impl Problem {
    /// An error at `range` of `source`.
    pub fn error(summary: impl Into<String>, detail: impl Into<String>, source: Source, range: TextRange) -> Problem {
        Problem {
            severity: Severity::Error,
            summary: summary.into(),
            detail: detail.into(),
            location: Some((source, range)),
            related: None,
        }
    }

    /// A warning at `range` of `source`.
    pub fn warning(summary: impl Into<String>, detail: impl Into<String>, source: Source, range: TextRange) -> Problem {
        Problem { severity: Severity::Warning, ..Problem::error(summary, detail, source, range) }
    }

    /// The same problem, pointing also at `range` of `source`.
    pub fn related(self, source: Source, range: TextRange) -> Problem {
        Problem { related: Some((source, range)), ..self }
    }

    /// Whether it is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Whether any of `problems` is an error.
pub fn has_errors(problems: &[Problem]) -> bool {
    problems.iter().any(Problem::is_error)
}

/// How an input file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// HCL's native syntax.
    Native,
    /// HCL's JSON syntax (a `.json` file).
    Json,
}

/// The problems of a parse, as decoding problems: the code's summary, and the parser's message.
fn syntax_problems(errors: &[nacl_syntax::SyntaxError], source: Source) -> Vec<Problem> {
    errors
        .iter()
        .map(|e| {
            let problem = Problem::error(e.code.summary(), e.message.clone(), source, e.range);
            match e.code.severity() {
                nacl_syntax::Severity::Error => problem,
                _ => Problem { severity: Severity::Warning, ..problem },
            }
        })
        .collect()
}

/// Reads a spec file's text: the spec, and the problems (syntax errors first; the spec is read
/// only when there are none).
pub fn load_spec(text: &str, source: Source) -> (Option<spec::SpecFile>, Vec<Problem>) {
    let parse = nacl_syntax::hcl::parse(text);
    let problems = syntax_problems(parse.errors(), source);
    if has_errors(&problems) {
        return (None, problems);
    }
    let (file, more) = spec::load(&parse.tree(), source);
    (Some(file), problems.into_iter().chain(more).collect())
}

/// Reads an input file's text into its top-level body; `None` with the problems when it does not
/// parse.
pub fn parse_input(text: &str, syntax: Syntax, source: Source) -> (Option<body::Body>, Vec<Problem>) {
    let whole = TextRange::up_to(nacl_syntax::TextSize::of(text));
    match syntax {
        Syntax::Native => {
            let parse = nacl_syntax::hcl::parse(text);
            let problems = syntax_problems(parse.errors(), source);
            if has_errors(&problems) {
                return (None, problems);
            }
            (Some(body::Body::of_file(&parse.tree(), source)), problems)
        }
        Syntax::Json => {
            let value: serde_json::Value = match serde_json::from_str(text) {
                Ok(value) => value,
                Err(e) => {
                    let at = json_error_offset(text, e.line(), e.column());
                    let range = TextRange::empty(at);
                    return (None, vec![Problem::error("Invalid JSON", e.to_string(), source, range)]);
                }
            };
            match body::Body::of_json(value, whole, source) {
                Ok(body) => (Some(body), Vec::new()),
                Err(message) => (None, vec![Problem::error("Invalid JSON configuration", message, source, whole)]),
            }
        }
    }
}

/// The byte offset of a 1-based line and column (in characters) that serde_json reports.
fn json_error_offset(text: &str, line: usize, column: usize) -> nacl_syntax::TextSize {
    let line_start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    let rest = &text[line_start.min(text.len())..];
    let in_line: usize = rest.chars().take(column.saturating_sub(1)).map(char::len_utf8).sum();
    nacl_syntax::TextSize::from(u32::try_from(line_start + in_line).unwrap_or(u32::MAX))
}
