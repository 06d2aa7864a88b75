//! Resolving references past their element: paths into instance values, field annotations,
//! type annotations and annotation types, and cycles of references whose values are references.
//!
//! Salto's rules (section 6.2 of the reference): `T.attr.k.…` is a path into the type's
//! annotation values, `T.field.f` the field and `T.field.f.k.…` its annotation values,
//! `T.annotation.k` a declared annotation type (one level only), `T.instance.i.a.0.b` a path into
//! the instance's values (numeric segments index lists). A reference whose value is itself a
//! reference (or a template) is followed; one that leads back to itself is circular.
//!
//! A path is looked up in the fragments directly: objects merge key by key, so a path exists in
//! the merged element exactly when it exists in one of its fragments.

use crate::{
    db::{Db, ElementKey, SourceFile, Workspace, element_files, env_state, fragments_of},
    elem_id::{ElemId, IdType},
    fragments::Fragment,
    types::type_info,
    values::{EntryRef, Kind, Part, ValueRef},
};
use smallvec::SmallVec;
use std::collections::HashSet;

/// What a reference to an existing element leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// The value exists, or lies where it cannot be checked (in Salto's state, behind another
    /// reference, in a `file()`).
    Resolved,
    /// The element exists but the rest of the path does not: what is missing, in words.
    Missing(String),
    /// Following the reference's value through references leads to a cycle.
    Circular,
}

/// Resolves a reference (its environment and ID) whose element exists. Memoized per reference,
/// so a file's diagnostics only recompute when what its references lead to changes.
#[salsa::tracked(returns(ref))]
pub fn resolve_reference<'db>(db: &'db dyn Db, key: ElementKey<'db>) -> Resolution {
    let (workspace, env, id) = (*key.workspace(db), key.env(db).as_deref(), key.id(db));
    resolve(db, workspace, env, id, &element_files(db, workspace, env, &id.top_level_id()))
}

/// [`resolve_reference`] without its memo, for a check that resolves each reference once:
/// `files` are the files of the reference's element active in `env` (the caller has them).
pub fn resolve(db: &dyn Db, workspace: Workspace, env: Option<&str>, id: &ElemId, files: &[SourceFile]) -> Resolution {
    match lookup_in(db, workspace, env, id, files) {
        Lookup::Missing(what) => Resolution::Missing(what),
        Lookup::Opaque => Resolution::Resolved,
        Lookup::Found(targets) if leads_to_cycle(db, workspace, env, id, &targets) => Resolution::Circular,
        Lookup::Found(_) => Resolution::Resolved,
    }
}

/// The result of looking a reference up.
enum Lookup {
    /// Its value: the references that value consists of (when it is a reference or a template).
    Found(Vec<ElemId>),
    /// The path is missing: what is missing, in words.
    Missing(String),
    /// The value cannot be looked into (not in NaCl, behind a reference, a built-in type).
    Opaque,
}

/// Most references a chain is followed through before it is taken for resolved.
const MAX_FOLLOWED: usize = 256;

/// Whether following `start`'s value (which consists of the references `targets`) through
/// references reaches a cycle (Salto marks every reference in a cycle, and every one that leads
/// into it).
fn leads_to_cycle(db: &dyn Db, workspace: Workspace, env: Option<&str>, start: &ElemId, targets: &[ElemId]) -> bool {
    if targets.is_empty() {
        return false;
    }
    /// A reference being followed, and the references of its value still to visit.
    struct Frame {
        id: ElemId,
        next: Vec<ElemId>,
    }
    let targets_of = |id: &ElemId| match lookup(db, workspace, env, id) {
        Lookup::Found(targets) => targets,
        Lookup::Missing(_) | Lookup::Opaque => Vec::new(),
    };
    let mut on_path: HashSet<ElemId> = HashSet::from([start.clone()]);
    let mut done: HashSet<ElemId> = HashSet::new();
    let mut stack = vec![Frame { id: start.clone(), next: targets.to_vec() }];
    while let Some(frame) = stack.last_mut() {
        let Some(next) = frame.next.pop() else {
            let finished = frame.id.clone();
            stack.pop();
            on_path.remove(&finished);
            done.insert(finished);
            continue;
        };
        if on_path.contains(&next) {
            return true;
        }
        if done.contains(&next) || done.len() + stack.len() > MAX_FOLLOWED {
            continue;
        }
        on_path.insert(next.clone());
        let next_targets = targets_of(&next);
        stack.push(Frame { id: next, next: next_targets });
    }
    false
}

