//! The HCL grammar: tokens to events, recovering from every error.
//!
//! Recursive descent over the tokens with the shared event core, so left-recursive forms (binary
//! operators, conditionals, traversals) wrap what was already parsed with `precede`. Line breaks
//! end attributes and object items where HCL says so and are trivia inside parentheses, brackets,
//! interpolations and `for` expressions. Recovery is local: a bad item costs its line, and an
//! unclosed block ends at the end of the file without hiding what came before.

use super::{
    ErrorCode,
    SyntaxKind::{self, *},
    lexer::Lexed,
};
use crate::{
    SyntaxError,
    base::{
        cursor::Cursor,
        event::{CompletedMarker, Marker},
    },
};
use rowan::{GreenNode, TextRange};

/// How deeply expressions and blocks may nest before the parser stops descending.
pub const MAX_NESTING: u32 = 256;

/// Parses lexed text into a green tree and the parser's errors (lexical errors not included).
pub(crate) fn parse_tokens(text: &str, lexed: &Lexed) -> (GreenNode, Vec<SyntaxError>) {
    let mut p = Parser(Cursor::new(text, &lexed.tokens));
    // The root starts before any leading trivia, so that the whole text is inside it.
    let root = p.events.start();
    p.body_items(BodyEnd::File);
    p.skip_trivia_all();
    root.complete(&mut p.events, SOURCE_FILE);
    let green = std::mem::take(&mut p.events).build(text, SOURCE_FILE, ERROR_TOKEN);
    (green, std::mem::take(&mut p.errors))
}

