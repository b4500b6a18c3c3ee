//! Any Python value the binding accepts, as the core reads it (issue 21, "one reader"): a JSON
//! representation (`mcp_outputs::node`) for what is not read in place (`crate::plain` takes plain
//! values only): a value that is not plain (a subclass, a tuple, a model, an integer beyond 64
//! bits), the requested outputs, the legacy rule and the cold paths (declarations, tools/list,
//! options). The binding only adapts types: each object is classified once, when its container
//! hands it out, into a JSON kind. The core does the rest: its limits walk
//! (`Limits::check_node`) is the only one, and the value is its snapshot (`Node::to_value`).
//!
//! How an object is read:
//! - exact JSON types, and subclasses of `dict`, `list`, `str`, `int` and `float`, from their
//!   C-level storage, never through their Python overrides; tuples as arrays;
//! - an integer beyond the 64-bit range as the nearest double, as the core's text parser reads
//!   its digits (one answer for bytes and for objects);
//! - a pydantic model (the MCP SDK's `Tool`, `CallToolResult`, …) as the wire JSON it stands
//!   for: its `model_dump` (see [`wire_dump`]), once per call. The dump is kept for the call
//!   (`Scope`): the limits walk and the snapshot read the same dump, and a node keeps the object it
//!   reads alive itself.
//! - anything JSON cannot hold (a non-string key, NaN or an infinity, a lone surrogate, an
//!   integer too large for a double, any other type) is a fault: the node reads as a null that
//!   costs more than any byte budget, so the limits walk stops at it, in its order, and the fault
//!   is reported `malformed` at the path of the value (the walk's path, plus the node's own
//!   segment).
//!
//! A container that contains itself is not JSON either: the limits walk stops it at the depth
//! cap, and when that path passes through one container twice the error is `malformed`
//! ("recursive structure").

use jsonschema::json::{Array, Json, Node, NodeIdentity, Object};
use mcp_outputs::node::{JsonType, Names, Source};
use mcp_outputs::{Error, ErrorCode, Limits, MAX_DEPTH_CEILING};
use pyo3::prelude::*;
use pyo3::types::iter::BoundDictIterator;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::OnceLock;

/// Reads one argument of the core (found at nesting level 1): the core's limits walk over the
/// caller's objects, then the snapshot. Also answers the core's byte estimate of the value.
pub(crate) fn argument(obj: &Bound<'_, PyAny>, limits: &Limits) -> Result<(Value, usize), Error> {
    read(obj, limits, 1)
}

/// Reads `obj`, found at nesting level `depth`, under `limits`; error paths are relative to
/// `obj`.
pub(crate) fn read(obj: &Bound<'_, PyAny>, limits: &Limits, depth: usize) -> Result<(Value, usize), Error> {
    let _scope = Scope::enter();
    // A fault costs `usize::MAX`: a budget of `usize::MAX` would pay it once. No input is that
    // large, so one byte less changes nothing else.
    let capped;
    let limits = if limits.max_bytes == usize::MAX {
        capped = Limits { max_bytes: usize::MAX - 1, ..limits.clone() };
        &capped
    } else {
        limits
    };
    let root = LenientNode::new(obj.clone(), || None);
    if let Err(error) = limits.check_node::<PyLenient>(&root, depth, "") {
        return Err(explained(&root, error));
    }
    let mut size = 0;
    let value = root.snapshot(&mut size, depth);
    if let Some(fault) = STATE.with(|state| state.borrow_mut().fault.take()) {
        return Err(Error::new(ErrorCode::Malformed, "", fault.message));
    }
    Ok((value, size))
}

/// The limits walk's error as the caller's value explains it: the fault it stopped at, a
/// recursive structure, or the error itself.
#[cold]
fn explained(root: &LenientNode<'_>, error: Error) -> Error {
    if let Some(fault) = STATE.with(|state| state.borrow_mut().fault.take()) {
        let mut path = error.path().to_owned();
        match fault.at {
            Some(Segment::Index(i)) => {
                path.push('/');
                path.push_str(&i.to_string());
            }
            Some(Segment::Key(key)) => {
                path.push('/');
                path.push_str(&key.replace('~', "~0").replace('/', "~1"));
            }
            None => {}
        }
        return Error::new(ErrorCode::Malformed, path, fault.message);
    }
    if error.code() == ErrorCode::LimitExceeded && error.over().is_none() && passes_twice(root, error.path()) {
        return Error::new(
            ErrorCode::Malformed,
            error.path(),
            "a recursive structure (a container that contains itself)",
        );
    }
    error
}

