//! Reading one state file into lean elements.

use super::{
    StateElement, StateField, StateKind,
    decode::{self, Container},
    serialized::{Line, LineKind, SerializedElement, Sink},
};
use crate::{elem_id::ElemId, fragments::Primitive};
use serde::{Deserialize, de::DeserializeSeed};
use serde_json::value::RawValue;
use std::{fmt, io::Read, path::Path};

/// What one state file holds.
#[derive(Debug, Default)]
pub struct StateFile {
    /// Its top-level elements, in file order.
    pub elements: Vec<StateElement>,
    /// The accounts it names (from the accounts or update-dates lines).
    pub accounts: Vec<String>,
    /// How many elements could not be read (and were skipped), and why the first could not.
    pub skipped: Option<(usize, String)>,
    /// A hash of the bytes read from the file (what everything above was read from).
    pub hash: u64,
}

/// Why a state file could not be read.
#[derive(Debug)]
pub enum StateFileError {
    /// The file could not be read or decompressed.
    Io(std::io::Error),
    /// The file is not gzip (nor Salto's older UTF-8-encoded gzip).
    NotState,
    /// The JSON inside is broken or truncated.
    Json(serde_json::Error),
}

impl fmt::Display for StateFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateFileError::Io(e) => write!(f, "cannot read or decompress it: {e}"),
            StateFileError::NotState => f.write_str("it is not a Salto state file (expected gzip data)"),
            StateFileError::Json(e) if e.is_eof() => {
                f.write_str("its data ends too early: the file is truncated or its gzip data is damaged")
            }
            StateFileError::Json(e) => write!(f, "its content is not valid state JSON: {e}"),
        }
    }
}

/// The largest state file read (compressed); the largest real one is a few MB.
pub const MAX_STATE_FILE: u64 = 256 << 20;

/// Reads a state file of any generation.
pub fn read_state_file(path: &Path) -> Result<StateFile, StateFileError> {
    let (file, _) = crate::files::open_regular(path, MAX_STATE_FILE).map_err(StateFileError::Io)?;
    let hasher = std::cell::RefCell::new(xxhash_rust::xxh3::Xxh3Default::new());
    let mut file = Hashing { inner: file, hasher: &hasher };
    let mut head = [0u8; 3];
    let read = file.read(&mut head).map_err(StateFileError::Io)?;
    let container = Container::sniff(&head[..read]).ok_or(StateFileError::NotState)?;
    let rest = std::io::Cursor::new(head[..read].to_vec()).chain(file);
    let mut state = match container {
        Container::Gzip => read_json(decode::gunzip(rest)),
        Container::MangledGzip => read_json(decode::gunzip_mangled(rest)),
    }?;
    state.hash = hasher.borrow().digest();
    Ok(state)
}

/// A reader that hashes the bytes it reads.
struct Hashing<'h, R> {
    inner: R,
    hasher: &'h std::cell::RefCell<xxhash_rust::xxh3::Xxh3Default>,
}

impl<R: Read> Read for Hashing<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.hasher.borrow_mut().update(&buf[..read]);
        Ok(read)
    }
}

/// Reads the JSON lines of a decompressed state file.
pub fn read_json(reader: impl Read) -> Result<StateFile, StateFileError> {
    let mut collected = Collected::default();
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut previous = LineKind::Other;
    loop {
        // `end` only looks past whitespace: it fails when another value follows.
        if de.end().is_ok() {
            break;
        }
        match Line(&mut collected).deserialize(&mut de) {
            Ok(kind) => previous = kind,
            // The oldest files end with an unquoted version (`0.3.23`), which is not JSON: its
            // first part reads as a number and the rest fails. Nothing follows it.
            Err(e) if previous == LineKind::Number && e.is_syntax() => break,
            Err(e) if e.is_io() => return Err(StateFileError::Io(e.into())),
            Err(e) => return Err(StateFileError::Json(e)),
        }
    }
    Ok(StateFile { elements: collected.elements, accounts: collected.accounts, skipped: collected.skipped, hash: 0 })
}

