//! The kinds of tokens and nodes in an ARMLang tree, and the rowan language tag.

crate::base::kinds::language_kinds! {
    /// The rowan language tag for ARMLang trees.
    language ArmLanguage;
    /// Every kind of token and node in an ARMLang syntax tree. Tokens come first, nodes after
    /// `SOURCE_FILE`.
    kinds {
    /// Spaces and tabs inside a line.
    WHITESPACE,
    /// A line break (`\n` or `\r\n`).
    NEWLINE,
    /// A `//` comment, up to (not including) the line break.
    LINE_COMMENT,
    /// A `/* ... */` comment.
    BLOCK_COMMENT,
    /// An identifier: an ASCII letter or `_`, then letters, digits or `_` (keywords included).
    IDENT,
    /// A JSON number literal without its sign, such as `1.5e3`.
    NUMBER,
    /// The `'` that opens a string.
    STRING_START,
    /// Literal text of a string (escape sequences included).
    STRING_TEXT,
    /// `${` opening an interpolation.
    INTERP_START,
    /// The `}` closing an interpolation.
    INTERP_END,
    /// The `'` that closes a string.
    STRING_END,
    /// A whole `'''...'''` multi-line string (no escapes, no interpolation).
    MULTILINE_STRING,
    /// `{`
    L_BRACE,
    /// `}`
    R_BRACE,
    /// `[`
    L_BRACK,
    /// `]`
    R_BRACK,
    /// `(`
    L_PAREN,
    /// `)`
    R_PAREN,
    /// `,`
    COMMA,
    /// `.`
    DOT,
    /// `:`
    COLON,
    /// `?`
    QUESTION,
    /// `+`
    PLUS,
    /// `-`
    MINUS,
    /// `*`
    STAR,
    /// `!`
    BANG,
    /// `==`
    EQ2,
    /// `!=`
    NEQ,
    /// `=~`
    EQ_TILDE,
    /// `!~`
    NOT_TILDE,
    /// `&&`
    AND,
    /// `||`
    OR,
    /// A character no token starts with.
    ERROR_TOKEN,

    /// The whole file: its declarations.
    SOURCE_FILE,
    /// `input <type> <name> [: <default>]`.
    INPUT_DECL,
    /// `output <name>: <value>`.
    OUTPUT_DECL,
    /// `variable <name>: <value>`.
    VARIABLE_DECL,
    /// `resource <provider> '<type>@<apiVersion>' <name>: <value>`.
    RESOURCE_DECL,
    /// `for <item>[, <index>] in <collection> [as <name>] { ... }`.
    FOR_LOOP,
    /// A loop's `{ ... }` with its declarations.
    LOOP_BODY,
    /// The identifier a declaration, a loop or a loop variable introduces.
    NAME,
    /// An input's type.
    INPUT_TYPE,
    /// A resource's provider.
    PROVIDER,
    /// A resource's `'<type>@<apiVersion>'`.
    RESOURCE_TYPE,
    /// `true`, `false`, `null` or a number.
    LITERAL,
    /// A string, single-quoted or multi-line.
    STRING,
    /// `${ expression }` in a string.
    INTERPOLATION,
    /// An identifier used as an expression.
    NAME_REF,
    /// `{ key: value ... }`.
    OBJECT,
    /// One `key: value` of an object.
    PROPERTY,
    /// A property's key: an identifier or a string.
    PROPERTY_KEY,
    /// `[ item ... ]`.
    ARRAY,
    /// `( expression )`.
    PAREN_EXPR,
    /// `!x` or `-x`.
    UNARY_EXPR,
    /// `a op b`.
    BINARY_EXPR,
    /// `c ? a : b`.
    TERNARY_EXPR,
    /// `expression.name`.
    PROPERTY_ACCESS,
    /// `expression[index]`.
    INDEX_ACCESS,
    /// `function(args)` or `expression.member(args)`.
    CALL,
    /// A call's `(arguments)`.
    ARG_LIST,
    /// Tokens the parser could not place, kept so the tree stays lossless.
    ERROR,
    }
}

use SyntaxKind::*;

impl SyntaxKind {
    /// Whether this kind is trivia everywhere (spaces and comments, not line breaks).
    pub fn is_trivia(self) -> bool {
        matches!(self, WHITESPACE | LINE_COMMENT | BLOCK_COMMENT)
    }

    /// Whether this kind is a declaration.
    pub fn is_declaration(self) -> bool {
        matches!(self, INPUT_DECL | OUTPUT_DECL | VARIABLE_DECL | RESOURCE_DECL | FOR_LOOP)
    }
}

impl crate::base::cursor::CursorKind for SyntaxKind {
    const NEWLINE: SyntaxKind = NEWLINE;

    fn is_trivia_kind(self) -> bool {
        self.is_trivia()
    }
}
