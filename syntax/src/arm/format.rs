//! ARMLang's one canonical layout: two-space indentation, one declaration, property or array item
//! per line, `key: value` with one space, operators between single spaces, `f(a, b)`, at most one
//! blank line kept between items, comments kept where they are (on their own line or after an
//! item), and a line break at the end.
//!
//! Strings are kept as written. A file with syntax errors is kept exactly as written, so
//! formatting never loses text; `format(format(x)) == format(x)`.

use super::{
    SyntaxKind::{self, *},
    SyntaxNode,
};
use rowan::NodeOrToken;

/// `text` in the canonical layout.
pub fn format(text: &str) -> String {
    format_parsed(text, &super::parse(text))
}

/// `text`, already parsed as `parse`, in the canonical layout.
pub fn format_parsed(text: &str, parse: &super::Parse) -> String {
    // A file with syntax errors is kept as written: where the parser ends a broken declaration
    // depends on the layout, so reformatting around one was not idempotent (the fuzz target kept
    // finding such files: line breaks, stray carriage returns, a loop glued to a broken one).
    if !parse.errors().is_empty() {
        return text.to_owned();
    }
    // CRLF only when every line break is one (a comment or string may hold a lone `\n`).
    let newline =
        if text.contains('\n') && text.matches('\n').count() == text.matches("\r\n").count() { "\r\n" } else { "\n" };
    let formatter = Formatter { newline };
    let body = formatter.entries(&parse.syntax(), 0, false);
    let body = body.strip_prefix(newline).unwrap_or(&body);
    if body.is_empty() { String::new() } else { format!("{body}{newline}") }
}

/// Lays out a tree without syntax errors.
struct Formatter {
    /// The line break of the file: `\r\n` or `\n`.
    newline: &'static str,
}

impl Formatter {
    /// The items of `node` (a file, a loop body, an object or an array), each on a line of its own
    /// at `indent`, every line starting with a line break. `opened`: the items follow a `{` or `[`,
    /// so a comment on that line stays there.
    fn entries(&self, node: &SyntaxNode, indent: usize, opened: bool) -> String {
        let mut out = String::new();
        let mut newlines = 0usize;
        let mut any = false;
        for element in node.children_with_tokens() {
            let text = match &element {
                NodeOrToken::Token(t) => match t.kind() {
                    WHITESPACE | L_BRACE | R_BRACE | L_BRACK | R_BRACK => continue,
                    NEWLINE => {
                        newlines += 1;
                        continue;
                    }
                    LINE_COMMENT | BLOCK_COMMENT if newlines == 0 && (any || opened) => {
                        out.push(' ');
                        out.push_str(t.text().trim_end());
                        continue;
                    }
                    // A line comment runs to the end of its line, spaces there included.
                    LINE_COMMENT => t.text().trim_end().to_owned(),
                    _ => t.text().to_owned(),
                },
                NodeOrToken::Node(n) => self.item(n, indent),
            };
            // A stray line break (a lone `\r`) is not an item.
            if text.is_empty() {
                continue;
            }
            if any && newlines >= 2 {
                out.push_str(self.newline);
            }
            out.push_str(self.newline);
            out.push_str(&" ".repeat(indent));
            out.push_str(&text);
            any = true;
            newlines = 0;
        }
        out
    }

    /// `open`, the items of `node` indented one step further, and `close` on a line of its own at
    /// `indent`; `{}` or `[]` when empty.
    fn block(&self, node: &SyntaxNode, indent: usize, open: &str, close: &str) -> String {
        let inner = self.entries(node, indent + 2, true);
        if inner.is_empty() {
            format!("{open}{close}")
        } else {
            format!("{open}{inner}{}{}{close}", self.newline, " ".repeat(indent))
        }
    }

    /// One item of a list: a declaration, a property, an array item, or something kept verbatim.
    fn item(&self, node: &SyntaxNode, indent: usize) -> String {
        if node.kind().is_declaration() {
            return self.declaration(node, indent);
        }
        match node.kind() {
            PROPERTY => {
                let key = node
                    .children()
                    .find(|n| n.kind() == PROPERTY_KEY)
                    .map(|k| k.text().to_string())
                    .unwrap_or_default();
                let value =
                    node.children().find(|n| is_expr(n.kind())).map(|v| self.expr(&v, indent)).unwrap_or_default();
                format!("{key}: {value}")
            }
            kind if is_expr(kind) => self.expr(node, indent),
            _ => verbatim(node),
        }
    }

