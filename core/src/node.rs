//! The one reader (issue 21): the per-call path (check, route) reads a caller's value where it
//! lives, through jsonschema-value's trait family (`Json`, `Node`, `Object`, `Array`), the same
//! one the validator reads. A `serde_json::Value` is one representation ([`SerdeJson`]); a
//! binding's own objects are another (Python's, through jsonschema's `Pyo3`). The limits walk,
//! the envelope checks and the validation read the same nodes, and the answers name the caller's
//! nodes, so a binding hands back its caller's own objects without a tree of its own.

use crate::error::Result;
use crate::schema::CompiledSchema;
pub use jsonschema_value::{types::JsonType, Array, Json, JsonNumber, Node, Object, SerdeJson};
use std::borrow::Cow;
use std::sync::OnceLock;

/// A node of the representation `F`.
pub type NodeOf<'v, F> = <F as Json>::Node<'v>;
/// An object node of the representation `F`.
pub type ObjectOf<'v, F> = <NodeOf<'v, F> as Node<'v, F>>::Object;
/// An array node of the representation `F`.
pub type ArrayOf<'v, F> = <NodeOf<'v, F> as Node<'v, F>>::Array;

/// A JSON representation the per-call path reads.
pub trait Source: Json {
    /// Whether a node's `to_value` borrows a `serde_json::Value` the representation already
    /// holds: such payloads are validated by the schema's own validator, with no second one
    /// built for the representation.
    const HOLDS_VALUES: bool = false;

    /// The protocol's member names, prepared once for this representation (a lookup by a
    /// prepared key is a hash probe with a cached hash in Python, a scan of a few keys in Rust).
    fn names() -> &'static Names<Self>;
}

impl Source for SerdeJson {
    const HOLDS_VALUES: bool = true;

    fn names() -> &'static Names<Self> {
        static NAMES: OnceLock<Names<SerdeJson>> = OnceLock::new();
        NAMES.get_or_init(Names::prepare)
    }
}

macro_rules! names {
    ($($field:ident = $name:literal),* $(,)?) => {
        /// The member names the per-call path looks up, as keys prepared for one representation.
        pub struct Names<F: Json> {
            $(pub(crate) $field: F::PreparedKey,)*
        }

        impl<F: Json> std::fmt::Debug for Names<F> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("Names")
            }
        }

        impl<F: Json> Names<F> {
            /// Prepares every name (a representation's `names()` does this once).
            pub fn prepare() -> Self {
                Names { $($field: F::prepare_key($name),)* }
            }
        }
    };
}

names! {
    outputs = "outputs",
    audience = "audience",
    format = "format",
    content = "content",
    structured_content = "structuredContent",
    is_error = "isError",
    meta = "_meta",
    result_type = "resultType",
    input_requests = "inputRequests",
    request_state = "requestState",
    kind = "type",
    text = "text",
    data = "data",
    mime_type = "mimeType",
    uri = "uri",
    name = "name",
    resource = "resource",
    blob = "blob",
    annotations = "annotations",
    apps = "io.modelcontextprotocol/ui",
}

/// The member `key` of `node`, when `node` is an object that has it.
#[inline]
pub(crate) fn field<'v, F: Json>(node: &NodeOf<'v, F>, key: &F::PreparedKey) -> Option<NodeOf<'v, F>> {
    node.as_object().and_then(|object| object.get(key))
}

/// What a member holds, as the envelope checks tell it apart.
pub(crate) enum Member<'v, F: Json> {
    Absent,
    String(Cow<'v, str>),
    Other(NodeOf<'v, F>),
}

/// The member `key` of an object, read as a string when it is one.
#[inline]
pub(crate) fn string_member<'v, F: Json>(object: &ObjectOf<'v, F>, key: &F::PreparedKey) -> Member<'v, F> {
    match object.get(key) {
        None => Member::Absent,
        Some(node) => match node.as_string() {
            Some(text) => Member::String(text),
            None => Member::Other(node),
        },
    }
}

/// `node` as a `serde_json::Value` (borrowed where the representation holds one): for the
/// answers that copy a caller's value, and for cold paths.
#[inline]
pub fn to_value<'v, F: Json>(node: &NodeOf<'v, F>) -> Cow<'v, serde_json::Value> {
    node.to_value()
}

