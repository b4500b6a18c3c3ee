//! The core's payload seam (`mcp_outputs::payload::PayloadsIn`) for a result read in place
//! (`crate::plain`): each structured payload is validated where it lives, by a validator that
//! reads the caller's plain objects (built once per schema and kept with it), and its mirror
//! text is written from those objects, both by the core ([`InPlace`]). The core decides
//! everything else: which payloads to validate, against which schema, and the errors (codes,
//! paths, messages, precedence). The reads are counted, for the tests that prove payloads are
//! not converted.

use crate::plain::{PlainNode, PyPlain};
use jsonschema::json::Pyo3;
use mcp_outputs::payload::{InPlace, PayloadsIn};
use mcp_outputs::schema::CompiledSchema;
use mcp_outputs::Error;
use std::cell::Cell;

thread_local! {
    /// Payload reads (validations and mirror texts) since the last [`take_stats`]: (in place, as
    /// values).
    static STATS: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    /// The reads of the read in place under way, counted in [`STATS`] only when its answer is the
    /// one given ([`settle`]).
    static PENDING: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// How many payloads were read (validated, or written as mirror text) in place and how many as
/// values since the last call (this thread).
pub(crate) fn take_stats() -> (usize, usize) {
    STATS.with(|s| s.replace((0, 0)))
}

fn count_pending(in_place: bool) {
    PENDING.with(|s| {
        let (a, b) = s.get();
        s.set(if in_place { (a + 1, b) } else { (a, b + 1) });
    });
}

/// Counts the pending reads of a read in place when its answer is given (`used`), or drops them.
pub(crate) fn settle(used: bool) {
    let (a, b) = PENDING.with(|s| s.replace((0, 0)));
    if used {
        STATS.with(|s| {
            let (x, y) = s.get();
            s.set((x + a, y + b));
        });
    }
}

/// The payloads of a result read in place ([`crate::plain`]).
pub(crate) struct PlainPayloads;

impl PayloadsIn<PyPlain> for PlainPayloads {
    fn validate(&self, schema: &CompiledSchema, node: &PlainNode<'_>, path: &str, what: &str) -> Result<(), Error> {
        if crate::plain::marked() {
            // The read met something other than plain values: its answer is dropped for the
            // snapshot's.
            return Ok(());
        }
        // The limits walk has already read every node of the result as plain (a node that is
        // not marks the read, above), so the validator reads the payload through jsonschema's
        // own reader of Python objects: the same reads, without classifying each node again.
        if let Some(validator) = schema.validator_in::<Pyo3>()? {
            count_pending(true);
            return schema.validate_in(validator, node.borrowed(), path, what);
        }
        // A schema whose patterns need the regex budget validates a value (see `node::validate`).
        count_pending(false);
        PayloadsIn::<PyPlain>::validate(&InPlace, schema, node, path, what)
    }

    fn is_object(&self, node: &PlainNode<'_>) -> bool {
        PayloadsIn::<PyPlain>::is_object(&InPlace, node)
    }

    fn stringify(&self, node: &PlainNode<'_>) -> Result<String, Error> {
        if crate::plain::marked() {
            return Ok(String::new());
        }
        count_pending(true);
        PayloadsIn::<PyPlain>::stringify(&InPlace, node)
    }
}
