//! The event-based parser core every language's grammar drives.
//!
//! A grammar does not build a tree while it parses: it records events (open a node, a token, close
//! the node) in a flat list. A node that turns out to begin earlier than where it was opened, such
//! as the binary expression `a + b` after `a` was parsed, is opened afterwards with
//! [`CompletedMarker::precede`], which links the new node in front of the finished one; the links are
//! resolved when the events become a tree in [`Events::build`]. Markers must be completed or
//! abandoned; an abandoned one leaves no trace.

use super::builder::TreeBuilder;
use rowan::{GreenNode, SyntaxKind};

/// One step of the parse.
#[derive(Debug, Clone, Copy)]
enum Event {
    /// Opens a node. `forward_parent` is the distance to a node that [`CompletedMarker::precede`]
    /// opened later and that must wrap this one.
    Start { kind: SyntaxKind, forward_parent: Option<u32> },
    /// Closes the innermost open node.
    Finish,
    /// One token of `len` bytes of the text.
    Token { kind: SyntaxKind, len: u32 },
    /// An abandoned or moved `Start`.
    Tombstone,
}

/// The events of one parse, in order.
#[derive(Debug, Default)]
pub(crate) struct Events {
    events: Vec<Event>,
}

/// An open node, created by [`Events::start`]; complete it with [`Marker::complete`] or drop it
/// with [`Marker::abandon`].
#[derive(Debug)]
#[must_use = "a marker must be completed or abandoned"]
pub(crate) struct Marker {
    pos: u32,
}

/// A finished node, which [`CompletedMarker::precede`] can wrap in a new one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CompletedMarker {
    pos: u32,
}

impl Events {
    /// Events with room for about `tokens` tokens.
    pub(crate) fn with_capacity(tokens: usize) -> Events {
        Events { events: Vec::with_capacity(tokens * 2) }
    }

    /// Opens a node here.
    pub(crate) fn start(&mut self) -> Marker {
        let pos = self.len();
        self.events.push(Event::Tombstone);
        Marker { pos }
    }

    /// Adds a token of `len` bytes to the innermost open node.
    pub(crate) fn token(&mut self, kind: impl Into<SyntaxKind>, len: u32) {
        self.events.push(Event::Token { kind: kind.into(), len });
    }

    fn len(&self) -> u32 {
        u32::try_from(self.events.len()).unwrap_or(u32::MAX)
    }

    /// Builds the tree the events describe over `text`, whose tokens they cover in order. Any
    /// text the events do not cover is appended to the root as a token of kind `rest`, so the tree
    /// always holds all of `text`.
    pub(crate) fn build(self, text: &str, root: impl Into<SyntaxKind>, rest: impl Into<SyntaxKind>) -> GreenNode {
        let mut events = self.events;
        let mut builder = TreeBuilder::new(root);
        let mut offset = 0usize;
        let mut chain: Vec<SyntaxKind> = Vec::new();
        for i in 0..events.len() {
            match std::mem::replace(&mut events[i], Event::Tombstone) {
                Event::Start { kind, forward_parent } => {
                    // Open the outermost of the nodes linked by `precede` first.
                    chain.push(kind);
                    let mut next = forward_parent;
                    let mut at = i;
                    while let Some(distance) = next {
                        at += distance as usize;
                        next = match std::mem::replace(&mut events[at], Event::Tombstone) {
                            Event::Start { kind, forward_parent } => {
                                chain.push(kind);
                                forward_parent
                            }
                            _ => None,
                        };
                    }
                    for kind in chain.drain(..).rev() {
                        builder.start_node(kind);
                    }
                }
                Event::Finish => builder.finish_node(),
                Event::Token { kind, len } => {
                    let end = (offset + len as usize).min(text.len());
                    builder.token(kind, text.get(offset..end).unwrap_or_default());
                    offset = end;
                }
                Event::Tombstone => {}
            }
        }
        if offset < text.len() {
            builder.token(rest, &text[offset..]);
        }
        builder.finish()
    }
}

impl Marker {
    /// Closes the node as `kind`.
    pub(crate) fn complete(self, events: &mut Events, kind: impl Into<SyntaxKind>) -> CompletedMarker {
        let kind = kind.into();
        if let Some(event) = events.events.get_mut(self.pos as usize) {
            *event = Event::Start { kind, forward_parent: None };
        }
        events.events.push(Event::Finish);
        CompletedMarker { pos: self.pos }
    }

    /// Drops the node: its tokens go to the enclosing node.
    pub(crate) fn abandon(self, events: &mut Events) {
        if self.pos + 1 == events.len() {
            events.events.pop();
        }
    }
}

impl CompletedMarker {
    /// Opens a new node that starts where this one starts and will contain it.
    pub(crate) fn precede(self, events: &mut Events) -> Marker {
        let new = events.start();
        if let Some(Event::Start { forward_parent, .. }) = events.events.get_mut(self.pos as usize) {
            *forward_parent = Some(new.pos - self.pos);
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::green_shape as shape;

    #[test]
    fn precede_wraps_a_finished_node() {
        // `1+2*3` as (1 + (2 * 3)), built left to right with `precede`.
        let mut e = Events::default();
        let root = e.start();
        let one = e.start();
        e.token(SyntaxKind(1), 1);
        let one = one.complete(&mut e, SyntaxKind(10));
        let plus = one.precede(&mut e);
        e.token(SyntaxKind(2), 1);
        let two = e.start();
        e.token(SyntaxKind(1), 1);
        let two = two.complete(&mut e, SyntaxKind(10));
        let times = two.precede(&mut e);
        e.token(SyntaxKind(2), 1);
        let three = e.start();
        e.token(SyntaxKind(1), 1);
        three.complete(&mut e, SyntaxKind(10));
        times.complete(&mut e, SyntaxKind(11));
        plus.complete(&mut e, SyntaxKind(11));
        root.complete(&mut e, SyntaxKind(0));
        let tree = e.build("1+2*3", SyntaxKind(0), SyntaxKind(99));
        assert_eq!(shape(&tree), "0(11(10(1) + 11(10(2) * 10(3))))");
    }

    #[test]
    fn abandoned_markers_leave_no_node_and_uncovered_text_is_kept() {
        let mut e = Events::default();
        let root = e.start();
        let gone = e.start();
        gone.abandon(&mut e);
        e.token(SyntaxKind(1), 2);
        root.complete(&mut e, SyntaxKind(0));
        assert_eq!(shape(&e.build("abcd", SyntaxKind(0), SyntaxKind(99))), "0(0(ab) cd)");
    }
}
