//! The NaCl parser: tokens to a lossless tree, recovering from every error.
//!
//! Recursive descent into a flat tree ([`FlatTree`]; the rowan tree is built from it when asked
//! for). Trivia (whitespace, comments) is attached to the node being built when the next real token is consumed; line breaks are
//! significant in a few places (a value starts on the line of its `=`, object entries end at a
//! line break) and trivia everywhere else. Recovery is local: a bad item costs its line, an
//! unclosed block ends at the next top-level header, and nothing after an error is lost.

use crate::SyntaxError;
use crate::base::flat::{FlatBuilder, FlatTree};
use crate::nacl::{
    ErrorCode,
    SyntaxKind::{self, *},
    lexer::{Lexed, Token},
};
use rowan::{TextRange, TextSize};

/// How deeply blocks, lists, objects and calls may nest before the parser stops descending.
/// Real workspaces nest about 15 deep; the limit keeps hostile input from exhausting the stack.
pub const MAX_NESTING: u32 = 256;

/// Parses lexed text into a flat tree and the parser's errors (lexical errors not included).
pub(crate) fn parse_tokens<'t>(text: &'t str, lexed: &Lexed) -> (FlatTree<'t>, Vec<SyntaxError>) {
    let mut parser = Parser::new(text, lexed, SOURCE_FILE, 0);
    parser.source_file();
    (parser.builder.finish(ERROR_TOKEN), parser.errors)
}

/// Parses lexed text that is one part of a longer text: an object or a list (`kind`), from its
/// opening bracket to its closing one, written at nesting depth `depth` (the bodies, lists,
/// argument lists and objects around it), or a top-level block (`BLOCK`, depth 0), from its
/// first label to the `}` of its body. Gives its flat tree (the part is the root; a block is
/// the one child of a `SOURCE_FILE` root) and the parser's errors (lexical errors not included).
/// `None` unless the part ends with its own closing bracket as the text's last token: then, in
/// the longer text, the parser reads these tokens the same way, whatever comes before or after.
pub(crate) fn parse_part_tokens<'t>(
    text: &'t str,
    lexed: &Lexed,
    depth: u32,
    kind: SyntaxKind,
) -> Option<(FlatTree<'t>, Vec<SyntaxError>)> {
    let first = lexed.tokens.first().map(|t| t.kind);
    let starts_it = match kind {
        OBJECT => first == Some(L_BRACE),
        LIST => first == Some(L_BRACK),
        BLOCK => matches!(first, Some(IDENT | QUOTE)),
        _ => false,
    };
    if !starts_it {
        return None;
    }
    let mut parser = Parser::new(text, lexed, kind, depth);
    let closed = match kind {
        OBJECT => parser.object(),
        LIST => parser.list(),
        // As `source_file` reads a block (the structure checks look for blocks in the root).
        _ if parser.is_attribute_at(0) => false,
        _ => {
            parser.builder.start_node(SOURCE_FILE);
            let closed = parser.block(true);
            parser.builder.finish_node();
            closed
        }
    };
    (closed && parser.pos == lexed.tokens.len()).then(|| (parser.builder.finish(ERROR_TOKEN), parser.errors))
}

struct Parser<'t, 'l> {
    text: &'t str,
    tokens: &'l [Token],
    /// Start offset of every token, plus the end of the text.
    starts: Vec<u32>,
    pos: usize,
    builder: FlatBuilder<'t>,
    errors: Vec<SyntaxError>,
    depth: u32,
}

impl<'t, 'l> Parser<'t, 'l> {
    /// A parser at the start of `lexed`, the tokens of `text`, at nesting depth `depth`; `root`
    /// wraps what it builds if that is not one node.
    fn new(text: &'t str, lexed: &'l Lexed, root: SyntaxKind, depth: u32) -> Parser<'t, 'l> {
        Parser {
            text,
            tokens: &lexed.tokens,
            starts: crate::base::token_starts(lexed.tokens.iter().map(|t| t.len)),
            pos: 0,
            builder: FlatBuilder::new(text, lexed.tokens.len(), root),
            errors: Vec::new(),
            depth,
        }
    }
}

impl Parser<'_, '_> {
    // ---- Token access -------------------------------------------------------------------

    fn kind_at(&self, index: usize) -> Option<SyntaxKind> {
        self.tokens.get(index).map(|t| t.kind)
    }

