//! The elements one file defines: its fragments, with values as a semantic tree.
//!
//! A NaCl element can be split over many blocks in many files; each block is a *fragment*.
//! Values keep their byte ranges so diagnostics and navigation can point back into the file.

use crate::elem_id::{CONFIG_NAME, ElemId, IdType, VARIABLES_NAMESPACE};
use nacl_syntax::nacl::{
    SyntaxKind::{
        ARG_LIST, ATTRIBUTE, BLOCK, BODY, CALL, ESCAPE, IDENT, KEY, LABEL, LIST, LITERAL, MULTILINE_STRING, NUMBER,
        OBJECT, REFERENCE, STRING, STRING_TEXT, TEMPLATE,
    },
    ast::TopLevelKind,
    view::{NodeView, TokenView},
};
use nacl_syntax::rowan::NodeOrToken;
use nacl_syntax::{TextRange, TextSize};
use std::borrow::Cow;
use std::sync::Arc;

/// Text in a fragment (a key, a string, a number, a reference), and a file's whole text: text
/// written as-is in a file is a slice of that file's text, shared without a copy; other text
/// (decoded escapes) has its own. Sixteen bytes (a pointer and two 32-bit offsets); cloning is
/// cheap.
pub type Text = arcstr::Substr;

/// The slice of `source` at `range`, sharing its text, when `range` lies in it on character
/// boundaries.
pub fn slice_of(source: &Text, range: std::ops::Range<usize>) -> Option<Text> {
    source.get(range.clone())?;
    Some(source.substr(range))
}

/// A value as written, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Value {
    /// What the value is.
    pub kind: ValueKind,
    /// Where it is written.
    #[serde(with = "stored_range")]
    pub range: TextRange,
}

/// The kinds of values.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ValueKind {
    /// A string (single-line or multiline) without references.
    String(#[serde(with = "stored_text")] Text),
    /// A string with `${ }` references.
    Template(Box<[TemplatePart]>),
    /// A number, as written.
    Number(#[serde(with = "stored_text")] Text),
    /// `true` or `false`.
    Bool(bool),
    /// A reference to an element ID: the ID as written (exactly where the value is, so the
    /// value's range is the reference's).
    Reference(#[serde(with = "stored_text")] Text),
    /// A list.
    List(Box<[Value]>),
    /// An object.
    Object(Box<[Entry]>),
    /// `file("path")` or `file("path", "encoding")` (boxed: rare, and twice the size of the others).
    File(Box<FileCall>),
    /// A missing or broken value (a syntax error was reported).
    Invalid,
}

/// The arguments of a `file(...)` call.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FileCall {
    /// The path, relative to the static-resources folder.
    #[serde(with = "stored_text")]
    pub path: Text,
    /// The encoding, when given.
    pub encoding: Option<Text>,
}

/// A piece of a template string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TemplatePart {
    /// Literal text.
    Text(#[serde(with = "stored_text")] Text),
    /// A `${ }` reference.
    Reference(Reference),
}

/// A reference as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Reference {
    /// The element ID text.
    #[serde(with = "stored_text")]
    pub text: Text,
    /// Where the ID is written.
    #[serde(with = "stored_range")]
    pub range: TextRange,
}

/// `key = value`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// The key.
    #[serde(with = "stored_text")]
    pub key: Text,
    /// Where the key is written.
    #[serde(with = "stored_range")]
    pub key_range: TextRange,
    /// The value.
    pub value: Value,
}

/// The primitive categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Primitive {
    /// `is string`.
    String,
    /// `is number`.
    Number,
    /// `is boolean`.
    Boolean,
    /// `is unknown`.
    Unknown,
}

impl Primitive {
    /// The category's keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            Primitive::String => "string",
            Primitive::Number => "number",
            Primitive::Boolean => "boolean",
            Primitive::Unknown => "unknown",
        }
    }
}

/// What a fragment defines.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum FragmentKind {
    /// An object type (`type x`, `type x is <meta>`, `settings x`).
    Object {
        /// Defined with `settings`.
        settings: bool,
        /// The meta type after `is`.
        meta: Option<Text>,
    },
    /// A primitive type (`type x is string`).
    Primitive(Primitive),
    /// An instance or a settings instance.
    Instance,
    /// A variable of a `vars` block.
    Variable,
}

/// A field definition, or an annotation type declaration.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FieldDef {
    /// The field name.
    #[serde(with = "stored_text")]
    pub name: Text,
    /// The type name as written (`string`, `salesforce.Text`, `List<string>`).
    #[serde(with = "stored_text")]
    pub type_name: Text,
    /// The whole block.
    #[serde(with = "stored_range")]
    pub range: TextRange,
    /// The name label.
    #[serde(with = "stored_range")]
    pub name_range: TextRange,
    /// The type label.
    #[serde(with = "stored_range")]
    pub type_range: TextRange,
    /// The field's annotation values.
    pub annotations: Box<[Entry]>,
}

