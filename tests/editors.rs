//! The editor configuration files parse and name what each editor needs.

use std::path::Path;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn helix_languages_toml_declares_the_language_and_the_server() {
    let config: toml::Table = read("editors/helix/languages.toml").parse().expect("valid TOML");
    let language =
        config["language"].as_array().and_then(|l| l.first()).and_then(|l| l.as_table()).expect("a [[language]]");
    assert_eq!(language["name"].as_str(), Some("nacl"));
    assert_eq!(language["file-types"].as_array().map(|t| t.len()), Some(1));
    assert_eq!(language["file-types"][0].as_str(), Some("nacl"));
    assert_eq!(language["comment-token"].as_str(), Some("//"));
    assert_eq!(language["roots"][0].as_str(), Some("salto.config"));
    assert_eq!(language["language-servers"][0].as_str(), Some("nacl-ls"));
    assert_eq!(config["language-server"]["nacl-ls"]["command"].as_str(), Some("nacl-ls"));
}

#[test]
fn jetbrains_template_maps_nacl_files_to_the_server() {
    let template: serde_json::Value =
        serde_json::from_str(&read("editors/jetbrains/template.json")).expect("valid JSON");
    assert_eq!(template["id"], "nacl-ls");
    assert_eq!(template["programArgs"]["default"], "nacl-ls");
    let mapping = &template["fileTypeMappings"][0];
    assert_eq!(mapping["fileType"]["patterns"][0], "*.nacl");
    assert_eq!(mapping["languageId"], "nacl");
}