/// Whether the containers from `root` down to `path` (a JSON Pointer) include one twice.
fn passes_twice(root: &LenientNode<'_>, path: &str) -> bool {
    let mut seen = vec![root.object.as_ptr()];
    let mut node = root.clone();
    for token in path.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        let next = if let Some(object) = node.as_object() {
            object.members().find(|(name, _)| *name == token).map(|(_, child)| child)
        } else if let Some(array) = node.as_array() {
            token.parse::<usize>().ok().and_then(|i| array.elements().nth(i))
        } else {
            None
        };
        let Some(next) = next else { return false };
        if seen.contains(&next.object.as_ptr()) {
            return true;
        }
        seen.push(next.object.as_ptr());
        node = next;
    }
    false
}

/// What one read keeps: the models it dumped (each with its dump, read by every walk of the
/// call) and the fault the limits walk stopped at.
#[derive(Default)]
struct State {
    dumps: Vec<(Py<PyAny>, Py<PyAny>)>,
    fault: Option<Fault>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// One read's state, the enclosing one's restored when it ends (a model's `model_dump` may call
/// the binding again).
struct Scope(Option<State>);

impl Scope {
    fn enter() -> Self {
        Scope(Some(STATE.with(|state| state.replace(State::default()))))
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let outer = self.0.take().unwrap_or_default();
        // Released after the borrow ends: dropping a dump can run Python code.
        let ended = STATE.with(|state| state.replace(outer));
        drop(ended);
    }
}

/// Where a fault is, below the container the limits walk names.
#[derive(Clone, Debug)]
enum Segment {
    Index(usize),
    Key(String),
}

/// A value JSON cannot hold.
#[derive(Clone, Debug)]
struct Fault {
    message: String,
    at: Option<Segment>,
}

/// The representation: any Python value the binding accepts.
pub(crate) struct PyLenient;

impl Json for PyLenient {
    type Node<'py> = LenientNode<'py>;
    type PreparedKey = Py<PyString>;
    type StringBuffer = ();

    fn prepare_key(key: &str) -> Py<PyString> {
        Python::attach(|py| PyString::new(py, key).unbind())
    }

    fn with_string_node<T>((): &mut (), string: &str, f: impl FnOnce(LenientNode<'_>) -> T) -> T {
        Python::attach(|py| f(LenientNode { object: PyString::new(py, string).into_any(), kind: Kind::Str }))
    }
}

impl Source for PyLenient {
    fn names() -> &'static Names<Self> {
        static NAMES: OnceLock<Names<PyLenient>> = OnceLock::new();
        NAMES.get_or_init(Names::prepare)
    }

    /// A fault costs more than any budget: the limits walk stops at it, and the read reports it.
    fn held_cost(node: &LenientNode<'_>) -> Option<usize> {
        match &node.kind {
            Kind::Fault(fault) => {
                STATE.with(|state| state.borrow_mut().fault = Some(Fault::clone(fault)));
                Some(usize::MAX)
            }
            _ => None,
        }
    }
}

/// What a Python object is read as, decided once.
#[derive(Clone)]
enum Kind {
    Null,
    Bool(bool),
    Number(Number),
    Str,
    List,
    Tuple,
    Dict,
    Fault(Box<Fault>),
}

/// One object, and what it is read as (for a model, the object is its dump).
#[derive(Clone)]
pub(crate) struct LenientNode<'py> {
    object: Bound<'py, PyAny>,
    kind: Kind,
}

impl<'py> LenientNode<'py> {
    /// Classifies `object`; `at` is where a fault would be, below its container.
    fn new(object: Bound<'py, PyAny>, at: impl FnOnce() -> Option<Segment>) -> Self {
        match classify(&object) {
            Ok(Some(kind)) => LenientNode { object, kind },
            Ok(None) => model(object, at),
            Err(message) => LenientNode::fault(object, message, at()),
        }
    }

    fn fault(object: Bound<'py, PyAny>, message: String, at: Option<Segment>) -> Self {
        LenientNode { object, kind: Kind::Fault(Box::new(Fault { message, at })) }
    }

