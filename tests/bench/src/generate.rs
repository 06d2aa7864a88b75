//! A deterministic generator of Salto workspaces shaped like the real corpus: an environment
//! layout, types split over two files (an annotations block and fields, restrictions, required
//! fields, object-typed and list fields), one instance per file with nested objects, lists of
//! objects, `_parent` and cross-file references, templates in both string forms, multiline
//! strings, static files, and some environment-specific instances.
//!
//! Every reference points at an element that exists and every value fits its type, so a
//! generated workspace checks without a diagnostic (a test holds it to that).

use std::{
    fmt::Write as _,
    io,
    path::{Path, PathBuf},
};

/// The adapter of generated elements.
const ADAPTER: &str = "crm";
/// The environment of the generated layout.
const ENV: &str = "prod";
/// Regions, the `_restriction` values of the `Region__c` fields.
const REGIONS: [&str; 4] = ["EMEA", "AMER", "APAC", "LATAM"];
/// Words that make up names and texts.
const WORDS: [&str; 16] = [
    "north", "river", "stone", "cloud", "amber", "cedar", "delta", "ember", "frost", "grove", "harbor", "iris", "jade",
    "lumen", "meadow", "orbit",
];

/// What was generated.
#[derive(Debug, Clone, Copy, Default)]
pub struct Generated {
    /// `.nacl` files written.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Instances among them.
    pub instances: usize,
}

/// Writes a workspace of about `target_bytes` of NaCl into `root` (which must not exist or be
/// empty), the same for the same `seed`.
pub fn generate(root: &Path, target_bytes: u64, seed: u64) -> io::Result<Generated> {
    let mut writer = Writer { root: root.to_path_buf(), generated: Generated::default() };
    let mut rng = fastrand::Rng::with_seed(seed);
    writer.write(
        "salto.config/envs.nacl",
        &format!("envs {{\n  envs = [\n    {{\n      name = \"{ENV}\"\n      services = [\n        \"{ADAPTER}\",\n      ]\n    }},\n  ]\n}}\n"),
    )?;
    writer.write(
        "salto.config/workspace.nacl",
        "workspace {\n  uid = \"00000000-0000-4000-8000-000000000001\"\n  name = \"generated\"\n}\n",
    )?;
    writer.write(&format!("{ADAPTER}/Types/Primitives.nacl"), &primitives())?;
    writer.write(&format!("{ADAPTER}/Types/Address.nacl"), &address_type())?;
    // About 4 KB an instance; a type per 100 instances, at least 8.
    let type_count = ((target_bytes / 400_000) as usize).clamp(8, 5_000);
    for t in 0..type_count {
        let (annotations, fields) = object_type(t);
        writer.write(&format!("{ADAPTER}/Objects/{}/{}Annotations.nacl", type_name(t), type_name(t)), &annotations)?;
        writer.write(&format!("{ADAPTER}/Objects/{}/{}Fields.nacl", type_name(t), type_name(t)), &fields)?;
    }
    let mut common: Vec<(usize, usize)> = Vec::new();
    let mut i = 0usize;
    while writer.generated.bytes < target_bytes {
        let t = rng.usize(..type_count);
        let env_specific = rng.u8(..10) == 0 && !common.is_empty();
        let parent = (!common.is_empty()).then(|| common[rng.usize(..common.len())]);
        let with_file = !env_specific && rng.u8(..20) == 0;
        let text = instance(&mut rng, t, i, parent, with_file);
        let folder = if env_specific { format!("envs/{ENV}/{ADAPTER}") } else { ADAPTER.to_owned() };
        writer.write(&format!("{folder}/Records/{}/{}.nacl", type_name(t), instance_name(i)), &text)?;
        if with_file {
            let body = (0..rng.usize(5..40)).map(|_| sentence(&mut rng)).collect::<Vec<_>>().join("\n");
            writer.write_static(
                &format!("static-resources/{ADAPTER}/{}/{}.txt", type_name(t), instance_name(i)),
                &body,
            )?;
        }
        if !env_specific {
            common.push((t, i));
        }
        writer.generated.instances += 1;
        i += 1;
    }
    Ok(writer.generated)
}

