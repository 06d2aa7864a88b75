//! ARMLang's part of the analysis: per-file queries (the parse, the semantic model, the
//! diagnostics), types, the compiler to ARM templates, and the editor features. Each `.arm` file
//! is its own scope, so everything but completion of resource types is per file.

pub mod compile;
pub mod ide;
pub mod model;
pub mod types;

use crate::{
    db::{Db, SourceFile},
    diagnostics::{Diagnostic, Related},
};
use model::{Model, Problem};

/// The parse of an ARMLang file (kept for the files editors ask about most).
#[salsa::tracked(returns(ref), no_eq, lru = 32)]
pub fn parse(db: &dyn Db, file: SourceFile) -> nacl_syntax::arm::Parse {
    nacl_syntax::arm::parse(file.text(db).get())
}

/// The semantic model of an ARMLang file.
#[salsa::tracked(returns(ref))]
pub fn semantic_model(db: &dyn Db, file: SourceFile) -> Model {
    Model::build(&parse(db, file).syntax())
}

/// The resource types with API versions (`'<type>@<apiVersion>'`) an ARMLang file declares.
#[salsa::tracked(returns(ref))]
pub fn resource_types(db: &dyn Db, file: SourceFile) -> Vec<String> {
    semantic_model(db, file)
        .symbols
        .iter()
        .filter_map(|s| match &s.kind {
            model::SymbolKind::Resource { ty, api_version, .. } if !ty.is_empty() => {
                Some(format!("{ty}@{api_version}"))
            }
            _ => None,
        })
        .collect()
}

/// The diagnostics of an ARMLang file, by position: its syntax errors, and what scopes,
/// dependencies, types and the compiler find.
#[salsa::tracked(returns(ref))]
pub fn diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let parse = parse(db, file);
    let mut out: Vec<Diagnostic> = parse.errors().iter().map(Diagnostic::from_syntax).collect();
    let path = file.path(db);
    for problem in semantic_problems(&parse.syntax(), semantic_model(db, file)) {
        out.push(to_diagnostic(problem, path));
    }
    out.sort_by_key(|d| (d.range.start(), d.range.end()));
    out
}

/// What the model and the type checker find in a file, and when they find no error, what the
/// compiler cannot translate; by position.
pub fn semantic_problems(root: &nacl_syntax::arm::SyntaxNode, model: &Model) -> Vec<Problem> {
    let mut problems = model.problems.clone();
    problems.extend(types::Checker::new(model, root.clone()).check());
    if problems.iter().all(|p| p.code.severity() != nacl_syntax::Severity::Error) {
        let (_, compile_problems) = compile::build(root, model);
        problems.extend(compile_problems);
    }
    problems.sort_by_key(|p| (p.range.start(), p.range.end()));
    problems
}

/// A problem as a diagnostic of the file at `path`.
pub fn to_diagnostic(problem: Problem, path: &std::path::Path) -> Diagnostic {
    Diagnostic {
        code: problem.code.into(),
        range: problem.range,
        message: problem.message,
        related: problem
            .related
            .into_iter()
            .map(|(range, message)| Related { path: path.to_path_buf(), range, message })
            .collect(),
    }
}

/// The ARM template `text` compiles to, pretty-printed, or its diagnostics when it has errors.
pub fn build_template(text: &str, path: &std::path::Path) -> Result<String, Vec<Diagnostic>> {
    let parse = nacl_syntax::arm::parse(text);
    let model = Model::build(&parse.syntax());
    let mut diagnostics: Vec<Diagnostic> = parse.errors().iter().map(Diagnostic::from_syntax).collect();
    diagnostics.extend(semantic_problems(&parse.syntax(), &model).into_iter().map(|p| to_diagnostic(p, path)));
    if diagnostics.iter().any(|d| d.severity() == nacl_syntax::Severity::Error) {
        diagnostics.sort_by_key(|d| (d.range.start(), d.range.end()));
        return Err(diagnostics);
    }
    let (json, _) = compile::build(&parse.syntax(), &model);
    Ok(json.pretty() + "\n")
}
