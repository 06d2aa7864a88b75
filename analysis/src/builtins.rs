//! Salto's core annotations: what each means, its type, and where it applies (for hover).

/// One core annotation.
pub struct CoreAnnotation {
    /// Its name, with the leading `_`.
    pub name: &'static str,
    /// The type of its value.
    pub value_type: &'static str,
    /// What it can be set on.
    pub applies_to: &'static str,
    /// What it means.
    pub meaning: &'static str,
}

/// Every core annotation Salto defines.
pub const CORE_ANNOTATIONS: &[CoreAnnotation] = &[
    CoreAnnotation {
        name: "_required",
        value_type: "boolean",
        applies_to: "fields",
        meaning: "Instances must set a value for this field. Default: `false`.",
    },
    CoreAnnotation {
        name: "_restriction",
        value_type: "restriction",
        applies_to: "fields, primitive types",
        meaning: "Limits the valid values: `values` (allowed values), `min` and `max` (inclusive bounds), `regex` (a JavaScript pattern values must match), `max_length` (UTF-16 units), `max_list_length`. `enforce_value = false` makes it a hint.",
    },
    CoreAnnotation {
        name: "_default",
        value_type: "unknown",
        applies_to: "fields, types",
        meaning: "The value instances get when they do not set this field.",
    },
    CoreAnnotation {
        name: "_hidden",
        value_type: "boolean",
        applies_to: "types, instances",
        meaning: "The element is kept out of NaCl; it lives only in Salto's state files.",
    },
    CoreAnnotation {
        name: "_hidden_value",
        value_type: "boolean",
        applies_to: "fields, annotation types, types",
        meaning: "Values of this field or type are kept out of NaCl; they live only in Salto's state files.",
    },
    CoreAnnotation {
        name: "_parent",
        value_type: "List<reference>",
        applies_to: "instances, types",
        meaning: "References to the parent elements of this element.",
    },
    CoreAnnotation {
        name: "_alias",
        value_type: "string",
        applies_to: "types, instances, fields",
        meaning: "A short, readable name editors show instead of the element ID. It need not be unique.",
    },
    CoreAnnotation {
        name: "_depends_on",
        value_type: "List<dependency>",
        applies_to: "types, instances, fields",
        meaning: "Dependencies added by hand, for ones Salto cannot detect; deploys respect them.",
    },
    CoreAnnotation {
        name: "_generated_dependencies",
        value_type: "List<dependency>",
        applies_to: "types, instances, fields",
        meaning: "Dependencies Salto detected by itself.",
    },
    CoreAnnotation {
        name: "_service_url",
        value_type: "hidden_string",
        applies_to: "types, instances, fields",
        meaning: "The element's address in the service (\"Go To Service\"). Kept in Salto's state, not in NaCl.",
    },
    CoreAnnotation {
        name: "_is_service_id",
        value_type: "boolean",
        applies_to: "types, fields",
        meaning: "Marks values that are IDs in the service.",
    },
    CoreAnnotation {
        name: "_created_by",
        value_type: "hidden_string",
        applies_to: "types, instances, fields",
        meaning: "Who created the element in the service. Kept in Salto's state.",
    },
    CoreAnnotation {
        name: "_created_at",
        value_type: "hidden_string",
        applies_to: "types, instances, fields",
        meaning: "When the element was created in the service (ISO 8601). Kept in Salto's state.",
    },
    CoreAnnotation {
        name: "_changed_by",
        value_type: "hidden_string",
        applies_to: "types, instances, fields",
        meaning: "Who last changed the element in the service. Kept in Salto's state.",
    },
    CoreAnnotation {
        name: "_changed_at",
        value_type: "hidden_string",
        applies_to: "types, instances, fields",
        meaning: "When the element was last changed in the service (ISO 8601). Kept in Salto's state.",
    },
    CoreAnnotation {
        name: "_creatable",
        value_type: "hidden_boolean",
        applies_to: "types, fields",
        meaning: "Whether the service lets Salto create instances (or set this field). Default: `true`.",
    },
    CoreAnnotation {
        name: "_updatable",
        value_type: "hidden_boolean",
        applies_to: "types, fields",
        meaning: "Whether the service lets Salto change instances (or this field). Default: `true`.",
    },
    CoreAnnotation {
        name: "_deletable",
        value_type: "hidden_boolean",
        applies_to: "types",
        meaning: "Whether the service lets Salto delete instances. Default: `true`.",
    },
    CoreAnnotation {
        name: "_additional_properties",
        value_type: "boolean",
        applies_to: "types",
        meaning: "`false` forbids instance keys the type does not declare. Default: `true`.",
    },
    CoreAnnotation {
        name: "_important_values",
        value_type: "List<important_value>",
        applies_to: "types",
        meaning: "The values of this type's instances that matter most, for display.",
    },
    CoreAnnotation {
        name: "_self_important_values",
        value_type: "List<important_value>",
        applies_to: "types",
        meaning: "The annotations of this type that matter most, for display.",
    },
];

/// The fields of Salto's built-in object types that core annotations take: type, field and the
/// field's type.
const BUILTIN_FIELDS: &[(&str, &str, &str)] = &[
    ("restriction", "values", "List<unknown>"),
    ("restriction", "min", "number"),
    ("restriction", "max", "number"),
    ("restriction", "regex", "string"),
    ("restriction", "max_length", "number"),
    ("restriction", "max_list_length", "number"),
    ("restriction", "enforce_value", "boolean"),
    ("dependency", "reference", "unknown"),
    ("dependency", "occurrences", "List<dependency_occurrence>"),
    ("dependency_occurrence", "location", "unknown"),
    ("dependency_occurrence", "direction", "string"),
    ("important_value", "value", "string"),
    ("important_value", "indexed", "boolean"),
    ("important_value", "highlighted", "boolean"),
];

/// The type of the field `field` of the built-in object type `type_name` (`dependency`,
/// `restriction`, `important_value`), if it is one.
pub fn builtin_field(type_name: &str, field: &str) -> Option<&'static str> {
    BUILTIN_FIELDS.iter().find(|(t, f, _)| *t == type_name && *f == field).map(|(_, _, value)| *value)
}

/// The fields of a built-in object type, in order: name and type.
pub fn builtin_fields(type_name: &str) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    BUILTIN_FIELDS.iter().filter(move |(t, ..)| *t == type_name).map(|(_, field, value)| (*field, *value))
}

/// The core annotation of that name.
pub fn core_annotation(name: &str) -> Option<&'static CoreAnnotation> {
    CORE_ANNOTATIONS.iter().find(|a| a.name == name)
}
