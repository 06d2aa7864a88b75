//! The JSON of a state file, read as a stream of values: the positional lines of older files
//! (elements array, update dates, path index, version) and the keyed objects of newer ones
//! (`{"accounts":…}`, `{"elements":…}`, `{"pathIndices":…}`), told apart by their shape.
//!
//! Elements are handed to a callback one at a time, so a file is never held as a whole.

use crate::elem_id::{ElemId, IdType, Name};
use serde::{
    Deserialize, Deserializer,
    de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor},
};
use serde_json::value::RawValue;
use std::fmt;

/// An element ID as serialized: `{"adapter", "typeName", "idType", "nameParts"}`.
#[derive(Deserialize)]
pub struct SerializedId {
    adapter: String,
    #[serde(rename = "typeName")]
    type_name: String,
    #[serde(rename = "idType")]
    id_type: String,
    #[serde(rename = "nameParts", default)]
    name_parts: Vec<String>,
}

impl SerializedId {
    /// The element ID, with old-style `list<`/`map<` container names normalised.
    pub fn to_elem_id(&self) -> Option<ElemId> {
        let id_type = IdType::parse(&self.id_type)?;
        let type_name = normalise_container(&self.type_name);
        // Container types belong to no adapter, whatever the writer put there.
        let adapter =
            if crate::elem_id::is_container_name(&type_name) { Name::default() } else { self.adapter.as_str().into() };
        let mut name_parts: crate::elem_id::NameParts =
            self.name_parts.iter().filter(|p| !p.is_empty()).map(|p| p.as_str().into()).collect();
        if id_type == IdType::Instance && name_parts.is_empty() {
            name_parts.push(crate::elem_id::CONFIG_NAME.into());
        }
        Some(ElemId { adapter, type_name: type_name.as_str().into(), id_type, name_parts })
    }
}

/// `list<x>` → `List<x>` and `map<x>` → `Map<x>`, at any depth.
fn normalise_container(name: &str) -> String {
    if !name.contains("list<") && !name.contains("map<") {
        return name.to_owned();
    }
    name.replace("list<", "List<").replace("map<", "Map<")
}

/// A type named by ID: a `TypeReference`, or an old-style inline placeholder type. Only the
/// ID is read.
#[derive(Deserialize)]
pub struct TypeRef {
    /// The type's ID.
    #[serde(rename = "elemID", alias = "elemId")]
    pub id: SerializedId,
}

/// A field of a serialized object type.
#[derive(Deserialize)]
pub struct SerializedField {
    /// Its annotations.
    #[serde(default)]
    pub annotations: Option<Box<RawValue>>,
    /// Its type.
    #[serde(rename = "refType", alias = "type")]
    pub ref_type: Option<TypeRef>,
}

/// A top-level element as serialized.
#[derive(Deserialize)]
pub struct SerializedElement {
    /// Its ID.
    #[serde(rename = "elemID", alias = "elemId")]
    pub id: SerializedId,
    /// `ObjectType`, `PrimitiveType`, `InstanceElement` (or something newer).
    #[serde(rename = "_salto_class", default)]
    pub class: String,
    /// Annotation values.
    #[serde(default)]
    pub annotations: Option<Box<RawValue>>,
    /// Declared annotation types, by name.
    #[serde(rename = "annotationRefTypes", alias = "annotationTypes", default)]
    pub annotation_types: Ordered<TypeRef>,
    /// Fields of an object type, by name.
    #[serde(default)]
    pub fields: Ordered<SerializedField>,
    /// Whether an object type is a settings type.
    #[serde(rename = "isSettings", default)]
    pub is_settings: bool,
    /// A primitive type's category: 0 string, 1 number, 2 boolean, 3 unknown.
    #[serde(default)]
    pub primitive: Option<u8>,
    /// An instance's type.
    #[serde(rename = "refType", alias = "type")]
    pub ref_type: Option<TypeRef>,
    /// An instance's value.
    #[serde(default)]
    pub value: Option<Box<RawValue>>,
}

