//! Diagnostic codes, severities and the error type every language's parser reports.
//!
//! Each layer and language owns the codes it produces and declares them with
//! [`diagnostic_codes!`](crate::diagnostic_codes): the NaCl parser its `E01xx`-`E03xx`, the HCL
//! parser its `HCL1xx`-`HCL3xx`, the analysis layer file, merge, reference and type codes. A code's
//! severity is a property declared beside it, never read from its spelling.

use rowan::{TextRange, TextSize};
use std::fmt;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Something the language's tools reject or read differently from what was written.
    Error,
    /// Something probably wrong that the tools accept.
    Warning,
    /// Something worth knowing.
    Info,
}

/// The stage of the work that reports a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// Reading a file from disk.
    Read,
    /// Lexing, parsing and checking the structure of one file on its own.
    Parse,
    /// Analysis across files (merging, references, types, schemas).
    Analysis,
}

/// A stable diagnostic code: its printed name (such as `E0101`), severity, stage and summary.
///
/// Codes never change meaning once released.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Code {
    name: &'static str,
    severity: Severity,
    stage: Stage,
    summary: &'static str,
}

impl Code {
    /// A code; used by [`diagnostic_codes!`](crate::diagnostic_codes).
    pub const fn new(name: &'static str, severity: Severity, stage: Stage, summary: &'static str) -> Code {
        Code { name, severity, stage, summary }
    }

    /// The code as printed, such as `E0101`.
    pub fn as_str(self) -> &'static str {
        self.name
    }

    /// How serious a diagnostic with this code is.
    pub fn severity(self) -> Severity {
        self.severity
    }

    /// The stage that reports it.
    pub fn stage(self) -> Stage {
        self.stage
    }

    /// Whether a file's own reading and parsing report it (and so it needs no other file).
    pub fn is_syntax(self) -> bool {
        self.stage != Stage::Analysis
    }

    /// A short summary of what the code means.
    pub fn summary(self) -> &'static str {
        self.summary
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// Declares one layer's list of codes as an enum with `ALL`, `code`, `as_str`, `severity` and
/// `summary`, convertible to [`Code`] and comparable with it.
#[macro_export]
macro_rules! diagnostic_codes {
    (
        $(#[doc = $enum_doc:literal])*
        $vis:vis enum $Enum:ident;
        $( $(#[doc = $doc:literal])* $name:ident = $code:literal, $severity:ident, $stage:ident, $summary:literal; )*
    ) => {
        $(#[doc = $enum_doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $Enum {
            $( $(#[doc = $doc])* $name, )*
        }

        impl $Enum {
            /// Every code, in order.
            pub const ALL: &'static [$Enum] = &[$($Enum::$name,)*];

            /// The code with its name, severity, stage and summary.
            pub const fn code(self) -> $crate::Code {
                match self {
                    $($Enum::$name => $crate::Code::new(
                        $code, $crate::Severity::$severity, $crate::Stage::$stage, $summary),)*
                }
            }

            /// The code this one is, if it is one of this list.
            pub fn from_code(code: $crate::Code) -> Option<$Enum> {
                $Enum::ALL.iter().copied().find(|c| c.code() == code)
            }

            /// The code as printed, such as `E0101`.
            pub fn as_str(self) -> &'static str {
                self.code().as_str()
            }

            /// How serious a diagnostic with this code is.
            pub fn severity(self) -> $crate::Severity {
                self.code().severity()
            }

            /// A short summary of what the code means.
            pub fn summary(self) -> &'static str {
                self.code().summary()
            }
        }

        impl From<$Enum> for $crate::Code {
            fn from(code: $Enum) -> $crate::Code {
                code.code()
            }
        }

        impl PartialEq<$Enum> for $crate::Code {
            fn eq(&self, other: &$Enum) -> bool {
                *self == other.code()
            }
        }

        impl ::std::fmt::Display for $Enum {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

/// An error found while lexing, parsing or checking the structure of one file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SyntaxError {
    /// What kind of error this is.
    pub code: Code,
    /// Where it is, in bytes.
    pub range: TextRange,
    /// What is wrong, and where possible what was expected, in words for the user.
    pub message: String,
}

impl SyntaxError {
    /// Creates an error.
    pub fn new(code: impl Into<Code>, range: TextRange, message: impl Into<String>) -> SyntaxError {
        SyntaxError { code: code.into(), range, message: message.into() }
    }

    /// Creates an error at a single position.
    pub fn at(code: impl Into<Code>, offset: TextSize, message: impl Into<String>) -> SyntaxError {
        SyntaxError::new(code, TextRange::empty(offset), message)
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?}: {}", self.code, self.range, self.message)
    }
}
