//! Reparsing after an edit: only the part of the old tree the edit falls in is parsed again.
//!
//! - **One token.** When the edit stays inside the literal text of a string value, a reference's
//!   element ID or a `//` comment, the new tree is the old one with that one token replaced.
//!   This is done only where a full parse provably gives the same tree and errors: the new text
//!   of the token holds no byte that ends or changes a token in its place (in a string: quotes,
//!   backslashes, `$`, `'`, line breaks, control characters; in an ID, anything but a word's
//!   bytes), so the lexer would make one token of the same kind over exactly that text; the
//!   parser would read it the same way (an ID that becomes `true` or `false` is a literal); the
//!   token is in a value (not a key, a label or a function argument, which the structure checks
//!   read); and no error touches the token.
//! - **One key.** The same, for the word of an attribute's key, in an object or in the body of a
//!   top-level block: the one structure check that reads it, the duplicate keys among its
//!   neighbours, is run again on that object or body, and replaces what it reported there before.
//!   Any other error on the key refuses.
//! - **One object, list or top-level block.** Otherwise, when the edit is inside an object or a
//!   list value (its brackets untouched), or inside the body of a top-level block (its `{` and
//!   `}` untouched: what comes before a block may read its header, up to that `{`, to tell where
//!   the block before it ends), that part's new text is lexed, parsed and checked alone, and
//!   replaces the old one. This is done only where that equals a full parse: the part still
//!   ends at its own closing bracket (else the edit changed where it ends, and what follows it),
//!   it is parsed at the nesting depth it has in the file, and every old error lies inside it
//!   (then it is its own: the lexer, the parser and the structure checks read nothing around an
//!   object, a list or a top-level block to report inside it, nor inside it to report around it)
//!   or clear of it. The innermost few objects and lists around the edit are tried, then the
//!   top-level block, while together they are under half the text (a part that cannot be
//!   parsed alone costs its parse on top of the full one).
//!
//! Anything else is parsed in full.

use crate::nacl::view::NodeView;
use crate::{
    SyntaxError, TextRange, TextSize,
    nacl::{
        NaclLanguage, Parse,
        SyntaxKind::{self, *},
        SyntaxNode, SyntaxToken, lexer,
    },
};
use rowan::{GreenToken, Language, TokenAtOffset};

/// The parse of `text`, reusing `previous`, the parse of `previous_text`, where the edit between
/// the two texts allows it (see the module's documentation). Always equal to
/// [`crate::nacl::parse`] of `text`. An unchanged text keeps `previous` as it is.
pub fn reparse(previous: &Parse, previous_text: &str, text: &str) -> Parse {
    if previous_text == text {
        return previous.clone();
    }
    reparse_part(previous, previous_text, text).unwrap_or_else(|| crate::nacl::parse(text))
}

/// The parse of `text` made by parsing again only the token, object, list or top-level block of
/// `previous` (the parse of `previous_text`) the edit falls in, when that is certain to equal a
/// full parse (see the module's documentation); `None` when it is not, or the texts are equal.
pub fn reparse_part(previous: &Parse, previous_text: &str, text: &str) -> Option<Parse> {
    let edit = Edit::between(previous_text, text)?;
    let root = previous.syntax();
    replace_token(previous, &root, &edit, text)
        .or_else(|| replace_key(previous, &root, &edit, text))
        .or_else(|| replace_part(previous, &root, &edit, text))
}

/// The new parse with the one token the edit falls in replaced, when that equals a full parse.
fn replace_token(previous: &Parse, root: &SyntaxNode, edit: &Edit, text: &str) -> Option<Parse> {
    let token = edited_token(root, edit)?;
    let new_text = new_token_text(&token, edit, text)?;
    if !keeps_its_kind(&token, new_text, edit) {
        return None;
    }
    let errors = shifted_errors(previous.errors(), token.text_range(), edit.delta(), Inside::Refuse)?;
    let green = token.replace_with(GreenToken::new(NaclLanguage::kind_to_raw(token.kind()), new_text));
    Some(Parse::new(green, errors))
}

