//! Python objects to `serde_json::Value` and back: the binding's own walker (exact type
//! checks first, no detour through `json.dumps` or serde), with the core's limits applied while
//! converting. A converter made with [`Converter::keeping`] does not convert the structured
//! payloads at the positions the core names (`mcp_outputs::payload`): it checks them against
//! the same limits, keeps them as the caller's objects ([`Kept`]) and puts a placeholder in
//! their place; a payload it cannot keep is converted like anything else.
//!
//! How limits are applied, so that the core keeps deciding every protocol error (its code,
//! path, JSON-RPC code and precedence):
//! - depth: the walk never goes deeper than one level past the core's `max_depth`; a container
//!   found there is converted as an empty container of its kind. The value handed to the core is
//!   then still too deep, and the core rejects it as `limit-exceeded` at that path, exactly as
//!   it would the original. A container that contains itself is `malformed` ("recursive
//!   structure"): it is not JSON.
//! - array and object lengths: at most `max_array_len + 1` items (`max_object_len + 1` members)
//!   are converted, which the core then rejects the same way. The true length of the first
//!   container over its cap is remembered for the call ([`with_true_length`]), so that the core's
//!   message states it rather than the length of the truncated copy.
//! - size: the core's byte estimate is spent while converting; an input over `max_bytes` stops
//!   the walk with `limit-exceeded` (the memory is not allocated first).
//! - values JSON cannot hold (non-string keys, NaN and infinities, lone surrogates, other
//!   Python types) are `malformed`, with the path of the value. An integer beyond the 64-bit
//!   range is read as the nearest double, as the core's text parser reads its digits (one answer
//!   for bytes and for objects); one too large for a double is `malformed`.
//!
//! What a binding hands back (docs/boundary.md): the converter notes every value that is not
//! exactly a JSON type as `json.loads` makes it (a subclass of `dict`, `list`, `str`, `int` or
//! `float`, a tuple, a model, a key that is not an exact `str`, an integer beyond 64 bits). It
//! reads such a value from its C-level storage, never through its Python overrides, and a
//! container holding one is never handed back as the caller's object ([`Originals`]): the answer
//! carries the snapshot that was checked. When Python code may have run during the walk (a model
//! dumped, an unknown object asked whether it is one, an `Enum` key read) after some of the
//! caller's objects were kept or recorded, that code could have changed them:
//! [`argument_keeping`] then converts the whole argument again, keeping and recording nothing.

use jsonschema::json::{inspect, Array, Node, Object};
use mcp_outputs::payload::{is_position, PathSegment, Step};
use mcp_outputs::{Error, ErrorCode, Limits};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::Borrowed;
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::cell::Cell;

thread_local! {
    /// The first list or dict over its length cap that this thread converted since
    /// [`forget_lengths`]: whether it is a list, and its true length.
    static FIRST_OVER: Cell<Option<(bool, usize)>> = const { Cell::new(None) };
}

/// Starts a call: no container over its cap seen yet.
pub(crate) fn forget_lengths() {
    FIRST_OVER.with(|c| c.set(None));
}

fn remember_length(is_list: bool, len: usize) {
    FIRST_OVER.with(|c| {
        if c.get().is_none() {
            c.set(Some((is_list, len)));
        }
    });
}

/// `error` restated with the true length of the container it names, when the core's walk
/// stopped at a container this thread truncated to its cap + 1 items (the first one over its
/// cap: the core walks in the order the converter did and stops at the first value over a
/// limit). Read from the error's data ([`Error::over`]), not from its message.
pub(crate) fn with_true_length(error: &Error) -> Option<Error> {
    let (is_list, len) = FIRST_OVER.with(Cell::get)?;
    let over = error.over()?;
    let same_kind = (over.container == mcp_outputs::Container::Array) == is_list;
    (same_kind && over.len == over.cap.checked_add(1)? && len > over.len).then(|| error.clone().restated_over(len))
}

/// The caps of one conversion.
#[derive(Debug, Clone)]
pub(crate) struct Caps {
    /// The deepest level the walk converts (the outermost value is level 1).
    pub depth: usize,
    pub array_len: usize,
    pub object_len: usize,
    /// The byte estimate allowed, as the core computes it (`None`: not checked here).
    pub bytes: Option<usize>,
}

