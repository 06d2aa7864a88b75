//! Structure checks on a parsed tree: the block forms NaCl gives meaning to.
//!
//! The grammar is generic (blocks, attributes, values); this pass checks what NaCl requires of
//! them: header forms, what may nest where, duplicate keys and fields, and function calls.

use crate::{
    SyntaxKind, SyntaxNode,
    ast::{Attribute, Block, BodyItem, Call, Label, Object, SourceFile, StringLit, TopLevelKind, Value},
    error::{ErrorCode, SyntaxError},
};
use rowan::{TextRange, ast::AstNode};
use std::collections::HashMap;

/// Categories a `type x is <category>` header may name.
const PRIMITIVE_CATEGORIES: [&str; 4] = ["string", "number", "boolean", "unknown"];

/// Runs every structure check over a tree.
pub(crate) fn validate(root: &SyntaxNode) -> Vec<SyntaxError> {
    let mut v = Validator { errors: Vec::new() };
    if let Some(file) = SourceFile::cast(root.clone()) {
        for block in file.blocks() {
            v.top_level_block(&block);
        }
    }
    for node in root.descendants() {
        match node.kind() {
            SyntaxKind::OBJECT => {
                if let Some(object) = Object::cast(node) {
                    v.duplicate_keys(object.attributes());
                }
            }
            SyntaxKind::CALL => {
                if let Some(call) = Call::cast(node) {
                    v.call(&call);
                }
            }
            SyntaxKind::LABEL => {
                if let Some(string) = Label::cast(node).and_then(|l| l.string()) {
                    v.no_templates(&string);
                }
            }
            SyntaxKind::KEY => {
                if let Some(string) = node.children().find_map(StringLit::cast) {
                    v.no_templates(&string);
                }
            }
            _ => {}
        }
    }
    v.errors
}

struct Validator {
    errors: Vec<SyntaxError>,
}

fn header_range(block: &Block) -> TextRange {
    let mut labels = block.labels();
    match labels.next() {
        Some(first) => {
            let end = labels.last().unwrap_or_else(|| first.clone());
            first.syntax().text_range().cover(end.syntax().text_range())
        }
        None => {
            let start = block.syntax().text_range().start();
            TextRange::empty(start)
        }
    }
}

fn label_range(block: &Block, index: usize) -> TextRange {
    block.labels().nth(index).map_or_else(|| header_range(block), |l| l.syntax().text_range())
}

impl Validator {
    fn error(&mut self, code: ErrorCode, range: TextRange, message: impl Into<String>) {
        self.errors.push(SyntaxError::new(code, range, message));
    }

    fn top_level_block(&mut self, block: &Block) {
        let labels = block.label_texts();
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        match block.top_level_kind() {
            TopLevelKind::Type => {
                self.type_name(block, 1, labels.get(1).copied().unwrap_or_default());
                let primitive = match labels.as_slice() {
                    [_, _, "is", category] => self.category(block, category, false),
                    _ => false,
                };
                self.type_body(block, primitive);
            }
            TopLevelKind::SettingsType => {
                self.type_name(block, 1, labels.get(1).copied().unwrap_or_default());
                if let [_, _, "is", category] = labels.as_slice() {
                    self.category(block, category, true);
                }
                self.type_body(block, false);
            }
            TopLevelKind::Vars => self.vars_body(block),
            TopLevelKind::Instance | TopLevelKind::SettingsInstance => {
                self.type_name(block, 0, labels[0]);
                self.instance_body(block);
            }
            TopLevelKind::Invalid => self.invalid_header(block, &labels),
        }
    }