/// The new parse with the word of one attribute's key replaced, when that equals a full parse:
/// the key stays one word, and the one structure check that reads it, the duplicate keys of the
/// object or top-level block body it is in, is run again on that object or body.
fn replace_key(previous: &Parse, root: &SyntaxNode, edit: &Edit, text: &str) -> Option<Parse> {
    let token = edited_token(root, edit).filter(|token| token.kind() == IDENT)?;
    let container = keys_around(&token)?;
    let new_text = new_token_text(&token, edit, text)?;
    if !stays_one_word(&token, new_text, edit) {
        return None;
    }
    // The container's duplicate keys are reported again below; any other error on the key refuses.
    let keys: Vec<TextRange> = container
        .children()
        .filter(|node| node.kind() == ATTRIBUTE)
        .filter_map(|attribute| attribute.children().find(|node| node.kind() == KEY))
        .map(|key| key.text_range())
        .collect();
    // The keys are in text order: a body of thousands of them is searched, not scanned, per error.
    let reported_again = |e: &SyntaxError| {
        e.code == crate::nacl::ErrorCode::DuplicateAttribute
            && keys.binary_search_by_key(&e.range.start(), |key| key.start()).is_ok_and(|at| keys[at] == e.range)
    };
    let others: Vec<SyntaxError> = previous.errors().iter().filter(|e| !reported_again(e)).cloned().collect();
    let mut errors = shifted_errors(&others, token.text_range(), edit.delta(), Inside::Refuse)?;
    let green = token.replace_with(GreenToken::new(NaclLanguage::kind_to_raw(IDENT), new_text));
    let old_range = container.text_range();
    let new_range = TextRange::new(
        old_range.start(),
        TextSize::try_from(usize::from(old_range.end()).checked_add_signed(edit.delta())?).ok()?,
    );
    let new_container = SyntaxNode::new_root(green.clone()).covering_element(new_range).into_node()?;
    if new_container.kind() != container.kind() || new_container.text_range() != new_range {
        return None;
    }
    let container_green = new_container.green();
    let view = crate::nacl::green::GNode::at(&container_green, new_range.start());
    crate::nacl::validation::duplicate_keys(view.nodes(ATTRIBUTE), &mut Vec::new(), &mut errors);
    Some(Parse::new(green, errors))
}

/// The text `token` has after `edit`, which lies inside it, in `text`, the new text.
fn new_token_text<'t>(token: &SyntaxToken, edit: &Edit, text: &'t str) -> Option<&'t str> {
    let range = token.text_range();
    let new_end = usize::from(range.end()).checked_add_signed(edit.delta())?;
    text.get(usize::from(range.start())..new_end)
}

/// The object or top-level block body whose keys are checked for duplicates, when `token` is
/// the word of one of those keys.
fn keys_around(token: &SyntaxToken) -> Option<SyntaxNode> {
    let key = token.parent().filter(|node| node.kind() == KEY)?;
    key.parent().filter(|node| node.kind() == ATTRIBUTE)?.parent().filter(keys_are_checked)
}

/// Whether `token`, a word (an element ID or a key), lexes as one word of `new_text` after
/// `edit`: its first byte stays, so it still starts a word, the rest only continues it, and it
/// does not become `true` or `false`, which are literals.
fn stays_one_word(token: &SyntaxToken, new_text: &str, edit: &Edit) -> bool {
    edit.start > usize::from(token.text_range().start())
        && lexer::continues_a_word(new_text.as_bytes())
        && !matches!(new_text, "true" | "false")
}

/// Whether the structure checks look for duplicate keys among the attributes of `container`:
/// every object's (outside keys, labels and function calls, which are read otherwise), and the
/// body's of every top-level block with a header.
fn keys_are_checked(container: &SyntaxNode) -> bool {
    let is_top_level_block_with_a_header = |block: SyntaxNode| {
        block.kind() == BLOCK
            && block.parent().is_some_and(|root| root.kind() == SOURCE_FILE)
            && block.children().any(|node| node.kind() == LABEL)
    };
    match container.kind() {
        OBJECT => !container.ancestors().any(|node| is_read_by_the_checks(node.kind())),
        BODY => container.parent().is_some_and(is_top_level_block_with_a_header),
        _ => false,
    }
}

/// How many of the objects and lists around an edit, innermost first, are tried before its
/// top-level block.
const BRACKETED_TRIED: usize = 3;

