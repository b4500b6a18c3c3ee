//! The caller's Python objects as the core reads them (issue 21, "one reader"): a JSON
//! representation (`mcp_outputs::node`, jsonschema-value's traits) over plain values, the ones
//! `json.loads` makes: exact `dict` with exact `str` keys, `list`, `str`, `int` within 64 bits,
//! finite `float`, `bool` and `None`. The core's one limits walk, its envelope checks, the
//! validation and the mirror writer read them where they live, and its answers name the caller's
//! own objects.
//!
//! Anything else (a subclass, a tuple, an `Enum`, a model, an integer beyond 64 bits, a lone
//! surrogate) is not read as what its overrides say: the read marks the call ([`in_place`]
//! answers `None`), and the binding takes its snapshot path instead (docs/boundary.md, "The
//! Python payload guarantee"). No Python code runs during a read of plain values, and the GIL is
//! held throughout, so nothing changes them between the read and the hand-back.

use jsonschema::json::{inspect, Array, Json, Node, NodeIdentity, Object, Pyo3};
use mcp_outputs::node::{JsonType, Names, Source};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use pyo3::Borrowed;
use serde_json::Value;
use std::borrow::Cow;
use std::cell::Cell;
use std::sync::OnceLock;

thread_local! {
    /// Set by a read that met something other than a plain value.
    static NOT_PLAIN: Cell<bool> = const { Cell::new(false) };
}

fn not_plain() {
    NOT_PLAIN.with(|flag| flag.set(true));
}

/// Whether the read under way met something other than a plain value: its answer will be
/// dropped, so what is left of it (validation, mirror text) need not be done.
pub(crate) fn marked() -> bool {
    NOT_PLAIN.with(Cell::get)
}

/// Runs `read` over the caller's object `root`; `None` when it met something other than a
/// plain value (or something jsonschema's reader could not read), whose answer must then come
/// from a snapshot. A `limit-exceeded` answer comes from the snapshot too: a value that holds
/// itself reads as endlessly deep here, and the snapshot's reader tells it apart (`malformed`).
pub(crate) fn in_place<T>(
    root: &Bound<'_, PyAny>,
    read: impl FnOnce() -> Result<T, mcp_outputs::Error>,
) -> Option<Result<T, mcp_outputs::Error>> {
    NOT_PLAIN.with(|flag| flag.set(false));
    let mut read = Some(read);
    // `inspect` reports what jsonschema's reader records as unreadable (a lone surrogate, a key
    // of no string type) and keeps alive what a read of Python code could drop.
    let answer = inspect(root.as_borrowed(), false, || read.take().map(|read| read())).ok().flatten();
    let plain = !NOT_PLAIN.with(|flag| flag.replace(false));
    let answer =
        answer.filter(|answer| plain && !matches!(answer, Err(e) if e.code() == mcp_outputs::ErrorCode::LimitExceeded));
    crate::payload::settle(answer.is_some());
    answer
}

/// The representation: plain Python values, read in place.
pub(crate) struct PyPlain;

impl Json for PyPlain {
    type Node<'py> = PlainNode<'py>;
    type PreparedKey = Py<PyString>;
    type StringBuffer = ();

    fn prepare_key(key: &str) -> Py<PyString> {
        Pyo3::prepare_key(key)
    }

    fn with_string_node<T>(buffer: &mut (), string: &str, f: impl FnOnce(PlainNode<'_>) -> T) -> T {
        Pyo3::with_string_node(buffer, string, |node| f(PlainNode::new(node)))
    }
}

impl Source for PyPlain {
    fn names() -> &'static Names<Self> {
        static NAMES: OnceLock<Names<PyPlain>> = OnceLock::new();
        NAMES.get_or_init(Names::prepare)
    }

    // The limits walk's pass over a dict, with jsonschema's member cursor in the walk's own loop:
    // through `PlainMembers` each member was a call returning a tuple (docs/performance.md).
    #[inline(always)]
    fn all_members<'v>(object: &PlainObject<'v>, mut f: impl FnMut(&str, PlainNode<'v>) -> bool) -> bool {
        <Py3Dict<'v> as Object<'v, Pyo3>>::members(&object.0).all(|(name, value)| {
            if matches!(name, Cow::Owned(_)) {
                not_plain();
            }
            f(&name, PlainNode::new(value))
        })
    }