    fn invalid_header(&mut self, block: &Block, labels: &[&str]) {
        let range = header_range(block);
        match labels.first().copied() {
            // A block without labels was reported by the parser.
            None => {}
            Some("type") => self.error(
                ErrorCode::InvalidTypeHeader,
                range,
                "a type is defined as `type <adapter>.<name>` or `type <adapter>.<name> is <category>`",
            ),
            Some("settings") => self.error(
                ErrorCode::InvalidSettingsHeader,
                range,
                "a settings type is defined as `settings <adapter>.<name>`",
            ),
            Some(_) => self.error(
                ErrorCode::InvalidInstanceHeader,
                range,
                format!(
                    "an instance is defined as `<type> <name>` (or `<type>` alone for a settings instance), but this header has {} labels",
                    labels.len()
                ),
            ),
        }
        // Check the body anyway so its own mistakes are found too.
        if let Some(body) = block.body() {
            self.duplicate_keys(body.attributes());
        }
    }

    /// Checks a type label: at most two dot-separated parts, none empty.
    fn type_name(&mut self, block: &Block, index: usize, name: &str) {
        let parts: Vec<&str> = name.split('.').collect();
        if parts.len() > 2 || parts.iter().any(|p| p.is_empty()) {
            self.error(
                ErrorCode::InvalidTypeName,
                label_range(block, index),
                format!("`{name}` is not a valid type name: type names have the form `<adapter>.<type>`"),
            );
        }
    }

    /// Checks the category after `is`; returns whether it makes the type primitive.
    fn category(&mut self, block: &Block, category: &str, settings: bool) -> bool {
        let range = label_range(block, 3);
        if PRIMITIVE_CATEGORIES.contains(&category) {
            if settings {
                self.error(
                    ErrorCode::PrimitiveSettings,
                    range,
                    "settings types cannot be primitive: remove `is ...` or use `type`",
                );
                return false;
            }
            return true;
        }
        if category == "object" {
            return false;
        }
        if category.contains('.') {
            if category.split('.').count() != 2 || category.split('.').any(str::is_empty) {
                self.error(
                    ErrorCode::InvalidMetaType,
                    range,
                    format!(
                        "meta type `{category}` is invalid: it must name a type, such as `salesforce.StandardObject`"
                    ),
                );
            }
            return false;
        }
        self.error(
            ErrorCode::UnknownPrimitiveType,
            range,
            format!("unknown category `{category}`: expected string, number, boolean, unknown, object or a meta type such as `salesforce.StandardObject`"),
        );
        false
    }

    fn type_body(&mut self, block: &Block, primitive: bool) {
        let Some(body) = block.body() else { return };
        let mut seen_annotations = false;
        let mut fields: HashMap<String, TextRange> = HashMap::new();
        for item in body.items() {
            let BodyItem::Block(nested) = item else {
                continue;
            };
            let labels = nested.label_texts();
            match labels.as_slice() {
                [keyword] if keyword == "annotations" => {
                    if seen_annotations {
                        self.error(
                            ErrorCode::DuplicateAnnotationsBlock,
                            header_range(&nested),
                            "a type block has at most one `annotations` block: merge the two",
                        );
                    }
                    seen_annotations = true;
                    self.annotations_body(&nested);
                }
                [_, name] => {
                    if primitive {
                        self.error(
                            ErrorCode::FieldInPrimitiveType,
                            header_range(&nested),
                            "primitive types have no fields: only `annotations` and annotation values",
                        );
                    } else if let Some(first) = fields.get(name) {
                        let _ = first;
                        self.error(
                            ErrorCode::DuplicateField,
                            label_range(&nested, 1),
                            format!("field `{name}` is already defined in this block"),
                        );
                    } else {
                        fields.insert(name.clone(), nested.syntax().text_range());
                    }
                    self.leaf_body(&nested, "a field");
                }
                _ => self.error(
                    ErrorCode::InvalidFieldHeader,
                    header_range(&nested),
                    "a field is defined as `<type> <name> {`, and annotation types go in an `annotations {` block",
                ),
            }
        }
        self.duplicate_keys(body.attributes());
    }

