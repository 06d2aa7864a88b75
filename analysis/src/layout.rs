//! Salto's workspace layout: where the root is, which environments exist, and which source
//! (common, one environment, or adapter config) each file belongs to.

use nacl_syntax::nacl::ast::Value;
use std::path::{Path, PathBuf};

/// The folder holding a workspace's configuration.
pub const CONFIG_DIR: &str = "salto.config";
/// The folder holding environment-specific files.
pub const ENVS_DIR: &str = "envs";
/// The folder name `file("...")` paths are relative to.
pub const STATIC_RESOURCES_DIR: &str = "static-resources";

/// The layout of one workspace.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    /// The workspace root (the folder holding `salto.config/`, or the folder given).
    pub root: PathBuf,
    /// The environment names, from `salto.config/envs.nacl` (and the `envs/` folder).
    pub envs: Vec<String>,
    /// The environment common files are analysed in.
    pub current_env: Option<String>,
}

/// Which source a file belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Source {
    /// Shared by every environment.
    Common,
    /// One environment's own files (`envs/<name>/...`). Held inline (environment names are
    /// short): every element of an environment's file carries its source, cloned without an
    /// allocation.
    Env(compact_str::CompactString),
    /// Adapter configuration (`salto.config/adapters/...`): elements like any other.
    AdapterConfig,
    /// Workspace configuration (`salto.config/workspace.nacl`, `envs.nacl`, ...): each file is
    /// read on its own by Salto, so it defines no workspace elements.
    WorkspaceConfig,
}

impl Layout {
    /// The layout of the workspace at `root`; `env` overrides the current environment, which
    /// defaults to the first one `salto.config/envs.nacl` lists.
    pub fn load(root: &Path, env: Option<&str>) -> Layout {
        let mut envs = read_env_names(root);
        // Environment folders that envs.nacl does not list still hold their own files.
        if let Ok(entries) = std::fs::read_dir(root.join(ENVS_DIR)) {
            let mut extra: Vec<String> = entries
                .filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                .filter(|name| !envs.contains(name))
                .collect();
            extra.sort();
            envs.extend(extra);
        }
        let current_env = env.map(str::to_owned).or_else(|| envs.first().cloned());
        Layout { root: root.to_path_buf(), envs, current_env }
    }

    /// The source a file belongs to.
    pub fn source_of(&self, path: &Path) -> Source {
        let Some(relative) = crate::files::strip_base(path, &self.root) else { return Source::Common };
        let mut parts = relative.components().filter_map(|c| c.as_os_str().to_str());
        match (parts.next(), parts.next()) {
            (Some(CONFIG_DIR), Some("adapters")) => Source::AdapterConfig,
            (Some(CONFIG_DIR), _) => Source::WorkspaceConfig,
            (Some(ENVS_DIR), Some(env)) if self.envs.iter().any(|e| e == env) => Source::Env(env.into()),
            _ => Source::Common,
        }
    }

    /// The environment a file is analysed in: its own for environment files, else the current one.
    pub fn env_of(&self, path: &Path) -> Option<String> {
        match self.source_of(path) {
            Source::Env(env) => Some(env.into()),
            Source::Common | Source::AdapterConfig | Source::WorkspaceConfig => self.current_env.clone(),
        }
    }

    /// Whether a file of `source` takes part in environment `env`'s elements.
    pub fn is_active(source: &Source, env: Option<&str>) -> bool {
        match source {
            Source::Common | Source::AdapterConfig => true,
            Source::WorkspaceConfig => false,
            Source::Env(name) => Some(name.as_str()) == env,
        }
    }
}

