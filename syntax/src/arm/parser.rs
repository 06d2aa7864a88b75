//! The ARMLang grammar: tokens to events, recovering from every error.
//!
//! Recursive descent over the tokens with the shared event core, so left-recursive forms (binary
//! operators, the ternary operator, property and index access, calls) wrap what was already parsed
//! with `precede`. Line breaks end declarations and separate the items of objects and arrays; they
//! are trivia inside parentheses, argument lists and interpolations. An expression goes on as far
//! as it can on its line, so `['a' 'b']` is two items and `[1 -2]` one (`1 - 2`). Recovery is local:
//! a bad declaration costs its line, and an unclosed loop or object ends at the end of the file.

use super::{
    ErrorCode,
    SyntaxKind::{self, *},
    lexer::Lexed,
};
use crate::{
    SyntaxError,
    base::{cursor::Cursor, event::CompletedMarker},
};
use rowan::{GreenNode, TextRange, TextSize};

/// How deeply expressions and loops may nest before the parser stops descending.
pub const MAX_NESTING: u32 = 256;

/// The keywords that start a declaration.
pub const DECLARATION_KEYWORDS: &[&str] = &["input", "output", "variable", "resource", "for"];

/// Parses lexed text into a green tree and the parser's errors (lexical errors not included).
pub(crate) fn parse_tokens(text: &str, lexed: &Lexed) -> (GreenNode, Vec<SyntaxError>) {
    let mut p = Parser(Cursor::new(text, &lexed.tokens));
    let root = p.events.start();
    p.declarations(false);
    p.skip_trivia_all();
    root.complete(&mut p.events, SOURCE_FILE);
    let green = std::mem::take(&mut p.events).build(text, SOURCE_FILE, ERROR_TOKEN);
    (green, std::mem::take(&mut p.errors))
}

/// The grammar: the shared cursor, and this language's rules in the methods below.
struct Parser<'t>(Cursor<'t, SyntaxKind>);

