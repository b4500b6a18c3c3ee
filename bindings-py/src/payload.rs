//! The core's payload seam (`mcp_outputs::payload`) over the caller's own Python objects: a
//! structured payload kept by the converter ([`Kept`]) is validated where it lives, by a
//! validator that reads Python objects (jsonschema's `Pyo3` representation) built once per
//! schema and kept with it. The core decides everything else: which payloads to validate,
//! against which schema, and the errors (codes, paths, messages, precedence).

use crate::convert::{Caps, Converter, Kept};
use crate::plain::{PlainNode, PyPlain};
use jsonschema::json::{inspect, Pyo3};
use mcp_outputs::jsontext;
use mcp_outputs::payload::{InPlace, Payloads, PayloadsIn};
use mcp_outputs::schema::CompiledSchema;
use mcp_outputs::{Error, Limits};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;
use std::cell::Cell;

thread_local! {
    /// Payload reads (validations and mirror texts) since the last [`take_stats`]: (in place, as
    /// converted values).
    static STATS: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// How many kept payloads were read (validated, or written as mirror text) in place and how many
/// as converted values since the last call (this thread), for the tests that prove payloads are
/// not converted.
pub(crate) fn take_stats() -> (usize, usize) {
    STATS.with(|s| s.replace((0, 0)))
}

thread_local! {
    /// Reads of a result read in place ([`PlainPayloads`]), counted in [`STATS`] only when its
    /// answer is the one given ([`settle`]).
    static PENDING: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
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

fn count(in_place: bool) {
    STATS.with(|s| {
        let (a, b) = s.get();
        s.set(if in_place { (a + 1, b) } else { (a, b + 1) });
    });
}

/// The seam for one call: the payloads the converter kept, and the limits they were read under.
pub(crate) struct PySeam<'a, 'py> {
    kept: &'a Kept<'py>,
    limits: &'a Limits,
}

impl std::fmt::Debug for PySeam<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PySeam").finish_non_exhaustive()
    }
}

impl<'a, 'py> PySeam<'a, 'py> {
    pub fn new(kept: &'a Kept<'py>, limits: &'a Limits) -> Self {
        PySeam { kept, limits }
    }

    /// A kept payload as a value (what the core's own validator or text writer reads). The
    /// converter proved it plain JSON within the limits, and no Python code ran since, so this
    /// conversion does not fail; should it, the error is the converter's.
    fn converted(&self, obj: &Bound<'py, PyAny>, path: &str) -> Result<Value, Error> {
        Converter::new(Caps::for_argument(self.limits)).convert(obj, 1).map_err(|f| f.into_error(path))
    }
}

/// The payloads of a result read in place ([`crate::plain`]): validated and written where they
/// are, by the core ([`mcp_outputs::payload::InPlace`]), and counted for the tests.
pub(crate) struct PlainPayloads;

impl PayloadsIn<PyPlain> for PlainPayloads {
    fn validate(&self, schema: &CompiledSchema, node: &PlainNode<'_>, path: &str, what: &str) -> Result<(), Error> {
        if crate::plain::marked() {
            // The read met something other than plain values: its answer is dropped for the
            // snapshot's.
            return Ok(());
        }
        // A schema whose patterns need the regex budget validates a value (see `node::validate`).
        count_pending(schema.validator_in::<PyPlain>()?.is_some());
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

impl Payloads for PySeam<'_, '_> {
    fn validate(&self, schema: &CompiledSchema, value: &Value, path: &str, what: &str) -> Result<(), Error> {
        let Some(obj) = self.kept.get(value) else {
            return schema.validate(value, path, what);
        };
        // The same validator as for results read in place: a schema keeps one per representation.
        if let Some(validator) = schema.validator_in::<PyPlain>()? {
            let node = obj.as_borrowed();
            // `inspect` reports what the validator could not read (never expected: the payload is
            // plain JSON); then the payload is validated as a value, with the core's own errors.
            if let Ok(verdict) = inspect(node, false, || schema.validate_in(validator, PlainNode(node), path, what)) {
                count(true);
                return verdict;
            }
        }
        count(false);
        schema.validate(&self.converted(obj, path)?, path, what)
    }

    fn is_object(&self, value: &Value) -> bool {
        match self.kept.get(value) {
            // Kept payloads are exact dicts, lists or scalars.
            Some(obj) => obj.is_exact_instance_of::<PyDict>(),
            None => value.is_object(),
        }
    }

    fn stringify(&self, value: &Value) -> Result<String, Error> {
        let Some(obj) = self.kept.get(value) else {
            return Ok(jsontext::stringify(value));
        };
        // The mirror text written from the objects themselves, by the core's writer; what it
        // cannot read (never expected of a kept payload) is converted, as every payload once was.
        let node = obj.as_borrowed();
        if let Ok(Some(text)) = inspect(node, false, || jsontext::stringify_node::<Pyo3, _>(&node)) {
            count(true);
            return Ok(text);
        }
        count(false);
        Ok(jsontext::stringify(&self.converted(obj, "")?))
    }
}
