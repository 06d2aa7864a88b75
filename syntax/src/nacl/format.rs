//! The NaCl formatter: one canonical style, the one Salto itself writes.
//!
//! Two-space indentation, `key = value`, `{` on the header line, empty blocks, lists and objects
//! as two lines, one list item per line with a trailing comma, bare labels and keys when they are
//! words. Comments are kept (trailing ones stay on their line), runs of blank lines become one,
//! and values are never touched: strings keep their escapes, numbers their spelling, and
//! multiline strings their content and closing line byte for byte. A top-level block that holds
//! a lexical or grammar error is copied as it is, so formatting never makes a file worse.
//! There are no options.

use crate::TextEdit;
use crate::nacl::{
    ErrorCode, Parse,
    SyntaxKind::{self, *},
    green::{GNode, GToken},
    lexer::is_word,
    view::{NodeView, TokenView},
};
use rowan::{NodeOrToken, TextRange, TextSize};

/// Formats a whole file.
pub fn format(text: &str) -> String {
    format_parsed(text, &crate::nacl::parse(text))
}

/// Formats a whole file that has already been parsed; `parse` must be the parse of `text`.
pub fn format_parsed(text: &str, parse: &Parse) -> String {
    // A byte order mark stays where it is, at the very start, out of the way of the rest (which
    // may be copied verbatim from its first byte when it is broken).
    if let Some(rest) = text.strip_prefix('\u{feff}') {
        // Unless the mark changes how the rest parses (where a broken block ends can depend on
        // columns): then the text is kept as written.
        let rest_parse = crate::nacl::parse(rest);
        let mark = TextSize::of('\u{feff}');
        let same = rest_parse.errors().len() == parse.errors().len()
            && rest_parse
                .errors()
                .iter()
                .zip(parse.errors())
                .all(|(a, b)| a.code == b.code && a.range + mark == b.range);
        if !same {
            return text.to_owned();
        }
        return format!("\u{feff}{}", format_parsed(rest, &rest_parse));
    }
    let mut f = Formatter::new(text, parse);
    let root = GNode::root(parse.green());
    let ends_verbatim = f.file(root.children().collect());
    // One final line break, unless the file ends in text copied as it was.
    if f.line_has_content && !ends_verbatim {
        f.out.push_str(f.newline);
    }
    f.out
}

/// Formats the top-level blocks that intersect `range`, leaving the rest of the file alone.
/// Returns `None` when no block intersects the range.
pub fn format_range(text: &str, parse: &Parse, range: TextRange) -> Option<TextEdit> {
    let root = GNode::root(parse.green());
    let blocks: Vec<GNode<'_>> =
        root.nodes(BLOCK).filter(|b| b.range().intersect(range).is_some() || range.contains_range(b.range())).collect();
    let covered = blocks.first()?.range().cover(blocks.last()?.range());
    let mut f = Formatter::new(text, parse);
    // The blocks and what lies between them, formatted as a file of their own.
    f.file(root.children().filter(|c| covered.contains_range(c_range(c))).collect());
    Some(TextEdit { range: covered, new_text: f.out })
}

fn c_range(child: &NodeOrToken<GNode<'_>, GToken<'_>>) -> TextRange {
    match child {
        NodeOrToken::Node(n) => n.range(),
        NodeOrToken::Token(t) => t.range(),
    }
}

/// What a container's loop formats: a child of the tree, or a stretch of text kept as it is.
enum Piece<'a> {
    Child(NodeOrToken<GNode<'a>, GToken<'a>>),
    Verbatim(TextRange),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Container {
    File,
    Body,
    Object,
    List,
    Args,
}

struct Formatter<'a> {
    text: &'a str,
    out: String,
    /// The file's line break, kept as the author had it.
    newline: &'static str,
    indent: usize,
    /// Whether anything has been written on the current output line.
    line_has_content: bool,
    /// Ranges of errors that make a block unsafe to reformat.
    broken: Vec<TextRange>,
}

