//! Reading NaCl trees without red cursors, for passes over whole files that must be fast.
//!
//! [`NodeView`] and [`TokenView`] are what such passes read: a node's kind, range and children,
//! and the helpers built on them (child nodes of a kind, a label's text, a string's decoded
//! value). Two trees implement them: the rowan green tree of a [`crate::nacl::Parse`]
//! ([`crate::nacl::green::GNode`], which the formatter reads) and the flat tree of
//! [`crate::nacl::parse_flat`] ([`FlatNode`], which the structure checks and the analysis's
//! fragments read). Red nodes ([`crate::nacl::SyntaxNode`]) allocate a cursor per node visited;
//! editor features read those through the typed [`crate::nacl::ast`].

use crate::base::flat::{FlatNode, FlatToken};
use crate::nacl::{NaclLanguage, StringDecoder, SyntaxKind};
use rowan::{Language, NodeOrToken, TextRange};
use std::borrow::Cow;

/// A token of a NaCl tree, with its position.
pub trait TokenView<'a>: Copy {
    /// The token's kind.
    fn kind(self) -> SyntaxKind;
    /// The token's text.
    fn text(self) -> &'a str;
    /// Where the token is in the file.
    fn range(self) -> TextRange;
}

/// A node of a NaCl tree, with its position.
pub trait NodeView<'a>: Copy + 'a {
    /// The tree's tokens.
    type Token: TokenView<'a>;

    /// The node's kind.
    fn kind(self) -> SyntaxKind;

    /// Where the node is in the file.
    fn range(self) -> TextRange;

    /// Children with their offsets.
    fn children(self) -> impl Iterator<Item = NodeOrToken<Self, Self::Token>> + 'a;

    /// The node's text as written.
    fn text(self) -> Cow<'a, str>;

    /// Child nodes of one kind.
    fn nodes(self, kind: SyntaxKind) -> impl Iterator<Item = Self> + 'a {
        self.children().filter_map(NodeOrToken::into_node).filter(move |n| n.kind() == kind)
    }

    /// The first child node of one kind.
    fn node(self, kind: SyntaxKind) -> Option<Self> {
        self.nodes(kind).next()
    }

    /// The first child token of one kind.
    fn token(self, kind: SyntaxKind) -> Option<Self::Token> {
        self.children().filter_map(NodeOrToken::into_token).find(|t| t.kind() == kind)
    }

    /// The first child node that is a value (a string, literal, reference, list, object or call).
    fn value(self) -> Option<Self> {
        self.values().next()
    }

    /// The child nodes that are values, in order.
    fn values(self) -> impl Iterator<Item = Self> + 'a {
        self.children().filter_map(NodeOrToken::into_node).filter(|n| n.kind().is_value())
    }

    /// The text of a `LABEL` or `KEY`: the word as written, or the decoded string (as
    /// [`crate::nacl::ast::Label::text`] reads it).
    fn name_text(self) -> Cow<'a, str> {
        match self.node(SyntaxKind::STRING) {
            Some(string) => Cow::Owned(string.string_value()),
            // An unquoted generic label holds several tokens.
            None => self.text(),
        }
    }

    /// The decoded value of a `STRING` node, templates written as `${ id }`.
    fn string_value(self) -> String {
        let mut decoder = StringDecoder::default();
        decode_into(self, &mut decoder, false);
        decoder.finish()
    }

    /// The decoded value of a `MULTILINE_STRING` node, templates written as `${ id }` (as
    /// [`crate::nacl::ast::MultilineString::value`] reads it).
    fn multiline_value(self) -> String {
        let mut decoder = StringDecoder::default();
        decode_into(self, &mut decoder, true);
        decoder.finish_multiline()
    }

    /// Whether a string node holds `${ }` template references.
    fn has_templates(self) -> bool {
        self.node(SyntaxKind::TEMPLATE).is_some()
    }
}

/// Feeds a string node's text and escapes to `decoder`, templates written as `${ id }`.
fn decode_into<'a, N: NodeView<'a>>(string: N, decoder: &mut StringDecoder, multiline: bool) {
    for child in string.children() {
        match child {
            NodeOrToken::Token(t) if matches!(t.kind(), SyntaxKind::STRING_TEXT | SyntaxKind::ESCAPE) => {
                decoder.push_piece(t.kind(), t.text(), multiline);
            }
            NodeOrToken::Token(_) => {}
            NodeOrToken::Node(template) if template.kind() == SyntaxKind::TEMPLATE => {
                let id = template.token(SyntaxKind::IDENT).map_or("", TokenView::text);
                decoder.push_piece(SyntaxKind::STRING_TEXT, &format!("${{ {id} }}"), multiline);
            }
            NodeOrToken::Node(_) => {}
        }
    }
}

impl<'a, 't: 'a> NodeView<'a> for FlatNode<'a, 't> {
    type Token = FlatToken<'a, 't>;

    fn kind(self) -> SyntaxKind {
        NaclLanguage::kind_from_raw(self.raw_kind())
    }

    fn range(self) -> TextRange {
        FlatNode::range(self)
    }

    fn children(self) -> impl Iterator<Item = NodeOrToken<Self, Self::Token>> + 'a {
        FlatNode::children(self)
    }

    fn text(self) -> Cow<'a, str> {
        Cow::Borrowed(FlatNode::text(self))
    }
}

impl<'a, 't: 'a> TokenView<'a> for FlatToken<'a, 't> {
    fn kind(self) -> SyntaxKind {
        NaclLanguage::kind_from_raw(self.raw_kind())
    }

    fn text(self) -> &'a str {
        FlatToken::text(self)
    }

    fn range(self) -> TextRange {
        FlatToken::range(self)
    }
}