    fn text_at(&self, index: usize) -> &str {
        &self.text[self.starts[index] as usize..self.starts[index + 1] as usize]
    }

    /// Index of the first token at or after `index` that is not trivia (line breaks count).
    fn skip_trivia_from(&self, mut index: usize) -> usize {
        while self.kind_at(index).is_some_and(SyntaxKind::is_trivia) {
            index += 1;
        }
        index
    }

    /// Index of the first token at or after `index` that is neither trivia nor a line break.
    fn skip_blank_from(&self, mut index: usize) -> usize {
        while self.kind_at(index).is_some_and(|k| k.is_trivia() || k == NEWLINE) {
            index += 1;
        }
        index
    }

    /// Index of the current significant token (line breaks count as significant).
    fn current_index(&self) -> usize {
        self.skip_trivia_from(self.pos)
    }

    fn current(&self) -> Option<SyntaxKind> {
        self.kind_at(self.current_index())
    }

    fn current_text(&self) -> &str {
        let index = self.current_index();
        if index < self.tokens.len() { self.text_at(index) } else { "" }
    }

    /// The kind of the significant token after the current one, on the same line.
    fn next_on_line(&self) -> Option<SyntaxKind> {
        self.kind_at(self.skip_trivia_from(self.current_index() + 1))
    }

    /// The range of the current significant token; empty at a line break or the end of the text.
    fn current_range(&self) -> TextRange {
        let index = self.current_index().min(self.tokens.len());
        let end = match self.kind_at(index) {
            None | Some(NEWLINE) => self.starts[index],
            Some(_) => self.starts[index + 1],
        };
        TextRange::new(TextSize::from(self.starts[index]), TextSize::from(end))
    }

    /// Whether the token at `index` begins a line (nothing but a line break before it).
    fn at_column_zero(&self, index: usize) -> bool {
        index == 0 || self.text[..self.starts[index] as usize].ends_with(['\n', '\r'])
    }

    // ---- Building -----------------------------------------------------------------------

    fn push_token(&mut self) {
        let token = self.tokens[self.pos];
        self.builder.token(token.kind, token.len);
        self.pos += 1;
    }

    fn eat_trivia(&mut self) {
        while self.kind_at(self.pos).is_some_and(SyntaxKind::is_trivia) {
            self.push_token();
        }
    }

    /// Consumes trivia, line breaks included.
    fn skip_newlines(&mut self) {
        while self.kind_at(self.pos).is_some_and(|k| k.is_trivia() || k == NEWLINE) {
            self.push_token();
        }
    }

    /// Consumes the current significant token (and the trivia before it).
    fn bump(&mut self) {
        self.eat_trivia();
        if self.pos < self.tokens.len() {
            self.push_token();
        }
    }

    fn start(&mut self, kind: SyntaxKind) {
        self.eat_trivia();
        self.builder.start_node(kind);
    }

    fn finish(&mut self) {
        self.builder.finish_node();
    }

    fn error(&mut self, code: ErrorCode, range: TextRange, message: impl Into<String>) {
        self.errors.push(SyntaxError::new(code, range, message));
    }

    fn error_here(&mut self, code: ErrorCode, message: impl Into<String>) {
        let range = self.current_range();
        self.error(code, range, message);
    }

    /// Describes the current token for an error message.
    fn found(&self) -> String {
        match self.current() {
            None => "the end of the file".to_owned(),
            Some(NEWLINE) => "the end of the line".to_owned(),
            Some(QUOTE) => "a string".to_owned(),
            Some(MULTILINE_OPEN) => "a multiline string".to_owned(),
            Some(_) => format!("`{}`", self.current_text()),
        }
    }

    // ---- Lookahead helpers --------------------------------------------------------------

    /// Index just past a label or key starting at `index` (a word, or a whole quoted string).
    fn label_end(&self, index: usize) -> usize {
        match self.kind_at(index) {
            Some(QUOTE) => {
                let mut i = index + 1;
                while let Some(kind) = self.kind_at(i) {
                    i += 1;
                    match kind {
                        QUOTE => return i,
                        NEWLINE => return i - 1,
                        _ => {}
                    }
                }
                i
            }
            _ => index + 1,
        }
    }

