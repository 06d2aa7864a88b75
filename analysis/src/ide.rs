//! The IDE facade: one entry per editor feature, each dispatching on the document's language with
//! an exhaustive `match`, so a new language is a compile error wherever it must be handled.
//!
//! Features that read one document's syntax take a [`DocumentView`] (its text, language and, when
//! the document is in a workspace, the workspace, whose kept parse is reused); features that need
//! the workspace take it and a path. NaCl's implementations live in the rest of this crate, HCL's
//! in [`crate::hcl`], ARMLang's in [`crate::arm`]; HCL files are analysed one by one, so features that need more than one file
//! (references across files, rename, completion of names) answer nothing for HCL yet.

use crate::{
    arm,
    assists::Assist,
    completion::Completions,
    hcl, hcldec,
    highlight::{self, Highlight},
    hints::{DocumentLink, InlayHint},
    language::Language,
    navigation::{HoverInfo, Target},
    references::{Occurrence, RenameEdits},
    structure::{self, Fold, Symbol},
    workspace::LoadedWorkspace,
};
use nacl_syntax::{TextEdit, TextRange, TextSize};
use std::path::Path;

/// One document as the syntax-only features see it.
#[derive(Clone, Copy)]
pub struct DocumentView<'a> {
    /// Its path (or the path standing for a document that is not a file).
    pub path: &'a Path,
    /// Its current text.
    pub text: &'a str,
    /// The workspace holding it, if any: its kept parse is reused when it matches `text`.
    pub workspace: Option<&'a LoadedWorkspace>,
}

impl DocumentView<'_> {
    /// The document's language: decided when it entered the workspace, else from its name
    /// (NaCl for a name nacl-ls does not know).
    pub fn language(&self) -> Language {
        language_of(self.workspace, self.path)
    }

    fn nacl_syntax(&self) -> nacl_syntax::nacl::SyntaxNode {
        let kept = self.workspace.and_then(|w| w.syntax(self.path));
        kept.filter(|root| usize::from(root.text_range().len()) == self.text.len())
            .unwrap_or_else(|| nacl_syntax::nacl::parse(self.text).syntax())
    }

    fn hcl_parse(&self) -> nacl_syntax::hcl::Parse {
        let kept = self.workspace.and_then(|w| w.file(self.path).map(|f| hcl::parse(&w.db, f).clone()));
        kept.filter(|parse| usize::from(parse.syntax().text_range().len()) == self.text.len())
            .unwrap_or_else(|| nacl_syntax::hcl::parse(self.text))
    }

    fn arm_parse(&self) -> nacl_syntax::arm::Parse {
        let kept = self.workspace.and_then(|w| w.file(self.path).map(|f| arm::parse(&w.db, f).clone()));
        kept.filter(|parse| usize::from(parse.syntax().text_range().len()) == self.text.len())
            .unwrap_or_else(|| nacl_syntax::arm::parse(self.text))
    }

    /// The ARMLang parse and model of the document.
    fn arm_model(&self) -> (nacl_syntax::arm::SyntaxNode, arm::model::Model) {
        let root = self.arm_parse().syntax();
        let model = arm::model::Model::build(&root);
        (root, model)
    }

    /// The full ID of the NaCl element or value at `offset` ("Copy NaCl Reference").
    pub fn element_id(&self, offset: TextSize) -> Option<String> {
        match self.language() {
            Language::Nacl => crate::navigation::element_id_at(&self.nacl_syntax(), offset).map(|id| id.to_string()),
            Language::Hcl | Language::Arm => None,
        }
    }

    /// The outline.
    pub fn symbols(&self) -> Vec<Symbol> {
        match self.language() {
            Language::Nacl => structure::document_symbols(&self.nacl_syntax()),
            Language::Hcl => hcl::structure::document_symbols(&self.hcl_parse().syntax()),
            Language::Arm => arm::ide::symbols(&self.arm_model().1),
        }
    }

    /// The foldable regions.
    pub fn folding_ranges(&self) -> Vec<Fold> {
        match self.language() {
            Language::Nacl => structure::folding_ranges(&self.nacl_syntax(), self.text),
            Language::Hcl => hcl::structure::folding_ranges(&self.hcl_parse().syntax(), self.text),
            Language::Arm => arm::ide::folding_ranges(&self.arm_parse().syntax(), self.text),
        }
    }

    /// The steps of "expand selection" from `offset`, innermost first.
    pub fn selection_ranges(&self, offset: TextSize) -> Vec<TextRange> {
        match self.language() {
            Language::Nacl => structure::selection_ranges(&self.nacl_syntax(), offset),
            Language::Hcl => hcl::structure::selection_ranges(&self.hcl_parse().syntax(), offset),
            Language::Arm => arm::ide::selection_ranges(&self.arm_parse().syntax(), offset),
        }
    }

    /// The semantic highlights of the words overlapping `range` (all when `None`).
    pub fn highlights(&self, range: Option<TextRange>) -> Vec<Highlight> {
        match self.language() {
            Language::Nacl => match self.workspace {
                Some(workspace) => workspace.highlights.highlights(self.path, &self.nacl_syntax(), range),
                None => highlight::highlights(&self.nacl_syntax(), range),
            },
            Language::Hcl => hcl::highlight::highlights(&self.hcl_parse().syntax(), range),
            Language::Arm => {
                let (root, model) = self.arm_model();
                arm::ide::highlights(&root, &model, range)
            }
        }
    }

    /// The edit that formats the document, or the part of it around `range`; `None` when
    /// formatting changes nothing.
    pub fn format(&self, range: Option<TextRange>) -> Option<TextEdit> {
        let text = self.text;
        let whole = |formatted: String| {
            (formatted != text).then(|| TextEdit { range: TextRange::up_to(TextSize::of(text)), new_text: formatted })
        };
        let edit = match (self.language(), range) {
            (Language::Nacl, None) => whole(nacl_syntax::nacl::format::format(text)),
            (Language::Nacl, Some(range)) => {
                nacl_syntax::nacl::format::format_range(text, &nacl_syntax::nacl::parse(text), range)
            }
            (Language::Hcl, None) => whole(nacl_syntax::hcl::format::format_parsed(text, &self.hcl_parse())),
            (Language::Hcl, Some(range)) => nacl_syntax::hcl::format::format_range(text, &self.hcl_parse(), range),
            // One canonical layout for the whole file: a range formats the file.
            (Language::Arm, _) => whole(nacl_syntax::arm::format::format_parsed(text, &self.arm_parse())),
        };
        edit.filter(|edit| text[edit.range] != edit.new_text)
    }
}

