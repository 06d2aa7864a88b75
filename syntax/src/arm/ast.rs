//! The typed AST of ARMLang: thin wrappers over CST nodes with `Option` accessors.
//!
//! Every accessor tolerates broken trees: a missing piece is `None`, never a panic.

use crate::arm::{
    ArmLanguage,
    SyntaxKind::{self, *},
    SyntaxNode, SyntaxToken,
};
use crate::base::kinds::ast_node;
use rowan::ast::AstNode;

ast_node!(ArmLanguage, /** A whole file: its declarations. */ SourceFile, SOURCE_FILE);
ast_node!(ArmLanguage, /** `input <type> <name> [: <default>]`. */ Input, INPUT_DECL);
ast_node!(ArmLanguage, /** `output <name>: <value>`. */ Output, OUTPUT_DECL);
ast_node!(ArmLanguage, /** `variable <name>: <value>`. */ Variable, VARIABLE_DECL);
ast_node!(ArmLanguage, /** `resource <provider> '<type>@<apiVersion>' <name>: <value>`. */ Resource, RESOURCE_DECL);
ast_node!(ArmLanguage, /** `for <item>[, <index>] in <collection> [as <name>] { ... }`. */ ForLoop, FOR_LOOP);
ast_node!(ArmLanguage, /** A loop's `{ ... }`. */ LoopBody, LOOP_BODY);
ast_node!(ArmLanguage, /** `{ key: value ... }`. */ Object, OBJECT);
ast_node!(ArmLanguage, /** One `key: value` of an object. */ Property, PROPERTY);
ast_node!(ArmLanguage, /** `[ item ... ]`. */ Array, ARRAY);
ast_node!(ArmLanguage, /** A string, single-quoted or multi-line. */ Str, STRING);
ast_node!(ArmLanguage, /** `${ expression }` in a string. */ Interpolation, INTERPOLATION);
ast_node!(ArmLanguage, /** `function(args)` or `expression.member(args)`. */ Call, CALL);

/// A declaration: what a file or a loop body holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Declaration {
    /// An input.
    Input(Input),
    /// An output.
    Output(Output),
    /// A variable.
    Variable(Variable),
    /// A resource.
    Resource(Resource),
    /// A loop.
    ForLoop(ForLoop),
}

impl Declaration {
    /// The declaration `node` is, if it is one.
    pub fn cast(node: SyntaxNode) -> Option<Declaration> {
        Some(match node.kind() {
            INPUT_DECL => Declaration::Input(Input(node)),
            OUTPUT_DECL => Declaration::Output(Output(node)),
            VARIABLE_DECL => Declaration::Variable(Variable(node)),
            RESOURCE_DECL => Declaration::Resource(Resource(node)),
            FOR_LOOP => Declaration::ForLoop(ForLoop(node)),
            _ => return None,
        })
    }

    /// Its node.
    pub fn syntax(&self) -> &SyntaxNode {
        match self {
            Declaration::Input(d) => d.syntax(),
            Declaration::Output(d) => d.syntax(),
            Declaration::Variable(d) => d.syntax(),
            Declaration::Resource(d) => d.syntax(),
            Declaration::ForLoop(d) => d.syntax(),
        }
    }

    /// The identifier it declares (a loop's is its `as` name).
    pub fn name(&self) -> Option<SyntaxToken> {
        match self {
            Declaration::ForLoop(l) => l.loop_name(),
            _ => names(self.syntax()).next(),
        }
    }

    /// The value after its `:` (an input's default; a loop has none).
    pub fn value(&self) -> Option<Expr> {
        match self {
            Declaration::ForLoop(_) => None,
            _ => self.syntax().children().find_map(Expr::cast),
        }
    }
}

fn declarations(node: &SyntaxNode) -> impl Iterator<Item = Declaration> + use<> {
    node.children().filter_map(Declaration::cast)
}

/// The identifiers of the `NAME` children of `node`.
fn names(node: &SyntaxNode) -> impl Iterator<Item = SyntaxToken> + use<> {
    node.children().filter(|n| n.kind() == NAME).filter_map(|n| ident_of(&n))
}

fn ident_of(node: &SyntaxNode) -> Option<SyntaxToken> {
    node.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == IDENT)
}

fn child_ident(node: &SyntaxNode, kind: SyntaxKind) -> Option<SyntaxToken> {
    node.children().find(|n| n.kind() == kind).and_then(|n| ident_of(&n))
}

impl SourceFile {
    /// The top-level declarations.
    pub fn declarations(&self) -> impl Iterator<Item = Declaration> + use<> {
        declarations(&self.0)
    }
}

impl LoopBody {
    /// The declarations inside the braces.
    pub fn declarations(&self) -> impl Iterator<Item = Declaration> + use<> {
        declarations(&self.0)
    }
}

