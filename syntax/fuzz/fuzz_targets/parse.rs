//! The parser never panics, and its trees hold every byte of the input: the rowan tree, and the
//! flat tree it is built from, whose children tile each node's range.
#![no_main]

use nacl_syntax::{FlatNode, rowan::NodeOrToken};

/// Checks that `node`'s children cover its range end to end, at every level.
fn assert_tiled(node: FlatNode<'_, '_>) {
    let mut at = node.range().start();
    for child in node.children() {
        let range = match child {
            NodeOrToken::Node(child) => {
                assert_tiled(child);
                child.range()
            }
            NodeOrToken::Token(token) => token.range(),
        };
        assert_eq!(range.start(), at, "a gap or overlap in the flat tree");
        at = range.end();
    }
    assert_eq!(at, node.range().end(), "the children do not reach the end of their node");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let parse = nacl_syntax::nacl::parse(text);
    assert_eq!(parse.syntax().to_string(), text, "the tree must hold the input byte for byte");
    for error in parse.errors().iter() {
        assert!(usize::from(error.range.end()) <= text.len(), "an error outside the text: {error}");
    }
    let (tree, errors) = nacl_syntax::nacl::parse_flat(text);
    assert_eq!(tree.root().text(), text, "the flat tree must cover the input");
    assert_tiled(tree.root());
    assert_eq!(errors, parse.errors(), "both parses report the same errors");
});