/// What ends a body.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BodyEnd {
    File,
    Brace,
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

    /// Runs `f` with line breaks significant or not.
    fn with_newlines<T>(&mut self, significant: bool, f: impl FnOnce(&mut Self) -> T) -> T {
        self.newlines.push(significant);
        let result = f(self);
        self.newlines.pop();
        result
    }

    /// Consumes tokens up to the end of the line (brackets balanced), as an `ERROR` node.
    fn skip_line(&mut self) {
        self.skip_balanced(true);
    }

    /// Consumes tokens as an `ERROR` node, brackets balanced, up to the closing brace of the
    /// enclosing block (not consumed), and with `to_line_end` only up to the end of the line.
    fn skip_balanced(&mut self, to_line_end: bool) {
        self.newlines.push(to_line_end);
        let m = self.start();
        let mut depth = 0u32;
        while let Some(kind) = self.current() {
            match kind {
                NEWLINE if depth == 0 => break,
                L_BRACE | L_BRACK | L_PAREN | INTERP_OPEN | DIRECTIVE_OPEN | OPEN_QUOTE | HEREDOC_OPEN => depth += 1,
                R_BRACE if depth == 0 => break,
                R_BRACE | R_BRACK | R_PAREN | TEMPLATE_CLOSE | CLOSE_QUOTE | HEREDOC_CLOSE => {
                    depth = depth.saturating_sub(1)
                }
                _ => {}
            }
            self.bump();
        }
        self.complete(m, ERROR);
        if !to_line_end {
            // The line breaks before the brace belong to the body, not to what follows it.
            self.skip_trivia();
        }
        self.newlines.pop();
    }

    /// Past the nesting limit: skips the rest of the expression (brackets balanced) as one
    /// `ERROR` node, up to what closes an enclosing construct, so that too deep an input costs one
    /// error, not one per token.
    fn skip_nested(&mut self) {
        let m = self.start();
        let mut depth = 0u32;
        while let Some(kind) = self.current() {
            match kind {
                L_BRACE | L_BRACK | L_PAREN | INTERP_OPEN | DIRECTIVE_OPEN | OPEN_QUOTE | HEREDOC_OPEN => depth += 1,
                R_BRACE | R_BRACK | R_PAREN | TEMPLATE_CLOSE | CLOSE_QUOTE | HEREDOC_CLOSE if depth == 0 => break,
                R_BRACE | R_BRACK | R_PAREN | TEMPLATE_CLOSE | CLOSE_QUOTE | HEREDOC_CLOSE => depth -= 1,
                COMMA | NEWLINE if depth == 0 => break,
                _ => {}
            }
            self.bump();
        }
        self.complete(m, ERROR);
    }

    // ---- Structure ------------------------------------------------------------------------

    /// The items of a body, up to its end (not consumed).
    fn body_items(&mut self, end: BodyEnd) {
        let mut names: Vec<(String, TextRange)> = Vec::new();
        loop {
            match self.current() {
                None => break,
                Some(NEWLINE) => self.bump(),
                Some(R_BRACE) if end == BodyEnd::Brace => break,
                Some(IDENT) => self.item(&mut names),
                Some(_) => {
                    let found = self.describe_current();
                    let message = if self.at(OPEN_QUOTE) && self.quoted_name_then(EQ) {
                        ErrorCode::InvalidName
                    } else {
                        ErrorCode::ExpectedItem
                    };
                    let text = match message {
                        ErrorCode::InvalidName => {
                            "an argument name must be an identifier, not a quoted string".to_owned()
                        }
                        _ => format!(
                            "expected an argument (`name = value`) or a block (`type \"label\" {{`), found {found}"
                        ),
                    };
                    self.error_here(message, text);
                    if self.at(R_BRACE) {
                        let m = self.start();
                        self.bump();
                        self.complete(m, ERROR);
                    } else {
                        self.skip_line();
                    }
                }
            }
        }
    }

    /// Whether a quoted string without templates starts here and `kind` follows it.
    fn quoted_name_then(&self, kind: SyntaxKind) -> bool {
        let mut n = 1;
        while self.nth(n) == Some(TEMPLATE_TEXT) {
            n += 1;
        }
        self.nth(n) == Some(CLOSE_QUOTE) && self.nth(n + 1) == Some(kind)
    }

    /// An attribute or a block, starting at its name.
    fn item(&mut self, names: &mut Vec<(String, TextRange)>) {
        if self.nth(1) == Some(EQ) {
            let name = self.nth_text(0).to_owned();
            let range = self.current_range();
            if let Some((_, first)) = names.iter().find(|(n, _)| *n == name) {
                let line = self.text[..usize::from(first.start())].matches('\n').count() + 1;
                let message = format!("the argument `{name}` was already set on line {line}");
                self.error(ErrorCode::DuplicateAttribute, range, message);
            } else {
                names.push((name, range));
            }
            self.attribute();
            self.end_of_item();
        } else {
            self.block();
        }
    }

    fn attribute(&mut self) {
        let m = self.start();
        self.bump(); // name
        self.bump(); // =
        self.expression_or_error();
        self.complete(m, ATTRIBUTE);
    }

    /// After an attribute or a block: a line break or the end of the file.
    fn end_of_item(&mut self) {
        match self.current() {
            None | Some(NEWLINE) => {}
            Some(_) => {
                let found = self.describe_current();
                self.error_here(
                    ErrorCode::ExpectedNewline,
                    format!("expected a line break after the argument or block, found {found}"),
                );
                self.skip_line();
            }
        }
    }

    fn block(&mut self) {
        if self.depth >= MAX_NESTING {
            self.error_here(ErrorCode::NestingTooDeep, format!("blocks nest more than {MAX_NESTING} deep"));
            self.skip_line();
            return;
        }
        let m = self.start();
        self.bump(); // type
        loop {
            match self.current() {
                Some(IDENT) => self.bump(),
                Some(OPEN_QUOTE) => self.string_label(),
                _ => break,
            }
        }
        if !self.at(L_BRACE) {
            let found = self.describe_current();
            self.error_here(
                ErrorCode::InvalidBlock,
                format!("expected `=` for an argument, or labels and `{{` for a block, found {found}"),
            );
            self.skip_line();
            self.complete(m, BLOCK);
            return;
        }
        self.depth += 1;
        let body = self.start();
        let open = self.current_range();
        self.bump(); // {
        if self.at(NEWLINE) || self.current().is_none() {
            self.body_items(BodyEnd::Brace);
        } else {
            self.one_line_body();
        }
        let closed = self.eat(R_BRACE);
        if !closed {
            self.error(ErrorCode::Unclosed, open, "this block is never closed: add `}` where it ends");
        }
        self.complete(body, BODY);
        self.depth -= 1;
        self.complete(m, BLOCK);
        if closed {
            self.end_of_item();
        }
    }

    /// The inside of a one-line block: at most one attribute. Anything more is one error, and
    /// the rest up to the block's closing brace (on whatever line) is skipped, as HCL's reference
    /// recovers.
    fn one_line_body(&mut self) {
        if self.at(R_BRACE) {
            return;
        }
        if self.at(IDENT) && self.nth(1) == Some(EQ) {
            self.attribute();
            if self.current().is_none() || self.at(R_BRACE) {
                return;
            }
            let message = match self.current() {
                Some(NEWLINE) => "a block opened on one line with an argument must close on that line: put `}` right after the argument, or the argument on a line of its own".to_owned(),
                _ => format!(
                    "a block on one line holds at most one argument; put its content on lines of their own (found {})",
                    self.describe_current()
                ),
            };
            self.error_here(ErrorCode::InvalidOneLineBlock, message);
        } else if self.at(IDENT) && matches!(self.nth(1), Some(OPEN_QUOTE | L_BRACE | IDENT)) {
            let name = self.nth_text(0).to_owned();
            let start = self.current_range().start();
            let m = self.start();
            self.bump();
            let end = self.current_range().end();
            self.complete(m, ERROR);
            self.error(
                ErrorCode::InvalidOneLineBlock,
                TextRange::new(start, end),
                format!("a block on one line holds one argument, not a block: put `{name}` on a line of its own, or write `{name} = ...` for an argument"),
            );
        } else {
            let found = self.describe_current();
            self.error_here(
                ErrorCode::InvalidOneLineBlock,
                format!("expected an argument (`name = value`) in the one-line block, found {found}"),
            );
        }
        self.skip_balanced(false);
    }

    /// A quoted block label: a string without interpolations or directives.
    fn string_label(&mut self) {
        let m = self.start();
        self.bump(); // "
        loop {
            match self.current() {
                Some(TEMPLATE_TEXT) => self.bump(),
                Some(INTERP_OPEN | DIRECTIVE_OPEN) => {
                    self.error_here(ErrorCode::TemplateInLabel, "a block label cannot hold `${` or `%{`");
                    self.template_part();
                }
                _ => break,
            }
        }
        self.eat(CLOSE_QUOTE);
        self.complete(m, STRING_LIT);
    }

    // ---- Expressions ----------------------------------------------------------------------

    fn expression_or_error(&mut self) {
        if self.expression().is_none() {
            let found = self.describe_current();
            self.error_here(ErrorCode::ExpectedExpression, format!("expected an expression, found {found}"));
            // Consume one token that cannot end the construct around, so progress is made.
            if !matches!(
                self.current(),
                None | Some(
                    NEWLINE
                        | R_BRACE
                        | R_BRACK
                        | R_PAREN
                        | COMMA
                        | TEMPLATE_CLOSE
                        | CLOSE_QUOTE
                        | COLON
                        | FAT_ARROW
                        | EQ
                        | HEREDOC_CLOSE
                )
            ) {
                let m = self.start();
                self.bump();
                self.complete(m, ERROR);
            }
        }
    }

    /// An expression, or `None` (nothing consumed) when none starts here.
    fn expression(&mut self) -> Option<CompletedMarker> {
        if self.depth >= MAX_NESTING {
            self.error_here(ErrorCode::NestingTooDeep, format!("expressions nest more than {MAX_NESTING} deep"));
            self.skip_nested();
            return None;
        }
        self.depth += 1;
        let result = self.conditional();
        self.depth -= 1;
        result
    }

    fn conditional(&mut self) -> Option<CompletedMarker> {
        let condition = self.binary(1)?;
        if !self.at(QUESTION) {
            return Some(condition);
        }
        let m = condition.precede(&mut self.events);
        self.bump(); // ?
        self.expression_or_error();
        if self.eat(COLON) {
            self.expression_or_error();
        } else {
            let found = self.describe_current();
            self.error_here(ErrorCode::ExpectedExpression, format!("expected `:` of the conditional, found {found}"));
        }
        Some(self.complete(m, CONDITIONAL))
    }

    fn binary(&mut self, min_level: u8) -> Option<CompletedMarker> {
        let mut left = self.unary()?;
        while let Some(level) = self.current().and_then(binary_level) {
            if level < min_level {
                break;
            }
            let m = left.precede(&mut self.events);
            self.bump();
            if self.binary(level + 1).is_none() {
                let found = self.describe_current();
                self.error_here(ErrorCode::ExpectedExpression, format!("expected an operand, found {found}"));
            }
            left = self.complete(m, BINARY_EXPR);
        }
        Some(left)
    }

    fn unary(&mut self) -> Option<CompletedMarker> {
        if matches!(self.current(), Some(MINUS | BANG)) {
            if self.depth >= MAX_NESTING {
                self.error_here(ErrorCode::NestingTooDeep, format!("operators nest more than {MAX_NESTING} deep"));
                self.skip_nested();
                return None;
            }
            let m = self.start();
            self.bump();
            self.depth += 1;
            let operand = self.unary();
            self.depth -= 1;
            if operand.is_none() {
                let found = self.describe_current();
                self.error_here(ErrorCode::ExpectedExpression, format!("expected an operand, found {found}"));
            }
            return Some(self.complete(m, UNARY_EXPR));
        }
        let term = self.term()?;
        Some(self.traversals(term))
    }

    /// `.name`, `.0`, `[key]`, `.*` and `[*]` after a term.
    fn traversals(&mut self, mut term: CompletedMarker) -> CompletedMarker {
        loop {
            match self.current() {
                Some(DOT) if self.nth(1) == Some(STAR) => {
                    let m = term.precede(&mut self.events);
                    self.bump();
                    self.bump();
                    // An attribute-only splat takes the attribute accesses after it, and only them.
                    let mut inner = self.complete(m, SPLAT);
                    while self.at(DOT) {
                        let m = inner.precede(&mut self.events);
                        self.bump();
                        match self.current() {
                            Some(NUMBER) if !self.nth_text(0).bytes().all(|b| b.is_ascii_digit()) => {
                                let index = self.nth_text(0).to_owned();
                                let message = format!(
                                    "`.{index}` chains legacy indexes, which HCL does not allow: use a full splat `[*]` and write `[{}]`",
                                    index.replace('.', "][")
                                );
                                self.error_here(ErrorCode::InvalidAttributeAccess, message);
                                self.bump();
                            }
                            Some(IDENT | NUMBER) => self.bump(),
                            Some(STAR) => {
                                self.error_here(
                                    ErrorCode::InvalidAttributeAccess,
                                    "a splat cannot follow an attribute-only splat `.*`: use a full splat `[*]`",
                                );
                                self.bump();
                            }
                            _ => {
                                let found = self.describe_current();
                                self.error_here(
                                    ErrorCode::InvalidAttributeAccess,
                                    format!("expected an attribute name after `.`, found {found}"),
                                );
                            }
                        }
                        inner = self.complete(m, GET_ATTR);
                    }
                    term = inner;
                }
                Some(DOT) => {
                    let m = term.precede(&mut self.events);
                    self.bump();
                    if self.at(NUMBER) && !self.nth_text(0).bytes().all(|b| b.is_ascii_digit()) {
                        let index = self.nth_text(0).to_owned();
                        self.error_here(
                            ErrorCode::InvalidAttributeAccess,
                            format!(
                                "`.{index}` chains legacy indexes, which HCL does not allow: write `[{}]`",
                                index.replace('.', "][")
                            ),
                        );
                        self.bump();
                    } else if matches!(self.current(), Some(IDENT | NUMBER)) {
                        self.bump();
                    } else {
                        let found = self.describe_current();
                        self.error_here(
                            ErrorCode::InvalidAttributeAccess,
                            format!("expected an attribute name, an index or `*` after `.`, found {found}"),
                        );
                    }
                    term = self.complete(m, GET_ATTR);
                }
                Some(L_BRACK) => {
                    let m = term.precede(&mut self.events);
                    let splat = self.nth(1) == Some(STAR) && self.nth(2) == Some(R_BRACK);
                    self.with_newlines(false, |p| {
                        p.bump(); // [
                        if splat {
                            p.bump();
                        } else {
                            p.expression_or_error();
                        }
                    });
                    if !self.eat(R_BRACK) {
                        self.error_here(ErrorCode::Unclosed, "expected `]` to close the index");
                    }
                    term = self.complete(m, if splat { SPLAT } else { INDEX });
                }
                _ => return term,
            }
        }
    }

    fn term(&mut self) -> Option<CompletedMarker> {
        match self.current()? {
            NUMBER => {
                let m = self.start();
                self.bump();
                Some(self.complete(m, LITERAL))
            }
            IDENT => {
                let m = self.start();
                let keyword = matches!(self.nth_text(0), "true" | "false" | "null");
                if self.nth(1) == Some(L_PAREN) {
                    self.bump();
                    self.arguments();
                    return Some(self.complete(m, CALL));
                }
                self.bump();
                Some(self.complete(m, if keyword { LITERAL } else { VARIABLE }))
            }
            L_PAREN => {
                let m = self.start();
                self.with_newlines(false, |p| {
                    p.bump();
                    p.expression_or_error();
                });
                if !self.eat(R_PAREN) {
                    self.error_here(ErrorCode::Unclosed, "expected `)` to close the parenthesis");
                }
                Some(self.complete(m, PAREN_EXPR))
            }
            OPEN_QUOTE => Some(self.quoted_template()),
            HEREDOC_OPEN => Some(self.heredoc()),
            L_BRACK => Some(self.tuple()),
            L_BRACE => Some(self.object()),
            _ => None,
        }
    }

    /// Whether a list loop must stop: the end, or a closing token of any kind.
    fn at_list_stop(&self) -> bool {
        matches!(
            self.current(),
            None | Some(R_BRACE | R_BRACK | R_PAREN | TEMPLATE_CLOSE | CLOSE_QUOTE | HEREDOC_CLOSE)
        )
    }

    /// Skips one token that cannot continue a list, as an `ERROR` node.
    fn skip_token(&mut self) {
        let m = self.start();
        self.bump();
        self.complete(m, ERROR);
    }

    fn arguments(&mut self) {
        let m = self.start();
        self.with_newlines(false, |p| {
            p.bump(); // (
            while !p.at_list_stop() {
                if p.expression().is_none() {
                    let found = p.describe_current();
                    p.error_here(ErrorCode::ExpectedExpression, format!("expected an argument, found {found}"));
                    p.skip_token();
                    continue;
                }
                if p.eat(ELLIPSIS) {
                    break;
                }
                if !p.eat(COMMA) && !p.at(R_PAREN) {
                    let found = p.describe_current();
                    p.error_here(
                        ErrorCode::MissingSeparator,
                        format!("expected `,` or `)` after the argument, found {found}"),
                    );
                    if !p.at_list_stop() {
                        p.skip_token();
                    }
                }
            }
            if !p.eat(R_PAREN) {
                p.error_here(ErrorCode::Unclosed, "the argument list is not closed: add `)`");
            }
        });
        self.complete(m, ARG_LIST);
    }

    /// Whether the collection opening here is a `for` expression.
    fn opens_for(&mut self) -> bool {
        self.with_newlines(false, |p| p.nth(1) == Some(IDENT) && p.nth_text(1) == "for")
    }

    fn tuple(&mut self) -> CompletedMarker {
        let m = self.start();
        if self.opens_for() {
            self.with_newlines(false, |p| {
                p.bump(); // [
                p.for_rest(R_BRACK);
            });
            return self.complete(m, FOR_EXPR);
        }
        self.with_newlines(false, |p| {
            p.bump(); // [
            while !p.at_list_stop() {
                if p.expression().is_none() {
                    let found = p.describe_current();
                    p.error_here(ErrorCode::ExpectedExpression, format!("expected an item, found {found}"));
                    p.skip_token();
                    continue;
                }
                if !p.eat(COMMA) && !p.at(R_BRACK) {
                    let found = p.describe_current();
                    p.error_here(
                        ErrorCode::MissingSeparator,
                        format!("expected `,` or `]` after the item, found {found}"),
                    );
                    if !p.at_list_stop() {
                        p.skip_token();
                    }
                }
            }
            if !p.eat(R_BRACK) {
                p.error_here(ErrorCode::Unclosed, "the tuple is not closed: add `]`");
            }
        });
        self.complete(m, TUPLE)
    }

    fn object(&mut self) -> CompletedMarker {
        let m = self.start();
        if self.opens_for() {
            self.with_newlines(false, |p| {
                p.bump(); // {
                p.for_rest(R_BRACE);
            });
            return self.complete(m, FOR_EXPR);
        }
        self.with_newlines(true, |p| {
            p.bump(); // {
            loop {
                while p.eat(NEWLINE) {}
                if p.at_list_stop() {
                    break;
                }
                if !p.object_item() {
                    p.skip_object_rest();
                    break;
                }
                if p.eat(COMMA) || p.at(NEWLINE) || p.at(R_BRACE) {
                    continue;
                }
                let found = p.describe_current();
                p.error_here(
                    ErrorCode::MissingSeparator,
                    format!("expected `,`, a line break or `}}` after the object item, found {found}"),
                );
                p.skip_object_rest();
                break;
            }
            if !p.eat(R_BRACE) {
                p.error_here(ErrorCode::Unclosed, "the object is not closed: add `}`");
            }
        });
        self.complete(m, OBJECT)
    }

    /// After an error in an object, skips to its closing brace (brackets balanced).
    fn skip_object_rest(&mut self) {
        let m = self.start();
        let mut depth = 0u32;
        while let Some(kind) = self.current() {
            match kind {
                L_BRACE | L_BRACK | L_PAREN => depth += 1,
                R_BRACE if depth == 0 => break,
                R_BRACE | R_BRACK | R_PAREN => depth = depth.saturating_sub(1),
                _ => {}
            }
            self.bump();
        }
        self.complete(m, ERROR);
    }

    /// One `key = value` of an object; `false` after an error that ends the object's parsing.
    fn object_item(&mut self) -> bool {
        let m = self.start();
        let key = self.start();
        if self.expression().is_none() {
            key.abandon(&mut self.events);
            let found = self.describe_current();
            self.error_here(ErrorCode::ExpectedExpression, format!("expected an object key, found {found}"));
            self.complete(m, OBJECT_ITEM);
            return false;
        }
        self.complete(key, OBJECT_KEY);
        if !self.eat(EQ) && !self.eat(COLON) {
            let found = self.describe_current();
            self.error_here(
                ErrorCode::MissingKeyValueSeparator,
                format!("expected `=` or `:` after the object key, found {found}"),
            );
            self.complete(m, OBJECT_ITEM);
            return false;
        }
        let ok = self.expression().is_some();
        if !ok {
            let found = self.describe_current();
            self.error_here(ErrorCode::ExpectedExpression, format!("expected a value, found {found}"));
        }
        self.complete(m, OBJECT_ITEM);
        ok
    }

    /// The rest of a `for` expression after its opening bracket, up to and including `close`.
    fn for_rest(&mut self, close: SyntaxKind) {
        let intro = self.start();
        self.bump(); // for
        let mut ok = self.eat(IDENT);
        if ok && self.eat(COMMA) {
            ok = self.eat(IDENT);
        }
        if ok && self.at_keyword("in") {
            self.bump();
        } else {
            ok = false;
        }
        if !ok {
            let found = self.describe_current();
            self.error_here(
                ErrorCode::InvalidFor,
                format!("expected `for name in` or `for key, value in`, found {found}"),
            );
        }
        self.expression_or_error();
        if !self.eat(COLON) {
            let found = self.describe_current();
            self.error_here(ErrorCode::InvalidFor, format!("expected `:` after the collection, found {found}"));
        }
        self.complete(intro, FOR_INTRO);
        self.expression_or_error();
        if close == R_BRACE {
            if self.eat(FAT_ARROW) {
                self.expression_or_error();
                self.eat(ELLIPSIS);
            } else {
                let found = self.describe_current();
                self.error_here(
                    ErrorCode::InvalidFor,
                    format!("expected `=>` between the key and the value of an object `for`, found {found}"),
                );
            }
        }
        if self.at_keyword("if") {
            let cond = self.start();
            self.bump();
            self.expression_or_error();
            self.complete(cond, FOR_COND);
        }
        if !self.eat(close) {
            let found = self.describe_current();
            let close = if close == R_BRACE { "}" } else { "]" };
            self.error_here(
                ErrorCode::InvalidFor,
                format!("expected `{close}` to end the `for` expression, found {found}"),
            );
            while !self.at_list_stop() {
                self.skip_token();
            }
            self.eat(if close == "}" { R_BRACE } else { R_BRACK });
        }
    }

    // ---- Templates ------------------------------------------------------------------------

    fn quoted_template(&mut self) -> CompletedMarker {
        let m = self.start();
        self.bump(); // "
        self.template_parts(false);
        self.eat(CLOSE_QUOTE);
        self.complete(m, TEMPLATE)
    }

    fn heredoc(&mut self) -> CompletedMarker {
        let m = self.start();
        self.bump(); // <<EOT
        self.template_parts(false);
        self.eat(HEREDOC_CLOSE);
        self.complete(m, HEREDOC)
    }

    /// The keyword of the directive here, if a `%{` starts here.
    fn directive_keyword(&mut self) -> Option<String> {
        if !self.at(DIRECTIVE_OPEN) {
            return None;
        }
        self.with_newlines(false, |p| {
            let n = if p.nth(1) == Some(STRIP) { 2 } else { 1 };
            Some(if p.nth(n) == Some(IDENT) { p.nth_text(n).to_owned() } else { String::new() })
        })
    }

    /// Template parts up to the end of the template or, `inside` a directive, up to an `else`,
    /// `endif` or `endfor` tag (not consumed).
    fn template_parts(&mut self, inside: bool) {
        loop {
            match self.current() {
                Some(TEMPLATE_TEXT) => self.bump(),
                Some(INTERP_OPEN) => self.template_part(),
                Some(DIRECTIVE_OPEN) => {
                    let keyword = self.directive_keyword().unwrap_or_default();
                    match keyword.as_str() {
                        "if" | "for" if self.depth >= MAX_NESTING => {
                            self.error_here(
                                ErrorCode::NestingTooDeep,
                                format!("template directives nest more than {MAX_NESTING} deep"),
                            );
                            self.directive_tag(&keyword);
                        }
                        "if" => self.nested(Self::template_if),
                        "for" => self.nested(Self::template_for),
                        "else" | "endif" | "endfor" if inside => return,
                        _ => {
                            let message = match keyword.as_str() {
                                "else" | "endif" | "endfor" => {
                                    format!("`%{{ {keyword} }}` without the directive it closes")
                                }
                                "" => "expected `if`, `for`, `else`, `endif` or `endfor` after `%{`".to_owned(),
                                k => format!(
                                    "`{k}` is not a template directive: expected `if`, `for`, `else`, `endif` or `endfor`"
                                ),
                            };
                            self.error_here(ErrorCode::InvalidDirective, message);
                            self.directive_tag(&keyword);
                        }
                    }
                }
                _ => return,
            }
        }
    }

    /// Runs `f` one level deeper.
    fn nested(&mut self, f: impl FnOnce(&mut Self)) {
        self.depth += 1;
        f(self);
        self.depth -= 1;
    }

    /// An interpolation `${ expression }`.
    fn template_part(&mut self) {
        let m = self.start();
        self.with_newlines(false, |p| {
            p.bump(); // ${ or %{
            p.eat(STRIP);
            p.expression_or_error();
            p.close_template_sequence();
        });
        self.complete(m, INTERPOLATION);
    }

    /// The `~}` or `}` that closes an interpolation or a directive tag.
    fn close_template_sequence(&mut self) {
        self.eat(STRIP);
        if self.eat(TEMPLATE_CLOSE) {
            return;
        }
        let found = self.describe_current();
        self.error_here(ErrorCode::Unclosed, format!("expected `}}` to close the template sequence, found {found}"));
        while !matches!(self.current(), None | Some(TEMPLATE_CLOSE | CLOSE_QUOTE | HEREDOC_CLOSE | NEWLINE)) {
            self.skip_token();
        }
        self.eat(TEMPLATE_CLOSE);
    }

    /// One `%{ keyword ... }` tag.
    fn directive_tag(&mut self, keyword: &str) {
        let m = self.start();
        self.with_newlines(false, |p| {
            p.bump(); // %{
            p.eat(STRIP);
            if p.at(IDENT) {
                p.bump();
            }
            match keyword {
                "if" => p.expression_or_error(),
                "for" => {
                    let mut ok = p.eat(IDENT);
                    if ok && p.eat(COMMA) {
                        ok = p.eat(IDENT);
                    }
                    if ok && p.at_keyword("in") {
                        p.bump();
                    } else {
                        let found = p.describe_current();
                        p.error_here(
                            ErrorCode::InvalidDirective,
                            format!("expected `for name in` or `for key, value in`, found {found}"),
                        );
                    }
                    p.expression_or_error();
                }
                _ => {}
            }
            p.close_template_sequence();
        });
        self.complete(m, DIRECTIVE);
    }

    fn template_if(&mut self) {
        let m = self.start();
        self.directive_tag("if");
        self.template_parts(true);
        if self.directive_keyword().as_deref() == Some("else") {
            self.directive_tag("else");
            self.template_parts(true);
        }
        self.end_directive(m, "endif", TEMPLATE_IF);
    }

    fn template_for(&mut self) {
        let m = self.start();
        self.directive_tag("for");
        self.template_parts(true);
        self.end_directive(m, "endfor", TEMPLATE_FOR);
    }

    /// The `endif` or `endfor` tag closing a directive started at `m`.
    fn end_directive(&mut self, m: Marker, end: &str, kind: SyntaxKind) {
        match self.directive_keyword() {
            Some(keyword) if keyword == end => self.directive_tag(end),
            Some(keyword) => {
                self.error_here(
                    ErrorCode::InvalidDirective,
                    format!("expected `%{{ {end} }}`, found `%{{ {keyword} }}`"),
                );
                self.directive_tag(&keyword);
            }
            None => {
                let found = self.describe_current();
                self.error_here(ErrorCode::InvalidDirective, format!("expected `%{{ {end} }}` before {found}"));
            }
        }
        self.complete(m, kind);
    }
}

/// The precedence level of a binary operator (higher binds tighter).
fn binary_level(kind: SyntaxKind) -> Option<u8> {
    Some(match kind {
        OR => 1,
        AND => 2,
        EQ2 | NEQ => 3,
        LT | GT | LTEQ | GTEQ => 4,
        PLUS | MINUS => 5,
        STAR | SLASH | PERCENT => 6,
        _ => return None,
    })
}