    // A leaf's cost from the kind the node was classified with, as the walk's `read` gives it
    // (strings their UTF-8 length and the quotes, any other leaf 8, and a value that is not plain
    // reads as a null): one test where `read` dispatched on `json_type` and then on its answer.
    #[inline(always)]
    fn leaf_cost(node: &PlainNode<'_>) -> Option<usize> {
        match node.kind {
            Kind::List | Kind::Dict => None,
            // Classified as an exact `str`: its UTF-8 text straight from the object (no lone
            // surrogate can have any, and then the read is not plain, as in `as_string`).
            Kind::Str => {
                let string = node.object.cast_exact::<PyString>().ok();
                match string.as_ref().and_then(|s| s.to_str().ok()) {
                    Some(text) => Some(text.len() + 2),
                    None => {
                        not_plain();
                        Some(2)
                    }
                }
            }
            Kind::Null | Kind::Bool | Kind::Number | Kind::Other => Some(8),
        }
    }
}

/// jsonschema's own reader of Python objects, which this one narrows to plain values.
pub(crate) type Py3<'py> = Borrowed<'py, 'py, PyAny>;
type Py3Dict<'py> = Borrowed<'py, 'py, PyDict>;
type Py3Array<'py> = <Py3<'py> as Node<'py, Pyo3>>::Array;
type Py3Elements<'py> = <Py3Array<'py> as Array<'py, Pyo3>>::ElementsIter;
type Py3Members<'py> = <Py3Dict<'py> as Object<'py, Pyo3>>::MembersIter;

/// What a Python object is, as far as plain values go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    Bool,
    Number,
    Str,
    List,
    Dict,
    Other,
}

/// The kind of `object`, marking the call when it is not plain. Exact types only: a subclass's
/// overrides could show something other than its storage.
#[inline]
fn kind(object: Py3<'_>) -> Kind {
    if object.is_exact_instance_of::<PyDict>() {
        Kind::Dict
    } else if object.is_exact_instance_of::<PyString>() {
        Kind::Str
    } else if object.is_exact_instance_of::<PyList>() {
        Kind::List
    } else if object.is_exact_instance_of::<PyInt>() {
        // Beyond 64 bits an integer is read as the nearest double (as `JSON.parse` reads its
        // digits): the snapshot path does that.
        if object.extract::<i64>().is_err() && object.extract::<u64>().is_err() {
            not_plain();
        }
        Kind::Number
    } else if object.is_exact_instance_of::<PyFloat>() {
        if !object.cast_exact::<PyFloat>().is_ok_and(|f| f.value().is_finite()) {
            not_plain();
        }
        Kind::Number
    } else if object.is_exact_instance_of::<PyBool>() {
        Kind::Bool
    } else if object.is_none() {
        Kind::Null
    } else {
        not_plain();
        Kind::Other
    }
}

/// One of the caller's objects, classified once, when the read first holds it: the limits walk
/// and the validator ask each node its type and then its content (docs/performance.md).
#[derive(Clone, Copy)]
pub(crate) struct PlainNode<'py> {
    object: Py3<'py>,
    kind: Kind,
}

impl<'py> PlainNode<'py> {
    /// The caller's `object`, classified (marking the call when it is not plain).
    #[inline]
    pub fn new(object: Py3<'py>) -> Self {
        PlainNode { object, kind: kind(object) }
    }

    /// The caller's object as jsonschema's own reader reads it.
    pub fn borrowed(&self) -> Py3<'py> {
        self.object
    }

    /// The caller's object itself, to hand back.
    pub fn object(&self) -> Bound<'py, PyAny> {
        self.object.to_owned()
    }
}

