//! The structure of one file, from its syntax alone: the outline (document symbols), the regions an
//! editor can fold and the steps of "expand selection". None waits for the workspace to be analysed.

use nacl_syntax::nacl::{
    SyntaxKind::*,
    SyntaxNode,
    ast::{AstNodeExt, Attribute, Block, BodyItem, TopLevelKind, Value},
};
use nacl_syntax::{TextRange, TextSize};

/// What an outline entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolKind {
    /// A type (object, primitive or settings).
    Type,
    /// An instance or settings instance.
    Instance,
    /// A `vars` block.
    Variables,
    /// A variable.
    Variable,
    /// A field of a type.
    Field,
    /// An `annotations` block or one annotation type.
    AnnotationType,
    /// An attribute whose value is an object or a list.
    Object,
    /// An attribute with a plain value.
    Property,
    /// An HCL block.
    Block,
}

/// One outline entry and what it contains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// The name shown.
    pub name: String,
    /// Extra detail shown beside it (a field's type, an element's kind).
    pub detail: Option<String>,
    /// What it is.
    pub kind: SymbolKind,
    /// The whole construct.
    pub range: TextRange,
    /// The part to select (its name or header).
    pub selection: TextRange,
    /// What it contains.
    pub children: Vec<Symbol>,
}

/// The outline of a parsed file.
pub fn document_symbols(root: &SyntaxNode) -> Vec<Symbol> {
    root.children().filter_map(Block::cast).filter_map(|block| top_level_symbol(&block)).collect()
}

fn header_range(block: &Block) -> TextRange {
    let mut labels = block.labels().map(|l| l.syntax().text_range());
    match labels.next() {
        Some(first) => labels.fold(first, |acc, r| acc.cover(r)),
        None => TextRange::empty(block.syntax().text_range().start()),
    }
}

fn top_level_symbol(block: &Block) -> Option<Symbol> {
    let labels = block.label_texts();
    let (name, detail, kind) = match (block.top_level_kind(), labels.as_slice()) {
        (TopLevelKind::Type, [_, name, rest @ ..]) => {
            let detail = match rest {
                [_, category] => format!("type is {category}"),
                _ => "type".to_owned(),
            };
            (name.clone(), detail, SymbolKind::Type)
        }
        (TopLevelKind::SettingsType, [_, name, ..]) => (name.clone(), "settings type".to_owned(), SymbolKind::Type),
        (TopLevelKind::Instance, [type_name, name]) => (name.clone(), type_name.clone(), SymbolKind::Instance),
        (TopLevelKind::SettingsInstance, [type_name]) => {
            (type_name.clone(), "settings".to_owned(), SymbolKind::Instance)
        }
        (TopLevelKind::Vars, _) => ("vars".to_owned(), String::new(), SymbolKind::Variables),
        _ => return None,
    };
    let member_kind = if kind == SymbolKind::Variables { SymbolKind::Variable } else { SymbolKind::Property };
    Some(Symbol {
        name,
        detail: (!detail.is_empty()).then_some(detail),
        kind,
        range: block.syntax().text_range(),
        selection: header_range(block),
        children: body_symbols(block, member_kind),
    })
}

fn body_symbols(block: &Block, attribute_kind: SymbolKind) -> Vec<Symbol> {
    let Some(body) = block.body() else { return Vec::new() };
    body.items()
        .map(|item| match item {
            BodyItem::Attribute(attribute) => attribute_symbol(&attribute, attribute_kind),
            BodyItem::Block(nested) => {
                let labels = nested.label_texts();
                let (name, detail, kind) = match labels.as_slice() {
                    [keyword] if keyword == "annotations" => {
                        ("annotations".to_owned(), None, SymbolKind::AnnotationType)
                    }
                    [type_name, name] => (name.clone(), Some(type_name.clone()), SymbolKind::Field),
                    _ => (labels.join(" "), None, SymbolKind::Field),
                };
                let inside_annotations = kind == SymbolKind::AnnotationType;
                let mut children = body_symbols(&nested, SymbolKind::Property);
                if inside_annotations {
                    children.iter_mut().for_each(|c| c.kind = SymbolKind::AnnotationType);
                }
                Symbol {
                    name,
                    detail,
                    kind,
                    range: nested.syntax().text_range(),
                    selection: header_range(&nested),
                    children,
                }
            }
        })
        .collect()
}