/// Writes files under the root and counts them.
struct Writer {
    root: PathBuf,
    generated: Generated,
}

impl Writer {
    fn write(&mut self, relative: &str, text: &str) -> io::Result<()> {
        self.write_static(relative, text)?;
        self.generated.files += 1;
        self.generated.bytes += text.len() as u64;
        Ok(())
    }

    fn write_static(&self, relative: &str, text: &str) -> io::Result<()> {
        let path = self.root.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)
    }
}

fn type_name(t: usize) -> String {
    format!("Object{t}__c")
}

fn instance_name(i: usize) -> String {
    format!("Record_{i}")
}

fn primitives() -> String {
    format!(
        "type {ADAPTER}.Text is string {{\n  annotations {{\n    number length {{\n    }}\n  }}\n}}\n\ntype {ADAPTER}.Currency is number {{\n}}\n\ntype {ADAPTER}.Checkbox is boolean {{\n}}\n"
    )
}

fn address_type() -> String {
    format!(
        "type {ADAPTER}.Address {{\n  string street {{\n  }}\n  string city {{\n    _required = true\n  }}\n  string zip {{\n  }}\n  string country {{\n    _default = \"FR\"\n  }}\n}}\n\ntype {ADAPTER}.Contact {{\n  string name {{\n    _required = true\n  }}\n  string email {{\n  }}\n  boolean primary {{\n  }}\n}}\n"
    )
}

/// The two fragments of an object type: annotations and the first fields, then more fields.
fn object_type(t: usize) -> (String, String) {
    let name = type_name(t);
    let mut annotations = format!(
        "type {ADAPTER}.{name} {{\n  annotations {{\n    serviceid apiName {{\n    }}\n    string label {{\n    }}\n  }}\n  apiName = \"{name}\"\n  label = \"Object {t}\"\n"
    );
    let _ = write!(
        annotations,
        "  {ADAPTER}.Text Name {{\n    label = \"Name\"\n    length = 80\n    _required = true\n  }}\n  {ADAPTER}.Text Code__c {{\n    label = \"Code\"\n    length = 20\n    _restriction = {{\n      regex = \"^C-[0-9]+$\"\n    }}\n  }}\n  {ADAPTER}.Currency Amount__c {{\n    label = \"Amount\"\n    _restriction = {{\n      min = 0\n      max = 1000000\n    }}\n  }}\n  {ADAPTER}.Checkbox Active__c {{\n    label = \"Active\"\n  }}\n}}\n"
    );
    let values = REGIONS.iter().map(|r| format!("        \"{r}\",\n")).collect::<String>();
    let fields = format!(
        "type {ADAPTER}.{name} {{\n  {ADAPTER}.Text Region__c {{\n    label = \"Region\"\n    _restriction = {{\n      values = [\n{values}      ]\n    }}\n  }}\n  \"List<string>\" Tags__c {{\n    label = \"Tags\"\n  }}\n  {ADAPTER}.Address Address__c {{\n    label = \"Address\"\n  }}\n  \"List<{ADAPTER}.Contact>\" Contacts__c {{\n    label = \"Contacts\"\n  }}\n  unknown Parent__c {{\n    label = \"Parent\"\n  }}\n  string Summary__c {{\n    label = \"Summary\"\n  }}\n  string Notes__c {{\n    label = \"Notes\"\n  }}\n  unknown Body__c {{\n    label = \"Body\"\n  }}\n  number Priority__c {{\n    _default = 3\n  }}\n}}\n"
    );
    (annotations, fields)
}

