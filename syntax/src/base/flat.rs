//! A flat syntax tree: what a parser produced, in one array, without rowan's reference-counted nodes.
//!
//! A parser writes nodes and tokens in order ([`FlatBuilder`]); each item records its kind, its
//! byte range and where its subtree ends, so children are found by jumping over subtrees. Building
//! one costs a push per node or token, and dropping it frees one array: passes over whole
//! workspaces (structure checks, fragments) read these, and the rowan green tree every editor
//! feature reads is built from one only when asked for ([`FlatTree::green`]).

use super::builder::TreeBuilder;
use rowan::{GreenNode, NodeOrToken, SyntaxKind, TextRange, TextSize};

/// One node or token.
#[derive(Debug, Clone, Copy)]
struct Item {
    /// rowan's raw kind.
    kind: u16,
    /// Whether the item is a node (a token otherwise).
    node: bool,
    /// Where its text starts.
    start: u32,
    /// Where its text ends.
    end: u32,
    /// The index just past its subtree (for a token, its own index plus one).
    next: u32,
}

impl Item {
    fn range(&self) -> TextRange {
        TextRange::new(TextSize::from(self.start), TextSize::from(self.end))
    }
}

/// A tree over `text`: the root is item 0.
#[derive(Debug)]
pub struct FlatTree<'t> {
    text: &'t str,
    items: Vec<Item>,
}

/// Writes a [`FlatTree`] node by node, as [`TreeBuilder`] writes a green tree.
pub(crate) struct FlatBuilder<'t> {
    tree: FlatTree<'t>,
    /// Open nodes, innermost last.
    open: Vec<u32>,
    /// Where the next token starts.
    offset: u32,
    /// The kind of the node that wraps the result if the parser left more than one root.
    root: SyntaxKind,
}

impl<'t> FlatBuilder<'t> {
    /// A builder over `text`, with room for about `tokens` tokens; `root` wraps the result if the
    /// parser leaves anything but one root node.
    pub(crate) fn new(text: &'t str, tokens: usize, root: impl Into<SyntaxKind>) -> FlatBuilder<'t> {
        let items = Vec::with_capacity(tokens + tokens / 2 + 1);
        FlatBuilder { tree: FlatTree { text, items }, open: Vec::new(), offset: 0, root: root.into() }
    }

    fn len(&self) -> u32 {
        u32::try_from(self.tree.items.len()).unwrap_or(u32::MAX)
    }

    /// Opens a node; tokens and nodes until the matching [`FlatBuilder::finish_node`] are its children.
    pub(crate) fn start_node(&mut self, kind: impl Into<SyntaxKind>) {
        self.open.push(self.len());
        let at = self.offset;
        self.tree.items.push(Item { kind: kind.into().0, node: true, start: at, end: at, next: 0 });
    }

    /// Adds the next `len` bytes of the text to the open node as a token.
    pub(crate) fn token(&mut self, kind: impl Into<SyntaxKind>, len: u32) {
        let start = self.offset;
        self.offset = start.saturating_add(len);
        let next = self.len() + 1;
        self.tree.items.push(Item { kind: kind.into().0, node: false, start, end: self.offset, next });
    }

    /// Closes the innermost open node.
    pub(crate) fn finish_node(&mut self) {
        let Some(at) = self.open.pop() else { return };
        let (end, next) = (self.offset, self.len());
        if let Some(item) = self.tree.items.get_mut(at as usize) {
            item.end = end;
            item.next = next;
        }
    }

    /// The tree. Open nodes are closed; text no token covered is added to the root as a token
    /// of kind `rest`, and several roots are wrapped in one, so the tree holds all of the text.
    pub(crate) fn finish(mut self, rest: impl Into<SyntaxKind>) -> FlatTree<'t> {
        while !self.open.is_empty() {
            self.finish_node();
        }
        let whole = self.tree.items.first().is_some_and(|root| root.node && root.next == self.len());
        let covered = self.offset as usize >= self.tree.text.len();
        if whole && covered {
            return self.tree;
        }
        let text_len = u32::try_from(self.tree.text.len()).unwrap_or(u32::MAX);
        let root = Item { kind: self.root.0, node: true, start: 0, end: text_len, next: 0 };
        self.tree.items.insert(0, root);
        for item in &mut self.tree.items[1..] {
            item.next += 1;
        }
        if !covered {
            let (start, next) = (self.offset, self.len() + 1);
            self.tree.items.push(Item { kind: rest.into().0, node: false, start, end: text_len, next });
        }
        self.tree.items[0].next = self.len();
        self.tree
    }
}

impl<'t> FlatTree<'t> {
    /// The text the tree covers.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The root node.
    pub fn root(&self) -> FlatNode<'_, 't> {
        FlatNode { tree: self, index: 0 }
    }

    /// The same tree as a rowan green tree.
    pub fn green(&self) -> GreenNode {
        let mut builder = TreeBuilder::new(SyntaxKind(self.items.first().map_or(0, |i| i.kind)));
        let mut open: Vec<u32> = Vec::new();
        for (index, item) in self.items.iter().enumerate() {
            while open.last().is_some_and(|&next| next as usize <= index) {
                open.pop();
                builder.finish_node();
            }
            if item.node {
                builder.start_node(SyntaxKind(item.kind));
                open.push(item.next);
            } else {
                builder.token(SyntaxKind(item.kind), self.slice(item));
            }
        }
        builder.finish()
    }

