//! The languages nacl-ls analyses, and which one a file is in.
//!
//! A file's language is decided once, from its name, when it enters the database; every feature
//! then dispatches on it with an exhaustive `match`, so adding a language is a compile error in
//! each place that must handle it.

use std::path::Path;

/// A language nacl-ls analyses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    /// NaCl, the language of Salto workspaces (`*.nacl`).
    Nacl,
    /// HCL's native syntax (`*.hcl`, `*.tf`, `*.tfvars`, `*.pkr.hcl`, `*.nomad`, `*.hcldec`, ...).
    Hcl,
    /// ARMLang, a language for Azure Resource Manager deployments (`*.arm`).
    Arm,
}

/// The file-name suffixes of HCL files.
const HCL_SUFFIXES: &[&str] = &[".hcl", ".tf", ".tfvars", ".nomad", ".hcldec"];

impl Language {
    /// Every language.
    pub const ALL: &'static [Language] = &[Language::Nacl, Language::Hcl, Language::Arm];

    /// The language of the file at `path`, from its name; `None` for files nacl-ls does not read.
    pub fn of_path(path: &Path) -> Option<Language> {
        let name = file_name(path)?;
        if name.ends_with(".nacl") {
            Some(Language::Nacl)
        } else if name.len() > 4 && name.ends_with(".arm") {
            Some(Language::Arm)
        } else if HCL_SUFFIXES.iter().any(|suffix| name.len() > suffix.len() && name.ends_with(suffix)) {
            Some(Language::Hcl)
        } else {
            None
        }
    }

    /// The language an editor names with `id` (LSP's `languageId`), for documents without a file name.
    pub fn of_language_id(id: &str) -> Option<Language> {
        match id {
            "nacl" => Some(Language::Nacl),
            "hcl" | "terraform" | "terraform-vars" | "hcldec" => Some(Language::Hcl),
            "armlang" | "arm" => Some(Language::Arm),
            _ => None,
        }
    }

    /// The language's name, as shown to users.
    pub fn name(self) -> &'static str {
        match self {
            Language::Nacl => "NaCl",
            Language::Hcl => "HCL",
            Language::Arm => "ARMLang",
        }
    }
}

/// Which language a file is in: by its name, and files matching extra globs a user set are HCL.
#[derive(Debug, Clone, Default)]
pub struct LanguageRules {
    /// The extra HCL globs as written, and compiled.
    extra_hcl: Option<(Vec<String>, globset::GlobSet)>,
}

impl LanguageRules {
    /// Rules with `globs` (such as `**/*.conf`) naming more HCL files; the error names a bad glob.
    pub fn with_hcl_globs(globs: &[String]) -> Result<LanguageRules, String> {
        if globs.is_empty() {
            return Ok(LanguageRules::default());
        }
        let mut builder = globset::GlobSetBuilder::new();
        for glob in globs {
            builder.add(globset::Glob::new(glob).map_err(|e| format!("`{glob}` is not a glob: {e}"))?);
        }
        let set = builder.build().map_err(|e| e.to_string())?;
        Ok(LanguageRules { extra_hcl: Some((globs.to_vec(), set)) })
    }

    /// The language of the file at `path`: by its name, else HCL when an extra glob matches it.
    pub fn language_of(&self, path: &Path) -> Option<Language> {
        Language::of_path(path)
            .or_else(|| self.extra_hcl.as_ref().filter(|(_, set)| set.is_match(path)).map(|_| Language::Hcl))
    }
}

impl PartialEq for LanguageRules {
    fn eq(&self, other: &Self) -> bool {
        self.extra_hcl.as_ref().map(|(g, _)| g) == other.extra_hcl.as_ref().map(|(g, _)| g)
    }
}

/// The name of the file at `path`, as text: [`Path::file_name`] (when it is UTF-8), without
/// splitting the whole path into components when its end is a plain name (the language of
/// each of a large workspace's paths is asked for a few times as it loads).
fn file_name(path: &Path) -> Option<&str> {
    let bytes = path.as_os_str().as_encoded_bytes();
    let start = bytes.iter().rposition(|&b| std::path::is_separator(char::from(b))).map_or(0, |at| at + 1);
    let name = &bytes[start..];
    // A name that is the whole path, empty (a trailing separator), `.` or `..`, or holds a
    // `:` (a Windows prefix), is left to the standard library.
    if start == 0 || matches!(name, b"" | b"." | b"..") || name.contains(&b':') {
        return path.file_name()?.to_str();
    }
    std::str::from_utf8(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_come_from_file_names() {
        for (name, language) in [
            ("a.nacl", Some(Language::Nacl)),
            ("main.tf", Some(Language::Hcl)),
            ("terraform.tfvars", Some(Language::Hcl)),
            ("build.pkr.hcl", Some(Language::Hcl)),
            ("terragrunt.hcl", Some(Language::Hcl)),
            ("job.nomad", Some(Language::Hcl)),
            ("spec.hcldec", Some(Language::Hcl)),
            ("main.arm", Some(Language::Arm)),
            (".arm", None),
            (".hcl", None),
            ("notes.txt", None),
            ("nacl", None),
        ] {
            assert_eq!(Language::of_path(Path::new("/w").join(name).as_path()), language, "{name}");
        }
    }

    proptest::proptest! {
        #[test]
        fn file_names_are_the_standard_librarys(path in "[a./:\\\\]{0,8}") {
            let path = Path::new(&path);
            proptest::prop_assert_eq!(file_name(path), path.file_name().and_then(|name| name.to_str()));
        }
    }

    #[test]
    fn extra_globs_name_more_hcl_files() {
        let rules = LanguageRules::with_hcl_globs(&["**/*.conf".to_owned()]).expect("a glob");
        assert_eq!(rules.language_of(Path::new("/w/app/server.conf")), Some(Language::Hcl));
        assert_eq!(rules.language_of(Path::new("/w/a.nacl")), Some(Language::Nacl));
        assert_eq!(rules.language_of(Path::new("/w/notes.txt")), None);
        assert!(LanguageRules::with_hcl_globs(&["[".to_owned()]).is_err());
    }
}
