//! The kinds of tokens and nodes in an HCL native-syntax tree, and the rowan language tag.

crate::base::kinds::language_kinds! {
    /// The rowan language tag for HCL trees.
    language HclLanguage;
    /// Every kind of token and node in an HCL syntax tree. Tokens come first, nodes after
    /// `SOURCE_FILE`.
    kinds {
    /// Spaces and tabs inside a line.
    WHITESPACE,
    /// A line break (`\n` or `\r\n`).
    NEWLINE,
    /// A `#` or `//` comment, up to (not including) the line break.
    LINE_COMMENT,
    /// A `/* ... */` comment.
    BLOCK_COMMENT,
    /// An identifier: Unicode `ID_Start` then `ID_Continue` or `-` (keywords included).
    IDENT,
    /// A number literal such as `1.5e3`.
    NUMBER,
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
    /// `...`
    ELLIPSIS,
    /// `=`
    EQ,
    /// `:`
    COLON,
    /// `?`
    QUESTION,
    /// `=>`
    FAT_ARROW,
    /// `+`
    PLUS,
    /// `-`
    MINUS,
    /// `*`
    STAR,
    /// `/`
    SLASH,
    /// `%`
    PERCENT,
    /// `&&`
    AND,
    /// `||`
    OR,
    /// `!`
    BANG,
    /// `==`
    EQ2,
    /// `!=`
    NEQ,
    /// `<`
    LT,
    /// `>`
    GT,
    /// `<=`
    LTEQ,
    /// `>=`
    GTEQ,
    /// The `"` that opens a quoted template.
    OPEN_QUOTE,
    /// The `"` that closes a quoted template.
    CLOSE_QUOTE,
    /// Literal text of a template (escape sequences included).
    TEMPLATE_TEXT,
    /// `${` opening an interpolation.
    INTERP_OPEN,
    /// `%{` opening a template directive.
    DIRECTIVE_OPEN,
    /// The `}` closing an interpolation or a directive.
    TEMPLATE_CLOSE,
    /// A `~` strip marker beside `${`, `%{` or their `}`.
    STRIP,
    /// `<<EOT` or `<<-EOT` with the line break that ends it.
    HEREDOC_OPEN,
    /// The line that closes a heredoc: optional spaces and the marker.
    HEREDOC_CLOSE,
    /// A character no token starts with.
    ERROR_TOKEN,

    /// The whole file: a body's items.
    SOURCE_FILE,
    /// `name = expression`.
    ATTRIBUTE,
    /// `type label... { body }`.
    BLOCK,
    /// A block's `{ ... }` with its items.
    BODY,
    /// A quoted block label.
    STRING_LIT,
    /// `true`, `false`, `null` or a number.
    LITERAL,
    /// A quoted template `"..."`.
    TEMPLATE,
    /// A heredoc template.
    HEREDOC,
    /// `${ expression }` in a template.
    INTERPOLATION,
    /// `%{ if c }...%{ else }...%{ endif }` in a template.
    TEMPLATE_IF,
    /// `%{ for k, v in c }...%{ endfor }` in a template.
    TEMPLATE_FOR,
    /// One `%{ ... }` tag of a directive.
    DIRECTIVE,
    /// A variable name used as an expression.
    VARIABLE,
    /// `name(args)`.
    CALL,
    /// A call's `(arguments)`.
    ARG_LIST,
    /// `[a, b]`.
    TUPLE,
    /// `{ k = v }`.
    OBJECT,
    /// One `key = value` or `key: value` of an object.
    OBJECT_ITEM,
    /// An object item's key.
    OBJECT_KEY,
    /// `[for ...: v]` or `{for ...: k => v}`.
    FOR_EXPR,
    /// `for k, v in collection :` of a for expression.
    FOR_INTRO,
    /// `if condition` of a for expression.
    FOR_COND,
    /// `( expression )`.
    PAREN_EXPR,
    /// `expression.name` or the legacy `expression.0`.
    GET_ATTR,
    /// `expression[key]`.
    INDEX,
    /// `expression.*` or `expression[*]` and the traversal that follows.
    SPLAT,
    /// `-x` or `!x`.
    UNARY_EXPR,
    /// `a op b`.
    BINARY_EXPR,
    /// `c ? a : b`.
    CONDITIONAL,
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
}

impl crate::base::cursor::CursorKind for SyntaxKind {
    const NEWLINE: SyntaxKind = NEWLINE;

    fn is_trivia_kind(self) -> bool {
        self.is_trivia()
    }
}