    fn declaration(&self, node: &SyntaxNode, indent: usize) -> String {
        let mut out = String::new();
        let mut after_name = false;
        // A `:` is written with the value after it; one without a value (in a declaration the
        // parser reported) is kept too.
        let mut colon = false;
        for element in node.children_with_tokens() {
            match element {
                NodeOrToken::Token(t) => match t.kind() {
                    WHITESPACE | NEWLINE => {}
                    COLON => colon = true,
                    COMMA => out.push(','),
                    _ => {
                        space(&mut out);
                        out.push_str(t.text());
                    }
                },
                NodeOrToken::Node(n) => match n.kind() {
                    NAME | INPUT_TYPE | PROVIDER | RESOURCE_TYPE => {
                        space(&mut out);
                        out.push_str(&n.text().to_string());
                        after_name = n.kind() == NAME;
                    }
                    LOOP_BODY => {
                        space(&mut out);
                        out.push_str(&self.block(&n, indent, "{", "}"));
                    }
                    kind if is_expr(kind) && node.kind() == FOR_LOOP => {
                        space(&mut out);
                        out.push_str(&self.expr(&n, indent));
                    }
                    kind if is_expr(kind) => {
                        if !after_name {
                            space(&mut out);
                        }
                        out.push_str(": ");
                        out.push_str(&self.expr(&n, indent));
                        colon = false;
                    }
                    _ => {
                        space(&mut out);
                        out.push_str(&n.text().to_string());
                    }
                },
            }
        }
        if colon {
            out.push(':');
        }
        out
    }

    fn expr(&self, node: &SyntaxNode, indent: usize) -> String {
        match node.kind() {
            OBJECT => return self.block(node, indent, "{", "}"),
            ARRAY => return self.block(node, indent, "[", "]"),
            STRING | LITERAL | NAME_REF => return node.text().to_string(),
            _ => {}
        }
        if has_inline_comment(node) {
            return node.text().to_string();
        }
        let mut out = String::new();
        for element in node.children_with_tokens() {
            match element {
                NodeOrToken::Token(t) => match t.kind() {
                    WHITESPACE | NEWLINE => {}
                    kind if node.kind() == BINARY_EXPR || (node.kind() == TERNARY_EXPR && kind != L_PAREN) => {
                        out.push(' ');
                        out.push_str(t.text());
                        out.push(' ');
                    }
                    COMMA => out.push_str(", "),
                    _ => out.push_str(t.text()),
                },
                NodeOrToken::Node(n) if n.kind() == ARG_LIST => out.push_str(&self.expr(&n, indent)),
                NodeOrToken::Node(n) if is_expr(n.kind()) => out.push_str(&self.expr(&n, indent)),
                NodeOrToken::Node(n) => out.push_str(&n.text().to_string()),
            }
        }
        // An operator whose operand is missing (reported by the parser) ends the text.
        out.truncate(out.trim_end().len());
        out
    }
}

/// A node as written, without the line breaks and spaces it may end with (an unclosed bracket's
/// node runs to the end of the text); the layout writes those.
fn verbatim(node: &SyntaxNode) -> String {
    node.text().to_string().trim_end_matches([' ', '\t', '\r', '\n']).to_owned()
}

fn space(out: &mut String) {
    if !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
}

fn is_expr(kind: SyntaxKind) -> bool {
    matches!(
        kind,
        LITERAL
            | STRING
            | NAME_REF
            | OBJECT
            | ARRAY
            | PAREN_EXPR
            | UNARY_EXPR
            | BINARY_EXPR
            | TERNARY_EXPR
            | PROPERTY_ACCESS
            | INDEX_ACCESS
            | CALL
    )
}

/// Whether a comment sits inside `node` outside its objects and arrays (where the layout would
/// have nowhere to put it).
fn has_inline_comment(node: &SyntaxNode) -> bool {
    node.children_with_tokens().any(|element| match element {
        NodeOrToken::Token(t) => matches!(t.kind(), LINE_COMMENT | BLOCK_COMMENT),
        NodeOrToken::Node(n) => !matches!(n.kind(), OBJECT | ARRAY) && has_inline_comment(&n),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_layout() {
        let text = "input   string  a:'x'\n\n\n\nvariable  b  {x:1 y:  [1 2]}  // note\nfor v , i in range( 2 ) as l {resource azrm 'T@1' r :{name:v}}\n";
        let expected = "input string a: 'x'\n\nvariable b: {\n  x: 1\n  y: [\n    1\n    2\n  ]\n} // note\nfor v, i in range(2) as l {\n  resource azrm 'T@1' r: {\n    name: v\n  }\n}\n";
        assert_eq!(format(text), expected);
        assert_eq!(format(expected), expected);
    }
}