/// Looks up what `id` names in the fragments of its element.
fn lookup(db: &dyn Db, workspace: Workspace, env: Option<&str>, id: &ElemId) -> Lookup {
    lookup_in(db, workspace, env, id, &element_files(db, workspace, env, &id.top_level_id()))
}

/// [`lookup`] in `files`, the files of the element `id` lies in active in `env`.
fn lookup_in(db: &dyn Db, workspace: Workspace, env: Option<&str>, id: &ElemId, files: &[SourceFile]) -> Lookup {
    // An element exists in an environment when one of its files is active there.
    if files.is_empty() {
        return Lookup::Opaque;
    }
    let top = &id.top_level_id();
    let path: Path<'_> = id.path_from_top().collect();
    let fragments: SmallVec<[&Fragment; 2]> = files.iter().flat_map(|&file| fragments_of(db, file, top)).collect();
    let values = || fragments.iter().flat_map(|f| f.values().iter());
    // The values the path is looked up in, the path there, and what holds them (for messages).
    let (found, looked_up, holder) = match (top.id_type, path.split_first()) {
        (IdType::Var, _) => return found(values().map(EntryRef::value)),
        (IdType::Instance, None) => return Lookup::Found(Vec::new()),
        (IdType::Instance, Some(_)) => (find_path(values(), &path), &path[..], Holder::Instance),
        (IdType::Type, Some((kind, rest))) => match (*kind, rest.split_first()) {
            ("attr", Some(_)) => (find_path(values(), rest), rest, Holder::Type),
            ("field", Some((name, annotation_path))) => {
                let defs: SmallVec<[_; 2]> =
                    fragments.iter().flat_map(|f| &f.fields).filter(|d| &*d.name == *name).collect();
                if defs.is_empty() {
                    let missing = format!("type `{top}` has no field `{name}`");
                    return hidden_or_missing(db, workspace, env, top, &path, missing);
                }
                if annotation_path.is_empty() {
                    return Lookup::Found(Vec::new());
                }
                let annotations = defs.iter().flat_map(|d| d.annotations().iter());
                (find_path(annotations, annotation_path), annotation_path, Holder::Field(name))
            }
            ("annotation", Some((name, deeper))) => {
                let declared = fragments.iter().flat_map(|f| &f.annotation_types).any(|d| &*d.name == *name);
                return match (declared, deeper.is_empty()) {
                    (true, true) => Lookup::Found(Vec::new()),
                    (true, false) => Lookup::Missing(format!(
                        "`{top}.annotation.{name}` names an annotation type, which has no values to look into"
                    )),
                    (false, _) => Lookup::Missing(format!("type `{top}` declares no annotation type `{name}`")),
                };
            }
            _ => return Lookup::Opaque,
        },
        _ => return Lookup::Opaque,
    };
    match found {
        PathLookup::Found(values) => self::found(values.into_iter()),
        PathLookup::Opaque => Lookup::Opaque,
        PathLookup::Missing(depth) => {
            let shown = looked_up[..=depth].join(".");
            let holder = match holder {
                Holder::Instance => format!("instance `{top}` has no value"),
                Holder::Type => format!("type `{top}` has no annotation value"),
                Holder::Field(name) => format!("field `{name}` of `{top}` has no annotation value"),
            };
            hidden_or_missing(db, workspace, env, top, &path, format!("{holder} at `{shown}`"))
        }
    }
}

/// What holds the values a path is looked up in, named in the message when the path is missing
/// (built only then: most paths exist).
enum Holder<'a> {
    /// An instance's values.
    Instance,
    /// A type's annotation values.
    Type,
    /// The annotation values of the field of this name.
    Field(&'a str),
}

