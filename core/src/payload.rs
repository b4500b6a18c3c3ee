//! Structured payloads as values a binding owns (issue 11: "payloads stay where they live").
//!
//! A structured payload (an output's `structuredContent`, a legacy result's top-level one) can be
//! large, and the protocol never looks inside it except to validate it against a schema, to ask
//! whether it is an object, and to write it as text for the legacy mirror. A binding whose
//! caller holds the payload as its own objects (a Python dict) need not copy it into a
//! `serde_json::Value` for that: it converts the envelope, puts a placeholder of its own where
//! each payload sits (the core says where: [`RESULT`], [`PRODUCED`]), and answers the core's
//! questions about each payload through [`Payloads`]. The core never reads a placeholder itself:
//! every question about a value at a payload position goes through the seam, and placeholders
//! it copies into an answer (a routed output, a View, a legacy result) are the binding's to
//! resolve back to its own objects. [`PlainJson`] is the seam of a value that holds its payloads
//! itself: the Rust API and `ops::run` use it, so they are unchanged.
//!
//! Limits: the binding applies the core's limits to each payload it keeps (the same caps, costs
//! and walk order as [`crate::Limits::check_value`]); a payload it cannot prove within them is
//! handed over as a plain value, so that the core reports the fault exactly as it would.

use crate::error::Result;
use crate::jsontext;
use crate::node::{Json, Node as _, NodeOf, SerdeJson, Source};
use crate::schema::CompiledSchema;
use serde_json::Value;

/// One step of a payload position inside an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The member of an object with this name.
    Key(&'static str),
    /// Every element of an array.
    Each,
}

/// Where payloads sit in a CallToolResult a host checks or routes: each output's
/// `structuredContent` (2026-12-01) and the top-level `structuredContent` (earlier revisions).
pub const RESULT: &[&[Step]] =
    &[&[Step::Key("outputs"), Step::Each, Step::Key("structuredContent")], &[Step::Key("structuredContent")]];

/// Where payloads sit in what a tool produced (`respond`): each output's `structuredContent`.
pub const PRODUCED: &[&[Step]] = &[&[Step::Key("outputs"), Step::Each, Step::Key("structuredContent")]];

/// What the core asks of a structured payload. `value` is what the argument holds at a payload
/// position: the payload itself, or the binding's placeholder for it.
pub trait Payloads: std::fmt::Debug {
    /// Validates the payload against `schema`, with [`CompiledSchema::validate`]'s errors
    /// (codes, paths below `path`, messages and their precedence).
    fn validate(&self, schema: &CompiledSchema, value: &Value, path: &str, what: &str) -> Result<()>;

    /// Whether the payload is a JSON object.
    fn is_object(&self, value: &Value) -> bool;

    /// The payload as `JSON.stringify` writes it ([`jsontext::stringify`]), for the legacy mirror.
    fn stringify(&self, value: &Value) -> Result<String>;
}