    /// The text of a string node (checked when it was classified).
    fn text(&self) -> Option<String> {
        match self.kind {
            Kind::Str => self.object.cast::<PyString>().ok().and_then(|s| s.to_str().ok()).map(str::to_owned),
            _ => None,
        }
    }

    /// The value, found at nesting `level`, and the core's byte estimate of it added to `size`
    /// (the same costs as the limits walk's). Python code a model runs during the limits walk
    /// (its `model_dump`) may change what the walk already read, into a value too deep or one
    /// that contains itself: the snapshot never goes deeper than any setting allows, and such
    /// a change is a fault.
    fn snapshot(&self, size: &mut usize, level: usize) -> Value {
        if level > MAX_DEPTH_CEILING {
            let message = "a value changed while it was read (by Python code the read ran)".to_owned();
            STATE.with(|state| state.borrow_mut().fault = Some(Fault { message, at: None }));
            return Value::Null;
        }
        match &self.kind {
            Kind::Null | Kind::Fault(_) => {
                *size += 8;
                Value::Null
            }
            Kind::Bool(b) => {
                *size += 8;
                Value::Bool(*b)
            }
            Kind::Number(n) => {
                *size += 8;
                Value::Number(n.clone())
            }
            Kind::Str => {
                let text = self.text().unwrap_or_default();
                *size += text.len() + 2;
                Value::String(text)
            }
            Kind::List | Kind::Tuple => {
                let Some(array) = self.as_array() else { return Value::Null };
                *size += array.len() + 2;
                Value::Array(array.elements().map(|item| item.snapshot(size, level + 1)).collect())
            }
            Kind::Dict => {
                let Some(object) = self.as_object() else { return Value::Null };
                *size += object.len() * 4 + 2;
                let mut members = Map::with_capacity(object.len());
                for (key, item) in object.members() {
                    *size += key.len();
                    members.insert(key.into_owned(), item.snapshot(size, level + 1));
                }
                Value::Object(members)
            }
        }
    }
}

/// The kind of `object`: `None` for a pydantic model, a message for what JSON cannot hold.
/// Exact types first, the common ones first; subclasses after.
#[inline]
fn classify(object: &Bound<'_, PyAny>) -> Result<Option<Kind>, String> {
    if let Ok(s) = object.cast_exact::<PyString>() {
        return string(s).map(Some);
    }
    if object.is_exact_instance_of::<PyDict>() {
        return Ok(Some(Kind::Dict));
    }
    if object.is_exact_instance_of::<PyList>() {
        return Ok(Some(Kind::List));
    }
    if object.is_none() {
        return Ok(Some(Kind::Null));
    }
    if let Ok(b) = object.cast_exact::<PyBool>() {
        return Ok(Some(Kind::Bool(b.is_true())));
    }
    if let Ok(i) = object.cast_exact::<PyInt>() {
        return int(i).map(Some);
    }
    if let Ok(f) = object.cast_exact::<PyFloat>() {
        return float(f.value()).map(Some);
    }
    subclass(object)
}

#[cold]
fn subclass(object: &Bound<'_, PyAny>) -> Result<Option<Kind>, String> {
    // Not exactly a JSON type: read from its storage, and never handed back as itself. bool is
    // a subclass of int and cannot itself be subclassed: it was handled above.
    if let Ok(s) = object.cast::<PyString>() {
        return string(s).map(Some);
    }
    if object.is_instance_of::<PyDict>() {
        return Ok(Some(Kind::Dict));
    }
    if object.is_instance_of::<PyList>() {
        return Ok(Some(Kind::List));
    }
    if object.is_instance_of::<PyTuple>() {
        return Ok(Some(Kind::Tuple));
    }
    if let Ok(i) = object.cast::<PyInt>() {
        return int(i).map(Some);
    }
    if let Ok(f) = object.cast::<PyFloat>() {
        return float(f.value()).map(Some);
    }
    if is_wire_model(object) {
        return Ok(None);
    }
    Err(format!("a {} is not a JSON value", type_name(object)))
}

fn type_name(object: &Bound<'_, PyAny>) -> String {
    object.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_owned())
}

fn string(s: &Bound<'_, PyString>) -> Result<Kind, String> {
    match s.to_str() {
        Ok(_) => Ok(Kind::Str),
        Err(_) => Err("a string with a lone surrogate".to_owned()),
    }
}

