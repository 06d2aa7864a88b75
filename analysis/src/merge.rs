//! Merging the fragments of one element, and the conflicts between them.
//!
//! The rules are Salto's (values set once across fragments, objects merged key by key, fields
//! with one type, annotation types declared once, one meta type, one settings flag, one
//! primitive category, one definition per variable), with two differences: an object type and a
//! primitive type with one name is reported instead of silently keeping the last, and every
//! conflict names the full path of the conflicting key and points at every fragment involved.

use crate::codes::AnalysisCode;
use crate::{
    elem_id::ElemId,
    fragments::{Entry, FieldDef, Fragment, FragmentKind, ValueKind},
};
use nacl_syntax::TextRange;

/// A problem between fragments, located in each fragment involved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict<F> {
    /// What kind of conflict.
    pub code: AnalysisCode,
    /// What is wrong, in words.
    pub message: String,
    /// Where: one place in each fragment involved.
    pub locations: Vec<(F, TextRange)>,
}

/// An entry as merged: every definition of one key across fragments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedEntry<F> {
    /// The key.
    pub key: crate::fragments::Text,
    /// Each definition, in fragment order: one, or several objects whose keys are merged.
    pub defs: Vec<(F, Entry)>,
}

/// A field as merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedField<F> {
    /// The field name.
    pub name: crate::fragments::Text,
    /// Its type name (from the first definition).
    pub type_name: crate::fragments::Text,
    /// Every definition: the file and the field block.
    pub defs: Vec<(F, FieldDef)>,
    /// Its annotation values.
    pub annotations: Vec<MergedEntry<F>>,
}

/// One element, merged from all its fragments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedElement<F> {
    /// Its ID.
    pub id: ElemId,
    /// What it is (from the first fragment).
    pub kind: FragmentKind,
    /// Where each fragment is: the file, the block and its header.
    pub fragments: Vec<(F, TextRange, TextRange)>,
    /// Fields of an object type.
    pub fields: Vec<MergedField<F>>,
    /// Declared annotation types: name, type name, and where.
    pub annotation_types: Vec<(crate::fragments::Text, crate::fragments::Text, F, TextRange)>,
    /// Annotation values of a type, values of an instance, or a variable's value.
    pub values: Vec<MergedEntry<F>>,
    /// Conflicts between the fragments.
    pub conflicts: Vec<Conflict<F>>,
}

impl<F: Copy> MergedElement<F> {
    /// The merged definition of a top-level value key.
    pub fn value(&self, key: &str) -> Option<&MergedEntry<F>> {
        self.values.iter().find(|e| &*e.key == key)
    }

    /// The merged field of that name.
    pub fn field(&self, name: &str) -> Option<&MergedField<F>> {
        self.fields.iter().find(|f| &*f.name == name)
    }
}

