//! The questions the core asks of a structured payload (an output's `structuredContent`, a
//! legacy result's top-level one): validate it against a schema, is it an object, its
//! `JSON.stringify` text for the legacy mirror. The protocol never looks inside a payload
//! otherwise, so a payload need not be in the core's own representation.
//!
//! [`PayloadsIn`] asks them of a node of any representation (`crate::node`). [`InPlace`] answers
//! for every representation: a payload the representation holds (a `serde_json::Value`, Python's
//! objects, a tape's nodes) is read where it is; one the binding holds itself (the npm package's
//! tape has a held node where each payload sits: the core says where, [`RESULT`], [`PRODUCED`])
//! is answered from its held node (`node::Source::held`: is it an object) and by the binding's
//! `schema::SchemaHost` (validated by its slot, its text), the one seam of a host validator.
//!
//! Limits: a binding that holds a payload measures it by the core's costs, and the limits walk
//! charges the held node that cost (`node::Source::held_cost`).

use crate::error::Result;
use crate::node::{Json, Node as _, NodeOf, Source};
use crate::schema::CompiledSchema;

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

/// What the core asks of a structured payload held in a representation `F` (`crate::node`).
pub trait PayloadsIn<F: Json> {
    /// Validates the payload against `schema`, with [`CompiledSchema::validate`]'s errors
    /// (codes, paths below `path`, messages and their precedence).
    fn validate(&self, schema: &CompiledSchema, node: &NodeOf<'_, F>, path: &str, what: &str) -> Result<()>;
    /// Whether the payload is a JSON object.
    fn is_object(&self, node: &NodeOf<'_, F>) -> bool;
    /// The payload as `JSON.stringify` writes it ([`crate::jsontext::stringify`]), for the
    /// legacy mirror.
    fn stringify(&self, node: &NodeOf<'_, F>) -> Result<String>;
}

/// The payloads of any representation, read where they are: validated by
/// [`crate::node::validate`], written by [`crate::node::stringify`] (both ask the binding's host
/// about a payload it holds).
#[derive(Clone, Copy, Debug, Default)]
pub struct InPlace;

impl<F: Source> PayloadsIn<F> for InPlace {
    fn validate(&self, schema: &CompiledSchema, node: &NodeOf<'_, F>, path: &str, what: &str) -> Result<()> {
        crate::node::validate::<F>(schema, node, path, what)
    }

    fn is_object(&self, node: &NodeOf<'_, F>) -> bool {
        match F::held(node) {
            Some(held) => held.is_object,
            None => node.json_type() == crate::node::JsonType::Object,
        }
    }

    fn stringify(&self, node: &NodeOf<'_, F>) -> Result<String> {
        Ok(crate::node::stringify::<F>(node))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::SerdeJson;
    use crate::{Connection, Produced, ProtocolVersion, ReceivedTool, ServerTool};
    use serde_json::json;
    use serde_json::Value;

    type Outcome = std::result::Result<Value, (crate::ErrorCode, String, String)>;

    fn outcome(result: Result<Value>) -> Outcome {
        result.map_err(|e| (e.code(), e.path().to_owned(), e.message().to_owned()))
    }

    /// A tool with a structured variant for each audience kind, and results valid and not: the
    /// answers in terms of the caller's value (`respond_node`, `Route::to_out`) are the `Value`
    /// answers.
    #[test]
    fn answers_naming_the_callers_value_are_the_value_answers() {
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
    fn in_place_answers_from_the_value_itself() {
        type Seam = dyn PayloadsIn<SerdeJson>;
        let schema = CompiledSchema::compile(&json!({"type": "object", "required": ["a"]}), "").expect("valid");
        let error = Seam::validate(&InPlace, &schema, &&json!({}), "/p", "the value").expect_err("invalid");
        assert_eq!((error.code(), error.path()), (crate::ErrorCode::SchemaViolation, "/p"));
        assert!(Seam::validate(&InPlace, &schema, &&json!({"a": 1}), "", "").is_ok());
        assert!(Seam::is_object(&InPlace, &&json!({})) && !Seam::is_object(&InPlace, &&json!([])));
        assert_eq!(Seam::stringify(&InPlace, &&json!({"a": [1.0, 1e21]})).ok().as_deref(), Some(r#"{"a":[1,1e+21]}"#));
    }
}
