//! The typed AST of HCL: thin wrappers over CST nodes with `Option` accessors.
//!
//! Every accessor tolerates broken trees: a missing piece is `None`, never a panic.

use crate::hcl::{
    HclLanguage,
    SyntaxKind::{self, *},
    SyntaxNode, SyntaxToken,
};
use rowan::ast::AstNode;

pub use rowan::ast::AstNode as AstNodeExt;

use crate::base::kinds::ast_node;

ast_node!(HclLanguage, /** A whole file: a body's items. */ SourceFile, SOURCE_FILE);
ast_node!(HclLanguage, /** `type label... { ... }`. */ Block, BLOCK);
ast_node!(HclLanguage, /** A block's `{ ... }`. */ Body, BODY);
ast_node!(HclLanguage, /** `name = expression`. */ Attribute, ATTRIBUTE);
ast_node!(HclLanguage, /** A quoted block label. */ StringLit, STRING_LIT);

/// An item of a body.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BodyItem {
    /// An attribute.
    Attribute(Attribute),
    /// A block.
    Block(Block),
}

impl BodyItem {
    fn cast(node: SyntaxNode) -> Option<BodyItem> {
        Attribute::cast(node.clone()).map(BodyItem::Attribute).or_else(|| Block::cast(node).map(BodyItem::Block))
    }
}

fn items(node: &SyntaxNode) -> impl Iterator<Item = BodyItem> + use<> {
    node.children().filter_map(BodyItem::cast)
}

impl SourceFile {
    /// The top-level attributes and blocks.
    pub fn items(&self) -> impl Iterator<Item = BodyItem> + use<> {
        items(&self.0)
    }
}

impl Body {
    /// The attributes and blocks inside the braces.
    pub fn items(&self) -> impl Iterator<Item = BodyItem> + use<> {
        items(&self.0)
    }
}

impl Attribute {
    /// The attribute's name.
    pub fn name(&self) -> Option<SyntaxToken> {
        self.0.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == IDENT)
    }

    /// The value's node.
    pub fn value(&self) -> Option<SyntaxNode> {
        self.0.children().next()
    }
}

/// A block label: a quoted string or an identifier.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Label {
    /// `"name"`.
    Quoted(StringLit),
    /// `name`.
    Ident(SyntaxToken),
}

impl Label {
    /// The label's text, without quotes (escapes left as written).
    pub fn text(&self) -> String {
        match self {
            Label::Quoted(lit) => lit
                .syntax()
                .children_with_tokens()
                .filter_map(|e| e.into_token())
                .filter(|t| t.kind() == TEMPLATE_TEXT)
                .map(|t| t.text().to_owned())
                .collect(),
            Label::Ident(token) => token.text().to_owned(),
        }
    }

    /// Where it is.
    pub fn range(&self) -> rowan::TextRange {
        match self {
            Label::Quoted(lit) => lit.syntax().text_range(),
            Label::Ident(token) => token.text_range(),
        }
    }
}

impl Block {
    /// The block type: the first identifier.
    pub fn type_name(&self) -> Option<SyntaxToken> {
        self.0.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == IDENT)
    }

    /// The labels after the type, in order.
    pub fn labels(&self) -> Vec<Label> {
        let mut out = Vec::new();
        let mut seen_type = false;
        for element in self.0.children_with_tokens() {
            match element {
                rowan::NodeOrToken::Token(t) if t.kind() == IDENT => {
                    if seen_type {
                        out.push(Label::Ident(t));
                    }
                    seen_type = true;
                }
                rowan::NodeOrToken::Node(n) => match StringLit::cast(n) {
                    Some(lit) => out.push(Label::Quoted(lit)),
                    None => break,
                },
                _ => {}
            }
        }
        out
    }

    /// The body in braces.
    pub fn body(&self) -> Option<Body> {
        self.0.children().find_map(Body::cast)
    }
}