fn int(i: &Bound<'_, PyInt>) -> Result<Kind, String> {
    if let Ok(n) = i.extract::<i64>() {
        return Ok(Kind::Number(Number::from(n)));
    }
    if let Ok(n) = i.extract::<u64>() {
        return Ok(Kind::Number(Number::from(n)));
    }
    // Beyond 64 bits: the nearest double, as the core's text parser reads the same digits (and
    // `JSON.parse`); what is checked is that double, so the int is never handed back.
    let too_large = || "an integer too large for a JSON number".to_owned();
    let f = i.extract::<f64>().map_err(|_| too_large())?;
    Number::from_f64(f).map(Kind::Number).ok_or_else(too_large)
}

fn float(f: f64) -> Result<Kind, String> {
    Number::from_f64(f).map(Kind::Number).ok_or_else(|| format!("{f} is not a JSON number"))
}

/// A pydantic model read as its dump, made once per read (the same dump for every walk).
#[cold]
fn model<'py>(object: Bound<'py, PyAny>, at: impl FnOnce() -> Option<Segment>) -> LenientNode<'py> {
    let py = object.py();
    let kept = STATE.with(|state| {
        state.borrow().dumps.iter().find(|(model, _)| model.is(&object)).map(|(_, dump)| dump.clone_ref(py))
    });
    let dumped = match kept {
        Some(dump) => Ok(dump.into_bound(py)),
        None => {
            // The dump runs Python code: no borrow of the state is held across it.
            let dumped = wire_dump(py, &object);
            if let Ok(dump) = &dumped {
                STATE.with(|state| state.borrow_mut().dumps.push((object.clone().unbind(), dump.clone().unbind())));
            }
            dumped
        }
    };
    let name = type_name(&object);
    match dumped {
        // The dump is a fresh plain value, so it cannot be the model again.
        Ok(dump) if dump.is_exact_instance_of::<PyDict>() || dump.is_exact_instance_of::<PyList>() => {
            LenientNode::new(dump, at)
        }
        Ok(_) => LenientNode::fault(object, format!("a {name} did not dump to a JSON object"), at()),
        Err(e) => LenientNode::fault(object, format!("a {name} could not be read as JSON: {e}"), at()),
    }
}

/// Whether `obj` is a pydantic (v2) model: its class carries the pydantic-core serializer. Duck
/// typed, so that pydantic stays an optional dependency.
fn is_wire_model(obj: &Bound<'_, PyAny>) -> bool {
    obj.get_type().hasattr("__pydantic_serializer__").unwrap_or(false) && obj.hasattr("model_dump").unwrap_or(false)
}

/// The wire JSON of a pydantic model as plain Python objects: `model_dump(mode="json",
/// by_alias=True, exclude_none=True)`, the SDK's own serialisation.
fn wire_dump<'py>(py: Python<'py>, obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = PyDict::new(py);
    kwargs.set_item("mode", "json")?;
    kwargs.set_item("by_alias", true)?;
    kwargs.set_item("exclude_none", true)?;
    obj.call_method("model_dump", (), Some(&kwargs))
}

impl<'py> Node<'py, PyLenient> for LenientNode<'py> {
    type Object = LenientObject<'py>;
    type Array = LenientArray<'py>;
    type Number = Number;

    fn as_object(&self) -> Option<LenientObject<'py>> {
        match self.kind {
            Kind::Dict => self.object.cast::<PyDict>().ok().cloned().map(LenientObject),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<LenientArray<'py>> {
        match self.kind {
            Kind::List => self.object.cast::<PyList>().ok().cloned().map(LenientArray::List),
            Kind::Tuple => self.object.cast::<PyTuple>().ok().cloned().map(LenientArray::Tuple),
            _ => None,
        }
    }

    fn as_string(&self) -> Option<Cow<'py, str>> {
        self.text().map(Cow::Owned)
    }

    fn as_number(&self) -> Option<Number> {
        match &self.kind {
            Kind::Number(n) => Some(n.clone()),
            _ => None,
        }
    }

    fn as_boolean(&self) -> Option<bool> {
        match self.kind {
            Kind::Bool(b) => Some(b),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        matches!(self.kind, Kind::Null)
    }

    fn json_type(&self) -> JsonType {
        match self.kind {
            Kind::Null | Kind::Fault(_) => JsonType::Null,
            Kind::Bool(_) => JsonType::Boolean,
            Kind::Number(_) => JsonType::Number,
            Kind::Str => JsonType::String,
            Kind::List | Kind::Tuple => JsonType::Array,
            Kind::Dict => JsonType::Object,
        }
    }

    fn to_value(&self) -> Cow<'py, Value> {
        Cow::Owned(self.snapshot(&mut 0, 1))
    }

    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::new(self.object.as_ptr() as usize))
    }
}

