//! Code actions, inlay hints and document links on the `test_data/completion` workspace, each
//! case a buffer opened as a new file (`UPDATE_EXPECT=1` rewrites the snapshots).

use expect_test::{Expect, expect};
use nacl_analysis::fragments::Text;
use nacl_analysis::workspace::{self, LoadedWorkspace};
use nacl_syntax::{TextRange, TextSize};
use std::path::{Path, PathBuf};

fn open(buffer: &str) -> (LoadedWorkspace, PathBuf) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/completion");
    let mut loaded = workspace::load(&root, None);
    let path = root.join("edited.nacl");
    loaded.set_file_text(&path, Text::from(buffer));
    (loaded, path)
}

/// Every code action for the whole buffer: its title, then the buffer as it reads after it.
fn check_assists(buffer: &str, expected: Expect) {
    let (loaded, path) = open(buffer);
    let mut out = String::new();
    for assist in loaded.assists(&path, TextRange::up_to(TextSize::of(buffer))) {
        let mut text = buffer.to_owned();
        let mut edits = assist.edits.clone();
        edits.sort_by_key(|(range, _)| std::cmp::Reverse(range.start()));
        for (range, new_text) in edits {
            text.replace_range(std::ops::Range::<usize>::from(range), &new_text);
        }
        let fixes = assist.fixes.as_ref().map(|d| format!(" [{}]", d.code)).unwrap_or_default();
        let preferred = if assist.preferred { " (preferred)" } else { "" };
        out.push_str(&format!("# {}{fixes}{preferred}\n{text}", assist.title));
    }
    expected.assert_eq(&out);
}

#[test]
fn did_you_mean_for_unresolved_references() {
    check_assists(
        "crm.Account x {\n  Name = \"x\"\n  billing = crm.Account.instance.acmee\n  tags = {\n    a = crm.Acount\n    b = crn.Account\n    c = \"${ var.regoin }\"\n  }\n}\n",
        expect![[r##"
            # Change to `crm.Account.instance.acme` [W0501] (preferred)
            crm.Account x {
              Name = "x"
              billing = crm.Account.instance.acme
              tags = {
                a = crm.Acount
                b = crn.Account
                c = "${ var.regoin }"
              }
            }
            # Change to `crm.Account` [W0501] (preferred)
            crm.Account x {
              Name = "x"
              billing = crm.Account.instance.acmee
              tags = {
                a = crm.Account
                b = crn.Account
                c = "${ var.regoin }"
              }
            }
            # Change to `var.region` [W0501] (preferred)
            crm.Account x {
              Name = "x"
              billing = crm.Account.instance.acmee
              tags = {
                a = crm.Acount
                b = crn.Account
                c = "${ var.region }"
              }
            }
        "##]],
    );
}

#[test]
fn did_you_mean_for_fields_but_not_for_paths_inside_existing_instances() {
    check_assists(
        "crm.Account x {\n  Name = \"x\"\n  a = crm.Account.field.Nmae\n  b = crm.Account.instance.acme.Nmae\n}\n",
        expect![[r##"
            # Change to `crm.Account.field.Name` [W0501] (preferred)
            crm.Account x {
              Name = "x"
              a = crm.Account.field.Name
              b = crm.Account.instance.acme.Nmae
            }
        "##]],
    );
}

#[test]
fn missing_required_fields_are_inserted_with_placeholders() {
    check_assists(
        "crm.Account x {\n  Industry = \"Retail\"\n}\n",
        expect![[r##"
        # Add required field `Name` [W0602] (preferred)
        crm.Account x {
          Industry = "Retail"
          Name = ""
        }
    "##]],
    );
    check_assists(
        "crm.Address x {}\n",
        expect![[r##"
        # Add required field `city` [W0602] (preferred)
        crm.Address x {
          city = ""
        }
        # Format file
        crm.Address x {
        }
    "##]],
    );
}

#[test]
fn duplicate_attributes_are_removed_and_unformatted_files_formatted() {
    check_assists(
        "crm.Account x {\n  Name = \"a\"\n  Name   =   \"b\"\n}\n",
        expect![[r##"
        # Remove the second `Name` [E0315] (preferred)
        crm.Account x {
          Name = "a"
        }
    "##]],
    );
}

#[test]
fn inlay_hints_show_aliases_decoded_names_and_variable_values() {
    let buffer = "crm.Account My_Shop@s {\n  Name = \"x\"\n  tags = {\n    a = crm.Account.instance.Big_Corp@s\n    b = crm.Account.instance.Globex_Inc@s\n    c = \"${ var.region }\"\n    d = var.limit\n    e = crm.Account.instance.acme\n  }\n}\n";
    let (loaded, path) = open(buffer);
    let hints: String = loaded
        .inlay_hints(&path, TextRange::up_to(TextSize::of(buffer)))
        .iter()
        .map(|h| {
            format!(
                "{:?} after {:?}: {}\n",
                h.kind,
                &buffer[..usize::from(h.offset)].rsplit([' ', '{']).next().unwrap_or(""),
                h.label
            )
        })
        .collect();
    expect![[r#"
        Name after "My_Shop@s": My Shop
        Name after "crm.Account.instance.Big_Corp@s": Big Corp
        Name after "crm.Account.instance.Globex_Inc@s": Globex
        Value after "var.region": = "eu"
        Value after "var.limit": = 10
    "#]]
    .assert_eq(&hints);
}

#[test]
fn document_links_point_at_existing_static_files() {
    let buffer =
        "crm.Account x {\n  Name = file(\"crm/logo.txt\")\n  tags = {\n    a = file(\"crm/missing.txt\")\n  }\n}\n";
    let (loaded, path) = open(buffer);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/completion");
    let links: String = loaded
        .document_links(&path)
        .iter()
        .map(|l| format!("{:?} -> {}\n", &buffer[l.range], l.target.strip_prefix(&root).unwrap_or(&l.target).display()))
        .collect();
    expect![[r#"
        "crm/logo.txt" -> static-resources/crm/logo.txt
    "#]]
    .assert_eq(&links);
}
