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

    /// What the limits walk charges a node that stands for a payload the binding holds itself
    /// and measured (a tape's held node: `crate::tape`), instead of reading it; `None` for a
    /// node the representation holds.
    #[inline]
    fn held_cost(_node: &NodeOf<'_, Self>) -> Option<usize> {
        None
    }

    /// The payload a node stands for when the binding holds it itself (a tape's held node:
    /// `crate::tape`): the core reads nothing of it, and asks the binding's host to validate it
    /// and to write its text (`crate::schema::SchemaHost`); `None` for a node the
    /// representation holds.
    #[inline]
    fn held(_node: &NodeOf<'_, Self>) -> Option<crate::tape::Held> {
        None
    }

    /// What the limits walk would charge `node` and the extremes it would test, when the
    /// representation already knows them (the root of a checked tape: `Tape::new` finds them
    /// in its pass); `None` for the walk to find out.
    #[inline]
    fn totals(_node: &NodeOf<'_, Self>) -> Option<crate::limits::Totals> {
        None
    }

    /// Whether [`Source::totals`] answers for the nodes the limits walk is given (a tape's
    /// roots): where it does not, the walk that finds an error's path decides alone, and the
    /// representation has no pass/fail walk of its own in the build (P-JS-4).
    const TOTALS: bool = false;

    /// Whether `f` holds for every member (name, node) of `object`, in its order: the loop of
    /// the limits walk's pass over every member. A representation may iterate its storage
    /// itself: jsonschema-value's member iterators are functions of another crate, a call per
    /// member unless the build has LTO (P-RS-1, docs/performance.md).
    #[inline(always)]
    fn all_members<'v>(object: &ObjectOf<'v, Self>, mut f: impl FnMut(&str, NodeOf<'v, Self>) -> bool) -> bool {
        object.members().all(|(key, node)| f(key.as_ref(), node))
    }

    /// What the limits walk charges a leaf, when the representation tells one apart without a
    /// dispatch on its type (`crate::limits`: the cost `read` gives it); `None` for a container,
    /// or for a representation that does not (each node is then read in full).
    #[inline(always)]
    fn leaf_cost(_node: &NodeOf<'_, Self>) -> Option<usize> {
        None
    }

    /// The members `keys` of `object` (each a [`Name`]: as written, and prepared), found at
    /// once: for each, the first member of that name, as [`Object::get`] finds it. By default a
    /// lookup per key (a hash probe in Python, a scan in a tape).
    #[inline(always)]
    fn pick<'v, 'n, const N: usize>(
        object: &ObjectOf<'v, Self>,
        keys: [Name<'n, Self>; N],
    ) -> [Option<NodeOf<'v, Self>>; N] {
        keys.map(|(_, key)| object.get(key))
    }
}

/// A member name as written and as prepared for the representation `F` (`Names`' accessors).
pub type Name<'n, F> = (&'static str, &'n <F as Json>::PreparedKey);

impl Source for crate::tape::TapeJson {
    fn names() -> &'static Names<Self> {
        static NAMES: OnceLock<Names<crate::tape::TapeJson>> = OnceLock::new();
        NAMES.get_or_init(Names::prepare)
    }

    #[inline]
    fn held_cost(node: &NodeOf<'_, Self>) -> Option<usize> {
        node.held().and_then(|held| usize::try_from(held.cost).ok())
    }

    #[inline]
    fn held(node: &NodeOf<'_, Self>) -> Option<crate::tape::Held> {
        node.held()
    }

    const TOTALS: bool = true;

    #[inline]
    fn totals(node: &NodeOf<'_, Self>) -> Option<crate::limits::Totals> {
        node.totals()
    }
}

impl Source for SerdeJson {
    const HOLDS_VALUES: bool = true;

