//! The structure of an HCL file from its syntax alone: the outline (blocks with their labels,
//! attributes), the regions an editor can fold and the steps of "expand selection".

use crate::structure::{CommentKinds, Fold, FoldKind, Symbol, SymbolKind};
use nacl_syntax::TextRange;
use nacl_syntax::hcl::{
    SyntaxKind::*,
    SyntaxNode,
    ast::{AstNodeExt, Body, BodyItem, SourceFile},
};

/// The outline of a parsed HCL file: blocks (named by type and labels) and attributes, nested.
pub fn document_symbols(root: &SyntaxNode) -> Vec<Symbol> {
    SourceFile::cast(root.clone()).map(|file| items(file.items())).unwrap_or_default()
}

fn items(items: impl Iterator<Item = BodyItem>) -> Vec<Symbol> {
    items.filter_map(item).collect()
}

fn item(item: BodyItem) -> Option<Symbol> {
    match item {
        BodyItem::Attribute(attribute) => {
            let name = attribute.name()?;
            let kind = match attribute.value().map(|v| v.kind()) {
                Some(OBJECT | TUPLE | FOR_EXPR) => SymbolKind::Object,
                _ => SymbolKind::Property,
            };
            Some(Symbol {
                name: name.text().to_owned(),
                detail: None,
                kind,
                range: attribute.syntax().text_range(),
                selection: name.text_range(),
                children: Vec::new(),
            })
        }
        BodyItem::Block(block) => {
            let type_name = block.type_name()?;
            let labels = block.labels();
            let name = labels.iter().map(|l| l.text()).collect::<Vec<_>>().join(" ");
            let selection = labels.iter().fold(type_name.text_range(), |range, label| range.cover(label.range()));
            Some(Symbol {
                name: if name.is_empty() { type_name.text().to_owned() } else { name },
                detail: (!labels.is_empty()).then(|| type_name.text().to_owned()),
                kind: SymbolKind::Block,
                range: block.syntax().text_range(),
                selection,
                children: block.body().map(|body: Body| items(body.items())).unwrap_or_default(),
            })
        }
    }
}

/// The foldable regions of a parsed HCL file, in text order: block bodies, objects, tuples,
/// argument lists, heredocs and `for` expressions that span lines, block comments and runs of line
/// comments.
pub fn folding_ranges(root: &SyntaxNode, text: &str) -> Vec<Fold> {
    crate::structure::folding_ranges_in(
        root,
        text,
        |kind| match kind {
            BODY | OBJECT | TUPLE | ARG_LIST | HEREDOC | FOR_EXPR => Some(FoldKind::Region),
            _ => None,
        },
        &CommentKinds { line: LINE_COMMENT, block: BLOCK_COMMENT, newline: NEWLINE, whitespace: WHITESPACE },
    )
}

/// The ranges "expand selection" steps through from `offset`, innermost first.
pub fn selection_ranges(root: &SyntaxNode, offset: nacl_syntax::TextSize) -> Vec<TextRange> {
    crate::structure::selection_ranges_in(root, offset, |kind| kind.is_trivia() || kind == NEWLINE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outline_names_blocks_by_their_labels() {
        let text = "# leading comment\nresource \"aws_instance\" web {\n  ami = \"x\"\n  tags = {\n    a = 1\n  }\n  lifecycle {\n  }\n}\nlocals {\n  n = 1\n}\n";
        let mut out = String::new();
        fn walk(symbols: &[Symbol], depth: usize, out: &mut String) {
            for s in symbols {
                out.push_str(&format!("{}{:?} {} {:?}\n", "  ".repeat(depth), s.kind, s.name, s.detail));
                walk(&s.children, depth + 1, out);
            }
        }
        walk(&document_symbols(&nacl_syntax::hcl::parse(text).syntax()), 0, &mut out);
        expect_test::expect![[r#"
            Block aws_instance web Some("resource")
              Property ami None
              Object tags None
              Block lifecycle None
            Block locals None
              Property n None
        "#]]
        .assert_eq(&out);
    }

    #[test]
    fn folds_span_lines_and_comment_runs() {
        let text = "# one\n# two\nb {\n  l = [1]\n  m = [\n    1,\n  ]\n}\n/* a\n b */\n";
        let parse = nacl_syntax::hcl::parse(text);
        let folds: Vec<(FoldKind, &str)> =
            folding_ranges(&parse.syntax(), text).iter().map(|f| (f.kind, &text[f.range])).collect();
        assert_eq!(
            folds,
            [
                (FoldKind::Comment, "# one\n# two"),
                (FoldKind::Region, "{\n  l = [1]\n  m = [\n    1,\n  ]\n}"),
                (FoldKind::Region, "[\n    1,\n  ]"),
                (FoldKind::Comment, "/* a\n b */"),
            ]
        );
    }
}
