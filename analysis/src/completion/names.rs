//! The names references are completed from: adapters, instances by type, variables.

use crate::{
    db::{Db, Workspace, element_index},
    elem_id::{ElemId, IdType},
};
use std::collections::HashMap;

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
            IdType::Var => names.variables.push(id.type_name.clone()),
            IdType::Instance => {
                if let Some(name) = id.name_parts.first() {
                    names.instances.entry(id.type_of()).or_default().push(name.clone());
                }
                names.adapters.push(id.adapter.clone());
            }
            _ => names.adapters.push(id.adapter.clone()),
        }
    }
    names.adapters.retain(|a| !a.is_empty());
    names.adapters.sort();
    names.adapters.dedup();
    names.variables.sort();
    names.instances.values_mut().for_each(|v| v.sort());
    names
}
