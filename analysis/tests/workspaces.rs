//! Fixture workspaces: each folder under `test_data/workspaces` is checked whole and its
//! diagnostics compared with the `.diagnostics` snapshot beside it (`UPDATE_EXPECT=1` rewrites).

use nacl_analysis::workspace;
use std::{fmt::Write, path::Path};

/// One line a diagnostic, then one line per related place: `path:line:col code message`.
fn dump(root: &Path) -> String {
    let loaded = workspace::load(root, None);
    let mut out = String::new();
    let line_col = |text: &str, offset: usize| {
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let col = before.rfind('\n').map_or(offset, |nl| offset - nl - 1) + 1;
        format!("{line}:{col}")
    };
    let texts: std::collections::HashMap<_, _> = loaded
        .workspace
        .files(&loaded.db)
        .iter()
        .map(|f| (f.path(&loaded.db).clone(), f.text(&loaded.db).get().clone()))
        .collect();
    let relative = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    for report in loaded.check(None) {
        for d in &report.diagnostics {
            let at = line_col(&report.text, d.range.start().into());
            let _ = writeln!(out, "{}:{at} {} {}", relative(&report.path), d.code, d.message);
            for r in &d.related {
                let at = texts.get(&r.path).map_or_else(String::new, |t| line_col(t, r.range.start().into()));
                let _ = writeln!(out, "    related {}:{at} {}", relative(&r.path), r.message);
            }
        }
    }
    out
}

#[test]
fn fixture_workspaces() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/workspaces");
    let mut roots: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures exist")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    roots.sort();
    assert!(!roots.is_empty());
    for root in roots {
        expect_test::expect_file![root.with_extension("diagnostics")].assert_eq(&dump(&root));
    }
}

/// Go to definition from every kind of place an element ID appears, in the demo workspace.
#[test]
fn definitions_in_the_demo_workspace() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/demo");
    let loaded = workspace::load(&root, None);
    let file = root.join("salesforce/Records/ApexClass/GreetingService.nacl");
    let text = std::fs::read_to_string(&file).expect("the demo file");
    // Targets of the definition at the first occurrence of `needle` (plus `skip` bytes).
    let definition = |needle: &str, skip: usize| -> Vec<String> {
        let at = text.find(needle).unwrap_or_else(|| panic!("{needle} in the demo")) + skip;
        let mut found: Vec<String> = loaded
            .definition(&file, nacl_syntax::TextSize::from(at as u32))
            .iter()
            .map(|t| {
                let target = std::fs::read_to_string(&t.path).unwrap_or_default();
                let line = target[..usize::from(t.range.start())].matches('\n').count() + 1;
                format!("{}:{line}", t.path.strip_prefix(&root).unwrap_or(&t.path).display())
            })
            .collect();
        found.sort();
        found
    };
    // A reference inside `${ }` of a multiline string: the field of a split type.
    assert_eq!(definition("Account.field.Region__c", 2), ["salesforce/Objects/Account/AccountCustomFields.nacl:2"]);
    // The type label of an instance header: both fragments of the type.
    assert_eq!(
        definition("salesforce.Account Acme", 3),
        [
            "salesforce/Objects/Account/AccountAnnotations.nacl:1",
            "salesforce/Objects/Account/AccountCustomFields.nacl:1"
        ]
    );
    // An instance name: every fragment of the instance, in common and in the environment.
    assert_eq!(
        definition("Acme {", 1),
        ["envs/prod/salesforce/Records/Account/Acme.nacl:1", "salesforce/Records/ApexClass/GreetingService.nacl:13"]
    );
    // An attribute key of an instance: the field it sets.
    assert_eq!(definition("Active__c = true", 1), ["salesforce/Objects/Account/AccountCustomFields.nacl:14"]);
    // A file() path: the static file.
    assert_eq!(
        definition("GreetingService.cls", 1),
        ["envs/prod/static-resources/salesforce/classes/GreetingService.cls:1"]
    );
    // A quoted generic field type names its inner type; punctuation names nothing.
    assert!(definition("{\n  Region__c", 0).is_empty());
}

/// The hover at the first `needle` (plus `skip` bytes) in the file at `relative` under `root`.
fn hover_at(
    loaded: &workspace::LoadedWorkspace,
    root: &Path,
    relative: &str,
    needle: &str,
    skip: usize,
) -> Option<String> {
    let file = root.join(relative);
    let text = std::fs::read_to_string(&file).expect("the fixture file");
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle} in {relative}")) + skip;
    loaded.hover(&file, nacl_syntax::TextSize::from(at as u32)).map(|h| h.markdown)
}

