//! Salto's state files (`salto.config/states/<env>.<account>.jsonl.zip`): the elements Salto
//! keeps out of NaCl. Only what Salto itself merges into the workspace is used: whole hidden
//! elements (types and instances marked `_hidden`, instances of `_hidden_value` types) and the
//! hidden parts of elements that also exist in NaCl (annotations such as `_service_url`, values
//! of `_hidden_value` fields). Visible state elements are kept only to recognise types that
//! exist in the service but are not in NaCl.
//!
//! Every generation of the format is read (see `docs/salto-state-format.md` in the shared
//! documents): both gzip containers, the positional and the keyed line layouts, old key names
//! and inline type placeholders, Windows line ends. State files are never written.

mod decode;
mod read;
mod serialized;

pub use read::{StateFile, StateFileError, read_state_file};

use crate::{
    elem_id::ElemId,
    fragments::Primitive,
    layout::{CONFIG_DIR, Layout},
};
use serde_json::value::RawValue;
use std::{
    collections::{BTreeMap, HashMap},
    path::{Path, PathBuf},
    sync::Arc,
};

/// The folder under `salto.config/` holding state files.
pub const STATES_DIR: &str = "states";

/// A top-level element read from a state file.
#[derive(Debug)]
pub struct StateElement {
    /// Its ID.
    pub id: ElemId,
    /// What it is.
    pub kind: StateKind,
    /// Its annotation values (an object; `{}` when it has none).
    pub annotations: Box<RawValue>,
    /// `_hidden: true`.
    pub hidden: bool,
    /// `_hidden_value: true` (types): the values of this type live only in state.
    pub hidden_value: bool,
    /// Declared annotation types: name and type name.
    pub annotation_types: Vec<(String, String)>,
    /// The fields of an object type, in order.
    pub fields: Vec<StateField>,
    /// The value of an instance Salto merges whole (a hidden one).
    pub value: Option<Box<RawValue>>,
    /// The values of an instance kept at `_hidden_value` field paths: path and value.
    pub hidden_values: Vec<(Vec<String>, Box<RawValue>)>,
    /// Which state file it comes from (an index into [`EnvState::files`]).
    pub file: usize,
}

/// What a state element is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateKind {
    /// An object type, perhaps a settings type.
    Object {
        /// A settings type.
        settings: bool,
    },
    /// A primitive type.
    Primitive(Primitive),
    /// An instance of a type.
    Instance {
        /// The type's ID.
        type_id: ElemId,
    },
}

/// A field of a state object type.
#[derive(Debug)]
pub struct StateField {
    /// Its name.
    pub name: String,
    /// Its type's full name (`string`, `List<jira.Foo>`, ...).
    pub type_name: String,
    /// Its annotations (an object).
    pub annotations: Box<RawValue>,
    /// `_hidden_value: true` in the field's own annotations: instances keep its value in state.
    pub hidden_value: bool,
    /// `_hidden: true` in the field's own annotations.
    pub hidden: bool,
}

impl StateElement {
    /// One annotation value, parsed.
    pub fn annotation(&self, name: &str) -> Option<serde_json::Value> {
        annotation(&self.annotations, name)
    }

    /// The field of that name.
    pub fn field(&self, name: &str) -> Option<&StateField> {
        self.fields.iter().find(|f| f.name == name)
    }
}

impl StateField {
    /// One annotation value, parsed.
    pub fn annotation(&self, name: &str) -> Option<serde_json::Value> {
        annotation(&self.annotations, name)
    }
}

/// One value of an annotations object, parsed on demand (annotations stay raw in memory).
fn annotation(annotations: &RawValue, name: &str) -> Option<serde_json::Value> {
    let entries: HashMap<&str, &RawValue> = serde_json::from_str(annotations.get()).ok()?;
    entries.get(name).and_then(|raw| serde_json::from_str(raw.get()).ok())
}

/// How an environment's state was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateStatus {
    /// No state file for the environment.
    Missing,
    /// State files were read (some may have failed; see [`EnvState::problems`]).
    Loaded,
    /// State files are there, but none could be read (see [`EnvState::problems`]).
    Unreadable,
    /// Only pointers to state kept in Salto's cloud storage (S3): nothing to read locally.
    Remote,
}

/// The state of one environment: every account's file, merged into one table.
#[derive(Debug)]
pub struct EnvState {
    /// The environment.
    pub env: String,
    /// How the state was found.
    pub status: StateStatus,
    /// The state files read, in order.
    pub files: Vec<PathBuf>,
    /// The accounts (adapters) the state has data for.
    pub accounts: Vec<String>,
    /// Files that could not be read, with why (the environment then works without them).
    pub problems: Vec<(PathBuf, String)>,
    /// A hash of everything this state was read from: each state file's name and bytes.
    content_hash: u64,
    elements: HashMap<ElemId, StateElement>,
    /// The hidden elements by name, built on first use (for completion).
    hidden_names: std::sync::OnceLock<HiddenNames>,
}

/// The names of the hidden elements of a state, for completing references.
#[derive(Debug, Default)]
pub struct HiddenNames {
    /// Hidden types, by adapter.
    pub types: HashMap<String, Vec<ElemId>>,
    /// The names of hidden instances, by type.
    pub instances: HashMap<ElemId, Vec<String>>,
}

