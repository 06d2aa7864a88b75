//! The stable codes of the ARMLang parser's errors: `A01xx` lexical, `A02xx` grammar.

use crate::diagnostic_codes;

diagnostic_codes! {
    /// The code of every error the ARMLang parser reports.
    pub enum ErrorCode;
    /// A character that cannot start any token.
    InvalidCharacter = "A0101", Error, Parse, "invalid character";
    /// A single-quoted string that runs into the end of its line.
    UnterminatedString = "A0102", Error, Parse, "unterminated string";
    /// A backslash escape ARMLang does not define.
    InvalidEscape = "A0103", Error, Parse, "invalid escape sequence";
    /// A `/*` comment with no `*/`.
    UnterminatedComment = "A0104", Error, Parse, "unterminated comment";
    /// A number that is not a JSON number literal.
    InvalidNumber = "A0105", Error, Parse, "invalid number";

    /// Something that does not start a declaration where one is expected.
    ExpectedDeclaration = "A0201", Error, Parse, "declaration expected";
    /// More on the line after a declaration or a property.
    ExpectedNewline = "A0202", Error, Parse, "missing line break";
    /// An object, array, loop, call, parenthesis or interpolation never closed.
    Unclosed = "A0203", Error, Parse, "unclosed delimiter";
    /// A missing or malformed expression.
    ExpectedExpression = "A0204", Error, Parse, "expression expected";
    /// A missing identifier where a declaration names something.
    ExpectedName = "A0205", Error, Parse, "identifier expected";
    /// A missing keyword or punctuation (`:`, `in`, `{`, ...).
    ExpectedToken = "A0206", Error, Parse, "missing token";
    /// A comma between the items of an object or an array.
    UnexpectedComma = "A0207", Error, Parse, "commas do not separate items";
    /// Expressions nested deeper than the parser follows.
    NestingTooDeep = "A0208", Error, Parse, "nesting too deep";
    /// A resource type that is not a plain `'<type>@<apiVersion>'` string.
    InvalidResourceType = "A0209", Error, Parse, "invalid resource type";
    /// An interpolation in an object key.
    InterpolatedKey = "A0210", Error, Parse, "interpolation in a key";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_well_formed_and_in_the_readme() {
        let readme = include_str!("../../../README.md");
        crate::fixtures::check_codes(ErrorCode::ALL.iter().map(|c| c.code()), readme, &['A']);
    }
}