/// One block's contribution to an element.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Fragment {
    /// The element's ID.
    pub id: Arc<ElemId>,
    /// What it defines.
    pub kind: FragmentKind,
    /// The whole block (for a variable: its `name = value`).
    #[serde(with = "stored_range")]
    pub range: TextRange,
    /// The header labels (for a variable: its name).
    #[serde(with = "stored_range")]
    pub header_range: TextRange,
    /// For instances, the type label.
    pub type_range: Option<TextRange>,
    /// Annotation types declared in an `annotations` block.
    pub annotation_types: Box<[FieldDef]>,
    /// Fields of an object type.
    pub fields: Box<[FieldDef]>,
    /// Annotation values of a type, values of an instance, or the value of a variable
    /// (one entry keyed by the variable's name).
    pub values: Box<[Entry]>,
}

impl Fragment {
    /// Annotation values of a type, values of an instance, or the value of a variable.
    pub fn values(&self) -> crate::values::Entries<'_> {
        crate::values::Entries::of(&self.values)
    }
}

impl FieldDef {
    /// The field's annotation values.
    pub fn annotations(&self) -> crate::values::Entries<'_> {
        crate::values::Entries::of(&self.annotations)
    }
}

/// The fragments a parsed file defines, in order, from the root of its tree: the parser's flat
/// tree ([`nacl_syntax::nacl::parse_flat`]; no rowan tree is built, so a workspace-wide pass
/// allocates little beyond the fragments themselves), or the green tree an editor's requests
/// keep. Blocks whose header is malformed (reported by the parser) define nothing. `source` is
/// the text the tree was parsed from: long text written as-is in it is kept as slices of it.
pub fn fragments<'t, N: NodeView<'t>>(root: N, source: &Text) -> Vec<Fragment> {
    let mut out = Vec::new();
    let mut reader = Reader { source: source.clone(), entries: Vec::new(), values: Vec::new() };
    for block in root.nodes(BLOCK) {
        let labels: Vec<Cow<'_, str>> = block.nodes(LABEL).map(N::name_text).collect();
        let labels: Vec<&str> = labels.iter().map(|l| &**l).collect();
        let Some(header_range) = header_range(block) else { continue };
        match (TopLevelKind::of_labels(&labels), labels.as_slice()) {
            (TopLevelKind::Vars, _) => out.extend(reader.variables(block)),
            (TopLevelKind::Type | TopLevelKind::SettingsType, [keyword, name, rest @ ..]) => {
                let Some(id) = type_id(name) else { continue };
                let settings = *keyword == "settings";
                let kind = match rest {
                    ["is", "string"] if !settings => FragmentKind::Primitive(Primitive::String),
                    ["is", "number"] if !settings => FragmentKind::Primitive(Primitive::Number),
                    ["is", "boolean"] if !settings => FragmentKind::Primitive(Primitive::Boolean),
                    ["is", "unknown"] if !settings => FragmentKind::Primitive(Primitive::Unknown),
                    ["is", "object"] | [] => FragmentKind::Object { settings, meta: None },
                    ["is", meta] if meta.contains('.') => FragmentKind::Object { settings, meta: Some((*meta).into()) },
                    _ => FragmentKind::Primitive(Primitive::Unknown),
                };
                out.push(reader.type_fragment(block, id, kind, header_range));
            }
            (TopLevelKind::Instance | TopLevelKind::SettingsInstance, [type_name, name @ ..]) => {
                let Some(type_id) = type_id(type_name) else { continue };
                let name = name.first().copied().unwrap_or(CONFIG_NAME);
                let id = ElemId {
                    adapter: type_id.adapter,
                    type_name: type_id.type_name,
                    id_type: IdType::Instance,
                    name_parts: smallvec::smallvec![name.into()],
                };
                let values = block.node(BODY).map(|b| reader.entries(b.nodes(ATTRIBUTE))).unwrap_or_default();
                out.push(Fragment {
                    id: Arc::new(id),
                    kind: FragmentKind::Instance,
                    range: block.range(),
                    header_range,
                    type_range: block.node(LABEL).map(N::range),
                    annotation_types: Box::default(),
                    fields: Box::default(),
                    values,
                });
            }
            _ => {}
        }
    }
    out
}

/// A type ID from a label, if it is a legal type name (at most two parts).
fn type_id(name: &str) -> Option<ElemId> {
    let id = ElemId::parse(name).ok()?;
    (id.id_type == IdType::Type && id.name_parts.is_empty()).then_some(id)
}

