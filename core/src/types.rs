//! Typed Rust values for the SEP's wire shapes, for SDKs that build tools and results in Rust
//! rather than as JSON. A variant and an output are the unions the SEP defines, discriminated by
//! `format`: [`ToolResultVariant`] is a [`ContentToolResultVariant`] or a
//! [`StructuredToolResultVariant`], [`ToolResultOutput`] a [`ContentToolResultOutput`] or a
//! [`StructuredToolResultOutput`].
//!
//! They serialise to exactly the JSON the rest of the crate checks (`audience`, `format`, the
//! payload or schema, then the other fields in their order). Unknown fields, `_meta` among them,
//! are kept in `extra`, so nothing a peer sent is lost on a round trip.
//!
//! Reading is strict about the shape the union promises and nothing else: a missing or unknown
//! `format`, a missing or non-string `audience`, a content output without a `content` array, a
//! structured output without `structuredContent`, a field of the other format (`structuredContent`
//! on a content output, `content` on a structured one, `schema` on a content variant) and a
//! `schema` that is not an object are serde errors. What only the crate's checks can judge (is
//! the audience a core audience or an extension identifier, are the blocks valid, does the value
//! conform to its schema) is left to them. When writing, the typed fields decide: an `extra` entry
//! named `audience`, `format` or `schema` (a variant's), or `audience`, `format`, `content` or
//! `structuredContent` (an output's), is not written.

use crate::audience::{Audience, Format, Selector};
use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The SEP's name for a [`Selector`]: an entry of `requestedOutputs`, and what a variant declares
/// and an output carries.
pub type ToolResultOutputSelector = Selector;

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

/// The fields of a variant or an output object as read. Each side of the union takes the fields
/// it owns; what stays is its `extra`, in the order it came.
struct Parts(Map<String, Value>);

impl Parts {
    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Map::<String, Value>::deserialize(deserializer).map(Parts)
    }

    /// The format, which must be `content` or `structured`; `what` names the object (`variant`,
    /// `output`).
    fn format<E: serde::de::Error>(&self, what: &str) -> Result<Format, E> {
        match self.0.get("format") {
            None => Err(E::custom(format!("{} needs a format (\"content\" or \"structured\")", a(what)))),
            Some(Value::String(text)) if text == "content" => Ok(Format::Content),
            Some(Value::String(text)) if text == "structured" => Ok(Format::Structured),
            Some(other) => {
                Err(E::custom(format!("the format of {} must be \"content\" or \"structured\", not {other}", a(what))))
            }
        }
    }

    /// Checks that the format is `expected`, for a reading of one side of the union.
    fn expect_format<E: serde::de::Error>(&self, what: &str, expected: Format) -> Result<(), E> {
        let format = self.format(what)?;
        if format == expected {
            Ok(())
        } else {
            Err(E::custom(format!(
                "a {} {what} must have format \"{}\", not \"{}\"",
                expected.as_str(),
                expected.as_str(),
                format.as_str()
            )))
        }
    }

    /// Takes `audience` and `format` (already judged), refuses `refused` (a field of the other
    /// format, with its message), and answers the audience.
    fn common<E: serde::de::Error>(&mut self, what: &str, refused: Option<(&str, &str)>) -> Result<String, E> {
        if let Some((_, message)) = refused.filter(|(field, _)| self.0.contains_key(*field)) {
            return Err(E::custom(message));
        }
        self.0.shift_remove("format");
        match self.0.shift_remove("audience") {
            Some(Value::String(audience)) => Ok(audience),
            Some(other) => Err(E::custom(format!("the audience of {} must be a string, not {other}", a(what)))),
            None => Err(E::custom(format!("{} needs an audience", a(what)))),
        }
    }

    fn take(&mut self, key: &str) -> Option<Value> {
        self.0.shift_remove(key)
    }
}

/// `noun` with its indefinite article ("a variant", "an output").
fn a(noun: &str) -> String {
    let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {noun}")
}