impl Caps {
    /// Caps for one argument of the core (the argument is level 1, as for the core).
    pub fn for_argument(limits: &Limits) -> Self {
        Caps {
            depth: limits.depth_cap().saturating_add(1),
            array_len: limits.max_array_len.saturating_add(1),
            object_len: limits.max_object_len.saturating_add(1),
            bytes: Some(limits.max_bytes),
        }
    }

    /// Caps for an input object that wraps the core's arguments one level down (`run`): every
    /// argument gets the depth it would get alone; sizes are left to the core, which checks each
    /// argument.
    pub fn for_wrapper(limits: &Limits) -> Self {
        Caps { depth: limits.depth_cap().saturating_add(2), bytes: None, ..Caps::for_argument(limits) }
    }
}

enum Segment {
    Key(String),
    Index(usize),
}

/// A conversion failure, its path collected while unwinding.
pub(crate) struct Failure {
    code: ErrorCode,
    message: String,
    trail: Vec<Segment>,
}

impl Failure {
    #[cold]
    fn new(code: ErrorCode, message: impl Into<String>) -> Box<Self> {
        Box::new(Failure { code, message: message.into(), trail: Vec::new() })
    }

    #[cold]
    fn at(mut self: Box<Self>, segment: Segment) -> Box<Self> {
        self.trail.push(segment);
        self
    }

    /// The core error, with the JSON Pointer (RFC 6901) of the offending value under `base`.
    pub fn into_error(self, base: &str) -> Error {
        let mut path = base.to_owned();
        for segment in self.trail.iter().rev() {
            path.push('/');
            match segment {
                Segment::Index(i) => path.push_str(&i.to_string()),
                Segment::Key(k) => path.push_str(&k.replace('~', "~0").replace('/', "~1")),
            }
        }
        Error::new(self.code, path, self.message)
    }
}

/// One walk over a Python value.
pub(crate) struct Converter<'py> {
    caps: Caps,
    budget: usize,
    /// Where the core says payloads sit in this argument (empty: none is kept).
    positions: &'static [&'static [Step]],
    /// The path of the value being converted, while it is shallow enough to lead to a payload
    /// position: each member name as the position's own name, or `""` for a name no position
    /// has (counted in `off_path`: such a path leads to no position).
    at: Vec<PathSegment<'static>>,
    off_path: usize,
    /// The length of the longest of `positions`.
    longest: usize,
    /// The payloads kept as the caller's objects ([`Kept`]).
    kept: Kept<'py>,
    /// While a payload is judged ([`Converter::plain`]): the budget below which it is too
    /// large to keep.
    keep_floor: usize,
    /// The containers on the current path, to tell a recursive structure from a deep one.
    ancestors: Vec<usize>,
    /// Containers at this nesting level or above are recorded in `recorded` (0: none).
    record_depth: usize,
    /// Each container converted at `record_depth` or above, in the order converted (a
    /// pre-order walk): the object itself when a plain `dict` or `list`, `None` otherwise.
    recorded: Recorded<'py>,
    /// A dict had two keys of the same text: the recorded order no longer follows the value.
    collided: bool,
    /// How many values not exactly of a JSON type were met (see the module's notes): a container
    /// whose walk raised it is not recorded as an original.
    impure: usize,
    /// Some of the caller's objects were kept or recorded as originals.
    exposed: bool,
    /// Python code may have run after some of the caller's objects were kept or recorded.
    tainted: bool,
    /// Payloads larger than this (the core's byte estimate) are converted rather than kept.
    keep_max: usize,
}

/// Boxed, so that the happy path moves a `Value`-sized result.
type Converted = Result<Value, Box<Failure>>;

impl<'py> Converter<'py> {
    pub fn new(caps: Caps) -> Self {
        let budget = caps.bytes.unwrap_or(usize::MAX);
        Converter {
            caps,
            budget,
            positions: &[],
            at: Vec::new(),
            off_path: 0,
            longest: 0,
            kept: Kept::default(),
            keep_floor: 0,
            ancestors: Vec::new(),
            record_depth: 0,
            recorded: Vec::new(),
            collided: false,
            impure: 0,
            exposed: false,
            tainted: false,
            keep_max: KEEP_MAX_BYTES,
        }
    }