/// `text` formatted in its language's canonical style.
pub fn format_text(language: Language, text: &str) -> String {
    match language {
        Language::Nacl => nacl_syntax::nacl::format::format(text),
        Language::Hcl => nacl_syntax::hcl::format::format(text),
        Language::Arm => nacl_syntax::arm::format::format(text),
    }
}

/// `text` parsed on its own: its concrete syntax tree, printed, and its syntax errors.
pub fn parse_text(language: Language, text: &str) -> (String, Vec<nacl_syntax::SyntaxError>) {
    match language {
        Language::Nacl => {
            let parse = nacl_syntax::nacl::parse(text);
            (format!("{:#?}", parse.syntax()), parse.errors().to_vec())
        }
        Language::Hcl => {
            let parse = nacl_syntax::hcl::parse(text);
            (format!("{:#?}", parse.syntax()), parse.errors().to_vec())
        }
        Language::Arm => {
            let parse = nacl_syntax::arm::parse(text);
            (format!("{:#?}", parse.syntax()), parse.errors().to_vec())
        }
    }
}

/// The hcldec spec file describing the file at `path`, when one does (and is usable).
pub fn spec_of(workspace: &LoadedWorkspace, path: &Path) -> Option<std::path::PathBuf> {
    match language_of(Some(workspace), path) {
        Language::Nacl | Language::Arm => None,
        Language::Hcl => {
            let file = workspace.file(path)?;
            match hcldec::schema::association(&workspace.db, workspace.workspace, file) {
                hcldec::schema::Association::Spec { spec, .. } => Some(spec.path(&workspace.db).clone()),
                _ => None,
            }
        }
    }
}

/// The value an HCL file decodes to with its hcldec spec, as JSON text, or why there is none.
pub fn decoded_json(workspace: &LoadedWorkspace, path: &Path) -> Result<String, String> {
    match language_of(Some(workspace), path) {
        Language::Nacl => Err("NaCl files have no hcldec spec".to_owned()),
        Language::Arm => Err("ARMLang files have no hcldec spec".to_owned()),
        Language::Hcl => match workspace.file(path) {
            Some(file) => hcldec::ide::decoded_json(&workspace.db, workspace.workspace, file),
            None => Err(format!("{} is not in the workspace", path.display())),
        },
    }
}

/// The language of the file at `path` in `workspace` (decided when it entered it), else from its
/// name, NaCl for a name nacl-ls does not know.
pub fn language_of(workspace: Option<&LoadedWorkspace>, path: &Path) -> Language {
    workspace
        .and_then(|w| w.file(path).map(|f| f.language(&w.db)))
        .or_else(|| match workspace {
            Some(w) => w.languages.language_of(path),
            None => Language::of_path(path),
        })
        .unwrap_or(Language::Nacl)
}