/// Names a variant's `extra` never writes (its own fields; `schema` is a content variant's
/// refused one), and an output's.
const VARIANT_FIELDS: &[&str] = &["audience", "format", "schema"];
const OUTPUT_FIELDS: &[&str] = &["audience", "format", "content", "structuredContent"];

/// Starts writing a variant or an output: `audience`, then `format`.
fn begin<S: Serializer>(serializer: S, audience: &str, format: Format) -> Result<S::SerializeMap, S::Error> {
    let mut map = serializer.serialize_map(None)?;
    map.serialize_entry("audience", audience)?;
    map.serialize_entry("format", format.as_str())?;
    Ok(map)
}

/// Ends writing a variant or an output: the `extra` fields but those named in `typed`, so that a
/// field is never written twice, nor beside the other format's.
fn finish<M: SerializeMap>(mut map: M, extra: &Map<String, Value>, typed: &[&str]) -> Result<M::Ok, M::Error> {
    for (key, value) in extra.iter().filter(|(key, _)| !typed.contains(&key.as_str())) {
        map.serialize_entry(key, value)?;
    }
    map.end()
}

/// A declared `content` variant (`ContentToolResultVariant`).
#[derive(Clone, Debug, PartialEq)]
pub struct ContentToolResultVariant {
    /// The core audience or extension identifier.
    pub audience: String,
    /// Fields this crate does not interpret, passed through.
    pub extra: Map<String, Value>,
}

impl ContentToolResultVariant {
    /// A content variant for `audience`.
    pub fn new(audience: Audience) -> Self {
        ContentToolResultVariant { audience: audience.as_str().to_owned(), extra: Map::new() }
    }

    fn from_parts<E: serde::de::Error>(mut parts: Parts) -> Result<Self, E> {
        let audience = parts.common("variant", Some(("schema", "a content variant cannot declare a schema")))?;
        Ok(ContentToolResultVariant { audience, extra: parts.0 })
    }
}

/// A declared `structured` variant (`StructuredToolResultVariant`), with its JSON Schema.
#[derive(Clone, Debug, PartialEq)]
pub struct StructuredToolResultVariant {
    /// The core audience or extension identifier.
    pub audience: String,
    /// The JSON Schema of the payload (an object); `None` when the variant declares none.
    pub schema: Option<Value>,
    /// Fields this crate does not interpret, passed through.
    pub extra: Map<String, Value>,
}

impl StructuredToolResultVariant {
    /// A structured variant for `audience`, with its schema if any.
    pub fn new(audience: Audience, schema: Option<Value>) -> Self {
        StructuredToolResultVariant { audience: audience.as_str().to_owned(), schema, extra: Map::new() }
    }

    fn from_parts<E: serde::de::Error>(mut parts: Parts) -> Result<Self, E> {
        let audience = parts.common("variant", None)?;
        let schema = parts.take("schema");
        if schema.as_ref().is_some_and(|schema| !schema.is_object()) {
            return Err(E::custom("a variant's schema must be a JSON object"));
        }
        Ok(StructuredToolResultVariant { audience, schema, extra: parts.0 })
    }
}

/// One declared variant (`ToolResultVariant`): the SEP's union, discriminated by `format`.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolResultVariant {
    /// `format: "content"`.
    Content(ContentToolResultVariant),
    /// `format: "structured"`.
    Structured(StructuredToolResultVariant),
}

impl ToolResultVariant {
    /// A variant for `selector`, with a schema for a structured one (a content variant has none:
    /// `schema` is ignored for it).
    pub fn new(selector: &Selector, schema: Option<Value>) -> Self {
        match selector.format {
            Format::Content => ContentToolResultVariant::new(selector.audience.clone()).into(),
            Format::Structured => StructuredToolResultVariant::new(selector.audience.clone(), schema).into(),
        }
    }

