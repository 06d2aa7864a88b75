//! `nacl-ls hcldec`: decode HCL files with an hcldec spec and print the JSON value, plug-compatible
//! with HashiCorp's `hcldec` (same flags, output, diagnostics JSON and exit codes), so that its
//! conformance harness `hclspecsuite` can run it. Installed under the name `hcldec` (a link to
//! `nacl-ls`), the binary takes `hcldec`'s arguments directly.

use nacl_analysis::{
    files,
    hcl::{
        eval::{Context, evaluate},
        value::Value,
    },
    hcldec::{
        self, Problem, Severity, Source, Syntax,
        body::Body,
        decode::decode,
        json::{Json, value_json, value_with_type_json},
        refs::{RefStep, VariableRef, variables_needed},
        spec::input_context,
    },
};
use nacl_syntax::TextRange;
use std::{
    collections::BTreeMap,
    io::{self, Write},
    path::{Path, PathBuf},
    process::ExitCode,
};
use unicode_segmentation::UnicodeSegmentation;

/// `hcldec`'s arguments.
#[derive(clap::Args, Debug)]
pub struct HcldecArgs {
    /// The spec file (required).
    #[arg(long, short = 's', value_name = "SPEC")]
    spec: Option<PathBuf>,
    /// Write the result to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    out: Option<PathBuf>,
    /// How to print diagnostics on stderr: `json` (as `hcldec --diags=json`) or `text`.
    #[arg(long, value_name = "FORMAT", default_value = "")]
    diags: String,
    /// Instead of decoding, print the variable references the spec's attributes would read.
    #[arg(long)]
    var_refs: bool,
    /// Wrap the result as `{"value": ..., "type": ...}`, the type in cty's JSON form.
    #[arg(long)]
    with_type: bool,
    /// Keep object properties whose value is null (they are left out by default).
    #[arg(long)]
    keep_nulls: bool,
    /// Variables for the configuration: a JSON object, or a file (`.json`, else HCL attributes).
    #[arg(long = "vars", short = 'V', value_name = "JSON-OR-FILE")]
    vars: Vec<String>,
    /// One variable: NAME=VALUE, the value an HCL expression (`n=3`, `tags=["a"]`), or else a string.
    #[arg(long = "var", value_name = "NAME=VALUE")]
    var: Vec<String>,
    /// Print the version and exit.
    #[arg(long, short = 'v')]
    version: bool,
    /// The files to decode (stdin when none); several are merged into one body.
    files: Vec<PathBuf>,
}

/// `hcldec`'s command line, for the binary run under the name `hcldec`.
#[derive(clap::Parser, Debug)]
#[command(
    name = "hcldec",
    about = "Decode HCL files with an hcldec spec (nacl-ls's hcldec)",
    disable_version_flag = true
)]
pub struct HcldecCli {
    #[command(flatten)]
    args: HcldecArgs,
}

impl HcldecCli {
    /// The arguments.
    pub fn into_args(self) -> HcldecArgs {
        self.args
    }
}

/// A file the problems may point into: its name as given, its text, and where its lines start.
struct Named {
    name: String,
    text: String,
    line_starts: Vec<usize>,
}

impl Named {
    fn new(name: String, text: String) -> Named {
        let line_starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Named { name, text, line_starts }
    }

    /// Line, column (in grapheme clusters, as HCL counts) and byte of an offset; line and column
    /// count from 1.
    fn position(&self, offset: usize) -> (usize, usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset).max(1);
        let line_start = self.line_starts[line - 1];
        let column = self.text.get(line_start..offset).map_or(0, |t| t.graphemes(true).count()) + 1;
        (line, column, offset)
    }

    /// The text of line `line` (from 1), without its line break.
    fn line(&self, line: usize) -> &str {
        let start = self.line_starts.get(line.wrapping_sub(1)).copied().unwrap_or(self.text.len());
        let end = self.line_starts.get(line).map_or(self.text.len(), |&next| next.saturating_sub(1));
        self.text.get(start..end.max(start)).unwrap_or("").trim_end_matches('\r')
    }
}

