//! Structure checks on a parsed tree: the block forms NaCl gives meaning to.
//!
//! The grammar is generic (blocks, attributes, values); this pass checks what NaCl requires of
//! them: header forms, what may nest where, duplicate keys and fields, and function calls.
//! It reads the parser's flat tree, so a whole-file pass allocates almost nothing.

use crate::FlatNode;
use crate::SyntaxError;
use crate::nacl::{
    ErrorCode,
    SyntaxKind::{self, *},
    view::NodeView,
};
use rowan::{NodeOrToken, TextRange};
use std::borrow::Cow;

/// Categories that make `type x is <category>` a primitive type.
const PRIMITIVE_CATEGORIES: [&str; 4] = ["string", "number", "boolean", "unknown"];

/// A node of the tree the checks read (the text outlives the borrow of the tree).
type GNode<'a> = FlatNode<'a, 'a>;

/// How many keys of one block or object [`Validator::keys`] has room for from the start.
const KEYS_RESERVED: usize = 32;

/// Runs every structure check over a tree.
pub(crate) fn validate(root: GNode<'_>) -> Vec<SyntaxError> {
    // The keys' scratch space starts at a size most blocks fit in, instead of growing to it an
    // allocation at a time in every file.
    let mut v = Validator { errors: Vec::new(), keys: Vec::with_capacity(KEYS_RESERVED) };
    for block in root.nodes(BLOCK) {
        v.top_level_block(block);
    }
    v.walk(root);
    v.errors
}

struct Validator<'a> {
    errors: Vec<SyntaxError>,
    /// Scratch space for duplicate-key checks, reused across bodies and objects.
    keys: Vec<(Cow<'a, str>, TextRange)>,
}

/// What a block's labels are, as text.
fn labels<'a>(block: GNode<'a>) -> Vec<Cow<'a, str>> {
    block.nodes(LABEL).map(GNode::name_text).collect()
}

fn header_range(block: GNode<'_>) -> TextRange {
    let mut labels = block.nodes(LABEL);
    match labels.next() {
        Some(first) => labels.last().map_or(first.range(), |last| first.range().cover(last.range())),
        None => TextRange::empty(block.range().start()),
    }
}

fn label_range(block: GNode<'_>, index: usize) -> TextRange {
    block.nodes(LABEL).nth(index).map_or_else(|| header_range(block), GNode::range)
}

/// The nested blocks and attributes of a block's body.
fn body_items<'a>(block: GNode<'a>, kind: SyntaxKind) -> impl Iterator<Item = GNode<'a>> {
    block.node(BODY).into_iter().flat_map(move |body| body.nodes(kind))
}

impl<'a> Validator<'a> {
    fn error(&mut self, code: ErrorCode, range: TextRange, message: impl Into<String>) {
        self.errors.push(SyntaxError::new(code, range, message));
    }

    /// Runs the checks that apply wherever a node appears, on every node of the tree, in one
    /// pass over its array. (No node these checks look for lies inside a string, a literal, a
    /// reference, a label or a key: those hold tokens, strings and templates only.)
    fn walk(&mut self, root: GNode<'a>) {
        for node in root.descendants() {
            match node.kind() {
                OBJECT => self.duplicate_keys(node.nodes(ATTRIBUTE)),
                CALL => self.call(node),
                LABEL | KEY => {
                    if let Some(string) = node.node(STRING) {
                        self.no_templates(string);
                    }
                }
                _ => {}
            }
        }
    }