impl Input {
    /// The input's type name (`string`, `int`, ...).
    pub fn ty(&self) -> Option<SyntaxToken> {
        child_ident(&self.0, INPUT_TYPE)
    }
}

impl Resource {
    /// The provider (`azrm`).
    pub fn provider(&self) -> Option<SyntaxToken> {
        child_ident(&self.0, PROVIDER)
    }

    /// The `'<type>@<apiVersion>'` string.
    pub fn type_string(&self) -> Option<Str> {
        self.0.children().find(|n| n.kind() == RESOURCE_TYPE)?.children().find_map(Str::cast)
    }

    /// The resource type and API version, split at the last `@` (the version empty without one).
    pub fn type_and_version(&self) -> Option<(String, String)> {
        let value = self.type_string()?.literal_value()?;
        Some(match value.rsplit_once('@') {
            Some((ty, version)) => (ty.to_owned(), version.to_owned()),
            None => (value, String::new()),
        })
    }
}

impl ForLoop {
    fn name_nodes(&self) -> (Option<SyntaxToken>, Option<SyntaxToken>, Option<SyntaxToken>) {
        let (mut item, mut index, mut name) = (None, None, None);
        let mut after_as = false;
        let mut after_comma = false;
        for element in self.0.children_with_tokens() {
            match element {
                rowan::NodeOrToken::Token(t) if t.kind() == IDENT && t.text() == "as" => after_as = true,
                rowan::NodeOrToken::Token(t) if t.kind() == COMMA => after_comma = true,
                rowan::NodeOrToken::Node(n) if n.kind() == NAME => {
                    let slot = if after_as {
                        &mut name
                    } else if after_comma {
                        &mut index
                    } else {
                        &mut item
                    };
                    *slot = ident_of(&n);
                }
                _ => {}
            }
        }
        (item, index, name)
    }

    /// The item variable.
    pub fn item(&self) -> Option<SyntaxToken> {
        self.name_nodes().0
    }

    /// The index variable, if any.
    pub fn index(&self) -> Option<SyntaxToken> {
        self.name_nodes().1
    }

    /// The `as` name, if any.
    pub fn loop_name(&self) -> Option<SyntaxToken> {
        self.name_nodes().2
    }

    /// The collection looped over.
    pub fn collection(&self) -> Option<Expr> {
        self.0.children().find_map(Expr::cast)
    }

    /// The body.
    pub fn body(&self) -> Option<LoopBody> {
        self.0.children().find_map(LoopBody::cast)
    }
}

impl Object {
    /// The properties, in order.
    pub fn properties(&self) -> impl Iterator<Item = Property> + use<> {
        self.0.children().filter_map(Property::cast)
    }
}

impl Property {
    /// The key's node (an identifier, or a string inside it).
    pub fn key_node(&self) -> Option<SyntaxNode> {
        self.0.children().find(|n| n.kind() == PROPERTY_KEY)
    }

    /// The key's name (a string key unescaped); `None` for a broken or interpolated key.
    pub fn key(&self) -> Option<String> {
        let key = self.key_node()?;
        match key.children().find_map(Str::cast) {
            Some(s) => s.literal_value(),
            None => ident_of(&key).map(|t| t.text().to_owned()),
        }
    }

    /// The value.
    pub fn value(&self) -> Option<Expr> {
        self.0.children().find_map(Expr::cast)
    }
}

impl Array {
    /// The items, in order.
    pub fn items(&self) -> impl Iterator<Item = Expr> + use<> {
        self.0.children().filter_map(Expr::cast)
    }
}

/// A piece of a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrPart {
    /// Literal text, unescaped.
    Text(String),
    /// An interpolation.
    Interpolation(Interpolation),
}

impl Str {
    /// The literal text and interpolations, in order (a multi-line string is one text).
    pub fn parts(&self) -> Vec<StrPart> {
        let mut parts = Vec::new();
        for element in self.0.children_with_tokens() {
            match element {
                rowan::NodeOrToken::Token(t) if t.kind() == STRING_TEXT => {
                    parts.push(StrPart::Text(super::lexer::unescape(t.text())))
                }
                rowan::NodeOrToken::Token(t) if t.kind() == MULTILINE_STRING => {
                    parts.push(StrPart::Text(multiline_value(t.text())))
                }
                rowan::NodeOrToken::Node(n) => parts.extend(Interpolation::cast(n).map(StrPart::Interpolation)),
                _ => {}
            }
        }
        parts
    }

    /// The value when the string has no interpolation.
    pub fn literal_value(&self) -> Option<String> {
        let mut value = String::new();
        for part in self.parts() {
            match part {
                StrPart::Text(text) => value.push_str(&text),
                StrPart::Interpolation(_) => return None,
            }
        }
        Some(value)
    }
}