    /// The audience as sent.
    pub fn audience(&self) -> &str {
        match self {
            ToolResultVariant::Content(variant) => &variant.audience,
            ToolResultVariant::Structured(variant) => &variant.audience,
        }
    }

    /// The format, which is the discriminant.
    pub fn format(&self) -> Format {
        match self {
            ToolResultVariant::Content(_) => Format::Content,
            ToolResultVariant::Structured(_) => Format::Structured,
        }
    }

    /// The schema of a structured variant that declares one.
    pub fn schema(&self) -> Option<&Value> {
        match self {
            ToolResultVariant::Content(_) => None,
            ToolResultVariant::Structured(variant) => variant.schema.as_ref(),
        }
    }

    /// The fields this crate does not interpret.
    pub fn extra(&self) -> &Map<String, Value> {
        match self {
            ToolResultVariant::Content(variant) => &variant.extra,
            ToolResultVariant::Structured(variant) => &variant.extra,
        }
    }

    /// The selector of the variant; an error when the audience is neither a core audience nor an
    /// extension identifier.
    pub fn selector(&self) -> crate::Result<Selector> {
        Ok(Selector::new(Audience::parse(self.audience())?, self.format()))
    }
}

impl From<ContentToolResultVariant> for ToolResultVariant {
    fn from(variant: ContentToolResultVariant) -> Self {
        ToolResultVariant::Content(variant)
    }
}

impl From<StructuredToolResultVariant> for ToolResultVariant {
    fn from(variant: StructuredToolResultVariant) -> Self {
        ToolResultVariant::Structured(variant)
    }
}

/// A `content` output (`ContentToolResultOutput`): content blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct ContentToolResultOutput {
    /// The core audience or extension identifier.
    pub audience: String,
    /// The content blocks (`ContentBlock[]`).
    pub content: Vec<Value>,
    /// Fields this crate does not interpret, passed through.
    pub extra: Map<String, Value>,
}

impl ContentToolResultOutput {
    /// A content output for `audience`.
    pub fn new(audience: Audience, content: Vec<Value>) -> Self {
        ContentToolResultOutput { audience: audience.as_str().to_owned(), content, extra: Map::new() }
    }

    fn from_parts<E: serde::de::Error>(mut parts: Parts) -> Result<Self, E> {
        let audience =
            parts.common("output", Some(("structuredContent", "a content output cannot carry structuredContent")))?;
        let content = match parts.take("content") {
            Some(Value::Array(blocks)) => blocks,
            Some(other) => return Err(E::custom(format!("the content of an output must be an array, not {other}"))),
            None => return Err(E::custom("a content output needs content")),
        };
        Ok(ContentToolResultOutput { audience, content, extra: parts.0 })
    }
}

/// A `structured` output (`StructuredToolResultOutput`): any JSON value, `null` included.
#[derive(Clone, Debug, PartialEq)]
pub struct StructuredToolResultOutput {
    /// The core audience or extension identifier.
    pub audience: String,
    /// The value (`structuredContent`); `Value::Null` is a present `null`.
    pub structured_content: Value,
    /// Fields this crate does not interpret, passed through.
    pub extra: Map<String, Value>,
}

impl StructuredToolResultOutput {
    /// A structured output for `audience`.
    pub fn new(audience: Audience, structured_content: Value) -> Self {
        StructuredToolResultOutput { audience: audience.as_str().to_owned(), structured_content, extra: Map::new() }
    }

    fn from_parts<E: serde::de::Error>(mut parts: Parts) -> Result<Self, E> {
        let audience = parts.common("output", Some(("content", "a structured output cannot carry content")))?;
        let structured_content =
            parts.take("structuredContent").ok_or_else(|| E::custom("a structured output needs structuredContent"))?;
        Ok(StructuredToolResultOutput { audience, structured_content, extra: parts.0 })
    }
}

