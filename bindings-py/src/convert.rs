//! Python objects to `serde_json::Value` and back, for what the core does not read in place
//! (`crate::plain` reads plain values where they live): the snapshot of a value that is not
//! plain (a subclass, a tuple, a model, an `Enum`, an integer beyond 64 bits), and the cold
//! paths (declarations, tools/list, options). The binding's own walker (exact type checks
//! first, no detour through `json.dumps` or serde), with the core's limits applied while
//! converting.
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
//! A value that is not exactly a JSON type is read from its C-level storage, never through its
//! Python overrides, and the answer carries the snapshot that was checked (docs/boundary.md).

use mcp_outputs::{Error, ErrorCode, Limits};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};
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
    /// The containers on the current path, to tell a recursive structure from a deep one.
    ancestors: Vec<usize>,
    marker: std::marker::PhantomData<Bound<'py, PyAny>>,
}

/// Boxed, so that the happy path moves a `Value`-sized result.
type Converted = Result<Value, Box<Failure>>;

impl<'py> Converter<'py> {
    pub fn new(caps: Caps) -> Self {
        let budget = caps.bytes.unwrap_or(usize::MAX);
        Converter { caps, budget, ancestors: Vec::new(), marker: std::marker::PhantomData }
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
        self.ancestors.push(obj.as_ptr() as usize);
        let mut out = Vec::with_capacity(len);
        for i in 0..len {
            let child = item(i).map_err(|_| Failure::new(ErrorCode::Malformed, "a list changed while converting"))?;
            let value = self.convert(&child, depth + 1).map_err(|f| f.at(Segment::Index(i)))?;
            out.push(value);
        }
        self.ancestors.pop();
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
                    key
                }
            };
            let key = key.to_str().map_err(|_| Failure::new(ErrorCode::Malformed, "a key with a lone surrogate"))?;
            self.spend(key.len())?;
            let value = self.convert(&item, depth + 1).map_err(|f| f.at(Segment::Key(key.to_owned())))?;
            out.insert(key.to_owned(), value);
        }
        self.ancestors.pop();
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
