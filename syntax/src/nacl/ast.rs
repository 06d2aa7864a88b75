//! The typed AST: thin wrappers over CST nodes with `Option` accessors, as in rust-analyzer.
//!
//! Every accessor tolerates broken trees: a missing piece is `None`, never a panic.

use crate::nacl::{
    SyntaxKind::{self, *},
    SyntaxNode, SyntaxToken,
    escape::StringDecoder,
};
use rowan::ast::AstNode;
use std::borrow::Cow;

pub use rowan::ast::AstNode as AstNodeExt;

use crate::base::kinds::ast_node;

ast_node!(crate::nacl::NaclLanguage, /** A whole file. */ SourceFile, SOURCE_FILE);
ast_node!(crate::nacl::NaclLanguage, /** A block: labels and a body. */ Block, BLOCK);
ast_node!(crate::nacl::NaclLanguage, /** One label of a block header. */ Label, LABEL);
ast_node!(crate::nacl::NaclLanguage, /** The `{ ... }` of a block. */ Body, BODY);
ast_node!(crate::nacl::NaclLanguage, /** `key = value`. */ Attribute, ATTRIBUTE);
ast_node!(crate::nacl::NaclLanguage, /** The key of an attribute. */ Key, KEY);
ast_node!(crate::nacl::NaclLanguage, /** A single-line `"..."` string. */ StringLit, STRING);
ast_node!(crate::nacl::NaclLanguage, /** A `'''` multiline string. */ MultilineString, MULTILINE_STRING);
ast_node!(crate::nacl::NaclLanguage, /** A `${ element.id }` template reference inside a string. */ Template, TEMPLATE);
ast_node!(crate::nacl::NaclLanguage, /** A number, `true` or `false`. */ Literal, LITERAL);
ast_node!(crate::nacl::NaclLanguage, /** A reference to an element ID. */ Reference, REFERENCE);
ast_node!(crate::nacl::NaclLanguage, /** A list `[ ... ]`. */ List, LIST);
ast_node!(crate::nacl::NaclLanguage, /** An object `{ key = value ... }`. */ Object, OBJECT);
ast_node!(crate::nacl::NaclLanguage, /** A function call such as `file("a.txt")`. */ Call, CALL);

fn child<N: AstNode<Language = crate::nacl::NaclLanguage>>(node: &SyntaxNode) -> Option<N> {
    node.children().find_map(N::cast)
}

fn children<N: AstNode<Language = crate::nacl::NaclLanguage>>(node: &SyntaxNode) -> impl Iterator<Item = N> + use<N> {
    node.children().filter_map(N::cast)
}

fn token(node: &SyntaxNode, kind: SyntaxKind) -> Option<SyntaxToken> {
    node.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == kind)
}

impl SourceFile {
    /// The top-level blocks, in order.
    pub fn blocks(&self) -> impl Iterator<Item = Block> + use<> {
        children(&self.0)
    }
}

/// What a top-level block defines, decided from its labels as Salto does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TopLevelKind {
    /// `type <name> [is <category>]`.
    Type,
    /// `settings <name> [is ...]`.
    SettingsType,
    /// `vars`.
    Vars,
    /// `<type> <name>`.
    Instance,
    /// `<type>` alone: a settings or adapter-config instance.
    SettingsInstance,
    /// No labels, or labels that fit no form.
    Invalid,
}

impl Block {
    /// The labels of the header, in order.
    pub fn labels(&self) -> impl Iterator<Item = Label> + use<> {
        children(&self.0)
    }

    /// The body, if the header was followed by `{`.
    pub fn body(&self) -> Option<Body> {
        child(&self.0)
    }

    /// The decoded label texts.
    pub fn label_texts(&self) -> Vec<String> {
        self.labels().map(|l| l.text().into_owned()).collect()
    }

    /// What this block defines when it stands at top level.
    pub fn top_level_kind(&self) -> TopLevelKind {
        let labels = self.label_texts();
        TopLevelKind::of_labels(&labels.iter().map(String::as_str).collect::<Vec<_>>())
    }
}