/// One output of a result (`ToolResultOutput`): the SEP's union, discriminated by `format`.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolResultOutput {
    /// `format: "content"`.
    Content(ContentToolResultOutput),
    /// `format: "structured"`.
    Structured(StructuredToolResultOutput),
}

impl ToolResultOutput {
    /// A content output for `audience`.
    pub fn content(audience: Audience, blocks: Vec<Value>) -> Self {
        ContentToolResultOutput::new(audience, blocks).into()
    }

    /// A structured output for `audience`.
    pub fn structured(audience: Audience, value: Value) -> Self {
        StructuredToolResultOutput::new(audience, value).into()
    }

    /// A text-only `assistant/content` output, the fallback every tool must produce.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        let block = serde_json::json!({ "type": "text", "text": text.into() });
        ToolResultOutput::content(Audience::Assistant, vec![block])
    }

    /// The audience as sent.
    pub fn audience(&self) -> &str {
        match self {
            ToolResultOutput::Content(output) => &output.audience,
            ToolResultOutput::Structured(output) => &output.audience,
        }
    }

    /// The format, which is the discriminant.
    pub fn format(&self) -> Format {
        match self {
            ToolResultOutput::Content(_) => Format::Content,
            ToolResultOutput::Structured(_) => Format::Structured,
        }
    }

    /// The fields this crate does not interpret.
    pub fn extra(&self) -> &Map<String, Value> {
        match self {
            ToolResultOutput::Content(output) => &output.extra,
            ToolResultOutput::Structured(output) => &output.extra,
        }
    }

    /// The selector of the output; an error when the audience is neither a core audience nor an
    /// extension identifier.
    pub fn selector(&self) -> crate::Result<Selector> {
        Ok(Selector::new(Audience::parse(self.audience())?, self.format()))
    }
}

impl From<ContentToolResultOutput> for ToolResultOutput {
    fn from(output: ContentToolResultOutput) -> Self {
        ToolResultOutput::Content(output)
    }
}

impl From<StructuredToolResultOutput> for ToolResultOutput {
    fn from(output: StructuredToolResultOutput) -> Self {
        ToolResultOutput::Structured(output)
    }
}

// Serialisation: every value writes its `format`, so a struct alone is a complete wire object.

impl Serialize for ContentToolResultVariant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        finish(begin(serializer, &self.audience, Format::Content)?, &self.extra, VARIANT_FIELDS)
    }
}

impl Serialize for StructuredToolResultVariant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = begin(serializer, &self.audience, Format::Structured)?;
        if let Some(schema) = &self.schema {
            map.serialize_entry("schema", schema)?;
        }
        finish(map, &self.extra, VARIANT_FIELDS)
    }
}

impl Serialize for ToolResultVariant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ToolResultVariant::Content(variant) => variant.serialize(serializer),
            ToolResultVariant::Structured(variant) => variant.serialize(serializer),
        }
    }
}

impl Serialize for ContentToolResultOutput {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = begin(serializer, &self.audience, Format::Content)?;
        map.serialize_entry("content", &self.content)?;
        finish(map, &self.extra, OUTPUT_FIELDS)
    }
}

impl Serialize for StructuredToolResultOutput {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = begin(serializer, &self.audience, Format::Structured)?;
        map.serialize_entry("structuredContent", &self.structured_content)?;
        finish(map, &self.extra, OUTPUT_FIELDS)
    }
}

impl Serialize for ToolResultOutput {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ToolResultOutput::Content(output) => output.serialize(serializer),
            ToolResultOutput::Structured(output) => output.serialize(serializer),
        }
    }
}

// Reading: one side of the union requires its own format; the union dispatches on it.

impl<'de> Deserialize<'de> for ContentToolResultVariant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let parts = Parts::read(deserializer)?;
        parts.expect_format("variant", Format::Content)?;
        ContentToolResultVariant::from_parts(parts)
    }
}

