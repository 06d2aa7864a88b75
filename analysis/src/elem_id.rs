//! Element IDs: the full names Salto gives every type, field, instance, annotation and value.
//!
//! `salesforce.Account`, `salesforce.Account.field.Name`, `salesforce.Account.instance.acme.address.0`,
//! `var.x`, `salesforce` (the adapter's config type), `List<salesforce.Text>`. Parsing and rendering
//! follow Salto's rules, including the `_config` name of settings instances and config types.

use std::fmt::{self, Write as _};

/// The separator between the parts of a full name.
const SEPARATOR: char = '.';
/// The name of config types and settings instances, dropped when it ends a full name.
pub const CONFIG_NAME: &str = "_config";
/// The adapter part of variable IDs.
pub const VARIABLES_NAMESPACE: &str = "var";

/// Built-in types, referred to by their bare name (Salto's global adapter).
pub const BUILTIN_TYPES: &[&str] = &[
    "string",
    "number",
    "boolean",
    "serviceid",
    "serviceid_number",
    "json",
    "unknown",
    "restriction",
    "dependencyOccurrence",
    "dependency",
    "hidden_string",
    "hidden_boolean",
    "important_value",
];

/// What kind of thing inside a type an ID names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum IdType {
    /// A type (`adapter.type`).
    Type,
    /// A field of an object type, then a path into its annotations.
    Field,
    /// An instance, then a path into its value.
    Instance,
    /// An annotation value of a type, then a path into it.
    Attr,
    /// An annotation type declared by a type.
    Annotation,
    /// A variable.
    Var,
}

impl IdType {
    /// The word used in full names.
    pub fn as_str(self) -> &'static str {
        match self {
            IdType::Type => "type",
            IdType::Field => "field",
            IdType::Instance => "instance",
            IdType::Attr => "attr",
            IdType::Annotation => "annotation",
            IdType::Var => "var",
        }
    }

    /// The ID type a word of a full name stands for.
    pub fn parse(word: &str) -> Option<IdType> {
        Some(match word {
            "type" => IdType::Type,
            "field" => IdType::Field,
            "instance" => IdType::Instance,
            "attr" => IdType::Attr,
            "annotation" => IdType::Annotation,
            "var" => IdType::Var,
            _ => return None,
        })
    }
}

/// A name in an element ID: held inline up to 24 bytes (most adapter, type and instance names),
/// so that parsing the IDs a workspace's references and types name allocates little.
pub type Name = compact_str::CompactString;

/// The names after an ID's type: held inline when there is one (an instance's name, a type's
/// field), as in most IDs a workspace holds or its references name.
pub type NameParts = smallvec::SmallVec<[Name; 1]>;

/// An element ID.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct ElemId {
    /// The adapter (account) name; empty for built-in and container types.
    pub adapter: Name,
    /// The type name (`_config` for an adapter's config type).
    pub type_name: Name,
    /// What the ID names.
    pub id_type: IdType,
    /// The instance, field or annotation name, then the path below it.
    pub name_parts: NameParts,
}

/// Why a text is not a legal element ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IllegalId(pub String);

impl fmt::Display for IllegalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl ElemId {
    /// The ID of a type.
    pub fn type_id(adapter: &str, type_name: &str) -> ElemId {
        ElemId {
            adapter: adapter.into(),
            type_name: type_name.into(),
            id_type: IdType::Type,
            name_parts: NameParts::new(),
        }
    }