/// The new parse with an object, a list or the top-level block around the edit parsed again,
/// when that equals a full parse.
fn replace_part(previous: &Parse, root: &SyntaxNode, edit: &Edit, text: &str) -> Option<Parse> {
    // A `<<<<<<<` line makes one token of everything up to the next `>>>>>>>` line, across any
    // part: with one before the edit, or one in the part's new text, parse in full.
    if has_a_conflict(previous.errors()) {
        return None;
    }
    let holds_the_edit = |node: &SyntaxNode| {
        let range = node.text_range();
        usize::from(range.start()) < edit.start && edit.old_end < usize::from(range.end())
    };
    let token = root.token_at_offset(TextSize::try_from(edit.start).ok()?).left_biased()?;
    let around = || token.parent_ancestors().filter(holds_the_edit);
    let bracketed = around().filter(|node| matches!(node.kind(), OBJECT | LIST)).take(BRACKETED_TRIED);
    let is_top_level_block =
        |node: &SyntaxNode| node.kind() == BLOCK && node.parent().is_some_and(|p| p.kind() == SOURCE_FILE);
    let top_level = around()
        .find(|node| node.kind() == BODY && node.parent().is_some_and(|block| is_top_level_block(&block)))
        .and_then(|body| body.parent());
    // Parts that fail cost their parse on top of the full one: all tried together stay under
    // half the text, so an edit that leaves every part unclosed (typing `x = {`) costs at most
    // one and a half full parses.
    let mut budget = text.len() / 2;
    bracketed.chain(top_level).find_map(|node| {
        budget = budget.checked_sub(usize::from(node.text_range().len()))?;
        parse_again(previous, &node, edit, text)
    })
}

/// The new parse with `node`, an object, a list or a top-level block whose ends the edit leaves,
/// parsed again.
fn parse_again(previous: &Parse, node: &SyntaxNode, edit: &Edit, text: &str) -> Option<Parse> {
    let range = node.text_range();
    let new_end = usize::from(range.end()).checked_add_signed(edit.delta())?;
    let new_text = text.get(usize::from(range.start())..new_end)?;
    let mut errors = shifted_errors(previous.errors(), range, edit.delta(), Inside::Drop)?;
    let depth = node.ancestors().skip(1).filter(|node| opens_a_level(node.kind())).count();
    let (green, own_errors) = crate::nacl::parse_part(new_text, u32::try_from(depth).ok()?, node.kind())?;
    if has_a_conflict(&own_errors) {
        return None;
    }
    for error in own_errors {
        let range = TextRange::new(
            range.start().checked_add(error.range.start())?,
            range.start().checked_add(error.range.end())?,
        );
        errors.push(SyntaxError { range, ..error });
    }
    Some(Parse::new(node.replace_with(green), errors))
}

/// Whether the lexer met a merge-conflict marker (it reports each one): from a `<<<<<<<` line it
/// reads one token through the next `>>>>>>>` line, wherever that is.
fn has_a_conflict(errors: &[SyntaxError]) -> bool {
    errors.iter().any(|e| e.code == crate::nacl::ErrorCode::MergeConflict)
}

/// Whether a node of this kind is one level of the parser's nesting ([`crate::nacl::MAX_NESTING`]).
fn opens_a_level(kind: SyntaxKind) -> bool {
    matches!(kind, BODY | LIST | ARG_LIST | OBJECT)
}

/// Where two texts differ: the bytes `start..old_end` of the old text became `start..new_end`.
struct Edit {
    start: usize,
    old_end: usize,
    new_end: usize,
}

impl Edit {
    /// The edit between two texts: their common prefix and suffix are left out. `None` when the
    /// texts are equal.
    fn between(old: &str, new: &str) -> Option<Edit> {
        let (old, new) = (old.as_bytes(), new.as_bytes());
        let prefix = common_len(old.iter(), new.iter(), old.chunks(CHUNK), new.chunks(CHUNK));
        if prefix == old.len() && prefix == new.len() {
            return None;
        }
        let (old_rest, new_rest) = (&old[prefix..], &new[prefix..]);
        let suffix =
            common_len(old_rest.iter().rev(), new_rest.iter().rev(), old_rest.rchunks(CHUNK), new_rest.rchunks(CHUNK));
        Some(Edit { start: prefix, old_end: old.len() - suffix, new_end: new.len() - suffix })
    }

    /// How many bytes longer the new text is.
    fn delta(&self) -> isize {
        self.new_end as isize - self.old_end as isize
    }
}