    fn annotations_body(&mut self, block: &Block) {
        let Some(body) = block.body() else { return };
        let mut names: HashMap<String, TextRange> = HashMap::new();
        for item in body.items() {
            match item {
                BodyItem::Attribute(attribute) => self.error(
                    ErrorCode::InvalidAnnotationsItem,
                    attribute.syntax().text_range(),
                    "an `annotations` block declares annotation types as `<type> <name> {}`; set annotation values outside it",
                ),
                BodyItem::Block(nested) => {
                    let labels = nested.label_texts();
                    if let [_, name] = labels.as_slice() {
                        if names.insert(name.clone(), nested.syntax().text_range()).is_some() {
                            self.error(
                                ErrorCode::DuplicateField,
                                label_range(&nested, 1),
                                format!("annotation type `{name}` is already declared in this block"),
                            );
                        }
                        self.leaf_body(&nested, "an annotation type");
                    } else {
                        self.error(
                            ErrorCode::InvalidAnnotationsItem,
                            header_range(&nested),
                            "an annotation type is declared as `<type> <name> {}`",
                        );
                    }
                }
            }
        }
    }

    /// A field or annotation type body: attributes only.
    fn leaf_body(&mut self, block: &Block, what: &str) {
        let Some(body) = block.body() else { return };
        for nested in body.blocks() {
            let message = if nested.label_texts() == ["annotations"] {
                format!(
                    "{what} cannot hold an `annotations` block: declare annotation types in the type's `annotations` block"
                )
            } else {
                format!("{what} cannot hold nested blocks: write `key = value` attributes")
            };
            self.error(ErrorCode::InvalidNestedBlock, header_range(&nested), message);
        }
        self.duplicate_keys(body.attributes());
    }

    fn instance_body(&mut self, block: &Block) {
        let Some(body) = block.body() else { return };
        for nested in body.blocks() {
            self.error(
                ErrorCode::BlockInInstance,
                header_range(&nested),
                "an instance holds values only: write `key = { ... }` for a nested value",
            );
        }
        self.duplicate_keys(body.attributes());
    }

    fn vars_body(&mut self, block: &Block) {
        let Some(body) = block.body() else { return };
        for nested in body.blocks() {
            self.error(
                ErrorCode::InvalidVariable,
                header_range(&nested),
                "a `vars` block holds `name = value` items only",
            );
        }
        self.duplicate_keys(body.attributes());
    }

    fn duplicate_keys(&mut self, attributes: impl Iterator<Item = Attribute>) {
        let mut seen: HashMap<String, TextRange> = HashMap::new();
        for attribute in attributes {
            let Some(key) = attribute.key() else { continue };
            let name = key.text().into_owned();
            if seen.insert(name.clone(), key.syntax().text_range()).is_some() {
                self.error(
                    ErrorCode::DuplicateAttribute,
                    key.syntax().text_range(),
                    format!("`{name}` is set twice in the same block: the first value is kept"),
                );
            }
        }
    }

    fn no_templates(&mut self, string: &StringLit) {
        if string.has_templates() {
            self.error(
                ErrorCode::TemplateInLabel,
                string.syntax().text_range(),
                "labels and keys cannot hold `${ }` references; escape it as `\\${` to mean the text",
            );
        }
    }

    fn call(&mut self, call: &Call) {
        let Some(name) = call.name() else { return };
        if name.text() != "file" {
            self.error(
                ErrorCode::UnknownFunction,
                name.text_range(),
                format!(
                    "unknown function `{}`: NaCl has only `file(\"path\")` and `file(\"path\", \"encoding\")`",
                    name.text()
                ),
            );
            return;
        }
        let args: Vec<Value> = call.args().collect();
        let all_strings = args.iter().all(|a| matches!(a, Value::String(_)));
        if args.is_empty() || args.len() > 2 || !all_strings {
            self.error(
                ErrorCode::InvalidArguments,
                call.syntax().text_range(),
                "`file` takes a path string and an optional encoding string: `file(\"path\")` or `file(\"path\", \"utf8\")`",
            );
        }
    }
}
