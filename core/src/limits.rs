//! Caps on every input (SEC-1). Server output is untrusted: each entry point checks its
//! arguments against these limits before doing any work, so no input can exhaust the stack,
//! allocate without bound or run for long.

use crate::error::{pointer_index, pointer_push, Error, ErrorCode, Result};
use crate::node::Source;
use jsonschema_value::{types::JsonType, Array as _, Node, Object as _, SerdeJson};
use serde_json::Value;
use std::borrow::Cow;

/// Limits applied to every input. The defaults are documented in docs/library.md ("Limits") and
/// are generous for real tools; all are configurable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Maximum JSON nesting depth, counting each array or object level with the outermost
    /// value at depth 1. Default 128; never more than [`MAX_DEPTH_CEILING`] in effect.
    pub max_depth: usize,
    /// Maximum size of one input in bytes: the text length for JSON text, an estimate of the
    /// serialised size for values. Default 16 MiB.
    pub max_bytes: usize,
    /// Maximum length of any one array. Default 100,000.
    pub max_array_len: usize,
    /// Maximum number of members of any one object. Default 100,000.
    pub max_object_len: usize,
    /// Maximum number of `outputVariants` in one declaration, selectors in one request and
    /// outputs in one result. Default 64.
    pub max_variants: usize,
    /// Maximum number of tools in one tools/list. Default 10,000.
    pub max_tools: usize,
    /// Maximum number of registered extension audiences. Default 64.
    pub max_extensions: usize,
}

/// What the limits walk charges a whole value, and the extremes its caps test, as a
/// representation finds them in a pass it makes anyway (`Source::totals`: a tape's checking
/// pass, `Tape::new`). With them the walk's pass/fail answer is a few comparisons instead of a
/// second walk (in the wasm, the tape's envelope was walked twice a call; in the full build the
/// payloads too).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// The sum of the walk's costs (saturating: at `u64::MAX` it says nothing).
    pub cost: u64,
    /// The deepest nesting of containers (0 for a scalar, 1 for a container of scalars).
    pub depth: usize,
    /// The length of the longest array (0 without one).
    pub longest_array: usize,
    /// The member count of the largest object (0 without one).
    pub largest_object: usize,
}

/// The deepest nesting any setting allows. The parser, the limits walk, the schema validator,
/// the serialiser and the bindings' readers recurse once per level; `crate::stack` keeps room
/// for this many natively, on any thread, and the wasm build refuses a validation deeper than
/// its engine's stack holds (docs/limits.md, "The stack"). `json::limits` refuses a larger
/// `maxDepth`; a `Limits` built in Rust with a larger `max_depth` is held to this one.
pub const MAX_DEPTH_CEILING: usize = 1000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 128,
            max_bytes: 16 * 1024 * 1024,
            max_array_len: 100_000,
            max_object_len: 100_000,
            max_variants: 64,
            max_tools: 10_000,
            max_extensions: 64,
        }
    }
}

impl Limits {
    /// The nesting depth in effect: `max_depth`, held to [`MAX_DEPTH_CEILING`].
    pub fn depth_cap(&self) -> usize {
        self.max_depth.min(MAX_DEPTH_CEILING)
    }

    /// Checks a value already in memory against the depth, length and size caps.
    /// The walk recurses at most `max_depth + 1` levels, so it cannot overflow the stack on a
    /// value it rejects. `path` is the JSON Pointer of `value`, used in error messages.
    pub fn check_value(&self, value: &Value, path: &str) -> Result<()> {
        self.check_node::<SerdeJson>(&value, 1, path)
    }