#[derive(Default)]
struct Collected {
    elements: Vec<StateElement>,
    accounts: Vec<String>,
    skipped: Option<(usize, String)>,
}

impl Sink for Collected {
    fn element(&mut self, element: SerializedElement) {
        if let Some(element) = lean(element) {
            self.elements.push(element);
        }
    }

    fn skipped(&mut self, why: String) {
        match &mut self.skipped {
            Some((count, _)) => *count += 1,
            None => self.skipped = Some((1, why)),
        }
    }

    fn account(&mut self, account: String) {
        if !self.accounts.contains(&account) {
            self.accounts.push(account);
        }
    }
}

/// The annotations validation and merging look at first.
#[derive(Deserialize, Default)]
struct Flags {
    #[serde(rename = "_hidden", default)]
    hidden: Option<serde_json::Value>,
    #[serde(rename = "_hidden_value", default)]
    hidden_value: Option<serde_json::Value>,
}

impl Flags {
    fn of(annotations: &RawValue) -> Flags {
        serde_json::from_str(annotations.get()).unwrap_or_default()
    }
}

fn is_true(value: &Option<serde_json::Value>) -> bool {
    matches!(value, Some(serde_json::Value::Bool(true)))
}

fn empty_object() -> Box<RawValue> {
    RawValue::from_string("{}".to_owned()).unwrap_or_else(|_| unreachable!("`{{}}` is JSON"))
}

/// The lean form of a serialized element, or `None` for classes that are not elements.
fn lean(element: SerializedElement) -> Option<StateElement> {
    let id = element.id.to_elem_id()?;
    let type_id = element.ref_type.as_ref().and_then(|t| t.id.to_elem_id());
    let (id, kind) = match element.class.as_str() {
        "ObjectType" => (id, StateKind::Object { settings: element.is_settings }),
        "PrimitiveType" => {
            let primitive = match element.primitive {
                Some(0) => Primitive::String,
                Some(1) => Primitive::Number,
                Some(2) => Primitive::Boolean,
                _ => Primitive::Unknown,
            };
            (id, StateKind::Primitive(primitive))
        }
        "InstanceElement" => {
            // The instance's adapter and type come from its type; its name from its own ID.
            let type_id = type_id.unwrap_or_else(|| id.type_of());
            let name = id.name_parts.first().cloned().unwrap_or_else(|| crate::elem_id::CONFIG_NAME.into());
            let id = ElemId {
                adapter: type_id.adapter.clone(),
                type_name: type_id.type_name.clone(),
                id_type: crate::elem_id::IdType::Instance,
                name_parts: smallvec::smallvec![name],
            };
            (id, StateKind::Instance { type_id })
        }
        _ => return None,
    };
    let annotations = element.annotations.unwrap_or_else(empty_object);
    let flags = Flags::of(&annotations);
    let fields = element
        .fields
        .0
        .into_iter()
        .map(|(name, field)| {
            let annotations = field.annotations.unwrap_or_else(empty_object);
            let flags = Flags::of(&annotations);
            let type_name =
                field.ref_type.and_then(|t| t.id.to_elem_id()).map_or_else(|| "unknown".to_owned(), |t| t.to_string());
            StateField {
                name,
                type_name,
                annotations,
                hidden_value: is_true(&flags.hidden_value),
                hidden: is_true(&flags.hidden),
            }
        })
        .collect();
    let annotation_types = element
        .annotation_types
        .0
        .into_iter()
        .filter_map(|(name, t)| Some((name, t.id.to_elem_id()?.to_string())))
        .collect();
    let value = matches!(kind, StateKind::Instance { .. }).then_some(element.value).flatten();
    Some(StateElement {
        id,
        kind,
        hidden: is_true(&flags.hidden),
        hidden_value: is_true(&flags.hidden_value),
        annotations,
        annotation_types,
        fields,
        value,
        hidden_values: Vec::new(),
        file: 0,
    })
}