    fn names() -> &'static Names<Self> {
        static NAMES: OnceLock<Names<SerdeJson>> = OnceLock::new();
        NAMES.get_or_init(Names::prepare)
    }

    #[inline(always)]
    fn all_members<'v>(
        object: &&'v serde_json::Map<String, serde_json::Value>,
        mut f: impl FnMut(&str, &'v serde_json::Value) -> bool,
    ) -> bool {
        object.iter().all(|(key, node)| f(key, node))
    }

    // A leaf is any value but an array or an object, and costs 8 but a string (its length and
    // the quotes): two tests, where the walk's read of a node is a jump table on its type whose
    // mispredictions were the hot spot of the limits walk (P-RS-1, docs/performance.md).
    #[inline(always)]
    fn leaf_cost(node: &&serde_json::Value) -> Option<usize> {
        match node {
            serde_json::Value::Array(_) | serde_json::Value::Object(_) => None,
            serde_json::Value::String(s) => Some(s.len() + 2),
            _ => Some(8),
        }
    }

    /// One pass over a small object's members, each name compared with the keys as written:
    /// the keys are constants where this is inlined, so each comparison is a length test and a
    /// few loads, where a lookup per key calls `memcmp` for every member of the same length
    /// (P-RS-1: 10% of the 0.5 KB route). Names are unique in a `serde_json` map, so the first
    /// match is `get`'s. A large object is looked up by hash, as `get` does.
    #[inline(always)]
    fn pick<'v, 'n, const N: usize>(
        object: &ObjectOf<'v, Self>,
        keys: [Name<'n, Self>; N],
    ) -> [Option<NodeOf<'v, Self>>; N] {
        if object.len() > 16 {
            return keys.map(|(_, key)| serde_json::Map::get(object, key.as_str()));
        }
        let mut found = [None; N];
        for (name, node) in object.iter() {
            for (slot, (key, _)) in found.iter_mut().zip(keys) {
                // No `break`: a key given twice is found for each.
                if slot.is_none() && name == key {
                    *slot = Some(node);
                }
            }
        }
        found
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

            $(
                /// The name as written and prepared, for [`Source::pick`].
                #[inline(always)]
                #[allow(dead_code)]
                pub(crate) fn $field(&self) -> Name<'_, F> {
                    ($name, &self.$field)
                }
            )*
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
/// With the `validator` feature, a schema whose patterns need the regex budget validates the
/// payload as a value. Without it, the binding's host validates the payload: one it holds by
/// its slot, a value as the value, any other node from its text (no value is built).
pub fn validate<'v, F: Source>(schema: &CompiledSchema, node: &NodeOf<'v, F>, path: &str, what: &str) -> Result<()> {
    #[cfg(feature = "validator")]
    if !F::HOLDS_VALUES {
        if let Some(validator) = schema.validator_in::<F>()? {
            return schema.validate_in(validator, node.clone(), path, what);
        }
    }
    #[cfg(not(feature = "validator"))]
    {
        use crate::schema::Instance;
        if let Some(held) = F::held(node) {
            // The regex budget's question is answered by the held node's flag: the core has
            // nothing of the payload to read.
            return schema.validate_hosted(held.has_subjects, path, what, |host| {
                host.validate(schema, Instance::Held(held.slot))
            });
        }
        if !F::HOLDS_VALUES {
            return schema.validate_hosted(has_subjects::<F>(node), path, what, |host| {
                host.validate(schema, Instance::Text(&stringify::<F>(node)))
            });
        }
    }
    schema.validate(&node.to_value(), path, what)
}

/// Whether the node holds a string or an object member name, at any depth: what a schema's
/// patterns match, the question a host validator's regex budget asks of a value
/// (`CompiledSchema::validate_by`), answered without building the value. A payload the binding
/// holds answers what the binding measured ([`Source::held`]).
pub fn has_subjects<'v, F: Source>(node: &NodeOf<'v, F>) -> bool {
    let mut stack = vec![node.clone()];
    while let Some(node) = stack.pop() {
        if let Some(held) = F::held(&node) {
            if held.has_subjects {
                return true;
            }
        } else if node.is_string() || node.as_object().is_some_and(|members| members.len() > 0) {
            return true;
        } else if let Some(items) = node.as_array() {
            stack.extend(items.elements());
        }
    }
    false
}