fn attribute_symbol(attribute: &Attribute, kind: SymbolKind) -> Symbol {
    let key = attribute.key();
    let name = key.as_ref().map(|k| k.text().into_owned()).unwrap_or_default();
    let selection = key.map_or_else(|| attribute.syntax().text_range(), |k| k.syntax().text_range());
    let children = match attribute.value() {
        Some(Value::Object(object)) => {
            object.attributes().map(|a| attribute_symbol(&a, SymbolKind::Property)).collect()
        }
        _ => Vec::new(),
    };
    let kind = match attribute.value() {
        Some(Value::Object(_) | Value::List(_)) if kind == SymbolKind::Property => SymbolKind::Object,
        _ => kind,
    };
    Symbol { name, detail: None, kind, range: attribute.syntax().text_range(), selection, children }
}

/// What a foldable region holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoldKind {
    /// A block, list, object, call or multiline string.
    Region,
    /// A run of comment lines.
    Comment,
}

/// A region an editor can fold; it spans several lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fold {
    /// The region.
    pub range: TextRange,
    /// What it holds.
    pub kind: FoldKind,
}

/// The foldable regions of a parsed file, in text order.
pub fn folding_ranges(root: &SyntaxNode, text: &str) -> Vec<Fold> {
    let spans_lines = |range: TextRange| text[range].contains('\n');
    let mut folds: Vec<Fold> = root
        .descendants()
        .filter(|n| matches!(n.kind(), BODY | LIST | OBJECT | ARG_LIST | MULTILINE_STRING))
        .map(|n| n.text_range())
        .filter(|&r| spans_lines(r))
        .map(|range| Fold { range, kind: FoldKind::Region })
        .collect();
    // Runs of comments on consecutive lines.
    let mut run: Option<TextRange> = None;
    let close_run = |run: &mut Option<TextRange>, folds: &mut Vec<Fold>| {
        if let Some(range) = run.take().filter(|&r| spans_lines(r)) {
            folds.push(Fold { range, kind: FoldKind::Comment });
        }
    };
    for token in root.descendants_with_tokens().filter_map(|e| e.into_token()) {
        match token.kind() {
            COMMENT => run = Some(run.map_or(token.text_range(), |r| r.cover(token.text_range()))),
            WHITESPACE => {}
            NEWLINE if token.text().matches('\n').count() == 1 => {}
            _ => close_run(&mut run, &mut folds),
        }
    }
    close_run(&mut run, &mut folds);
    folds.sort_by_key(|f| f.range.start());
    folds
}

/// The ranges "expand selection" steps through from `offset`, innermost first: the word, then
/// each enclosing node (string, value, attribute, body, block, file) that is larger.
pub fn selection_ranges(root: &SyntaxNode, offset: TextSize) -> Vec<TextRange> {
    selection_ranges_in(root, offset, |kind| kind.is_trivia() || kind == NEWLINE)
}

/// The token kinds of a language that folding reads comments by.
pub struct CommentKinds<K> {
    /// A line comment.
    pub line: K,
    /// A block comment.
    pub block: K,
    /// A line break.
    pub newline: K,
    /// Spaces inside a line.
    pub whitespace: K,
}

