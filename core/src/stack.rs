//! Room on the stack for the recursion an input can cause (SEC-1: never a crash). The parser,
//! the limits walk, the legacy mirror's writer, a binding's reading of its objects and, above
//! all, the schema validator recurse once per level of a value, and the validator once more per
//! in-place applicator of the schema at each level (`allOf` in `allOf`…). A host may call from a
//! thread with a small stack (Python's `threading.stack_size(65536)`), and a schema may nest
//! deeply per level, so no fixed margin is enough.
//!
//! Natively, each entry point and each validation makes sure that enough stack is left for the
//! deepest recursion its input can cause, moving to a fresh, larger stack segment when it is not
//! (the `stacker` crate). A call on an ordinary 8 MiB stack never moves; a call on a small one
//! pays for one segment (a mapping of a few MiB, touched only as deep as it is used).
//!
//! On wasm the engine owns the stack (V8 gives a module's frames and JavaScript's about 1 MB
//! together) and nothing can grow it: a validation that could go deeper than
//! [`WASM_SCHEMA_LEVELS`] is refused as `limit-exceeded` before it starts (docs/limits.md, "The
//! stack").

/// Stack kept free for one call into the core besides validation: the parser, the limits
/// walk, the writers and a binding's reading of its objects recurse at most
/// [`crate::limits::MAX_DEPTH_CEILING`] levels, in frames of well under 512 bytes (measured:
/// a whole Python route at 997 levels runs in 512 KiB).
pub const CALL_BYTES: usize = 1024 * 1024;

/// Stack kept free per level of a schema's own JSON nesting, for checking and building it:
/// the meta-schema check recurses through several frames per level of the schema (measured in
/// a release build: a schema 997 levels deep needs 4 to 8 MiB); 16 KiB keeps twice that.
pub const SCHEMA_BYTES_PER_LEVEL: usize = 16 * 1024;

/// Stack kept free for checking, building or dropping a schema `depth` levels deep (its JSON
/// nesting): a schema of ordinary depth never moves off an ordinary stack.
pub fn schema_bytes(depth: usize) -> usize {
    depth.saturating_mul(SCHEMA_BYTES_PER_LEVEL).saturating_add(256 * 1024)
}

/// The nesting depth of `value` (the outermost array or object at 1, a scalar at 0), without
/// recursion.
pub fn json_depth(value: &serde_json::Value) -> usize {
    node_depth::<crate::node::SerdeJson>(&value)
}

/// [`json_depth`] of a node in any representation (`crate::node`): a payload validated where it
/// lives is measured where it lives. Without recursion, like the walk it stands in for.
pub fn node_depth<'v, F: crate::node::Json>(node: &crate::node::NodeOf<'v, F>) -> usize {
    use crate::node::{Array as _, Node as _, Object as _};
    let mut deepest = 0;
    let mut stack = vec![(node.clone(), 1usize)];
    while let Some((node, depth)) = stack.pop() {
        if let Some(items) = node.as_array() {
            deepest = deepest.max(depth);
            stack.extend(items.elements().map(|item| (item, depth + 1)));
        } else if let Some(members) = node.as_object() {
            deepest = deepest.max(depth);
            stack.extend(members.members().map(|(_, item)| (item, depth + 1)));
        }
    }
    deepest
}

/// Stack kept free per schema level a validation may recurse through: measured natively at
/// 260–500 bytes (jsonschema 0.61, 997 levels of value with 4, 16 and 64 nested `allOf` each);
/// twice the largest for the margin.
pub const BYTES_PER_SCHEMA_LEVEL: usize = 1024;

/// The most schema levels one validation may recurse through on wasm (value depth times the
/// schema's frames per level, [`crate::validation_work::Work::frames_per_level`]). Measured on
/// Node 20's default stack (about 1 MB for JavaScript and wasm frames together), called from a
/// shallow stack, with 1 to 128 nested `allOf` per level of a recursive schema, each run in a
/// fresh process: the stack overflowed at 1,780 to 5,980 schema levels, varying from run to
/// run (V8 tiers code up in the background, and baseline frames are larger; a loaded machine
/// tiers up later). 1,200 keeps a third below every overflow seen: a recursive schema of 2
/// levels per level of value validates 600 levels
/// in the `full` entry (the default entry's validator is the caller's, on the JavaScript
/// stack). `bindings-js/test/depth-ceiling.test.mjs` holds the refusal and the margin.
pub const WASM_SCHEMA_LEVELS: usize = 1_200;

/// Runs `f` with at least `bytes` of stack free, on a fresh segment when the current one has
/// less. On wasm, `f` runs as it is (see [`fits_on_wasm`]).
#[inline]
pub fn with_room<R>(bytes: usize, f: impl FnOnce() -> R) -> R {
    #[cfg(not(target_arch = "wasm32"))]
    {
        // A new segment twice the need, so that the call does not move again at once.
        stacker::maybe_grow(bytes, bytes.saturating_mul(2), f)
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = bytes;
        f()
    }
}

/// The stack a validation needs: `levels` of value, each through `frames_per_level` schema
/// levels, beside the rest of the call.
pub fn validation_bytes(levels: usize, frames_per_level: usize) -> usize {
    levels.saturating_mul(frames_per_level).saturating_mul(BYTES_PER_SCHEMA_LEVEL).saturating_add(CALL_BYTES)
}

/// Whether a validation through `levels` of value and `frames_per_level` schema levels each
/// fits the stack of a wasm engine.
pub fn fits_on_wasm(levels: usize, frames_per_level: usize) -> bool {
    levels.saturating_mul(frames_per_level) <= WASM_SCHEMA_LEVELS
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_node_is_as_deep_as_its_value() {
        for value in [
            json!(1),
            json!([]),
            json!({"a": [1, {"b": [[]]}], "c": {}}),
            json!([[[[[[[["deep"]]]]]]], 1]),
            json!({"held": null, "x": [{"y": {"z": [0.5]}}]}),
        ] {
            let tape = crate::tape::encode(&value);
            let depth = json_depth(&value);
            assert_eq!(node_depth::<crate::tape::TapeJson>(&tape.tape().root()), depth, "{value}");
        }
        assert_eq!(json_depth(&json!([[[]], {"a": {"b": {}}}])), 4);
    }
}