    /// Python code may run now (a model's dump, an unknown object's attributes, an `Enum`
    /// key's `value`): whatever was kept or recorded before may change under the walk.
    #[cold]
    fn python_may_run(&mut self) {
        if self.exposed {
            self.tainted = true;
        }
    }

    /// A converter that keeps the payloads found at `positions` as the caller's objects.
    pub fn keeping(caps: Caps, positions: &'static [&'static [Step]]) -> Self {
        let longest = positions.iter().map(|p| p.len()).max().unwrap_or(0);
        Converter { positions, longest, kept: Kept::new(), ..Converter::new(caps) }
    }

    /// The payloads kept.
    pub fn into_kept(self) -> Kept<'py> {
        self.kept
    }

    /// Converts a member or element (`segment`) found at `depth`, or keeps it as the caller's
    /// object when the core names its position a payload position.
    fn child(&mut self, item: &Bound<'py, PyAny>, depth: usize, segment: PathSegment<'_>) -> Converted {
        if depth - 1 > self.longest {
            return self.convert(item, depth);
        }
        let own = match segment {
            PathSegment::Index(i) => Some(PathSegment::Index(i)),
            PathSegment::Key(key) => self.positions.iter().flat_map(|p| p.iter()).find_map(|step| match step {
                Step::Key(name) if *name == key => Some(PathSegment::Key(name)),
                _ => None,
            }),
        };
        let off = usize::from(own.is_none());
        self.at.push(own.unwrap_or(PathSegment::Key("")));
        self.off_path += off;
        let result = if self.off_path == 0 && is_position(self.positions, &self.at) {
            self.payload(item, depth)
        } else {
            self.convert(item, depth)
        };
        self.off_path -= off;
        self.at.pop();
        result
    }

    /// A payload: kept as the caller's object when it is plain JSON within the core's limits
    /// ([`Converter::plain`]), its place in the value taken by a placeholder; converted
    /// otherwise, so that the core judges it (and reports its faults) exactly as before.
    fn payload(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> Converted {
        let before = self.budget;
        self.keep_floor = before.saturating_sub(self.keep_max);
        if self.plain(obj, depth) {
            // The core's limits walk charges a placeholder 8 bytes (a number): a payload that
            // costs less is converted, so that the core never counts more than the payload's cost.
            if before - self.budget >= 8 {
                if let Some(placeholder) = self.kept.keep(obj) {
                    self.exposed = true;
                    return Ok(placeholder);
                }
            }
        }
        self.budget = before;
        self.convert(obj, depth)
    }

    /// Whether `obj` (at `depth`) is plain JSON the core would accept as it is: exact `dict`
    /// (string keys), `list`, `str`, `int` within 64 bits, finite `float`, `bool` and `None`,
    /// within the core's depth and length caps (not the converter's, one past them) and the
    /// byte budget, which it spends as converting would. Reading these types runs no Python
    /// code, so what is judged here is what the core's questions will read. Anything else
    /// (a subclass, a tuple, a pydantic model, a value JSON cannot hold) is left to the
    /// converter, whose errors are the binding's usual ones. (A key that is not an exact `str`
    /// stops the walk when it is reached; reading an `Enum` key whose `value` is overridden is
    /// the one read of the validator's accessors that runs Python code, and such a payload is
    /// converted.)
    fn plain(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> bool {
        // Only an exact JSON type is read by the validator's accessors: `inspect` would resolve an
        // `Enum` at the root, which may run its `value` override.
        let exact = obj.is_exact_instance_of::<PyDict>()
            || obj.is_exact_instance_of::<PyList>()
            || obj.is_exact_instance_of::<PyString>()
            || obj.is_exact_instance_of::<PyInt>()
            || obj.is_exact_instance_of::<PyFloat>()
            || obj.is_exact_instance_of::<PyBool>()
            || obj.is_none();
        if !exact {
            return false;
        }
        let node = obj.as_borrowed();
        let before = self.budget;
        let mut runs = 0usize;
        // The walk reads through the validator's own accessors (no reference counting per
        // member); what they cannot read (a lone surrogate) is recorded, and `inspect` reports it.
        let walked = inspect(node, false, || {
            runs += 1;
            self.budget = before;
            self.plain_node(node, depth)
        });
        if runs > 1 {
            // Run again holding what it reads: an accessor reached Python code.
            self.python_may_run();
        }
        matches!(walked, Ok(true))
    }

    fn plain_node<'a>(&mut self, node: Borrowed<'a, 'a, PyAny>, depth: usize) -> bool {
        if node.is_exact_instance_of::<PyString>() {
            return Node::as_string(&node).is_some_and(|text| self.keeps(text.len() + 2));
        }
        if node.is_exact_instance_of::<PyDict>() {
            let Some(object) = Node::as_object(&node) else {
                return false;
            };
            let len = Object::len(&object);
            if depth >= self.caps.depth || len >= self.caps.object_len || !self.keeps(len * 4 + 2) {
                return false;
            }
            for (name, item) in Object::members(&object) {
                // A name the accessor had to make (`Owned`) is a key that is not an exact `str`;
                // making it may have run Python code (an `Enum`'s `value`).
                let Cow::Borrowed(name) = name else {
                    self.python_may_run();
                    return false;
                };
                if !self.keeps(name.len()) || !self.plain_node(item, depth + 1) {
                    return false;
                }
            }
            return true;
        }
        if node.is_exact_instance_of::<PyList>() {
            let Some(array) = Node::as_array(&node) else {
                return false;
            };
            let len = Array::len(&array);
            if depth >= self.caps.depth || len >= self.caps.array_len || !self.keeps(len + 2) {
                return false;
            }
            return Array::elements(&array).all(|item| self.plain_node(item, depth + 1));
        }
        let obj: &Bound<'a, PyAny> = &node;
        let scalar = obj.is_none()
            || obj.is_exact_instance_of::<PyBool>()
            || obj.cast_exact::<PyInt>().is_ok_and(|i| i.extract::<i64>().is_ok() || i.extract::<u64>().is_ok())
            || obj.cast_exact::<PyFloat>().is_ok_and(|f| f.value().is_finite());
        scalar && self.keeps(8)
    }

    /// Spends `cost` for a payload being judged: whether it is within the budget and small
    /// enough to keep.
    #[inline]
    fn keeps(&mut self, cost: usize) -> bool {
        self.spend(cost).is_ok() && self.budget >= self.keep_floor
    }

    /// Records `obj` (pre-order) when its level is recorded: itself when `plain`, `None`
    /// otherwise. Answers its slot, for [`Converter::recorded_walk`].
    fn record(&mut self, obj: &Bound<'py, PyAny>, depth: usize, plain: bool) -> Option<usize> {
        if depth > self.record_depth {
            return None;
        }
        if plain {
            self.exposed = true;
        }
        self.recorded.push(plain.then(|| obj.clone()));
        Some(self.recorded.len() - 1)
    }

    /// After a recorded container's walk: when it met a value not exactly of a JSON type (its
    /// Python overrides may read differently from the storage converted), it is handed back as
    /// the converted snapshot, not as the caller's object.
    fn recorded_walk(&mut self, slot: Option<usize>, impure_before: usize) {
        if let Some(slot) = slot {
            if self.impure != impure_before {
                if let Some(entry) = self.recorded.get_mut(slot) {
                    *entry = None;
                }
            }
        }
    }

    /// How much of the byte estimate the walk spent (the size of the converted value).
    pub fn spent(&self) -> usize {
        self.caps.bytes.unwrap_or(usize::MAX) - self.budget
    }

    #[inline]
    fn spend(&mut self, cost: usize) -> Result<(), Box<Failure>> {
        match self.budget.checked_sub(cost) {
            Some(rest) => {
                self.budget = rest;
                Ok(())
            }
            None => Err(Failure::new(
                ErrorCode::LimitExceeded,
                format!("input larger than {} bytes", self.caps.bytes.unwrap_or(usize::MAX)),
            )),
        }
    }

    /// Converts `obj`, found at nesting level `depth` (1 for an argument itself).
    pub fn convert(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> Converted {
        // Exact types first, the common ones first; subclasses after.
        if let Ok(s) = obj.cast_exact::<PyString>() {
            return self.string(s);
        }
        if let Ok(d) = obj.cast_exact::<PyDict>() {
            return self.dict(d, depth);
        }
        if let Ok(l) = obj.cast_exact::<PyList>() {
            return self.list(obj, l.len(), |i| l.get_item(i), depth);
        }
        if obj.is_none() {
            self.spend(8)?;
            return Ok(Value::Null);
        }
        if let Ok(b) = obj.cast_exact::<PyBool>() {
            self.spend(8)?;
            return Ok(Value::Bool(b.is_true()));
        }
        if let Ok(i) = obj.cast_exact::<PyInt>() {
            return self.int(i);
        }
        if let Ok(f) = obj.cast_exact::<PyFloat>() {
            return self.float(f.value());
        }
        self.subclass(obj, depth)
    }

    #[cold]
    fn subclass(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> Converted {
        // Not exactly a JSON type: read from its storage, and never handed back as itself.
        self.impure += 1;
        // bool is a subclass of int and cannot itself be subclassed: it was handled above.
        if let Ok(s) = obj.cast::<PyString>() {
            return self.string(s);
        }
        if let Ok(d) = obj.cast::<PyDict>() {
            return self.dict(d, depth);
        }
        if let Ok(l) = obj.cast::<PyList>() {
            return self.list(obj, l.len(), |i| l.get_item(i), depth);
        }
        if let Ok(t) = obj.cast::<PyTuple>() {
            return self.list(obj, t.len(), |i| t.get_item(i), depth);
        }
        if let Ok(i) = obj.cast::<PyInt>() {
            return self.int(i);
        }
        if let Ok(f) = obj.cast::<PyFloat>() {
            return self.float(f.value());
        }
        // Asking an unknown object for its attributes, and dumping a model, run Python code.
        self.python_may_run();
        if is_wire_model(obj) {
            return self.wire_model(obj, depth);
        }
        let name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_owned());
        Err(Failure::new(ErrorCode::Malformed, format!("a {name} is not a JSON value")))
    }

    /// A pydantic model (the MCP SDK's `Tool`, `CallToolResult`, …) read as the wire JSON it
    /// stands for: `model_dump(mode="json", by_alias=True, exclude_none=True)`, the SDK's own
    /// serialisation, then converted like any other value at the same level and with the same
    /// limits. The dump is a fresh plain value, so it cannot be the model again.
    fn wire_model(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> Converted {
        let py = obj.py();
        let name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_owned());
        let dumped = wire_dump(py, obj)
            .map_err(|e| Failure::new(ErrorCode::Malformed, format!("a {name} could not be read as JSON: {e}")))?;
        if dumped.is_exact_instance_of::<PyDict>() || dumped.is_exact_instance_of::<PyList>() {
            return self.convert(&dumped, depth);
        }
        Err(Failure::new(ErrorCode::Malformed, format!("a {name} did not dump to a JSON object")))
    }

    fn string(&mut self, s: &Bound<'_, PyString>) -> Converted {
        let text = s.to_str().map_err(|_| Failure::new(ErrorCode::Malformed, "a string with a lone surrogate"))?;
        self.spend(text.len() + 2)?;
        Ok(Value::String(text.to_owned()))
    }

    fn int(&mut self, i: &Bound<'_, PyInt>) -> Converted {
        self.spend(8)?;
        if let Ok(n) = i.extract::<i64>() {
            return Ok(Value::from(n));
        }
        if let Ok(n) = i.extract::<u64>() {
            return Ok(Value::from(n));
        }
        // Beyond 64 bits: the nearest double, as the core's text parser reads the same digits
        // (and `JSON.parse`); what is checked is that double, so the int is never handed back.
        self.impure += 1;
        let too_large = || Failure::new(ErrorCode::Malformed, "an integer too large for a JSON number");
        let f = i.extract::<f64>().map_err(|_| too_large())?;
        Number::from_f64(f).map(Value::Number).ok_or_else(too_large)
    }

    fn float(&mut self, f: f64) -> Converted {
        self.spend(8)?;
        Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| Failure::new(ErrorCode::Malformed, format!("{f} is not a JSON number")))
    }

    /// A container past the depth cap: a recursive structure, or one the core rejects as too deep.
    fn too_deep(&self, obj: &Bound<'_, PyAny>) -> Result<(), Box<Failure>> {
        if self.ancestors.contains(&(obj.as_ptr() as usize)) {
            return Err(Failure::new(ErrorCode::Malformed, "a recursive structure (a container that contains itself)"));
        }
        Ok(())
    }

    fn list(
        &mut self,
        obj: &Bound<'py, PyAny>,
        len: usize,
        item: impl Fn(usize) -> PyResult<Bound<'py, PyAny>>,
        depth: usize,
    ) -> Converted {
        if depth > self.caps.depth {
            self.too_deep(obj)?;
            return Ok(Value::Array(Vec::new()));
        }
        if len >= self.caps.array_len {
            remember_length(true, len);
        }
        let len = len.min(self.caps.array_len);
        self.spend(len + 2)?;
        let impure_before = self.impure;
        let slot = self.record(obj, depth, obj.is_exact_instance_of::<PyList>());
        self.ancestors.push(obj.as_ptr() as usize);
        let mut out = Vec::with_capacity(len);
        for i in 0..len {
            let child = item(i).map_err(|_| Failure::new(ErrorCode::Malformed, "a list changed while converting"))?;
            let value = self.child(&child, depth + 1, PathSegment::Index(i)).map_err(|f| f.at(Segment::Index(i)))?;
            out.push(value);
        }
        self.ancestors.pop();
        self.recorded_walk(slot, impure_before);
        Ok(Value::Array(out))
    }

    fn dict(&mut self, d: &Bound<'py, PyDict>, depth: usize) -> Converted {
        if depth > self.caps.depth {
            self.too_deep(d.as_any())?;
            return Ok(Value::Object(Map::new()));
        }
        if d.len() >= self.caps.object_len {
            remember_length(false, d.len());
        }
        let len = d.len().min(self.caps.object_len);
        self.spend(len.saturating_mul(4) + 2)?;
        let impure_before = self.impure;
        let slot = self.record(d.as_any(), depth, d.is_exact_instance_of::<PyDict>());
        self.ancestors.push(d.as_ptr() as usize);
        let mut out = Map::with_capacity(len);
        for (key, item) in d.iter().take(len) {
            let key = match key.cast_exact::<PyString>() {
                Ok(key) => key,
                Err(_) => {
                    let Ok(key) = key.cast::<PyString>() else {
                        let shown = key.repr().map(|r| r.to_string()).unwrap_or_default();
                        return Err(Failure::new(
                            ErrorCode::Malformed,
                            format!("dict keys must be strings, not {shown}"),
                        ));
                    };
                    // A `str` subclass key: its text is read from its storage.
                    self.impure += 1;
                    key
                }
            };
            let key = key.to_str().map_err(|_| Failure::new(ErrorCode::Malformed, "a key with a lone surrogate"))?;
            self.spend(key.len())?;
            let value =
                self.child(&item, depth + 1, PathSegment::Key(key)).map_err(|f| f.at(Segment::Key(key.to_owned())))?;
            if out.insert(key.to_owned(), value).is_some() {
                self.collided = true;
            }
        }
        self.ancestors.pop();
        self.recorded_walk(slot, impure_before);
        Ok(Value::Object(out))
    }
}