const INDENT: &str = "  ";

impl<'a> Formatter<'a> {
    fn new(text: &'a str, parse: &Parse) -> Formatter<'a> {
        let newline = match text.find(['\n', '\r']) {
            Some(at) if text[at..].starts_with("\r\n") => "\r\n",
            _ => "\n",
        };
        let broken = parse
            .errors()
            .iter()
            .filter(|e| ErrorCode::from_code(e.code).is_some_and(ErrorCode::breaks_tree))
            .map(|e| e.range)
            .collect();
        Formatter {
            text,
            out: String::with_capacity(text.len() + text.len() / 8),
            newline,
            indent: 0,
            line_has_content: false,
            broken,
        }
    }

    fn is_broken(&self, range: TextRange) -> bool {
        self.broken.iter().any(|e| e.start() >= range.start() && e.start() <= range.end())
    }

    /// Writes formatted text on the current line, indenting it if it starts the line.
    fn write(&mut self, s: &str) {
        if !self.line_has_content {
            for _ in 0..self.indent {
                self.out.push_str(INDENT);
            }
            self.line_has_content = true;
        }
        self.out.push_str(s);
    }

    /// Writes text exactly as given (it may span lines).
    fn write_raw(&mut self, s: &str) {
        self.out.push_str(s);
        self.line_has_content = !(s.ends_with('\n') || s.ends_with('\r'));
    }

    /// Ends the current line (if it has content), optionally leaving one blank line.
    fn start_line(&mut self, blank: bool) {
        if self.out.is_empty() {
            return;
        }
        if self.line_has_content {
            self.out.push_str(self.newline);
            self.line_has_content = false;
        }
        if blank {
            self.out.push_str(self.newline);
        }
    }

    fn source(&self, range: TextRange) -> &'a str {
        &self.text[range]
    }

    fn sequence(&mut self, node: GNode<'a>, container: Container) {
        self.sequence_of(node.children().map(Piece::Child), container);
    }

    /// Formats the top-level children of a file. Well-formed blocks are formatted; wherever
    /// something broken lies between two of them, that whole stretch of text (line breaks
    /// included) is kept as it is, so the broken part parses exactly as before. Returns whether
    /// the output ends with such a stretch.
    fn file(&mut self, children: Vec<NodeOrToken<GNode<'a>, GToken<'a>>>) -> bool {
        let good_block = |c: &NodeOrToken<GNode<'a>, GToken<'a>>| match c {
            NodeOrToken::Node(n) => n.kind() == BLOCK && self.is_well_formed_block(*n),
            NodeOrToken::Token(_) => false,
        };
        let clean_trivia = |c: &NodeOrToken<GNode<'a>, GToken<'a>>| matches!(c, NodeOrToken::Token(t) if matches!(t.kind(), NEWLINE | WHITESPACE | COMMENT | HASH_COMMENT));
        let file_range = match (children.first(), children.last()) {
            (Some(first), Some(last)) => c_range(first).cover(c_range(last)),
            _ => return false,
        };
        let mut pieces = Vec::with_capacity(children.len());
        let mut ends_verbatim = false;
        let mut i = 0;
        while i < children.len() {
            if good_block(&children[i]) {
                pieces.push(Piece::Child(children[i]));
                i += 1;
                continue;
            }
            // A run of children up to the next well-formed block.
            let run_end = (i..children.len()).find(|&j| good_block(&children[j])).unwrap_or(children.len());
            if children[i..run_end].iter().all(clean_trivia) {
                pieces.extend(children[i..run_end].iter().map(|c| Piece::Child(*c)));
            } else {
                let start = if i == 0 { file_range.start() } else { c_range(&children[i - 1]).end() };
                let end = children.get(run_end).map_or(file_range.end(), |c| c_range(c).start());
                pieces.push(Piece::Verbatim(TextRange::new(start, end)));
                ends_verbatim = run_end == children.len();
            }
            i = run_end;
        }
        self.sequence_of(pieces.into_iter(), Container::File);
        ends_verbatim
    }