    fn top_level_block(&mut self, block: GNode<'a>) {
        let labels = labels(block);
        let labels: Vec<&str> = labels.iter().map(|l| l.as_ref()).collect();
        match labels.as_slice() {
            [] => {} // reported by the parser
            ["vars"] => self.vars_body(block),
            ["type", name] => {
                self.type_name(block, 1, name);
                self.type_body(block, false);
            }
            ["type", name, "is", category] => {
                self.type_name(block, 1, name);
                let primitive = self.category(block, category, false);
                self.type_body(block, primitive);
            }
            ["settings", name] => {
                self.type_name(block, 1, name);
                self.type_body(block, false);
            }
            ["settings", name, "is", category] => {
                self.type_name(block, 1, name);
                self.category(block, category, true);
                self.type_body(block, false);
            }
            ["type", ..] => {
                self.error(
                    ErrorCode::InvalidTypeHeader,
                    header_range(block),
                    "a type is defined as `type <adapter>.<name>` or `type <adapter>.<name> is <category>`",
                );
                self.check_body_keys(block);
            }
            ["settings", ..] => {
                self.error(
                    ErrorCode::InvalidSettingsHeader,
                    header_range(block),
                    "a settings type is defined as `settings <adapter>.<name>`",
                );
                self.check_body_keys(block);
            }
            [type_name] | [type_name, _] => {
                self.type_name(block, 0, type_name);
                self.instance_body(block);
            }
            _ => {
                self.error(
                    ErrorCode::InvalidInstanceHeader,
                    header_range(block),
                    format!(
                        "an instance is defined as `<type> <name>` (or `<type>` alone for a settings instance), but this header has {} labels",
                        labels.len()
                    ),
                );
                self.check_body_keys(block);
            }
        }
    }

    /// Checks a type label: at most two dot-separated parts, none empty.
    fn type_name(&mut self, block: GNode<'a>, index: usize, name: &str) {
        if name.split('.').count() > 2 || name.split('.').any(str::is_empty) {
            self.error(
                ErrorCode::InvalidTypeName,
                label_range(block, index),
                format!("`{name}` is not a valid type name: type names have the form `<adapter>.<type>`"),
            );
        }
    }