/// The payload as `JSON.stringify` writes it, for the legacy mirror. A node of no JSON type (a
/// representation reads its caller's objects as they come) is written from its value. Without
/// the `validator` feature, a payload the binding holds is written by the binding's host.
pub fn stringify<'v, F: Source>(node: &NodeOf<'v, F>) -> String {
    #[cfg(not(feature = "validator"))]
    if let Some(text) = F::held(node).and_then(|held| crate::schema::held_text(held.slot)) {
        return text;
    }
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

    /// The answer as a value, each of the caller's nodes written by `node` (a binding's
    /// reference to its own object, where it hands the object back itself).
    pub fn to_value_with(&self, node: &dyn Fn(&NodeOf<'v, F>) -> serde_json::Value) -> serde_json::Value {
        match self {
            Out::Node(n) => node(n),
            Out::Value(value) => value.clone(),
            Out::Object(members) => serde_json::Value::Object(
                members.iter().map(|(k, v)| (k.clone().into_owned(), v.to_value_with(node))).collect(),
            ),
            Out::Array(items) => serde_json::Value::Array(items.iter().map(|item| item.to_value_with(node)).collect()),
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
    use crate::payload::InPlace;
    use crate::tape::{encode, TapeJson};
    use crate::{Config, Connection, ProtocolVersion, ReceivedTool, ServerTool};
    use proptest::prelude::*;
    use serde_json::{json, Value};

    type Outcome = std::result::Result<Value, (crate::ErrorCode, String, String)>;

    fn outcome(result: Result<Value>) -> Outcome {
        result.map_err(|e| (e.code(), e.path().to_owned(), e.message().to_owned()))
    }

    /// A value as the JavaScript side would hold it: parsed from the text `JSON.stringify`
    /// writes of it (a tape holds doubles), so that both paths read the same numbers.
    fn as_javascript_holds_it(value: &Value) -> Value {
        match value {
            Value::Number(n) => {
                let double = n.as_f64().unwrap_or_default();
                serde_json::from_str(&crate::jsontext::js_number(double)).unwrap_or(Value::Null)
            }
            Value::Array(items) => Value::Array(items.iter().map(as_javascript_holds_it).collect()),
            Value::Object(members) => {
                Value::Object(members.iter().map(|(k, v)| (k.clone(), as_javascript_holds_it(v))).collect())
            }
            other => other.clone(),
        }
    }

    fn declared(version: ProtocolVersion) -> (ServerTool, ReceivedTool, Connection) {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
            "required": ["n"]});
        let tool = json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema, "outputVariants": [
            {"audience": "assistant", "format": "content"},
            {"audience": "assistant", "format": "structured", "schema": schema},
            {"audience": "programmatic", "format": "structured", "schema": {"type": "array"}},
        ]});
        let mut tool = tool;
        if version == ProtocolVersion::V2026_12_01 {
            if let Some(t) = tool.as_object_mut() {
                t.remove("outputSchema");
            }
        } else if let Some(t) = tool.as_object_mut() {
            t.remove("outputVariants");
        }
        let config = Config::new();
        let conn = Connection::new(version, vec![], config.clone());
        let mut declared = tool.clone();
        if let Some(t) = declared.as_object_mut() {
            t.remove("outputSchema");
            t.insert(
                "outputVariants".into(),
                json!([
                    {"audience": "assistant", "format": "content"},
                    {"audience": "assistant", "format": "structured", "schema": schema},
                    {"audience": "programmatic", "format": "structured", "schema": {"type": "array"}},
                ]),
            );
        }
        let server = ServerTool::declare(&declared, None, &config).expect("declares");
        let host = ReceivedTool::accept(&tool, &conn).expect("accepts");
        (server, host, conn)
    }

    /// A result or a produced value: often of the protocol's shape, its parts arbitrary.
    fn arb_envelope() -> impl Strategy<Value = Value> {
        let payload = prop_oneof![crate::testing::arb_json(), Just(json!({"n": 1, "s": "x"})), Just(json!({"n": "1"}))];
        let audience =
            prop_oneof![Just(json!("assistant")), Just(json!("programmatic")), Just(json!("user")), Just(json!(1))];
        let format = prop_oneof![Just(json!("structured")), Just(json!("content")), Just(json!(null))];
        let output = (audience, format, payload.clone(), any::<bool>()).prop_map(|(a, f, p, content)| {
            if content {
                json!({"audience": a, "format": f, "content": [{"type": "text", "text": "hi"}, p]})
            } else {
                json!({"audience": a, "format": f, "structuredContent": p})
            }
        });
        let text =
            Just(json!({"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "t"}]}));
        prop_oneof![
            (prop::collection::vec(prop_oneof![output, text], 0..4), any::<Option<bool>>(), payload.clone()).prop_map(
                |(outputs, is_error, legacy)| {
                    let mut result = json!({"outputs": outputs, "content": [{"type": "text", "text": "l"}], "structuredContent": legacy});
                    if let (Some(is_error), Some(r)) = (is_error, result.as_object_mut()) {
                        r.insert("isError".into(), Value::Bool(is_error));
                    }
                    result
                }
            ),
            crate::testing::arb_json(),
        ]
    }

    proptest! {
        // The per-call path reads a tape (what the JavaScript binding writes) as it reads a
        // value: the same answers and the same errors, for check, route and respond, in every
        // revision (issue 21, "one reader").
        #[test]
        fn a_tape_is_read_as_its_value(envelope in arb_envelope(), which in 0usize..3) {
            let version = [ProtocolVersion::V2026_12_01, ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_03_26][which];
            let (server, host, conn) = declared(version);
            let value = as_javascript_holds_it(&envelope);
            let tape = encode(&value);
            let tape = tape.tape();
            let requested = (version == ProtocolVersion::V2026_12_01)
                .then(|| json!([{"audience": "assistant", "format": "structured"}, {"audience": "programmatic", "format": "structured"}]));
            let selectors = host.selection(requested.as_ref()).expect("selects");
            let on_value = outcome(host.check_selected(&selectors, &value).map(|c| c.to_json()));
            let on_tape = outcome(host.check_node::<TapeJson, _>(&selectors, tape.root(), &InPlace).map(|c| c.to_json()));
            prop_assert_eq!(&on_value, &on_tape, "check {}", value);
            let on_value = outcome(host.route_with(requested.as_ref(), None, &value).map(|r| r.to_json()));
            let on_tape = outcome(
                host.check_node::<TapeJson, _>(&selectors, tape.root(), &InPlace)
                    .map(|c| host.route_node(&c, None).to_out().into_value()),
            );
            prop_assert_eq!(&on_value, &on_tape, "route {}", value);
            let on_value = outcome(server.respond(&conn, requested.as_ref(), crate::Produced::new(&value)));
            let on_tape = outcome(
                server.respond_node::<TapeJson, _>(&conn, requested.as_ref(), tape.root(), &InPlace).map(Out::into_value),
            );
            prop_assert_eq!(&on_value, &on_tape, "respond {}", value);
        }
    }

    /// Every member `Source::pick` finds of `value` (an object) for the protocol's names and
    /// the object's own, as `Object::get` finds each, in a value and in its tape.
    fn picks_as_get_finds(value: &Value) -> std::result::Result<(), TestCaseError> {
        let Some(object) = value.as_object() else { return Ok(()) };
        let names = SerdeJson::names();
        let own: Vec<String> = object.keys().cloned().collect();
        let own_key = |i: usize| own.get(i).cloned().unwrap_or_else(|| "absent".to_owned());
        let (first, second) = (own_key(0), own_key(own.len().saturating_sub(1)));
        let keys =
            [names.content(), names.audience(), (first.clone().leak(), &first), (second.clone().leak(), &second)];
        let picked = SerdeJson::pick(&object, keys);
        for ((_, key), found) in keys.iter().zip(picked) {
            prop_assert_eq!(found, object.get(key.as_str()), "{} in {}", key, value);
        }
        let tape = encode(value);
        let tape = tape.tape();
        let Some(on_tape) = tape.root().as_object() else { return Err(TestCaseError::fail("not an object")) };
        let prepared: Vec<Box<str>> = keys.iter().map(|(name, _)| TapeJson::prepare_key(name)).collect();
        let tape_keys: Vec<Name<'_, TapeJson>> =
            keys.iter().zip(&prepared).map(|((name, _), key)| (*name, key)).collect();
        let tape_keys: [Name<'_, TapeJson>; 4] = tape_keys.try_into().map_err(|_| TestCaseError::fail("four keys"))?;
        for ((_, key), found) in tape_keys.iter().zip(TapeJson::pick(&on_tape, tape_keys)) {
            prop_assert_eq!(
                found.map(|n| n.to_value().into_owned()),
                on_tape.get(key).map(|n| n.to_value().into_owned())
            );
        }
        Ok(())
    }

    proptest! {
        // `Source::pick` is a lookup of each key: what `get` finds, absent where it finds
        // nothing, whatever the object's size (a `serde_json` map of more than 16 members is
        // looked up by hash).
        #[test]
        fn pick_finds_what_get_finds(value in crate::testing::arb_json(), extra in 0usize..24) {
            picks_as_get_finds(&value)?;
            let mut wide = json!({"audience": "a", "structuredContent": {"x": 1}});
            if let Some(members) = wide.as_object_mut() {
                for i in 0..extra {
                    members.insert(format!("k{i}"), json!(i));
                }
                members.insert("content".into(), value);
            }
            picks_as_get_finds(&wide)?;
        }
    }

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
