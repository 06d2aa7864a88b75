//! Completion on the `test_data/completion` workspace: each case is a buffer with the cursor at
//! `$0`, opened as a new file of the workspace (`UPDATE_EXPECT=1` rewrites the snapshots).

use expect_test::{Expect, expect};
use nacl_analysis::fragments::Text;
use nacl_analysis::workspace::{self, LoadedWorkspace};
use nacl_syntax::TextSize;
use std::path::Path;

fn fixture() -> LoadedWorkspace {
    workspace::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/completion"), None)
}

/// The completions at `$0` in `buffer`, one item per line: label, kind, detail and insert text.
fn complete(loaded: &mut LoadedWorkspace, buffer: &str) -> String {
    let offset = buffer.find("$0").expect("a cursor marker");
    let text = buffer.replacen("$0", "", 1);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/completion/edited.nacl");
    loaded.set_file_text(&path, Text::from(text.as_str()));
    let found = loaded.completions(&path, TextSize::from(offset as u32));
    let mut out = String::new();
    if let Some(first) = found.items.first() {
        out.push_str(&format!(
            "replaces {:?}{}\n",
            &text[first.range],
            if found.incomplete { " (incomplete)" } else { "" }
        ));
    }
    for item in &found.items {
        let detail = item.detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
        let insert = if item.insert == item.label { String::new() } else { format!(" => {:?}", item.insert) };
        out.push_str(&format!("{} {:?}{detail}{insert}\n", item.label, item.kind));
    }
    out
}

fn check(buffer: &str, expected: Expect) {
    let mut loaded = fixture();
    expected.assert_eq(&complete(&mut loaded, buffer));
}