    /// The limits walk of a node of any representation (`crate::node`: a binding's own objects
    /// are read where they live), found at nesting `depth`: the one walk every argument gets,
    /// with the same caps, costs and order whatever holds the value.
    pub fn check_node<'v, F: Source>(&self, node: &F::Node<'v>, depth: usize, path: &str) -> Result<()> {
        // One tight pass decides (or the totals a representation found in a pass of its own:
        // a checked tape's); only a failing input pays for the second pass that finds the
        // offending value's path and the message.
        let totals = F::totals(node);
        let fits = match &totals {
            Some(totals) => self.fits_totals(totals, depth),
            // A representation with totals but none for this node: the walk below decides.
            None if F::TOTALS => false,
            None => {
                let mut budget = self.max_bytes;
                self.fits::<F>(node, depth, &mut budget)
            }
        };
        if fits {
            return Ok(());
        }
        let mut budget = self.max_bytes;
        let mut trail = Vec::new();
        match self.walk::<F>(node, depth, &mut budget, &mut trail) {
            Err(Walked::Fault(code, message)) => Err(Error::new(code, render(path, &trail), message)),
            Err(Walked::Over(over)) => Err(self.over_error(over, render(path, &trail))),
            // The walk alone decided, and found nothing over.
            Ok(()) if F::TOTALS && totals.is_none() => Ok(()),
            Ok(()) => Err(Error::new(ErrorCode::LimitExceeded, path, "input over a limit")),
        }
    }

    /// The pass's answer from a value's [`Totals`], found at nesting `depth`: every cost is
    /// positive, so the budget runs out somewhere in the walk exactly when the sum is over it,
    /// and each container fits when the deepest and the longest do.
    fn fits_totals(&self, totals: &Totals, depth: usize) -> bool {
        // Below `u64::MAX`: a saturated sum says nothing (the walk then decides).
        totals.cost < u64::MAX
            && usize::try_from(totals.cost).is_ok_and(|cost| cost <= self.max_bytes)
            && totals.depth.checked_sub(1).is_none_or(|below| depth.saturating_add(below) <= self.depth_cap())
            && totals.longest_array <= self.max_array_len
            && totals.largest_object <= self.max_object_len
    }

    /// The `limit-exceeded` error of a container over its length cap at `path`, as the limits
    /// walk reports it (its [`Error::over`] is `over`).
    fn over_error(&self, over: Over, path: String) -> Error {
        Error::new(ErrorCode::LimitExceeded, path, over.message()).with_over(over)
    }

    /// The pass/fail form of `walk`, with the same costs and caps and no bookkeeping.
    /// Strings and scalars inside a container are paid for in place: a call per leaf would
    /// cost as much as the rest of the walk (P-RS-1).
    fn fits<'v, F: Source>(&self, node: &F::Node<'v>, depth: usize, budget: &mut usize) -> bool {
        let mut left = *budget;
        let fits = self.fits_in::<F>(node, depth, self.depth_cap(), &mut left);
        *budget = left;
        fits
    }

    fn fits_in<'v, F: Source>(&self, node: &F::Node<'v>, depth: usize, cap: usize, left: &mut usize) -> bool {
        self.fits_read::<F>(read::<F>(node), depth, cap, left)
    }

    // A node already classified: each node is read once.
    #[allow(clippy::type_complexity)]
    fn fits_read<'v, F: Source>(
        &self,
        node: Read<<F::Node<'v> as Node<'v, F>>::Array, <F::Node<'v> as Node<'v, F>>::Object>,
        depth: usize,
        cap: usize,
        left: &mut usize,
    ) -> bool {
        #[inline(always)]
        fn take(left: &mut usize, cost: usize) -> bool {
            match left.checked_sub(cost) {
                Some(rest) => {
                    *left = rest;
                    true
                }
                None => false,
            }
        }
        match node {
            Read::Array(items) => {
                let len = items.len();
                take(left, len + 2)
                    && depth <= cap
                    && len <= self.max_array_len
                    && items.elements().all(|item| match F::leaf_cost(&item) {
                        Some(cost) => take(left, cost),
                        None => match read::<F>(&item) {
                            Read::Leaf(cost) => take(left, cost),
                            container => self.fits_read::<F>(container, depth + 1, cap, left),
                        },
                    })
            }
            Read::Object(members) => {
                let len = members.len();
                take(left, len.saturating_mul(4).saturating_add(2))
                    && depth <= cap
                    && len <= self.max_object_len
                    && F::all_members(&members, |key, item| {
                        take(left, key.len())
                            && match F::leaf_cost(&item) {
                                Some(cost) => take(left, cost),
                                None => match read::<F>(&item) {
                                    Read::Leaf(cost) => take(left, cost),
                                    container => self.fits_read::<F>(container, depth + 1, cap, left),
                                },
                            }
                    })
            }
            Read::Leaf(cost) => take(left, cost),
        }
    }

    // Segments of the current path are kept as borrowed pieces and rendered only on error:
    // building a String per node would dominate the walk on large payloads.
    fn walk<'v, F: Source>(
        &self,
        node: &F::Node<'v>,
        depth: usize,
        budget: &mut usize,
        trail: &mut Vec<Segment<'v>>,
    ) -> Result<(), Walked> {
        match read::<F>(node) {
            Read::Array(items) => {
                let len = items.len();
                self.spend(budget, len + 2)?;
                self.enter(depth)?;
                if len > self.max_array_len {
                    return Err(Walked::Over(Over { container: Container::Array, len, cap: self.max_array_len }));
                }
                for (i, item) in items.elements().enumerate() {
                    if matches!(item.json_type(), JsonType::Array | JsonType::Object | JsonType::String) {
                        trail.push(Segment::Index(i));
                        self.walk::<F>(&item, depth + 1, budget, trail)?;
                        trail.pop();
                    } else {
                        self.spend(budget, scalar_cost::<F>(&item))?;
                    }
                }
            }
            Read::Object(members) => {
                let len = members.len();
                self.spend(budget, len.saturating_mul(4).saturating_add(2))?;
                self.enter(depth)?;
                if len > self.max_object_len {
                    return Err(Walked::Over(Over { container: Container::Object, len, cap: self.max_object_len }));
                }
                for (key, item) in members.members() {
                    self.spend(budget, key.as_ref().len())?;
                    if matches!(item.json_type(), JsonType::Array | JsonType::Object | JsonType::String) {
                        trail.push(Segment::Key(key.into()));
                        self.walk::<F>(&item, depth + 1, budget, trail)?;
                        trail.pop();
                    } else {
                        self.spend(budget, scalar_cost::<F>(&item))?;
                    }
                }
            }
            Read::Leaf(cost) => self.spend(budget, cost)?,
        }
        Ok(())
    }

    fn spend(&self, budget: &mut usize, cost: usize) -> Result<(), Walked> {
        *budget = budget.checked_sub(cost).ok_or_else(|| {
            Walked::Fault(ErrorCode::LimitExceeded, format!("input larger than {} bytes", self.max_bytes))
        })?;
        Ok(())
    }

    fn enter(&self, depth: usize) -> Result<(), Walked> {
        if depth > self.depth_cap() {
            return Err(Walked::Fault(
                ErrorCode::LimitExceeded,
                format!("nesting deeper than {} levels", self.depth_cap()),
            ));
        }
        Ok(())
    }

    /// Parses JSON text after checking its size and nesting depth, so that neither a huge
    /// document nor a deeply nested one reaches the parser.
    pub fn parse_text(&self, text: &str, what: &str) -> Result<Value> {
        self.check_text(text.len(), max_nesting(text.as_bytes()), what)?;
        let mut de = serde_json::Deserializer::from_str(text);
        // The scan above bounds the depth, so serde_json's own fixed limit (127) would only
        // reject documents our configured limit allows.
        de.disable_recursion_limit();
        let value: Value = serde::Deserialize::deserialize(&mut de)
            .and_then(|v| de.end().map(|()| v))
            .map_err(|e| Error::malformed("", format!("{what}: not valid JSON: {e}")))?;
        // Array and object lengths are bounded by the byte size for text, but the per-array
        // cap still applies.
        self.check_value(&value, "")?;
        Ok(value)
    }

    /// The checks JSON text gets before it is parsed, in their order, with their errors: its
    /// size (`len` bytes), then its nesting (`depth`, the deepest containers). Shared by every
    /// reader of text (`parse_text`, `tape::parse_text`) and by `tape::snapshot`, which answers
    /// for the text a JavaScript walk would have written.
    pub fn check_text(&self, len: usize, depth: usize, what: &str) -> Result<()> {
        if len > self.max_bytes {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                "",
                format!("{what}: {len} bytes exceeds the limit of {}", self.max_bytes),
            ));
        }
        if depth > self.depth_cap() {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                "",
                format!("{what}: nesting deeper than {} levels", self.depth_cap()),
            ));
        }
        Ok(())
    }

    /// Parses JSON bytes (which must be UTF-8).
    pub fn parse_bytes(&self, bytes: &[u8], what: &str) -> Result<Value> {
        if bytes.len() > self.max_bytes {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                "",
                format!("{what}: {} bytes exceeds the limit of {}", bytes.len(), self.max_bytes),
            ));
        }
        let text = std::str::from_utf8(bytes).map_err(|e| Error::malformed("", format!("{what}: not UTF-8: {e}")))?;
        self.parse_text(text, what)
    }

    /// Checks a count (variants, selectors, outputs, tools) against its cap.
    pub fn check_count(&self, len: usize, cap: usize, path: &str, what: &str) -> Result<()> {
        if len > cap {
            return Err(Error::new(ErrorCode::LimitExceeded, path, format!("{len} {what} exceed the limit of {cap}")));
        }
        Ok(())
    }
}

