//! When a root's background work runs: its whole-workspace check, and the building of the
//! tables workspace symbols and find references search.

use std::time::Instant;

/// The state of a root's whole-workspace check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pass {
    Idle,
    Due(Instant),
    Running,
}

/// Where a root's search tables stand. They are built after a full check, so that they never
/// hold back its diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tables {
    /// Never built: the next full check builds them once it is done.
    Unbuilt,
    /// Writes came after they were built (or cancelled their building): they are brought up
    /// to date at this instant, pushed back while the user types. Only what the writes changed
    /// is built again; after an edit in an open buffer, that is its part.
    Due(Instant),
    /// Built, or being built, as of the workspace's revision when that started.
    Built,
}

/// The background work to start on a root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Work {
    /// The whole-workspace check; it builds the tables after itself if they were never built
    /// (the first check after indexing: they must not hold back its diagnostics).
    pub(super) pass: bool,
    /// The tables on their own, after writes. They do not wait for a check,
    /// even one that starts now: after an edit that changed what every file's check depends on,
    /// that check takes seconds in a large workspace, and a search would build them itself
    /// meanwhile.
    pub(super) tables: bool,
}

/// The work due at `now` on a root whose check and tables are as given.
pub(super) fn due(pass: Pass, tables: Tables, now: Instant) -> Work {
    Work { pass: matches!(pass, Pass::Due(at) if at <= now), tables: matches!(tables, Tables::Due(at) if at <= now) }
}

/// When work is next due on a root, if it waits for a time.
pub(super) fn deadline(pass: Pass, tables: Tables) -> Option<Instant> {
    let pass = if let Pass::Due(at) = pass { Some(at) } else { None };
    let tables = if let Tables::Due(at) = tables { Some(at) } else { None };
    pass.into_iter().chain(tables).min()
}

/// Moves the work due before `at` to `at`: while the user types, work started between two
/// keystrokes would only be cancelled by the next one.
pub(super) fn postpone(pass: &mut Pass, tables: &mut Tables, at: Instant) {
    if let Pass::Due(due) = pass {
        *due = (*due).max(at);
    }
    if let Tables::Due(due) = tables {
        *due = (*due).max(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn cancelled_tables_are_built_on_their_own_once_due_whatever_the_check_does() {
        let now = Instant::now();
        let later = now + Duration::from_millis(200);
        let tables_alone = Work { pass: false, tables: true };
        assert_eq!(due(Pass::Idle, Tables::Due(now), now), tables_alone);
        assert_eq!(due(Pass::Running, Tables::Due(now), now), tables_alone);
        assert_eq!(due(Pass::Due(later), Tables::Due(now), now), tables_alone);
        assert_eq!(due(Pass::Due(now), Tables::Due(now), now), Work { pass: true, tables: true });
        assert_eq!(due(Pass::Due(now), Tables::Due(later), now), Work { pass: true, tables: false });
        assert_eq!(due(Pass::Idle, Tables::Due(later), now), Work { pass: false, tables: false });
        assert_eq!(deadline(Pass::Idle, Tables::Due(later)), Some(later));
        assert_eq!(deadline(Pass::Running, Tables::Due(later)), Some(later));
        assert_eq!(deadline(Pass::Due(later), Tables::Due(now)), Some(now));
        assert_eq!(deadline(Pass::Due(now), Tables::Due(later)), Some(now));
    }

    #[test]
    fn tables_never_built_or_built_are_never_due_on_their_own() {
        let now = Instant::now();
        for tables in [Tables::Unbuilt, Tables::Built] {
            assert_eq!(due(Pass::Idle, tables, now), Work { pass: false, tables: false });
            assert_eq!(deadline(Pass::Idle, tables), None);
            assert_eq!(due(Pass::Due(now), tables, now), Work { pass: true, tables: false });
        }
    }

    #[test]
    fn typing_postpones_both_kinds_of_work_and_never_brings_them_forward() {
        let now = Instant::now();
        let (soon, later) = (now + Duration::from_millis(100), now + Duration::from_millis(300));
        let (mut pass, mut tables) = (Pass::Due(now), Tables::Due(later));
        postpone(&mut pass, &mut tables, soon);
        assert_eq!((pass, tables), (Pass::Due(soon), Tables::Due(later)));
        let (mut pass, mut tables) = (Pass::Running, Tables::Built);
        postpone(&mut pass, &mut tables, soon);
        assert_eq!((pass, tables), (Pass::Running, Tables::Built));
    }
}