impl<'de> Deserialize<'de> for StructuredToolResultVariant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let parts = Parts::read(deserializer)?;
        parts.expect_format("variant", Format::Structured)?;
        StructuredToolResultVariant::from_parts(parts)
    }
}

impl<'de> Deserialize<'de> for ToolResultVariant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let parts = Parts::read(deserializer)?;
        match parts.format("variant")? {
            Format::Content => ContentToolResultVariant::from_parts(parts).map(ToolResultVariant::Content),
            Format::Structured => StructuredToolResultVariant::from_parts(parts).map(ToolResultVariant::Structured),
        }
    }
}

impl<'de> Deserialize<'de> for ContentToolResultOutput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let parts = Parts::read(deserializer)?;
        parts.expect_format("output", Format::Content)?;
        ContentToolResultOutput::from_parts(parts)
    }
}

impl<'de> Deserialize<'de> for StructuredToolResultOutput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let parts = Parts::read(deserializer)?;
        parts.expect_format("output", Format::Structured)?;
        StructuredToolResultOutput::from_parts(parts)
    }
}

impl<'de> Deserialize<'de> for ToolResultOutput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let parts = Parts::read(deserializer)?;
        match parts.format("output")? {
            Format::Content => ContentToolResultOutput::from_parts(parts).map(ToolResultOutput::Content),
            Format::Structured => StructuredToolResultOutput::from_parts(parts).map(ToolResultOutput::Structured),
        }
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
        let ToolResultOutput::Structured(structured) = &output else { panic!("structured: {output:?}") };
        assert_eq!(structured.structured_content, Value::Null);
        assert_eq!(structured.extra, json!({"x-note": 1}).as_object().cloned().expect("object"));
        assert_eq!(serde_json::to_value(&output).expect("json"), wire);
        let selector: Selector =
            serde_json::from_value(json!({"audience": "user", "format": "content"})).expect("selector");
        assert_eq!(selector, Selector::new(Audience::User, Format::Content));
        assert!(serde_json::from_value::<Selector>(json!({"audience": "host", "format": "content"})).is_err());
    }

    /// Reads `text` as `T` and writes it again: the text comes back byte for byte (order kept).
    fn same_text<T: serde::de::DeserializeOwned + Serialize>(text: &str) -> T {
        let typed: T = serde_json::from_str(text).expect(text);
        assert_eq!(serde_json::to_string(&typed).expect("json"), text);
        typed
    }

    #[test]
    fn each_side_of_each_union_round_trips_byte_for_byte() {
        let text = r#"{"audience":"assistant","format":"content"}"#;
        let variant: ToolResultVariant = same_text(text);
        assert_eq!(variant, ToolResultVariant::new(&Selector::fallback(), None));
        assert_eq!(same_text::<ContentToolResultVariant>(text), ContentToolResultVariant::new(Audience::Assistant));

        let text = r#"{"audience":"user","format":"structured","schema":{"type":"object","required":["a"]}}"#;
        let variant: ToolResultVariant = same_text(text);
        let schema = json!({"type": "object", "required": ["a"]});
        let expected = StructuredToolResultVariant::new(Audience::User, Some(schema.clone()));
        assert_eq!(variant, ToolResultVariant::Structured(expected.clone()));
        assert_eq!(
            (variant.audience(), variant.format(), variant.schema()),
            ("user", Format::Structured, Some(&schema))
        );
        assert_eq!(same_text::<StructuredToolResultVariant>(text), expected);
        let text = r#"{"audience":"programmatic","format":"structured"}"#;
        assert_eq!(same_text::<ToolResultVariant>(text).schema(), None);

        let text = r#"{"audience":"assistant","format":"content","content":[{"type":"text","text":"hi"}]}"#;
        let output: ToolResultOutput = same_text(text);
        assert_eq!(output, ToolResultOutput::assistant_text("hi"));
        assert_eq!(output.selector().expect("selector"), Selector::fallback());
        let ToolResultOutput::Content(content) = output else { panic!("content") };
        assert_eq!(same_text::<ContentToolResultOutput>(text), content);

        for value in ["null", "0", "\"s\"", "[1,2]", r#"{"items":[1,2]}"#] {
            let text = format!(
                r#"{{"audience":"io.modelcontextprotocol/ui","format":"structured","structuredContent":{value}}}"#
            );
            let output: ToolResultOutput = same_text(&text);
            let expected = serde_json::from_str::<Value>(value).expect("value");
            let ui = Audience::Extension("io.modelcontextprotocol/ui".into());
            assert_eq!(output, ToolResultOutput::structured(ui.clone(), expected.clone()));
            assert_eq!(output.selector().expect("selector"), Selector::new(ui, Format::Structured));
            assert_eq!(same_text::<StructuredToolResultOutput>(&text).structured_content, expected);
        }
    }

    #[test]
    fn unknown_fields_and_meta_pass_through_in_their_order() {
        // The typed fields are written first, then the others as they came (the crate keeps JSON
        // order), so a wire object in the usual order comes back unchanged.
        let text =
            r#"{"audience":"assistant","format":"content","content":[],"_meta":{"k":1},"x-a":[null],"annotations":{}}"#;
        let output: ToolResultOutput = same_text(text);
        assert_eq!(output.extra().keys().collect::<Vec<_>>(), ["_meta", "x-a", "annotations"]);
        let text = r#"{"audience":"user","format":"structured","structuredContent":{},"_meta":{}}"#;
        assert_eq!(same_text::<ToolResultOutput>(text).extra()["_meta"], json!({}));
        let text = r#"{"audience":"user","format":"content","description":"d","_meta":{"a":"b"}}"#;
        assert_eq!(same_text::<ToolResultVariant>(text).extra()["description"], json!("d"));
        // Fields of no meaning to the side that reads them are unknown fields like any other.
        let text = r#"{"audience":"user","format":"content","content":[],"schema":{}}"#;
        same_text::<ToolResultOutput>(text);
        let text = r#"{"audience":"user","format":"structured","content":[],"structuredContent":1}"#;
        same_text::<ToolResultVariant>(text);
        // Elsewhere, the typed fields come first.
        let wire = json!({"x": 1, "structuredContent": 2, "format": "structured", "audience": "user"});
        let output: ToolResultOutput = serde_json::from_value(wire).expect("typed");
        let text = serde_json::to_string(&output).expect("json");
        assert_eq!(text, r#"{"audience":"user","format":"structured","structuredContent":2,"x":1}"#);
    }

    #[test]
    fn extra_never_overrides_or_doubles_a_typed_field() {
        let mut output = ContentToolResultOutput::new(Audience::User, vec![]);
        for key in ["audience", "format", "content", "structuredContent", "kept"] {
            output.extra.insert(key.into(), json!("extra"));
        }
        let text = serde_json::to_string(&output).expect("json");
        assert_eq!(text, r#"{"audience":"user","format":"content","content":[],"kept":"extra"}"#);
        let mut variant = ContentToolResultVariant::new(Audience::User);
        variant.extra.insert("schema".into(), json!({}));
        variant.extra.insert("format".into(), json!("structured"));
        let text = serde_json::to_string(&ToolResultVariant::from(variant)).expect("json");
        assert_eq!(text, r#"{"audience":"user","format":"content"}"#);
    }

    #[test]
    fn a_missing_or_wrong_format_is_refused_with_a_clear_error() {
        let refused = |wire: Value| -> (String, String) {
            let output = serde_json::from_value::<ToolResultOutput>(wire.clone()).expect_err("output refused");
            let variant = serde_json::from_value::<ToolResultVariant>(wire).expect_err("variant refused");
            (output.to_string(), variant.to_string())
        };
        let (output, variant) = refused(json!({"audience": "user", "content": []}));
        assert_eq!(output, r#"an output needs a format ("content" or "structured")"#);
        assert_eq!(variant, r#"a variant needs a format ("content" or "structured")"#);
        for format in [json!("text"), json!("Content"), json!(null), json!(1), json!(["content"])] {
            let (output, variant) = refused(json!({"audience": "user", "format": format, "content": []}));
            let tail = format!(r#"must be "content" or "structured", not {format}"#);
            assert_eq!(output, format!("the format of an output {tail}"));
            assert_eq!(variant, format!("the format of a variant {tail}"));
        }
        // One side of the union refuses the other's format.
        let wire = json!({"audience": "user", "format": "structured", "structuredContent": 1});
        let err = serde_json::from_value::<ContentToolResultOutput>(wire).expect_err("refused");
        assert_eq!(err.to_string(), r#"a content output must have format "content", not "structured""#);
        let wire = json!({"audience": "user", "format": "content", "content": []});
        let err = serde_json::from_value::<StructuredToolResultOutput>(wire.clone()).expect_err("refused");
        assert_eq!(err.to_string(), r#"a structured output must have format "structured", not "content""#);
        let err = serde_json::from_value::<StructuredToolResultVariant>(wire).expect_err("refused");
        assert_eq!(err.to_string(), r#"a structured variant must have format "structured", not "content""#);
        let wire = json!({"audience": "user", "format": "structured"});
        let err = serde_json::from_value::<ContentToolResultVariant>(wire).expect_err("refused");
        assert_eq!(err.to_string(), r#"a content variant must have format "content", not "structured""#);
    }

    #[test]
    fn a_shape_the_union_cannot_hold_is_refused() {
        let output = |wire: Value| serde_json::from_value::<ToolResultOutput>(wire).expect_err("refused").to_string();
        let variant = |wire: Value| serde_json::from_value::<ToolResultVariant>(wire).expect_err("refused").to_string();
        assert_eq!(output(json!({"audience": "user", "format": "content"})), "a content output needs content");
        assert_eq!(
            output(json!({"audience": "user", "format": "content", "content": {}})),
            "the content of an output must be an array, not {}"
        );
        assert_eq!(
            output(json!({"audience": "user", "format": "content", "content": [], "structuredContent": 1})),
            "a content output cannot carry structuredContent"
        );
        assert_eq!(
            output(json!({"audience": "user", "format": "structured"})),
            "a structured output needs structuredContent"
        );
        assert_eq!(
            output(json!({"audience": "user", "format": "structured", "structuredContent": 1, "content": []})),
            "a structured output cannot carry content"
        );
        assert_eq!(output(json!({"format": "content", "content": []})), "an output needs an audience");
        assert_eq!(
            output(json!({"audience": 1, "format": "content", "content": []})),
            "the audience of an output must be a string, not 1"
        );
        assert_eq!(
            variant(json!({"audience": "user", "format": "content", "schema": {}})),
            "a content variant cannot declare a schema"
        );
        assert_eq!(
            variant(json!({"audience": "user", "format": "structured", "schema": true})),
            "a variant's schema must be a JSON object"
        );
        assert_eq!(variant(json!({"format": "content"})), "a variant needs an audience");
        assert!(output(json!([])).contains("invalid type"));
        assert!(variant(json!("assistant/content")).contains("invalid type"));
    }

    #[test]
    fn typed_declarations_and_results_pass_the_crates_own_checks() {
        // Server side: a declaration made of typed variants, a result made of typed outputs.
        let config = Config::new();
        let ui = Audience::Extension(crate::APPS_EXTENSION.into());
        let variants: Vec<ToolResultVariant> = vec![
            ContentToolResultVariant::new(Audience::Assistant).into(),
            StructuredToolResultVariant::new(Audience::Assistant, Some(json!({"type": "object"}))).into(),
            ToolResultVariant::new(&Selector::new(Audience::User, Format::Content), None),
            StructuredToolResultVariant::new(Audience::Programmatic, None).into(),
        ];
        let declaration = json!({"name": "t", "inputSchema": {"type": "object"}, "outputVariants": variants});
        let tool = ServerTool::declare(&declaration, None, &config).expect("declared");
        let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], config);
        let mut meta = Map::new();
        meta.insert("x-trace".into(), json!("t1"));
        let mut user = ContentToolResultOutput::new(Audience::User, vec![json!({"type": "text", "text": "table"})]);
        user.extra.insert("_meta".into(), json!({"k": 1}));
        let produced = ProducedOutputs {
            outputs: vec![
                ToolResultOutput::assistant_text("1 row"),
                ToolResultOutput::structured(Audience::Assistant, json!({"rows": 1})),
                user.clone().into(),
                ToolResultOutput::structured(Audience::Programmatic, Value::Null),
                ToolResultOutput::structured(ui, json!({})),
            ],
            is_error: false,
            meta: Some(meta),
        };
        let json = produced.to_json();
        let requested = json!([
            {"audience": "assistant", "format": "structured"},
            {"audience": "user", "format": "content"},
            {"audience": "programmatic", "format": "structured"}
        ]);
        let result = tool.respond(&conn, Some(&requested), Produced::new(&json)).expect("responded");
        // Client side: the advertised Tool read back as typed variants, and the checked result
        // as typed outputs equal to what the tool produced.
        let advertised = tool.advertise(&conn);
        let read: Vec<ToolResultVariant> =
            serde_json::from_value(advertised["outputVariants"].clone()).expect("typed variants");
        assert_eq!(read, variants);
        let host = crate::ReceivedTool::accept(&advertised, &conn).expect("accepted");
        host.check(Some(&requested), &result).expect("checked");
        let outputs: Vec<ToolResultOutput> = serde_json::from_value(result["outputs"].clone()).expect("typed");
        let expected = [
            ToolResultOutput::structured(Audience::Assistant, json!({"rows": 1})),
            user.into(),
            ToolResultOutput::structured(Audience::Programmatic, Value::Null),
        ];
        assert_eq!(outputs.len(), expected.len());
        assert!(expected.iter().all(|output| outputs.contains(output)), "{outputs:?}");
    }

    proptest::proptest! {
        /// Any object the union reads is written back as the same JSON: nothing is lost or added.
        #[test]
        fn whatever_the_unions_read_they_write_back_unchanged(
            audience in "assistant|user|programmatic|x/y|\\PC{0,4}",
            format in "content|structured|other",
            payload in crate::testing::arb_json(),
            extra in proptest::collection::vec(
                ("audience|format|content|structuredContent|schema|_meta|\\PC{0,4}", crate::testing::arb_json()),
                0..4,
            ),
        ) {
            let mut object = Map::new();
            object.insert("audience".into(), Value::String(audience));
            object.insert("format".into(), Value::String(format));
            for key in ["content", "structuredContent", "schema"] {
                object.insert(key.into(), payload.clone());
            }
            for (key, value) in extra {
                object.insert(key, value);
            }
            // Every subset of the three payload fields, in every order the map gives them.
            for keep in 0..8u8 {
                let mut wire = object.clone();
                for (bit, key) in ["content", "structuredContent", "schema"].into_iter().enumerate() {
                    if keep & (1 << bit) == 0 {
                        wire.shift_remove(key);
                    }
                }
                let wire = Value::Object(wire);
                if let Ok(output) = serde_json::from_value::<ToolResultOutput>(wire.clone()) {
                    proptest::prop_assert_eq!(serde_json::to_value(&output).expect("json"), wire.clone());
                }
                if let Ok(variant) = serde_json::from_value::<ToolResultVariant>(wire.clone()) {
                    proptest::prop_assert_eq!(serde_json::to_value(&variant).expect("json"), wire.clone());
                }
            }
        }
    }
}