impl TopLevelKind {
    /// What a top-level block with these labels defines.
    pub fn of_labels(labels: &[&str]) -> TopLevelKind {
        match labels {
            [] => TopLevelKind::Invalid,
            ["vars"] => TopLevelKind::Vars,
            ["type", _] | ["type", "is", ..] | ["type", _, "is", _] => TopLevelKind::Type,
            ["type", ..] => TopLevelKind::Invalid,
            ["settings", _] | ["settings", _, "is", _] => TopLevelKind::SettingsType,
            ["settings", ..] => TopLevelKind::Invalid,
            [_] => TopLevelKind::SettingsInstance,
            [_, _] => TopLevelKind::Instance,
            _ => TopLevelKind::Invalid,
        }
    }
}

/// The text of a label or key: the word as written, or the decoded string.
fn name_text(node: &SyntaxNode) -> Cow<'static, str> {
    match child::<StringLit>(node) {
        Some(s) => Cow::Owned(s.value()),
        None => Cow::Owned(node.text().to_string()),
    }
}

impl Label {
    /// The label's text: the word, or the decoded string.
    pub fn text(&self) -> Cow<'_, str> {
        name_text(&self.0)
    }

    /// The quoted string, when the label is quoted.
    pub fn string(&self) -> Option<StringLit> {
        child(&self.0)
    }
}

/// An item of a block body.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BodyItem {
    /// `key = value`.
    Attribute(Attribute),
    /// A nested block.
    Block(Block),
}

impl Body {
    /// Attributes and nested blocks, in order.
    pub fn items(&self) -> impl Iterator<Item = BodyItem> + use<> {
        self.0.children().filter_map(|node| match node.kind() {
            ATTRIBUTE => Attribute::cast(node).map(BodyItem::Attribute),
            BLOCK => Block::cast(node).map(BodyItem::Block),
            _ => None,
        })
    }

    /// The attributes, in order.
    pub fn attributes(&self) -> impl Iterator<Item = Attribute> + use<> {
        children(&self.0)
    }

    /// The nested blocks, in order.
    pub fn blocks(&self) -> impl Iterator<Item = Block> + use<> {
        children(&self.0)
    }

    /// The closing `}`, if present.
    pub fn r_brace(&self) -> Option<SyntaxToken> {
        token(&self.0, R_BRACE)
    }
}

impl Attribute {
    /// The key.
    pub fn key(&self) -> Option<Key> {
        child(&self.0)
    }

    /// The value, if one was written.
    pub fn value(&self) -> Option<Value> {
        self.0.children().find_map(Value::cast)
    }
}

impl Key {
    /// The key's text: the word, or the decoded string.
    pub fn text(&self) -> Cow<'_, str> {
        name_text(&self.0)
    }

    /// The quoted string, when the key is quoted.
    pub fn string(&self) -> Option<StringLit> {
        child(&self.0)
    }
}

/// A value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// `"..."`.
    String(StringLit),
    /// `'''` ... `'''`.
    Multiline(MultilineString),
    /// A number or a boolean.
    Literal(Literal),
    /// An element ID.
    Reference(Reference),
    /// `[ ... ]`.
    List(List),
    /// `{ ... }`.
    Object(Object),
    /// `name(args)`.
    Call(Call),
}

impl Value {
    /// Wraps a node that is a value.
    pub fn cast(node: SyntaxNode) -> Option<Value> {
        Some(match node.kind() {
            STRING => Value::String(StringLit(node)),
            MULTILINE_STRING => Value::Multiline(MultilineString(node)),
            LITERAL => Value::Literal(Literal(node)),
            REFERENCE => Value::Reference(Reference(node)),
            LIST => Value::List(List(node)),
            OBJECT => Value::Object(Object(node)),
            CALL => Value::Call(Call(node)),
            _ => return None,
        })
    }

    /// The underlying node.
    pub fn syntax(&self) -> &SyntaxNode {
        match self {
            Value::String(n) => n.syntax(),
            Value::Multiline(n) => n.syntax(),
            Value::Literal(n) => n.syntax(),
            Value::Reference(n) => n.syntax(),
            Value::List(n) => n.syntax(),
            Value::Object(n) => n.syntax(),
            Value::Call(n) => n.syntax(),
        }
    }
}

/// A piece of a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StringPart {
    /// Literal text.
    Text(SyntaxToken),
    /// An escape sequence.
    Escape(SyntaxToken),
    /// A `${ }` template reference.
    Template(Template),
}