/// Where problems are written and how.
struct Report {
    json: bool,
    files: Vec<Named>,
}

impl Report {
    fn add(&mut self, name: String, text: String) -> Source {
        self.files.push(Named::new(name, text));
        Source(self.files.len() - 1)
    }

    fn range_json(&self, source: Source, range: TextRange) -> Json {
        let Some(file) = self.files.get(source.0) else { return Json::Null };
        let pos = |offset: usize| {
            let (line, column, byte) = file.position(offset);
            Json::Object(vec![
                ("line".to_owned(), Json::Number(line.to_string())),
                ("column".to_owned(), Json::Number(column.to_string())),
                ("byte".to_owned(), Json::Number(byte.to_string())),
            ])
        };
        Json::Object(vec![
            ("filename".to_owned(), Json::String(file.name.clone())),
            ("start".to_owned(), pos(usize::from(range.start()))),
            ("end".to_owned(), pos(usize::from(range.end()))),
        ])
    }

    /// A problem's detail, with where the earlier definition it refers to is, as the reference
    /// writes it (`Previous definition was at app.hcl:1,1-6.`).
    fn detail(&self, problem: &Problem) -> String {
        let Some((source, range)) = problem.related else { return problem.detail.clone() };
        let Some(file) = self.files.get(source.0) else { return problem.detail.clone() };
        let (line, start, _) = file.position(usize::from(range.start()));
        let (_, end, _) = file.position(usize::from(range.end()));
        format!("{} Previous definition was at {}:{line},{start}-{end}.", problem.detail, file.name)
    }

    /// Writes the problems on stderr in the chosen format.
    fn write(&self, problems: &[Problem]) -> io::Result<()> {
        let mut err = io::stderr().lock();
        if self.json {
            let items = problems
                .iter()
                .map(|p| {
                    let mut fields = vec![
                        ("severity".to_owned(), Json::String(severity(p).to_owned())),
                        ("summary".to_owned(), Json::String(p.summary.clone())),
                    ];
                    if !p.detail.is_empty() {
                        fields.push(("detail".to_owned(), Json::String(self.detail(p))));
                    }
                    if let Some((source, range)) = p.location {
                        fields.push(("subject".to_owned(), self.range_json(source, range)));
                    }
                    Json::Object(fields)
                })
                .collect();
            let document = Json::Object(vec![("diagnostics".to_owned(), Json::Array(items))]);
            return writeln!(err, "{}", document.pretty());
        }
        for problem in problems {
            let label = if problem.is_error() { "Error" } else { "Warning" };
            writeln!(err, "{label}: {}\n", problem.summary)?;
            if let Some((source, range)) = problem.location
                && let Some(file) = self.files.get(source.0)
            {
                let (line, _, _) = file.position(usize::from(range.start()));
                let text = file.line(line);
                writeln!(err, "  on {} line {line}:\n{line:>4}: {text}\n", file.name)?;
            }
            if !problem.detail.is_empty() {
                writeln!(err, "{}\n", self.detail(problem))?;
            }
        }
        Ok(())
    }
}

fn severity(problem: &Problem) -> &'static str {
    match problem.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// Reads a file given on the command line: regular files only, capped in size.