    /// Whether a label or key at `index` is followed by `=` on the same line.
    fn is_attribute_at(&self, index: usize) -> bool {
        self.kind_at(self.skip_trivia_from(self.label_end(index))) == Some(EQ)
    }

    /// Whether labels starting at `index` run to a `{` on the same line.
    fn is_block_header_at(&self, mut index: usize) -> bool {
        loop {
            index = self.skip_trivia_from(index);
            match self.kind_at(index) {
                Some(IDENT | QUOTE) => index = self.label_end(index),
                Some(L_BRACE) => return true,
                _ => return false,
            }
        }
    }

    // ---- Grammar ------------------------------------------------------------------------

    fn source_file(&mut self) {
        self.builder.start_node(SOURCE_FILE);
        loop {
            self.skip_newlines();
            match self.current() {
                None => break,
                Some(IDENT | QUOTE) => {
                    if self.is_attribute_at(self.current_index()) {
                        self.error_here(
                            ErrorCode::TopLevelAttribute,
                            "attributes must be inside a block: a file holds blocks such as `type salto.x { ... }`",
                        );
                        self.attribute();
                    } else {
                        self.block(true);
                    }
                }
                Some(L_BRACE) => {
                    self.error_here(
                        ErrorCode::MissingLabels,
                        "block without labels: write its header, such as `type salto.x {` or `salto.x my_instance {`",
                    );
                    self.start(BLOCK);
                    self.body();
                    self.finish();
                }
                Some(R_BRACE | R_BRACK | R_PAREN) => self.unexpected_close(),
                Some(ERROR_TOKEN) => self.recover_line(),
                Some(_) => {
                    let message = format!(
                        "expected a block such as `type salto.x {{` or `salto.x my_instance {{`, found {}",
                        self.found()
                    );
                    self.error_here(ErrorCode::ExpectedItem, message);
                    self.recover_line();
                }
            }
        }
        self.finish();
    }

    fn unexpected_close(&mut self) {
        let message = format!("`{}` closes nothing: it has no matching opening bracket", self.current_text());
        self.error_here(ErrorCode::UnexpectedClose, message);
        self.start(ERROR);
        self.bump();
        self.finish();
    }

    /// A block: labels then `{ body }`; whether its body ends with its own `}`.
    fn block(&mut self, top_level: bool) -> bool {
        self.start(BLOCK);
        self.labels(top_level);
        let mut closed = false;
        if self.current() == Some(L_BRACE) {
            closed = self.body();
        } else {
            let message = format!("expected `{{` after the block labels, found {}", self.found());
            self.error_here(ErrorCode::ExpectedBlockBody, message);
            if !matches!(self.current(), None | Some(NEWLINE | R_BRACE)) {
                self.recover_line();
            }
        }
        self.finish();
        closed
    }

    /// Block labels, which may span lines. At top level a label at column zero after a line
    /// break starts a new header instead (so a stray word does not swallow the next block).
    fn labels(&mut self, top_level: bool) {
        loop {
            match self.current() {
                Some(IDENT) => self.label_word(),
                Some(QUOTE) => {
                    self.start(LABEL);
                    self.string();
                    self.finish();
                }
                Some(NEWLINE) => {
                    let next = self.skip_blank_from(self.pos);
                    let continues = match self.kind_at(next) {
                        Some(L_BRACE) => true,
                        Some(IDENT | QUOTE) => !(top_level && self.at_column_zero(next)),
                        _ => false,
                    };
                    if !continues {
                        return;
                    }
                    self.skip_newlines();
                }
                _ => return,
            }
        }
    }

    /// A word label; `List<...>`/`Map<...>` written without quotes is taken whole and reported.
    fn label_word(&mut self) {
        self.start(LABEL);
        let is_generic = self.is_unquoted_generic_at(self.current_index());
        let start = self.current_range().start();
        self.bump();
        if is_generic {
            let mut open = 0i32;
            while let Some(ERROR_TOKEN | IDENT) = self.kind_at(self.pos) {
                let text = self.text_at(self.pos);
                open += text.matches('<').count() as i32 - text.matches('>').count() as i32;
                self.push_token();
                if open <= 0 {
                    break;
                }
            }
            let range = TextRange::new(start, TextSize::from(self.starts[self.pos]));
            let message = format!("generic types must be quoted: write `\"{}\"`", &self.text[range]);
            self.error(ErrorCode::UnquotedGenericType, range, message);
        }
        self.finish();
    }

