//! The stable codes of what the analysis layer reports: files it cannot read (`00xx`), conflicts
//! between the fragments of an element (`04xx`), references (`05xx`), values that do not fit their
//! types (`06xx`), hcldec specs and the HCL files they describe (`07xx`), and ARMLang's scopes,
//! dependencies and types (`08xx`). The letter is part of the released name; the severity is declared beside each code.

use nacl_syntax::diagnostic_codes;

diagnostic_codes! {
    /// The code of every diagnostic the analysis layer reports.
    pub enum AnalysisCode;
    /// A file that cannot be read.
    UnreadableFile = "E0001", Error, Read, "unreadable file";
    /// A file that is not valid UTF-8.
    InvalidUtf8 = "E0002", Error, Read, "file is not UTF-8";
    /// A file larger than nacl-ls analyses.
    FileTooLarge = "E0003", Error, Read, "file too large";
    /// A workspace with more files or bytes than nacl-ls reads in one folder.
    WorkspaceTooLarge = "E0004", Error, Read, "workspace too large";

    /// A value, annotation or field annotation set in two fragments of one element.
    DuplicateValue = "E0401", Error, Analysis, "value set twice across fragments";
    /// A field declared with different types in different fragments.
    ConflictingFieldTypes = "E0402", Error, Analysis, "conflicting field types";
    /// An annotation type declared in two fragments of one type.
    DuplicateAnnotationType = "E0403", Error, Analysis, "annotation type declared twice";
    /// Fragments of one type that disagree on its meta type.
    ConflictingMetaType = "E0404", Error, Analysis, "conflicting meta types";
    /// Fragments of one type, some `settings` and some `type`.
    ConflictingSettings = "E0405", Error, Analysis, "conflicting settings definitions";
    /// Fragments of one primitive type with different categories.
    ConflictingPrimitive = "E0406", Error, Analysis, "conflicting primitive categories";
    /// An object type and a primitive type with one name.
    ConflictingTypeKinds = "E0407", Error, Analysis, "object and primitive type with one name";
    /// A variable defined twice.
    DuplicateVariable = "E0408", Error, Analysis, "variable defined twice";

    /// A reference to an element or value that does not exist.
    UnresolvedReference = "W0501", Warning, Analysis, "unresolved reference";
    /// A reference that is not a legal element ID.
    IllegalReference = "W0502", Warning, Analysis, "illegal reference";
    /// A reference whose value leads back to itself through references.
    CircularReference = "W0503", Warning, Analysis, "circular reference";

    /// A value whose kind does not fit its field's primitive type.
    InvalidValueType = "W0601", Warning, Analysis, "value of the wrong type";
    /// A field with `_required = true` that an instance does not set.
    MissingRequiredField = "W0602", Warning, Analysis, "missing required field";
    /// A value outside its field's `_restriction`.
    RestrictionViolation = "W0603", Warning, Analysis, "value outside its restriction";
    /// A key a type with `_additional_properties = false` does not declare.
    AdditionalProperty = "W0604", Warning, Analysis, "undeclared key in a closed type";
    /// An instance whose type does not exist: not in NaCl nor in Salto's state (or, without
    /// state, a likely typo of a type of its adapter).
    MissingType = "W0605", Warning, Analysis, "instance type does not exist";
    /// A `file()` call whose target is not in the static-resources folder.
    MissingStaticFile = "E0606", Error, Analysis, "missing static file";
    /// A `file()` call whose path leaves the static-resources folder.
    StaticFileOutsideWorkspace = "E0607", Error, Analysis, "static file outside the workspace";
    /// An instance whose type is in Salto's state but not hidden there, and not in NaCl: Salto
    /// does not merge such types, so the instance is not type-checked.
    TypeOnlyInState = "I0608", Info, Analysis, "instance type only in state";

    /// A mistake in an hcldec spec file.
    InvalidSpec = "E0701", Error, Analysis, "invalid hcldec spec";
    /// Something in an hcldec spec file that works but says nothing (a `default` with one spec).
    SpecWarning = "W0702", Warning, Analysis, "questionable hcldec spec";
    /// A configuration that its hcldec spec rejects: an unexpected or missing attribute or block,
    /// a value of the wrong type, too many or too few blocks.
    SpecMismatch = "E0703", Error, Analysis, "configuration does not match its spec";
    /// A spec named for a file (by its directive, the settings or `.nacl-ls.toml`) that cannot be
    /// used: not found, outside the workspace, or with errors of its own.
    SpecUnavailable = "W0704", Warning, Analysis, "hcldec spec unavailable";

    /// An identifier declared twice in one scope.
    DuplicateIdentifier = "E0801", Error, Analysis, "identifier declared twice";
    /// A name used but declared in no scope that sees it.
    UndefinedName = "E0802", Error, Analysis, "undefined name";
    /// Declarations that depend on each other in a cycle.
    DependencyCycle = "E0803", Error, Analysis, "dependency cycle";
    /// An operand, condition, argument or default of the wrong type.
    TypeMismatch = "E0804", Error, Analysis, "type mismatch";
    /// A call of a function ARMLang does not know.
    UnknownFunction = "E0805", Error, Analysis, "unknown function";
    /// A call with too few or too many arguments.
    WrongArgumentCount = "E0806", Error, Analysis, "wrong number of arguments";
    /// An input whose type is not one of ARMLang's input types.
    UnknownInputType = "E0807", Error, Analysis, "unknown input type";
    /// A property, index or member function that the value does not have.
    InvalidMember = "E0808", Error, Analysis, "invalid member access";
    /// A declaration where it is not allowed: an input or output inside a loop, an input's
    /// default using something other than inputs.
    MisplacedDeclaration = "E0809", Error, Analysis, "declaration not allowed here";
    /// Something an ARM template cannot express (such as an inner loop whose collection depends
    /// on the outer loop's item).
    NotCompilable = "E0810", Error, Analysis, "not expressible in an ARM template";
}

/// The code named `name` (such as `E0101`), of whichever layer reports it: the NaCl, HCL and
/// ARMLang parsers' codes and this layer's.
pub fn code_named(name: &str) -> Option<nacl_syntax::Code> {
    every_code().find(|c| c.as_str() == name)
}

/// Every code a diagnostic of this layer's results can carry.
fn every_code() -> impl Iterator<Item = nacl_syntax::Code> {
    let analysis = AnalysisCode::ALL.iter().map(|c| c.code());
    let nacl = nacl_syntax::nacl::ErrorCode::ALL.iter().map(|c| c.code());
    let hcl = nacl_syntax::hcl::ErrorCode::ALL.iter().map(|c| c.code());
    let arm = nacl_syntax::arm::ErrorCode::ALL.iter().map(|c| c.code());
    analysis.chain(nacl).chain(hcl).chain(arm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_found_by_its_name_and_names_are_unique() {
        let mut names = std::collections::HashSet::new();
        for code in every_code() {
            assert!(names.insert(code.as_str()), "{} named twice", code.as_str());
            assert_eq!(code_named(code.as_str()), Some(code));
        }
        assert_eq!(code_named("E9999"), None);
    }

    #[test]
    fn codes_are_unique_well_formed_and_in_the_readme() {
        let readme = include_str!("../../README.md");
        nacl_syntax::fixtures::check_codes(AnalysisCode::ALL.iter().map(|c| c.code()), readme, &['E', 'W', 'I']);
    }
}
