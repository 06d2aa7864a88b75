//! The kinds of tokens and nodes in the NaCl concrete syntax tree, and the rowan language tag.

macro_rules! syntax_kinds {
    ($( $(#[doc = $doc:literal])* $name:ident, )*) => {
        /// Every kind of token and node in a NaCl syntax tree.
        ///
        /// Tokens come first, nodes after `SOURCE_FILE`. The tree is generic (blocks, bodies,
        /// attributes, values): what a block *means* in NaCl (type, field, instance, ...) is decided
        /// by [`crate::nacl::ast::TopLevelKind`], so the same node kinds can later serve plain HCL too.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(u16)]
        pub enum SyntaxKind {
            $( $(#[doc = $doc])* $name, )*
        }

        /// Every kind, indexed by its `u16` value.
        const ALL_KINDS: &[SyntaxKind] = &[$(SyntaxKind::$name,)*];
    };
}

syntax_kinds! {
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

use SyntaxKind::*;

impl SyntaxKind {
    /// Whether the parser skips this token everywhere (comments and whitespace, not line breaks).
    pub fn is_trivia(self) -> bool {
        matches!(self, WHITESPACE | COMMENT | HASH_COMMENT | BLOCK_COMMENT | CONFLICT_MARKER)
    }

    /// Whether this kind is a token (a leaf) rather than a node.
    pub fn is_token(self) -> bool {
        (self as u16) < (SOURCE_FILE as u16)
    }

    /// The kind with this raw value. Raw values only come from trees this crate built, so an
    /// unknown one is a bug, not bad input.
    fn from_raw(raw: u16) -> SyntaxKind {
        ALL_KINDS[usize::from(raw)]
    }
}

impl From<SyntaxKind> for rowan::SyntaxKind {
    fn from(kind: SyntaxKind) -> Self {
        rowan::SyntaxKind(kind as u16)
    }
}

/// The rowan language tag for NaCl trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NaclLanguage {}

impl rowan::Language for NaclLanguage {
    type Kind = SyntaxKind;

    fn kind_from_raw(raw: rowan::SyntaxKind) -> SyntaxKind {
        SyntaxKind::from_raw(raw.0)
    }

    fn kind_to_raw(kind: SyntaxKind) -> rowan::SyntaxKind {
        kind.into()
    }
}

/// A node of a NaCl syntax tree.
pub type SyntaxNode = rowan::SyntaxNode<NaclLanguage>;
/// A token of a NaCl syntax tree.
pub type SyntaxToken = rowan::SyntaxToken<NaclLanguage>;
/// A node or a token of a NaCl syntax tree.
pub type SyntaxElement = rowan::SyntaxElement<NaclLanguage>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_table_is_dense() {
        for (i, kind) in ALL_KINDS.iter().enumerate() {
            assert_eq!(*kind as usize, i);
        }
    }
}