    /// `{` attributes and nested blocks `}`; whether it ends with its own `}`.
    fn body(&mut self) -> bool {
        self.start(BODY);
        let open = self.current_range();
        if !self.enter() {
            self.finish();
            return false;
        }
        self.bump();
        let mut indented_items = false;
        let mut closed = false;
        loop {
            self.skip_newlines();
            match self.current() {
                None => {
                    self.error(ErrorCode::Unclosed, open, "this `{` is never closed: add `}` at the end of the block");
                    break;
                }
                Some(R_BRACE) => {
                    self.bump();
                    closed = true;
                    break;
                }
                Some(IDENT | QUOTE) => {
                    let index = self.current_index();
                    if self.starts_new_top_level_block(index, indented_items) {
                        self.error(
                            ErrorCode::Unclosed,
                            open,
                            "this `{` is never closed: the next top-level block starts before its `}`",
                        );
                        break;
                    }
                    indented_items |= !self.at_column_zero(index);
                    if self.is_attribute_at(index) {
                        self.attribute();
                    } else if self.is_block_header_at(index) || self.is_unquoted_generic_at(index) {
                        self.block(false);
                    } else {
                        self.neither_attribute_nor_block(index);
                    }
                }
                Some(R_BRACK | R_PAREN) => self.unexpected_close(),
                Some(ERROR_TOKEN) => self.recover_line(),
                Some(_) => {
                    let message = format!(
                        "expected an attribute (`key = value`) or a block (`<type> <name> {{`), found {}",
                        self.found()
                    );
                    self.error_here(ErrorCode::ExpectedItem, message);
                    self.recover_line();
                }
            }
        }
        self.leave();
        self.finish();
        closed
    }

    /// Reports a body item that is neither `key = value` nor a block header, and skips its line.
    fn neither_attribute_nor_block(&mut self, index: usize) {
        let after = self.skip_trivia_from(self.label_end(index));
        // An unexpected character after the key was reported by the lexer already.
        if self.kind_at(after) != Some(ERROR_TOKEN) {
            let found = match self.kind_at(after) {
                None => "the end of the file".to_owned(),
                Some(NEWLINE) => "the end of the line".to_owned(),
                Some(_) => format!("`{}`", self.text_at(after)),
            };
            let key = &self.text[self.starts[index] as usize..self.starts[self.label_end(index)] as usize];
            let message = format!("expected `=` (an attribute) or `{{` (a block) after `{key}`, found {found}");
            let range = self.current_range();
            self.error(ErrorCode::ExpectedItem, range, message);
        }
        self.recover_line();
    }

    /// Whether an unquoted `List<...>` or `Map<...>` label starts at `index`.
    fn is_unquoted_generic_at(&self, index: usize) -> bool {
        matches!(self.kind_at(index), Some(IDENT))
            && matches!(self.text_at(index), "List" | "Map")
            && self.kind_at(index + 1) == Some(ERROR_TOKEN)
            && self.text_at(index + 1).starts_with('<')
    }

    /// Whether an item at `index` inside a nested body is really the header of the next
    /// top-level block, which means the enclosing block lacks its `}`.
    fn starts_new_top_level_block(&self, index: usize, indented_items: bool) -> bool {
        if !self.at_column_zero(index) || !self.is_block_header_at(index) {
            return false;
        }
        let keyword = matches!(self.text_at(index), "type" | "settings" | "vars");
        keyword || indented_items
    }

    /// `key = value`.
    fn attribute(&mut self) {
        self.start(ATTRIBUTE);
        self.start(KEY);
        if self.current() == Some(QUOTE) {
            self.string();
        } else {
            self.bump();
        }
        self.finish();
        // The caller checked that `=` follows.
        self.bump();
        self.value();
        self.finish();
    }

