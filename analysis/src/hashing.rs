//! Hash maps keyed by names read from the workspace (element IDs, type names, paths).

/// The hasher of [`NameMap`]: far faster than the standard library's SipHash on the short
/// strings element IDs are made of, and seeded per process, so that names crafted to collide
/// cannot be planted in a repository.
pub type NameHasher = foldhash::fast::RandomState;

/// A hash map keyed by names read from the workspace.
pub type NameMap<K, V> = std::collections::HashMap<K, V, NameHasher>;
