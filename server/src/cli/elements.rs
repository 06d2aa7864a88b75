//! `nacl-ls elements`: list the merged elements of a workspace.

use super::OutputFormat;
use crate::{diagnostics::display_path, line_index::LineIndex, terminal::escaped};
use nacl_analysis::{
    db::SourceFile,
    fragments::FragmentKind,
    layout,
    merge::{MergedElement, MergedEntry},
    state::{StateElement, StateKind},
    values::{Kind, Part, ValueRef},
    workspace,
};
use serde_json::{Map, Value as Json, json};
use std::{
    io::{self, Write},
    path::PathBuf,
    process::ExitCode,
};

/// What `elements` was asked.
pub struct ElementsArgs {
    /// A folder of the workspace (default: the current folder).
    pub path: Option<PathBuf>,
    /// The environment to merge in.
    pub env: Option<String>,
    /// Whether to read Salto's state files (hidden types and values).
    pub state: bool,
    /// Whether to print the merged values.
    pub values: bool,
    /// How to print.
    pub format: OutputFormat,
    /// Whether to leave out the progress bar.
    pub quiet: bool,
}

/// Lists the elements: ID, kind, where each fragment is, and with `values` the merged values.
pub fn run(args: ElementsArgs) -> io::Result<ExitCode> {
    let path = args.path.unwrap_or_else(|| PathBuf::from("."));
    if !path.exists() {
        eprintln!(
            "error: cannot search {}: no such file or folder",
            crate::terminal::escaped(&path.display().to_string())
        );
        return Ok(ExitCode::from(2));
    }
    let progress = super::progress::Progress::new(!args.quiet && args.format == OutputFormat::Human);
    let report = |done, total| progress.report("reading", done, total);
    let loaded =
        workspace::load_with_state_and_progress(&layout::find_root(&path), args.env.as_deref(), args.state, &report);
    progress.finish();
    let db = &loaded.db;
    let elements: Vec<Json> = loaded
        .elements()
        .iter()
        .map(|element| {
            let fragments: Vec<Json> = element
                .fragments
                .iter()
                .map(|(file, range, _)| {
                    let index = LineIndex::new(file.text(db).get());
                    let at = index.line_col(range.start());
                    json!({ "path": display_path(file.path(db)), "line": at.line + 1, "column": at.col + 1 })
                })
                .collect();
            let mut out =
                json!({ "id": element.id.to_string(), "kind": kind_name(&element.kind), "fragments": fragments });
            if args.values {
                out["value"] = element_value(element);
            }
            out
        })
        .collect();
    let elements = [elements, hidden_elements(&loaded, args.values)].concat();
    let mut stdout = io::stdout().lock();
    match args.format {
        OutputFormat::Json => {
            serde_json::to_writer_pretty(&mut stdout, &elements)?;
            writeln!(stdout)?;
        }
        OutputFormat::Human => {
            for element in &elements {
                let text = |value: &Json| escaped(value.as_str().unwrap_or_default()).into_owned();
                writeln!(stdout, "{} {}", text(&element["kind"]), text(&element["id"]))?;
                if element["state"].is_string() {
                    writeln!(stdout, "  from Salto's state: {}", text(&element["state"]))?;
                }
                for fragment in element["fragments"].as_array().into_iter().flatten() {
                    writeln!(stdout, "  {}:{}:{}", text(&fragment["path"]), fragment["line"], fragment["column"])?;
                }
                if let Some(value) = element.get("value") {
                    for line in serde_json::to_string_pretty(value)?.lines() {
                        writeln!(stdout, "    {line}")?;
                    }
                }
            }
            writeln!(stdout, "{} elements", elements.len())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The elements Salto merges whole from its state (hidden types and instances), sorted by ID.
fn hidden_elements(loaded: &workspace::LoadedWorkspace, values: bool) -> Vec<Json> {
    let env = loaded.workspace.layout(&loaded.db).current_env.clone();
    let Some(state) = nacl_analysis::db::env_state(&loaded.db, loaded.workspace, env.as_deref()) else {
        return Vec::new();
    };
    let mut hidden: Vec<&StateElement> = state
        .hidden_elements()
        .filter(|e| !nacl_analysis::db::element_exists(&loaded.db, loaded.workspace, env.as_deref(), &e.id))
        .collect();
    hidden.sort_by_cached_key(|e| e.id.to_string());
    hidden
        .into_iter()
        .map(|element| {
            let kind = match &element.kind {
                StateKind::Object { settings: true } => "hidden settings type".to_owned(),
                StateKind::Object { .. } => "hidden object type".to_owned(),
                StateKind::Primitive(p) => format!("hidden primitive type ({})", p.as_str()),
                StateKind::Instance { .. } => "hidden instance".to_owned(),
            };
            let file = state.file_of(element).map(display_path).unwrap_or_default();
            let mut out = json!({ "id": element.id.to_string(), "kind": kind, "state": file, "fragments": [] });
            if values {
                out["value"] = hidden_value(element);
            }
            out
        })
        .collect()
}

/// The value of a hidden element as the state holds it.
fn hidden_value(element: &StateElement) -> Json {
    let parse = |raw: &serde_json::value::RawValue| serde_json::from_str::<Json>(raw.get()).unwrap_or(Json::Null);
    match &element.kind {
        StateKind::Instance { .. } => element.value.as_deref().map_or(Json::Null, parse),
        StateKind::Object { .. } | StateKind::Primitive(_) => {
            let fields: Map<String, Json> = element
                .fields
                .iter()
                .map(|f| (f.name.clone(), json!({ "type": f.type_name, "annotations": parse(&f.annotations) })))
                .collect();
            let annotation_types: Map<String, Json> =
                element.annotation_types.iter().map(|(name, ty)| (name.clone(), Json::from(ty.as_str()))).collect();
            json!({ "annotation_types": annotation_types, "annotations": parse(&element.annotations), "fields": fields })
        }
    }
}

fn kind_name(kind: &FragmentKind) -> String {
    match kind {
        FragmentKind::Object { settings: true, .. } => "settings type".to_owned(),
        FragmentKind::Object { meta: Some(meta), .. } => format!("object type (meta type {meta})"),
        FragmentKind::Object { .. } => "object type".to_owned(),
        FragmentKind::Primitive(p) => format!("primitive type ({})", p.as_str()),
        FragmentKind::Instance => "instance".to_owned(),
        FragmentKind::Variable => "variable".to_owned(),
    }
}

/// The merged value tree of an element.
fn element_value(element: &MergedElement<SourceFile>) -> Json {
    match element.kind {
        FragmentKind::Instance => Json::Object(entries_json(&element.values)),
        FragmentKind::Variable => element.values.first().map_or(Json::Null, entry_json),
        FragmentKind::Object { .. } | FragmentKind::Primitive(_) => {
            let fields: Map<String, Json> = element
                .fields
                .iter()
                .map(|f| {
                    (f.name.to_string(), json!({ "type": &*f.type_name, "annotations": entries_json(&f.annotations) }))
                })
                .collect();
            let annotation_types: Map<String, Json> =
                element.annotation_types.iter().map(|(name, ty, ..)| (name.to_string(), Json::from(&**ty))).collect();
            json!({ "annotation_types": annotation_types, "annotations": entries_json(&element.values), "fields": fields })
        }
    }
}

fn entries_json(entries: &[MergedEntry<SourceFile>]) -> Map<String, Json> {
    entries.iter().map(|e| (e.key.to_string(), entry_json(e))).collect()
}

/// One key's value; objects defined in several fragments are merged key by key.
fn entry_json(entry: &MergedEntry<SourceFile>) -> Json {
    let mut values = entry.defs.iter().map(|(_, e)| value_json(ValueRef::of(&e.value)));
    let first = values.next().unwrap_or(Json::Null);
    values.fold(first, merge_json)
}

/// Merges objects key by key; for anything else (a conflict, reported by `check`) the first wins.
fn merge_json(first: Json, second: Json) -> Json {
    match (first, second) {
        (Json::Object(mut a), Json::Object(b)) => {
            for (key, value) in b {
                let merged = match a.remove(&key) {
                    Some(existing) => merge_json(existing, value),
                    None => value,
                };
                a.insert(key, merged);
            }
            Json::Object(a)
        }
        (first, _) => first,
    }
}

/// A value as JSON: references and templates are written with their element IDs.
fn value_json(value: ValueRef<'_>) -> Json {
    match value.kind() {
        Kind::String(s) => Json::from(s.as_str()),
        Kind::Template(parts) => Json::from(
            parts
                .iter()
                .map(|p| match p {
                    Part::Text(t) => t.to_string(),
                    Part::Reference(r, _) => format!("${{ {r} }}"),
                })
                .collect::<String>(),
        ),
        Kind::Number(n) => n
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Json::from(n.as_str()), Json::Number),
        Kind::Bool(b) => Json::Bool(b),
        Kind::Reference(r) => Json::from(r.as_str()),
        Kind::List(items) => Json::Array(items.iter().map(value_json).collect()),
        Kind::Object(entries) => {
            Json::Object(entries.iter().map(|e| (e.key().to_string(), value_json(e.value()))).collect())
        }
        Kind::File(call) => match &call.encoding {
            Some(encoding) => json!({ "file": call.path.as_str(), "encoding": encoding.as_str() }),
            None => json!({ "file": call.path.as_str() }),
        },
        Kind::Invalid => Json::Null,
    }
}
