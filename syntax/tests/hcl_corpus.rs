//! The HCL parser and formatter against HashiCorp's reference implementation on the real-world
//! corpus `../shared/corpus-hcl`: every file the reference parses parses without error here,
//! every file it rejects gets at least one error here, and every parse keeps every byte.

use nacl_syntax::hcl;

#[test]
fn parse_agrees_with_the_reference_on_every_corpus_file() {
    let corpus = nacl_corpus::hcl_corpus();
    assert!(corpus.len() > 1000, "the HCL corpus looks incomplete: {} files", corpus.len());
    let mut disagreements = Vec::new();
    for file in &corpus {
        let bytes = std::fs::read(&file.path).unwrap_or_else(|e| panic!("{}: {e}", file.path.display()));
        let Ok(text) = String::from_utf8(bytes) else {
            assert!(!file.parse_ok, "{}: not UTF-8 but the reference parses it", file.path.display());
            continue;
        };
        let parse = hcl::parse(&text);
        assert_eq!(parse.syntax().to_string(), text, "{}: the tree lost text", file.path.display());
        if parse.errors().is_empty() != file.parse_ok {
            let first = parse.errors().first().map(|e| e.to_string()).unwrap_or_default();
            disagreements.push(format!(
                "{}: reference {}, here {} {first}",
                file.path.display(),
                if file.parse_ok { "parses" } else { "rejects" },
                if parse.errors().is_empty() { "parses" } else { "rejects" },
            ));
        }
    }
    assert!(disagreements.is_empty(), "{} disagreements:\n{}", disagreements.len(), disagreements.join("\n"));
}

/// `fmt` prints what HashiCorp's `hclfmt` prints (compared by SHA-256) for every corpus file the
/// reference parses; files it already calls canonical come out unchanged.
#[test]
fn format_agrees_with_the_reference_on_every_parsed_corpus_file() {
    use sha2::{Digest, Sha256};
    let mut disagreements = Vec::new();
    let mut checked = 0;
    for file in nacl_corpus::hcl_corpus().iter().filter(|f| f.parse_ok) {
        let text = std::fs::read_to_string(&file.path).unwrap_or_else(|e| panic!("{}: {e}", file.path.display()));
        let formatted = hcl::format::format(&text);
        checked += 1;
        let hash = Sha256::digest(formatted.as_bytes()).iter().map(|b| format!("{b:02x}")).collect::<String>();
        if hash != file.formatted_sha256 {
            disagreements.push(format!("{}", file.path.display()));
        } else if file.canonical {
            assert_eq!(formatted, text, "{}: canonical, yet changed", file.path.display());
        }
    }
    assert!(checked > 1000);
    assert!(
        disagreements.is_empty(),
        "{} of {checked} differ from hclfmt:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}