    fn slice(&self, item: &Item) -> &'t str {
        self.text.get(item.start as usize..item.end as usize).unwrap_or_default()
    }
}

/// A node of a [`FlatTree`].
#[derive(Clone, Copy)]
pub struct FlatNode<'a, 't> {
    tree: &'a FlatTree<'t>,
    index: u32,
}

/// A token of a [`FlatTree`].
#[derive(Clone, Copy)]
pub struct FlatToken<'a, 't> {
    tree: &'a FlatTree<'t>,
    index: u32,
}

impl<'a, 't> FlatNode<'a, 't> {
    fn item(self) -> &'a Item {
        &self.tree.items[self.index as usize]
    }

    /// rowan's raw kind of the node.
    pub fn raw_kind(self) -> SyntaxKind {
        SyntaxKind(self.item().kind)
    }

    /// Where the node is in the text.
    pub fn range(self) -> TextRange {
        self.item().range()
    }

    /// The node's text as written.
    pub fn text(self) -> &'t str {
        self.tree.slice(self.item())
    }

    /// The node's children, in order.
    pub fn children(self) -> impl Iterator<Item = NodeOrToken<FlatNode<'a, 't>, FlatToken<'a, 't>>> {
        let tree = self.tree;
        let end = self.item().next;
        let mut at = self.index + 1;
        std::iter::from_fn(move || {
            if at >= end {
                return None;
            }
            let index = at;
            let item = tree.items.get(index as usize)?;
            at = item.next.max(index + 1);
            Some(if item.node {
                NodeOrToken::Node(FlatNode { tree, index })
            } else {
                NodeOrToken::Token(FlatToken { tree, index })
            })
        })
    }

    /// The node and every node under it, in order (each before its children), read straight
    /// off the array: a pass over every node of a tree needs no recursion.
    pub fn descendants(self) -> impl Iterator<Item = FlatNode<'a, 't>> {
        let tree = self.tree;
        let (start, end) = (self.index as usize, self.item().next as usize);
        let subtree = tree.items.get(start..end.max(start + 1)).unwrap_or_default();
        (self.index..).zip(subtree).filter(|(_, item)| item.node).map(move |(index, _)| FlatNode { tree, index })
    }
}

impl<'a, 't> FlatToken<'a, 't> {
    /// rowan's raw kind of the token.
    pub fn raw_kind(self) -> SyntaxKind {
        FlatNode { tree: self.tree, index: self.index }.raw_kind()
    }

    /// Where the token is in the text.
    pub fn range(self) -> TextRange {
        FlatNode { tree: self.tree, index: self.index }.range()
    }

    /// The token's text.
    pub fn text(self) -> &'t str {
        FlatNode { tree: self.tree, index: self.index }.text()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::green_shape as shape;

    fn flat_shape(node: FlatNode<'_, '_>) -> String {
        let children: Vec<String> = node
            .children()
            .map(|child| match child {
                NodeOrToken::Node(n) => flat_shape(n),
                NodeOrToken::Token(t) => t.text().to_owned(),
            })
            .collect();
        format!("{}({})", node.raw_kind().0, children.join(" "))
    }

    #[test]
    fn nested_nodes_read_back_and_build_the_same_green_tree() {
        let text = "a+bc";
        let mut b = FlatBuilder::new(text, 4, SyntaxKind(0));
        b.start_node(SyntaxKind(0));
        b.start_node(SyntaxKind(10));
        b.token(SyntaxKind(1), 1);
        b.finish_node();
        b.token(SyntaxKind(2), 1);
        b.start_node(SyntaxKind(11));
        b.start_node(SyntaxKind(12));
        b.finish_node();
        b.token(SyntaxKind(1), 2);
        b.finish_node();
        b.finish_node();
        let tree = b.finish(SyntaxKind(99));
        assert_eq!(flat_shape(tree.root()), "0(10(a) + 11(12() bc))");
        assert_eq!(shape(&tree.green()), "0(10(a) + 11(12() bc))");
        let inner: Vec<TextRange> =
            tree.root().children().filter_map(NodeOrToken::into_node).map(FlatNode::range).collect();
        assert_eq!(inner, [TextRange::new(0.into(), 1.into()), TextRange::new(2.into(), 4.into())]);
        let kinds = |node: FlatNode<'_, '_>| node.descendants().map(|n| n.raw_kind().0).collect::<Vec<_>>();
        assert_eq!(kinds(tree.root()), [0, 10, 11, 12]);
        let last = tree.root().children().filter_map(NodeOrToken::into_node).last().expect("a node");
        assert_eq!(kinds(last), [11, 12]);
    }

    #[test]
    fn uncovered_text_and_several_roots_are_kept_under_one_root() {
        let mut b = FlatBuilder::new("abcd", 2, SyntaxKind(0));
        b.start_node(SyntaxKind(5));
        b.token(SyntaxKind(1), 1);
        b.finish_node();
        b.token(SyntaxKind(1), 1);
        let tree = b.finish(SyntaxKind(99));
        assert_eq!(flat_shape(tree.root()), "0(5(a) b cd)");
        assert_eq!(shape(&tree.green()), "0(5(a) b cd)");
        assert_eq!(tree.root().range(), TextRange::new(0.into(), 4.into()));
    }

    #[test]
    fn an_empty_text_has_an_empty_root() {
        let tree = FlatBuilder::new("", 0, SyntaxKind(7)).finish(SyntaxKind(99));
        assert_eq!(flat_shape(tree.root()), "7()");
        assert_eq!(shape(&tree.green()), "7()");
    }
}