/// Where the name at `offset` is defined.
pub fn definition(workspace: &LoadedWorkspace, path: &Path, offset: TextSize) -> Vec<Target> {
    match language_of(Some(workspace), path) {
        Language::Nacl => workspace.definition(path, offset),
        Language::Hcl => match hcl_binding(workspace, path, offset) {
            Some(binding) => vec![Target { path: path.to_path_buf(), range: binding.declaration }],
            None => workspace
                .file(path)
                .map(|file| hcldec::ide::definition(&workspace.db, workspace.workspace, file, offset))
                .unwrap_or_default(),
        },
        Language::Arm => workspace
            .file(path)
            .and_then(|file| arm::ide::definition(arm::semantic_model(&workspace.db, file), offset))
            .map(|range| vec![Target { path: path.to_path_buf(), range }])
            .unwrap_or_default(),
    }
}

/// What the word at `offset` is.
pub fn hover(workspace: &LoadedWorkspace, path: &Path, offset: TextSize) -> Option<HoverInfo> {
    match language_of(Some(workspace), path) {
        Language::Nacl => workspace.hover(path, offset),
        Language::Hcl => {
            let file = workspace.file(path)?;
            hcldec::ide::hover(&workspace.db, workspace.workspace, file, offset)
                .or_else(|| hcl::hover::hover(&hcl::parse(&workspace.db, file).syntax(), offset))
        }
        Language::Arm => {
            let file = workspace.file(path)?;
            arm::ide::hover(&arm::parse(&workspace.db, file).syntax(), arm::semantic_model(&workspace.db, file), offset)
        }
    }
}

/// The declaration (when asked for) and uses of the ARMLang name at `offset`.
fn arm_occurrences(workspace: &LoadedWorkspace, path: &Path, offset: TextSize, declaration: bool) -> Vec<Occurrence> {
    let Some(file) = workspace.file(path) else { return Vec::new() };
    arm::ide::occurrences(arm::semantic_model(&workspace.db, file), offset, declaration)
        .into_iter()
        .map(|(range, declaration)| Occurrence { path: path.to_path_buf(), range, declaration })
        .collect()
}

/// The ARM template an ARMLang file of the workspace compiles to, or its errors as text.
pub fn arm_template(workspace: &LoadedWorkspace, path: &Path) -> Result<String, String> {
    match language_of(Some(workspace), path) {
        Language::Nacl | Language::Hcl => Err("only ARMLang files (`*.arm`) compile to ARM templates".to_owned()),
        Language::Arm => {
            let file = workspace.file(path).ok_or_else(|| format!("{} is not in the workspace", path.display()))?;
            arm::build_template(file.text(&workspace.db).get(), path).map_err(|diagnostics| {
                let errors = diagnostics.iter().filter(|d| d.severity() == nacl_syntax::Severity::Error).count();
                format!(
                    "the file has {errors} error(s); the first: {}",
                    diagnostics.first().map(|d| d.message.as_str()).unwrap_or("")
                )
            })
        }
    }
}

/// The dependency lens of each resource of an ARMLang file: where, and what it depends on.
pub fn dependency_lenses(workspace: &LoadedWorkspace, path: &Path) -> Vec<(TextRange, String)> {
    match language_of(Some(workspace), path) {
        Language::Nacl | Language::Hcl => Vec::new(),
        Language::Arm => workspace
            .file(path)
            .map(|file| arm::ide::dependency_lenses(arm::semantic_model(&workspace.db, file)))
            .unwrap_or_default(),
    }
}

/// The `for` variable at `offset` in an HCL file of the workspace.
fn hcl_binding(workspace: &LoadedWorkspace, path: &Path, offset: TextSize) -> Option<hcl::scope::Binding> {
    let file = workspace.file(path)?;
    hcl::scope::binding_at(&hcl::parse(&workspace.db, file).syntax(), offset)
}

/// The declaration (when asked for) and uses of the `for` variable at `offset` in an HCL file.
fn hcl_occurrences(workspace: &LoadedWorkspace, path: &Path, offset: TextSize, declaration: bool) -> Vec<Occurrence> {
    let Some(binding) = hcl_binding(workspace, path, offset) else { return Vec::new() };
    let at = |range, declaration| Occurrence { path: path.to_path_buf(), range, declaration };
    let mut out: Vec<Occurrence> = Vec::new();
    if declaration {
        out.push(at(binding.declaration, true));
    }
    out.extend(binding.uses.into_iter().map(|range| at(range, false)));
    out
}

/// The service URL of the element at `offset` (NaCl only).
pub fn service_url(workspace: &LoadedWorkspace, path: &Path, offset: TextSize) -> Option<String> {
    match language_of(Some(workspace), path) {
        Language::Nacl => workspace.service_url(path, offset),
        Language::Hcl | Language::Arm => None,
    }
}