impl EnvState {
    /// A top-level element of the state, merged into the workspace or not.
    pub fn element(&self, id: &ElemId) -> Option<&StateElement> {
        self.elements.get(id)
    }

    /// A top-level element Salto merges whole into the workspace (a hidden type or instance).
    pub fn hidden_element(&self, id: &ElemId) -> Option<&StateElement> {
        self.elements.get(id).filter(|e| self.is_hidden(e))
    }

    /// The elements Salto merges whole (hidden types and instances), in no particular order.
    pub fn hidden_elements(&self) -> impl Iterator<Item = &StateElement> {
        self.elements.values().filter(|e| self.is_hidden(e))
    }

    /// The IDs of the types Salto merges whole (hidden types).
    pub fn hidden_types(&self) -> impl Iterator<Item = &ElemId> {
        self.elements.values().filter(|e| e.hidden && !matches!(e.kind, StateKind::Instance { .. })).map(|e| &e.id)
    }

    /// The hidden types and instances by name (built once, on first use).
    pub fn hidden_names(&self) -> &HiddenNames {
        self.hidden_names.get_or_init(|| {
            let mut names = HiddenNames::default();
            for element in self.hidden_elements() {
                match &element.kind {
                    StateKind::Instance { .. } => {
                        let (Some(name), type_id) = (element.id.name_parts.first(), element.id.type_of()) else {
                            continue;
                        };
                        names.instances.entry(type_id).or_default().push(name.to_string());
                    }
                    _ => names.types.entry(element.id.adapter.to_string()).or_default().push(element.id.clone()),
                }
            }
            names
        })
    }

    /// Whether the state has data for an account (adapter).
    pub fn has_account(&self, account: &str) -> bool {
        self.accounts.iter().any(|a| a == account)
    }

    /// How many elements the state holds.
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    /// Whether the state holds no elements.
    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    /// Whether Salto merges the element whole: `_hidden`, or an instance of a hidden value type.
    fn is_hidden(&self, element: &StateElement) -> bool {
        element.hidden || matches!(&element.kind, StateKind::Instance { type_id } if self.is_hidden_value_type(type_id))
    }

    /// Whether values of the type live only in state (`_hidden_value` on the type).
    pub fn is_hidden_value_type(&self, id: &ElemId) -> bool {
        (id.adapter.is_empty() && matches!(id.type_name.as_str(), "hidden_string" | "hidden_boolean"))
            || self.elements.get(id).is_some_and(|t| t.hidden_value)
    }

    /// The state file an element comes from, relative to the workspace root when possible.
    pub fn file_of(&self, element: &StateElement) -> Option<&Path> {
        self.files.get(element.file).map(PathBuf::as_path)
    }
}

/// The state of every environment of a workspace.
#[derive(Default)]
pub struct WorkspaceState {
    envs: BTreeMap<String, EnvState>,
}

impl std::fmt::Debug for WorkspaceState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sizes: Vec<(&str, usize)> = self.envs.iter().map(|(name, env)| (name.as_str(), env.len())).collect();
        f.debug_struct("WorkspaceState").field("elements", &sizes).finish()
    }
}

impl WorkspaceState {
    /// No state at all (state turned off, or not loaded yet).
    pub fn none() -> Arc<WorkspaceState> {
        Arc::new(WorkspaceState::default())
    }

    /// Reads the state of every environment of the layout, environments in parallel.
    pub fn load(layout: &Layout) -> WorkspaceState {
        use rayon::prelude::*;
        let dir = layout.root.join(CONFIG_DIR).join(STATES_DIR);
        let Ok(entries) = std::fs::read_dir(&dir) else { return WorkspaceState::default() };
        let mut names: Vec<String> =
            entries.filter_map(|e| e.ok()).filter_map(|e| e.file_name().to_str().map(str::to_owned)).collect();
        names.sort();
        let envs = layout
            .envs
            .par_iter()
            .map(|env| (env.clone(), load_env(&dir, env, &names)))
            .filter(|(_, state)| state.status != StateStatus::Missing || !state.problems.is_empty())
            .collect();
        WorkspaceState { envs }
    }

    /// The state of an environment, if it has any.
    pub fn env(&self, env: Option<&str>) -> Option<&EnvState> {
        self.envs.get(env?)
    }

    /// Every environment's state, by name.
    pub fn envs(&self) -> impl Iterator<Item = &EnvState> {
        self.envs.values()
    }

    /// A hash of everything the state was read from (two states with the same hash were read
    /// from the same files, byte for byte).
    pub fn fingerprint(&self) -> u64 {
        let mut hasher = xxhash_rust::xxh3::Xxh3Default::new();
        for (name, env) in &self.envs {
            hasher.update(&(name.len() as u64).to_le_bytes());
            hasher.update(name.as_bytes());
            hasher.update(&env.content_hash.to_le_bytes());
        }
        hasher.digest()
    }
}