fn read_text(path: &Path) -> Result<String, String> {
    let bytes = files::read_regular(path, files::MAX_FILE_SIZE).map_err(|e| format!("{}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("{}: the file is not valid UTF-8", path.display()))
}

/// Exit with `hcldec`'s "Error: ..." and code 1.
fn fail(message: impl std::fmt::Display) -> io::Result<ExitCode> {
    eprintln!("Error: {message}\n");
    Ok(ExitCode::from(1))
}

/// Runs `hcldec` with `args`.
pub fn run(args: HcldecArgs) -> io::Result<ExitCode> {
    if args.version {
        println!("{} (nacl-ls)", env!("CARGO_PKG_VERSION"));
        return Ok(ExitCode::SUCCESS);
    }
    let json = match args.diags.as_str() {
        "" | "text" => false,
        "json" => true,
        other => {
            eprintln!("Invalid diagnostics format {other:?}: only \"json\" and \"text\" are supported.");
            return Ok(ExitCode::from(2));
        }
    };
    let mut report = Report { json, files: Vec::new() };
    let Some(spec_path) = &args.spec else { return fail("the --spec=... argument is required") };
    let spec_text = match read_text(spec_path) {
        Ok(text) => text,
        Err(e) => return fail(format!("cannot read the spec: {e}")),
    };
    let spec_source = report.add(spec_path.display().to_string(), spec_text);
    let (spec, mut problems) = hcldec::load_spec(&report.files[spec_source.0].text, spec_source);
    let spec = match spec {
        Some(spec) if !hcldec::has_errors(&problems) => spec,
        _ => {
            report.write(&problems)?;
            return Ok(ExitCode::from(2));
        }
    };
    let mut variables = BTreeMap::new();
    for (i, vars) in args.vars.iter().enumerate() {
        match read_vars(vars, i, &mut report) {
            Ok((values, more)) => {
                problems.extend(more);
                variables.extend(values);
            }
            Err(e) => return fail(e),
        }
    }
    for assignment in &args.var {
        let Some((name, value)) = assignment.split_once('=') else {
            return fail(format!("--var takes NAME=VALUE, not {assignment:?}"));
        };
        variables.insert(name.to_owned(), var_value(value));
    }
    let context = input_context(&spec, &variables);

    let mut bodies = Vec::new();
    if args.files.is_empty() {
        let text = match super::read_stdin_text("decodes") {
            Ok(text) => text,
            Err(e) if matches!(e.kind(), io::ErrorKind::FileTooLarge | io::ErrorKind::InvalidData) => {
                return fail(e);
            }
            Err(e) => return Err(e),
        };
        let source = report.add("<stdin>".to_owned(), text);
        let (body, more) = hcldec::parse_input(&report.files[source.0].text, Syntax::Native, source);
        problems.extend(more);
        bodies.extend(body);
    }
    for path in &args.files {
        let text = match read_text(path) {
            Ok(text) => text,
            Err(e) => return fail(e),
        };
        let syntax = if path.extension().is_some_and(|e| e == "json") { Syntax::Json } else { Syntax::Native };
        let source = report.add(path.display().to_string(), text);
        let (body, more) = hcldec::parse_input(&report.files[source.0].text, syntax, source);
        problems.extend(more);
        bodies.extend(body);
    }
    if hcldec::has_errors(&problems) {
        report.write(&problems)?;
        return Ok(ExitCode::from(2));
    }
    let body = Body::merge(bodies);

    if args.var_refs {
        let refs = variables_needed(&body, &spec.root);
        let text = Json::Array(refs.iter().map(|r| var_ref_json(&report, r, &context)).collect()).pretty();
        return emit(args.out.as_deref(), &text);
    }

    let (value, more) = decode(&body, &spec.root, &context);
    problems.extend(more);
    if hcldec::has_errors(&problems) {
        report.write(&problems)?;
        return Ok(ExitCode::from(2));
    }
    let ty = spec.root.implied_type();
    let ty = if value.ty() == ty { ty } else { value.ty() };
    let document = if args.with_type { value_with_type_json(&value, &ty) } else { value_json(&value) };
    let document = match document {
        Ok(document) => document,
        Err(e) => return fail(e),
    };
    let document = if args.keep_nulls { document } else { document.without_nulls() };
    emit(args.out.as_deref(), &document.text())
}

/// Writes `text` and a newline to stdout or to `out` (created or truncated, never through a link).
fn emit(out: Option<&Path>, text: &str) -> io::Result<ExitCode> {
    match out {
        None => {
            let mut stdout = io::stdout().lock();
            writeln!(stdout, "{text}")?;
        }
        Some(path) => {
            if let Err(e) = super::write_output(path, &format!("{text}\n")) {
                return fail(e);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A `--var` value: an HCL expression's constant value, else the text as a string.
fn var_value(text: &str) -> Value {
    let wrapped = format!("v = {text}\n");
    let parse = nacl_syntax::hcl::parse(&wrapped);
    if parse.errors().is_empty()
        && let Some(nacl_syntax::hcl::ast::BodyItem::Attribute(attribute)) = parse.tree().items().next()
        && let Some(node) = attribute.value()
    {
        let (value, errors) = evaluate(&node, &Context::default());
        if errors.is_empty() {
            return value;
        }
    }
    Value::string(text)
}

/// The variables of one `--vars` argument: a JSON object, or a file of attributes.
fn read_vars(arg: &str, index: usize, report: &mut Report) -> Result<(BTreeMap<String, Value>, Vec<Problem>), String> {
    let (name, text, syntax) = if arg.trim_start().starts_with('{') {
        (format!("<vars argument {index}>"), arg.to_owned(), Syntax::Json)
    } else {
        let path = Path::new(arg);
        let syntax = if arg.ends_with(".json") { Syntax::Json } else { Syntax::Native };
        (arg.to_owned(), read_text(path)?, syntax)
    };
    let source = report.add(name, text);
    let (body, mut problems) = hcldec::parse_input(&report.files[source.0].text, syntax, source);
    let mut values = BTreeMap::new();
    if let Some(body) = body {
        let (attributes, more) = body.just_attributes();
        problems.extend(more);
        for attribute in attributes {
            let value = match &attribute.expr {
                hcldec::body::Expr::Json(json) => hcldec::json::value_from_json(json),
                hcldec::body::Expr::Native(node) => {
                    let (value, errors) = evaluate(node, &Context::default());
                    problems.extend(
                        errors.into_iter().map(|e| Problem::error("Invalid expression", e.message, source, e.range)),
                    );
                    value
                }
            };
            values.insert(attribute.name.clone(), value);
        }
    }
    Ok((values, problems))
}

/// One variable reference as `hcldec --var-refs` describes it.
fn var_ref_json(report: &Report, reference: &VariableRef, context: &Context) -> Json {
    let mut root_name = String::new();
    let mut value = None;
    let mut steps = Vec::new();
    for step in &reference.steps {
        let (fields, range) = match step {
            RefStep::Root(name, range) => {
                root_name = name.clone();
                value = context.variables.get(name).cloned();
                (vec![("kind", Json::String("root".to_owned())), ("name", Json::String(name.clone()))], *range)
            }
            RefStep::Attr(name, range) => {
                value = value.and_then(|v| match v {
                    Value::Object(items) | Value::Map(_, items) => items.get(name).cloned(),
                    _ => None,
                });
                (vec![("kind", Json::String("attr".to_owned())), ("name", Json::String(name.clone()))], *range)
            }
            RefStep::Index(key, range) => {
                value = value.and_then(|v| index_value(v, key));
                let key = value_json(key).unwrap_or(Json::Null);
                (vec![("kind", Json::String("index".to_owned())), ("key", key)], *range)
            }
        };
        let mut fields: Vec<(String, Json)> = fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        fields.push(("range".to_owned(), report.range_json(reference.source, range)));
        steps.push(Json::Object(fields));
    }
    let mut fields = vec![("root_name".to_owned(), Json::String(root_name))];
    if let Some(json) = value.as_ref().and_then(|v| value_json(v).ok()) {
        fields.push(("value".to_owned(), json));
    }
    fields.push(("steps".to_owned(), Json::Array(steps)));
    fields.push(("range".to_owned(), report.range_json(reference.source, reference.range)));
    Json::Object(fields)
}

fn index_value(value: Value, key: &Value) -> Option<Value> {
    match (value, key) {
        (Value::List(_, items) | Value::Tuple(items), Value::Number(n)) => {
            n.as_index().and_then(|i| items.get(i).cloned())
        }
        (Value::Map(_, items) | Value::Object(items), Value::String(k)) => items.get(k).cloned(),
        _ => None,
    }
}
