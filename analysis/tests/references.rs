//! Find references and rename on the `test_data/rename` workspace: every kind of place a name
//! appears, and the refusals (`UPDATE_EXPECT=1` rewrites the snapshots).

use nacl_analysis::workspace::{self, LoadedWorkspace};
use nacl_syntax::TextSize;
use std::path::{Path, PathBuf};

fn fixture() -> (PathBuf, LoadedWorkspace) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/rename");
    let loaded = workspace::load(&root, None);
    (root, loaded)
}

/// The offset of `needle` (plus `skip` bytes) in `file`.
fn at(root: &Path, file: &str, needle: &str, skip: usize) -> (PathBuf, TextSize) {
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).expect("the fixture");
    let offset = text.find(needle).unwrap_or_else(|| panic!("{needle} in {file}")) + skip;
    (path, TextSize::from(offset as u32))
}

fn line_col(text: &str, offset: usize) -> String {
    let before = &text[..offset];
    format!("{}:{}", before.matches('\n').count() + 1, offset - before.rfind('\n').map_or(0, |n| n + 1) + 1)
}

/// Every reference as `file:line:col text` (`decl` marks declarations).
fn references(root: &Path, loaded: &LoadedWorkspace, file: &str, needle: &str, skip: usize) -> String {
    let (path, offset) = at(root, file, needle, skip);
    loaded
        .references(&path, offset, true)
        .iter()
        .map(|o| {
            let text = std::fs::read_to_string(&o.path).unwrap_or_default();
            let name = o.path.strip_prefix(root).unwrap_or(&o.path).display();
            let decl = if o.declaration { " decl" } else { "" };
            format!("{name}:{} {}{decl}\n", line_col(&text, o.range.start().into()), &text[o.range])
        })
        .collect()
}

/// The files a rename changes, as they read after it.
fn rename(root: &Path, loaded: &LoadedWorkspace, file: &str, needle: &str, skip: usize, new_name: &str) -> String {
    let (path, offset) = at(root, file, needle, skip);
    let edits = match loaded.rename(&path, offset, new_name) {
        Ok(edits) => edits,
        Err(refused) => return format!("refused: {refused}\n"),
    };
    let mut out = String::new();
    for (path, mut changes) in edits {
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        changes.sort_by_key(|(range, _)| std::cmp::Reverse(range.start()));
        for (range, new_text) in changes {
            text.replace_range(std::ops::Range::<usize>::from(range), &new_text);
        }
        out.push_str(&format!("--- {}\n{text}", path.strip_prefix(root).unwrap_or(&path).display()));
    }
    out
}

