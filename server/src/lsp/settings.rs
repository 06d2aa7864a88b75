//! The server's settings, from `initializationOptions` and the client's `nacl` configuration section.
//!
//! ```json
//! { "environment": "prod", "logLevel": "debug",
//!   "diagnostics": { "warnings": true, "disabled": ["W0501"] },
//!   "codeLens": { "references": true }, "hcl": { "files": ["**/*.conf"] },
//!   "hcldec": { "specs": { "jobs/**/*.hcl": "specs/job.hcldec" } } }
//! ```

use serde::Deserialize;

/// Everything a user can set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// The environment common files are analysed in (default: the first of `salto.config/envs.nacl`).
    pub environment: Option<String>,
    /// A `tracing` filter for the server's log, such as `info` or `nacl_ls=debug` (default: `NACL_LS_LOG`, else `warn`).
    pub log_level: Option<String>,
    /// Which diagnostics to show.
    pub diagnostics: DiagnosticSettings,
    /// Which code lenses to show.
    pub code_lens: CodeLensSettings,
    /// HCL files beyond the ones known by name.
    pub hcl: HclSettings,
    /// Which hcldec specs describe which HCL files.
    pub hcldec: HcldecSettings,
}

/// Which hcldec specs describe which HCL files (a file's own `# hcldec-spec:` directive wins).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HcldecSettings {
    /// Globs of HCL files, relative to the workspace root, and the spec describing them (a path
    /// relative to the root); tried in sorted order of the globs, before `.nacl-ls.toml`'s.
    pub specs: std::collections::BTreeMap<String, String>,
}

impl HcldecSettings {
    /// The settings as the analysis's rules.
    pub fn rules(&self) -> nacl_analysis::hcldec::schema::SpecRules {
        nacl_analysis::hcldec::schema::SpecRules {
            entries: self.specs.iter().map(|(glob, spec)| (glob.clone(), spec.clone())).collect(),
        }
    }
}

/// HCL files beyond `*.hcl`, `*.tf`, `*.tfvars`, `*.nomad` and `*.hcldec`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HclSettings {
    /// Globs of more HCL files (such as `**/*.conf`), for documents opened from now on.
    pub files: Vec<String>,
}

/// Which code lenses to show.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CodeLensSettings {
    /// Reference counts above each element (off by default: counting searches the workspace).
    pub references: bool,
}

/// Which diagnostics to show.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DiagnosticSettings {
    /// Show warnings and information, not only errors.
    pub warnings: bool,
    /// Codes never shown, such as `W0501`.
    pub disabled: Vec<String>,
}

impl Default for DiagnosticSettings {
    fn default() -> Self {
        DiagnosticSettings { warnings: true, disabled: Vec::new() }
    }
}

impl DiagnosticSettings {
    /// Whether a diagnostic with `code` and this severity is shown.
    pub fn shows(&self, code: &str, is_error: bool) -> bool {
        (is_error || self.warnings) && !self.disabled.iter().any(|d| d == code)
    }
}

impl Settings {
    /// Reads settings from a JSON value: either the settings themselves or an object with a `nacl`
    /// member holding them. Returns the defaults and a message when the value has the wrong shape.
    pub fn from_json(value: &serde_json::Value) -> (Settings, Option<String>) {
        let value = value.get("nacl").unwrap_or(value);
        if value.is_null() {
            return (Settings::default(), None);
        }
        match Settings::deserialize(value) {
            Ok(settings) => (settings, None),
            Err(error) => (Settings::default(), Some(format!("ignoring invalid nacl-ls settings: {error}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_nested_partial_and_invalid_settings() {
        let (settings, error) = Settings::from_json(&json!({ "nacl": { "environment": "prod" } }));
        assert_eq!(settings.environment.as_deref(), Some("prod"));
        assert!(settings.diagnostics.warnings && error.is_none());
        let (settings, _) = Settings::from_json(&json!({ "diagnostics": { "disabled": ["W0501"] } }));
        assert!(!settings.diagnostics.shows("W0501", false) && settings.diagnostics.shows("W0502", false));
        let (settings, error) = Settings::from_json(&json!({ "environment": 3 }));
        assert_eq!(settings, Settings::default());
        assert!(error.is_some_and(|e| e.contains("invalid")));
    }
}