/// Whether `obj` is a pydantic (v2) model: its class carries the pydantic-core serializer. Duck
/// typed, so that pydantic stays an optional dependency.
pub(crate) fn is_wire_model(obj: &Bound<'_, PyAny>) -> bool {
    obj.get_type().hasattr("__pydantic_serializer__").unwrap_or(false) && obj.hasattr("model_dump").unwrap_or(false)
}

/// The wire JSON of a pydantic model as plain Python objects.
pub(crate) fn wire_dump<'py>(py: Python<'py>, obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = PyDict::new(py);
    kwargs.set_item("mode", "json")?;
    kwargs.set_item("by_alias", true)?;
    kwargs.set_item("exclude_none", true)?;
    obj.call_method("model_dump", (), Some(&kwargs))
}

/// Converts one argument of the core with its limits; error paths are relative to the argument,
/// as the core's are. Also answers the core's byte estimate of the value.
pub(crate) fn argument(obj: &Bound<'_, PyAny>, limits: &Limits) -> Result<(Value, usize), Error> {
    let mut conv = Converter::new(Caps::for_argument(limits));
    let value = conv.convert(obj, 1).map_err(|f| f.into_error(""))?;
    Ok((value, conv.spent()))
}

/// JSON text given as `str` or `bytes`, if `obj` is one.
pub(crate) enum Text<'a> {
    Str(&'a str),
    Bytes(&'a [u8]),
}

impl Text<'_> {
    /// The length of the text in bytes.
    pub fn len(&self) -> usize {
        match self {
            Text::Str(s) => s.len(),
            Text::Bytes(b) => b.len(),
        }
    }
}