impl<'t> std::ops::Deref for Parser<'t> {
    type Target = Cursor<'t, SyntaxKind>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Parser<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Parser<'_> {
    // ---- Tokens ---------------------------------------------------------------------------

    fn at_keyword(&self, keyword: &str) -> bool {
        self.at(IDENT) && self.nth_text(0) == keyword
    }

    fn at_declaration(&self) -> bool {
        self.at(IDENT) && DECLARATION_KEYWORDS.contains(&self.nth_text(0))
    }

    /// Where the last consumed significant token ends: where a missing piece is reported.
    fn previous_end(&self) -> TextSize {
        let mut i = self.pos;
        while i > 0 {
            i -= 1;
            if !self.tokens[i].kind.is_trivia() && self.tokens[i].kind != NEWLINE {
                return TextSize::from(self.starts[i + 1]);
            }
        }
        TextSize::from(0)
    }

    /// Reports a missing piece just after the last token.
    fn missing(&mut self, code: ErrorCode, message: impl Into<String>) {
        let at = self.previous_end();
        self.error(code, TextRange::empty(at), message);
    }

    fn with_newlines<T>(&mut self, significant: bool, f: impl FnOnce(&mut Self) -> T) -> T {
        self.newlines.push(significant);
        let result = f(self);
        self.newlines.pop();
        result
    }

    /// Consumes tokens as an `ERROR` node, brackets balanced, up to the end of the line or a `}`
    /// closing what encloses them (not consumed).
    fn skip_line(&mut self) {
        self.newlines.push(true);
        let m = self.start();
        let mut depth = 0u32;
        let mut consumed = false;
        while let Some(kind) = self.current() {
            match kind {
                NEWLINE if depth == 0 => break,
                R_BRACE | R_BRACK | R_PAREN if depth == 0 => break,
                L_BRACE | L_BRACK | L_PAREN | INTERP_START | STRING_START => depth += 1,
                R_BRACE | R_BRACK | R_PAREN | INTERP_END | STRING_END => depth = depth.saturating_sub(1),
                _ => {}
            }
            self.bump();
            consumed = true;
        }
        if consumed {
            self.complete(m, ERROR);
        } else {
            m.abandon(&mut self.events);
        }
        self.newlines.pop();
    }

    // ---- Declarations ---------------------------------------------------------------------

    /// Declarations up to the end of the file or, `in_loop`, a `}` (not consumed).
    fn declarations(&mut self, in_loop: bool) {
        loop {
            match self.current() {
                None => break,
                Some(NEWLINE) => self.bump(),
                Some(R_BRACE) if in_loop => break,
                Some(_) if self.at_declaration() => {
                    let errors = self.errors.len();
                    self.declaration();
                    if !self.at_declaration() {
                        self.end_of_line("declaration", self.errors.len() > errors);
                    }
                }
                Some(_) => {
                    let found = self.describe_current();
                    self.error_here(
                        ErrorCode::ExpectedDeclaration,
                        format!(
                            "expected a declaration (`input`, `output`, `variable`, `resource` or `for`), found {found}"
                        ),
                    );
                    let before = self.nth_index(0);
                    self.skip_line();
                    // A closing bracket with nothing open stops `skip_line` where it starts.
                    if self.nth_index(0) == before && !(in_loop && self.at(R_BRACE)) {
                        let m = self.start();
                        self.bump();
                        self.complete(m, ERROR);
                    }
                }
            }
        }
    }

    /// After a declaration or a property: the line must end (or the enclosing `}` come). The rest
    /// of the line is skipped, and reported unless the declaration or property already was.
    fn end_of_line(&mut self, what: &str, reported: bool) {
        match self.current() {
            None | Some(NEWLINE | R_BRACE) => {}
            Some(_) => {
                // A character no token starts with was reported by the lexer.
                if !reported && !self.at(ERROR_TOKEN) {
                    let found = self.describe_current();
                    self.error_here(
                        ErrorCode::ExpectedNewline,
                        format!("expected a line break after the {what}, found {found}"),
                    );
                }
                self.skip_line();
            }
        }
    }

    fn declaration(&mut self) {
        match self.nth_text(0) {
            "input" => self.input(),
            "output" => self.named_value(OUTPUT_DECL),
            "variable" => self.named_value(VARIABLE_DECL),
            "resource" => self.resource(),
            _ => self.for_loop(),
        }
    }

    /// An identifier as a node of `kind`; reports what `what` is missing.
    fn name(&mut self, kind: SyntaxKind, what: &str) -> bool {
        if self.at(IDENT) {
            let m = self.start();
            self.bump();
            self.complete(m, kind);
            true
        } else {
            let found = self.describe_current();
            self.missing(ErrorCode::ExpectedName, format!("expected {what}, found {found}"));
            false
        }
    }

    fn input(&mut self) {
        let m = self.start();
        self.bump();
        if self.name(INPUT_TYPE, "the input's type (such as `string`)")
            && self.name(NAME, "the input's name")
            && self.eat(COLON)
        {
            self.expression_or_error("the input's default value");
        }
        self.complete(m, INPUT_DECL);
    }

    /// `keyword name: value` (`output` and `variable`); the `:` may be left out before an object.
    fn named_value(&mut self, kind: SyntaxKind) {
        let m = self.start();
        self.bump();
        if self.name(NAME, "a name") {
            self.colon_and_value();
        }
        self.complete(m, kind);
    }

    fn colon_and_value(&mut self) {
        if !self.eat(COLON) && !self.at(L_BRACE) {
            let found = self.describe_current();
            self.missing(ErrorCode::ExpectedToken, format!("expected `:` and a value, found {found}"));
            return;
        }
        self.expression_or_error("a value");
    }

    fn resource(&mut self) {
        let m = self.start();
        self.bump();
        if self.name(PROVIDER, "the resource's provider (such as `azrm`)") {
            if self.at(STRING_START) || self.at(MULTILINE_STRING) {
                let t = self.start();
                let range = self.current_range();
                let string = self.start();
                let interpolated = self.string();
                self.complete(string, STRING);
                self.complete(t, RESOURCE_TYPE);
                if interpolated {
                    self.error(
                        ErrorCode::InvalidResourceType,
                        range,
                        "a resource type is a plain string such as `'Microsoft.Network/virtualNetworks@2019-11-01'`",
                    );
                }
                if self.name(NAME, "the resource's name") {
                    self.colon_and_value();
                }
            } else {
                let found = self.describe_current();
                self.missing(
                    ErrorCode::InvalidResourceType,
                    format!("expected the resource's type and API version such as `'Microsoft.Network/virtualNetworks@2019-11-01'`, found {found}"),
                );
            }
        }
        self.complete(m, RESOURCE_DECL);
    }

    fn for_loop(&mut self) {
        let m = self.start();
        self.bump();
        if self.depth >= MAX_NESTING {
            self.error_here(ErrorCode::NestingTooDeep, "loops are nested too deeply");
            self.skip_line();
            self.complete(m, FOR_LOOP);
            return;
        }
        self.depth += 1;
        self.loop_header();
        if self.at(L_BRACE) {
            let body = self.start();
            let open = self.current_range();
            self.bump();
            self.declarations(true);
            if !self.eat(R_BRACE) {
                self.error(ErrorCode::Unclosed, open, "this loop's `{` is never closed");
            }
            self.complete(body, LOOP_BODY);
        } else {
            let found = self.describe_current();
            self.missing(ErrorCode::ExpectedToken, format!("expected `{{` and the loop's declarations, found {found}"));
        }
        self.depth -= 1;
        self.complete(m, FOR_LOOP);
    }

    /// `item[, index] in collection [as name]`, up to the `{`.
    fn loop_header(&mut self) {
        if !self.name(NAME, "the loop's item variable") {
            return;
        }
        if self.eat(COMMA) && !self.name(NAME, "the loop's index variable") {
            return;
        }
        if !self.at_keyword("in") {
            let found = self.describe_current();
            self.missing(ErrorCode::ExpectedToken, format!("expected `in` and the collection, found {found}"));
            return;
        }
        self.bump();
        self.expression_or_error("the collection to loop over");
        if self.at_keyword("as") {
            self.bump();
            self.name(NAME, "the loop's name");
        }
    }

    // ---- Expressions ----------------------------------------------------------------------

    fn expression_or_error(&mut self, what: &str) {
        // The lexer has reported a character no token starts with.
        if self.expression().is_none() && !self.at(ERROR_TOKEN) {
            let found = self.describe_current();
            self.missing(ErrorCode::ExpectedExpression, format!("expected {what}, found {found}"));
        }
    }

    fn expression(&mut self) -> Option<CompletedMarker> {
        if self.depth >= MAX_NESTING {
            self.error_here(ErrorCode::NestingTooDeep, "expressions are nested too deeply");
            self.skip_nested();
            return None;
        }
        self.depth += 1;
        let result = self.ternary();
        self.depth -= 1;
        result
    }

    /// Past the nesting limit: skips the rest of the expression, brackets balanced, as one
    /// `ERROR` node, so that too deep an input costs one error, not one per token.
    fn skip_nested(&mut self) {
        let m = self.start();
        let mut depth = 0u32;
        while let Some(kind) = self.current() {
            match kind {
                L_BRACE | L_BRACK | L_PAREN | INTERP_START | STRING_START => depth += 1,
                R_BRACE | R_BRACK | R_PAREN | INTERP_END | STRING_END if depth == 0 => break,
                R_BRACE | R_BRACK | R_PAREN | INTERP_END | STRING_END => depth -= 1,
                NEWLINE | COMMA if depth == 0 => break,
                _ => {}
            }
            self.bump();
        }
        self.complete(m, ERROR);
    }

    fn ternary(&mut self) -> Option<CompletedMarker> {
        let condition = self.binary(0)?;
        if !self.at(QUESTION) {
            return Some(condition);
        }
        let m = condition.precede(&mut self.events);
        self.bump();
        self.expression_or_error("the value when the condition is true");
        if self.eat(COLON) {
            self.expression_or_error("the value when the condition is false");
        } else {
            let found = self.describe_current();
            self.missing(
                ErrorCode::ExpectedToken,
                format!("expected `:` and the value when the condition is false, found {found}"),
            );
        }
        Some(self.complete(m, TERNARY_EXPR))
    }

    /// Binary operators from precedence level `level` up, left-associative.
    fn binary(&mut self, level: usize) -> Option<CompletedMarker> {
        const LEVELS: &[&[SyntaxKind]] = &[&[OR], &[AND], &[EQ2, NEQ, EQ_TILDE, NOT_TILDE], &[PLUS, MINUS], &[STAR]];
        let Some(operators) = LEVELS.get(level) else { return self.unary() };
        let mut left = self.binary(level + 1)?;
        while self.current().is_some_and(|k| operators.contains(&k)) {
            let m = left.precede(&mut self.events);
            self.bump();
            if self.binary(level + 1).is_none() {
                let found = self.describe_current();
                self.missing(ErrorCode::ExpectedExpression, format!("expected an operand, found {found}"));
            }
            left = self.complete(m, BINARY_EXPR);
        }
        Some(left)
    }

    fn unary(&mut self) -> Option<CompletedMarker> {
        if self.at(BANG) || self.at(MINUS) {
            let m = self.start();
            self.bump();
            if self.depth >= MAX_NESTING {
                self.error_here(ErrorCode::NestingTooDeep, "expressions are nested too deeply");
                self.skip_nested();
            } else {
                self.depth += 1;
                if self.unary().is_none() {
                    let found = self.describe_current();
                    self.missing(ErrorCode::ExpectedExpression, format!("expected an operand, found {found}"));
                }
                self.depth -= 1;
            }
            return Some(self.complete(m, UNARY_EXPR));
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Option<CompletedMarker> {
        let mut left = self.primary()?;
        loop {
            match self.current() {
                Some(DOT) => {
                    let m = left.precede(&mut self.events);
                    self.bump();
                    if self.at(IDENT) {
                        self.bump();
                    } else {
                        let found = self.describe_current();
                        self.missing(
                            ErrorCode::ExpectedName,
                            format!("expected a property or member name after `.`, found {found}"),
                        );
                    }
                    left = self.complete(m, PROPERTY_ACCESS);
                }
                Some(L_BRACK) => {
                    let m = left.precede(&mut self.events);
                    let open = self.current_range();
                    self.bump();
                    self.with_newlines(false, |p| {
                        p.expression_or_error("an index");
                        if !p.eat(R_BRACK) {
                            p.error(ErrorCode::Unclosed, open, "this `[` is never closed with `]`");
                        }
                    });
                    left = self.complete(m, INDEX_ACCESS);
                }
                Some(L_PAREN) => {
                    let m = left.precede(&mut self.events);
                    self.arguments();
                    left = self.complete(m, CALL);
                }
                _ => return Some(left),
            }
        }
    }

    fn arguments(&mut self) {
        let m = self.start();
        let open = self.current_range();
        self.bump();
        self.with_newlines(false, |p| {
            loop {
                if p.at(R_PAREN) || p.current().is_none() {
                    break;
                }
                if p.expression().is_none() {
                    let found = p.describe_current();
                    p.missing(ErrorCode::ExpectedExpression, format!("expected an argument or `)`, found {found}"));
                    if !p.at(COMMA) {
                        break;
                    }
                }
                if !p.eat(COMMA) {
                    break;
                }
            }
            if !p.eat(R_PAREN) {
                p.error(ErrorCode::Unclosed, open, "this `(` is never closed with `)`");
            }
        });
        self.complete(m, ARG_LIST);
    }

    fn primary(&mut self) -> Option<CompletedMarker> {
        match self.current()? {
            NUMBER => Some(self.single(LITERAL)),
            IDENT if matches!(self.nth_text(0), "true" | "false" | "null") => Some(self.single(LITERAL)),
            IDENT => Some(self.single(NAME_REF)),
            STRING_START | MULTILINE_STRING => {
                let m = self.start();
                self.string();
                Some(self.complete(m, STRING))
            }
            L_BRACE => Some(self.object()),
            L_BRACK => Some(self.array()),
            L_PAREN => {
                let m = self.start();
                let open = self.current_range();
                self.bump();
                self.with_newlines(false, |p| {
                    p.expression_or_error("an expression");
                    if !p.eat(R_PAREN) {
                        p.error(ErrorCode::Unclosed, open, "this `(` is never closed with `)`");
                    }
                });
                Some(self.complete(m, PAREN_EXPR))
            }
            _ => None,
        }
    }

    fn single(&mut self, kind: SyntaxKind) -> CompletedMarker {
        let m = self.start();
        self.bump();
        self.complete(m, kind)
    }

    /// The tokens of a string (the caller wraps them); whether it holds an interpolation. An
    /// unclosed string was reported by the lexer.
    fn string(&mut self) -> bool {
        if self.eat(MULTILINE_STRING) {
            return false;
        }
        self.bump();
        let mut interpolated = false;
        // Inside a string nothing is trivia: its text is read as it comes.
        self.newlines.push(true);
        loop {
            match self.tokens.get(self.pos).map(|t| t.kind) {
                Some(STRING_TEXT) => self.bump(),
                Some(STRING_END) => {
                    self.bump();
                    break;
                }
                Some(INTERP_START) => {
                    interpolated = true;
                    let m = self.start();
                    let at = self.current_range();
                    self.bump();
                    self.with_newlines(false, |p| {
                        p.expression_or_error("an expression in `${ }`");
                        if !p.eat(INTERP_END) {
                            // Skip what the expression left, up to the interpolation's end.
                            while let Some(kind) = p.current() {
                                if kind == INTERP_END || kind == STRING_END {
                                    break;
                                }
                                p.bump();
                            }
                            if !p.eat(INTERP_END) {
                                p.error(ErrorCode::Unclosed, at, "this `${` is never closed with `}`");
                            }
                        }
                    });
                    self.complete(m, INTERPOLATION);
                }
                // The lexer ended the string at a line break or the end of the text.
                _ => break,
            }
        }
        self.newlines.pop();
        interpolated
    }

    fn object(&mut self) -> CompletedMarker {
        let m = self.start();
        let open = self.current_range();
        self.bump();
        loop {
            match self.current() {
                None => {
                    self.error(ErrorCode::Unclosed, open, "this `{` is never closed with `}`");
                    break;
                }
                Some(NEWLINE) => self.bump(),
                Some(R_BRACE) => {
                    self.bump();
                    break;
                }
                Some(COMMA) => self.unexpected_comma("an object's properties"),
                Some(IDENT | STRING_START | MULTILINE_STRING) => {
                    let errors = self.errors.len();
                    self.property();
                    if self.at(COMMA) {
                        self.unexpected_comma("an object's properties");
                    }
                    if !matches!(self.current(), Some(IDENT | STRING_START | MULTILINE_STRING)) {
                        self.end_of_line("property", self.errors.len() > errors);
                    }
                }
                Some(R_BRACK | R_PAREN | INTERP_END) => {
                    self.error(ErrorCode::Unclosed, open, "this `{` is never closed with `}`");
                    break;
                }
                Some(_) => {
                    let found = self.describe_current();
                    self.error_here(ErrorCode::ExpectedName, format!("expected a property's key, found {found}"));
                    let before = self.nth_index(0);
                    self.skip_line();
                    // Inside brackets the line break `skip_line` stops at is not what this loop
                    // sees: take the token, so the loop always moves on.
                    if self.nth_index(0) == before {
                        let m = self.start();
                        self.bump();
                        self.complete(m, ERROR);
                    }
                }
            }
        }
        self.complete(m, OBJECT)
    }

    fn unexpected_comma(&mut self, what: &str) {
        self.error_here(
            ErrorCode::UnexpectedComma,
            format!("commas do not separate {what}: put each on a line of its own"),
        );
        let m = self.start();
        self.bump();
        self.complete(m, ERROR);
    }

    fn property(&mut self) {
        let m = self.start();
        let key = self.start();
        if self.at(IDENT) {
            self.bump();
        } else {
            let range = self.current_range();
            let string = self.start();
            let interpolated = self.string();
            self.complete(string, STRING);
            if interpolated {
                self.error(ErrorCode::InterpolatedKey, range, "a key cannot hold `${ }`: keys are fixed names");
            }
        }
        self.complete(key, PROPERTY_KEY);
        if self.eat(COLON) {
            self.expression_or_error("the property's value");
        } else {
            let found = self.describe_current();
            self.missing(ErrorCode::ExpectedToken, format!("expected `:` and the property's value, found {found}"));
            self.skip_line();
        }
        self.complete(m, PROPERTY);
    }

    fn array(&mut self) -> CompletedMarker {
        let m = self.start();
        let open = self.current_range();
        self.bump();
        loop {
            match self.current() {
                None | Some(R_BRACE | R_PAREN | INTERP_END) => {
                    self.error(ErrorCode::Unclosed, open, "this `[` is never closed with `]`");
                    break;
                }
                Some(NEWLINE) => self.bump(),
                Some(R_BRACK) => {
                    self.bump();
                    break;
                }
                Some(COMMA) => self.unexpected_comma("an array's items"),
                Some(_) => {
                    if self.expression().is_none() {
                        let found = self.describe_current();
                        self.error_here(
                            ErrorCode::ExpectedExpression,
                            format!("expected an item or `]`, found {found}"),
                        );
                        let e = self.start();
                        self.bump();
                        self.complete(e, ERROR);
                    }
                }
            }
        }
        self.complete(m, ARRAY)
    }
}