/// What the core asks of a structured payload held in a representation `F` (`crate::node`):
/// [`Payloads`]' questions about a node. Any [`Payloads`] answers for `serde_json` values; a
/// representation that holds its payloads itself answers through [`InPlace`].
pub trait PayloadsIn<F: Json> {
    /// [`Payloads::validate`] of a node.
    fn validate(&self, schema: &CompiledSchema, node: &NodeOf<'_, F>, path: &str, what: &str) -> Result<()>;
    /// [`Payloads::is_object`] of a node.
    fn is_object(&self, node: &NodeOf<'_, F>) -> bool;
    /// [`Payloads::stringify`] of a node.
    fn stringify(&self, node: &NodeOf<'_, F>) -> Result<String>;
}

impl<P: Payloads + ?Sized> PayloadsIn<SerdeJson> for P {
    fn validate(&self, schema: &CompiledSchema, node: &&Value, path: &str, what: &str) -> Result<()> {
        Payloads::validate(self, schema, node, path, what)
    }

    fn is_object(&self, node: &&Value) -> bool {
        Payloads::is_object(self, node)
    }

    fn stringify(&self, node: &&Value) -> Result<String> {
        Payloads::stringify(self, node)
    }
}

/// The payloads of a representation that holds them itself, read where they are: validated by
/// [`crate::node::validate`], written by [`crate::node::stringify`].
#[derive(Clone, Copy, Debug, Default)]
pub struct InPlace;

impl<F: Source> PayloadsIn<F> for InPlace {
    fn validate(&self, schema: &CompiledSchema, node: &NodeOf<'_, F>, path: &str, what: &str) -> Result<()> {
        crate::node::validate::<F>(schema, node, path, what)
    }

    fn is_object(&self, node: &NodeOf<'_, F>) -> bool {
        node.json_type() == crate::node::JsonType::Object
    }

    fn stringify(&self, node: &NodeOf<'_, F>) -> Result<String> {
        Ok(crate::node::stringify::<F>(node))
    }
}

/// The seam of values that hold their payloads themselves (the Rust API, `ops::run`).
#[derive(Clone, Copy, Debug, Default)]
pub struct PlainJson;

impl Payloads for PlainJson {
    fn validate(&self, schema: &CompiledSchema, value: &Value, path: &str, what: &str) -> Result<()> {
        schema.validate(value, path, what)
    }

    fn is_object(&self, value: &Value) -> bool {
        value.is_object()
    }

    fn stringify(&self, value: &Value) -> Result<String> {
        Ok(jsontext::stringify(value))
    }
}

/// Whether the path `at` (member names and array indices, outermost first) is one of
/// `positions`.
pub fn is_position(positions: &[&[Step]], at: &[PathSegment<'_>]) -> bool {
    positions.iter().any(|steps| {
        steps.len() == at.len()
            && steps.iter().zip(at).all(|(step, segment)| match (step, segment) {
                (Step::Key(name), PathSegment::Key(key)) => name == key,
                (Step::Each, PathSegment::Index(_)) => true,
                _ => false,
            })
    })
}

/// One segment of a path inside an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathSegment<'a> {
    /// A member name.
    Key(&'a str),
    /// An array index.
    Index(usize),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Connection, Produced, ProtocolVersion, ReceivedTool, ServerTool};
    use serde_json::json;

    /// A seam that holds the payloads itself, as a binding does: the value the core gets has a
    /// placeholder where each payload sat, and the core must ask for everything else.
    #[derive(Debug, Default)]
    struct SideTable {
        payloads: Vec<Value>,
    }

    const TAG: &str = "\u{0}payload ";

    impl SideTable {
        /// Moves every payload at `positions` out of `value` into the table.
        fn take(&mut self, value: &mut Value, positions: &[&[Step]], at: &mut Vec<PathSegment<'static>>) {
            let names: Vec<&'static str> = positions
                .iter()
                .flat_map(|p| p.iter())
                .filter_map(|s| match s {
                    Step::Key(name) => Some(*name),
                    Step::Each => None,
                })
                .collect();
            let mut visit = |child: &mut Value, segment: PathSegment<'static>, table: &mut SideTable| {
                at.push(segment);
                if is_position(positions, at) {
                    let slot = table.payloads.len();
                    table.payloads.push(std::mem::replace(child, Value::from(format!("{TAG}{slot}"))));
                } else {
                    table.take(child, positions, at);
                }
                at.pop();
            };
            match value {
                Value::Object(members) => {
                    for (key, child) in members.iter_mut() {
                        if let Some(name) = names.iter().find(|n| **n == key.as_str()) {
                            visit(child, PathSegment::Key(name), self);
                        }
                    }
                }
                Value::Array(items) => {
                    for (i, child) in items.iter_mut().enumerate() {
                        visit(child, PathSegment::Index(i), self);
                    }
                }
                _ => {}
            }
        }

        fn get<'a>(&'a self, value: &'a Value) -> &'a Value {
            let slot = value.as_str().and_then(|s| s.strip_prefix(TAG)).and_then(|s| s.parse::<usize>().ok());
            slot.and_then(|slot| self.payloads.get(slot)).unwrap_or(value)
        }

        /// `value` with each placeholder written as its payload.
        fn resolve(&self, value: &Value) -> Value {
            match value {
                Value::String(_) => self.get(value).clone(),
                Value::Array(items) => Value::Array(items.iter().map(|v| self.resolve(v)).collect()),
                Value::Object(members) => {
                    Value::Object(members.iter().map(|(k, v)| (k.clone(), self.resolve(v))).collect())
                }
                other => other.clone(),
            }
        }
    }

    impl Payloads for SideTable {
        fn validate(&self, schema: &CompiledSchema, value: &Value, path: &str, what: &str) -> Result<()> {
            schema.validate(self.get(value), path, what)
        }

        fn is_object(&self, value: &Value) -> bool {
            self.get(value).is_object()
        }

        fn stringify(&self, value: &Value) -> Result<String> {
            Ok(jsontext::stringify(self.get(value)))
        }
    }

    fn split(value: &Value, positions: &[&[Step]]) -> (Value, SideTable) {
        let mut envelope = value.clone();
        let mut table = SideTable::default();
        table.take(&mut envelope, positions, &mut Vec::new());
        (envelope, table)
    }

    type Outcome = std::result::Result<Value, (crate::ErrorCode, String, String)>;

    fn outcome(result: Result<Value>) -> Outcome {
        result.map_err(|e| (e.code(), e.path().to_owned(), e.message().to_owned()))
    }

    /// A tool with a structured variant for each audience kind, and results valid and not.
    #[test]
    fn a_binding_holding_the_payloads_gets_what_plain_json_gets() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "pattern": "x"},
            "s": {"type": "string", "pattern": "^[a-z]+$"}}, "required": ["n"]});
        let config = crate::Config::new();
        let mut servers = Vec::new();
        // The assistant/structured source wrapped (not object-rooted) or sent as it is, mirrored
        // or not: every question of the legacy projection is asked.
        for assistant in [json!({"type": "array", "items": {"type": "integer"}}), json!({"type": "object"})] {
            let tool = json!({"name": "t", "inputSchema": {"type": "object"}, "outputVariants": [
                {"audience": "assistant", "format": "content"},
                {"audience": "assistant", "format": "structured", "schema": assistant},
                {"audience": "programmatic", "format": "structured", "schema": schema},
            ]});
            for mirror in [true, false] {
                let legacy = json!({ "mirror": mirror });
                servers.push(ServerTool::declare(&tool, Some(&legacy), &config).expect("declares"));
            }
        }
        let text = json!({"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "hi"}]});
        let payloads = [
            json!({"n": 1, "s": "abc"}),
            json!({"n": "1"}),
            json!({"n": 1, "s": "ABC"}),
            json!([1, 2]),
            json!([1, "2"]),
            json!(null),
            json!({"deep": [[[[1]]]]}),
        ];
        let mut compared = 0;
        for server in &servers {
            for version in [ProtocolVersion::V2026_12_01, ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_03_26] {
                let conn = Connection::new(version, vec![], config.clone());
                let advertised = server.advertise(&conn);
                let host = ReceivedTool::accept(&advertised, &conn).expect("accepts");
                for payload in &payloads {
                    for (audience, requested) in [
                        ("programmatic", json!([{"audience": "programmatic", "format": "structured"}])),
                        ("assistant", json!([{"audience": "assistant", "format": "structured"}])),
                    ] {
                        let requested = (version == ProtocolVersion::V2026_12_01).then_some(requested);
                        let output =
                            json!({"audience": audience, "format": "structured", "structuredContent": payload});
                        for is_error in [false, true] {
                            let produced = json!({"outputs": [text, output], "isError": is_error});
                            let plain = outcome(server.respond(&conn, requested.as_ref(), Produced::new(&produced)));
                            // The answer in terms of the caller's value is the same result.
                            let named = outcome(
                                server
                                    .respond_node::<SerdeJson, _>(&conn, requested.as_ref(), &produced, &InPlace)
                                    .map(crate::node::Out::into_value),
                            );
                            assert_eq!(plain, named, "respond_node {version} {produced}");
                            let (envelope, table) = split(&produced, PRODUCED);
                            assert_eq!(table.payloads.len(), 1);
                            let held = outcome(server.respond(
                                &conn,
                                requested.as_ref(),
                                Produced::with_payloads(&envelope, &table),
                            ));
                            assert_eq!(plain, held.map(|v| table.resolve(&v)), "respond {version} {produced}");
                            // The host side, on what the server sent and on the produced outputs as a result.
                            for result in [plain.clone().unwrap_or_else(|_| produced.clone()), produced.clone()] {
                                for rule in [None, Some(crate::Audience::Programmatic)] {
                                    let plain = outcome(
                                        host.route_with(requested.as_ref(), rule.as_ref(), &result)
                                            .map(|r| r.to_json()),
                                    );
                                    let named = outcome(
                                        host.route_with(requested.as_ref(), rule.as_ref(), &result)
                                            .map(|r| r.to_out().into_value()),
                                    );
                                    assert_eq!(plain, named, "route to_out {version} {result}");
                                    let (envelope, table) = split(&result, RESULT);
                                    let held = outcome(
                                        host.route_with_in(requested.as_ref(), rule.as_ref(), &envelope, &table)
                                            .map(|r| r.to_json()),
                                    );
                                    assert_eq!(plain, held.map(|v| table.resolve(&v)), "route {version} {result}");
                                    compared += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(compared, 4 * 3 * 7 * 2 * 2 * 2 * 2);
    }

    #[test]
    fn plain_json_answers_from_the_value_itself() {
        let schema = CompiledSchema::compile(&json!({"type": "object", "required": ["a"]}), "").expect("valid");
        let error = Payloads::validate(&PlainJson, &schema, &json!({}), "/p", "the value").expect_err("invalid");
        assert_eq!((error.code(), error.path()), (crate::ErrorCode::SchemaViolation, "/p"));
        assert!(Payloads::validate(&PlainJson, &schema, &json!({"a": 1}), "", "").is_ok());
        assert!(Payloads::is_object(&PlainJson, &json!({})) && !Payloads::is_object(&PlainJson, &json!([])));
        assert_eq!(
            Payloads::stringify(&PlainJson, &json!({"a": [1.0, 1e21]})).ok().as_deref(),
            Some(r#"{"a":[1,1e+21]}"#)
        );
    }

    #[test]
    fn positions_name_the_payloads() {
        use PathSegment::{Index, Key};
        assert!(is_position(RESULT, &[Key("outputs"), Index(3), Key("structuredContent")]));
        assert!(is_position(RESULT, &[Key("structuredContent")]));
        assert!(!is_position(RESULT, &[Key("outputs"), Key("0"), Key("structuredContent")]));
        assert!(!is_position(RESULT, &[Key("outputs"), Index(0), Key("content")]));
        assert!(!is_position(RESULT, &[Key("outputs"), Index(0)]));
        assert!(!is_position(PRODUCED, &[Key("structuredContent")]));
        assert!(is_position(PRODUCED, &[Key("outputs"), Index(0), Key("structuredContent")]));
    }
}
