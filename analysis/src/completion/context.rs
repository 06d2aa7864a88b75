//! Where the cursor is, as completion sees it. Read from the syntax tree and the text of the
//! line, because a file being typed in is usually broken exactly where the cursor is.

use crate::navigation::is_file_path;
use nacl_syntax::nacl::{
    SyntaxKind::{self, *},
    SyntaxNode, SyntaxToken,
    ast::{AstNodeExt, Block, Key},
};
use nacl_syntax::{TextRange, TextSize};

/// One step down from a top-level block's body towards the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Into the value of an attribute.
    Key(String),
    /// Into an item of a list.
    Item,
    /// Into a nested block (a field, an `annotations` block, an annotation type), by its labels.
    Block(Vec<String>),
}

/// A place inside a top-level block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    /// The top-level block's labels.
    pub header: Vec<String>,
    /// The steps from its body down to the place, outermost first.
    pub steps: Vec<Step>,
}

/// What is being typed at the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Context {
    /// A label of a top-level block header, after the labels written before it.
    Header { before: Vec<String> },
    /// A key in a body or an object; `existing` are the keys already set there.
    Key { place: Place, existing: Vec<String> },
    /// A value: after `=`, or an item of a list (the place is the value's own).
    Value { place: Place },
    /// An element ID in a reference or a `${ }` template: the segments before the one typed.
    Reference { segments: Vec<String> },
    /// The contents of a string value.
    StringValue { place: Place },
    /// The path of a `file("...")`.
    File,
}

/// The context at the cursor, the range a completion replaces, and the text typed in that range
/// before the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CursorContext {
    /// What is being typed.
    pub context: Context,
    /// The range an accepted item replaces.
    pub range: TextRange,
    /// The part of that range before the cursor.
    pub typed: String,
}

/// The context at `offset` of a file with text `text` and tree `root`, or `None` where nothing
/// can be completed (comments, numbers, names being declared).
pub(crate) fn context_at(root: &SyntaxNode, text: &str, offset: TextSize) -> Option<CursorContext> {
    let at = usize::from(offset);
    if at > text.len() || !text.is_char_boundary(at) {
        return None;
    }
    let left = root.token_at_offset(offset).left_biased();
    if let Some(token) = &left {
        if is_in_comment(token, offset) {
            return None;
        }
        if let Some(found) = in_template(token, text, at) {
            return Some(found);
        }
        if let Some(found) = in_string(token, text, at) {
            return found;
        }
    }
    let (start, end) = word_around(text, at, is_id_char);
    let typed = &text[start..at];
    if typed.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if left.as_ref().is_some_and(|t| t.kind() == IDENT && t.parent().is_some_and(|p| p.kind() == REFERENCE))
        && typed.contains('.')
    {
        return Some(reference(text, start, at));
    }
    let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
    let before = text[line_start..start].trim();
    let whole = TextRange::new(offset_of(start), offset_of(end));
    let context = if before.ends_with('=') {
        let eq = root.token_at_offset(offset_of(line_start + text[line_start..start].rfind('=')? + 1)).left_biased()?;
        let attribute = eq.parent().filter(|p| p.kind() == ATTRIBUTE)?;
        if typed.contains('.') {
            return Some(reference(text, start, at));
        }
        Context::Value { place: place_of(&attribute)? }
    } else if before.ends_with('[') || before.ends_with(',') {
        let punct = line_start + text[line_start..start].rfind(['[', ','])?;
        let list = root.token_at_offset(offset_of(punct + 1)).left_biased()?.parent().filter(|p| p.kind() == LIST)?;
        if typed.contains('.') {
            return Some(reference(text, start, at));
        }
        let mut place = place_of(&list)?;
        place.steps.push(Step::Item);
        Context::Value { place }
    } else {
        let container = container_at(root, offset_of(start))?;
        match (container.kind(), before.is_empty()) {
            (SOURCE_FILE, _) => Context::Header { before: before.split_whitespace().map(str::to_owned).collect() },
            (BODY | OBJECT, true) => {
                let existing = container
                    .children()
                    .filter(|n| n.kind() == ATTRIBUTE)
                    .filter(|n| !n.text_range().contains_inclusive(offset))
                    .filter_map(|n| n.children().find_map(Key::cast))
                    .map(|k| k.text().into_owned())
                    .collect();
                Context::Key { place: place_of(&container)?, existing }
            }
            _ => return None,
        }
    };
    Some(CursorContext { context, range: whole, typed: typed.to_owned() })
}

fn offset_of(at: usize) -> TextSize {
    TextSize::from(u32::try_from(at).unwrap_or(u32::MAX))
}

/// Characters of element IDs and keys.
fn is_id_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '@' | '.' | '<' | '>')
}

