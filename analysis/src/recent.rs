//! A value kept for each of the few files used last, shared by a database's snapshots.

use std::{
    borrow::Borrow,
    collections::VecDeque,
    sync::{Mutex, MutexGuard, PoisonError},
};

/// A value for each of the last `N` keys kept, most recent first.
pub(crate) struct Recent<K, V, const N: usize>(Mutex<VecDeque<(K, V)>>);

impl<K, V, const N: usize> Default for Recent<K, V, N> {
    fn default() -> Self {
        Recent(Mutex::default())
    }
}

impl<K: PartialEq, V, const N: usize> Recent<K, V, N> {
    /// What `read` makes of the value kept for `key`, if any.
    pub(crate) fn read<Q: PartialEq + ?Sized, R>(&self, key: &Q, read: impl FnOnce(&V) -> R) -> Option<R>
    where
        K: Borrow<Q>,
    {
        self.entries().iter().find(|(kept, _)| kept.borrow() == key).map(|(_, value)| read(value))
    }

    /// The value kept for `key`, taken out (so that no lock is held while it is used).
    pub(crate) fn take<Q: PartialEq + ?Sized>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let mut entries = self.entries();
        let at = entries.iter().position(|(kept, _)| kept.borrow() == key)?;
        entries.remove(at).map(|(_, value)| value)
    }

    /// Keeps `value` for `key`, as the most recent, dropping the oldest beyond `N`.
    pub(crate) fn keep(&self, key: K, value: V) {
        let mut entries = self.entries();
        entries.retain(|(kept, _)| *kept != key);
        entries.push_front((key, value));
        entries.truncate(N);
    }

    /// Drops the value kept for `key`.
    pub(crate) fn forget<Q: PartialEq + ?Sized>(&self, key: &Q)
    where
        K: Borrow<Q>,
    {
        self.entries().retain(|(kept, _)| kept.borrow() != key);
    }

    /// Whether a value is kept for `key`.
    #[cfg(test)]
    pub(crate) fn holds<Q: PartialEq + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.entries().iter().any(|(kept, _)| kept.borrow() == key)
    }

    fn entries(&self) -> MutexGuard<'_, VecDeque<(K, V)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