#[test]
fn header_keywords_and_instance_types() {
    check(
        "$0",
        expect![[r#"
        replaces ""
        settings Keyword => "settings ${1:adapter.Name} {\n  $0\n}"
        type Keyword => "type ${1:adapter.Name} {\n  $0\n}"
        vars Keyword => "vars {\n  $0\n}"
        crm.Account Type
        crm.Address Type
        crm.Text Type
    "#]],
    );
    check(
        "crm.Acc$0",
        expect![[r#"
        replaces "crm.Acc"
        settings Keyword => "settings ${1:adapter.Name} {\n  $0\n}"
        type Keyword => "type ${1:adapter.Name} {\n  $0\n}"
        vars Keyword => "vars {\n  $0\n}"
        crm.Account Type
        crm.Address Type
        crm.Text Type
    "#]],
    );
}

#[test]
fn header_after_type_keyword() {
    check(
        "type crm.A$0",
        expect![[r#"
        replaces "crm.A"
        crm.Account Type
        crm.Address Type
        crm.Text Type
    "#]],
    );
    check(
        "type crm.Status $0",
        expect![[r#"
        replaces ""
        is Keyword
    "#]],
    );
    check(
        "type crm.Status is $0",
        expect![[r#"
        replaces ""
        boolean Type
        number Type
        string Type
        unknown Type
    "#]],
    );
}

#[test]
fn instance_fields_skip_those_set_and_required_come_first() {
    check(
        "crm.Account x {\n  Industry = \"Retail\"\n  $0\n}\n",
        expect![[r#"
        replaces ""
        Name Field (crm.Text (required)) => "Name = \"$1\""
        Employees Field (number) => "Employees = ${1:0}"
        IsActive Field (boolean) => "IsActive = ${1|true,false|}"
        billing Field (crm.Address) => "billing = {\n  $0\n}"
        shipping Field (List<crm.Address>) => "shipping = [\n  $0\n]"
        tags Field (Map<string>) => "tags = {\n  $0\n}"
        _alias Annotation (string) => "_alias = "
        _depends_on Annotation (List<dependency>) => "_depends_on = "
        _generated_dependencies Annotation (List<dependency>) => "_generated_dependencies = "
        _hidden Annotation (boolean) => "_hidden = "
        _parent Annotation (List<reference>) => "_parent = "
    "#]],
    );
}

#[test]
fn nested_object_and_list_fields() {
    check(
        "crm.Account x {\n  billing = {\n    $0\n  }\n}\n",
        expect![[r#"
        replaces ""
        city Field (string (required)) => "city = \"$1\""
        street Field (string) => "street = \"$1\""
    "#]],
    );
    check(
        "crm.Account x {\n  shipping = [\n    {\n      ci$0\n    },\n  ]\n}\n",
        expect![[r#"
        replaces "ci"
        city Field (string (required)) => "city = \"$1\""
        street Field (string) => "street = \"$1\""
    "#]],
    );
}

#[test]
fn values_by_type() {
    check(
        "crm.Account x {\n  IsActive = $0\n}\n",
        expect![[r#"
        replaces ""
        false Keyword
        true Keyword
        crm Adapter (adapter)
        var Keyword (variables)
    "#]],
    );
    check(
        "crm.Account x {\n  Industry = $0\n}\n",
        expect![[r#"
        replaces ""
        "Banking" Value
        "Retail" Value
        "" Value => "\"$0\""
        crm Adapter (adapter)
        var Keyword (variables)
    "#]],
    );
    check(
        "crm.Account x {\n  Industry = \"R$0\"\n}\n",
        expect![[r#"
        replaces "R"
        Banking Value
        Retail Value
    "#]],
    );
    check(
        "crm.Account x {\n  shipping = $0\n}\n",
        expect![[r#"
        replaces ""
        [] Value => "[\n  $0\n]"
        crm Adapter (adapter)
        var Keyword (variables)
    "#]],
    );
}

#[test]
fn type_body_and_field_annotations() {
    check(
        "type crm.Account {\n  $0\n}\n",
        expect![[r#"
        replaces ""
        apiName Annotation (string) => "apiName = \"$1\""
        annotations Keyword => "annotations {\n  $0\n}"
        List<> Type => "List<$1>"
        Map<> Type => "Map<$1>"
        boolean Type
        dependency Type
        dependencyOccurrence Type
        hidden_boolean Type
        hidden_string Type
        important_value Type
        json Type
        number Type
        restriction Type
        serviceid Type
        serviceid_number Type
        string Type
        unknown Type
        _additional_properties Annotation (boolean) => "_additional_properties = "
        _alias Annotation (string) => "_alias = "
        _default Annotation (unknown) => "_default = "
        _depends_on Annotation (List<dependency>) => "_depends_on = "
        _generated_dependencies Annotation (List<dependency>) => "_generated_dependencies = "
        _hidden Annotation (boolean) => "_hidden = "
        _hidden_value Annotation (boolean) => "_hidden_value = "
        _important_values Annotation (List<important_value>) => "_important_values = "
        _is_service_id Annotation (boolean) => "_is_service_id = "
        _parent Annotation (List<reference>) => "_parent = "
        _restriction Annotation (restriction) => "_restriction = "
        _self_important_values Annotation (List<important_value>) => "_self_important_values = "
        crm.Account Type
        crm.Address Type
        crm.Text Type
    "#]],
    );
    check(
        "type crm.Account {\n  crm.Text Title {\n    $0\n  }\n}\n",
        expect![[r#"
        replaces ""
        label Annotation (string) => "label = \"$1\""
        length Annotation (number) => "length = ${1:0}"
        _alias Annotation (string) => "_alias = "
        _default Annotation (unknown) => "_default = "
        _depends_on Annotation (List<dependency>) => "_depends_on = "
        _generated_dependencies Annotation (List<dependency>) => "_generated_dependencies = "
        _hidden_value Annotation (boolean) => "_hidden_value = "
        _is_service_id Annotation (boolean) => "_is_service_id = "
        _required Annotation (boolean) => "_required = "
        _restriction Annotation (restriction) => "_restriction = "
    "#]],
    );
    check(
        "type crm.Account {\n  string Size {\n    _restriction = {\n      $0\n    }\n  }\n}\n",
        expect![[r#"
        replaces ""
        enforce_value Key => "enforce_value = ${1|true,false|}"
        max Key => "max = ${1:0}"
        max_length Key => "max_length = ${1:0}"
        max_list_length Key => "max_list_length = ${1:0}"
        min Key => "min = ${1:0}"
        regex Key => "regex = \"$1\""
        values Key => "values = [\n  $0\n]"
    "#]],
    );
}

#[test]
fn references_segment_by_segment() {
    check(
        "crm.Account x {\n  Name = $0\n}\n",
        expect![[r#"
        replaces ""
        "" Value => "\"$0\""
        crm Adapter (adapter)
        var Keyword (variables)
    "#]],
    );
    check(
        "crm.Account x {\n  Name = crm.$0\n}\n",
        expect![[r#"
        replaces ""
        Account Type
        Address Type
        Text Type
    "#]],
    );
    check(
        "crm.Account x {\n  Name = crm.Account.$0\n}\n",
        expect![[r#"
        replaces ""
        annotation Keyword (an annotation type of the type)
        attr Keyword (an annotation value of the type)
        field Keyword (a field of the type)
        instance Keyword (an instance of the type)
    "#]],
    );
    check(
        "crm.Account x {\n  Name = crm.Account.instance.$0\n}\n",
        expect![[r#"
            replaces ""
            Big_Corp@s Instance (Big Corp)
            Globex_Inc@s Instance (Globex Inc)
            acme Instance
        "#]],
    );
    check(
        "crm.Account x {\n  Name = crm.Account.field.I$0\n}\n",
        expect![[r#"
        replaces "I"
        Employees Field (number)
        Industry Field (string)
        IsActive Field (boolean)
        Name Field (crm.Text)
        billing Field (crm.Address)
        shipping Field (List<crm.Address>)
        tags Field (Map<string>)
    "#]],
    );
    check(
        "crm.Account x {\n  Name = crm.Account.instance.acme.billing.$0\n}\n",
        expect![[r#"
        replaces ""
        city Key
        street Key
    "#]],
    );
    check(
        "crm.Account x {\n  Name = crm.Account.instance.acme.shipping.$0\n}\n",
        expect![[r#"
        replaces ""
        0 Key
    "#]],
    );
    check(
        "crm.Account x {\n  Name = crm.Account.field.Name.$0\n}\n",
        expect![[r#"
        replaces ""
        _required Key
        label Key
    "#]],
    );
    check(
        "crm.Account x {\n  Name = var.$0\n}\n",
        expect![[r#"
        replaces ""
        limit Variable
        region Variable
    "#]],
    );
}

#[test]
fn references_in_templates() {
    check(
        "crm.Account x {\n  Name = \"Hello ${ crm.Account.instance.$0\"\n}\n",
        expect![[r#"
            replaces ""
            Big_Corp@s Instance (Big Corp)
            Globex_Inc@s Instance (Globex Inc)
            acme Instance
        "#]],
    );
    check(
        "crm.Account x {\n  Name = \"Hello ${ crm.Account.instance.a$0 }\"\n}\n",
        expect![[r#"
            replaces "a"
            Big_Corp@s Instance (Big Corp)
            Globex_Inc@s Instance (Globex Inc)
            acme Instance
        "#]],
    );
    check(
        "crm.Account x {\n  Name = '''\n    ${var.$0}\n  '''\n}\n",
        expect![[r#"
        replaces ""
        limit Variable
        region Variable
    "#]],
    );
}

#[test]
fn static_file_paths() {
    check(
        "crm.Account x {\n  Name = file(\"$0\")\n}\n",
        expect![[r#"
        replaces ""
        crm/logo.txt File
        crm/templates/welcome.html File
    "#]],
    );
    check(
        "crm.Account x {\n  Name = file(\"crm/t$0\n}\n",
        expect![[r#"
        replaces "crm/t"
        crm/logo.txt File
        crm/templates/welcome.html File
    "#]],
    );
}

#[test]
fn nothing_in_comments_numbers_or_new_names() {
    check("# crm.$0\n", expect![""]);
    check("crm.Account x {\n  Employees = 1$0\n}\n", expect![""]);
    check("crm.Account $0", expect![""]);
    check("vars {\n  $0\n}\n", expect![""]);
}

#[test]
fn type_names_follow_edits_between_completions() {
    let mut loaded = fixture();
    let complete_header = |loaded: &mut LoadedWorkspace| complete(loaded, "crm.$0");
    let before = complete_header(&mut loaded);
    assert!(!before.contains("crm.Lead"), "{before}");
    // A type defined in another file appears on the next completion; removed, it goes.
    let other = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/completion/other.nacl");
    loaded.set_file_text(&other, Text::from("type crm.Lead {\n}\n"));
    let added = complete_header(&mut loaded);
    assert!(added.contains("crm.Lead Type"), "{added}");
    loaded.set_file_text(&other, Text::from("type crm.Contact {\n}\n"));
    let renamed = complete_header(&mut loaded);
    assert!(!renamed.contains("crm.Lead") && renamed.contains("crm.Contact Type"), "{renamed}");
}
