//! The values of fragments as their readers see them: small copyable views ([`ValueRef`],
//! [`EntryRef`], [`Entries`], [`Items`], [`Parts`], [`Str`]) that borrow from the fragments.
//! Validation, resolution, navigation, completion and the command line read values through
//! these, not through the fragments' own trees, so that how fragments keep their values (a tree
//! of boxed slices today; per-file arrays, the compact store of issue 22, next) concerns this
//! module and [`crate::fragments`] alone. Merging ([`crate::merge`]) and the persistent cache
//! still read and copy the trees.

use crate::fragments::{Entry, FileCall, TemplatePart, Text, Value, ValueKind};
use nacl_syntax::TextRange;

/// A text of a value or a key: read as a `str`, or kept as a [`Text`] (sharing the file's
/// text where it is written as-is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Str<'a>(&'a Text);

impl<'a> Str<'a> {
    /// The text.
    pub fn as_str(self) -> &'a str {
        self.0.as_str()
    }

    /// The text, to keep.
    pub fn to_text(self) -> Text {
        self.0.clone()
    }
}

impl std::ops::Deref for Str<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        self.0.as_str()
    }
}

impl std::fmt::Display for Str<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.as_str())
    }
}

impl PartialEq<str> for Str<'_> {
    fn eq(&self, other: &str) -> bool {
        self.0.as_str() == other
    }
}

impl PartialEq<&str> for Str<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.0.as_str() == *other
    }
}

/// A value, with where it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueRef<'a>(&'a Value);

impl<'a> ValueRef<'a> {
    /// A view of `value`, a value held outside any file's fragments: built from Salto's state, a
    /// type's allowed values, or a merged element's copy.
    pub fn of(value: &'a Value) -> ValueRef<'a> {
        ValueRef(value)
    }

    /// Where the value is written.
    pub fn range(self) -> TextRange {
        self.0.range
    }

    /// What the value is.
    pub fn kind(self) -> Kind<'a> {
        match &self.0.kind {
            ValueKind::String(text) => Kind::String(Str(text)),
            ValueKind::Template(parts) => Kind::Template(Parts(parts)),
            ValueKind::Number(text) => Kind::Number(Str(text)),
            ValueKind::Bool(value) => Kind::Bool(*value),
            ValueKind::Reference(text) => Kind::Reference(Str(text)),
            ValueKind::List(items) => Kind::List(Items(items)),
            ValueKind::Object(entries) => Kind::Object(Entries(entries)),
            ValueKind::File(call) => Kind::File(call),
            ValueKind::Invalid => Kind::Invalid,
        }
    }
}

/// What a value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind<'a> {
    /// A string (single-line or multiline) without references.
    String(Str<'a>),
    /// A string with `${ }` references.
    Template(Parts<'a>),
    /// A number, as written.
    Number(Str<'a>),
    /// `true` or `false`.
    Bool(bool),
    /// A reference to an element ID, as written (where the value is).
    Reference(Str<'a>),
    /// A list.
    List(Items<'a>),
    /// An object.
    Object(Entries<'a>),
    /// `file("path")` or `file("path", "encoding")`.
    File(&'a FileCall),
    /// A missing or broken value (a syntax error was reported).
    Invalid,
}

/// `key = value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryRef<'a>(&'a Entry);

impl<'a> EntryRef<'a> {
    /// The key.
    pub fn key(self) -> Str<'a> {
        Str(&self.0.key)
    }

    /// Where the key is written.
    pub fn key_range(self) -> TextRange {
        self.0.key_range
    }

    /// The value.
    pub fn value(self) -> ValueRef<'a> {
        ValueRef(&self.0.value)
    }
}

/// The entries of an object, of an instance or of a type's or a field's annotations, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Entries<'a>(&'a [Entry]);

impl<'a> Entries<'a> {
    /// The entries of `entries`.
    pub fn of(entries: &'a [Entry]) -> Entries<'a> {
        Entries(entries)
    }

    /// The entries, in order.
    pub fn iter(self) -> impl DoubleEndedIterator<Item = EntryRef<'a>> + ExactSizeIterator + Clone + 'a {
        self.0.iter().map(EntryRef)
    }

    /// How many there are.
    pub fn len(self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(self) -> bool {
        self.0.is_empty()
    }

    /// The entry of `key`.
    pub fn get(self, key: &str) -> Option<EntryRef<'a>> {
        self.iter().find(|e| e.key().as_str() == key)
    }

    /// The value at `path` (keys through objects, indices through lists), with the range of the
    /// key that sets it (for a list item, its own range).
    pub fn at(self, path: &[impl AsRef<str>]) -> Option<(ValueRef<'a>, TextRange)> {
        let (first, rest) = path.split_first()?;
        let entry = self.get(first.as_ref())?;
        let mut found = (entry.value(), entry.key_range());
        for step in rest {
            let step = step.as_ref();
            found = match found.0.kind() {
                Kind::Object(entries) => {
                    let entry = entries.get(step)?;
                    (entry.value(), entry.key_range())
                }
                Kind::List(items) => {
                    let item = items.get(step.parse::<usize>().ok()?)?;
                    (item, item.range())
                }
                _ => return None,
            };
        }
        Some(found)
    }
}

/// The items of a list, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Items<'a>(&'a [Value]);

impl<'a> Items<'a> {
    /// The items, in order.
    pub fn iter(self) -> impl DoubleEndedIterator<Item = ValueRef<'a>> + ExactSizeIterator + Clone + 'a {
        self.0.iter().map(ValueRef)
    }

    /// How many there are.
    pub fn len(self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(self) -> bool {
        self.0.is_empty()
    }

    /// The item at `index`.
    pub fn get(self, index: usize) -> Option<ValueRef<'a>> {
        self.0.get(index).map(ValueRef)
    }

    /// The items as values of their own, to keep apart from the file's fragments (a type's
    /// allowed values).
    pub fn to_vec(self) -> Vec<Value> {
        self.0.to_vec()
    }
}

/// The pieces of a template string, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts<'a>(&'a [TemplatePart]);

impl<'a> Parts<'a> {
    /// The pieces, in order.
    pub fn iter(self) -> impl DoubleEndedIterator<Item = Part<'a>> + ExactSizeIterator + Clone + 'a {
        self.0.iter().map(|part| match part {
            TemplatePart::Text(text) => Part::Text(Str(text)),
            TemplatePart::Reference(reference) => Part::Reference(Str(&reference.text), reference.range),
        })
    }
}

/// A piece of a template string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part<'a> {
    /// Literal text.
    Text(Str<'a>),
    /// A `${ }` reference: the element ID as written, and where.
    Reference(Str<'a>, TextRange),
}
