//! The names references are completed from: adapters, instances by type, variables; and the
//! type names of each environment.

use crate::{
    db::{Db, SourceFile, Workspace, defined_in, element_index, env_state, only_file},
    elem_id::{ElemId, IdType},
    hashing::NameMap,
};
use std::{collections::HashMap, sync::Arc};

/// The names of the workspace's elements, grouped for completing references segment by segment.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct ReferenceNames {
    /// Every adapter with an element in NaCl, sorted.
    pub adapters: Vec<String>,
    /// The instance names of each type, sorted.
    pub instances: HashMap<ElemId, Vec<String>>,
    /// Every variable name, sorted.
    pub variables: Vec<String>,
}

/// The names of all elements in any environment (callers check the current one). Recomputed
/// only when the set of element IDs changes, not when a value is edited.
#[salsa::tracked(returns(ref))]
pub(crate) fn reference_names(db: &dyn Db, workspace: Workspace) -> ReferenceNames {
    let mut names = ReferenceNames::default();
    for id in element_index(db, workspace).files.keys() {
        match id.id_type {
            IdType::Var => names.variables.push(id.type_name.to_string()),
            IdType::Instance => {
                if let Some(name) = id.name_parts.first() {
                    names.instances.entry(id.type_of()).or_default().push(name.to_string());
                }
                names.adapters.push(id.adapter.to_string());
            }
            _ => names.adapters.push(id.adapter.to_string()),
        }
    }
    names.adapters.retain(|a| !a.is_empty());
    names.adapters.sort();
    names.adapters.dedup();
    names.variables.sort();
    names.instances.values_mut().for_each(|v| v.sort());
    names
}

/// A type defined in NaCl in an environment, as completion offers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TypeChoice {
    /// Its ID.
    pub id: Arc<ElemId>,
    /// Its full name.
    pub name: String,
    /// The file defining it, when only one file does: there, the block being edited may be its
    /// only definition.
    pub only_file: Option<SourceFile>,
}

/// The type names completion offers in one environment, by adapter.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct TypeChoices {
    /// The types defined in NaCl.
    pub nacl: NameMap<String, Vec<TypeChoice>>,
    /// The full names of the types only the environment's state has.
    pub hidden: NameMap<String, Vec<String>>,
}

/// The type names of an environment, kept between keystrokes: recomputed only when the element
/// index or the state changes, so that completing a type name does not look up and format
/// every type of the workspace again.
#[salsa::tracked(returns(ref))]
pub(crate) fn type_choices(db: &dyn Db, workspace: Workspace, env: Option<String>) -> TypeChoices {
    let env = env.as_deref();
    let index = element_index(db, workspace);
    let mut choices = TypeChoices::default();
    for (adapter, types) in &index.types_by_adapter {
        let offered = types.iter().filter_map(|id| {
            let files = index.files.get(&**id)?;
            defined_in(files, env).then(|| TypeChoice {
                id: id.clone(),
                name: id.full_name(),
                only_file: only_file(files),
            })
        });
        choices.nacl.insert(adapter.clone(), offered.collect());
    }
    if let Some(state) = env_state(db, workspace, env) {
        for (adapter, types) in &state.hidden_names().types {
            choices.hidden.insert(adapter.clone(), types.iter().map(ElemId::full_name).collect());
        }
    }
    choices
}