    fn is_well_formed_block(&self, block: GNode<'a>) -> bool {
        !self.is_broken(block.range())
            && block.node(BODY).is_some()
            && !block.children().any(|c| matches!(c, NodeOrToken::Token(t) if t.kind() == COMMENT))
    }

    /// Formats the items of a container with the comments and blank lines between them.
    fn sequence_of(&mut self, children: impl Iterator<Item = Piece<'a>>, container: Container) {
        let mut children = children.peekable();
        if container != Container::File {
            // The opening delimiter is the first child.
            if let Some(Piece::Child(NodeOrToken::Token(open))) = children.next() {
                self.write(open.text());
            }
            self.indent += 1;
        }
        let mut emitted_any = false;
        let mut line_breaks = 0usize;
        // Whether the last thing written (an item, or the opening delimiter) is on this source line.
        let mut on_item_line = container != Container::File;
        let mut close = None;
        // After text kept as it is, the next item follows it directly.
        let mut glued = false;
        for piece in children {
            let child = match piece {
                Piece::Child(child) => child,
                Piece::Verbatim(range) => {
                    self.write_raw(self.source(range));
                    glued = true;
                    emitted_any = true;
                    line_breaks = 0;
                    on_item_line = false;
                    continue;
                }
            };
            match child {
                NodeOrToken::Token(token) => match token.kind() {
                    NEWLINE => {
                        line_breaks += count_line_breaks(token.text());
                        on_item_line = false;
                    }
                    WHITESPACE | COMMA => {}
                    R_BRACE | R_BRACK | R_PAREN if container != Container::File => close = Some(token),
                    COMMENT | HASH_COMMENT => {
                        if on_item_line && self.line_has_content {
                            self.write(" ");
                        } else {
                            self.start_line(emitted_any && line_breaks >= 2);
                        }
                        self.write(token.text().trim_end());
                        emitted_any = true;
                        line_breaks = 0;
                    }
                    _ => {
                        // Block comments, conflict markers and stray tokens: only outside
                        // formatted blocks, copied as they are on their own line.
                        self.start_line(emitted_any && line_breaks >= 2);
                        self.write_raw(token.text());
                        emitted_any = true;
                        line_breaks = 0;
                    }
                },
                NodeOrToken::Node(item) => {
                    let after_verbatim = std::mem::take(&mut glued);
                    if after_verbatim && self.line_has_content {
                        // An item on the line of text kept as it is stays as written too:
                        // rewritten, it could merge with that text (found by the `format` fuzz
                        // target: `r=C"t"{}` became `r=Ct {`).
                        self.write_raw(self.source(item.range()));
                        emitted_any = true;
                        line_breaks = 0;
                        on_item_line = true;
                        continue;
                    }
                    if !after_verbatim {
                        self.start_line(emitted_any && line_breaks >= 2);
                    }
                    self.item(item, container);
                    emitted_any = true;
                    line_breaks = 0;
                    on_item_line = true;
                }
            }
        }
        if container != Container::File {
            self.indent -= 1;
            self.start_line(false);
            if let Some(close) = close {
                self.write(close.text());
            }
        }
    }

    fn item(&mut self, item: GNode<'a>, container: Container) {
        match (container, item.kind()) {
            (Container::File | Container::Body, BLOCK) => self.block(item),
            (Container::Body | Container::Object, ATTRIBUTE) => self.attribute(item),
            (Container::List | Container::Args, _) if is_value(item.kind()) => {
                self.value(item);
                self.write(",");
            }
            // Error nodes and misplaced items are only found in blocks copied verbatim, or at
            // top level: keep them as written.
            _ => self.write_raw(self.source(item.range())),
        }
    }