/// One instance: every field set with a fitting value, references to `parent` (an earlier
/// common instance) in a reference, `_parent` and a template.
fn instance(rng: &mut fastrand::Rng, t: usize, i: usize, parent: Option<(usize, usize)>, with_file: bool) -> String {
    let (type_id, name) = (format!("{ADAPTER}.{}", type_name(t)), instance_name(i));
    let mut out = format!("{type_id} {name} {{\n");
    let _ = writeln!(out, "  Name = \"{} {}\"", title(rng), i);
    let _ = writeln!(out, "  Code__c = \"C-{i:06}\"");
    let _ = writeln!(out, "  Amount__c = {}.{}", rng.u32(..100_000), rng.u8(..100));
    let _ = writeln!(out, "  Active__c = {}", rng.bool());
    let _ = writeln!(out, "  Region__c = \"{}\"", REGIONS[rng.usize(..REGIONS.len())]);
    out.push_str("  Tags__c = [\n");
    for _ in 0..rng.usize(1..6) {
        let _ = writeln!(out, "    \"{}\",", WORDS[rng.usize(..WORDS.len())]);
    }
    out.push_str("  ]\n");
    let _ = write!(
        out,
        "  Address__c = {{\n    street = \"{} {} street\"\n    city = \"{}\"\n    zip = \"{:05}\"\n  }}\n",
        rng.u16(1..999),
        title(rng),
        title(rng),
        rng.u32(..100_000)
    );
    out.push_str("  Contacts__c = [\n");
    for c in 0..rng.usize(1..12) {
        let who = title(rng);
        let _ = write!(
            out,
            "    {{\n      name = \"{who} {c}\"\n      email = \"{}{c}@example.com\"\n      primary = {}\n    }},\n",
            who.to_lowercase(),
            c == 0
        );
    }
    out.push_str("  ]\n");
    if let Some((pt, pi)) = parent {
        let parent_id = format!("{ADAPTER}.{}.instance.{}", type_name(pt), instance_name(pi));
        let _ = writeln!(out, "  Parent__c = {parent_id}");
        let _ =
            writeln!(out, "  Summary__c = \"Child of ${{ {parent_id}.Name }} in ${{ {type_id}.field.Region__c }}\"");
        let _ = writeln!(out, "  _parent = [\n    {parent_id},\n  ]");
    }
    out.push_str("  Notes__c = '''\n");
    for _ in 0..rng.usize(2..30) {
        out.push_str(&sentence(rng));
        out.push('\n');
    }
    let _ = writeln!(out, "Filed under ${{ {type_id}.attr.label }}.");
    out.push_str("'''\n");
    if with_file {
        let _ = writeln!(out, "  Body__c = file(\"{ADAPTER}/{}/{name}.txt\")", type_name(t));
    }
    out.push_str("}\n");
    out
}

fn title(rng: &mut fastrand::Rng) -> String {
    let word = WORDS[rng.usize(..WORDS.len())];
    let mut chars = word.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

fn sentence(rng: &mut fastrand::Rng) -> String {
    let words: Vec<&str> = (0..rng.usize(4..14)).map(|_| WORDS[rng.usize(..WORDS.len())]).collect();
    format!("{}.", words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("nacl-ls-bench-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// Every file's path and text, sorted.
    fn contents(root: &Path) -> Vec<(PathBuf, String)> {
        let mut files: Vec<(PathBuf, String)> = nacl_corpus::nacl_files(root)
            .into_iter()
            .map(|p| {
                (p.strip_prefix(root).unwrap_or(&p).to_path_buf(), std::fs::read_to_string(&p).unwrap_or_default())
            })
            .collect();
        files.sort();
        files
    }

    #[test]
    fn a_generated_workspace_checks_clean_and_is_the_same_for_the_same_seed() {
        let (a, b) = (scratch("a"), scratch("b"));
        let generated = generate(&a, 1_000_000, 3).expect("generate");
        assert!(generated.bytes >= 1_000_000 && generated.instances > 300, "{generated:?}");
        generate(&b, 1_000_000, 3).expect("generate");
        assert_eq!(contents(&a), contents(&b));

        let loaded = nacl_analysis::workspace::load(&a, None);
        let reports = loaded.check(None);
        assert_eq!(reports.len(), generated.files);
        let diagnostics: Vec<String> = reports
            .iter()
            .flat_map(|r| r.diagnostics.iter().map(move |d| format!("{}: {} {}", r.path.display(), d.code, d.message)))
            .collect();
        assert!(diagnostics.is_empty(), "{diagnostics:#?}");
        let _ = (std::fs::remove_dir_all(&a), std::fs::remove_dir_all(&b));
    }
}
