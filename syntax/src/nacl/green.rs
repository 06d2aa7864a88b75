//! Allocation-free reading of green trees: [`GNode`] borrows a green tree and carries its offset
//! instead of building a red cursor per node. The formatter reads trees through it; see
//! [`crate::nacl::view`] for what it offers.

use crate::nacl::{
    NaclLanguage, SyntaxKind,
    view::{NodeView, TokenView},
};
use rowan::{GreenNodeData, GreenTokenData, Language, NodeOrToken, TextRange, TextSize};
use std::borrow::Cow;

/// A green node and its offset in the file.
#[derive(Clone, Copy)]
pub struct GNode<'a> {
    green: &'a GreenNodeData,
    offset: TextSize,
}

/// A green token and its offset in the file.
#[derive(Clone, Copy)]
pub struct GToken<'a> {
    green: &'a GreenTokenData,
    offset: TextSize,
}

impl<'a> GNode<'a> {
    /// The root of a tree.
    pub fn root(green: &'a GreenNodeData) -> GNode<'a> {
        GNode::at(green, TextSize::from(0))
    }

    /// A node of a tree that starts at `offset` in the file.
    pub fn at(green: &'a GreenNodeData, offset: TextSize) -> GNode<'a> {
        GNode { green, offset }
    }

    /// The green node itself.
    pub fn green(self) -> &'a GreenNodeData {
        self.green
    }
}

impl<'a> NodeView<'a> for GNode<'a> {
    type Token = GToken<'a>;

    fn kind(self) -> SyntaxKind {
        NaclLanguage::kind_from_raw(self.green.kind())
    }

    fn range(self) -> TextRange {
        TextRange::at(self.offset, self.green.text_len())
    }

    fn children(self) -> impl Iterator<Item = NodeOrToken<GNode<'a>, GToken<'a>>> + 'a {
        let mut offset = self.offset;
        self.green.children().map(move |child| {
            let at = offset;
            offset += child.text_len();
            match child {
                NodeOrToken::Node(green) => NodeOrToken::Node(GNode { green, offset: at }),
                NodeOrToken::Token(green) => NodeOrToken::Token(GToken { green, offset: at }),
            }
        })
    }

    fn text(self) -> Cow<'a, str> {
        match self.green.children().next() {
            Some(NodeOrToken::Token(token)) if self.green.children().len() == 1 => Cow::Borrowed(token.text()),
            _ => Cow::Owned(self.green.to_string()),
        }
    }
}

impl<'a> TokenView<'a> for GToken<'a> {
    fn kind(self) -> SyntaxKind {
        NaclLanguage::kind_from_raw(self.green.kind())
    }

    fn text(self) -> &'a str {
        self.green.text()
    }

    fn range(self) -> TextRange {
        TextRange::at(self.offset, self.green.text_len())
    }
}