#[test]
fn references_of_an_instance_a_type_a_field_and_a_variable() {
    let (root, loaded) = fixture();
    expect_test::expect![[r#"
        more.nacl:11:34 alice
        people.nacl:1:14 alice decl
        people.nacl:9:51 alice
        vars.nacl:7:36 alice
    "#]]
    .assert_eq(&references(&root, &loaded, "people.nacl", "alice", 0));
    expect_test::expect![[r#"
        more.nacl:1:12 person decl
        more.nacl:6:17 person
        more.nacl:9:7 person
        more.nacl:11:18 person
        people.nacl:1:7 person
        people.nacl:4:11 person
        people.nacl:8:7 person
        people.nacl:9:35 person
        team.nacl:2:9 person
        team.nacl:5:20 person
        team.nacl:6:16 person
        team.nacl:18:16 person
        types.nacl:1:12 person decl
        types.nacl:5:15 person
        vars.nacl:5:7 person
        vars.nacl:7:20 person
    "#]]
    .assert_eq(&references(&root, &loaded, "people.nacl", "salto.person", 7));
    expect_test::expect![[r#"
        more.nacl:6:30 name
        more.nacl:10:3 name
        people.nacl:2:3 name
        people.nacl:9:3 name
        people.nacl:9:57 name
        types.nacl:2:10 name decl
        vars.nacl:6:3 name
    "#]]
    .assert_eq(&references(&root, &loaded, "types.nacl", "name", 0));
    expect_test::expect![[r#"
        vars.nacl:2:3 greeting decl
        vars.nacl:6:14 greeting
    "#]]
    .assert_eq(&references(&root, &loaded, "vars.nacl", "var.greeting", 5));
}

#[test]
fn references_of_an_annotation_type_and_of_a_value_inside_an_instance() {
    let (root, loaded) = fixture();
    // From the declaration, a key in the type's body, a key in a field of the type, a reference.
    let expected = expect_test::expect![[r#"
        more.nacl:3:12 owner decl
        more.nacl:6:3 owner
        team.nacl:3:5 owner
        team.nacl:5:32 owner
        team.nacl:6:34 owner
    "#]];
    expected.assert_eq(&references(&root, &loaded, "more.nacl", "owner {", 0));
    expected.assert_eq(&references(&root, &loaded, "more.nacl", "owner =", 0));
    expected.assert_eq(&references(&root, &loaded, "team.nacl", "owner =", 0));
    expected.assert_eq(&references(&root, &loaded, "team.nacl", "attr.owner", 5));
    // A value nested in an instance: the key that sets it and the references into it (not those
    // into another instance).
    let expected = expect_test::expect![[r#"
        team.nacl:11:5 city decl
        team.nacl:19:43 city
    "#]];
    expected.assert_eq(&references(&root, &loaded, "team.nacl", "city =", 0));
    expected.assert_eq(&references(&root, &loaded, "team.nacl", "dave.address.city", 13));
    expect_test::expect![[r#"
        team.nacl:14:9 number decl
        team.nacl:20:65 number
    "#]]
    .assert_eq(&references(&root, &loaded, "team.nacl", "streets.0.number", 10));
    // The segment of a top-level key names the field of the instance's type.
    expect_test::expect![[r#"
        team.nacl:10:3 address
        team.nacl:19:35 address
        team.nacl:20:47 address
    "#]]
    .assert_eq(&references(&root, &loaded, "team.nacl", "dave.address.city", 5));
}

#[test]
fn an_annotation_type_is_renamed_everywhere_and_values_are_not() {
    let (root, loaded) = fixture();
    expect_test::expect![[r#"
        --- more.nacl
        type salto.person {
          annotations {
            string team_owner {
            }
          }
          team_owner = salto.person.field.name
        }

        salto.person erin {
          name = "Erin"
          mentor = salto.person.instance.alice
        }
        --- team.nacl
        type salto.team {
          salto.person lead {
            team_owner = "Ops"
          }
          note = "${ salto.person.attr.team_owner } leads"
          kind = salto.person.annotation.team_owner
        }

        salto.team dave {
          address = {
            city = "Paris"
            streets = [
              {
                number = 3
              },
            ]
          }
          home = salto.person.instance.nobody.address.city
          here = salto.team.instance.dave.address.city
          first_number = "${ salto.team.instance.dave.address.streets.0.number }"
        }
    "#]]
    .assert_eq(&rename(&root, &loaded, "team.nacl", "owner =", 0, "team_owner"));
    expect_test::expect![[r#"
        refused: a key inside an instance's value is data, named by its type: rename the field of the type instead
    "#]]
    .assert_eq(&rename(&root, &loaded, "team.nacl", "city =", 0, "town"));
}

#[test]
fn renames_update_every_place() {
    let (root, loaded) = fixture();
    expect_test::expect![[r#"
        --- more.nacl
        type salto.person {
          annotations {
            string owner {
            }
          }
          owner = salto.person.field.name
        }

        salto.person erin {
          name = "Erin"
          mentor = salto.person.instance.alicia
        }
        --- people.nacl
        salto.person alicia {
          name = "Alice"
          friends = [
            salto.person.instance.bob,
          ]
        }

        salto.person bob {
          name = "Bob, friend of ${ salto.person.instance.alicia.name }"
        }
        --- vars.nacl
        vars {
          greeting = "hi"
        }

        salto.person carol {
          name = var.greeting
          friends = [salto.person.instance.alicia]
        }
    "#]]
    .assert_eq(&rename(&root, &loaded, "vars.nacl", "alice", 2, "alicia"));
    expect_test::expect![[r#"
        --- more.nacl
        type salto.person {
          annotations {
            string owner {
            }
          }
          owner = salto.person.field.full_name
        }

        salto.person erin {
          full_name = "Erin"
          mentor = salto.person.instance.alice
        }
        --- people.nacl
        salto.person alice {
          full_name = "Alice"
          friends = [
            salto.person.instance.bob,
          ]
        }

        salto.person bob {
          full_name = "Bob, friend of ${ salto.person.instance.alice.full_name }"
        }
        --- types.nacl
        type salto.person {
          string full_name {
            _required = true
          }
          "List<salto.person>" friends {
          }
        }
        --- vars.nacl
        vars {
          greeting = "hi"
        }

        salto.person carol {
          full_name = var.greeting
          friends = [salto.person.instance.alice]
        }
    "#]]
    .assert_eq(&rename(&root, &loaded, "people.nacl", "name", 1, "full_name"));
    expect_test::expect![[r#"
        --- vars.nacl
        vars {
          hello = "hi"
        }

        salto.person carol {
          name = var.hello
          friends = [salto.person.instance.alice]
        }
    "#]]
    .assert_eq(&rename(&root, &loaded, "vars.nacl", "greeting", 0, "hello"));
    let renamed_type = rename(&root, &loaded, "types.nacl", "List<salto.person>", 12, "human");
    assert_eq!(renamed_type.matches("salto.human").count(), 16, "{renamed_type}");
    assert!(!renamed_type.contains("salto.person"), "{renamed_type}");
}

#[test]
fn renames_that_would_break_the_workspace_are_refused() {
    let (root, loaded) = fixture();
    expect_test::expect![[r#"
        refused: `salto.person.instance.alice` already exists
    "#]]
    .assert_eq(&rename(&root, &loaded, "people.nacl", "bob {", 0, "alice"));
    expect_test::expect![[r#"
        refused: `1st` is not a valid name: use letters, digits, `_` and `@`, not starting with a digit
    "#]]
    .assert_eq(&rename(&root, &loaded, "people.nacl", "bob {", 0, "1st"));
    expect_test::expect![[r#"
        refused: `string` is built in and cannot be renamed
    "#]]
    .assert_eq(&rename(&root, &loaded, "types.nacl", "string", 0, "text"));
    expect_test::expect![[r#"
        refused: `salto.person.field.friends` already exists
    "#]]
    .assert_eq(&rename(&root, &loaded, "types.nacl", "name", 0, "friends"));
}

/// Every diagnostic of the workspace as `file: code message`, sorted.
fn all_diagnostics(root: &Path, loaded: &LoadedWorkspace) -> Vec<String> {
    let mut found: Vec<String> = loaded
        .check(None)
        .iter()
        .flat_map(|report| {
            let name = report.path.strip_prefix(root).unwrap_or(&report.path).display().to_string();
            report.diagnostics.iter().map(move |d| format!("{name}: {} {}", d.code, d.message))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn renaming_an_instance_used_in_three_files_and_a_template_adds_no_diagnostic() {
    let (root, mut loaded) = fixture();
    let before = all_diagnostics(&root, &loaded);
    let (path, offset) = at(&root, "people.nacl", "alice", 0);
    let edits = loaded.rename(&path, offset, "alicia").expect("the rename");
    let files: Vec<String> =
        edits.iter().map(|(p, _)| p.strip_prefix(&root).unwrap_or(p).display().to_string()).collect();
    assert_eq!(files, ["more.nacl", "people.nacl", "vars.nacl"]);
    for (file, mut changes) in edits {
        let mut text = std::fs::read_to_string(&file).expect("the fixture");
        changes.sort_by_key(|(range, _)| std::cmp::Reverse(range.start()));
        for (range, new_text) in changes {
            text.replace_range(std::ops::Range::<usize>::from(range), &new_text);
        }
        loaded.set_file_text(&file, text.into());
    }
    let people = loaded.text_of(&root.join("people.nacl")).expect("people.nacl");
    assert!(people.contains("${ salto.person.instance.alicia.name }"), "{people}");
    assert_eq!(all_diagnostics(&root, &loaded), before);
}

/// In a workspace large enough to have word filters ([`nacl_analysis::mentions`]), find
/// references answers as in the fixture alone (where every file's text is scanned), from every
/// word of every fixture file.
#[test]
fn references_through_word_filters_are_those_of_a_scan() {
    let (root, small) = fixture();
    let big = std::env::temp_dir().join(format!("nacl-references-filtered-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&big);
    std::fs::create_dir_all(big.join("filler")).expect("a temporary folder");
    let mut files: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(&root).expect("the fixture") {
        let name = entry.expect("a fixture file").file_name().to_string_lossy().into_owned();
        std::fs::copy(root.join(&name), big.join(&name)).expect("a copy");
        files.push(name);
    }
    for i in 0..nacl_analysis::mentions::FILTERED_FROM {
        let text = format!("zz_filler.ZzFiller zzf{i} {{\n  zz_value = {i}\n}}\n");
        std::fs::write(big.join(format!("filler/{i}.nacl")), text).expect("a filler file");
    }
    let filtered = workspace::load(&big, None);
    assert!(filtered.has_word_filters() && !small.has_word_filters());
    files.sort();
    let mut compared = 0;
    for file in &files {
        let text = std::fs::read_to_string(root.join(file)).expect("the fixture");
        let words = text
            .match_indices(|c: char| c.is_ascii_alphabetic())
            .filter(|(at, _)| !text[..*at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '@'));
        for (at, _) in words {
            let offset = TextSize::from(at as u32);
            let relative = |found: Vec<nacl_analysis::references::Occurrence>, base: &Path| -> Vec<(PathBuf, _)> {
                found
                    .into_iter()
                    .map(|o| (o.path.strip_prefix(base).unwrap_or(&o.path).to_path_buf(), o.range))
                    .collect()
            };
            let scanned = relative(small.references(&root.join(file), offset, true), &root);
            let through_filters = relative(filtered.references(&big.join(file), offset, true), &big);
            assert_eq!(scanned, through_filters, "{file} at {at}");
            compared += usize::from(!scanned.is_empty());
        }
    }
    assert!(compared > 50, "only {compared} words have references");
    let _ = std::fs::remove_dir_all(&big);
}