    /// A value, which must start on the current line.
    fn value(&mut self) {
        match self.current() {
            Some(QUOTE) => self.string(),
            Some(MULTILINE_OPEN) => self.multiline_string(),
            Some(NUMBER) => {
                self.start(LITERAL);
                self.bump();
                self.finish();
            }
            Some(IDENT) => {
                if matches!(self.current_text(), "true" | "false") {
                    self.start(LITERAL);
                    self.bump();
                    self.finish();
                } else if self.next_on_line() == Some(L_PAREN) {
                    self.call();
                } else {
                    self.start(REFERENCE);
                    self.bump();
                    self.finish();
                }
            }
            Some(L_BRACK) => {
                self.list();
            }
            Some(L_BRACE) => {
                self.object();
            }
            // The lexer reported the bad character; the rest of the line goes with it.
            Some(ERROR_TOKEN) => self.recover_line(),
            None | Some(NEWLINE) => {
                let message = format!("expected a value on the same line, found {}", self.found());
                self.error_here(ErrorCode::ExpectedValue, message);
            }
            Some(_) => {
                let message = format!("expected a value, found {}", self.found());
                self.error_here(ErrorCode::ExpectedValue, message);
            }
        }
    }

    /// `"` text, escapes and `${ }` templates `"`; the lexer already reported a missing `"`.
    fn string(&mut self) {
        self.start(STRING);
        self.bump();
        loop {
            match self.kind_at(self.pos) {
                Some(STRING_TEXT | ESCAPE) => self.push_token(),
                Some(TEMPLATE_START) => self.template(),
                Some(QUOTE) => {
                    self.push_token();
                    break;
                }
                _ => break,
            }
        }
        self.finish();
    }

    /// `${ id }`: the lexer only emits `TEMPLATE_START` for a complete template.
    fn template(&mut self) {
        self.builder.start_node(TEMPLATE);
        while let Some(kind) = self.kind_at(self.pos) {
            self.push_token();
            if kind == TEMPLATE_END {
                break;
            }
        }
        self.finish();
    }

    fn multiline_string(&mut self) {
        self.start(MULTILINE_STRING);
        self.bump();
        loop {
            match self.kind_at(self.pos) {
                Some(STRING_TEXT | ESCAPE) => self.push_token(),
                Some(TEMPLATE_START) => self.template(),
                Some(MULTILINE_CLOSE) => {
                    self.push_token();
                    break;
                }
                _ => break,
            }
        }
        self.finish();
    }

    /// `[` values, separated by commas `]`; whether the list ends with its own `]`.
    fn list(&mut self) -> bool {
        self.start(LIST);
        let open = self.current_range();
        if !self.enter() {
            self.finish();
            return false;
        }
        self.bump();
        let closed = self.comma_separated(R_BRACK, open);
        self.leave();
        self.finish();
        closed
    }

    fn call(&mut self) {
        self.start(CALL);
        self.bump();
        self.start(ARG_LIST);
        let open = self.current_range();
        if self.enter() {
            self.bump();
            self.comma_separated(R_PAREN, open);
            self.leave();
        }
        self.finish();
        self.finish();
    }

    /// Items of a list or an argument list up to `close`; line breaks are free inside. Whether
    /// `close` ended them.
    fn comma_separated(&mut self, close: SyntaxKind, open: TextRange) -> bool {
        let (what, closer) = if close == R_BRACK { ("list", "]") } else { ("argument list", ")") };
        loop {
            self.skip_newlines();
            match self.current() {
                Some(kind) if kind == close => {
                    self.bump();
                    return true;
                }
                None | Some(R_BRACE | R_BRACK | R_PAREN) => {
                    let message = format!("this {what} is never closed: add `{closer}`");
                    self.error(ErrorCode::Unclosed, open, message);
                    return false;
                }
                Some(IDENT | QUOTE) if self.is_attribute_at(self.current_index()) => {
                    let message = format!("this {what} is never closed: add `{closer}` before the next attribute");
                    self.error(ErrorCode::Unclosed, open, message);
                    return false;
                }
                Some(COMMA) => {
                    self.error_here(ErrorCode::ExpectedValue, "expected a value before `,`");
                    self.start(ERROR);
                    self.bump();
                    self.finish();
                }
                Some(_) => {
                    let before = self.pos;
                    self.value();
                    if self.pos == before {
                        self.start(ERROR);
                        self.bump();
                        self.finish();
                    }
                    self.skip_newlines();
                    match self.current() {
                        Some(COMMA) => self.bump(),
                        Some(kind) if kind == close => {}
                        None | Some(R_BRACE | R_BRACK | R_PAREN) => {}
                        Some(IDENT | QUOTE) if self.is_attribute_at(self.current_index()) => {}
                        Some(_) => {
                            let message = format!("expected `,` or `{closer}` after this item, found {}", self.found());
                            self.error_here(ErrorCode::ExpectedComma, message);
                        }
                    }
                }
            }
        }
    }

