//! hcldec specs as schemas in a workspace: association, diagnostics, completion, hover, definition
//! and the decoded value, on a multi-file fixture written to a scratch folder; and editing a spec
//! re-checking the files it describes.

use expect_test::{Expect, expect};
use nacl_analysis::fragments::Text;
use nacl_analysis::{
    ide,
    workspace::{self, LoadedWorkspace},
};
use nacl_syntax::TextSize;
use std::{
    fmt::Write,
    path::{Path, PathBuf},
};

const SPEC: &str = r#"variables {
  region = "eu"
}

function "double" {
  params = [n]
  result = n * 2
}

object {
  # The service's name, as shown in dashboards.
  attr "name" {
    type     = string
    required = true
  }
  attr "replicas" {
    type = number
  }
  block_map "listener" {
    labels = ["protocol"]
    object {
      # The port to listen on.
      attr "port" {
        type = number
      }
    }
  }
  block "limits" {
    object {
      attr "memory" {
        type = number
      }
    }
  }
}
"#;

/// A workspace of `files` (name, text) in a fresh folder.
fn workspace_of(name: &str, files: &[(&str, &str)]) -> (PathBuf, LoadedWorkspace) {
    let root = std::env::temp_dir().join(format!("nacl-hcldec-ide-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("folder");
        std::fs::write(path, text).expect("file");
    }
    let loaded = workspace::load(&root, None);
    (root, loaded)
}

fn diagnostics(loaded: &LoadedWorkspace, path: &Path) -> String {
    let file = loaded.file(path).expect("the file is in the workspace");
    let text = file.text(&loaded.db).get().clone();
    let mut out = String::new();
    for d in loaded.file_diagnostics(file) {
        let _ = writeln!(out, "{} {:?} {}", d.code, &text.as_str()[d.range], d.message);
    }
    out
}

fn check_diagnostics(loaded: &LoadedWorkspace, path: &Path, expected: Expect) {
    expected.assert_eq(&diagnostics(loaded, path));
}

#[test]
fn a_directive_makes_the_spec_check_the_file() {
    let config = "# hcldec-spec: spec/service.hcldec\nreplicas = \"three\"\nlistener \"http\" {\n  port = 80\n}\nlistener \"http\" {\n  port = 81\n}\nlimit {\n}\n";
    let (root, loaded) = workspace_of("diagnostics", &[("spec/service.hcldec", SPEC), ("service.hcl", config)]);
    check_diagnostics(
        &loaded,
        &root.join("service.hcl"),
        expect![[r#"
            E0703 "" The argument "name" is required, but no definition was found.
            E0703 "\"three\"" Inappropriate value for attribute "replicas": "three" is not a number.
            E0703 "listener \"http\"" A block for listener "http" was already defined. The listener labels must be unique.
            E0703 "limit" Blocks of type "limit" are not expected here. Did you mean "limits"?
        "#]],
    );
    check_diagnostics(&loaded, &root.join("spec/service.hcldec"), expect![""]);
}

#[test]
fn globs_of_the_project_file_associate_specs_and_broken_associations_warn() {
    let project =
        "[hcldec.specs]\n\"services/*.hcl\" = \"spec/service.hcldec\"\n\"broken/*.hcl\" = \"spec/missing.hcldec\"\n";
    let (root, loaded) = workspace_of(
        "globs",
        &[
            ("spec/service.hcldec", SPEC),
            (".nacl-ls.toml", project),
            ("services/web.hcl", "name = \"web\"\nport = 1\n"),
            ("broken/x.hcl", "a = 1\n"),
            ("outside.hcl", "# hcldec-spec: ../../../etc/x.hcldec\na = 1\n"),
            ("free.hcl", "anything = 1\n"),
        ],
    );
    check_diagnostics(
        &loaded,
        &root.join("services/web.hcl"),
        expect![[r#"
            E0703 "port" An argument named "port" is not expected here.
        "#]],
    );
    let missing = diagnostics(&loaded, &root.join("broken/x.hcl"));
    assert!(missing.starts_with("W0704") && missing.contains("there is no spec file"), "{missing}");
    let outside = diagnostics(&loaded, &root.join("outside.hcl"));
    assert!(outside.contains("outside the workspace"), "{outside}");
    check_diagnostics(&loaded, &root.join("free.hcl"), expect![""]);
}

#[test]
fn spec_files_report_their_mistakes() {
    let spec = "object {\n  attr {\n    type = strng\n  }\n  blok \"x\" {\n  }\n  default \"d\" {\n    literal {\n      value = 1\n    }\n  }\n}\n";
    let (root, loaded) =
        workspace_of("spec", &[("bad.hcldec", spec), ("uses.hcl", "# hcldec-spec: bad.hcldec\na = 1\n")]);
    check_diagnostics(
        &loaded,
        &root.join("bad.hcldec"),
        expect![[r#"
            E0701 "{" A spec inside an object needs a label naming the property it produces: attr "name" { ... }.
            E0701 "strng" `strng` is not a type: use any, string, number, bool, or list(...), set(...), map(...), object({...}), tuple([...])
            E0701 "blok" Blocks of type "blok" are not expected here: a spec block is one of object, array, attr, block, block_list, block_set, block_map, block_attrs, literal, default, transform. Did you mean "block"?
            W0702 "literal" A default block with only one spec is equivalent to using that spec alone.
        "#]],
    );
    let uses = diagnostics(&loaded, &root.join("uses.hcl"));
    assert!(uses.starts_with("W0704 \"# hcldec-spec: bad.hcldec\"") && uses.contains("has errors"), "{uses}");
}

/// The completions at `$0` in `buffer`, opened as `path`.
fn complete(loaded: &mut LoadedWorkspace, path: &Path, buffer: &str) -> String {
    let offset = buffer.find("$0").expect("a cursor marker");
    let text = buffer.replacen("$0", "", 1);
    loaded.set_file_text(path, Text::from(text.as_str()));
    let found = ide::completions(loaded, path, TextSize::from(offset as u32));
    let mut out = String::new();
    for item in &found.items {
        let detail = item.detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
        let _ = writeln!(out, "{} {:?}{detail} => {:?}", item.label, item.kind, item.insert);
    }
    out
}

#[test]
fn completion_offers_what_the_spec_allows_and_is_not_written() {
    let (root, mut loaded) = workspace_of("complete", &[("spec/service.hcldec", SPEC), ("service.hcl", "")]);
    let path = root.join("service.hcl");
    expect![[r#"
        name Field (attribute `name`: `string`, required) => "name = $0"
        listener Keyword (blocks `listener`, by label: `protocol`) => "listener \"${1:protocol}\" {\n  $0\n}"
        limits Keyword (block `limits`: at most one) => "limits {\n  $0\n}"
    "#]]
    .assert_eq(&complete(&mut loaded, &path, "# hcldec-spec: spec/service.hcldec\nreplicas = 2\n$0\n"));
    expect![[r#"
        port Field (attribute `port`: `number`) => "port = $0"
    "#]]
    .assert_eq(&complete(&mut loaded, &path, "# hcldec-spec: spec/service.hcldec\nlistener \"tcp\" {\n  p$0\n}\n"));
    // Not where an item's name goes.
    expect![""].assert_eq(&complete(&mut loaded, &path, "# hcldec-spec: spec/service.hcldec\nname = $0\n"));
    // In a spec file: spec block types, and the arguments of the block around.
    let spec_path = root.join("spec/service.hcldec");
    let in_attr = complete(&mut loaded, &spec_path, "object {\n  attr \"x\" {\n    $0\n  }\n}\n");
    assert!(in_attr.starts_with("name Field (argument of attr)"), "{in_attr}");
    assert!(!in_attr.contains("object Keyword"), "attr takes no nested specs: {in_attr}");
    let in_object = complete(&mut loaded, &spec_path, "object {\n  $0\n}\n");
    assert!(in_object.contains(r#"attr Keyword (spec block) => "attr \"${1:name}\" {\n  $0\n}""#), "{in_object}");
}

#[test]
fn hover_and_definition_lead_to_the_spec() {
    let config = "# hcldec-spec: spec/service.hcldec\nname = \"web\"\nreplicas = double(2)\nlistener \"http\" {\n  port = 80\n}\n";
    let (root, loaded) = workspace_of("navigate", &[("spec/service.hcldec", SPEC), ("service.hcl", config)]);
    let path = root.join("service.hcl");
    let at = |needle: &str| TextSize::from(config.find(needle).expect("needle") as u32);
    let hover = ide::hover(&loaded, &path, at("name =")).expect("a hover").markdown;
    expect![[r#"
        attribute `name`: `string`, required

        The service's name, as shown in dashboards.

        *spec: service.hcldec*"#]]
    .assert_eq(&hover);
    let port = ide::hover(&loaded, &path, at("port")).expect("a hover").markdown;
    assert!(port.starts_with("attribute `port`: `number`\n\nThe port to listen on."), "{port}");
    let spec_path = root.join("spec/service.hcldec");
    let target = |needle: &str| {
        let targets = ide::definition(&loaded, &path, at(needle));
        let [target] = targets.as_slice() else { panic!("one target for {needle}: {targets:?}") };
        assert_eq!(target.path, spec_path);
        SPEC[target.range].lines().next().unwrap_or("").to_owned()
    };
    assert_eq!(target("port"), "attr \"port\"");
    assert_eq!(target("listener"), "block_map \"listener\"");
    assert_eq!(target("double"), "function \"double\"");
    let call = ide::hover(&loaded, &path, at("double")).expect("a hover").markdown;
    assert_eq!(call, "function `double(n)`, defined by the spec");
    let spec_hover = ide::hover(&loaded, &spec_path, TextSize::from(SPEC.find("block_map").expect("needle") as u32));
    assert!(spec_hover.expect("a hover").markdown.starts_with("`block_map`: maps keyed by the blocks' labels"));
}

#[test]
fn the_decoded_value_and_editing_the_spec_rechecks() {
    let config = "# hcldec-spec: spec/service.hcldec\nname = \"web\"\nreplicas = double(2)\n";
    let (root, mut loaded) = workspace_of("edit", &[("spec/service.hcldec", SPEC), ("service.hcl", config)]);
    let path = root.join("service.hcl");
    expect![[r#"
        {
          "limits": null,
          "listener": {},
          "name": "web",
          "replicas": 4
        }"#]]
    .assert_eq(&ide::decoded_json(&loaded, &path).expect("it decodes"));
    check_diagnostics(&loaded, &path, expect![""]);
    // The spec no longer knows `replicas`: the file is re-checked without being touched.
    loaded.set_file_text(&root.join("spec/service.hcldec"), Text::from(SPEC.replace("\"replicas\"", "\"count\"")));
    check_diagnostics(
        &loaded,
        &path,
        expect![[r#"
            E0703 "replicas" An argument named "replicas" is not expected here.
        "#]],
    );
    let error = ide::decoded_json(&loaded, &path).expect_err("it no longer decodes");
    assert!(error.contains("An argument named \"replicas\" is not expected here."), "{error}");
}