fn header_range<'t>(block: impl NodeView<'t>) -> Option<TextRange> {
    let mut labels = block.nodes(LABEL);
    let first = labels.next()?.range();
    Some(labels.last().map_or(first, |last| first.cover(last.range())))
}

/// Reads a file's blocks into fragments. Objects and lists are read onto scratch stacks (nested
/// ones above their parents') and moved into allocations of their exact size when complete, so
/// no vector grows or shrinks in place.
struct Reader {
    /// The file's text.
    source: Text,
    /// Entries of the objects being read, innermost last.
    entries: Vec<Entry>,
    /// Items of the lists being read, innermost last.
    values: Vec<Value>,
}

impl Reader {
    /// `text` (read from the file at `at`, or decoded from what is written there) as a
    /// [`Text`]: a slice of the file's text when it is written there as-is, else its own copy.
    fn text(&self, text: &str, at: TextSize) -> Text {
        let start = usize::from(at);
        let end = start + text.len();
        // Text read from the file is that very slice of it: the same address, so no need to
        // compare the bytes.
        let as_is = self
            .source
            .as_bytes()
            .get(start..end)
            .is_some_and(|there| std::ptr::eq(there.as_ptr(), text.as_ptr()) || there == text.as_bytes());
        as_is.then(|| slice_of(&self.source, start..end)).flatten().unwrap_or_else(|| Text::from(text))
    }