    fn block(&mut self, block: GNode<'a>) {
        let body = block.node(BODY);
        if !self.is_well_formed_block(block) {
            self.write(self.source(block.range()));
            // A verbatim block may end inside a line; what follows starts a new one.
            self.line_has_content = true;
            return;
        }
        for label in block.nodes(LABEL) {
            let text = self.name(label);
            self.write(&text);
            self.write(" ");
        }
        if let Some(body) = body {
            self.sequence(body, Container::Body);
        }
    }

    /// A label or key: bare when its value is a word, else the string as written.
    fn name(&self, node: GNode<'a>) -> String {
        match node.node(STRING) {
            Some(string) if string.node(TEMPLATE).is_none() => {
                let value = string.string_value();
                if is_word(&value) { value } else { self.source(string.range()).to_owned() }
            }
            _ => self.source(node.range()).trim().to_owned(),
        }
    }

    fn attribute(&mut self, attribute: GNode<'a>) {
        if let Some(key) = attribute.node(KEY) {
            let key = self.name(key);
            self.write(&key);
        }
        self.write(" =");
        if let Some(value) = attribute.children().filter_map(NodeOrToken::into_node).find(|n| is_value(n.kind())) {
            self.write(" ");
            self.value(value);
        }
    }

    fn value(&mut self, value: GNode<'a>) {
        match value.kind() {
            LIST => self.sequence(value, Container::List),
            OBJECT => self.sequence(value, Container::Object),
            MULTILINE_STRING => self.multiline(value),
            CALL => self.call(value),
            _ => self.write(self.source(value.range())),
        }
    }

    /// `'''`, then the content and the closing line exactly as written.
    fn multiline(&mut self, string: GNode<'a>) {
        self.write("'''");
        self.write_raw(self.newline);
        for child in string.children().skip(1) {
            let range = c_range(&child);
            self.write_raw(self.source(range));
        }
        self.line_has_content = true;
    }

    /// `name(arg)` on one line when there is at most one argument and it is a plain scalar;
    /// otherwise one argument per line with trailing commas, as Salto writes them.
    fn call(&mut self, call: GNode<'a>) {
        if let Some(name) = call.token(IDENT) {
            self.write(name.text());
        }
        let Some(args) = call.node(ARG_LIST) else { return };
        let mut arg_nodes = args.children().filter_map(NodeOrToken::into_node);
        let single = arg_nodes.next();
        let one_line = arg_nodes.next().is_none()
            && single.is_none_or(|arg| matches!(arg.kind(), STRING | LITERAL | REFERENCE))
            && !args
                .children()
                .any(|c| matches!(c, NodeOrToken::Token(t) if matches!(t.kind(), COMMENT | HASH_COMMENT)));
        if !one_line {
            self.sequence(args, Container::Args);
            return;
        }
        self.write("(");
        if let Some(arg) = single {
            self.write(self.source(arg.range()));
        }
        self.write(")");
    }
}

fn is_value(kind: SyntaxKind) -> bool {
    matches!(kind, STRING | MULTILINE_STRING | LITERAL | REFERENCE | LIST | OBJECT | CALL)
}

/// Line breaks in a `NEWLINE` token: `\r\n`, `\n`, `\r`, U+2028 and U+2029 each count once.
fn count_line_breaks(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut count = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\n' => count += 1,
            b'\r' if bytes.get(i + 1) != Some(&b'\n') => count += 1,
            0xE2 => count += 1, // U+2028 / U+2029, the only non-ASCII NEWLINE text
            _ => {}
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_text_is_unchanged() {
        let text = "type salto.t {\n  string a {\n  }\n}\nsalto.t i {\n  a = \"x\"\n  l = [\n    1,\n  ]\n}\n";
        assert_eq!(format(text), text);
    }

    #[test]
    fn crlf_is_kept() {
        assert_eq!(format("salto.t i {\r\n    a = 1\r\n}"), "salto.t i {\r\n  a = 1\r\n}\r\n");
    }

    #[test]
    fn empty_file_stays_empty() {
        assert_eq!(format(""), "");
        assert_eq!(format("\n\n  \n"), "");
    }
}