/// A node as the limits walk reads it: a container to enter, or a leaf and what it costs of the
/// byte budget. Scalars cost a small fixed amount, strings their UTF-8 length, containers their
/// length (members 4 each) beside what they hold: the estimate only needs to grow with the real
/// serialised size, not to equal it. One rule for the fast pass and the walk.
enum Read<A, O> {
    Array(A),
    Object(O),
    Leaf(usize),
}

/// What a scalar costs: 8, or what the binding measured of a payload it holds.
#[inline(always)]
fn scalar_cost<F: Source>(node: &F::Node<'_>) -> usize {
    match node.json_type() {
        JsonType::Null => F::held_cost(node).unwrap_or(8),
        _ => 8,
    }
}

#[inline(always)]
#[allow(clippy::type_complexity)]
fn read<'v, F: Source>(
    node: &F::Node<'v>,
) -> Read<<F::Node<'v> as Node<'v, F>>::Array, <F::Node<'v> as Node<'v, F>>::Object> {
    match node.json_type() {
        JsonType::Array => node.as_array().map_or(Read::Leaf(8), Read::Array),
        JsonType::Object => node.as_object().map_or(Read::Leaf(8), Read::Object),
        JsonType::String => Read::Leaf(node.as_string().map_or(2, |s| s.len() + 2)),
        // A payload the binding holds costs what it measured (`Source::held_cost`).
        JsonType::Null => Read::Leaf(F::held_cost(node).unwrap_or(8)),
        _ => Read::Leaf(8),
    }
}