    /// A token's text.
    fn token_text<'t>(&self, token: impl TokenView<'t>) -> Text {
        self.text(token.text(), token.range().start())
    }

    /// The text of a `LABEL` or `KEY` (decoded when quoted).
    fn name_text<'t>(&self, name: impl NodeView<'t>) -> Text {
        match name.node(STRING) {
            Some(string) => self
                .literal_text(string, false)
                .unwrap_or_else(|| self.text(&string.string_value(), content_start(string))),
            None => self.text(&name.name_text(), name.range().start()),
        }
    }

    fn type_fragment<'t>(
        &mut self,
        block: impl NodeView<'t>,
        id: ElemId,
        kind: FragmentKind,
        header_range: TextRange,
    ) -> Fragment {
        let mut fragment = Fragment {
            id: Arc::new(id),
            kind,
            range: block.range(),
            header_range,
            type_range: None,
            annotation_types: Box::default(),
            fields: Box::default(),
            values: Box::default(),
        };
        let Some(body) = block.node(BODY) else { return fragment };
        // The type's annotation values go on the entries' scratch stack (the fields' own
        // annotations are read above them and taken off before the next value), its fields and
        // declared annotation types into vectors whose items are then moved into allocations of
        // their exact size: a type can have hundreds of fields.
        let start = self.entries.len();
        let (mut fields, mut annotation_types) = (Vec::new(), Vec::new());
        let mut seen_annotations = false;
        for item in body.children().filter_map(NodeOrToken::into_node) {
            match item.kind() {
                ATTRIBUTE => {
                    if let Some(entry) = self.entry(item) {
                        self.entries.push(entry);
                    }
                }
                BLOCK => {
                    let mut labels = item.nodes(LABEL);
                    let annotations =
                        labels.next().is_some_and(|l| l.name_text() == "annotations") && labels.next().is_none();
                    if annotations {
                        // Only the first annotations block counts (the parser reports the others).
                        if !std::mem::replace(&mut seen_annotations, true) {
                            for declared in item.node(BODY).into_iter().flat_map(|b| b.nodes(BLOCK)) {
                                // The parser reports one declared twice in the block; the first is kept.
                                if let Some(declared) = self.field_def(declared)
                                    && !annotation_types.iter().any(|d: &FieldDef| d.name == declared.name)
                                {
                                    annotation_types.push(declared);
                                }
                            }
                        }
                    } else if let Some(field) = self.field_def(item) {
                        // The parser reports a field defined twice in one block; the first is kept.
                        if !fields.iter().any(|f: &FieldDef| f.name == field.name) {
                            fields.push(field);
                        }
                    }
                }
                _ => {}
            }
        }
        fragment.values = self.entries.drain(start..).collect();
        fragment.fields = fields.drain(..).collect();
        fragment.annotation_types = annotation_types.drain(..).collect();
        fragment
    }

    fn field_def<'t>(&mut self, block: impl NodeView<'t>) -> Option<FieldDef> {
        let mut labels = block.nodes(LABEL);
        let (type_label, name_label) = (labels.next()?, labels.next()?);
        if labels.next().is_some() {
            return None;
        }
        Some(FieldDef {
            name: self.name_text(name_label),
            type_name: self.name_text(type_label),
            range: block.range(),
            name_range: name_label.range(),
            type_range: type_label.range(),
            annotations: block.node(BODY).map(|b| self.entries(b.nodes(ATTRIBUTE))).unwrap_or_default(),
        })
    }

    fn variables<'t>(&mut self, block: impl NodeView<'t>) -> Vec<Fragment> {
        let Some(body) = block.node(BODY) else { return Vec::new() };
        body.nodes(ATTRIBUTE)
            .filter_map(|attribute| {
                let entry = self.entry(attribute)?;
                Some(Fragment {
                    id: Arc::new(ElemId {
                        adapter: VARIABLES_NAMESPACE.into(),
                        type_name: entry.key.as_str().into(),
                        id_type: IdType::Var,
                        name_parts: crate::elem_id::NameParts::new(),
                    }),
                    kind: FragmentKind::Variable,
                    range: attribute.range(),
                    header_range: entry.key_range,
                    type_range: None,
                    annotation_types: Box::default(),
                    fields: Box::default(),
                    values: Box::new([entry]),
                })
            })
            .collect()
    }

    /// The entries of a body or object; a key set twice keeps its first value (the parser reports
    /// it). Read onto the scratch stack, then moved into one allocation of the exact size.
    fn entries<'t>(&mut self, attributes: impl Iterator<Item = impl NodeView<'t>>) -> Box<[Entry]> {
        /// Up to this many entries a scan finds a repeated key faster than a set.
        const SCAN_LIMIT: usize = 16;
        let start = self.entries.len();
        let mut seen: Option<std::collections::HashSet<Text, crate::hashing::NameHasher>> = None;
        for attribute in attributes {
            let Some(entry) = self.entry(attribute) else { continue };
            let read = &self.entries[start..];
            if read.len() < SCAN_LIMIT {
                if read.iter().any(|e| e.key == entry.key) {
                    continue;
                }
            } else {
                let seen = seen.get_or_insert_with(|| read.iter().map(|e| e.key.clone()).collect());
                if !seen.insert(entry.key.clone()) {
                    continue;
                }
            }
            self.entries.push(entry);
        }
        self.entries.drain(start..).collect()
    }

    fn entry<'t>(&mut self, attribute: impl NodeView<'t>) -> Option<Entry> {
        let key = attribute.node(KEY)?;
        let value = match attribute.value() {
            Some(value) => self.value_of(value),
            None => Value { kind: ValueKind::Invalid, range: TextRange::empty(attribute.range().end()) },
        };
        Some(Entry { key: self.name_text(key), key_range: key.range(), value })
    }

    fn value_of<'t>(&mut self, value: impl NodeView<'t>) -> Value {
        let kind = match value.kind() {
            STRING => self.string_kind(value, false),
            MULTILINE_STRING => self.string_kind(value, true),
            LITERAL => {
                let token = value.children().filter_map(NodeOrToken::into_token).find(|t| !t.kind().is_trivia());
                match token.map(|t| (t.kind(), t.text(), t)) {
                    Some((IDENT, "true", _)) => ValueKind::Bool(true),
                    Some((IDENT, "false", _)) => ValueKind::Bool(false),
                    Some((NUMBER, _, token)) => ValueKind::Number(self.token_text(token)),
                    _ => ValueKind::Invalid,
                }
            }
            REFERENCE => match value.token(IDENT) {
                Some(id) => ValueKind::Reference(self.token_text(id)),
                None => ValueKind::Invalid,
            },
            LIST => {
                let start = self.values.len();
                for item in value.values() {
                    let item = self.value_of(item);
                    self.values.push(item);
                }
                ValueKind::List(self.values.drain(start..).collect())
            }
            OBJECT => ValueKind::Object(self.entries(value.nodes(ATTRIBUTE))),
            CALL => self.call_kind(value),
            _ => ValueKind::Invalid,
        };
        Value { kind, range: value.range() }
    }

    /// A string's value: plain text, or a template when it holds references.
    fn string_kind<'t>(&self, string: impl NodeView<'t>, multiline: bool) -> ValueKind {
        if let Some(text) = self.literal_text(string, multiline) {
            return ValueKind::String(text);
        }
        if !string.has_templates() {
            let text = if multiline { string.multiline_value() } else { string.string_value() };
            return ValueKind::String(self.text(&text, content_start(string)));
        }
        // The literal text between references, decoded as the whole string would be: a piece
        // of literal text alone is sliced from the file; one with an escape is decoded.
        let mut out = Vec::new();
        let mut piece = Piece::default();
        for part in string.children() {
            match part {
                NodeOrToken::Token(t) if matches!(t.kind(), STRING_TEXT | ESCAPE) => {
                    piece.push(&self.source, t.kind(), t.text(), t.range(), multiline)
                }
                NodeOrToken::Node(template) if template.kind() == TEMPLATE => {
                    self.flush(&mut piece, &mut out, false);
                    if let Some(id) = template.token(IDENT) {
                        out.push(TemplatePart::Reference(Reference { text: self.token_text(id), range: id.range() }));
                    }
                }
                _ => {}
            }
        }
        self.flush(&mut piece, &mut out, multiline);
        ValueKind::Template(out.into_boxed_slice())
    }

    /// Ends the piece of literal text of a template being read, adding it to `out` unless it is
    /// empty; `ends_multiline`: it ends a multiline string, whose final line break is not part of
    /// its value.
    fn flush(&self, piece: &mut Piece, out: &mut Vec<TemplatePart>, ends_multiline: bool) {
        let Piece { range, decoder } = std::mem::take(piece);
        let Some(range) = range else { return };
        let text = match decoder {
            None => slice_of(&self.source, usize::from(range.start())..usize::from(range.end()))
                .map(|text| if ends_multiline { without_final_break(text) } else { text }),
            Some(decoder) => {
                let text = if ends_multiline { decoder.finish_multiline() } else { decoder.finish() };
                Some(self.text(&text, range.start()))
            }
        };
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            out.push(TemplatePart::Text(text));
        }
    }

    /// The value of a string of literal text alone (no escape, no template; for a multiline
    /// string its content lines, without the line break that ends the last), sliced from the file
    /// without decoding it; `None` for any other string.
    fn literal_text<'t>(&self, string: impl NodeView<'t>, multiline: bool) -> Option<Text> {
        let mut range: Option<TextRange> = None;
        for part in string.children() {
            match part {
                NodeOrToken::Token(t) if t.kind() == STRING_TEXT => {
                    range = Some(match range {
                        None => t.range(),
                        Some(so_far) if so_far.end() == t.range().start() => so_far.cover(t.range()),
                        Some(_) => return None,
                    });
                }
                NodeOrToken::Token(t) if t.kind() == ESCAPE => return None,
                NodeOrToken::Token(_) => {}
                NodeOrToken::Node(_) => return None,
            }
        }
        let Some(range) = range else { return Some(self.text("", content_start(string))) };
        let text = slice_of(&self.source, usize::from(range.start())..usize::from(range.end()))?;
        Some(if multiline { without_final_break(text) } else { text })
    }

    fn call_kind<'t>(&self, call: impl NodeView<'t>) -> ValueKind {
        let strings: Vec<Text> = call
            .node(ARG_LIST)
            .into_iter()
            .flat_map(|args| args.values())
            .filter(|a| a.kind() == STRING)
            .map(|s| self.text(&s.string_value(), content_start(s)))
            .collect();
        match (call.token(IDENT).map(|n| n.text()), strings.as_slice()) {
            (Some("file"), [path]) => ValueKind::File(Box::new(FileCall { path: path.clone(), encoding: None })),
            (Some("file"), [path, encoding]) => {
                ValueKind::File(Box::new(FileCall { path: path.clone(), encoding: Some(encoding.clone()) }))
            }
            // Unknown functions and bad arguments were reported by the parser.
            _ => ValueKind::Invalid,
        }
    }
}

