//! Allocation-free reading of green trees, for passes over whole files that must be fast.
//!
//! Red nodes ([`crate::nacl::SyntaxNode`]) allocate a cursor per node visited; these views borrow the
//! green tree and carry their offset instead. The structure checks, the formatter and the analysis's
//! fragments read trees through them; editor features use the typed [`crate::nacl::ast`].

use crate::nacl::{NaclLanguage, StringDecoder, SyntaxKind};
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
        GNode { green, offset: TextSize::from(0) }
    }

    /// The node's kind.
    pub fn kind(self) -> SyntaxKind {
        NaclLanguage::kind_from_raw(self.green.kind())
    }

    /// Where the node is in the file.
    pub fn range(self) -> TextRange {
        TextRange::at(self.offset, self.green.text_len())
    }

    /// Children with their offsets.
    pub fn children(self) -> impl Iterator<Item = NodeOrToken<GNode<'a>, GToken<'a>>> {
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

    /// Child nodes of one kind.
    pub fn nodes(self, kind: SyntaxKind) -> impl Iterator<Item = GNode<'a>> {
        self.children().filter_map(NodeOrToken::into_node).filter(move |n| n.kind() == kind)
    }

    /// The first child node of one kind.
    pub fn node(self, kind: SyntaxKind) -> Option<GNode<'a>> {
        self.nodes(kind).next()
    }

    /// The first child token of one kind.
    pub fn token(self, kind: SyntaxKind) -> Option<GToken<'a>> {
        self.children().filter_map(NodeOrToken::into_token).find(|t| t.kind() == kind)
    }

    /// The first child node that is a value (a string, literal, reference, list, object or call).
    pub fn value(self) -> Option<GNode<'a>> {
        self.values().next()
    }

    /// The child nodes that are values, in order.
    pub fn values(self) -> impl Iterator<Item = GNode<'a>> {
        self.children().filter_map(NodeOrToken::into_node).filter(|n| n.kind().is_value())
    }

    /// The node's text as written.
    pub fn text(self) -> Cow<'a, str> {
        match self.green.children().next() {
            Some(NodeOrToken::Token(token)) if self.green.children().len() == 1 => Cow::Borrowed(token.text()),
            _ => Cow::Owned(self.green.to_string()),
        }
    }

    /// The text of a `LABEL` or `KEY`: the word as written, or the decoded string (as
    /// [`crate::nacl::ast::Label::text`] reads it).
    pub fn name_text(self) -> Cow<'a, str> {
        match self.node(SyntaxKind::STRING) {
            Some(string) => Cow::Owned(string.string_value()),
            // An unquoted generic label holds several tokens.
            None => self.text(),
        }
    }

    /// The decoded value of a `STRING` node, templates written as `${ id }`.
    pub fn string_value(self) -> String {
        let mut decoder = StringDecoder::default();
        self.decode_into(&mut decoder, false);
        decoder.finish()
    }

    /// The decoded value of a `MULTILINE_STRING` node, templates written as `${ id }` (as
    /// [`crate::nacl::ast::MultilineString::value`] reads it).
    pub fn multiline_value(self) -> String {
        let mut decoder = StringDecoder::default();
        self.decode_into(&mut decoder, true);
        decoder.finish_multiline()
    }

    /// Whether a string node holds `${ }` template references.
    pub fn has_templates(self) -> bool {
        self.node(SyntaxKind::TEMPLATE).is_some()
    }

    /// Feeds a string node's text and escapes to `decoder`, templates written as `${ id }`.
    fn decode_into(self, decoder: &mut StringDecoder, multiline: bool) {
        for child in self.children() {
            match child {
                NodeOrToken::Token(t) if matches!(t.kind(), SyntaxKind::STRING_TEXT | SyntaxKind::ESCAPE) => {
                    decoder.push_piece(t.kind(), t.text(), multiline);
                }
                NodeOrToken::Token(_) => {}
                NodeOrToken::Node(template) if template.kind() == SyntaxKind::TEMPLATE => {
                    let id = template.token(SyntaxKind::IDENT).map_or("", GToken::text);
                    decoder.push_piece(SyntaxKind::STRING_TEXT, &format!("${{ {id} }}"), multiline);
                }
                NodeOrToken::Node(_) => {}
            }
        }
    }
}

impl<'a> GToken<'a> {
    /// The token's kind.
    pub fn kind(self) -> SyntaxKind {
        NaclLanguage::kind_from_raw(self.green.kind())
    }

    /// The token's text.
    pub fn text(self) -> &'a str {
        self.green.text()
    }

    /// Where the token is in the file.
    pub fn range(self) -> TextRange {
        TextRange::at(self.offset, self.green.text_len())
    }
}