/// The maximum nesting depth of JSON text, found by one pass that skips string contents.
/// Malformed text may give any answer: the parser reports it afterwards.
pub(crate) fn max_nesting(bytes: &[u8]) -> usize {
    let mut depth = 0usize;
    let mut max = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in bytes {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// A container over its length cap: what a `limit-exceeded` error of the limits walk says in
/// data ([`Error::over`]), beside its message, so that no binding reads it out of the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Over {
    /// An array (`maxArrayLen`) or an object (`maxObjectLen`).
    pub container: Container,
    /// Its length: items or members.
    pub len: usize,
    /// The cap it passed.
    pub cap: usize,
}

/// Which length cap a container passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// An array, over `maxArrayLen`.
    Array,
    /// An object, over `maxObjectLen`.
    Object,
}

impl Over {
    pub(crate) fn message(&self) -> String {
        match self.container {
            Container::Array => format!("array of {} items exceeds the limit of {}", self.len, self.cap),
            Container::Object => format!("object of {} members exceeds the limit of {}", self.len, self.cap),
        }
    }
}

/// Why the limits walk stopped.
enum Walked {
    Over(Over),
    Fault(ErrorCode, String),
}

enum Segment<'v> {
    Index(usize),
    Key(Cow<'v, str>),
}

fn render(base: &str, trail: &[Segment<'_>]) -> String {
    trail.iter().fold(base.to_owned(), |path, segment| match segment {
        Segment::Index(i) => pointer_index(&path, *i),
        Segment::Key(k) => pointer_push(&path, k),
    })
}

#[cfg(test)]
mod tests {
    use super::Limits;
    use crate::error::ErrorCode;
    use crate::testing::{arb_json, arb_json_text_with_duplicates};
    use jsonschema_value::SerdeJson;
    use proptest::prelude::*;
    use serde_json::Value;

    /// The parsed value's array and object lengths within the caps (the last of duplicate
    /// members wins, as in `JSON.parse`).
    fn lengths_within(limits: &Limits, value: &Value) -> bool {
        match value {
            Value::Array(items) => {
                items.len() <= limits.max_array_len && items.iter().all(|v| lengths_within(limits, v))
            }
            Value::Object(members) => {
                members.len() <= limits.max_object_len && members.values().all(|v| lengths_within(limits, v))
            }
            _ => true,
        }
    }

    proptest! {
        // Text entry points measure the depth on the text as written, duplicate members
        // included, and the lengths on the parsed value (docs/library.md, "Limits"): accepted
        // exactly when both are within the caps, and then equal to serde_json's value.
        #[test]
        fn text_is_measured_as_written(
            (text, text_depth) in arb_json_text_with_duplicates(),
            max_depth in 1usize..7,
            max_array_len in 0usize..5,
            max_object_len in 0usize..5,
        ) {
            let limits = Limits { max_depth, max_array_len, max_object_len, ..Limits::default() };
            let value: Value = serde_json::from_str(&text).unwrap();
            let within = text_depth <= max_depth && lengths_within(&limits, &value);
            match limits.parse_text(&text, "input") {
                Ok(parsed) => {
                    prop_assert!(within, "accepted {} over a cap", text);
                    prop_assert_eq!(parsed, value);
                }
                Err(e) => {
                    prop_assert!(!within, "refused {} within every cap: {:?}", text, e);
                    prop_assert_eq!(e.code(), ErrorCode::LimitExceeded);
                }
            }
        }

        // The fast pass decides alone whether a value is accepted: it must reach the same
        // verdict as the walk that names the offending path, at every limit.
        #[test]
        fn the_fast_pass_agrees_with_the_walk(
            value in arb_json(),
            depth in 0usize..4,
            max_depth in 0usize..8,
            max_array_len in 0usize..7,
            max_object_len in 0usize..7,
        ) {
            // What the value costs, so that the budgets tried sit on each side of the edge.
            let unlimited = Limits { max_bytes: usize::MAX, max_depth: 1000, ..Limits::default() };
            let mut left = usize::MAX;
            prop_assert!(unlimited.walk::<SerdeJson>(&&value, depth, &mut left, &mut Vec::new()).is_ok());
            let cost = usize::MAX - left;
            for max_bytes in cost.saturating_sub(2)..=cost + 1 {
                let limits = Limits { max_depth, max_bytes, max_array_len, max_object_len, ..Limits::default() };
                let mut budget = max_bytes;
                let fits = limits.fits::<SerdeJson>(&&value, depth, &mut budget);
                let mut budget = max_bytes;
                let walked = limits.walk::<SerdeJson>(&&value, depth, &mut budget, &mut Vec::new());
                prop_assert_eq!(fits, walked.is_ok(), "{} at depth {}, {} bytes", value, depth, max_bytes);
            }
        }
    }

    /// `value` and every node inside it.
    fn nodes(value: &Value) -> Vec<&Value> {
        let mut all = vec![value];
        match value {
            Value::Array(items) => all.extend(items.iter().flat_map(nodes)),
            Value::Object(members) => all.extend(members.values().flat_map(nodes)),
            _ => {}
        }
        all
    }

    proptest! {
        // The fast pass takes a leaf's cost from `Source::leaf_cost` where the representation
        // gives one: it must be what the walk's `read` charges, and no answer for a container.
        #[test]
        fn a_quick_leaf_cost_is_the_walks(value in arb_json()) {
            use crate::node::Source;
            for node in nodes(&value) {
                let read = match super::read::<SerdeJson>(&node) {
                    super::Read::Leaf(cost) => Some(cost),
                    super::Read::Array(_) | super::Read::Object(_) => None,
                };
                prop_assert_eq!(<SerdeJson as Source>::leaf_cost(&node), read, "{}", node);
            }
        }
    }

    #[test]
    fn a_length_error_says_its_length_in_data() {
        use super::{Container, Over};
        let limits = Limits { max_array_len: 2, max_object_len: 1, ..Limits::default() };
        let err = limits.check_value(&serde_json::json!({"a": [[1, 2, 3]]}), "/p").expect_err("long");
        let over = Over { container: Container::Array, len: 3, cap: 2 };
        assert_eq!((err.code(), err.path(), err.over()), (ErrorCode::LimitExceeded, "/p/a/0", Some(over)));
        assert_eq!(err.message(), "array of 3 items exceeds the limit of 2");
        let err = limits.check_value(&serde_json::json!({"a": 1, "b": 2}), "").expect_err("wide");
        assert_eq!(err.over(), Some(Over { container: Container::Object, len: 2, cap: 1 }));
        assert_eq!(err.message(), "object of 2 members exceeds the limit of 1");
        let err = limits.check_value(&serde_json::json!("x".repeat(limits.max_bytes)), "").expect_err("big");
        assert_eq!((err.code(), err.over()), (ErrorCode::LimitExceeded, None));
    }
}