/// How fragments store their texts (in the persistent cache): text that is a slice of the
/// file's text as its place in that text, which is read anyway; any other text as its place in
/// a table of the file's other texts, written beside its results (so that reading checks that
/// the table is UTF-8 once, and texts read back share it). The file's text is set with
/// [`stored_text::writing`] and [`stored_text::reading`] around writing or reading its results;
/// without them every text is stored as itself.
pub mod stored_text {
    use super::{Text, slice_of};
    use serde::{Deserialize, Serialize, de::Error};
    use std::{borrow::Cow, cell::RefCell};

    /// What texts of one file's results are stored against.
    struct Context {
        /// The file's text.
        source: Text,
        /// The table of its other texts.
        table: Table,
    }

    /// The table of a file's texts that are not slices of its text.
    enum Table {
        /// Being written.
        Writing(String),
        /// Being read.
        Reading(Text),
    }

    thread_local! {
        /// What the file whose results this thread is writing or reading stores texts against.
        static CONTEXT: RefCell<Option<Context>> = const { RefCell::new(None) };
    }

    /// Runs `f` with `context` set (the previous one is restored afterwards, also when `f`
    /// panics), and gives back `f`'s result and the context it leaves.
    fn with_context<R>(context: Context, f: impl FnOnce() -> R) -> (R, Option<Context>) {
        /// Puts the previous context back when dropped.
        struct Restore(Option<Context>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                CONTEXT.with(|c| *c.borrow_mut() = previous);
            }
        }
        let _restore = Restore(CONTEXT.with(|c| c.replace(Some(context))));
        let result = f();
        (result, CONTEXT.with(|c| c.borrow_mut().take()))
    }

    /// Runs `f`, which writes the results of the file whose text is `source`, and gives back
    /// its result and the table of texts those results refer to.
    pub fn writing<R>(source: &Text, f: impl FnOnce() -> R) -> (R, String) {
        let table = Table::Writing(String::new());
        let (result, context) = with_context(Context { source: source.clone(), table }, f);
        let table = match context.map(|c| c.table) {
            Some(Table::Writing(table)) => table,
            _ => String::new(),
        };
        (result, table)
    }

    /// Runs `f`, which reads the results of the file whose text is `source`, written with
    /// `table` as their table of texts.
    pub fn reading<R>(source: &Text, table: &str, f: impl FnOnce() -> R) -> R {
        with_context(Context { source: source.clone(), table: Table::Reading(Text::from(table)) }, f).0
    }

    /// A text as stored.
    #[derive(Serialize, Deserialize)]
    enum Stored<'a> {
        /// The text itself.
        Own(#[serde(borrow)] Cow<'a, str>),
        /// Where it is in the file's text: its start and length in bytes.
        At(u32, u32),
        /// Where it is in the file's table of texts: its start and length in bytes.
        Listed(u32, u32),
    }

    /// Where `text` lies in `source`, when it is a slice of it.
    fn place_in(source: &Text, text: &Text) -> Option<(u32, u32)> {
        let start = text.as_ptr().addr().checked_sub(source.as_ptr().addr())?;
        let end = start.checked_add(text.len())?;
        (end <= source.len()).then_some((u32::try_from(start).ok()?, u32::try_from(text.len()).ok()?))
    }

    /// Where `text` is in the table being written, added at its end. (Writing each text only
    /// once, found in a map, made a check that writes the cache 6% slower for a cache a quarter
    /// smaller.)
    fn listed(table: &mut String, text: &str) -> Option<(u32, u32)> {
        let (start, len) = (u32::try_from(table.len()).ok()?, u32::try_from(text.len()).ok()?);
        start.checked_add(len)?;
        table.push_str(text);
        Some((start, len))
    }

    /// Writes a text: its place in the file's text when it is a slice of it, else its place in
    /// the table of texts.
    pub fn serialize<S: serde::Serializer>(text: &Text, serializer: S) -> Result<S::Ok, S::Error> {
        let stored = CONTEXT.with(|c| {
            let mut context = c.borrow_mut();
            let Context { source, table } = context.as_mut()?;
            if let Some((start, len)) = place_in(source, text) {
                return Some(Stored::At(start, len));
            }
            match table {
                Table::Writing(table) => listed(table, text).map(|(start, len)| Stored::Listed(start, len)),
                Table::Reading(_) => None,
            }
        });
        stored.unwrap_or(Stored::Own(Cow::Borrowed(text))).serialize(serializer)
    }

    /// Reads a text: a place is taken from the file's text or its table, and must lie in it.
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Text, D::Error> {
        let (start, len, listed) = match Stored::deserialize(deserializer)? {
            Stored::Own(text) => return Ok(Text::from(&*text)),
            Stored::At(start, len) => (start, len, false),
            Stored::Listed(start, len) => (start, len, true),
        };
        let (start, len) = (start as usize, len as usize);
        let range = start..start.checked_add(len).ok_or_else(|| D::Error::custom("a stored text is too long"))?;
        CONTEXT
            .with(|c| match c.borrow().as_ref()? {
                Context { source, .. } if !listed => slice_of(source, range),
                Context { table: Table::Reading(table), .. } => slice_of(table, range),
                Context { .. } => None,
            })
            .ok_or_else(|| D::Error::custom("a stored text does not lie in its file or its table"))
    }
}