/// How many bytes [`common_len`] compares at once.
const CHUNK: usize = 64;

/// How many bytes two sequences share at their start, given byte by byte (`a`, `b`) and in
/// chunks of [`CHUNK`] bytes from the same end (`a_chunks`, `b_chunks`): whole chunks are
/// compared first (a whole file's text is compared on every edit), then bytes.
fn common_len<'a>(
    a: impl Iterator<Item = &'a u8>,
    b: impl Iterator<Item = &'a u8>,
    a_chunks: impl Iterator<Item = &'a [u8]>,
    b_chunks: impl Iterator<Item = &'a [u8]>,
) -> usize {
    let chunks = a_chunks.zip(b_chunks).take_while(|(x, y)| x.len() == CHUNK && x == y).count();
    let skipped = chunks * CHUNK;
    skipped + a.skip(skipped).zip(b.skip(skipped)).take_while(|(x, y)| x == y).count()
}

/// The string text, word or `//` comment token of `root` holding the whole edit.
fn edited_token(root: &SyntaxNode, edit: &Edit) -> Option<SyntaxToken> {
    let holds = |token: &SyntaxToken| {
        let range = token.text_range();
        matches!(token.kind(), STRING_TEXT | COMMENT | IDENT)
            && usize::from(range.start()) <= edit.start
            && edit.old_end <= usize::from(range.end())
    };
    match root.token_at_offset(TextSize::try_from(edit.start).ok()?) {
        TokenAtOffset::None => None,
        TokenAtOffset::Single(token) => Some(token).filter(holds),
        TokenAtOffset::Between(left, right) => [left, right].into_iter().find(holds),
    }
}

/// Whether a full parse would make one token of `token`'s kind, in `token`'s place, of
/// `new_text`, with no error, and the structure checks would not read it.
fn keeps_its_kind(token: &SyntaxToken, new_text: &str, edit: &Edit) -> bool {
    let start = usize::from(token.text_range().start());
    match token.kind() {
        // The `//` stays (the edit is after it) and no line break ends the comment early.
        COMMENT => edit.start >= start + 2 && !new_text.contains(['\n', '\r']),
        STRING_TEXT => {
            let Some(string) = token.parent() else { return false };
            let multiline = match string.kind() {
                STRING => false,
                MULTILINE_STRING => true,
                _ => return false,
            };
            // A `\u` escape just before reads the hex digits after it, and text just before
            // (on the same line) would run on into new text that no longer starts with a `$`:
            // either way the token's first byte must stay.
            let joined = token.prev_token().is_some_and(|t| match t.kind() {
                ESCAPE => true,
                STRING_TEXT => !t.text().ends_with(['\n', '\r']),
                _ => false,
            });
            lexer::is_plain_string_text(new_text.as_bytes(), multiline)
                && !(joined && edit.start == start)
                && !string.ancestors().any(|node| is_read_by_the_checks(node.kind()))
        }
        // An element ID in a reference or a template.
        IDENT => {
            let Some(parent) = token.parent() else { return false };
            matches!(parent.kind(), REFERENCE | TEMPLATE)
                && stays_one_word(token, new_text, edit)
                && !parent.ancestors().any(|node| is_read_by_the_checks(node.kind()))
        }
        _ => false,
    }
}

/// Whether the structure checks read the strings inside a node of this kind (keys and labels
/// name things; `file("...")` arguments are checked).
fn is_read_by_the_checks(kind: SyntaxKind) -> bool {
    matches!(kind, KEY | LABEL | CALL)
}

/// What [`shifted_errors`] does with an error inside the part parsed again.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inside {
    /// Gives up: the part's new text is not checked again.
    Refuse,
    /// Leaves it out: the part's new errors replace it.
    Drop,
}

