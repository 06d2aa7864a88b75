//! Syntax errors and the one list of their stable codes.

use rowan::{TextRange, TextSize};
use std::fmt;

macro_rules! error_codes {
    ($( $(#[doc = $doc:literal])* $name:ident = $code:literal, $summary:literal; )*) => {
        /// The stable code of every diagnostic nacl-ls reports, in one list.
        ///
        /// Codes never change meaning once released. The letter gives the severity (`E` error,
        /// `W` warning, `I` information); then `00xx` are file errors, `01xx` lexical errors,
        /// `02xx` grammar errors, `03xx` errors in the structure NaCl gives to blocks (these four
        /// groups come from the parser), `04xx` conflicts between the fragments of an element,
        /// `05xx` references, and `06xx` values that do not fit their types.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ErrorCode {
            $( $(#[doc = $doc])* $name, )*
        }

        impl ErrorCode {
            /// Every code, in order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$name,)*];

            /// The code as printed, such as `E0101`.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$name => $code,)* }
            }

            /// A short summary of what the code means.
            pub fn summary(self) -> &'static str {
                match self { $(ErrorCode::$name => $summary,)* }
            }
        }
    };
}

error_codes! {
    /// A file that cannot be read.
    UnreadableFile = "E0001", "unreadable file";
    /// A file that is not valid UTF-8.
    InvalidUtf8 = "E0002", "file is not UTF-8";
    /// A file larger than nacl-ls analyses.
    FileTooLarge = "E0003", "file too large";
    /// A workspace with more files or bytes than nacl-ls reads in one folder.
    WorkspaceTooLarge = "E0004", "workspace too large";

    /// A `"` string runs into the end of its line.
    UnterminatedString = "E0101", "unterminated string";
    /// A backslash escape that JSON does not define, or a short `\u` escape.
    InvalidEscape = "E0102", "invalid escape sequence";
    /// A raw control character (such as a tab) inside a `"` string.
    ControlCharacter = "E0103", "control character in a string";
    /// A `'''` string with no closing `'''` line.
    UnterminatedMultiline = "E0104", "unterminated multiline string";
    /// Text after an opening `'''` on the same line.
    MultilineOpen = "E0105", "invalid multiline string start";
    /// A `#` or `/* */` comment: NaCl only has `//` comments.
    UnsupportedComment = "E0106", "unsupported comment syntax";
    /// Git merge-conflict markers.
    MergeConflict = "E0107", "unresolved merge conflict";
    /// A character that cannot start any token.
    UnexpectedCharacter = "E0108", "unexpected character";
    /// A number with a leading zero such as `007`.
    InvalidNumber = "E0109", "invalid number";

    /// A block with no labels, such as `{ ... }` at top level.
    MissingLabels = "E0201", "block without labels";
    /// Block labels not followed by `{`.
    ExpectedBlockBody = "E0202", "expected `{`";
    /// A block, object, list or argument list that is never closed.
    Unclosed = "E0203", "unclosed delimiter";
    /// A closing `}`, `]` or `)` that closes nothing.
    UnexpectedClose = "E0204", "unexpected closing delimiter";
    /// `key = value` outside any block.
    TopLevelAttribute = "E0205", "attribute at top level";
    /// Something in a block body that is neither an attribute nor a block.
    ExpectedItem = "E0206", "expected an attribute or a block";
    /// A missing or malformed value.
    ExpectedValue = "E0207", "expected a value";
    /// Two list items or arguments with no comma between them.
    ExpectedComma = "E0208", "expected a comma";
    /// Two object entries on one line, or a comma between object entries.
    ExpectedNewline = "E0209", "expected a new line";
    /// An object entry or attribute without `=`.
    ExpectedEquals = "E0210", "expected `=`";
    /// An attribute key that is not a word or a quoted string.
    InvalidKey = "E0211", "invalid attribute key";
    /// Values nested deeper than the parser follows.
    NestingTooDeep = "E0212", "nesting too deep";
    /// `List<...>` or `Map<...>` written without quotes.
    UnquotedGenericType = "E0213", "generic type must be quoted";

    /// A `type` header that is not `type <name>` or `type <name> is <category>`.
    InvalidTypeHeader = "E0301", "invalid type definition";
    /// A `settings` header that is not `settings <name>`.
    InvalidSettingsHeader = "E0302", "invalid settings type definition";
    /// An instance header with more than two labels.
    InvalidInstanceHeader = "E0303", "invalid instance definition";
    /// `type x is <word>` with a word that is no category.
    UnknownPrimitiveType = "E0304", "unknown primitive type";
    /// `settings x is string` and the like.
    PrimitiveSettings = "E0305", "settings types cannot be primitive";
    /// A type name with more than two dot-separated parts.
    InvalidTypeName = "E0306", "invalid type name";
    /// A meta type that is not a type ID.
    InvalidMetaType = "E0307", "invalid meta type";
    /// `${ }` inside a block label or a key.
    TemplateInLabel = "E0308", "template in a label";
    /// A `vars` block item that is not `name = value`.
    InvalidVariable = "E0309", "invalid variable definition";
    /// An item of an `annotations` block that is not `<type> <name> { }`.
    InvalidAnnotationsItem = "E0310", "invalid annotations block item";
    /// A second `annotations` block in one type block.
    DuplicateAnnotationsBlock = "E0311", "duplicate annotations block";
    /// A block nested inside a field or an annotation type.
    InvalidNestedBlock = "E0312", "invalid nested block";
    /// A field block inside a primitive type.
    FieldInPrimitiveType = "E0313", "field in a primitive type";
    /// A block inside an instance.
    BlockInInstance = "E0314", "block in an instance";
    /// A key set twice in one body or object.
    DuplicateAttribute = "E0315", "duplicate attribute";
    /// A field defined twice in one block.
    DuplicateField = "E0316", "duplicate field";
    /// A block in a type body that is not `annotations` nor `<type> <name>`.
    InvalidFieldHeader = "E0317", "invalid field definition";
    /// A call to a function NaCl does not have.
    UnknownFunction = "E0318", "unknown function";
    /// A call with the wrong number or kind of arguments.
    InvalidArguments = "E0319", "invalid function arguments";

    /// A value, annotation or field annotation set in two fragments of one element.
    DuplicateValue = "E0401", "value set twice across fragments";
    /// A field declared with different types in different fragments.
    ConflictingFieldTypes = "E0402", "conflicting field types";
    /// An annotation type declared in two fragments of one type.
    DuplicateAnnotationType = "E0403", "annotation type declared twice";
    /// Fragments of one type that disagree on its meta type.
    ConflictingMetaType = "E0404", "conflicting meta types";
    /// Fragments of one type, some `settings` and some `type`.
    ConflictingSettings = "E0405", "conflicting settings definitions";
    /// Fragments of one primitive type with different categories.
    ConflictingPrimitive = "E0406", "conflicting primitive categories";
    /// An object type and a primitive type with one name.
    ConflictingTypeKinds = "E0407", "object and primitive type with one name";
    /// A variable defined twice.
    DuplicateVariable = "E0408", "variable defined twice";

    /// A reference to an element or value that does not exist.
    UnresolvedReference = "W0501", "unresolved reference";
    /// A reference that is not a legal element ID.
    IllegalReference = "W0502", "illegal reference";
    /// A reference whose value leads back to itself through references.
    CircularReference = "W0503", "circular reference";

    /// A value whose kind does not fit its field's primitive type.
    InvalidValueType = "W0601", "value of the wrong type";
    /// A field with `_required = true` that an instance does not set.
    MissingRequiredField = "W0602", "missing required field";
    /// A value outside its field's `_restriction`.
    RestrictionViolation = "W0603", "value outside its restriction";
    /// A key a type with `_additional_properties = false` does not declare.
    AdditionalProperty = "W0604", "undeclared key in a closed type";
    /// An instance whose type does not exist: not in NaCl nor in Salto's state (or, without
    /// state, a likely typo of a type of its adapter).
    MissingType = "W0605", "instance type does not exist";
    /// A `file()` call whose target is not in the static-resources folder.
    MissingStaticFile = "E0606", "missing static file";
    /// A `file()` call whose path leaves the static-resources folder.
    StaticFileOutsideWorkspace = "E0607", "static file outside the workspace";
    /// An instance whose type is in Salto's state but not hidden there, and not in NaCl: Salto
    /// does not merge such types, so the instance is not type-checked.
    TypeOnlyInState = "I0608", "instance type only in state";
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Something Salto rejects or reads differently from what was written.
    Error,
    /// Something probably wrong that Salto accepts.
    Warning,
    /// Something worth knowing.
    Info,
}

impl ErrorCode {
    /// The severity, given by the code's letter.
    pub fn severity(self) -> Severity {
        match self.as_str().as_bytes()[0] {
            b'W' => Severity::Warning,
            b'I' => Severity::Info,
            _ => Severity::Error,
        }
    }

    /// Whether the parser reports this code (file, lexical, grammar and block-structure errors).
    pub fn is_syntax(self) -> bool {
        matches!(&self.as_str()[1..3], "00" | "01" | "02" | "03")
    }

    /// Whether this error means the tree may not say what the author meant (file, lexical and
    /// grammar errors, not block-structure ones).
    pub fn breaks_tree(self) -> bool {
        matches!(&self.as_str()[1..3], "00" | "01" | "02")
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error found while lexing, parsing or validating the structure of one file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SyntaxError {
    /// What kind of error this is.
    pub code: ErrorCode,
    /// Where it is, in bytes.
    pub range: TextRange,
    /// What is wrong, and where possible what was expected, in words for the user.
    pub message: String,
}

impl SyntaxError {
    /// Creates an error.
    pub fn new(code: ErrorCode, range: TextRange, message: impl Into<String>) -> SyntaxError {
        SyntaxError { code, range, message: message.into() }
    }

    /// Creates an error at a single position.
    pub fn at(code: ErrorCode, offset: TextSize, message: impl Into<String>) -> SyntaxError {
        SyntaxError::new(code, TextRange::empty(offset), message)
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?}: {}", self.code, self.range, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn readme_lists_every_code() {
        let readme = include_str!("../../README.md");
        for code in ErrorCode::ALL {
            let row = format!("| {} | {} |", code.as_str(), code.summary());
            assert!(readme.contains(&row), "README.md lacks the row `{row}`");
        }
    }

    #[test]
    fn codes_are_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for code in ErrorCode::ALL {
            let s = code.as_str();
            assert!(seen.insert(s), "duplicate code {s}");
            assert!(s.len() == 5 && s.starts_with(['E', 'W', 'I']) && s[1..].bytes().all(|b| b.is_ascii_digit()));
        }
    }
}