/// Reads `obj` as JSON text when it is a `str` or `bytes`.
pub(crate) fn as_text<'a>(obj: &'a Bound<'_, PyAny>) -> Result<Option<Text<'a>>, Error> {
    if let Ok(s) = obj.cast::<PyString>() {
        let text = s.to_str().map_err(|_| Error::new(ErrorCode::Malformed, "", "JSON text with a lone surrogate"))?;
        return Ok(Some(Text::Str(text)));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(Text::Bytes(b.as_bytes())));
    }
    Ok(None)
}

/// A JSON value as plain Python objects (dict, list, str, int, float, bool, None).
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(members) => {
            let dict = PyDict::new(py);
            for (key, item) in members {
                dict.set_item(PyString::new(py, key), to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// The containers a conversion recorded, in the order converted (see `Converter::recorded`).
pub(crate) type Recorded<'py> = Vec<Option<Bound<'py, PyAny>>>;

/// The Python objects that the dicts and lists within some levels of a converted value were
/// converted from, by the address of the converted value: results handed back "as received"
/// are the caller's own objects, not copies. Recorded while converting (no lookup afterwards,
/// which could run Python code), so that another thread or a key's `__eq__` replacing a member
/// of the caller's objects cannot put an object that was never checked into the answer. Only
/// plain `dict` and `list` objects are kept (a subclass is handed back as a copy).
pub(crate) struct Originals<'py>(Vec<(usize, Bound<'py, PyAny>)>);

impl<'py> Originals<'py> {
    /// Pairs `recorded` (from [`argument_keeping`] with `levels`) with the containers of
    /// `root`, walked in the order they were converted.
    pub fn new(root: &Value, levels: usize, recorded: Recorded<'py>) -> Self {
        let mut containers = Vec::with_capacity(recorded.len());
        let mut stack = vec![(root, 0usize)];
        while let Some((value, level)) = stack.pop() {
            match value {
                Value::Object(members) => {
                    containers.push(std::ptr::from_ref(value) as usize);
                    if level < levels {
                        stack.extend(members.values().rev().map(|item| (item, level + 1)));
                    }
                }
                Value::Array(items) => {
                    containers.push(std::ptr::from_ref(value) as usize);
                    if level < levels {
                        stack.extend(items.iter().rev().map(|item| (item, level + 1)));
                    }
                }
                _ => {}
            }
        }
        if containers.len() != recorded.len() {
            return Originals(Vec::new());
        }
        let mut found: Vec<(usize, Bound<'py, PyAny>)> =
            containers.into_iter().zip(recorded).filter_map(|(address, obj)| Some((address, obj?))).collect();
        found.sort_by_key(|(address, _)| *address);
        Originals(found)
    }

    /// Whether no object is handed back as itself.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The object `value` (a value inside the converted root) was converted from.
    pub fn get(&self, value: &Value) -> Option<&Bound<'py, PyAny>> {
        let address = std::ptr::from_ref(value) as usize;
        let i = self.0.binary_search_by_key(&address, |(a, _)| *a).ok()?;
        self.0.get(i).map(|(_, obj)| obj)
    }
}

/// The structured payloads of one argument kept as the caller's objects: each is named in the
/// converted value by a placeholder, a number no conversion could be mistaken for in practice
/// (a per-call random tag with the top bit set, and the slot in the low bits), which the core
/// never reads (it asks `payload::PySeam`) and copies only where it hands a payload back.
/// (`Kept::default()` keeps nothing: its tag 0 matches no placeholder.)
#[derive(Debug, Default)]
pub(crate) struct Kept<'py> {
    tag: u64,
    objects: Vec<Bound<'py, PyAny>>,
}