/// How fragments store ranges (in the persistent cache): the start and the length, which is
/// written in fewer bytes than the end.
pub mod stored_range {
    use nacl_syntax::TextRange;
    use serde::{Deserialize, Serialize, de::Error};

    /// Writes a range as its start and length.
    pub fn serialize<S: serde::Serializer>(range: &TextRange, serializer: S) -> Result<S::Ok, S::Error> {
        (u32::from(range.start()), u32::from(range.len())).serialize(serializer)
    }

    /// Reads a range written as its start and length.
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<TextRange, D::Error> {
        let (start, len) = <(u32, u32)>::deserialize(deserializer)?;
        let end = start.checked_add(len).ok_or_else(|| D::Error::custom("a stored range ends past 4 GiB"))?;
        Ok(TextRange::new(start.into(), end.into()))
    }
}

/// The piece of a template's literal text being read: where it is written, and its decoder once
/// an escape (or a gap) made its value differ from what is written there.
#[derive(Default)]
struct Piece {
    range: Option<TextRange>,
    decoder: Option<nacl_syntax::nacl::StringDecoder>,
}

impl Piece {
    /// Adds a token of literal text or an escape, written at `range` in `source`.
    fn push(
        &mut self,
        source: &str,
        kind: nacl_syntax::nacl::SyntaxKind,
        text: &str,
        range: TextRange,
        multiline: bool,
    ) {
        let follows = self.range.is_none_or(|so_far| so_far.end() == range.start());
        if self.decoder.is_none() && (kind == ESCAPE || !follows) {
            let mut decoder = nacl_syntax::nacl::StringDecoder::default();
            if let Some(written) = self.range.and_then(|so_far| source.get(std::ops::Range::<usize>::from(so_far))) {
                decoder.push_piece(STRING_TEXT, written, multiline);
            }
            self.decoder = Some(decoder);
        }
        if let Some(decoder) = &mut self.decoder {
            decoder.push_piece(kind, text, multiline);
        }
        self.range = Some(self.range.map_or(range, |so_far| so_far.cover(range)));
    }
}