/// Merges the fragments of one element, given in a stable order (the files' order).
pub fn merge<F: Copy + Eq>(id: ElemId, fragments: &[(F, &Fragment)]) -> MergedElement<F> {
    let kind = fragments.first().map_or(FragmentKind::Instance, |(_, f)| f.kind.clone());
    let mut merged = MergedElement {
        id,
        kind,
        fragments: fragments.iter().map(|(file, f)| (*file, f.range, f.header_range)).collect(),
        fields: Vec::new(),
        annotation_types: Vec::new(),
        values: Vec::new(),
        conflicts: Vec::new(),
    };
    let name = merged.id.to_string();
    if fragments.len() > 1 {
        check_kinds(&mut merged, fragments, &name);
    }
    let value_groups: Vec<(F, &[Entry])> = fragments.iter().map(|(file, f)| (*file, &*f.values)).collect();
    // A variable defined twice is one conflict (reported above), not also a duplicate value.
    let mut value_conflicts = Vec::new();
    merged.values = merge_entries(&value_groups, "", &name, &mut value_conflicts);
    if merged.kind != FragmentKind::Variable {
        merged.conflicts.extend(value_conflicts);
    }

    // Fields, grouped by name across fragments.
    for (file, fragment) in fragments {
        for field in &fragment.fields {
            match merged.fields.iter_mut().find(|f| f.name == field.name) {
                Some(existing) => existing.defs.push((*file, field.clone())),
                None => merged.fields.push(MergedField {
                    name: field.name.clone(),
                    type_name: field.type_name.clone(),
                    defs: vec![(*file, field.clone())],
                    annotations: Vec::new(),
                }),
            }
        }
    }
    for field in &mut merged.fields {
        if field.defs.iter().any(|(_, d)| d.type_name != field.type_name) {
            let types: Vec<&str> = field.defs.iter().map(|(_, d)| &*d.type_name).collect();
            merged.conflicts.push(Conflict {
                code: AnalysisCode::ConflictingFieldTypes,
                message: format!(
                    "field `{}` of `{name}` is declared with different types: {}",
                    field.name,
                    types.join(", ")
                ),
                locations: field.defs.iter().map(|(file, d)| (*file, d.type_range)).collect(),
            });
        }
        let groups: Vec<(F, &[Entry])> = field.defs.iter().map(|(file, d)| (*file, &*d.annotations)).collect();
        let owner = format!("{name}.field.{}", field.name);
        field.annotations = merge_entries(&groups, "", &owner, &mut merged.conflicts);
    }

    // Annotation types: each declared once across fragments.
    for (file, fragment) in fragments {
        for declared in &fragment.annotation_types {
            merged.annotation_types.push((
                declared.name.clone(),
                declared.type_name.clone(),
                *file,
                declared.name_range,
            ));
        }
    }
    let declared: Vec<(&crate::fragments::Text, F, TextRange)> =
        merged.annotation_types.iter().map(|(n, _, f, r)| (n, *f, *r)).collect();
    let duplicates = duplicate_annotation_types(&declared, &name);
    merged.conflicts.extend(duplicates);
    merged
}

/// The conflicts between an element's fragments: what [`merge`] reports, without merging (and
/// so copying) the values of an element that has one fragment, which cannot conflict with itself
/// (what one block declares twice the parser reports, and the fragment keeps the first).
pub fn conflicts<F: Copy + Eq>(id: &ElemId, fragments: &[(F, &Fragment)]) -> Vec<Conflict<F>> {
    match fragments {
        [] | [_] => Vec::new(),
        _ => merge(id.clone(), fragments).conflicts,
    }
}

/// One conflict for each annotation type declared more than once (name, file, where).
fn duplicate_annotation_types<F: Copy>(
    declared: &[(&crate::fragments::Text, F, TextRange)],
    name: &str,
) -> Vec<Conflict<F>> {
    let mut names: Vec<&crate::fragments::Text> = declared.iter().map(|(n, ..)| *n).collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter(|n| declared.iter().filter(|(m, ..)| m == n).count() > 1)
        .map(|duplicate| Conflict {
            code: AnalysisCode::DuplicateAnnotationType,
            message: format!(
                "annotation type `{duplicate}` of `{name}` is declared in several fragments; declare it once"
            ),
            locations: declared.iter().filter(|(n, ..)| n == &duplicate).map(|(_, f, r)| (*f, *r)).collect(),
        })
        .collect()
}

/// The headers of the fragments for which `pred` holds.
fn headers<F: Copy>(fragments: &[(F, &Fragment)], pred: impl Fn(&Fragment) -> bool) -> Vec<(F, TextRange)> {
    fragments.iter().filter(|(_, f)| pred(f)).map(|(file, f)| (*file, f.header_range)).collect()
}