    /// Parses a full name as Salto's `ElemID.fromFullName` does.
    pub fn parse(full: &str) -> Result<ElemId, IllegalId> {
        if is_container_name(full) {
            return Ok(ElemId::type_id("", full));
        }
        let illegal = |reason: String| IllegalId(format!("Cannot create ID {full} - {reason}"));
        // A part is empty when the name is, when it ends with a dot, or when a dot ends a part
        // that has not started (a dot first, or right after another).
        let dot = SEPARATOR as u8;
        let bytes = full.as_bytes();
        let empty_before_a_dot =
            memchr::memchr_iter(dot, bytes).try_fold(0, |part_start, at| (at > part_start).then_some(at + 1)).is_none();
        if bytes.is_empty() || bytes.last() == Some(&dot) || empty_before_a_dot {
            return Err(illegal("empty name part".to_owned()));
        }
        let (first, rest) = split_first_part(full);
        let (second, rest) = rest.map_or((None, None), |rest| {
            let (second, rest) = split_first_part(rest);
            (Some(second), rest)
        });
        let (kind, mut rest) = rest.map_or((None, None), |rest| {
            let (kind, rest) = split_first_part(rest);
            (Some(kind), rest)
        });
        // `<` and `>` belong to container names (`List<...>`): an adapter or type named with them
        // would render as a container name.
        if [Some(first), second].into_iter().flatten().any(|p| p.bytes().any(|b| b == b'<' || b == b'>')) {
            return Err(illegal("`<` and `>` only appear in container types such as `List<...>`".to_owned()));
        }
        match (first, second, kind) {
            (single, None, _) if BUILTIN_TYPES.contains(&single) => Ok(ElemId::type_id("", single)),
            (adapter, None, _) => Ok(ElemId::type_id(adapter, CONFIG_NAME)),
            (VARIABLES_NAMESPACE, Some(name), None) => Ok(ElemId {
                adapter: VARIABLES_NAMESPACE.into(),
                type_name: name.into(),
                id_type: IdType::Var,
                name_parts: NameParts::new(),
            }),
            (VARIABLES_NAMESPACE, Some(_), Some(_)) => Err(illegal("variables cannot have nested IDs".to_owned())),
            (adapter, Some(type_name), None) => Ok(ElemId::type_id(adapter, type_name)),
            (adapter, Some(type_name), Some(kind)) => {
                let id_type = IdType::parse(kind).ok_or_else(|| illegal(format!("Invalid ID type {kind}")))?;
                // Variables live in their own namespace: `var.<name>`, never `<adapter>.<type>.var...`.
                if id_type == IdType::Var {
                    return Err(illegal("variables are written `var.<name>`".to_owned()));
                }
                // Sized exactly: IDs parsed here are kept (as keys of per-reference queries).
                let parts = rest.map_or(1, |rest| memchr::memchr_iter(dot, rest.as_bytes()).count() + 1);
                let mut name_parts = NameParts::with_capacity(parts);
                while let Some(text) = rest {
                    let (part, after) = split_first_part(text);
                    name_parts.push(part.into());
                    rest = after;
                }
                if id_type == IdType::Instance && name_parts.is_empty() {
                    name_parts.push(CONFIG_NAME.into());
                }
                if matches!(id_type, IdType::Field | IdType::Annotation | IdType::Attr) && name_parts.is_empty() {
                    return Err(illegal(format!("{} IDs need a name", id_type.as_str())));
                }
                Ok(ElemId { adapter: adapter.into(), type_name: type_name.into(), id_type, name_parts })
            }
        }
    }

    /// Whether this ID names a whole element (a type, an instance or a variable).
    pub fn is_top_level(&self) -> bool {
        match self.id_type {
            IdType::Type | IdType::Var => self.name_parts.is_empty(),
            IdType::Instance => self.name_parts.len() == 1,
            _ => false,
        }
    }

    /// The whole element this ID lies in ([`ElemId::top_level`] without the path).
    pub fn top_level_id(&self) -> ElemId {
        match self.id_type {
            IdType::Instance => ElemId {
                adapter: self.adapter.clone(),
                type_name: self.type_name.clone(),
                id_type: IdType::Instance,
                name_parts: smallvec::smallvec![self.name_parts.first().map_or(CONFIG_NAME, Name::as_str).into()],
            },
            IdType::Var | IdType::Type => self.clone(),
            IdType::Field | IdType::Attr | IdType::Annotation => ElemId::type_id(&self.adapter, &self.type_name),
        }
    }

    /// The whole element this ID lies in, and the path from it.
    pub fn top_level(&self) -> (ElemId, Vec<Name>) {
        (self.top_level_id(), self.path_from_top().map(Name::from).collect())
    }

    /// The path from the whole element this ID lies in ([`ElemId::top_level_id`]) to it,
    /// borrowed: an instance's names after the first, a type's `attr`, `field` or `annotation`
    /// and the names after it.
    pub fn path_from_top(&self) -> impl Iterator<Item = &str> {
        let (kind, names) = match self.id_type {
            IdType::Instance => (None, self.name_parts.get(1..).unwrap_or_default()),
            IdType::Var => (None, &[][..]),
            IdType::Type => (None, &self.name_parts[..]),
            IdType::Field | IdType::Attr | IdType::Annotation => (Some(self.id_type.as_str()), &self.name_parts[..]),
        };
        kind.into_iter().chain(names.iter().map(Name::as_str))
    }

