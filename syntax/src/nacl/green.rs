//! Allocation-free reading of green trees, for passes over whole files that must be fast.
//!
//! Red nodes ([`crate::nacl::SyntaxNode`]) allocate a cursor per node visited; these views borrow the
//! green tree and carry their offset instead.

use crate::nacl::{NaclLanguage, StringDecoder, SyntaxKind};
use rowan::{GreenNodeData, GreenTokenData, Language, NodeOrToken, TextRange, TextSize};
use std::borrow::Cow;

/// A green node and its offset in the file.
#[derive(Clone, Copy)]
pub(crate) struct GNode<'a> {
    green: &'a GreenNodeData,
    offset: TextSize,
}

/// A green token and its offset in the file.
#[derive(Clone, Copy)]
pub(crate) struct GToken<'a> {
    green: &'a GreenTokenData,
    offset: TextSize,
}

impl<'a> GNode<'a> {
    /// The root of a tree.
    pub(crate) fn root(green: &'a GreenNodeData) -> GNode<'a> {
        GNode { green, offset: TextSize::from(0) }
    }

    pub(crate) fn kind(self) -> SyntaxKind {
        NaclLanguage::kind_from_raw(self.green.kind())
    }

    pub(crate) fn range(self) -> TextRange {
        TextRange::at(self.offset, self.green.text_len())
    }

    /// Children with their offsets.
    pub(crate) fn children(self) -> impl Iterator<Item = NodeOrToken<GNode<'a>, GToken<'a>>> {
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
    pub(crate) fn nodes(self, kind: SyntaxKind) -> impl Iterator<Item = GNode<'a>> {
        self.children().filter_map(NodeOrToken::into_node).filter(move |n| n.kind() == kind)
    }

    /// The first child node of one kind.
    pub(crate) fn node(self, kind: SyntaxKind) -> Option<GNode<'a>> {
        self.nodes(kind).next()
    }

    /// The first child token of one kind.
    pub(crate) fn token(self, kind: SyntaxKind) -> Option<GToken<'a>> {
        self.children().filter_map(NodeOrToken::into_token).find(|t| t.kind() == kind)
    }

    /// The text of a `LABEL` or `KEY`: the word as written, or the decoded string.
    pub(crate) fn name_text(self) -> Cow<'a, str> {
        match self.node(SyntaxKind::STRING) {
            Some(string) => Cow::Owned(string.string_value()),
            None => match self.token(SyntaxKind::IDENT) {
                Some(ident) => Cow::Borrowed(ident.text()),
                // An unquoted generic label holds several tokens.
                None => Cow::Owned(self.green.to_string()),
            },
        }
    }

    /// The decoded value of a `STRING` node, templates written as `${ id }`.
    pub(crate) fn string_value(self) -> String {
        let mut decoder = StringDecoder::default();
        for child in self.children() {
            match child {
                NodeOrToken::Token(t) => {
                    if matches!(t.kind(), SyntaxKind::STRING_TEXT | SyntaxKind::ESCAPE) {
                        decoder.push_string_piece(t.kind(), t.text());
                    }
                }
                NodeOrToken::Node(template) => {
                    let id = template.token(SyntaxKind::IDENT).map_or("", GToken::text);
                    decoder.push_string_piece(SyntaxKind::STRING_TEXT, &format!("${{ {id} }}"));
                }
            }
        }
        decoder.finish()
    }
}

impl<'a> GToken<'a> {
    pub(crate) fn kind(self) -> SyntaxKind {
        NaclLanguage::kind_from_raw(self.green.kind())
    }

    pub(crate) fn text(self) -> &'a str {
        self.green.text()
    }

    pub(crate) fn range(self) -> TextRange {
        TextRange::at(self.offset, self.green.text_len())
    }
}