/// The value of a `'''` string's token: the text between the quotes, without a line break right
/// after the opening quotes (as Bicep reads it).
pub fn multiline_value(token: &str) -> String {
    let inner = token.strip_prefix("'''").unwrap_or(token);
    let inner = inner.strip_suffix("'''").unwrap_or(inner);
    let inner = inner.strip_prefix("\r\n").or_else(|| inner.strip_prefix('\n')).unwrap_or(inner);
    inner.to_owned()
}

impl Interpolation {
    /// The expression inside.
    pub fn expr(&self) -> Option<Expr> {
        self.0.children().find_map(Expr::cast)
    }
}

impl Call {
    /// What is called: a function's name, or the member and the expression it is called on.
    pub fn callee(&self) -> Option<Expr> {
        self.0.children().find_map(Expr::cast)
    }

    /// The called name: the function's, or the member's.
    pub fn name(&self) -> Option<SyntaxToken> {
        match self.callee()? {
            Expr::NameRef(n) => ident_of(&n),
            Expr::PropertyAccess(n) => {
                n.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == IDENT).last()
            }
            _ => None,
        }
    }

    /// The expression a member function is called on (`res` in `res.id()`).
    pub fn receiver(&self) -> Option<Expr> {
        match self.callee()? {
            Expr::PropertyAccess(n) => n.children().find_map(Expr::cast),
            _ => None,
        }
    }

    /// The arguments.
    pub fn args(&self) -> Vec<Expr> {
        self.0
            .children()
            .find(|n| n.kind() == ARG_LIST)
            .map(|l| l.children().filter_map(Expr::cast).collect())
            .unwrap_or_default()
    }
}

/// An expression. Nodes of the other kinds are reached through their accessors.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Expr {
    /// `true`, `false`, `null` or a number.
    Literal(SyntaxNode),
    /// A string.
    Str(Str),
    /// An identifier.
    NameRef(SyntaxNode),
    /// An object.
    Object(Object),
    /// An array.
    Array(Array),
    /// `( x )`.
    Paren(SyntaxNode),
    /// `!x`, `-x`.
    Unary(SyntaxNode),
    /// `a op b`.
    Binary(SyntaxNode),
    /// `c ? a : b`.
    Ternary(SyntaxNode),
    /// `x.name`.
    PropertyAccess(SyntaxNode),
    /// `x[i]`.
    IndexAccess(SyntaxNode),
    /// `f(args)`, `x.member(args)`.
    Call(Call),
}

impl Expr {
    /// The expression `node` is, if it is one.
    pub fn cast(node: SyntaxNode) -> Option<Expr> {
        Some(match node.kind() {
            LITERAL => Expr::Literal(node),
            STRING => Expr::Str(Str(node)),
            NAME_REF => Expr::NameRef(node),
            OBJECT => Expr::Object(Object(node)),
            ARRAY => Expr::Array(Array(node)),
            PAREN_EXPR => Expr::Paren(node),
            UNARY_EXPR => Expr::Unary(node),
            BINARY_EXPR => Expr::Binary(node),
            TERNARY_EXPR => Expr::Ternary(node),
            PROPERTY_ACCESS => Expr::PropertyAccess(node),
            INDEX_ACCESS => Expr::IndexAccess(node),
            CALL => Expr::Call(Call(node)),
            _ => return None,
        })
    }

    /// Its node.
    pub fn syntax(&self) -> &SyntaxNode {
        match self {
            Expr::Str(s) => s.syntax(),
            Expr::Object(o) => o.syntax(),
            Expr::Array(a) => a.syntax(),
            Expr::Call(c) => c.syntax(),
            Expr::Literal(n)
            | Expr::NameRef(n)
            | Expr::Paren(n)
            | Expr::Unary(n)
            | Expr::Binary(n)
            | Expr::Ternary(n)
            | Expr::PropertyAccess(n)
            | Expr::IndexAccess(n) => n,
        }
    }

    /// The sub-expressions that are direct children (operands, the indexed value and the index, ...).
    pub fn operands(&self) -> Vec<Expr> {
        self.syntax().children().filter_map(Expr::cast).collect()
    }

    /// The first token that is not trivia nor a sub-expression: an operator, a literal, a name.
    pub fn operator(&self) -> Option<SyntaxToken> {
        self.syntax()
            .children_with_tokens()
            .filter_map(|e| e.into_token())
            .find(|t| !t.kind().is_trivia() && !matches!(t.kind(), NEWLINE | L_PAREN | R_PAREN | L_BRACK | R_BRACK))
    }

    /// The identifier of a name reference, or the property name of an access.
    pub fn ident(&self) -> Option<SyntaxToken> {
        match self {
            Expr::NameRef(n) => ident_of(n),
            Expr::PropertyAccess(n) => {
                n.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == IDENT).last()
            }
            _ => None,
        }
    }
}