/// A missing path, unless Salto's state (or a hidden field, or a `_default`) provides it.
fn hidden_or_missing(
    db: &dyn Db,
    workspace: Workspace,
    env: Option<&str>,
    top: &ElemId,
    path: &[&str],
    missing: String,
) -> Lookup {
    if provided_elsewhere(db, workspace, env, top, path) { Lookup::Opaque } else { Lookup::Missing(missing) }
}

/// Whether a path NaCl lacks is provided by Salto's state, a hidden field or a `_default`.
fn provided_elsewhere(db: &dyn Db, workspace: Workspace, env: Option<&str>, top: &ElemId, path: &[&str]) -> bool {
    /// Instance annotations whose values Salto keeps in its state.
    const SERVICE_MANAGED: [&str; 5] = ["_service_url", "_created_by", "_created_at", "_changed_by", "_changed_at"];
    let Some(first) = path.first() else { return false };
    let state = env_state(db, workspace, env).filter(|s| s.has_account(&top.adapter));
    if let Some(element) = state.and_then(|s| s.element(top)) {
        let in_state = match (top.id_type, path) {
            (IdType::Instance, _) => {
                element.hidden_values.iter().any(|(hidden, _)| hidden.first().is_some_and(|h| h == first))
            }
            (IdType::Type, [kind, name, ..]) if *kind == "attr" => element.annotation(name).is_some(),
            (IdType::Type, [kind, name, ..]) if *kind == "field" => element.field(name).is_some(),
            _ => false,
        };
        if in_state {
            return true;
        }
    }
    if top.id_type != IdType::Instance {
        return false;
    }
    if SERVICE_MANAGED.contains(first) {
        return true;
    }
    let key = ElementKey::new(db, workspace, crate::db::EnvRef(env), top.type_of());
    type_info(db, key)
        .as_ref()
        .is_some_and(|info| info.hidden_value || info.field(first).is_some_and(|field| field.hidden || field.default))
}

/// A path from an element to a value, borrowed from its ID ([`ElemId::path_from_top`]).
type Path<'a> = SmallVec<[&'a str; 8]>;

/// Values found at a path: one per fragment that sets it, almost always one.
type Values<'a> = SmallVec<[ValueRef<'a>; 2]>;

/// The result of following a path through values.
enum PathLookup<'a> {
    /// The values at the end of the path (one per fragment that sets it).
    Found(Values<'a>),
    /// The segment at this index does not exist.
    Missing(usize),
    /// The path goes through a value that cannot be looked into.
    Opaque,
}

/// Follows `path` (object keys and list indices) from the entries of several fragments.
fn find_path<'a>(entries: impl Iterator<Item = EntryRef<'a>>, path: &[&str]) -> PathLookup<'a> {
    let Some((first, rest)) = path.split_first() else { return PathLookup::Opaque };
    let mut current: Values<'a> = entries.filter(|e| e.key() == *first).map(EntryRef::value).collect();
    if current.is_empty() {
        return PathLookup::Missing(0);
    }
    for (at, segment) in rest.iter().enumerate() {
        let mut next = Values::new();
        for value in current {
            match value.kind() {
                Kind::Object(entries) => {
                    next.extend(entries.iter().filter(|e| e.key() == *segment).map(EntryRef::value));
                }
                Kind::List(items) => next.extend(segment.parse::<usize>().ok().and_then(|i| items.get(i))),
                Kind::Reference(_) | Kind::Template(_) | Kind::File(_) | Kind::Invalid => {
                    return PathLookup::Opaque;
                }
                Kind::String(_) | Kind::Number(_) | Kind::Bool(_) => {}
            }
        }
        if next.is_empty() {
            return PathLookup::Missing(at + 1);
        }
        current = next;
    }
    PathLookup::Found(current)
}

/// A found value: the references it consists of, when it is a reference or a template.
fn found<'a>(mut values: impl Iterator<Item = ValueRef<'a>>) -> Lookup {
    let Some(value) = values.next() else { return Lookup::Opaque };
    let targets = match value.kind() {
        Kind::Reference(text) => ElemId::parse(&text).into_iter().collect(),
        Kind::Template(parts) => parts
            .iter()
            .filter_map(|part| match part {
                Part::Reference(text, _) => ElemId::parse(&text).ok(),
                Part::Text(_) => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Lookup::Found(targets)
}
