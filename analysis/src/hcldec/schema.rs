//! hcldec specs as the schemas of HCL files in a workspace: which spec describes a file (the
//! file's `# hcldec-spec: path` directive, else the first matching glob of the settings or of
//! `.nacl-ls.toml`), the spec files' own diagnostics, and each described file's diagnostics from
//! decoding it. Specs are files of the database like any other, so editing one re-checks the
//! files it describes, incrementally.

use super::{Problem, Severity, Source, body::Body, decode::decode, spec::SpecFile};
use crate::{
    codes::AnalysisCode,
    db::{Db, SourceFile, Workspace, find_file},
    diagnostics::{Diagnostic, Related},
};
use nacl_syntax::{TextRange, TextSize};
use std::path::{Component, Path, PathBuf};

/// The name of the project file at a workspace's root that maps globs to specs.
pub const PROJECT_FILE: &str = ".nacl-ls.toml";

/// The spec files' suffix.
pub const SPEC_SUFFIX: &str = ".hcldec";

/// Globs of HCL files (relative to the workspace root) and the spec (a path relative to the root)
/// that describes them; the first match wins.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SpecRules {
    /// (glob, spec path), in order.
    pub entries: Vec<(String, String)>,
}

impl SpecRules {
    /// The rules of `.nacl-ls.toml`'s `[hcldec.specs]` table (`"glob" = "spec path"`), from its
    /// text; the error says what is wrong with it.
    pub fn from_project_file(text: &str) -> Result<SpecRules, String> {
        let table: toml::Table =
            text.parse().map_err(|e: toml::de::Error| format!("{PROJECT_FILE}: {}", e.message()))?;
        let Some(hcldec) = table.get("hcldec") else { return Ok(SpecRules::default()) };
        let Some(specs) = hcldec.get("specs") else { return Ok(SpecRules::default()) };
        let Some(specs) = specs.as_table() else {
            return Err(format!("{PROJECT_FILE}: [hcldec.specs] must be a table of \"glob\" = \"spec path\""));
        };
        let mut entries = Vec::new();
        for (glob, spec) in specs {
            let Some(spec) = spec.as_str() else {
                return Err(format!("{PROJECT_FILE}: the spec for {glob:?} must be a path in a string"));
            };
            entries.push((glob.clone(), spec.to_owned()));
        }
        Ok(SpecRules { entries })
    }

    /// Reads `.nacl-ls.toml` at `root` if there is one (a regular file, not a link).
    pub fn read_project_file(root: &Path) -> Result<SpecRules, String> {
        let path = root.join(PROJECT_FILE);
        match std::fs::symlink_metadata(&path) {
            Err(_) => return Ok(SpecRules::default()),
            Ok(meta) if !meta.is_file() => return Err(format!("{PROJECT_FILE} is not a regular file: not read")),
            Ok(_) => {}
        }
        let bytes = crate::files::read_regular(&path, 1 << 20).map_err(|e| format!("{PROJECT_FILE}: {e}"))?;
        let text = String::from_utf8(bytes).map_err(|_| format!("{PROJECT_FILE} is not UTF-8"))?;
        SpecRules::from_project_file(&text)
    }

    /// These rules, then `more`.
    pub fn then(mut self, more: SpecRules) -> SpecRules {
        self.entries.extend(more.entries);
        self
    }
}

/// Which spec describes a file, and how it was found.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Association {
    /// No spec.
    None,
    /// This spec file; `directive` is where the file names it, when it does.
    Spec {
        /// The spec file.
        spec: SourceFile,
        /// The directive naming it, if that is how.
        directive: Option<TextRange>,
    },
    /// A spec is named but cannot be used: why, and where it is named (the directive's range, or
    /// the file's start).
    Unavailable {
        /// What is wrong.
        message: String,
        /// Where to show it.
        range: TextRange,
    },
}

/// The `# hcldec-spec: path` directive (also `//`) among the comment lines a file starts with:
/// the path, and the range of the directive.
pub fn directive(text: &str) -> Option<(String, TextRange)> {
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        let comment = trimmed.strip_prefix('#').or_else(|| trimmed.strip_prefix("//"));
        match comment {
            Some(body) => {
                if let Some(path) = body.trim().strip_prefix("hcldec-spec:") {
                    let path = path.trim();
                    let start = offset + (line.len() - line.trim_start().len());
                    let range = TextRange::new(
                        TextSize::from(u32::try_from(start).ok()?),
                        TextSize::from(u32::try_from(start + trimmed.len()).ok()?),
                    );
                    return (!path.is_empty()).then(|| (path.to_owned(), range));
                }
            }
            None if trimmed.is_empty() => {}
            None => return None,
        }
        offset += line.len();
    }
    None
}

/// `path` with `.` and `..` resolved without touching the file system; `None` when `..` climbs
/// above the start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// Whether a file is a spec file (by its name).
pub fn is_spec_file(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(SPEC_SUFFIX))
}

