//! The stable codes of the HCL parser's errors: `H01xx` lexical, `H02xx` grammar, `H03xx`
//! structure.

use crate::diagnostic_codes;

diagnostic_codes! {
    /// The code of every error the HCL native-syntax parser reports.
    pub enum ErrorCode;
    /// A character that cannot start any token.
    InvalidCharacter = "H0101", Error, Parse, "invalid character";
    /// A quoted template that runs into the end of its line.
    UnterminatedString = "H0102", Error, Parse, "unterminated template string";
    /// A backslash escape HCL does not define.
    InvalidEscape = "H0103", Error, Parse, "invalid escape sequence";
    /// A heredoc whose closing marker never comes.
    UnterminatedHeredoc = "H0104", Error, Parse, "unterminated heredoc";
    /// A `/*` comment with no `*/`.
    UnterminatedComment = "H0105", Error, Parse, "unterminated comment";

    /// Something in a body that is neither an attribute nor a block.
    ExpectedItem = "H0201", Error, Parse, "argument or block definition required";
    /// More on the line after an attribute or a block.
    ExpectedNewline = "H0202", Error, Parse, "missing newline after argument or block";
    /// A block, object, tuple, call, parenthesis, template or interpolation never closed.
    Unclosed = "H0203", Error, Parse, "unclosed delimiter";
    /// A missing or malformed expression.
    ExpectedExpression = "H0204", Error, Parse, "invalid expression";
    /// Block labels not followed by `{`, or an invalid label.
    InvalidBlock = "H0205", Error, Parse, "invalid block definition";
    /// An attribute or object key name that is not an identifier where one is required.
    InvalidName = "H0206", Error, Parse, "invalid argument name";
    /// An object item without `=` or `:`.
    MissingKeyValueSeparator = "H0207", Error, Parse, "missing key/value separator";
    /// Two items of an object, tuple or argument list with no separator between them.
    MissingSeparator = "H0208", Error, Parse, "missing item separator";
    /// A one-line block with more than one attribute, or with a nested block.
    InvalidOneLineBlock = "H0209", Error, Parse, "invalid single-line block";
    /// A template directive out of place (`else` without `if`, a missing `endif`, ...).
    InvalidDirective = "H0210", Error, Parse, "invalid template directive";
    /// A malformed `for` expression.
    InvalidFor = "H0211", Error, Parse, "invalid for expression";
    /// Expressions nested deeper than the parser follows.
    NestingTooDeep = "H0212", Error, Parse, "nesting too deep";
    /// A `.` not followed by a name, a number or `*`.
    InvalidAttributeAccess = "H0213", Error, Parse, "invalid attribute access";
    /// An interpolation or directive in a block label.
    TemplateInLabel = "H0214", Error, Parse, "template in a block label";

    /// An attribute defined twice in one body.
    DuplicateAttribute = "H0301", Error, Parse, "attribute redefined";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_well_formed_and_in_the_readme() {
        let readme = include_str!("../../../README.md");
        crate::fixtures::check_codes(ErrorCode::ALL.iter().map(|c| c.code()), readme, &['H']);
    }
}