/// Checks that the fragments agree on what the element is.
fn check_kinds<F: Copy + Eq>(merged: &mut MergedElement<F>, fragments: &[(F, &Fragment)], name: &str) {
    let kinds: Vec<&FragmentKind> = fragments.iter().map(|(_, f)| &f.kind).collect();
    let conflict = |code, message: String, locations| Conflict { code, message, locations };
    let all = headers(fragments, |_| true);
    let objects = kinds.iter().filter(|k| matches!(k, FragmentKind::Object { .. })).count();
    let primitives = kinds.iter().filter(|k| matches!(k, FragmentKind::Primitive(_))).count();
    if objects > 0 && primitives > 0 {
        merged.conflicts.push(conflict(
            AnalysisCode::ConflictingTypeKinds,
            format!(
                "`{name}` is defined both as an object type and as a primitive type; Salto would silently keep only one"
            ),
            all,
        ));
        return;
    }
    match &merged.kind {
        FragmentKind::Variable => merged.conflicts.push(conflict(
            AnalysisCode::DuplicateVariable,
            format!("variable `{name}` is defined {} times; define it once", fragments.len()),
            all,
        )),
        FragmentKind::Primitive(_) => {
            if kinds.windows(2).any(|w| w[0] != w[1]) {
                merged.conflicts.push(conflict(
                    AnalysisCode::ConflictingPrimitive,
                    format!("the fragments of `{name}` give it different primitive categories"),
                    all,
                ));
            }
        }
        FragmentKind::Object { .. } => {
            let settings: Vec<bool> = kinds
                .iter()
                .filter_map(|k| if let FragmentKind::Object { settings, .. } = k { Some(*settings) } else { None })
                .collect();
            if settings.windows(2).any(|w| w[0] != w[1]) {
                merged.conflicts.push(conflict(
                    AnalysisCode::ConflictingSettings,
                    format!("some fragments of `{name}` use `settings` and others `type`; use one keyword for all"),
                    all.clone(),
                ));
            }
            let metas: Vec<&crate::fragments::Text> = kinds
                .iter()
                .filter_map(|k| if let FragmentKind::Object { meta: Some(meta), .. } = k { Some(meta) } else { None })
                .collect();
            if metas.windows(2).any(|w| w[0] != w[1]) {
                let with_meta = headers(fragments, |f| matches!(&f.kind, FragmentKind::Object { meta: Some(_), .. }));
                merged.conflicts.push(conflict(
                    AnalysisCode::ConflictingMetaType,
                    format!("the fragments of `{name}` give it different meta types"),
                    with_meta,
                ));
            }
        }
        FragmentKind::Instance => {}
    }
}

