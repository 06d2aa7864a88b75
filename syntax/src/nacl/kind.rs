//! The kinds of tokens and nodes in the NaCl concrete syntax tree, and the rowan language tag.

crate::base::kinds::language_kinds! {
    /// The rowan language tag for NaCl trees.
    language NaclLanguage;
    /// Every kind of token and node in a NaCl syntax tree.
    ///
    /// Tokens come first, nodes after `SOURCE_FILE`. What a block *means* in NaCl (type, field,
    /// instance, ...) is decided by [`crate::nacl::ast::TopLevelKind`].
    kinds {
    /// Spaces and tabs inside a line.
    WHITESPACE,
    /// One or more line breaks, with the indentation of the line that follows.
    NEWLINE,
    /// A `//` comment, up to (not including) the line break.
    COMMENT,
    /// A `#` comment: not NaCl, kept as trivia and reported.
    HASH_COMMENT,
    /// A `/* ... */` comment: not NaCl, kept as trivia and reported.
    BLOCK_COMMENT,
    /// A git merge-conflict region (`<<<<<<<` ... `>>>>>>>`) or a stray marker line.
    CONFLICT_MARKER,
    /// A word: `[a-zA-Z_][a-zA-Z0-9_.@]*` (keywords, names, dotted element IDs, `true`/`false`).
    IDENT,
    /// A number literal such as `-1.5e3`.
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
    /// `=`
    EQ,
    /// `"` opening or closing a single-line string.
    QUOTE,
    /// Literal text inside a string (for multiline strings, line breaks included).
    STRING_TEXT,
    /// An escape sequence inside a string, such as `\n`, `\u00e9`, `\${` or `\'''`.
    ESCAPE,
    /// `${` opening a template reference inside a string.
    TEMPLATE_START,
    /// `}` closing a template reference inside a string.
    TEMPLATE_END,
    /// `'''` opening a multiline string, with the rest of its line (spaces and the line break).
    MULTILINE_OPEN,
    /// `'''` closing a multiline string, with the indentation before it.
    MULTILINE_CLOSE,
    /// Characters that cannot start any token.
    ERROR_TOKEN,

    /// The root of a file.
    SOURCE_FILE,
    /// A block: labels then a body (`type salto.x { ... }`, `string name { ... }`).
    BLOCK,
    /// One label of a block header: an identifier or a quoted string.
    LABEL,
    /// `{ ... }` of a block: attributes and nested blocks.
    BODY,
    /// `key = value`.
    ATTRIBUTE,
    /// The key of an attribute: an identifier or a quoted string.
    KEY,
    /// A single-line string `"..."`.
    STRING,
    /// A multiline string `'''` ... `'''`.
    MULTILINE_STRING,
    /// A template reference `${ element.id }` inside a string.
    TEMPLATE,
    /// A number, `true` or `false`.
    LITERAL,
    /// A reference to an element ID, such as `salto.type.instance.name` or `var.x`.
    REFERENCE,
    /// A list `[a, b, ]`.
    LIST,
    /// An object `{ key = value ... }`.
    OBJECT,
    /// A function call such as `file("path")`.
    CALL,
    /// The parenthesised arguments of a call.
    ARG_LIST,
    /// Tokens the parser could not place, kept so the tree stays lossless.
    ERROR,
    }
}

use SyntaxKind::*;

impl SyntaxKind {
    /// Whether the parser skips this token everywhere (comments and whitespace, not line breaks).
    pub fn is_trivia(self) -> bool {
        matches!(self, WHITESPACE | COMMENT | HASH_COMMENT | BLOCK_COMMENT | CONFLICT_MARKER)
    }

    /// Whether a node of this kind is a value (what [`crate::nacl::ast::Value`] wraps).
    pub fn is_value(self) -> bool {
        matches!(self, STRING | MULTILINE_STRING | LITERAL | REFERENCE | LIST | OBJECT | CALL)
    }
}