/// The account of a state file name belonging to `env`, and whether it is a remote pointer:
/// `<env>.<account>.jsonl.zip` (or `.json` for a pointer), where the account has no dot.
fn account_of<'a>(name: &'a str, env: &str) -> Option<(&'a str, bool)> {
    let (stem, remote) = match name.strip_suffix(".jsonl.zip") {
        Some(stem) => (stem, false),
        None => (name.strip_suffix(".json")?, true),
    };
    let (file_env, account) = stem.rsplit_once('.')?;
    (file_env == env && !account.is_empty()).then_some((account, remote))
}

/// Reads the state files of one environment and works out what Salto merges.
fn load_env(dir: &Path, env: &str, names: &[String]) -> EnvState {
    let mut state = EnvState {
        env: env.to_owned(),
        status: StateStatus::Missing,
        files: Vec::new(),
        accounts: Vec::new(),
        problems: Vec::new(),
        content_hash: 0,
        elements: HashMap::new(),
        hidden_names: std::sync::OnceLock::new(),
    };
    let mut read_from = xxhash_rust::xxh3::Xxh3Default::new();
    for name in names {
        let Some((account, remote)) = account_of(name, env) else { continue };
        read_from.update(&(name.len() as u64).to_le_bytes());
        read_from.update(name.as_bytes());
        let path = dir.join(name);
        if remote {
            if state.status == StateStatus::Missing {
                state.status = StateStatus::Remote;
            }
            continue;
        }
        let read = read_state_file(&path);
        match &read {
            Ok(file) => read_from.update(&file.hash.to_le_bytes()),
            Err(error) => read_from.update(error.to_string().as_bytes()),
        }
        match read {
            Ok(file) => {
                state.status = StateStatus::Loaded;
                if let Some((count, why)) = &file.skipped {
                    let elements =
                        if *count == 1 { "1 element was".to_owned() } else { format!("{count} elements were") };
                    let problem = format!("{elements} not readable and left out (the first: {why})");
                    state.problems.push((path.clone(), problem));
                }
                let index = state.files.len();
                state.files.push(path);
                let mut accounts = file.accounts;
                if accounts.is_empty() {
                    accounts.push(account.to_owned());
                }
                for account in accounts {
                    if !state.accounts.contains(&account) {
                        state.accounts.push(account);
                    }
                }
                for mut element in file.elements {
                    element.file = index;
                    // A later file wins, as in Salto.
                    state.elements.insert(element.id.clone(), element);
                }
            }
            Err(error) => {
                if state.status == StateStatus::Missing {
                    state.status = StateStatus::Unreadable;
                }
                state.problems.push((path, error.to_string()));
            }
        }
    }
    state.content_hash = read_from.digest();
    keep_what_salto_merges(&mut state);
    state
}

/// Keeps whole values only for hidden instances; for the others keeps the values at hidden
/// field paths and drops the rest (NaCl is the source of truth for visible values).
fn keep_what_salto_merges(state: &mut EnvState) {
    // Hidden instances keep their whole value; the others only their hidden parts.
    let visible: Vec<ElemId> = state
        .elements
        .values()
        .filter(|e| matches!(e.kind, StateKind::Instance { .. }) && e.value.is_some() && !state.is_hidden(e))
        .map(|e| e.id.clone())
        .collect();
    for id in visible {
        let Some(element) = state.elements.get(&id) else { continue };
        let StateKind::Instance { type_id } = &element.kind else { continue };
        let mut found = Vec::new();
        if let Some(value) = &element.value {
            hidden_values(state, type_id, value, &mut Vec::new(), &mut found, 0);
        }
        if let Some(element) = state.elements.get_mut(&id) {
            element.value = None;
            element.hidden_values = found;
        }
    }
}

/// Collects the values at `_hidden_value` field paths of an object value of type `type_id`,
/// following nested object types (not lists: Salto leaves values inside lists in NaCl).
fn hidden_values(
    state: &EnvState,
    type_id: &ElemId,
    value: &RawValue,
    path: &mut Vec<String>,
    found: &mut Vec<(Vec<String>, Box<RawValue>)>,
    depth: usize,
) {
    const MAX_DEPTH: usize = 32;
    let Some(object_type) = state.elements.get(type_id) else { return };
    if depth > MAX_DEPTH || object_type.fields.is_empty() {
        return;
    }
    let Ok(entries) = serde_json::from_str::<HashMap<&str, &RawValue>>(value.get()) else { return };
    let mut keys: Vec<&&str> = entries.keys().collect();
    keys.sort();
    for key in keys {
        let (Some(field), Some(raw)) = (object_type.field(key), entries.get(*key)) else { continue };
        path.push((*key).to_owned());
        if field.hidden_value || state.is_hidden_value_type(&type_from_name(&field.type_name)) {
            found.push((path.clone(), (*raw).to_owned()));
        } else if raw.get().starts_with('{') {
            hidden_values(state, &type_from_name(&field.type_name), raw, path, found, depth + 1);
        }
        path.pop();
    }
}

/// The ID of a type given by full name (built-in, container or adapter type).
fn type_from_name(name: &str) -> ElemId {
    ElemId::parse(name).unwrap_or_else(|_| ElemId::type_id("", name))
}