/// The spec that describes `file`.
#[salsa::tracked(returns(ref))]
pub fn association(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Association {
    let path = file.path(db);
    if is_spec_file(path) {
        return Association::None;
    }
    let root = &workspace.layout(db).root;
    let (wanted, range, directive_range) = match directive(file.text(db).get()) {
        Some((name, range)) => {
            let base = path.parent().unwrap_or(root);
            (Some(base.join(name)), range, Some(range))
        }
        None => {
            let relative = path.strip_prefix(root).unwrap_or(path);
            let rules = workspace.spec_rules(db);
            let found = rules
                .entries
                .iter()
                .find(|(glob, _)| globset::Glob::new(glob).is_ok_and(|g| g.compile_matcher().is_match(relative)));
            (found.map(|(_, spec)| root.join(spec)), TextRange::empty(0.into()), None)
        }
    };
    let Some(wanted) = wanted else { return Association::None };
    let shown = wanted.display().to_string();
    let inside = wanted.strip_prefix(root).ok().and_then(normalize).map(|relative| root.join(relative));
    let Some(normal) = inside else {
        return Association::Unavailable {
            message: format!("the spec {shown} is outside the workspace: nacl-ls reads specs inside it only"),
            range,
        };
    };
    match find_file(db, workspace, &normal) {
        Some(spec) if is_spec_file(&normal) => Association::Spec { spec, directive: directive_range },
        Some(_) => Association::Unavailable {
            message: format!("{shown} is not a spec file: spec files end in {SPEC_SUFFIX}"),
            range,
        },
        None => Association::Unavailable { message: format!("there is no spec file {shown} in the workspace"), range },
    }
}

/// A spec file read: its spec (when it has no errors) and its problems.
#[derive(Debug, Clone)]
pub struct LoadedSpec {
    /// The spec, when the file has no errors.
    pub spec: Option<SpecFile>,
    /// The problems, in the spec file (`Source(0)`).
    pub problems: Vec<Problem>,
}

/// A spec file's spec and problems.
#[salsa::tracked(returns(ref), no_eq)]
pub fn loaded_spec(db: &dyn Db, file: SourceFile) -> LoadedSpec {
    let parse = crate::hcl::parse(db, file);
    if !parse.errors().is_empty() {
        return LoadedSpec { spec: None, problems: Vec::new() };
    }
    let (spec, problems) = super::spec::load(&parse.tree(), Source(0));
    let spec = (!super::has_errors(&problems)).then_some(spec);
    LoadedSpec { spec, problems }
}

/// The problem as a diagnostic's message: its detail (a full sentence), else its summary.
fn problem_message(problem: &Problem) -> String {
    if problem.detail.is_empty() { problem.summary.clone() } else { problem.detail.clone() }
}

/// The spec-related diagnostics of an HCL file: a spec file's own mistakes, or a described file's
/// problems from decoding it (and a warning when its spec cannot be used).
#[salsa::tracked(returns(ref))]
pub fn spec_diagnostics(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Vec<Diagnostic> {
    if is_spec_file(file.path(db)) {
        let loaded = loaded_spec(db, file);
        return loaded
            .problems
            .iter()
            .filter_map(|p| {
                let (_, range) = p.location?;
                let code = match p.severity {
                    Severity::Error => AnalysisCode::InvalidSpec,
                    Severity::Warning => AnalysisCode::SpecWarning,
                };
                let related = p.related.map(|(_, r)| Related {
                    path: file.path(db).clone(),
                    range: r,
                    message: "first here".to_owned(),
                });
                Some(Diagnostic {
                    code: code.code(),
                    range,
                    message: problem_message(p),
                    related: related.into_iter().collect(),
                })
            })
            .collect();
    }
    let (spec_file, directive) = match association(db, workspace, file) {
        Association::None => return Vec::new(),
        Association::Unavailable { message, range } => {
            return vec![Diagnostic {
                code: AnalysisCode::SpecUnavailable.code(),
                range: *range,
                message: message.clone(),
                related: Vec::new(),
            }];
        }
        Association::Spec { spec, directive } => (*spec, *directive),
    };
    let parse = crate::hcl::parse(db, file);
    if !parse.errors().is_empty() {
        // Decoding a file that does not parse would only repeat its syntax errors.
        return Vec::new();
    }
    let at = directive.unwrap_or_default();
    let Some(spec) = &loaded_spec(db, spec_file).spec else {
        return vec![Diagnostic {
            code: AnalysisCode::SpecUnavailable.code(),
            range: at,
            message: format!("the spec {} has errors: fix them to check this file", spec_file.path(db).display()),
            related: Vec::new(),
        }];
    };
    let body = Body::of_file(&parse.tree(), Source(1));
    let context = super::spec::input_context(spec, &Default::default());
    let (_, problems) = decode(&body, &spec.root, &context);
    let mut out: Vec<Diagnostic> = problems
        .iter()
        .map(|p| {
            let range = match p.location {
                Some((Source(1), range)) => range,
                _ => at,
            };
            let code = match p.severity {
                Severity::Error => AnalysisCode::SpecMismatch.code(),
                Severity::Warning => AnalysisCode::SpecWarning.code(),
            };
            let related = p.related.and_then(|(source, r)| {
                (source == Source(1)).then(|| Related {
                    path: file.path(db).clone(),
                    range: r,
                    message: "first here".to_owned(),
                })
            });
            Diagnostic { code, range, message: problem_message(p), related: related.into_iter().collect() }
        })
        .collect();
    out.sort_by_key(|d| (d.range.start(), d.range.end()));
    out
}