fn string_parts(node: &SyntaxNode) -> impl Iterator<Item = StringPart> + use<> {
    node.children_with_tokens().filter_map(|element| match element {
        rowan::NodeOrToken::Node(node) => Template::cast(node).map(StringPart::Template),
        rowan::NodeOrToken::Token(token) => match token.kind() {
            STRING_TEXT => Some(StringPart::Text(token)),
            ESCAPE => Some(StringPart::Escape(token)),
            _ => None,
        },
    })
}

/// Feeds the parts of a string to `decoder`, writing templates back as `${ id }`.
fn push_parts(decoder: &mut StringDecoder, parts: impl Iterator<Item = StringPart>, multiline: bool) {
    for part in parts {
        match part {
            StringPart::Text(t) | StringPart::Escape(t) => decoder.push_piece(t.kind(), t.text(), multiline),
            StringPart::Template(t) => {
                let id = t.id();
                let id = id.as_ref().map_or("", |id| id.text());
                decoder.push_multiline_piece(STRING_TEXT, &format!("${{ {id} }}"));
            }
        }
    }
}

impl StringLit {
    /// The text, escapes, and templates, in order.
    pub fn parts(&self) -> impl Iterator<Item = StringPart> + use<> {
        string_parts(&self.0)
    }

    /// Whether the closing `"` is present.
    pub fn is_terminated(&self) -> bool {
        self.0.children_with_tokens().filter(|e| e.kind() == QUOTE).count() == 2
    }

    /// The decoded value, templates written as `${ id }`. Invalid escapes decode to U+FFFD.
    pub fn value(&self) -> String {
        let mut decoder = StringDecoder::default();
        push_parts(&mut decoder, self.parts(), false);
        decoder.finish()
    }

    /// Whether the string holds `${ }` template references.
    pub fn has_templates(&self) -> bool {
        self.parts().any(|p| matches!(p, StringPart::Template(_)))
    }
}

impl MultilineString {
    /// The text, escapes, and templates, in order.
    pub fn parts(&self) -> impl Iterator<Item = StringPart> + use<> {
        string_parts(&self.0)
    }

    /// Whether the closing `'''` is present.
    pub fn is_terminated(&self) -> bool {
        token(&self.0, MULTILINE_CLOSE).is_some()
    }

    /// The decoded value: the content lines verbatim (a `\r` before a line's `\n` stays, as in
    /// Salto), without the `\n` that ends the last content line.
    pub fn value(&self) -> String {
        let mut decoder = StringDecoder::default();
        push_parts(&mut decoder, self.parts(), true);
        decoder.finish_multiline()
    }
}

impl Template {
    /// The element ID token inside `${ }`.
    pub fn id(&self) -> Option<SyntaxToken> {
        token(&self.0, IDENT)
    }
}

/// The value of a literal.
#[derive(Debug, Clone, PartialEq)]
pub enum LiteralValue {
    /// A number as written (keep the spelling; parse with [`str::parse`] when needed).
    Number(String),
    /// `true` or `false`.
    Bool(bool),
}

impl Literal {
    /// The literal's token.
    pub fn token(&self) -> Option<SyntaxToken> {
        self.0.children_with_tokens().filter_map(|e| e.into_token()).find(|t| !t.kind().is_trivia())
    }

    /// What the literal holds.
    pub fn value(&self) -> Option<LiteralValue> {
        let token = self.token()?;
        match (token.kind(), token.text()) {
            (IDENT, "true") => Some(LiteralValue::Bool(true)),
            (IDENT, "false") => Some(LiteralValue::Bool(false)),
            (NUMBER, text) => Some(LiteralValue::Number(text.to_owned())),
            _ => None,
        }
    }
}

impl Reference {
    /// The element ID token.
    pub fn id(&self) -> Option<SyntaxToken> {
        token(&self.0, IDENT)
    }
}

impl List {
    /// The items, in order.
    pub fn items(&self) -> impl Iterator<Item = Value> + use<> {
        self.0.children().filter_map(Value::cast)
    }
}

impl Object {
    /// The entries, in order.
    pub fn attributes(&self) -> impl Iterator<Item = Attribute> + use<> {
        children(&self.0)
    }
}

impl Call {
    /// The function name token.
    pub fn name(&self) -> Option<SyntaxToken> {
        token(&self.0, IDENT)
    }

    /// The arguments, in order.
    pub fn args(&self) -> impl Iterator<Item = Value> + use<> {
        self.0
            .children()
            .find(|n| n.kind() == ARG_LIST)
            .into_iter()
            .flat_map(|args| args.children().filter_map(Value::cast))
    }
}