/// Hover over a core annotation, a type, a field key, an instance and a static file in the demo.
#[test]
fn hovers_in_the_demo_workspace() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/demo");
    let loaded = workspace::load(&root, None);
    let hover = |relative: &str, needle: &str, skip: usize| {
        hover_at(&loaded, &root, relative, needle, skip).unwrap_or_default()
    };
    let apex = "salesforce/Records/ApexClass/GreetingService.nacl";
    let fields = "salesforce/Objects/Account/AccountCustomFields.nacl";
    let all = [
        hover(fields, "_required", 1),
        hover(apex, "salesforce.Account Acme", 3),
        hover(apex, "Region__c = ", 1),
        hover(apex, "Acme {", 1),
        hover(apex, "GreetingService.cls", 1),
    ]
    .join("\n----\n");
    expect_test::expect![[r#"
        **`_required`**: core annotation

        Type `boolean`, on fields.

        Instances must set a value for this field. Default: `false`.
        ----
        **type, 3 fields** `salesforce.Account`

        Defined in `salesforce/Objects/Account/AccountAnnotations.nacl`, `salesforce/Objects/Account/AccountCustomFields.nacl`
        ----
        **field** `Region__c` of `salesforce.Account`

        Type `salesforce.Text`
        - `label` = "Region"
        - `length` = 80
        - `_required` = true
        - `_restriction` = an object with 1 key

        Also set in `envs/prod/salesforce/Records/Account/Acme.nacl`
        ----
        **instance** `salesforce.Account.instance.Acme`

        Defined in `envs/prod/salesforce/Records/Account/Acme.nacl`, `salesforce/Records/ApexClass/GreetingService.nacl`
        ----
        static file `salesforce/classes/GreetingService.cls`"#]]
    .assert_eq(&all);
}

/// "Copy reference": the full element ID at a position, for each kind of place.
#[test]
fn element_ids_at_positions() {
    let text = "type salto.t {\n  annotations {\n    string label {\n    }\n  }\n  string name {\n    label = \"N\"\n  }\n  doc = \"D\"\n}\nsalto.t i {\n  name = \"x\"\n  tags = [\n    \"a\",\n    {\n      deep = 1\n    },\n  ]\n}\nsalto.s {\n  a = 1\n}\nvars {\n  v = 1\n}\n";
    let root = nacl_syntax::nacl::parse(text).syntax();
    let id_at = |needle: &str, skip: usize| {
        let at = text.find(needle).unwrap_or_else(|| panic!("{needle}")) + skip;
        nacl_analysis::navigation::element_id_at(&root, nacl_syntax::TextSize::from(at as u32)).map(|id| id.to_string())
    };
    assert_eq!(id_at("salto.t {", 2).as_deref(), Some("salto.t"));
    assert_eq!(id_at("label {", 1).as_deref(), Some("salto.t.annotation.label"));
    assert_eq!(id_at("name {", 1).as_deref(), Some("salto.t.field.name"));
    assert_eq!(id_at("label = \"N\"", 9).as_deref(), Some("salto.t.field.name.label"));
    assert_eq!(id_at("doc", 1).as_deref(), Some("salto.t.attr.doc"));
    assert_eq!(id_at("salto.t i", 8).as_deref(), Some("salto.t.instance.i"));
    assert_eq!(id_at("name = \"x\"", 8).as_deref(), Some("salto.t.instance.i.name"));
    assert_eq!(id_at("\"a\"", 1).as_deref(), Some("salto.t.instance.i.tags.0"));
    assert_eq!(id_at("deep", 1).as_deref(), Some("salto.t.instance.i.tags.1.deep"));
    assert_eq!(id_at("a = 1", 0).as_deref(), Some("salto.s.instance._config.a"));
    assert_eq!(id_at("v = 1", 0).as_deref(), Some("var.v"));
}

/// Hover on keys inside values (instance values, a type's annotation values, list items) and on
/// block keywords, in a fixture workspace with two environments.
#[test]
fn hovers_on_keys_and_keywords() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/hover");
    let loaded = workspace::load(&root, None);
    let hover = |relative: &str, needle: &str, skip: usize| {
        let found = hover_at(&loaded, &root, relative, needle, skip);
        format!("{needle}:\n{}", found.unwrap_or_else(|| "(none)".to_owned()))
    };
    let all = [
        hover("salto/page.nacl", "enableTopics", 2),
        hover("salto/page.nacl", "mode = \"a\"", 1),
        hover("salto/page.nacl", "mode = \"b\"", 1),
        hover("salto/types.nacl", "reference", 2),
        hover("salto/types.nacl", "max_length", 2),
        hover("envs/dev/salto/other.nacl", "mode", 1),
        hover("envs/dev/salto/other.nacl", "topicsForObjects", 1),
        hover("salto/types.nacl", "type salto.topics", 1),
        hover("salto/types.nacl", "annotations", 1),
    ]
    .join("\n----\n");
    expect_test::expect![[r#"
        enableTopics:
        **key** `topicsForObjects.enableTopics` of `salto.settingsPage.instance.main`

        Type `boolean`

        Default: false

        Also set in `salto/page_more.nacl`
        ----
        mode = "a":
        **key** `topicsForObjects.mode` of `salto.settingsPage.instance.main`

        Type `string`

        Required (`_required = true`)

        Restriction: one of "a", "b"
        ----
        mode = "b":
        **key** `history.0.mode` of `salto.settingsPage.instance.main`

        Type `string`

        Required (`_required = true`)

        Restriction: one of "a", "b"
        ----
        reference:
        **key** `_generated_dependencies.0.reference` of `salto.settingsPage`

        Field `dependency.reference`

        Type `unknown`
        ----
        max_length:
        **key** `_restriction.max_length` of field `code` of `salto.described`

        Field `restriction.max_length`

        Type `number`
        ----
        mode:
        **key** `topicsForObjects.mode` of `salto.settingsPage.instance.other`

        Type `string`

        Required (`_required = true`)

        Restriction: one of "a", "b"

        Also set in `envs/prod/salto/other.nacl` (environment `prod`)
        ----
        topicsForObjects:
        **field** `topicsForObjects` of `salto.settingsPage`

        Type `salto.topics`

        Also set in `envs/prod/salto/other.nacl` (environment `prod`)
        ----
        type salto.topics:
        **`type`** declares an object type (`type adapter.name { ... }`): its fields (`<type> <name> { annotations }`), its annotation values (`key = value`) and the annotation types its instances' fields may carry (`annotations { ... }`); `type x is string` declares a primitive type instead.
        ----
        annotations:
        **`annotations`** declares the annotation types of this type: each `<type> <name> {}` inside lets the type's annotation values, and the annotations of fields of this type, set `name` to a value of that type."#]].assert_eq(&all);
}