/// The foldable regions of a tree of any language, in text order: the nodes `region` names that
/// span lines, runs of line comments on consecutive lines, and block comments that span lines.
pub fn folding_ranges_in<L: nacl_syntax::rowan::Language>(
    root: &nacl_syntax::rowan::SyntaxNode<L>,
    text: &str,
    region: impl Fn(L::Kind) -> Option<FoldKind>,
    comments: &CommentKinds<L::Kind>,
) -> Vec<Fold>
where
    L::Kind: PartialEq,
{
    let spans_lines =
        |range: TextRange| text.get(std::ops::Range::<usize>::from(range)).is_some_and(|t| t.contains('\n'));
    let mut folds: Vec<Fold> = root
        .descendants()
        .filter_map(|n| region(n.kind()).map(|kind| Fold { range: n.text_range(), kind }))
        .filter(|f| spans_lines(f.range))
        .collect();
    let mut run: Option<TextRange> = None;
    let close_run = |run: &mut Option<TextRange>, folds: &mut Vec<Fold>| {
        if let Some(range) = run.take().filter(|&r| spans_lines(r)) {
            folds.push(Fold { range, kind: FoldKind::Comment });
        }
    };
    let mut newlines = 0;
    for token in root.descendants_with_tokens().filter_map(|e| e.into_token()) {
        let kind = token.kind();
        if kind == comments.line {
            run = Some(run.map_or(token.text_range(), |r| r.cover(token.text_range())));
            newlines = 0;
        } else if kind == comments.block {
            close_run(&mut run, &mut folds);
            if spans_lines(token.text_range()) {
                folds.push(Fold { range: token.text_range(), kind: FoldKind::Comment });
            }
        } else if kind == comments.newline && newlines == 0 {
            newlines += 1;
        } else if kind != comments.whitespace {
            close_run(&mut run, &mut folds);
        }
    }
    close_run(&mut run, &mut folds);
    folds.sort_by_key(|f| f.range.start());
    folds
}

/// "Expand selection" in a tree of any language: the token at `offset` (not a space, comment or
/// line break, when another touches it), then each larger enclosing node, innermost first.
pub fn selection_ranges_in<L: nacl_syntax::rowan::Language>(
    root: &nacl_syntax::rowan::SyntaxNode<L>,
    offset: TextSize,
    is_space: impl Fn(L::Kind) -> bool,
) -> Vec<TextRange> {
    let Some(token) = root.token_at_offset(offset).max_by_key(|t| !is_space(t.kind())) else {
        return vec![root.text_range()];
    };
    let mut ranges = Vec::new();
    if !is_space(token.kind()) {
        ranges.push(token.text_range());
    }
    for node in token.parent_ancestors() {
        let range = node.text_range();
        if ranges.last().is_none_or(|last: &TextRange| range != *last && range.contains_range(*last)) {
            ranges.push(range);
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline(symbols: &[Symbol], depth: usize, out: &mut String) {
        for s in symbols {
            out.push_str(&format!(
                "{}{:?} {} {}\n",
                "  ".repeat(depth),
                s.kind,
                s.name,
                s.detail.clone().unwrap_or_default()
            ));
            outline(&s.children, depth + 1, out);
        }
    }

    #[test]
    fn outline_follows_the_blocks() {
        let text = "type salto.t {\n  annotations {\n    string label {\n    }\n  }\n  string name {\n    label = \"N\"\n  }\n  tags = [\n  ]\n}\nsalto.t i {\n  name = \"x\"\n  nested = {\n    a = 1\n  }\n}\nvars {\n  v = 1\n}\n";
        let mut out = String::new();
        outline(&document_symbols(&nacl_syntax::nacl::parse(text).syntax()), 0, &mut out);
        expect_test::expect![[r#"
            Type salto.t type
              AnnotationType annotations 
                AnnotationType label string
              Field name string
                Property label 
              Object tags 
            Instance i salto.t
              Property name 
              Object nested 
                Property a 
            Variables vars 
              Variable v 
        "#]]
        .assert_eq(&out);
    }

    #[test]
    fn folds_span_lines_and_comment_runs() {
        let text = "// one\n// two\nsalto.t i {\n  l = [1]\n  m = [\n    1,\n  ]\n}\n";
        let parse = nacl_syntax::nacl::parse(text);
        let folds: Vec<(FoldKind, &str)> =
            folding_ranges(&parse.syntax(), text).iter().map(|f| (f.kind, &text[f.range])).collect();
        assert_eq!(
            folds,
            [
                (FoldKind::Comment, "// one\n// two"),
                (FoldKind::Region, "{\n  l = [1]\n  m = [\n    1,\n  ]\n}"),
                (FoldKind::Region, "[\n    1,\n  ]")
            ]
        );
    }
}