/// Validates a structured payload where it lives, with [`CompiledSchema::validate`]'s errors.
/// Without the `validator` feature, or for a schema whose patterns need the regex budget, the
/// payload is validated as a value.
pub fn validate<'v, F: Source>(schema: &CompiledSchema, node: &NodeOf<'v, F>, path: &str, what: &str) -> Result<()> {
    #[cfg(feature = "validator")]
    if !F::HOLDS_VALUES {
        if let Some(validator) = schema.validator_in::<F>()? {
            return schema.validate_in(validator, node.clone(), path, what);
        }
    }
    schema.validate(&node.to_value(), path, what)
}

/// The payload as `JSON.stringify` writes it, for the legacy mirror. A node of no JSON type (a
/// representation reads its caller's objects as they come) is written from its value.
pub fn stringify<'v, F: Json>(node: &NodeOf<'v, F>) -> String {
    crate::jsontext::stringify_node::<F, _>(node).unwrap_or_else(|| crate::jsontext::stringify(&node.to_value()))
}

/// An answer of the per-call path (a route, a responded result) in terms of the caller's value:
/// the one mechanism by which every binding hands back its caller's own objects. Each
/// [`Out::Node`] is a node of the caller's value, handed back as it is; everything else the core
/// built. [`Out::to_value`] is the answer as a `serde_json::Value`.
pub enum Out<'v, F: Json> {
    /// A node of the caller's value.
    Node(NodeOf<'v, F>),
    /// A value the core built.
    Value(serde_json::Value),
    /// An object the core built around what it holds, members in order.
    Object(Vec<(Cow<'v, str>, Out<'v, F>)>),
    /// An array the core built.
    Array(Vec<Out<'v, F>>),
}

impl<'v, F: Json> Out<'v, F> {
    /// The answer as a value: the caller's nodes copied (borrowed ones cloned).
    pub fn to_value(&self) -> serde_json::Value {
        match self {
            Out::Node(node) => node.to_value().into_owned(),
            Out::Value(value) => value.clone(),
            Out::Object(members) => {
                serde_json::Value::Object(members.iter().map(|(k, v)| (k.clone().into_owned(), v.to_value())).collect())
            }
            Out::Array(items) => serde_json::Value::Array(items.iter().map(Out::to_value).collect()),
        }
    }

    /// The answer as a value, moving what the core built.
    pub fn into_value(self) -> serde_json::Value {
        match self {
            Out::Node(node) => node.to_value().into_owned(),
            Out::Value(value) => value,
            Out::Object(members) => {
                serde_json::Value::Object(members.into_iter().map(|(k, v)| (k.into_owned(), v.into_value())).collect())
            }
            Out::Array(items) => serde_json::Value::Array(items.into_iter().map(Out::into_value).collect()),
        }
    }

    /// An object member `key` built from a string.
    pub(crate) fn member(key: &'static str, value: impl Into<serde_json::Value>) -> (Cow<'v, str>, Out<'v, F>) {
        (Cow::Borrowed(key), Out::Value(value.into()))
    }
}

impl<F: Json> std::fmt::Debug for Out<'_, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Out::Node(_) => f.write_str("Node"),
            Out::Value(value) => write!(f, "{value}"),
            Out::Object(members) => f.debug_map().entries(members.iter().map(|(k, v)| (k, v))).finish(),
            Out::Array(items) => f.debug_list().entries(items).finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_looked_up_in_serde_values() {
        let names = SerdeJson::names();
        let value = json!({"outputs": [], "isError": true, "type": "text"});
        assert!(field::<SerdeJson>(&&value, &names.outputs).is_some_and(|n| n.is_array()));
        assert_eq!(field::<SerdeJson>(&&value, &names.is_error).and_then(|n| n.as_bool()), Some(true));
        assert!(field::<SerdeJson>(&&value, &names.meta).is_none());
        let object = value.as_object().expect("an object");
        assert!(matches!(string_member::<SerdeJson>(&object, &names.kind), Member::String(s) if s == "text"));
        assert!(matches!(string_member::<SerdeJson>(&object, &names.outputs), Member::Other(_)));
        assert!(matches!(string_member::<SerdeJson>(&object, &names.text), Member::Absent));
    }
}