/// The run of characters matching `accept` around `at`.
fn word_around(text: &str, at: usize, accept: fn(char) -> bool) -> (usize, usize) {
    let start = text[..at].char_indices().rev().find(|&(_, c)| !accept(c)).map_or(0, |(i, c)| i + c.len_utf8());
    let end = text[at..].char_indices().find(|&(_, c)| !accept(c)).map_or(text.len(), |(i, _)| at + i);
    (start, end)
}

/// A reference typed from `start` to the cursor: the segment under the cursor is replaced.
fn reference(text: &str, start: usize, at: usize) -> CursorContext {
    let typed = &text[start..at];
    let (segments, last) = match typed.rfind('.') {
        Some(dot) => (typed[..dot].split('.').map(str::to_owned).collect(), &typed[dot + 1..]),
        None => (Vec::new(), typed),
    };
    let segment_start = at - last.len();
    let (_, end) = word_around(text, at, |c| c.is_alphanumeric() || matches!(c, '_' | '@'));
    CursorContext {
        context: Context::Reference { segments },
        range: TextRange::new(offset_of(segment_start), offset_of(end)),
        typed: last.to_owned(),
    }
}

fn is_in_comment(token: &SyntaxToken, offset: TextSize) -> bool {
    match token.kind() {
        COMMENT | HASH_COMMENT => true,
        BLOCK_COMMENT => offset < token.text_range().end(),
        _ => false,
    }
}

/// A reference inside a closed `${ }` template.
fn in_template(token: &SyntaxToken, text: &str, at: usize) -> Option<CursorContext> {
    let template = token.parent_ancestors().find(|n| n.kind() == TEMPLATE)?;
    let inner_start = template.first_token().filter(|t| t.kind() == TEMPLATE_START)?.text_range().end();
    if at < usize::from(inner_start) || token.kind() == TEMPLATE_END {
        return None;
    }
    let (start, _) = word_around(text, at, is_id_char);
    Some(reference(text, start.max(usize::from(inner_start)), at))
}

/// Completion inside a string literal: `Some(None)` when nothing can be completed there.
fn in_string(token: &SyntaxToken, text: &str, at: usize) -> Option<Option<CursorContext>> {
    let string = token.parent_ancestors().find(|n| matches!(n.kind(), STRING | MULTILINE_STRING))?;
    let open = string.first_token()?;
    let content_start = usize::from(open.text_range().end());
    let close = string
        .last_token()
        .filter(|t| t.text_range() != open.text_range() && matches!(t.kind(), QUOTE | MULTILINE_CLOSE));
    let content_end = match close {
        Some(close) => usize::from(close.text_range().start()),
        None => usize::from(string.text_range().end()).max(at),
    };
    if at < content_start || at > content_end {
        return None;
    }
    let inside = &text[content_start..at];
    if let Some(open_template) = inside.rfind("${").filter(|&i| !inside[i..].contains('}')) {
        let start = content_start + open_template + 2;
        let start = start + (text[start..at].len() - text[start..at].trim_start().len());
        return Some(Some(reference(text, start, at)));
    }
    let range = TextRange::new(offset_of(content_start), offset_of(content_end));
    let typed = inside.to_owned();
    let parent = string.parent()?;
    let context = match parent.kind() {
        ARG_LIST if is_file_path(&string) => Context::File,
        ATTRIBUTE | LIST if string.kind() == STRING => {
            let mut place = place_of(&parent)?;
            if parent.kind() == LIST {
                place.steps.push(Step::Item);
            }
            Context::StringValue { place }
        }
        _ => return Some(None),
    };
    Some(Some(CursorContext { context, range, typed }))
}

/// The innermost body, object or file around `offset`.
fn container_at(root: &SyntaxNode, offset: TextSize) -> Option<SyntaxNode> {
    let Some(token) = root.token_at_offset(offset).right_biased().or_else(|| root.last_token()) else {
        return Some(root.clone());
    };
    token.parent_ancestors().find(|n| {
        matches!(n.kind(), BODY | OBJECT | SOURCE_FILE)
            && (n.kind() == SOURCE_FILE || n.first_token().is_some_and(|t| t.text_range().end() <= offset))
    })
}

/// The place of a node inside its top-level block: the labels of the block and the steps down.
fn place_of(node: &SyntaxNode) -> Option<Place> {
    let mut steps = Vec::new();
    let mut from: Option<SyntaxKind> = None;
    for ancestor in node.ancestors() {
        match ancestor.kind() {
            ATTRIBUTE if from != Some(KEY) => {
                steps.push(Step::Key(ancestor.children().find_map(Key::cast)?.text().into_owned()));
            }
            LIST if from.is_some() => steps.push(Step::Item),
            BLOCK => {
                let block = Block::cast(ancestor.clone())?;
                if ancestor.parent().is_some_and(|p| p.kind() == SOURCE_FILE) {
                    steps.reverse();
                    return Some(Place { header: block.label_texts(), steps });
                }
                steps.push(Step::Block(block.label_texts()));
            }
            _ => {}
        }
        from = Some(ancestor.kind());
    }
    None
}