impl<'py> Node<'py, PyPlain> for PlainNode<'py> {
    type Object = PlainObject<'py>;
    type Array = PlainArray<'py>;
    type Number = <Py3<'py> as Node<'py, Pyo3>>::Number;

    fn as_object(&self) -> Option<PlainObject<'py>> {
        match self.kind {
            Kind::Dict => self.object.cast_exact::<PyDict>().ok().map(PlainObject),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<PlainArray<'py>> {
        match self.kind {
            Kind::List => <Py3<'py> as Node<'py, Pyo3>>::as_array(&self.object).map(PlainArray),
            _ => None,
        }
    }

    fn as_string(&self) -> Option<Cow<'py, str>> {
        if self.kind != Kind::Str {
            return None;
        }
        let text = <Py3<'py> as Node<'py, Pyo3>>::as_string(&self.object);
        if text.is_none() {
            // A lone surrogate: no UTF-8 text.
            not_plain();
        }
        text
    }

    fn as_number(&self) -> Option<Self::Number> {
        match self.kind {
            Kind::Number => <Py3<'py> as Node<'py, Pyo3>>::as_number(&self.object),
            _ => None,
        }
    }

    fn as_boolean(&self) -> Option<bool> {
        match self.kind {
            Kind::Bool => <Py3<'py> as Node<'py, Pyo3>>::as_boolean(&self.object),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        self.kind == Kind::Null
    }

    fn json_type(&self) -> JsonType {
        match self.kind {
            Kind::Null | Kind::Other => JsonType::Null,
            Kind::Bool => JsonType::Boolean,
            Kind::Number => JsonType::Number,
            Kind::Str => JsonType::String,
            Kind::List => JsonType::Array,
            Kind::Dict => JsonType::Object,
        }
    }

    fn string_length(&self) -> Option<u64> {
        match self.kind {
            Kind::Str => <Py3<'py> as Node<'py, Pyo3>>::string_length(&self.object),
            _ => None,
        }
    }

    fn equals_value(&self, expected: &Value) -> bool {
        <Py3<'py> as Node<'py, Pyo3>>::equals_value(&self.object, expected)
    }

    fn to_value(&self) -> Cow<'py, Value> {
        <Py3<'py> as Node<'py, Pyo3>>::to_value(&self.object)
    }

    fn identity(&self) -> Option<NodeIdentity> {
        <Py3<'py> as Node<'py, Pyo3>>::identity(&self.object)
    }
}

/// An exact dict.
#[derive(Clone, Copy)]
pub(crate) struct PlainObject<'py>(Py3Dict<'py>);

impl<'py> Object<'py, PyPlain> for PlainObject<'py> {
    type Node = PlainNode<'py>;
    type MemberName = Cow<'py, str>;
    type MembersIter = PlainMembers<'py>;

    fn len(&self) -> usize {
        <Py3Dict<'py> as Object<'py, Pyo3>>::len(&self.0)
    }

    fn get(&self, key: &Py<PyString>) -> Option<PlainNode<'py>> {
        <Py3Dict<'py> as Object<'py, Pyo3>>::get(&self.0, key).map(PlainNode::new)
    }

    fn members(&self) -> PlainMembers<'py> {
        PlainMembers(<Py3Dict<'py> as Object<'py, Pyo3>>::members(&self.0))
    }
}

/// A dict's members in order.
pub(crate) struct PlainMembers<'py>(Py3Members<'py>);

impl<'py> Iterator for PlainMembers<'py> {
    type Item = (Cow<'py, str>, PlainNode<'py>);

    // Inlined into the validator's loops: a call per member, returning a tuple, measured 7-9%
    // of a 64 KB route (docs/performance.md).
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let (name, value) = self.0.next()?;
        // jsonschema's reader borrows the text of an exact `str` key, and makes one for any
        // other key (a subclass, an `Enum`): such a key is not plain.
        if matches!(name, Cow::Owned(_)) {
            not_plain();
        }
        Some((name, PlainNode::new(value)))
    }
}

/// An exact list.
#[derive(Clone, Copy)]
pub(crate) struct PlainArray<'py>(Py3Array<'py>);

impl<'py> Array<'py, PyPlain> for PlainArray<'py> {
    type Node = PlainNode<'py>;
    type ElementsIter = PlainElements<'py>;

    fn len(&self) -> usize {
        <Py3Array<'py> as Array<'py, Pyo3>>::len(&self.0)
    }

    fn elements(&self) -> PlainElements<'py> {
        PlainElements(<Py3Array<'py> as Array<'py, Pyo3>>::elements(&self.0))
    }

    fn is_unique(&self) -> bool {
        <Py3Array<'py> as Array<'py, Pyo3>>::is_unique(&self.0)
    }
}

/// A list's elements in order.
pub(crate) struct PlainElements<'py>(Py3Elements<'py>);

impl<'py> Iterator for PlainElements<'py> {
    type Item = PlainNode<'py>;

    // Inlined into the validator's and the limits walk's loops, as `PlainMembers::next`.
    #[inline(always)]
    fn next(&mut self) -> Option<PlainNode<'py>> {
        self.0.next().map(PlainNode::new)
    }
}
