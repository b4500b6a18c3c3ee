//! Typed Rust structs for the SEP's wire shapes, for SDKs that build tools and results in Rust
//! rather than as JSON. They serialise to exactly the JSON the rest of the crate checks;
//! unknown fields are kept in `extra`, so nothing a peer sent is lost on a round trip.

use crate::audience::{Audience, Format, Selector};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

impl Serialize for Selector {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Selector {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Selector::read(&value, "").map_err(|e| D::Error::custom(e.to_string()))
    }
}

/// One declared variant (`ToolResultVariant`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolResultVariant {
    /// The core audience or extension identifier.
    pub audience: String,
    /// `content` or `structured`.
    pub format: String,
    /// The JSON Schema of a structured variant.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub schema: Option<Value>,
    /// Fields this crate does not interpret, passed through.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolResultVariant {
    /// A variant for `selector`, with a schema for a structured one.
    pub fn new(selector: &Selector, schema: Option<Value>) -> Self {
        ToolResultVariant {
            audience: selector.audience.as_str().to_owned(),
            format: selector.format.as_str().to_owned(),
            schema: schema.filter(|_| selector.format == Format::Structured),
            extra: Map::new(),
        }
    }
}

/// One output of a result (`ToolResultOutput`): the payload field follows the format.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolResultOutput {
    /// The core audience or extension identifier.
    pub audience: String,
    /// `content` or `structured`.
    pub format: String,
    /// The blocks of a content output.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub content: Option<Vec<Value>>,
    /// The value of a structured output; `Some(Value::Null)` is a present `null`.
    #[serde(
        rename = "structuredContent",
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "present"
    )]
    pub structured_content: Option<Value>,
    /// Fields this crate does not interpret, passed through.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Keeps an explicit `null` as `Some(Null)`: a structured output may carry `null`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl ToolResultOutput {
    /// A content output for `audience`.
    pub fn content(audience: Audience, blocks: Vec<Value>) -> Self {
        ToolResultOutput {
            audience: audience.as_str().to_owned(),
            format: Format::Content.as_str().to_owned(),
            content: Some(blocks),
            structured_content: None,
            extra: Map::new(),
        }
    }

    /// A structured output for `audience`.
    pub fn structured(audience: Audience, value: Value) -> Self {
        ToolResultOutput {
            audience: audience.as_str().to_owned(),
            format: Format::Structured.as_str().to_owned(),
            content: None,
            structured_content: Some(value),
            extra: Map::new(),
        }
    }

    /// A text-only `assistant/content` output, the fallback every tool must produce.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        let block = serde_json::json!({ "type": "text", "text": text.into() });
        ToolResultOutput::content(Audience::Assistant, vec![block])
    }
}

/// What a tool produced for one call (`respond`'s input): every output it computed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProducedOutputs {
    /// Every output the tool computed; the server sends only the requested ones.
    pub outputs: Vec<ToolResultOutput>,
    /// Whether the call failed.
    #[serde(rename = "isError", skip_serializing_if = "std::ops::Not::not", default)]
    pub is_error: bool,
    /// Result-level `_meta`.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none", default)]
    pub meta: Option<Map<String, Value>>,
}

impl ProducedOutputs {
    /// The JSON form, for [`crate::Produced::new`].
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, Connection, Produced, ProtocolVersion, ServerTool};
    use serde_json::json;

    #[test]
    fn typed_outputs_serialise_to_the_wire_shape() {
        let produced = ProducedOutputs {
            outputs: vec![
                ToolResultOutput::assistant_text("2 found"),
                ToolResultOutput::structured(Audience::Programmatic, json!({"items": [1, 2]})),
            ],
            ..ProducedOutputs::default()
        };
        assert_eq!(
            produced.to_json(),
            json!({"outputs": [
                {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "2 found"}]},
                {"audience": "programmatic", "format": "structured", "structuredContent": {"items": [1, 2]}}
            ]})
        );
        let config = Config::new();
        let tool = ServerTool::declare(
            &json!({"name": "t", "inputSchema": {"type": "object"}, "outputVariants": [
                ToolResultVariant::new(&Selector::fallback(), None),
                ToolResultVariant::new(&Selector::new(Audience::Programmatic, Format::Structured), Some(json!({"type": "object"})))
            ]}),
            None,
            &config,
        )
        .expect("declared");
        let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], config);
        let requested = json!([{"audience": "programmatic", "format": "structured"}]);
        let json = produced.to_json();
        let result = tool.respond(&conn, Some(&requested), Produced::new(&json)).expect("responded");
        let outputs: Vec<ToolResultOutput> = serde_json::from_value(result["outputs"].clone()).expect("typed");
        assert_eq!(outputs, vec![ToolResultOutput::structured(Audience::Programmatic, json!({"items": [1, 2]}))]);
    }

    #[test]
    fn null_and_unknown_fields_survive_a_round_trip() {
        let wire = json!({"audience": "user", "format": "structured", "structuredContent": null, "x-note": 1});
        let output: ToolResultOutput = serde_json::from_value(wire.clone()).expect("typed");
        assert_eq!(output.structured_content, Some(Value::Null));
        assert_eq!(serde_json::to_value(&output).expect("json"), wire);
        let selector: Selector =
            serde_json::from_value(json!({"audience": "user", "format": "content"})).expect("selector");
        assert_eq!(selector, Selector::new(Audience::User, Format::Content));
        assert!(serde_json::from_value::<Selector>(json!({"audience": "host", "format": "content"})).is_err());
    }
}