/// The errors of the old text outside `part` (the range parsed again), moved to the new text.
/// `None` if one overlaps `part` without lying inside it, lies at its edges (empty there, or
/// at its first byte: the parser around an object may report what it found there), or lies
/// inside it when `inside` refuses that.
fn shifted_errors(errors: &[SyntaxError], part: TextRange, delta: isize, inside: Inside) -> Option<Vec<SyntaxError>> {
    let shift = |at: TextSize| TextSize::try_from(usize::from(at).checked_add_signed(delta)?).ok();
    let mut kept = Vec::with_capacity(errors.len());
    for error in errors {
        let range = error.range;
        let at_an_edge = range.start() == part.start() || (range.is_empty() && range.start() == part.end());
        if at_an_edge {
            return None;
        } else if range.end() <= part.start() {
            kept.push(error.clone());
        } else if range.start() >= part.end() {
            let range = TextRange::new(shift(range.start())?, shift(range.end())?);
            kept.push(SyntaxError { range, ..error.clone() });
        } else if part.contains_range(range) && inside == Inside::Drop {
            continue;
        } else {
            return None;
        }
    }
    Some(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Strings and comments in every place NaCl has them, with errors before and after.
    const SAMPLE: &str = r#"// a comment
type salto.t {
  string name {
    _required = true
  }
  annotations {
    string "quoted key" {
    }
  }
}
salto.t one {
  name = "plain text"
  "key text" = "a\u12zz and \n escape"
  path = file("static/a.txt")
  other = salto.t.instance.one
  refs = [salto.t.instance.one, trust]
  ref = "a ${ salto.t.instance.other } b"
  nested = {
    list = ["one", "two", 3] // after
  }
  body = '''
    first line
    $ and ${ salto.x } and \${ and \'''
    '''
  bad = "tab	inside"
}
# hash
salto.t "two" {
  name = "unclosed
}
salto.t three {
  deep = {
    inner = {
      a = 1
      b = "two"
      list = [{ x = 1 }, { y = "z" }]
      a = 3
    }
    call = file({ p = 1 })
    bad = { x }
    comma = { c = 1, d = 2 }
    multi = {
      text = '''
        { not an object }
        '''
    }
  }
}
type salto.u {
  annotations {
    val = { v = 1 }
  }
  number num {
    key = 1
    key = 2
  }
}
salto.u four {
  key = 1
  kez = 2
  key = 3
}
"#;

    /// [`replace_token`] from `previous`, the parse of `previous_text`, to `text`.
    fn reparse_token(previous: &Parse, previous_text: &str, text: &str) -> Option<Parse> {
        replace_token(previous, &previous.syntax(), &Edit::between(previous_text, text)?, text)
    }

    /// [`replace_part`] from `previous`, the parse of `previous_text`, to `text`.
    fn reparse_a_part(previous: &Parse, previous_text: &str, text: &str) -> Option<Parse> {
        replace_part(previous, &previous.syntax(), &Edit::between(previous_text, text)?, text)
    }

    /// [`replace_key`] from `previous`, the parse of `previous_text`, to `text`.
    fn reparse_key(previous: &Parse, previous_text: &str, text: &str) -> Option<Parse> {
        replace_key(previous, &previous.syntax(), &Edit::between(previous_text, text)?, text)
    }

    /// The parse of `text` after replacing `at` with `insert`, both ways.
    fn both(text: &str, at: std::ops::Range<usize>, insert: &str) -> (Option<Parse>, Parse) {
        let edited = replaced(text, at, insert);
        let previous = crate::nacl::parse(text);
        (reparse_token(&previous, text, &edited), crate::nacl::parse(&edited))
    }

    /// `text` with `at` replaced by `insert`.
    fn replaced(text: &str, at: std::ops::Range<usize>, insert: &str) -> String {
        let mut edited = text.to_owned();
        edited.replace_range(at, insert);
        edited
    }

    /// The byte offset of the first `needle` in [`SAMPLE`], plus `plus`.
    fn at(needle: &str, plus: usize) -> usize {
        SAMPLE.find(needle).expect("in the sample") + plus
    }

    #[test]
    fn an_edit_inside_a_string_value_or_a_comment_replaces_one_token() {
        for (range, insert) in [
            (at("plain text", 5)..at("plain text", 5), "and more "),
            (at("plain text", 0)..at("plain text", 10), "é"),
            (at("plain text", 10)..at("plain text", 10), "!"),
            (at("first line", 2)..at("first line", 6), "x"),
            (at("// a comment", 3)..at("// a comment", 4), "not a"),
            (at("// after", 8)..at("// after", 8), " the list"),
            (at("\"one\"", 1)..at("\"one\"", 2), "ONE"),
            (at("zz and", 1)..at("zz and", 2), "y"),
            (at("instance.one\n", 9)..at("instance.one\n", 12), "two_2"),
            (at("instance.other", 9)..at("instance.other", 14), "x.y"),
            (at("trust", 2)..at("trust", 4), ""),
        ] {
            let (reparsed, full) = both(SAMPLE, range.clone(), insert);
            assert_eq!(reparsed.as_ref(), Some(&full), "{range:?} {insert:?}");
        }
    }

    #[test]
    fn typing_in_a_key_replaces_it_and_checks_its_neighbours_for_duplicates_again() {
        let four = at("salto.u four", 0);
        let key_in = |needle: &str, from: usize| SAMPLE[from..].find(needle).expect("in the sample") + from;
        for (at, insert, duplicates) in [
            // `kez` becomes `key`, a third `key`: two duplicates where there was one.
            (key_in("kez", four) + 2..key_in("kez", four) + 3, "y", 2),
            // The second `key` becomes `keys`: no duplicate left.
            (key_in("key = 3", four) + 3..key_in("key = 3", four) + 3, "s", 0),
            // In an object.
            (key_in("b = \"two\"", 0) + 1..key_in("b = \"two\"", 0) + 1, "x_1", 1),
        ] {
            let edited = replaced(SAMPLE, at, insert);
            let previous = crate::nacl::parse(SAMPLE);
            let reparsed = reparse_key(&previous, SAMPLE, &edited).expect("the key's token is replaced");
            let full = crate::nacl::parse(&edited);
            assert_eq!(reparsed, full);
            let in_four = |e: &&SyntaxError| {
                e.code == crate::nacl::ErrorCode::DuplicateAttribute && usize::from(e.range.start()) > four
            };
            if insert != "x_1" {
                assert_eq!(full.errors().iter().filter(in_four).count(), duplicates, "{insert}");
            }
        }
        // A key in a field's body (not a top-level block's), a label, or a key's first byte: not here.
        let field = SAMPLE.find("    key = 2").expect("in the sample") + 5;
        let label = at("salto.u four", 8);
        let first = at("kez", 0);
        for (at, insert) in [(field..field, "x"), (label..label, "x"), (first..first, "x")] {
            let edited = replaced(SAMPLE, at, insert);
            assert!(reparse_key(&crate::nacl::parse(SAMPLE), SAMPLE, &edited).is_none(), "{edited}");
        }
    }

    #[test]
    fn an_edit_that_may_change_more_than_one_token_parses_in_full() {
        for (range, insert, why) in [
            (at("plain text", 5)..at("plain text", 5), "\"", "a quote ends the string"),
            (at("plain text", 5)..at("plain text", 5), "\\", "a backslash starts an escape"),
            (at("plain text", 5)..at("plain text", 5), "${ a }", "a template"),
            (at("plain text", 5)..at("plain text", 5), "\n", "a line break"),
            (at("plain text", 0)..at("plain text", 10), "", "the text is gone"),
            (at("first line", 2)..at("first line", 2), "'''", "it may close the string"),
            (at("quoted key", 2)..at("quoted key", 2), "x", "a label"),
            (at("key text", 2)..at("key text", 2), "x", "a key"),
            (at("static/a", 2)..at("static/a", 2), "x", "a `file()` argument"),
            (at("zz and", 0)..at("zz and", 0), "1", "the hex digits of a `\\u` escape"),
            (at("inside\"", 0)..at("inside\"", 0), "x", "an error in the token"),
            (at("// a comment", 1)..at("// a comment", 1), "x", "the `//` itself"),
            (at("// after", 4)..at("// after", 4), "\n", "a line break in a comment"),
            (at("name = \"plain", 1)..at("name = \"plain", 1), "x", "a key"),
            (at("unclosed", 2)..at("unclosed", 2), "x", "an error after the token"),
            (at("trust", 3)..at("trust", 5), "e", "`true` is a literal"),
            (at("instance.one\n", 0)..at("instance.one\n", 0), "-", "a word ends at `-`"),
            (at("salto.t.instance.one\n", 0)..at("salto.t.instance.one\n", 1), "", "the first byte"),
            (at("salto.t one", 2)..at("salto.t one", 2), "x", "a label"),
            (at("file(", 1)..at("file(", 1), "x", "a function's name"),
        ] {
            let (reparsed, full) = both(SAMPLE, range.clone(), insert);
            assert_eq!(reparsed, None, "{why}: {range:?} {insert:?}");
            assert_eq!(reparse(&crate::nacl::parse(SAMPLE), SAMPLE, &replaced(SAMPLE, range, insert)), full);
        }
    }

    #[test]
    fn an_edit_inside_an_object_a_list_or_a_block_parses_it_again() {
        for (range, insert) in [
            (at("      a = 3", 11)..at("      a = 3", 11), "\n      c = 4"),
            (at("      a = 3", 6)..at("      a = 3", 6), "x"),
            (at("      a = 1", 10)..at("      a = 1", 11), "\"one\""),
            (at("b = \"two\"", 4)..at("b = \"two\"", 5), ""),
            (at("{ x = 1 }", 2)..at("{ x = 1 }", 3), "dup = 1\n x"),
            (at("bad = { x }", 8)..at("bad = { x }", 9), "x = [1,"),
            (at("{ c = 1, d", 7)..at("{ c = 1, d", 8), "\n"),
            (at("not an object", 0)..at("not an object", 0), "}"),
            // An error around `{ p = 1 }` (the call's): the object around the call is parsed.
            (at("{ p = 1 }", 2)..at("{ p = 1 }", 2), "q = 2\n"),
            (at("{ y = \"z\" }", 11)..at("{ y = \"z\" }", 11), ", { w = 2 }"),
            (at("one, trust]", 3)..at("one, trust]", 3), ", salto.t\n,"),
            (at("[\"one\", \"two\", 3]", 6)..at("[\"one\", \"two\", 3]", 8), ""),
            // Objects and lists whose ends move, or with an error around them: the block is.
            (at("{ v = 1 }", 2)..at("{ v = 1 }", 2), "w = 2\n"),
            (at("one, trust]", 9)..at("one, trust]", 11), ""),
            (at("one, trust]", 4)..at("one, trust]", 4), "]"),
            // Keys, new lines and labels of a block.
            (at("  name = \"plain", 2)..at("  name = \"plain", 2), "x"),
            (at("  name = \"plain", 0)..at("  name = \"plain", 0), "  added = 1\n"),
            (at("string name {", 0)..at("string name {", 0), "number count {\n  }\n  "),
        ] {
            let edited = replaced(SAMPLE, range.clone(), insert);
            let reparsed = reparse_a_part(&crate::nacl::parse(SAMPLE), SAMPLE, &edited);
            assert_eq!(reparsed.as_ref(), Some(&crate::nacl::parse(&edited)), "{range:?} {insert:?}");
        }
    }

    #[test]
    fn an_edit_that_may_move_where_a_block_ends_parses_in_full() {
        for (range, insert, why) in [
            (at("        '''\n    }", 8)..at("        '''\n    }", 11), "", "the multiline string runs on"),
            (at("      a = 3", 0)..at("      a = 3", 0), "x = {", "an object that is never closed"),
            (at("      a = 3\n    }", 12)..at("      a = 3\n    }", 17), "", "the inner `}` is gone"),
            (at("      a = 3", 0)..at("      a = 3", 0), "}", "a `}` closes the block early"),
            (at("  name = \"plain", 0)..at("  name = \"plain", 0), "type salto.z {\n", "a header at column 0"),
            (at("}\n# hash", 0)..at("}\n# hash", 1), "", "the block's `}` is gone"),
            (at("# hash", 2)..at("# hash", 2), "x", "outside every block"),
            (at("salto.t one", 8)..at("salto.t one", 11), "other", "a label (the block before may read it)"),
            (at("      a = 3", 0)..at("      a = 3", 0), "<<<<<<< ours\n", "a conflict may run past the object"),
        ] {
            let edited = replaced(SAMPLE, range.clone(), insert);
            let previous = crate::nacl::parse(SAMPLE);
            assert_eq!(reparse_a_part(&previous, SAMPLE, &edited), None, "{why}: {range:?} {insert:?}");
            assert_eq!(reparse(&previous, SAMPLE, &edited), crate::nacl::parse(&edited), "{why}");
        }
    }

    #[test]
    fn parts_tried_stay_under_half_the_text() {
        // One block holding one object: the object is a small part, the block is most of the text.
        let text = "salto.t a {\n  o = {\n    k = 1\n  }\n  name = \"long enough to be most of the block\"\n}\n";
        let previous = crate::nacl::parse(text);
        for (needle, insert, parsed_alone) in [("k = 1", "j = 2\n    ", true), ("name", "x = 1\n  ", false)] {
            let at = text.find(needle).expect("in the text");
            let edited = replaced(text, at..at, insert);
            let reparsed = reparse_a_part(&previous, text, &edited);
            assert_eq!(reparsed.is_some(), parsed_alone, "{insert:?}");
            assert_eq!(reparse(&previous, text, &edited), crate::nacl::parse(&edited), "{insert:?}");
        }
    }

    #[test]
    fn a_merge_conflict_anywhere_before_parses_in_full() {
        let text = "<<<<<<< ours\nsalto.t a {\n  o = {\n    k = 1\n  }\n}\n";
        let at = text.find("k = 1").expect("in the text");
        for insert in [">>>>>>> theirs\n    ", "j = 2\n    "] {
            let edited = replaced(text, at..at, insert);
            let previous = crate::nacl::parse(text);
            assert_eq!(reparse_a_part(&previous, text, &edited), None, "{insert:?}");
            assert_eq!(reparse(&previous, text, &edited), crate::nacl::parse(&edited), "{insert:?}");
        }
    }

    #[test]
    fn an_object_is_parsed_at_its_own_depth() {
        let depth = crate::nacl::MAX_NESTING as usize - 1;
        let text = format!("salto.t x {{\n  v = {}{{ a = [1] }}{}\n}}\n", "[".repeat(depth - 1), "]".repeat(depth - 1));
        let at = text.find("a = [1]").expect("in the text");
        let edited = replaced(&text, at..at + 1, "b");
        let full = crate::nacl::parse(&edited);
        assert!(full.errors().iter().any(|e| e.code == crate::nacl::ErrorCode::NestingTooDeep));
        assert_eq!(reparse_a_part(&crate::nacl::parse(&text), &text, &edited), Some(full));
    }

    #[test]
    fn errors_after_the_edit_move_with_the_text() {
        let (reparsed, full) = both(SAMPLE, at("plain text", 5)..at("plain text", 5), "and more ");
        let reparsed = reparsed.expect("one token replaced");
        assert!(full.errors().iter().any(|e| e.range.start() > TextSize::from(at("plain text", 0) as u32)));
        assert_eq!(reparsed.errors(), full.errors());
    }

    /// What an edit inserts: text, and bytes that end or start tokens.
    fn insertion() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "a",
            "é",
            " ",
            "1",
            "u",
            "\"",
            "\\",
            "$",
            "{",
            "}",
            "'",
            "\n",
            "\r",
            "\t",
            "\u{1}",
            "//",
            "${ a }",
            "'''",
            "=",
            ".",
            "_",
            "e",
            "(",
            "-",
            "[",
            "]",
            ",",
            "\n  k = 1",
            "x = {",
        ]);
        prop::collection::vec(pieces, 0..4).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Edits anywhere (most land in strings and comments) of the sample, with its line
        /// breaks as `\n` or `\r\n`: the tree and errors made by replacing one token, when that
        /// is done, are those of a full parse; a chain of edits keeps reparsing from the last
        /// result.
        #[test]
        fn reparsing_equals_a_full_parse(
            crlf in any::<bool>(),
            edits in prop::collection::vec((0usize..SAMPLE.len(), 0usize..4, insertion()), 1..6),
        ) {
            let mut text = if crlf { SAMPLE.replace('\n', "\r\n") } else { SAMPLE.to_owned() };
            let mut parse = crate::nacl::parse(&text);
            for (start, removed, insert) in edits {
                let start = (0..=start.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
                let end = (start + removed..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
                let mut edited = text.clone();
                edited.replace_range(start..end, &insert);
                let full = crate::nacl::parse(&edited);
                let reparsed = [
                    reparse_token(&parse, &text, &edited),
                    reparse_key(&parse, &text, &edited),
                    reparse_a_part(&parse, &text, &edited),
                ];
                for reparsed in reparsed.into_iter().flatten()
                {
                    prop_assert_eq!(&reparsed, &full);
                    prop_assert_eq!(reparsed.syntax().to_string(), edited.clone());
                }
                prop_assert_eq!(&reparse(&parse, &text, &edited), &full);
                (text, parse) = (edited, full);
            }
        }
    }
}