    /// Checks the category after `is`; returns whether it makes the type primitive.
    fn category(&mut self, block: GNode<'a>, category: &str, settings: bool) -> bool {
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

    fn type_body(&mut self, block: GNode<'a>, primitive: bool) {
        let mut seen_annotations = false;
        let mut fields: Vec<(Cow<'a, str>, TextRange)> = Vec::new();
        for nested in body_items(block, BLOCK) {
            let nested_labels = labels(nested);
            match nested_labels.as_slice() {
                [keyword] if keyword == "annotations" => {
                    if seen_annotations {
                        self.error(
                            ErrorCode::DuplicateAnnotationsBlock,
                            header_range(nested),
                            "a type block has at most one `annotations` block: merge the two",
                        );
                    }
                    seen_annotations = true;
                    self.annotations_body(nested);
                }
                [_, name] => {
                    if primitive {
                        self.error(
                            ErrorCode::FieldInPrimitiveType,
                            header_range(nested),
                            "primitive types have no fields: only `annotations` and annotation values",
                        );
                    } else {
                        fields.push((name.clone(), label_range(nested, 1)));
                    }
                    self.leaf_body(nested, "a field");
                }
                _ => self.error(
                    ErrorCode::InvalidFieldHeader,
                    header_range(nested),
                    "a field is defined as `<type> <name> {`, and annotation types go in an `annotations {` block",
                ),
            }
        }
        report_duplicates(&mut fields, ErrorCode::DuplicateField, &mut self.errors, |name| {
            format!("field `{name}` is already defined in this block")
        });
        self.check_body_keys(block);
    }

    fn annotations_body(&mut self, block: GNode<'a>) {
        for attribute in body_items(block, ATTRIBUTE) {
            self.error(
                ErrorCode::InvalidAnnotationsItem,
                attribute.range(),
                "an `annotations` block declares annotation types as `<type> <name> {}`; set annotation values outside it",
            );
        }
        let mut names = Vec::new();
        for nested in body_items(block, BLOCK) {
            match labels(nested).as_slice() {
                [_, name] => {
                    names.push((name.clone(), label_range(nested, 1)));
                    self.leaf_body(nested, "an annotation type");
                }
                _ => self.error(
                    ErrorCode::InvalidAnnotationsItem,
                    header_range(nested),
                    "an annotation type is declared as `<type> <name> {}`",
                ),
            }
        }
        report_duplicates(&mut names, ErrorCode::DuplicateField, &mut self.errors, |name| {
            format!("annotation type `{name}` is already declared in this block")
        });
    }

    /// A field or annotation type body: attributes only.
    fn leaf_body(&mut self, block: GNode<'a>, what: &str) {
        for nested in body_items(block, BLOCK) {
            let message = if labels(nested) == ["annotations"] {
                format!(
                    "{what} cannot hold an `annotations` block: declare annotation types in the type's `annotations` block"
                )
            } else {
                format!("{what} cannot hold nested blocks: write `key = value` attributes")
            };
            self.error(ErrorCode::InvalidNestedBlock, header_range(nested), message);
        }
        self.check_body_keys(block);
    }

    fn instance_body(&mut self, block: GNode<'a>) {
        for nested in body_items(block, BLOCK) {
            self.error(
                ErrorCode::BlockInInstance,
                header_range(nested),
                "an instance holds values only: write `key = { ... }` for a nested value",
            );
        }
        self.check_body_keys(block);
    }

    fn vars_body(&mut self, block: GNode<'a>) {
        for nested in body_items(block, BLOCK) {
            self.error(
                ErrorCode::InvalidVariable,
                header_range(nested),
                "a `vars` block holds `name = value` items only",
            );
        }
        self.check_body_keys(block);
    }

    fn check_body_keys(&mut self, block: GNode<'a>) {
        if let Some(body) = block.node(BODY) {
            self.duplicate_keys(body.nodes(ATTRIBUTE));
        }
    }

    fn duplicate_keys(&mut self, attributes: impl Iterator<Item = GNode<'a>>) {
        duplicate_keys(attributes, &mut self.keys, &mut self.errors);
    }

    fn no_templates(&mut self, string: GNode<'a>) {
        if string.node(TEMPLATE).is_some() {
            self.error(
                ErrorCode::TemplateInLabel,
                string.range(),
                "labels and keys cannot hold `${ }` references; escape it as `\\${` to mean the text",
            );
        }
    }

    fn call(&mut self, call: GNode<'a>) {
        let Some(name) = call.token(IDENT) else { return };
        if name.text() != "file" {
            self.error(
                ErrorCode::UnknownFunction,
                name.range(),
                format!(
                    "unknown function `{}`: NaCl has only `file(\"path\")` and `file(\"path\", \"encoding\")`",
                    name.text()
                ),
            );
            return;
        }
        let args = call.node(ARG_LIST).map(|a| a.children().filter_map(NodeOrToken::into_node).collect::<Vec<_>>());
        let args = args.unwrap_or_default();
        if args.is_empty() || args.len() > 2 || args.iter().any(|a| a.kind() != STRING) {
            self.error(
                ErrorCode::InvalidArguments,
                call.range(),
                "`file` takes a path string and an optional encoding string: `file(\"path\")` or `file(\"path\", \"utf8\")`",
            );
        }
    }
}

/// Reports, as [`ErrorCode::DuplicateAttribute`], every key of `attributes` (an object's, or a
/// block body's) that is set again after its first occurrence. `keys` is scratch space, reused
/// across calls. The structure checks run it on every object and on the body of every top-level
/// block; the reparse runs it again on the one it edited a key of.
pub(crate) fn duplicate_keys<'a, N: NodeView<'a>>(
    attributes: impl Iterator<Item = N>,
    keys: &mut Vec<(Cow<'a, str>, TextRange)>,
    errors: &mut Vec<SyntaxError>,
) {
    keys.clear();
    keys.extend(attributes.filter_map(|a| a.node(KEY)).map(|key| (key.name_text(), key.range())));
    if keys.len() > 1 {
        report_duplicates(keys, ErrorCode::DuplicateAttribute, errors, |name| {
            format!("`{name}` is set twice in the same block: the first value is kept")
        });
    }
}

/// Reports, with `code`, every name that appears again after its first occurrence (`names` may
/// be reordered).
fn report_duplicates(
    names: &mut [(Cow<'_, str>, TextRange)],
    code: ErrorCode,
    errors: &mut Vec<SyntaxError>,
    message: impl Fn(&str) -> String,
) {
    /// Up to this many names a scan finds the repeats faster than a sort.
    const SCAN_LIMIT: usize = 16;
    if names.len() <= SCAN_LIMIT {
        for (at, (name, range)) in names.iter().enumerate() {
            if names[..at].iter().any(|(earlier, _)| earlier == name) {
                errors.push(SyntaxError::new(code, *range, message(name)));
            }
        }
        return;
    }
    // Sorting by name then position puts every repeat right after its first occurrence.
    names.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.start().cmp(&b.1.start())));
    for pair in names.windows(2) {
        if pair[0].0 == pair[1].0 {
            errors.push(SyntaxError::new(code, pair[1].1, message(&pair[1].0)));
        }
    }
}