    /// `{` entries `key = value`, one per line `}`; whether the object ends with its own `}`.
    fn object(&mut self) -> bool {
        self.start(OBJECT);
        let open = self.current_range();
        if !self.enter() {
            self.finish();
            return false;
        }
        self.bump();
        let mut closed = false;
        loop {
            self.skip_newlines();
            match self.current() {
                None | Some(R_BRACK | R_PAREN) => {
                    self.error(ErrorCode::Unclosed, open, "this object is never closed: add `}`");
                    break;
                }
                Some(R_BRACE) => {
                    self.bump();
                    closed = true;
                    break;
                }
                Some(IDENT | QUOTE) if self.is_attribute_at(self.current_index()) => {
                    self.attribute();
                    match self.current() {
                        None | Some(NEWLINE | R_BRACE) => {}
                        Some(COMMA) => {
                            self.error_here(
                                ErrorCode::ExpectedNewline,
                                "object entries are separated by line breaks, not commas",
                            );
                            self.start(ERROR);
                            self.bump();
                            self.finish();
                        }
                        Some(_) => {
                            let message = format!("expected a line break after this entry, found {}", self.found());
                            self.error_here(ErrorCode::ExpectedNewline, message);
                        }
                    }
                }
                Some(IDENT | QUOTE) => {
                    let message = format!(
                        "expected `=` after the key{}",
                        if self.next_on_line() == Some(ERROR_TOKEN) {
                            String::new()
                        } else {
                            format!(", found {}", self.found_after_key())
                        }
                    );
                    let range = self.current_range();
                    self.error(ErrorCode::ExpectedEquals, range, message);
                    self.recover_line();
                }
                Some(ERROR_TOKEN) => self.recover_line(),
                Some(_) => {
                    let message = format!("expected a key (a word or a quoted string), found {}", self.found());
                    self.error_here(ErrorCode::InvalidKey, message);
                    self.recover_line();
                }
            }
        }
        self.leave();
        self.finish();
        closed
    }

    fn found_after_key(&self) -> String {
        let index = self.skip_trivia_from(self.label_end(self.current_index()));
        match self.kind_at(index) {
            None => "the end of the file".to_owned(),
            Some(NEWLINE) => "the end of the line".to_owned(),
            Some(_) => format!("`{}`", self.text_at(index)),
        }
    }

    /// Wraps the rest of the line in an `ERROR` node, taking bracketed groups whole (across
    /// lines) and stopping before a `}` that closes the enclosing construct.
    fn recover_line(&mut self) {
        self.start(ERROR);
        let mut open = 0u32;
        let mut consumed = false;
        while let Some(kind) = self.kind_at(self.pos) {
            match kind {
                NEWLINE if open == 0 => break,
                L_BRACE | L_BRACK | L_PAREN => open += 1,
                R_BRACE | R_BRACK | R_PAREN => {
                    if open == 0 {
                        if consumed || kind == R_BRACE {
                            break;
                        }
                    } else {
                        open -= 1;
                    }
                }
                _ => {}
            }
            self.push_token();
            consumed = true;
        }
        self.finish();
    }

    // ---- Nesting limit ------------------------------------------------------------------

    /// Enters one level of nesting at an opening bracket. Past [`MAX_NESTING`] the whole
    /// bracketed group is consumed flat into an `ERROR` node, reported, and `false` returned.
    fn enter(&mut self) -> bool {
        if self.depth < MAX_NESTING {
            self.depth += 1;
            return true;
        }
        let range = self.current_range();
        self.error(
            ErrorCode::NestingTooDeep,
            range,
            format!("nesting deeper than {MAX_NESTING} levels is not analysed"),
        );
        self.start(ERROR);
        let mut open = 0u32;
        while let Some(kind) = self.kind_at(self.pos) {
            self.push_token();
            match kind {
                L_BRACE | L_BRACK | L_PAREN => open += 1,
                R_BRACE | R_BRACK | R_PAREN => {
                    open = open.saturating_sub(1);
                    if open == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        self.finish();
        false
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }
}