/// Merges the entries of several fragments (or of several objects under one key): a key defined
/// more than once is a conflict unless every definition is an object, whose keys are then merged.
fn merge_entries<F: Copy + Eq>(
    groups: &[(F, &[Entry])],
    path: &str,
    owner: &str,
    conflicts: &mut Vec<Conflict<F>>,
) -> Vec<MergedEntry<F>> {
    let mut merged: Vec<MergedEntry<F>> = Vec::new();
    for (file, entries) in groups {
        for entry in *entries {
            match merged.iter_mut().find(|m| m.key == entry.key) {
                Some(existing) => existing.defs.push((*file, entry.clone())),
                None => merged.push(MergedEntry { key: entry.key.clone(), defs: vec![(*file, entry.clone())] }),
            }
        }
    }
    if groups.len() < 2 {
        return merged;
    }
    for entry in &merged {
        if entry.defs.len() < 2 {
            continue;
        }
        let full = if path.is_empty() { entry.key.to_string() } else { format!("{path}.{}", entry.key) };
        let objects: Option<Vec<(F, &[Entry])>> = entry
            .defs
            .iter()
            .map(|(file, e)| match &e.value.kind {
                ValueKind::Object(inner) => Some((*file, &**inner)),
                _ => None,
            })
            .collect();
        match objects {
            Some(inner) => {
                merge_entries(&inner, &full, owner, conflicts);
            }
            None => conflicts.push(Conflict {
                code: AnalysisCode::DuplicateValue,
                message: format!(
                    "`{full}` of `{owner}` is set in {} fragments; a value can be set only once",
                    entry.defs.len()
                ),
                locations: entry.defs.iter().map(|(file, e)| (*file, e.key_range)).collect(),
            }),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::FileFragments;

    /// Merges the fragments of `id` across the given files (file index, text).
    fn merge_texts(texts: &[&str], id: &str) -> MergedElement<usize> {
        let parsed: Vec<Vec<Fragment>> =
            texts.iter().map(|t| FileFragments::of_text(&(*t).into()).fragments.to_vec()).collect();
        let parts: Vec<(usize, &Fragment)> = parsed
            .iter()
            .enumerate()
            .flat_map(|(i, fs)| fs.iter().filter(|f| f.id.to_string() == id).map(move |f| (i, f)))
            .collect();
        merge(ElemId::parse(id).expect("legal"), &parts)
    }

    #[test]
    fn conflicts_without_merging_are_the_merges_conflicts() {
        let cases: [&[&str]; 4] = [
            &["type salto.t {\n  annotations {\n    string a {\n    }\n    number a {\n    }\n  }\n}\n"],
            &["type salto.t {\n  string f {\n  }\n  label = \"x\"\n}\n"],
            &["type salto.t {\n  label = \"x\"\n}\n", "type salto.t {\n  label = \"y\"\n}\n"],
            &["salto.t i {\n  a = 1\n  a = 2\n}\n"],
        ];
        for texts in cases {
            let id = if texts[0].starts_with("type") { "salto.t" } else { "salto.t.instance.i" };
            let parsed: Vec<Vec<Fragment>> =
                texts.iter().map(|t| FileFragments::of_text(&(*t).into()).fragments.to_vec()).collect();
            let parts: Vec<(usize, &Fragment)> =
                parsed.iter().enumerate().flat_map(|(i, fs)| fs.iter().map(move |f| (i, f))).collect();
            let id = ElemId::parse(id).expect("legal");
            assert_eq!(conflicts(&id, &parts), merge(id, &parts).conflicts, "{texts:?}");
        }
        // Declared twice in one block: the parser reports it (E0316) and the fragment keeps the
        // first, so the merge has nothing more to say; declared in two fragments, it conflicts.
        assert!(merge_texts(&[cases[0][0]], "salto.t").conflicts.is_empty());
        let twice = [
            "type salto.t {\n  annotations {\n    string a {\n    }\n  }\n}\n",
            "type salto.t {\n  annotations {\n    number a {\n    }\n  }\n}\n",
        ];
        let conflicts: Vec<&str> = merge_texts(&twice, "salto.t").conflicts.iter().map(|c| c.code.as_str()).collect();
        assert_eq!(conflicts, ["E0403"]);
    }

    fn codes(merged: &MergedElement<usize>) -> Vec<(&'static str, String)> {
        merged.conflicts.iter().map(|c| (c.code.as_str(), c.message.clone())).collect()
    }

    #[test]
    fn instance_objects_merge_key_by_key_and_leaves_conflict() {
        let a = "salto.e john {\n  name = \"John\"\n  office = {\n    name = \"TLV\"\n  }\n}\n";
        let b = "salto.e john {\n  company = \"Salto\"\n  office = {\n    location = {\n      city = \"TLV\"\n    }\n  }\n}\n";
        assert!(merge_texts(&[a, b], "salto.e.instance.john").conflicts.is_empty());
        let c = "salto.e john {\n  office = {\n    name = \"Other\"\n  }\n}\n";
        let merged = merge_texts(&[a, c], "salto.e.instance.john");
        assert_eq!(
            codes(&merged),
            [(
                "E0401",
                "`office.name` of `salto.e.instance.john` is set in 2 fragments; a value can be set only once"
                    .to_owned()
            )]
        );
        assert_eq!(merged.conflicts[0].locations.len(), 2);
    }

    #[test]
    fn lists_never_merge() {
        let merged =
            merge_texts(&["salto.e j {\n  n = [\"a\"]\n}\n", "salto.e j {\n  n = [\"b\"]\n}\n"], "salto.e.instance.j");
        assert_eq!(merged.conflicts.len(), 1);
    }

    #[test]
    fn type_fragments_merge_fields_and_check_kinds() {
        let a = "type salto.t {\n  string a {\n    label = \"A\"\n  }\n}\n";
        let b = "type salto.t {\n  number a {\n    label = \"B\"\n  }\n  string b {\n  }\n}\n";
        let merged = merge_texts(&[a, b], "salto.t");
        assert_eq!(merged.fields.len(), 2);
        let found: Vec<&str> = merged.conflicts.iter().map(|c| c.code.as_str()).collect();
        assert_eq!(found, ["E0402", "E0401"]);
        let kinds = merge_texts(&["type salto.k {\n}\n", "type salto.k is string {\n}\n"], "salto.k");
        assert_eq!(codes(&kinds)[0].0, "E0407");
        let settings = merge_texts(&["settings salto.s {\n}\n", "type salto.s {\n}\n"], "salto.s");
        assert_eq!(codes(&settings)[0].0, "E0405");
    }

    #[test]
    fn annotation_types_and_variables_are_declared_once() {
        let a = "type salto.t {\n  annotations {\n    string label {\n    }\n  }\n}\n";
        assert_eq!(codes(&merge_texts(&[a, a], "salto.t"))[0].0, "E0403");
        let v = "vars {\n  x = 1\n}\n";
        assert_eq!(codes(&merge_texts(&[v, v], "var.x"))[0].0, "E0408");
    }
}