    /// The type ID of an instance, field or annotation ID.
    pub fn type_of(&self) -> ElemId {
        ElemId::type_id(&self.adapter, &self.type_name)
    }
}

impl ElemId {
    /// The full name, as written in references (and displayed), in a string allocated once at
    /// its length.
    pub fn full_name(&self) -> String {
        let parts = self.shown_parts();
        let length = parts.clone().map(|part| part.len() + 1).sum::<usize>().saturating_sub(1);
        let mut name = String::with_capacity(length);
        for (at, part) in parts.enumerate() {
            if at > 0 {
                name.push(SEPARATOR);
            }
            name.push_str(part);
        }
        name
    }

    /// The parts the full name joins with dots: `var` and the variable's name; else the adapter,
    /// the type, the ID type (but for a type's own ID) and the name parts, the empty ones
    /// dropped and so is a trailing `_config`.
    fn shown_parts(&self) -> impl Iterator<Item = &str> + Clone {
        let var = self.id_type == IdType::Var;
        let head = [if var { VARIABLES_NAMESPACE } else { &self.adapter }, &self.type_name];
        let id_type =
            (!var && (self.id_type != IdType::Type || !self.name_parts.is_empty())).then(|| self.id_type.as_str());
        let names = if var { &[][..] } else { &self.name_parts[..] };
        let parts =
            head.into_iter().chain(id_type).chain(names.iter().map(Name::as_str)).filter(move |p| var || !p.is_empty());
        let count = parts.clone().count() - usize::from(!var && parts.clone().next_back() == Some(CONFIG_NAME));
        parts.take(count)
    }
}

impl fmt::Display for ElemId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (at, part) in self.shown_parts().enumerate() {
            if at > 0 {
                f.write_char(SEPARATOR)?;
            }
            f.write_str(part)?;
        }
        Ok(())
    }
}

/// The text of `text` before its first separator, and the text after that separator (`None`
/// when it has none).
fn split_first_part(text: &str) -> (&str, Option<&str>) {
    match memchr::memchr(SEPARATOR as u8, text.as_bytes()) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    }
}

/// Whether a name is a container type such as `List<string>` or `Map<List<salto.x>>`.
pub fn is_container_name(name: &str) -> bool {
    (name.starts_with("List<") || name.starts_with("Map<")) && name.ends_with('>')
}

/// The inner type name of a container type name, if it is one.
pub fn container_inner(name: &str) -> Option<&str> {
    name.strip_prefix("List<").or_else(|| name.strip_prefix("Map<")).and_then(|rest| rest.strip_suffix('>'))
}

/// The characters NaCl-case encodes, with their codes.
const NACL_CASE_CODES: &[(char, &str)] = &[
    ('?', "a"),
    ('-', "b"),
    ('\\', "c"),
    ('/', "d"),
    ('&', "e"),
    (':', "f"),
    ('|', "g"),
    ('[', "h"),
    (']', "i"),
    ('(', "j"),
    (')', "k"),
    ('!', "l"),
    ('@', "m"),
    ('#', "n"),
    ('*', "o"),
    ('%', "p"),
    (';', "q"),
    ('"', "r"),
    (' ', "s"),
    ('\'', "t"),
    ('_', "u"),
    ('.', "v"),
    ('^', "w"),
    ('<', "x"),
    ('>', "y"),
    ('`', "za"),
    ('~', "zb"),
    ('$', "zc"),
    (',', "zd"),
    ('+', "ze"),
];