/// Every place the name at `offset` appears.
pub fn references(workspace: &LoadedWorkspace, path: &Path, offset: TextSize, declaration: bool) -> Vec<Occurrence> {
    match language_of(Some(workspace), path) {
        Language::Nacl => workspace.references(path, offset, declaration),
        Language::Hcl => hcl_occurrences(workspace, path, offset, declaration),
        Language::Arm => arm_occurrences(workspace, path, offset, declaration),
    }
}

/// The places in its own document the name at `offset` appears.
pub fn document_highlights(workspace: &LoadedWorkspace, path: &Path, offset: TextSize) -> Vec<Occurrence> {
    match language_of(Some(workspace), path) {
        Language::Nacl => workspace.highlights(path, offset),
        Language::Hcl => hcl_occurrences(workspace, path, offset, true),
        Language::Arm => arm_occurrences(workspace, path, offset, true),
    }
}

/// The name a rename at `offset` replaces, or why it cannot be renamed.
pub fn prepare_rename(
    workspace: &LoadedWorkspace,
    path: &Path,
    offset: TextSize,
) -> Result<(TextRange, String), String> {
    match language_of(Some(workspace), path) {
        Language::Nacl => workspace.prepare_rename(path, offset),
        Language::Hcl => Err("renaming in HCL files needs a schema, which nacl-ls does not have yet".to_owned()),
        Language::Arm => {
            let file = workspace.file(path).ok_or("the file is not in the workspace")?;
            arm::ide::prepare_rename(arm::semantic_model(&workspace.db, file), offset)
        }
    }
}

/// The edits of a rename, or why it is refused.
pub fn rename(
    workspace: &LoadedWorkspace,
    path: &Path,
    offset: TextSize,
    new_name: &str,
) -> Result<RenameEdits, String> {
    match language_of(Some(workspace), path) {
        Language::Nacl => workspace.rename(path, offset, new_name),
        Language::Hcl => Err("renaming in HCL files needs a schema, which nacl-ls does not have yet".to_owned()),
        Language::Arm => {
            let file = workspace.file(path).ok_or("the file is not in the workspace")?;
            let edits = arm::ide::rename(arm::semantic_model(&workspace.db, file), offset, new_name)?;
            Ok(vec![(path.to_path_buf(), edits)])
        }
    }
}

/// The completions at `offset`.
pub fn completions(workspace: &LoadedWorkspace, path: &Path, offset: TextSize) -> Completions {
    match language_of(Some(workspace), path) {
        Language::Nacl => workspace.completions(path, offset),
        Language::Hcl => workspace
            .file(path)
            .map(|file| hcldec::ide::completions(&workspace.db, workspace.workspace, file, offset))
            .unwrap_or_default(),
        Language::Arm => {
            let Some(file) = workspace.file(path) else { return Completions::default() };
            let db = &workspace.db;
            let types: Vec<String> = crate::db::every_file(db, workspace.workspace)
                .filter(|f| f.language(db) == Language::Arm)
                .flat_map(|f| arm::resource_types(db, f).iter().cloned())
                .collect();
            let root = arm::parse(db, file).syntax();
            arm::ide::completions(&root, arm::semantic_model(db, file), file.text(db).get(), offset, &types)
        }
    }
}

/// The fixes and refactorings available over `range`.
pub fn assists(workspace: &LoadedWorkspace, path: &Path, range: TextRange) -> Vec<Assist> {
    match language_of(Some(workspace), path) {
        Language::Nacl => workspace.assists(path, range),
        Language::Hcl | Language::Arm => Vec::new(),
    }
}

/// The inlay hints over `range`.
pub fn inlay_hints(workspace: &LoadedWorkspace, path: &Path, range: TextRange) -> Vec<InlayHint> {
    match language_of(Some(workspace), path) {
        Language::Nacl => workspace.inlay_hints(path, range),
        Language::Hcl | Language::Arm => Vec::new(),
    }
}

/// The links of a document.
pub fn document_links(workspace: &LoadedWorkspace, path: &Path) -> Vec<DocumentLink> {
    match language_of(Some(workspace), path) {
        Language::Nacl => workspace.document_links(path),
        Language::Hcl | Language::Arm => Vec::new(),
    }
}

/// The element headers of a document, for code lenses (NaCl only).
pub fn element_headers(workspace: &LoadedWorkspace, path: &Path) -> Vec<(TextRange, crate::elem_id::ElemId)> {
    match language_of(Some(workspace), path) {
        Language::Nacl => workspace.element_headers(path),
        Language::Hcl | Language::Arm => Vec::new(),
    }
}