/// Payloads larger than this (the core's byte estimate) are converted rather than kept, when
/// the answer does not carry the caller's objects otherwise (`check`, `respond`): a kept payload
/// is validated with the GIL held, a converted one with it released (`DETACH_BYTES`), and past
/// this size letting other threads run is worth more than the copy saved. A route that records
/// originals keeps payloads of any size: it holds the GIL until it hands them back.
const KEEP_MAX_BYTES: usize = 1024 * 1024;

/// The low bits of a placeholder that hold its slot.
const SLOT_BITS: u32 = 16;

impl<'py> Kept<'py> {
    fn new() -> Self {
        use std::hash::{BuildHasher, Hasher};
        // `RandomState` is seeded from the OS per thread and stepped per instance: a tag the
        // caller cannot predict, so no number of theirs is taken for a placeholder.
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(0x6d63_702d_6f75_7470);
        let tag = (hasher.finish() | (1 << 63)) & !((1u64 << SLOT_BITS) - 1);
        Kept { tag, objects: Vec::new() }
    }

    /// Keeps `obj`; its placeholder, or `None` when no slot is left (the payload is converted).
    fn keep(&mut self, obj: &Bound<'py, PyAny>) -> Option<Value> {
        let slot = u64::try_from(self.objects.len()).ok().filter(|slot| *slot < (1 << SLOT_BITS))?;
        if self.tag == 0 {
            return None;
        }
        self.objects.push(obj.clone());
        Some(Value::from(self.tag | slot))
    }