/// Decodes a NaCl-case name (`My_custom_form@s` → `My custom form`). Returns `None` when the
/// name is not NaCl-case encoded or its suffix does not fit it.
pub fn decode_nacl_case(name: &str) -> Option<String> {
    let (prefix, suffix) = name.rsplit_once('@')?;
    if suffix.is_empty() {
        // A purely numeric name gets a bare `@`.
        return prefix.bytes().all(|b| b.is_ascii_digit()).then(|| prefix.to_owned());
    }
    let mut codes = Vec::new();
    let mut rest = suffix;
    while !rest.is_empty() {
        let len = if rest.starts_with('z') { 2 } else { 1 };
        let code = rest.get(..len)?;
        let (c, _) = NACL_CASE_CODES.iter().find(|(_, k)| *k == code)?;
        codes.push(*c);
        rest = &rest[len..];
    }
    let underscores = prefix.matches('_').count();
    let mut replacements: Box<dyn Iterator<Item = char>> = match codes.as_slice() {
        [single] => Box::new(std::iter::repeat(*single)),
        _ if codes.len() == underscores => Box::new(codes.into_iter()),
        _ => return None,
    };
    Some(prefix.chars().map(|c| if c == '_' { replacements.next().unwrap_or('_') } else { c }).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(full: &str) -> String {
        ElemId::parse(full).expect(full).to_string()
    }

    proptest::proptest! {
        /// Display joins the non-empty parts with dots, dropping a trailing `_config`.
        #[test]
        fn display_joins_the_non_empty_parts(
            adapter in "(|a|_config)",
            type_name in "(|t|_config)",
            id_type in proptest::sample::select(vec![IdType::Type, IdType::Field, IdType::Instance, IdType::Attr, IdType::Annotation, IdType::Var]),
            name_parts in proptest::collection::vec("(|n|_config)", 0..4),
        ) {
            let name_parts = name_parts.into_iter().map(Name::from).collect();
            let id = ElemId { adapter: adapter.into(), type_name: type_name.into(), id_type, name_parts };
            if id.id_type == IdType::Var {
                proptest::prop_assert_eq!(id.to_string(), format!("var.{}", id.type_name));
                proptest::prop_assert_eq!(id.full_name(), format!("var.{}", id.type_name));
                return Ok(());
            }
            let mut parts: Vec<&str> = vec![&id.adapter, &id.type_name];
            if id.id_type != IdType::Type || !id.name_parts.is_empty() {
                parts.push(id.id_type.as_str());
            }
            parts.extend(id.name_parts.iter().map(Name::as_str));
            parts.retain(|p| !p.is_empty());
            if parts.last() == Some(&CONFIG_NAME) {
                parts.pop();
            }
            proptest::prop_assert_eq!(id.to_string(), parts.join("."));
            proptest::prop_assert_eq!(id.full_name(), parts.join("."));
        }

        /// Parsing agrees with Salto's rules written part by part ([`parse_by_parts`]): the same
        /// ID, or the same error, for names made of the words that decide them.
        #[test]
        fn parse_agrees_with_the_rules_part_by_part(
            words in proptest::collection::vec(
                "(|a|var|instance|field|attr|annotation|type|string|_config|x<y|List<a>|a>)", 0..6),
        ) {
            let full = words.join(".");
            proptest::prop_assert_eq!(ElemId::parse(&full), parse_by_parts(&full));
        }
    }

    /// Salto's `ElemID.fromFullName` as the rules are written: split the name into its parts, then
    /// decide on the list of parts (the oracle [`ElemId::parse`] is held to).
    fn parse_by_parts(full: &str) -> Result<ElemId, IllegalId> {
        if is_container_name(full) {
            return Ok(ElemId::type_id("", full));
        }
        let parts: Vec<&str> = full.split(SEPARATOR).collect();
        let illegal = |reason: String| IllegalId(format!("Cannot create ID {full} - {reason}"));
        if parts.iter().any(|p| p.is_empty()) {
            return Err(illegal("empty name part".to_owned()));
        }
        if parts.iter().take(2).any(|p| p.contains(['<', '>'])) {
            return Err(illegal("`<` and `>` only appear in container types such as `List<...>`".to_owned()));
        }
        match parts.as_slice() {
            [single] if BUILTIN_TYPES.contains(single) => Ok(ElemId::type_id("", single)),
            [adapter] => Ok(ElemId::type_id(adapter, CONFIG_NAME)),
            [VARIABLES_NAMESPACE, name] => Ok(ElemId {
                adapter: VARIABLES_NAMESPACE.into(),
                type_name: (*name).into(),
                id_type: IdType::Var,
                name_parts: NameParts::new(),
            }),
            [VARIABLES_NAMESPACE, ..] => Err(illegal("variables cannot have nested IDs".to_owned())),
            [adapter, type_name] => Ok(ElemId::type_id(adapter, type_name)),
            [adapter, type_name, kind, rest @ ..] => {
                let id_type = IdType::parse(kind).ok_or_else(|| illegal(format!("Invalid ID type {kind}")))?;
                if id_type == IdType::Var {
                    return Err(illegal("variables are written `var.<name>`".to_owned()));
                }
                let mut name_parts: NameParts = rest.iter().map(|p| (*p).into()).collect();
                if id_type == IdType::Instance && name_parts.is_empty() {
                    name_parts.push(CONFIG_NAME.into());
                }
                if matches!(id_type, IdType::Field | IdType::Annotation | IdType::Attr) && name_parts.is_empty() {
                    return Err(illegal(format!("{} IDs need a name", id_type.as_str())));
                }
                Ok(ElemId { adapter: (*adapter).into(), type_name: (*type_name).into(), id_type, name_parts })
            }
            [] => Err(illegal("empty ID".to_owned())),
        }
    }

    #[test]
    fn full_names_round_trip() {
        for full in [
            "salesforce.Account",
            "salesforce.Account.field.Name",
            "salesforce.Account.field.Name.label",
            "salesforce.Account.attr.label",
            "salesforce.Account.annotation.label",
            "salesforce.Account.instance.acme",
            "salesforce.Account.instance.acme.address.0.city",
            "var.x",
            "salesforce",
            "string",
            "List<List<salesforce.Text>>",
            "temp.la@te.instance.stuff@us",
        ] {
            assert_eq!(round_trip(full), full);
        }
    }

    #[test]
    fn config_names_follow_salto() {
        // A settings instance has the name `_config`, dropped when it ends the name.
        let settings = ElemId::parse("salto.obj.instance").expect("legal");
        assert_eq!(settings.name_parts[..], [CONFIG_NAME]);
        assert_eq!(settings.to_string(), "salto.obj.instance");
        let config_type = ElemId::parse("salesforce").expect("legal");
        assert_eq!(config_type.type_name, CONFIG_NAME);
        let value_in_settings = ElemId { name_parts: smallvec::smallvec![CONFIG_NAME.into(), "a".into()], ..settings };
        assert_eq!(value_in_settings.to_string(), "salto.obj.instance._config.a");
    }

    #[test]
    fn illegal_ids_say_why() {
        assert_eq!(
            ElemId::parse("sun.it.is.all.right").expect_err("illegal").0,
            "Cannot create ID sun.it.is.all.right - Invalid ID type is"
        );
        assert!(ElemId::parse("var.x.y").is_err());
        // Found by the `elem_id` fuzz target: `var` is no ID type inside an adapter's type.
        assert!(ElemId::parse("salto.t.var.x").is_err());
        assert!(ElemId::parse("a..b").is_err());
        // Found by the `elem_id` fuzz target: it would render as the container `Map<t.y>`.
        assert!(ElemId::parse("Map<t.y>.type").is_err());
        assert!(ElemId::parse("Map<salto.t>").is_ok_and(|id| id.adapter.is_empty()));
    }

    #[test]
    fn top_level_splits_the_path() {
        let id = ElemId::parse("salto.t.instance.i.a.0").expect("legal");
        let (top, path) = id.top_level();
        assert_eq!(top.to_string(), "salto.t.instance.i");
        assert_eq!(path, vec!["a", "0"]);
        let (top, path) = ElemId::parse("salto.t.field.f.label").expect("legal").top_level();
        assert_eq!((top.to_string(), path), ("salto.t".to_owned(), vec!["field".into(), "f".into(), "label".into()]));
    }

    #[test]
    fn top_level_id_is_the_element_top_level_gives() {
        let names = [
            "salto.t",
            "salto.t.type.x",
            "salto.t.instance",
            "salto.t.instance.i",
            "salto.t.instance.i.a.0",
            "salto.t.field.f",
            "salto.t.attr.a.b",
            "salto.t.annotation.a",
            "var.v",
            "string",
            "List<salto.t>",
        ];
        for name in names {
            let id = ElemId::parse(name).expect("legal");
            assert_eq!(id.top_level_id(), id.top_level().0, "{name}");
        }
    }

    #[test]
    fn nacl_case_decodes() {
        assert_eq!(decode_nacl_case("My_custom_form@s").as_deref(), Some("My custom form"));
        assert_eq!(decode_nacl_case("My_custom_form@sb").as_deref(), Some("My custom-form"));
        assert_eq!(decode_nacl_case("a_b_c@zcs").as_deref(), Some("a$b c"));
        assert_eq!(decode_nacl_case("123@").as_deref(), Some("123"));
        assert_eq!(decode_nacl_case("plain"), None);
        assert_eq!(decode_nacl_case("a_b@q_x"), None);
    }
}
