//! Building green trees without rowan's `NodeCache`.
//!
//! rowan's cache interns every token and small node in one hash table whose lookups degrade (rustc-hash 1's weak hash) on
//! files with hundreds of thousands of distinct names (parse time grew quadratically: a 5 MB
//! generated file took 1.6 s, a 50 MB one over 30 s). This builder interns only short tokens
//! (punctuation, indentation, keywords, short names), in a bounded table with a well-distributed
//! hash, and builds everything else directly, so building stays linear in the file size.

use rowan::{GreenNode, GreenToken, NodeOrToken, SyntaxKind};
use rustc_hash::FxHashMap;

/// Tokens at most this long are interned.
const INTERNED_LEN: usize = 8;
/// At most this many distinct tokens are interned per tree.
const INTERNED_MAX: usize = 1 << 14;

/// Builds one green tree, node by node, for any language (kinds are rowan's raw kinds).
pub(crate) struct TreeBuilder {
    /// Open nodes: their kind and where their children start in `children`.
    parents: Vec<(SyntaxKind, usize)>,
    /// Children of the open nodes, innermost last.
    children: Vec<NodeOrToken<GreenNode, GreenToken>>,
    /// Interned short tokens, by text.
    interned: FxHashMap<Box<str>, GreenToken>,
    /// The kind of the node that wraps the result if the parser left more than one root.
    root: SyntaxKind,
}

impl TreeBuilder {
    /// A builder whose tree's root has kind `root`.
    pub(crate) fn new(root: impl Into<SyntaxKind>) -> TreeBuilder {
        TreeBuilder { parents: Vec::new(), children: Vec::new(), interned: FxHashMap::default(), root: root.into() }
    }

    /// Opens a node; tokens and nodes until the matching [`TreeBuilder::finish_node`] are its children.
    pub(crate) fn start_node(&mut self, kind: impl Into<SyntaxKind>) {
        self.parents.push((kind.into(), self.children.len()));
    }

    /// Adds a token to the open node.
    pub(crate) fn token(&mut self, kind: impl Into<SyntaxKind>, text: &str) {
        let raw = kind.into();
        let token = if text.len() > INTERNED_LEN {
            GreenToken::new(raw, text)
        } else {
            match self.interned.get(text) {
                Some(token) if token.kind() == raw => token.clone(),
                _ => {
                    let token = GreenToken::new(raw, text);
                    if self.interned.len() < INTERNED_MAX {
                        self.interned.insert(text.into(), token.clone());
                    }
                    token
                }
            }
        };
        self.children.push(NodeOrToken::Token(token));
    }

    /// Closes the innermost open node.
    pub(crate) fn finish_node(&mut self) {
        let Some((kind, first)) = self.parents.pop() else { return };
        let node = GreenNode::new(kind, self.children.drain(first..));
        self.children.push(NodeOrToken::Node(node));
    }

    /// The tree: the one node built at the outermost level.
    pub(crate) fn finish(mut self) -> GreenNode {
        while !self.parents.is_empty() {
            self.finish_node();
        }
        match self.children.pop() {
            Some(NodeOrToken::Node(node)) if self.children.is_empty() => node,
            // The parser always builds one root; anything else is wrapped so no text is lost.
            last => {
                self.children.extend(last);
                GreenNode::new(self.root, self.children)
            }
        }
    }
}