impl Layout {
    /// The folders `file("...")` paths of a file of `source` are looked up in, most specific first.
    pub fn static_dirs(&self, source: &Source) -> Vec<PathBuf> {
        let common = self.root.join(STATIC_RESOURCES_DIR);
        let env_dir = |env: &str| self.root.join(ENVS_DIR).join(env).join(STATIC_RESOURCES_DIR);
        match source {
            Source::Env(env) => vec![env_dir(env), common],
            Source::Common => {
                let mut dirs = vec![common];
                dirs.extend(self.current_env.as_deref().map(env_dir));
                dirs
            }
            Source::AdapterConfig | Source::WorkspaceConfig => {
                vec![self.root.join(CONFIG_DIR).join("adapters").join(STATIC_RESOURCES_DIR)]
            }
        }
    }

    /// Every folder static files may live in.
    pub fn all_static_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = vec![
            self.root.join(STATIC_RESOURCES_DIR),
            self.root.join(CONFIG_DIR).join("adapters").join(STATIC_RESOURCES_DIR),
        ];
        dirs.extend(self.envs.iter().map(|env| self.root.join(ENVS_DIR).join(env).join(STATIC_RESOURCES_DIR)));
        dirs
    }
}

/// Whether `path` lies in a static-resources folder (files there are resources, whatever their names).
pub fn is_static_resource(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == STATIC_RESOURCES_DIR)
}

/// The workspace root for `start`: the nearest folder at or above it holding `salto.config/`,
/// or `start` itself (a folder; a file's folder) when there is none.
pub fn find_root(start: &Path) -> PathBuf {
    // A bare file name's parent is the empty path: the current folder.
    let start = if start.is_file() {
        start.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
    } else {
        start
    };
    let absolute = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
    absolute
        .ancestors()
        .find(|dir| dir.join(CONFIG_DIR).is_dir())
        .map_or_else(|| start.to_path_buf(), Path::to_path_buf)
}

/// The environment names listed in `salto.config/envs.nacl`, in order.
fn read_env_names(root: &Path) -> Vec<String> {
    let path = root.join(CONFIG_DIR).join("envs.nacl");
    let Ok(bytes) = crate::files::read_regular(&path, crate::files::MAX_CONFIG_SIZE) else { return Vec::new() };
    let Ok(text) = String::from_utf8(bytes) else { return Vec::new() };
    let parse = nacl_syntax::nacl::parse(&text);
    let mut names = Vec::new();
    for block in parse.tree().blocks() {
        let Some(body) = block.body() else { continue };
        for attribute in body.attributes() {
            if attribute.key().is_none_or(|k| k.text() != "envs") {
                continue;
            }
            let Some(Value::List(list)) = attribute.value() else { continue };
            for item in list.items() {
                let Value::Object(object) = item else { continue };
                for entry in object.attributes() {
                    if let (Some(key), Some(Value::String(name))) = (entry.key(), entry.value())
                        && key.text() == "name"
                    {
                        names.push(name.value());
                    }
                }
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_belong_to_their_source() {
        let layout = Layout { root: PathBuf::from("/ws"), envs: vec!["prod".into()], current_env: Some("prod".into()) };
        assert_eq!(layout.source_of(Path::new("/ws/salesforce/a.nacl")), Source::Common);
        assert_eq!(layout.source_of(Path::new("/ws/envs/prod/salesforce/a.nacl")), Source::Env("prod".into()));
        assert_eq!(layout.source_of(Path::new("/ws/envs/other/a.nacl")), Source::Common);
        assert_eq!(layout.source_of(Path::new("/ws/salto.config/adapters/x.nacl")), Source::AdapterConfig);
        assert_eq!(layout.source_of(Path::new("/ws/salto.config/envs.nacl")), Source::WorkspaceConfig);
    }

    #[test]
    fn the_demo_workspace_has_its_environment() {
        let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/demo");
        let root = find_root(&demo.join("salesforce"));
        assert!(root.ends_with("tests/demo"), "{}", root.display());
        let layout = Layout::load(&root, None);
        assert_eq!(layout.envs, vec!["prod"]);
        assert_eq!(layout.current_env.as_deref(), Some("prod"));
    }
}