/// A JSON object read as a list of entries in file order.
pub struct Ordered<T>(pub Vec<(String, T)>);

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OrderedVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for OrderedVisitor<T> {
            type Value = Ordered<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some((key, value)) = map.next_entry()? {
                    entries.push((key, value));
                }
                Ok(Ordered(entries))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Ordered(Vec::new()))
            }
        }
        deserializer.deserialize_any(OrderedVisitor(std::marker::PhantomData))
    }
}

/// What the reader found besides elements.
pub trait Sink {
    /// One element of an elements array.
    fn element(&mut self, element: SerializedElement);
    /// An account the file has data for.
    fn account(&mut self, account: String);
    /// An element that could not be read, with why.
    fn skipped(&mut self, why: String);
}

/// Reads one top-level value of the file (one line), handing what it holds to a [`Sink`].
pub struct Line<'s, S>(pub &'s mut S);

/// What a top-level value turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// An array (elements, or a path index) or an object (keyed data, or update dates).
    Data,
    /// A number (the start of an unquoted version line of the oldest files).
    Number,
    /// Anything else (a version string).
    Other,
}

impl<'de, S: Sink> DeserializeSeed<'de> for Line<'_, S> {
    type Value = LineKind;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<LineKind, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, S: Sink> Visitor<'de> for Line<'_, S> {
    type Value = LineKind;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a line of a Salto state file")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<LineKind, A::Error> {
        Elements(self.0).visit_seq(seq)?;
        Ok(LineKind::Data)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LineKind, A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "elements" => map.next_value_seed(Elements(&mut *self.0))?,
                "accounts" => {
                    for account in map.next_value::<Vec<String>>()? {
                        self.0.account(account);
                    }
                }
                "updateDates" => {
                    for dates in map.next_value::<Vec<Ordered<IgnoredAny>>>()? {
                        dates.0.into_iter().for_each(|(account, _)| self.0.account(account));
                    }
                }
                "versions" | "pathIndices" => {
                    map.next_value::<IgnoredAny>()?;
                }
                // The positional update-dates line: account → date.
                _ => {
                    if let DateOrOther::Date = map.next_value::<DateOrOther>()? {
                        self.0.account(key);
                    }
                }
            }
        }
        Ok(LineKind::Data)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<LineKind, E> {
        Ok(LineKind::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<LineKind, E> {
        Ok(LineKind::Number)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<LineKind, E> {
        Ok(LineKind::Number)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<LineKind, E> {
        Ok(LineKind::Number)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<LineKind, E> {
        Ok(LineKind::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<LineKind, E> {
        Ok(LineKind::Other)
    }
}

/// A value that is a string (a date) or anything else.
enum DateOrOther {
    Date,
    Other,
}

impl<'de> Deserialize<'de> for DateOrOther {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(_) => DateOrOther::Date,
            _ => DateOrOther::Other,
        })
    }
}

/// An array whose objects are elements; other items (path-index pairs) are skipped.
struct Elements<'s, S>(&'s mut S);

impl<'de, S: Sink> DeserializeSeed<'de> for Elements<'_, S> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, S: Sink> Visitor<'de> for Elements<'_, S> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of elements")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // Each item is taken as raw JSON first, so one element of an unexpected shape is
        // skipped (and counted) instead of making the whole file unreadable.
        while let Some(raw) = seq.next_element::<Box<RawValue>>()? {
            match serde_json::from_str::<Item>(raw.get()) {
                Ok(Item::Element(element)) => self.0.element(*element),
                Ok(Item::Other) => {}
                Err(error) => self.0.skipped(error.to_string()),
            }
        }
        Ok(())
    }
}

/// An item of a top-level array: an element (an object) or anything else.
enum Item {
    Element(Box<SerializedElement>),
    Other,
}

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ItemVisitor;
        impl<'de> Visitor<'de> for ItemVisitor {
            type Value = Item;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an element")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Item, A::Error> {
                let element = SerializedElement::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Item::Element(Box::new(element)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Item, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Item::Other)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Item, E> {
                Ok(Item::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Item, E> {
                Ok(Item::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Item, E> {
                Ok(Item::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Item, E> {
                Ok(Item::Other)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Item, E> {
                Ok(Item::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Item, E> {
                Ok(Item::Other)
            }
        }
        deserializer.deserialize_any(ItemVisitor)
    }
}