/// A dict, or an instance of a subclass, read from its storage.
#[derive(Clone)]
pub(crate) struct LenientObject<'py>(Bound<'py, PyDict>);

impl<'py> Object<'py, PyLenient> for LenientObject<'py> {
    type Node = LenientNode<'py>;
    type MemberName = Cow<'py, str>;
    type MembersIter = LenientMembers<'py>;

    fn len(&self) -> usize {
        self.0.len()
    }

    fn get(&self, key: &Py<PyString>) -> Option<LenientNode<'py>> {
        let key = key.bind(self.0.py());
        let item = self.0.get_item(key).ok().flatten()?;
        Some(LenientNode::new(item, || key.to_str().ok().map(|k| Segment::Key(k.to_owned()))))
    }

    fn members(&self) -> LenientMembers<'py> {
        LenientMembers(self.0.iter())
    }
}

/// A dict's members in order; a key JSON cannot hold makes its member a fault, at the dict.
pub(crate) struct LenientMembers<'py>(BoundDictIterator<'py>);

impl<'py> Iterator for LenientMembers<'py> {
    type Item = (Cow<'py, str>, LenientNode<'py>);

    fn next(&mut self) -> Option<Self::Item> {
        let (key, item) = self.0.next()?;
        // A `str` subclass key: its text is read from its storage.
        let Ok(key) = key.cast::<PyString>() else {
            let shown = key.repr().map(|r| r.to_string()).unwrap_or_default();
            return Some((
                Cow::Borrowed(""),
                LenientNode::fault(item, format!("dict keys must be strings, not {shown}"), None),
            ));
        };
        let Ok(key) = key.to_str() else {
            return Some((Cow::Borrowed(""), LenientNode::fault(item, "a key with a lone surrogate".to_owned(), None)));
        };
        let key = key.to_owned();
        let node = LenientNode::new(item, || Some(Segment::Key(key.clone())));
        Some((Cow::Owned(key), node))
    }
}

/// A list or a tuple (or an instance of a subclass), read from its storage.
#[derive(Clone)]
pub(crate) enum LenientArray<'py> {
    List(Bound<'py, PyList>),
    Tuple(Bound<'py, PyTuple>),
}

impl<'py> Array<'py, PyLenient> for LenientArray<'py> {
    type Node = LenientNode<'py>;
    type ElementsIter = LenientElements<'py>;

    fn len(&self) -> usize {
        match self {
            LenientArray::List(list) => list.len(),
            LenientArray::Tuple(tuple) => tuple.len(),
        }
    }

    fn elements(&self) -> LenientElements<'py> {
        LenientElements { len: self.len(), array: self.clone(), next: 0 }
    }
}

/// An array's elements in order, as many as it held when the walk began.
pub(crate) struct LenientElements<'py> {
    array: LenientArray<'py>,
    len: usize,
    next: usize,
}

impl<'py> Iterator for LenientElements<'py> {
    type Item = LenientNode<'py>;

    fn next(&mut self) -> Option<LenientNode<'py>> {
        let i = self.next;
        if i >= self.len {
            return None;
        }
        self.next += 1;
        let item = match &self.array {
            LenientArray::List(list) => list.get_item(i),
            LenientArray::Tuple(tuple) => tuple.get_item(i),
        };
        let at = || Some(Segment::Index(i));
        Some(match item {
            Ok(item) => LenientNode::new(item, at),
            // Python code run by the read (a model's dump) shortened the list.
            Err(_) => {
                let py = match &self.array {
                    LenientArray::List(list) => list.py(),
                    LenientArray::Tuple(tuple) => tuple.py(),
                };
                LenientNode::fault(py.None().into_bound(py), "a list changed while it was read".to_owned(), at())
            }
        })
    }
}