/// `text`, a multiline string's content lines, without the line break that ends the last
/// ([`nacl_syntax::nacl::without_final_break`]), still a slice of the same text.
fn without_final_break(text: Text) -> Text {
    let kept = nacl_syntax::nacl::without_final_break(&text).len();
    text.substr(..kept)
}

/// Where the content of a string node starts: its first text or escape (the end of the string
/// when it has none).
fn content_start<'t>(string: impl NodeView<'t>) -> TextSize {
    string
        .children()
        .filter_map(NodeOrToken::into_token)
        .find(|t| matches!(t.kind(), STRING_TEXT | ESCAPE))
        .map_or(string.range().end(), |t| t.range().start())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<String> {
        crate::db::FileFragments::of_text(&text.into()).fragments.iter().map(|f| f.id.to_string()).collect()
    }

    #[test]
    fn a_stored_text_outside_its_file_or_its_table_is_refused() {
        // The escaped value is decoded, so it is stored in the table; the rest are places.
        let source = Text::from("salto.t i {\n  key = \"va\\\"lue\"\n}\n");
        let fragments = crate::db::FileFragments::of_text(&source).fragments;
        let (bytes, table) = stored_text::writing(&source, || postcard::to_allocvec(&fragments[0]));
        assert_eq!(table, "va\"lue");
        let bytes = bytes.expect("written");
        let read = |source: &str, table: &str| {
            stored_text::reading(&source.into(), table, || postcard::from_bytes::<Fragment>(&bytes).ok())
        };
        assert_eq!(read(&source, &table).as_ref(), Some(&fragments[0]));
        assert_eq!(read(&source, &table[..table.len() - 1]), None);
        assert_eq!(read(&source, ""), None);
        // The key is past the end of a shorter text.
        assert_eq!(read(&source[..12], &table), None);
    }

    /// A string value's text, references written back as `${ id }`: what decoding the whole
    /// string node gives ([`NodeView::string_value`], [`NodeView::multiline_value`]).
    fn rejoined(kind: &ValueKind) -> Option<String> {
        match kind {
            ValueKind::String(text) => Some(text.to_string()),
            ValueKind::Template(parts) => Some(
                parts
                    .iter()
                    .map(|part| match part {
                        TemplatePart::Text(text) => text.to_string(),
                        TemplatePart::Reference(r) => format!("${{ {} }}", r.text),
                    })
                    .collect(),
            ),
            _ => None,
        }
    }

    proptest::proptest! {
        /// A string's value, sliced from the file where it is literal text alone and decoded
        /// where it holds an escape, is what decoding the whole string gives, in quoted and
        /// multiline strings, with references anywhere.
        #[test]
        fn a_string_value_is_the_string_decoded(
            quoted in proptest::collection::vec(
                proptest::sample::select(vec!["a", " ", "é", "$", "{", "}", "'", r"\n", r#"\""#, r"\\", r"\u00e9", r"\${", "${ a.b }"]),
                0..10,
            ),
            lines in proptest::collection::vec(
                proptest::sample::select(vec!["x", "  ", "é", "$", "'", r"\", r"\${", r"\\${", r"\'''", "${ a.b }", "\n", "\r\n", "\r"]),
                0..14,
            ),
            last_break in proptest::sample::select(vec!["\n", "\r\n", "\r"]),
        ) {
            let (quoted, lines) = (quoted.concat(), lines.concat());
            let text = format!("salto.t i {{\n  q = \"{quoted}\"\n  m = '''\n{lines}{last_break}'''\n}}\n");
            let source = Text::from(text.as_str());
            let parse = nacl_syntax::nacl::parse(&text);
            proptest::prop_assume!(parse.errors().is_empty());
            let root = nacl_syntax::nacl::green::GNode::root(parse.green());
            let read = fragments(root, &source);
            proptest::prop_assert_eq!(read.len(), 1);
            let attributes = root.nodes(BLOCK).flat_map(|b| b.node(BODY)).flat_map(|b| b.nodes(ATTRIBUTE));
            for (entry, attribute) in read[0].values.iter().zip(attributes) {
                let Some(string) = attribute.value() else { continue };
                let decoded = match string.kind() {
                    MULTILINE_STRING => string.multiline_value(),
                    _ => string.string_value(),
                };
                proptest::prop_assert_eq!(rejoined(&entry.value.kind), Some(decoded), "{}", entry.key);
            }
        }
    }

    #[test]
    fn every_block_form_has_its_id() {
        let text = "type salto.t {\n}\nsettings salto.s {\n}\nsalto.t inst {\n}\nsalto.s {\n}\nsalesforce {\n}\nvars {\n  a = 1\n  b = 2\n}\ntype nonempty {\n}\n";
        assert_eq!(
            ids(text),
            [
                "salto.t",
                "salto.s",
                "salto.t.instance.inst",
                "salto.s.instance",
                "salesforce._config.instance",
                "var.a",
                "var.b",
                "nonempty"
            ]
        );
    }

    #[test]
    fn values_keep_their_meaning() {
        let text = "salto.t i {\n  a = \"x${ salto.t.instance.j }y\"\n  b = [1, true]\n  c = file(\"p\", \"utf8\")\n  d = salto.t.instance.j.a\n}\n";
        let fragment = &crate::db::FileFragments::of_text(&text.into()).fragments[0];
        let kinds: Vec<&ValueKind> = fragment.values.iter().map(|e| &e.value.kind).collect();
        assert!(matches!(kinds[0], ValueKind::Template(parts) if parts.len() == 3));
        assert!(matches!(kinds[1], ValueKind::List(items) if items.len() == 2));
        assert!(matches!(kinds[2], ValueKind::File(call) if call.encoding.as_deref() == Some("utf8")));
        assert!(matches!(kinds[3], ValueKind::Reference(r) if &**r == "salto.t.instance.j.a"));
    }

    #[test]
    fn fields_and_annotation_types_are_read() {
        let text = "type salto.t {\n  annotations {\n    string label {\n    }\n  }\n  \"List<string>\" tags {\n    _required = true\n  }\n  label = \"T\"\n}\n";
        let fragment = &crate::db::FileFragments::of_text(&text.into()).fragments[0];
        assert_eq!(&*fragment.annotation_types[0].name, "label");
        assert_eq!(&*fragment.fields[0].type_name, "List<string>");
        assert_eq!(&*fragment.fields[0].annotations[0].key, "_required");
        assert_eq!(&*fragment.values[0].key, "label");
    }
    #[test]
    fn text_written_as_is_is_a_slice_of_the_file_and_decoded_text_a_copy() {
        let text: Text = concat!(
            "salto.t i {\n",
            "  a_key_longer_than_twenty_three_bytes = \"a value longer than twenty-three bytes\"\n",
            "  escaped = \"a long value with an escape: \\\" (a quote)\"\n",
            "  multiline = '''\n",
            "a first line long enough to be shared\n",
            "and ${ salto.t.instance.j } a reference\n",
            "'''\n",
            "  short = \"short\"\n",
            "  \"a quoted key\" = \"\"\n",
            "  \"an escaped \\\"key\\\"\" = 1\n",
            "}\n"
        )
        .into();
        let fragment = &crate::db::FileFragments::of_text(&text).fragments[0];
        let in_text = |t: &Text| text.as_bytes().as_ptr_range().contains(&t.as_ptr());
        let [long, escaped, multiline, short, quoted, escaped_key] = &fragment.values[..] else { panic!("six values") };
        assert!(in_text(&quoted.key) && &*quoted.key == "a quoted key");
        assert!(matches!(&quoted.value.kind, ValueKind::String(s) if s.is_empty()));
        assert!(!in_text(&escaped_key.key) && &*escaped_key.key == "an escaped \"key\"");
        assert!(in_text(&long.key));
        assert!(matches!(&long.value.kind, ValueKind::String(s) if in_text(s)));
        assert!(matches!(&escaped.value.kind, ValueKind::String(s) if !in_text(s) && s.ends_with("\" (a quote)")));
        let ValueKind::Template(parts) = &multiline.value.kind else { panic!("a template") };
        assert!(
            matches!(&parts[0], TemplatePart::Text(t) if in_text(t) && &**t == "a first line long enough to be shared\nand ")
        );
        assert!(matches!(&short.value.kind, ValueKind::String(s) if in_text(s) && &**s == "short"));
        assert!(in_text(&short.key));
    }
}
