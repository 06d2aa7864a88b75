//! The stable codes of the NaCl parser's errors.

use crate::diagnostic_codes;

diagnostic_codes! {
    /// The code of every error the NaCl parser reports: `01xx` lexical errors, `02xx` grammar
    /// errors, `03xx` errors in the structure NaCl gives to blocks. All are errors (`E`).
    pub enum ErrorCode;
    /// A `"` string runs into the end of its line.
    UnterminatedString = "E0101", Error, Parse, "unterminated string";
    /// A backslash escape that JSON does not define, or a short `\u` escape.
    InvalidEscape = "E0102", Error, Parse, "invalid escape sequence";
    /// A raw control character (such as a tab) inside a `"` string.
    ControlCharacter = "E0103", Error, Parse, "control character in a string";
    /// A `'''` string with no closing `'''` line.
    UnterminatedMultiline = "E0104", Error, Parse, "unterminated multiline string";
    /// Text after an opening `'''` on the same line.
    MultilineOpen = "E0105", Error, Parse, "invalid multiline string start";
    /// A `#` or `/* */` comment: NaCl only has `//` comments.
    UnsupportedComment = "E0106", Error, Parse, "unsupported comment syntax";
    /// Git merge-conflict markers.
    MergeConflict = "E0107", Error, Parse, "unresolved merge conflict";
    /// A character that cannot start any token.
    UnexpectedCharacter = "E0108", Error, Parse, "unexpected character";
    /// A number with a leading zero such as `007`.
    InvalidNumber = "E0109", Error, Parse, "invalid number";

    /// A block with no labels, such as `{ ... }` at top level.
    MissingLabels = "E0201", Error, Parse, "block without labels";
    /// Block labels not followed by `{`.
    ExpectedBlockBody = "E0202", Error, Parse, "expected `{`";
    /// A block, object, list or argument list that is never closed.
    Unclosed = "E0203", Error, Parse, "unclosed delimiter";
    /// A closing `}`, `]` or `)` that closes nothing.
    UnexpectedClose = "E0204", Error, Parse, "unexpected closing delimiter";
    /// `key = value` outside any block.
    TopLevelAttribute = "E0205", Error, Parse, "attribute at top level";
    /// Something in a block body that is neither an attribute nor a block.
    ExpectedItem = "E0206", Error, Parse, "expected an attribute or a block";
    /// A missing or malformed value.
    ExpectedValue = "E0207", Error, Parse, "expected a value";
    /// Two list items or arguments with no comma between them.
    ExpectedComma = "E0208", Error, Parse, "expected a comma";
    /// Two object entries on one line, or a comma between object entries.
    ExpectedNewline = "E0209", Error, Parse, "expected a new line";
    /// An object entry or attribute without `=`.
    ExpectedEquals = "E0210", Error, Parse, "expected `=`";
    /// An attribute key that is not a word or a quoted string.
    InvalidKey = "E0211", Error, Parse, "invalid attribute key";
    /// Values nested deeper than the parser follows.
    NestingTooDeep = "E0212", Error, Parse, "nesting too deep";
    /// `List<...>` or `Map<...>` written without quotes.
    UnquotedGenericType = "E0213", Error, Parse, "generic type must be quoted";

    /// A `type` header that is not `type <name>` or `type <name> is <category>`.
    InvalidTypeHeader = "E0301", Error, Parse, "invalid type definition";
    /// A `settings` header that is not `settings <name>`.
    InvalidSettingsHeader = "E0302", Error, Parse, "invalid settings type definition";
    /// An instance header with more than two labels.
    InvalidInstanceHeader = "E0303", Error, Parse, "invalid instance definition";
    /// `type x is <word>` with a word that is no category.
    UnknownPrimitiveType = "E0304", Error, Parse, "unknown primitive type";
    /// `settings x is string` and the like.
    PrimitiveSettings = "E0305", Error, Parse, "settings types cannot be primitive";
    /// A type name with more than two dot-separated parts.
    InvalidTypeName = "E0306", Error, Parse, "invalid type name";
    /// A meta type that is not a type ID.
    InvalidMetaType = "E0307", Error, Parse, "invalid meta type";
    /// `${ }` inside a block label or a key.
    TemplateInLabel = "E0308", Error, Parse, "template in a label";
    /// A `vars` block item that is not `name = value`.
    InvalidVariable = "E0309", Error, Parse, "invalid variable definition";
    /// An item of an `annotations` block that is not `<type> <name> { }`.
    InvalidAnnotationsItem = "E0310", Error, Parse, "invalid annotations block item";
    /// A second `annotations` block in one type block.
    DuplicateAnnotationsBlock = "E0311", Error, Parse, "duplicate annotations block";
    /// A block nested inside a field or an annotation type.
    InvalidNestedBlock = "E0312", Error, Parse, "invalid nested block";
    /// A field block inside a primitive type.
    FieldInPrimitiveType = "E0313", Error, Parse, "field in a primitive type";
    /// A block inside an instance.
    BlockInInstance = "E0314", Error, Parse, "block in an instance";
    /// A key set twice in one body or object.
    DuplicateAttribute = "E0315", Error, Parse, "duplicate attribute";
    /// A field defined twice in one block.
    DuplicateField = "E0316", Error, Parse, "duplicate field";
    /// A block in a type body that is not `annotations` nor `<type> <name>`.
    InvalidFieldHeader = "E0317", Error, Parse, "invalid field definition";
    /// A call to a function NaCl does not have.
    UnknownFunction = "E0318", Error, Parse, "unknown function";
    /// A call with the wrong number or kind of arguments.
    InvalidArguments = "E0319", Error, Parse, "invalid function arguments";
}

impl ErrorCode {
    /// Whether this error means the tree may not say what the author meant (lexical and grammar
    /// errors, not block-structure ones).
    pub fn breaks_tree(self) -> bool {
        !matches!(&self.as_str()[1..3], "03")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_well_formed_and_in_the_readme() {
        let readme = include_str!("../../../README.md");
        crate::fixtures::check_codes(ErrorCode::ALL.iter().map(|c| c.code()), readme, &['E']);
    }
}