    /// The object `value` stands for, when it is one of these placeholders.
    pub fn get(&self, value: &Value) -> Option<&Bound<'py, PyAny>> {
        let n = value.as_u64()?;
        if self.tag == 0 || n & !((1u64 << SLOT_BITS) - 1) != self.tag {
            return None;
        }
        self.objects.get(usize::try_from(n & ((1u64 << SLOT_BITS) - 1)).ok()?)
    }

    /// Whether any payload was kept.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }
}

/// Converts one argument like [`argument`], keeping the payloads at `positions` (where the core
/// says they sit) as the caller's objects.
/// With `levels`, also records the Python objects that its dicts and lists within that many
/// levels were converted from ([`Originals`]), and keeps payloads of any size (the caller then
/// holds the GIL until the answer is made). Answers the value, the core's byte estimate of the
/// argument (kept payloads included), the recorded containers and the kept payloads.
///
/// When Python code may have run after some of the caller's objects were kept or recorded, the
/// argument is converted again, keeping and recording nothing: the answer is then a snapshot.
pub(crate) fn argument_keeping<'py>(
    obj: &Bound<'py, PyAny>,
    limits: &Limits,
    positions: &'static [&'static [Step]],
    levels: Option<usize>,
) -> Result<(Value, usize, Recorded<'py>, Kept<'py>), Error> {
    let mut conv = Converter::keeping(Caps::for_argument(limits), positions);
    conv.record_depth = levels.map_or(0, |levels| levels.saturating_add(1));
    if levels.is_some() {
        conv.keep_max = usize::MAX;
    }
    let value = conv.convert(obj, 1).map_err(|f| f.into_error(""))?;
    if conv.tainted {
        let (value, spent) = argument(obj, limits)?;
        return Ok((value, spent, Vec::new(), Kept::default()));
    }
    let recorded = if conv.collided { Vec::new() } else { std::mem::take(&mut conv.recorded) };
    let spent = conv.spent();
    Ok((value, spent, recorded, conv.into_kept()))
}

/// [`to_py`], with each placeholder of `kept` written as the caller's own object.
pub(crate) fn to_py_kept<'py>(py: Python<'py>, value: &Value, kept: &Kept<'py>) -> PyResult<Bound<'py, PyAny>> {
    if kept.is_empty() {
        return to_py(py, value);
    }
    Ok(match value {
        Value::Number(_) => match kept.get(value) {
            Some(obj) => obj.clone(),
            None => to_py(py, value)?,
        },
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py_kept(py, item, kept)?)?;
            }
            list.into_any()
        }
        Value::Object(members) => {
            let dict = PyDict::new(py);
            for (key, item) in members {
                dict.set_item(PyString::new(py, key), to_py_kept(py, item, kept)?)?;
            }
            dict.into_any()
        }
        _ => to_py(py, value)?,
    })
}
