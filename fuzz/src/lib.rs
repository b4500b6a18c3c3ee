//! The fuzz targets' shared code: a grammar of protocol-shaped JSON (built with `arbitrary`), and
//! the invariants each target asserts beyond "no panic". One module per kind of entry point; each
//! `fuzz_targets/*.rs` is one line calling into here.
//!
//! Invariants every target checks on every call:
//! - an error has a known code (`ErrorCode::parse(code.as_str())` round-trips) and a JSON-Pointer
//!   path (empty, or starting with `/`), a non-empty message, and a JSON-RPC code only among the
//!   three the contract uses;
//! - the same input gives the same answer (ops are deterministic);
//! - an `ok` answer is JSON that survives a serde_json text round trip.
//!
//! Op-specific ones are with each module.

use arbitrary::{Arbitrary, Result as ArbResult, Unstructured};
use mcp_outputs::{Error, ErrorCode};
use serde_json::{Map, Number, Value};

pub const REVISIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2026-12-01"];
pub const UI: &str = "io.modelcontextprotocol/ui";
pub const CHARTS: &str = "com.example/charts";

/// Asserts the error invariants above.
pub fn check_error(e: &Error) {
    assert_eq!(ErrorCode::parse(e.code().as_str()), Some(e.code()), "unknown code in {e:?}");
    assert!(e.path().is_empty() || e.path().starts_with('/'), "path is not a JSON Pointer: {e:?}");
    assert!(!e.message().is_empty(), "empty message: {e:?}");
    if let Some(rpc) = e.jsonrpc_code() {
        assert!([-32602, -32603, -32022].contains(&rpc), "unexpected JSON-RPC code {rpc}: {e:?}");
    }
    // Messages echo input only in bounded form (issue 12, item 12).
    assert!(e.message().len() <= 64 * 1024, "message of {} bytes", e.message().len());
}

/// Asserts that an `ok` value survives a serde_json text round trip.
pub fn check_round_trip(value: &Value) {
    let text = value.to_string();
    let mut de = serde_json::Deserializer::from_str(&text);
    de.disable_recursion_limit();
    let back: Value = serde::Deserialize::deserialize(&mut de).expect("an ok answer is JSON");
    assert_eq!(&back, value, "ok answer changed in a text round trip");
}

/// Same answer twice; returns it.
pub fn deterministic<T: PartialEq + std::fmt::Debug>(mut f: impl FnMut() -> Result<T, Error>) -> Result<T, Error> {
    let first = f();
    let second = f();
    assert_eq!(first, second, "not deterministic");
    if let Err(e) = &first {
        check_error(e);
    }
    first
}

/// Every fuzz target by name, as `fuzz_targets/<name>.rs` calls it: one table for the libFuzzer
/// binaries and the replay that `make test` runs (tests/replay.rs), so the two cannot drift.
pub fn target(name: &str) -> Option<fn(&[u8])> {
    Some(match name {
        "jsontext" => jsontext::fuzz,
        "limits" => limits::fuzz,
        "text_route" => text_route::fuzz,
        "text_check" => text_check::fuzz,
        "text_respond" => text_respond::fuzz,
        "text_request" => text_request::fuzz,
        "tape_raw" => tape::raw::fuzz,
        "tape_paths" => tape::paths::fuzz,
        "tape_snapshot" => tape::snapshot::fuzz,
        "op_declare" => |d| ops::fuzz("declare", d),
        "op_advertise" => |d| ops::fuzz("advertise", d),
        "op_select" => |d| ops::fuzz("select", d),
        "op_respond" => |d| ops::fuzz("respond", d),
        "op_accept" => |d| ops::fuzz("accept", d),
        "op_plan" => |d| ops::fuzz("plan", d),
        "op_check" => |d| ops::fuzz("check", d),
        "op_route" => |d| ops::fuzz("route", d),
        "op_migrate" => |d| ops::fuzz("migrate", d),
        "op_list" => |d| ops::fuzz("list", d),
        "op_discover" => |d| ops::fuzz("discover", d),
        "op_scenario" => |d| ops::fuzz("scenario", d),
        _ => return None,
    })
}

/// Runs the target `name` on one input (what each `fuzz_targets/*.rs` calls).
pub fn run(name: &str, data: &[u8]) {
    target(name).unwrap_or_else(|| panic!("no fuzz target {name}"))(data)
}

// ---- the grammar -------------------------------------------------------------------------------

/// Any JSON value, biased to short protocol strings.
#[derive(Arbitrary, Debug, Clone)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(Str),
    Array(Vec<Json>),
    Object(Vec<(Str, Json)>),
}

/// Strings: mostly the protocol's own words, sometimes anything.
#[derive(Arbitrary, Debug, Clone)]
pub enum Str {
    Word(Word),
    Any(String),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Word {
    Assistant,
    User,
    Programmatic,
    Ui,
    Charts,
    Content,
    Structured,
    Audience,
    Format,
    Schema,
    Type,
    Object,
    Text,
    Outputs,
    StructuredContent,
    IsError,
    Meta,
    Version(u8),
    Ref,
    Proto,
}

impl Word {
    fn as_str(self) -> &'static str {
        match self {
            Word::Assistant => "assistant",
            Word::User => "user",
            Word::Programmatic => "programmatic",
            Word::Ui => UI,
            Word::Charts => CHARTS,
            Word::Content => "content",
            Word::Structured => "structured",
            Word::Audience => "audience",
            Word::Format => "format",
            Word::Schema => "schema",
            Word::Type => "type",
            Word::Object => "object",
            Word::Text => "text",
            Word::Outputs => "outputs",
            Word::StructuredContent => "structuredContent",
            Word::IsError => "isError",
            Word::Meta => "_meta",
            Word::Version(i) => REVISIONS.get(usize::from(i) % REVISIONS.len()).copied().unwrap_or("2026-12-01"),
            Word::Ref => "$ref",
            Word::Proto => "__proto__",
        }
    }
}

impl Str {
    pub fn value(&self) -> String {
        match self {
            Str::Word(w) => w.as_str().to_owned(),
            Str::Any(s) => s.clone(),
        }
    }
}

impl Json {
    pub fn value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Int(i) => Value::from(*i),
            Json::Uint(u) => Value::from(*u),
            Json::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Json::Str(s) => Value::String(s.value()),
            Json::Array(items) => Value::Array(items.iter().map(Json::value).collect()),
            Json::Object(members) => Value::Object(members.iter().map(|(k, v)| (k.value(), v.value())).collect()),
        }
    }
}

/// A piece of input that is usually well-shaped and sometimes replaced by anything.
#[derive(Arbitrary, Debug)]
pub enum Or<T> {
    Shaped(T),
    Junk(Json),
}

pub trait ToJson {
    fn to_json(&self) -> Value;
}

impl<T: ToJson> ToJson for Or<T> {
    fn to_json(&self) -> Value {
        match self {
            Or::Shaped(t) => t.to_json(),
            Or::Junk(j) => j.value(),
        }
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}

impl ToJson for Json {
    fn to_json(&self) -> Value {
        self.value()
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum AudienceG {
    Assistant,
    User,
    Programmatic,
    Ui,
    Charts,
    Unregistered,
    BadId,
}

impl AudienceG {
    fn as_str(self) -> &'static str {
        match self {
            AudienceG::Assistant => "assistant",
            AudienceG::User => "user",
            AudienceG::Programmatic => "programmatic",
            AudienceG::Ui => UI,
            AudienceG::Charts => CHARTS,
            AudienceG::Unregistered => "com.example/other",
            AudienceG::BadId => "Not An Id",
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum FormatG {
    Content,
    Structured,
    Other,
}

impl FormatG {
    fn as_str(self) -> &'static str {
        match self {
            FormatG::Content => "content",
            FormatG::Structured => "structured",
            FormatG::Other => "text",
        }
    }
}

#[derive(Arbitrary, Debug)]
pub struct SelectorG {
    audience: AudienceG,
    format: FormatG,
}

impl ToJson for SelectorG {
    fn to_json(&self) -> Value {
        serde_json::json!({"audience": self.audience.as_str(), "format": self.format.as_str()})
    }
}

#[derive(Arbitrary, Debug)]
pub enum SchemaG {
    ObjectN,
    Array,
    Pattern(Str),
    Empty,
    LocalRef,
    WithDollarSchema,
    External,
    Invalid,
    NotObject(bool),
    Any(Json),
}

impl ToJson for SchemaG {
    fn to_json(&self) -> Value {
        use serde_json::json;
        match self {
            SchemaG::ObjectN => json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
            SchemaG::Array => json!({"type": "array", "items": {"type": "number"}}),
            SchemaG::Pattern(p) => json!({"type": "string", "pattern": p.value()}),
            SchemaG::Empty => json!({}),
            SchemaG::LocalRef => json!({"$ref": "#/$defs/a", "$defs": {"a": {"type": "object"}}}),
            SchemaG::WithDollarSchema => {
                json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"})
            }
            SchemaG::External => json!({"$ref": "https://example.com/s.json"}),
            SchemaG::Invalid => json!({"type": "nope"}),
            SchemaG::NotObject(b) => json!(b),
            SchemaG::Any(j) => j.value(),
        }
    }
}

#[derive(Arbitrary, Debug)]
pub struct VariantG {
    audience: AudienceG,
    format: FormatG,
    schema: Option<SchemaG>,
    extra: Option<(Str, Json)>,
}

impl ToJson for VariantG {
    fn to_json(&self) -> Value {
        let mut v = Map::new();
        v.insert("audience".into(), self.audience.as_str().into());
        v.insert("format".into(), self.format.as_str().into());
        if let Some(s) = &self.schema {
            v.insert("schema".into(), s.to_json());
        }
        if let Some((k, j)) = &self.extra {
            v.insert(k.value(), j.value());
        }
        Value::Object(v)
    }
}

#[derive(Arbitrary, Debug)]
pub struct ToolG {
    no_name: bool,
    no_input_schema: bool,
    assistant_content_first: bool,
    variants: Option<Vec<Or<VariantG>>>,
    apps_tool: bool,
    output_schema: Option<SchemaG>,
    extra: Option<(Str, Json)>,
}

impl ToJson for ToolG {
    fn to_json(&self) -> Value {
        let mut t = Map::new();
        if !self.no_name {
            t.insert("name".into(), "search".into());
        }
        if !self.no_input_schema {
            t.insert("inputSchema".into(), serde_json::json!({"type": "object"}));
        }
        if let Some(variants) = &self.variants {
            let mut list = Vec::new();
            if self.assistant_content_first {
                list.push(serde_json::json!({"audience": "assistant", "format": "content"}));
            }
            list.extend(variants.iter().map(ToJson::to_json));
            t.insert("outputVariants".into(), Value::Array(list));
        }
        if self.apps_tool {
            t.insert("_meta".into(), serde_json::json!({"ui": {"resourceUri": "ui://v"}}));
        }
        if let Some(s) = &self.output_schema {
            t.insert("outputSchema".into(), s.to_json());
        }
        if let Some((k, j)) = &self.extra {
            t.insert(k.value(), j.value());
        }
        Value::Object(t)
    }
}

#[derive(Arbitrary, Debug)]
pub enum BlockG {
    Text(Str),
    Image,
    Audio,
    ResourceLink,
    Resource,
    Unknown(Str),
    Annotated(Box<BlockG>, Vec<AudienceG>, bool),
    Any(Json),
}

impl ToJson for BlockG {
    fn to_json(&self) -> Value {
        use serde_json::json;
        match self {
            BlockG::Text(s) => json!({"type": "text", "text": s.value()}),
            BlockG::Image => json!({"type": "image", "data": "aGk=", "mimeType": "image/png"}),
            BlockG::Audio => json!({"type": "audio", "data": "aGk=", "mimeType": "audio/wav"}),
            BlockG::ResourceLink => json!({"type": "resource_link", "uri": "file:///a", "name": "a"}),
            BlockG::Resource => json!({"type": "resource", "resource": {"uri": "file:///b", "text": "b"}}),
            BlockG::Unknown(t) => json!({"type": t.value()}),
            BlockG::Annotated(inner, audiences, last_modified) => {
                let mut b = inner.to_json();
                if let Some(obj) = b.as_object_mut() {
                    let mut ann = Map::new();
                    let list: Vec<Value> = audiences.iter().map(|a| a.as_str().into()).collect();
                    ann.insert("audience".into(), Value::Array(list));
                    if *last_modified {
                        ann.insert("lastModified".into(), "2026-01-01T00:00:00Z".into());
                    }
                    obj.insert("annotations".into(), Value::Object(ann));
                }
                b
            }
            BlockG::Any(j) => j.value(),
        }
    }
}

#[derive(Arbitrary, Debug)]
pub enum PayloadG {
    Content(Vec<BlockG>),
    Structured(Json),
    Both(Vec<BlockG>, Json),
    Neither,
}

#[derive(Arbitrary, Debug)]
pub struct OutputG {
    audience: AudienceG,
    format: FormatG,
    payload: PayloadG,
}

impl ToJson for OutputG {
    fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("audience".into(), self.audience.as_str().into());
        o.insert("format".into(), self.format.as_str().into());
        match &self.payload {
            PayloadG::Content(blocks) => {
                o.insert("content".into(), blocks.to_json());
            }
            PayloadG::Structured(j) => {
                o.insert("structuredContent".into(), j.value());
            }
            PayloadG::Both(blocks, j) => {
                o.insert("content".into(), blocks.to_json());
                o.insert("structuredContent".into(), j.value());
            }
            PayloadG::Neither => {}
        }
        Value::Object(o)
    }
}

#[derive(Arbitrary, Debug)]
pub struct MetaG {
    ui: bool,
    charts: bool,
    other: bool,
}

impl ToJson for MetaG {
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        if self.ui {
            m.insert(UI.into(), serde_json::json!({"prefersBorder": true}));
        }
        if self.charts {
            m.insert(CHARTS.into(), serde_json::json!({"theme": "dark"}));
        }
        if self.other {
            m.insert("com.example/trace".into(), "t".into());
        }
        Value::Object(m)
    }
}

/// A tools/call result as a client receives it, of any revision.
#[derive(Arbitrary, Debug)]
pub struct ResultG {
    outputs: Option<Vec<Or<OutputG>>>,
    content: Option<Vec<BlockG>>,
    structured: Option<Json>,
    result_type: Option<Str>,
    is_error: Option<bool>,
    meta: Option<MetaG>,
    input_requests: bool,
}

impl ToJson for ResultG {
    fn to_json(&self) -> Value {
        let mut r = Map::new();
        if let Some(o) = &self.outputs {
            r.insert("outputs".into(), o.to_json());
        }
        if let Some(c) = &self.content {
            r.insert("content".into(), c.to_json());
        }
        if let Some(s) = &self.structured {
            r.insert("structuredContent".into(), s.value());
        }
        if let Some(t) = &self.result_type {
            r.insert("resultType".into(), t.value().into());
        }
        if let Some(e) = self.is_error {
            r.insert("isError".into(), e.into());
        }
        if let Some(m) = &self.meta {
            r.insert("_meta".into(), m.to_json());
        }
        if self.input_requests {
            r.insert("inputRequests".into(), serde_json::json!({"a": {"method": "elicitation/create"}}));
        }
        Value::Object(r)
    }
}

#[derive(Arbitrary, Debug)]
pub struct ProducedG {
    outputs: Or<Vec<Or<OutputG>>>,
    is_error: Option<bool>,
    meta: Option<MetaG>,
}

impl ToJson for ProducedG {
    fn to_json(&self) -> Value {
        let mut p = Map::new();
        p.insert("outputs".into(), self.outputs.to_json());
        if let Some(e) = self.is_error {
            p.insert("isError".into(), e.into());
        }
        if let Some(m) = &self.meta {
            p.insert("_meta".into(), m.to_json());
        }
        Value::Object(p)
    }
}

#[derive(Arbitrary, Debug)]
pub struct LegacyG {
    output_schema: Option<SchemaG>,
    structured_from: Option<SelectorG>,
    mirror: Option<bool>,
}

impl ToJson for LegacyG {
    fn to_json(&self) -> Value {
        let mut l = Map::new();
        if let Some(s) = &self.output_schema {
            l.insert("outputSchema".into(), s.to_json());
        }
        if let Some(s) = &self.structured_from {
            l.insert("structuredFrom".into(), format!("{}/{}", s.audience.as_str(), s.format.as_str()).into());
        }
        if let Some(m) = self.mirror {
            l.insert("mirror".into(), m.into());
        }
        Value::Object(l)
    }
}

#[derive(Arbitrary, Debug)]
pub enum VersionG {
    Revision(u8),
    Junk(Str),
    NotAString(Json),
}

impl ToJson for VersionG {
    fn to_json(&self) -> Value {
        match self {
            VersionG::Revision(i) => REVISIONS.get(usize::from(*i) % REVISIONS.len()).copied().unwrap_or("").into(),
            VersionG::Junk(s) => s.value().into(),
            VersionG::NotAString(j) => j.value(),
        }
    }
}

#[derive(Arbitrary, Debug)]
pub struct ExtensionG {
    id: AudienceG,
    structured_only: bool,
    model_context: bool,
    meta_key: bool,
    legacy_projection: bool,
}

impl ToJson for ExtensionG {
    fn to_json(&self) -> Value {
        let formats = if self.structured_only {
            serde_json::json!(["structured"])
        } else {
            serde_json::json!(["structured", "content"])
        };
        serde_json::json!({
            "id": self.id.as_str(),
            "formats": formats,
            "modelContext": self.model_context,
            "metaKey": if self.meta_key { Value::from(self.id.as_str()) } else { Value::Null },
            "legacyProjection": self.legacy_projection,
        })
    }
}

#[derive(Arbitrary, Debug)]
pub enum ModeG {
    Conversational,
    Code,
    StructuredModel,
    UserMedia,
    HostTable,
    Apps,
    AppOnly,
    Other(Str),
}

impl ToJson for ModeG {
    fn to_json(&self) -> Value {
        match self {
            ModeG::Conversational => "conversational".into(),
            ModeG::Code => "code".into(),
            ModeG::StructuredModel => "structured-model".into(),
            ModeG::UserMedia => "user-media".into(),
            ModeG::HostTable => "host-table".into(),
            ModeG::Apps => "apps".into(),
            ModeG::AppOnly => "app-only".into(),
            ModeG::Other(s) => s.value().into(),
        }
    }
}

#[derive(Arbitrary, Debug)]
pub struct LegacyToolG {
    output_schema: Option<SchemaG>,
    apps: bool,
    variants: bool,
    extra: Option<(Str, Json)>,
}

impl ToJson for LegacyToolG {
    fn to_json(&self) -> Value {
        let mut t = Map::new();
        t.insert("name".into(), "legacy".into());
        t.insert("inputSchema".into(), serde_json::json!({"type": "object"}));
        if let Some(s) = &self.output_schema {
            t.insert("outputSchema".into(), s.to_json());
        }
        if self.apps {
            t.insert("_meta".into(), serde_json::json!({"ui": {"resourceUri": "ui://l"}}));
        }
        if self.variants {
            t.insert("outputVariants".into(), serde_json::json!([{"audience": "assistant", "format": "content"}]));
        }
        if let Some((k, j)) = &self.extra {
            t.insert(k.value(), j.value());
        }
        Value::Object(t)
    }
}

/// A whole tools/list: the server's tools, their legacy options and cache option (`list`), or
/// the result a client receives (`discover`).
#[derive(Arbitrary, Debug)]
pub struct ListG {
    /// Each tool, and whether it keeps the shared name (a duplicate) instead of its own.
    tools: Vec<(bool, Or<ToolG>)>,
    /// Legacy options keyed by the name of tool `index % len` (a name no tool has when empty).
    legacy_by_tool: Option<Or<Vec<(u8, Or<LegacyG>)>>>,
    cache: Option<Or<CacheG>>,
    /// `discover`: the result's `resultType`, when present.
    result_type: Option<Or<ResultTypeG>>,
}

#[derive(Arbitrary, Debug)]
pub struct CacheG {
    ttl_ms: Option<Or<u32>>,
    public: Option<bool>,
}

impl ToJson for CacheG {
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(t) = &self.ttl_ms {
            m.insert("ttlMs".into(), t.to_json());
        }
        if let Some(p) = self.public {
            m.insert("cacheScope".into(), if p { "public" } else { "private" }.into());
        }
        Value::Object(m)
    }
}

impl ToJson for u32 {
    fn to_json(&self) -> Value {
        Value::from(*self)
    }
}

#[derive(Arbitrary, Debug)]
pub enum ResultTypeG {
    Complete,
    /// Not a tools/list answer: always refused.
    InputRequired,
}

impl ToJson for ResultTypeG {
    fn to_json(&self) -> Value {
        match self {
            ResultTypeG::Complete => "complete".into(),
            ResultTypeG::InputRequired => "input_required".into(),
        }
    }
}

impl ListG {
    fn tools(&self) -> Vec<Value> {
        self.tools
            .iter()
            .enumerate()
            .map(|(i, (shared, tool))| {
                let mut t = tool.to_json();
                if let (false, Some(name)) = (*shared, t.get_mut("name")) {
                    *name = format!("search{i}").into();
                }
                t
            })
            .collect()
    }

    fn legacy_by_tool(&self, tools: &[Value]) -> Option<Value> {
        self.legacy_by_tool.as_ref().map(|by| match by {
            Or::Junk(j) => j.value(),
            Or::Shaped(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, legacy)| {
                        let name = tools
                            .get(usize::from(*k) % tools.len().max(1))
                            .and_then(|t| t.get("name"))
                            .and_then(Value::as_str)
                            .unwrap_or("ghost");
                        (name.to_owned(), legacy.to_json())
                    })
                    .collect(),
            ),
        })
    }

    fn received(&self) -> Value {
        let mut m = Map::new();
        if let Some(c) = &self.result_type {
            m.insert("resultType".into(), c.to_json());
        }
        if let Some(Value::Object(cache)) = self.cache.as_ref().map(ToJson::to_json) {
            m.extend(cache);
        }
        m.insert("tools".into(), Value::Array(self.tools()));
        Value::Object(m)
    }
}

/// Every field any op takes; `input` keeps the op's own fields and the common ones.
#[derive(Arbitrary, Debug)]
pub struct OpInputG {
    version: Option<Or<VersionG>>,
    negotiated: Option<Vec<AudienceG>>,
    extensions: Option<Or<Vec<Or<ExtensionG>>>>,
    tool: Or<ToolG>,
    legacy: Option<Or<LegacyG>>,
    requested: Option<Or<Vec<Or<SelectorG>>>>,
    produced: Or<ProducedG>,
    result: Or<ResultG>,
    consumers: Option<Vec<SelectorG>>,
    mode: Option<ModeG>,
    require_schema: Option<bool>,
    schemas: Option<bool>,
    legacy_tool: Or<LegacyToolG>,
    options: Option<(Option<bool>, Option<bool>)>,
    list: ListG,
    /// Values for fields this grammar does not know (a new op's), and junk fields.
    others: Vec<(Str, Json)>,
}

impl OpInputG {
    pub fn input(&self, op: &str) -> Value {
        let fields = mcp_outputs::ops::OPERATIONS
            .iter()
            .find(|(name, _)| *name == op)
            .map(|(_, fields)| *fields)
            .expect("an op of ops::OPERATIONS");
        let mut m = Map::new();
        if let Some(v) = &self.version {
            m.insert("protocolVersion".into(), v.to_json());
        }
        if let Some(n) = &self.negotiated {
            m.insert("negotiated".into(), n.iter().map(|a| Value::from(a.as_str())).collect());
        }
        if let Some(e) = &self.extensions {
            m.insert("extensions".into(), e.to_json());
        }
        let mut unknown = self.others.iter();
        for field in fields {
            let value = match *field {
                "tool" => Some(self.tool.to_json()),
                "legacy" => self.legacy.as_ref().map(ToJson::to_json),
                "requestedOutputs" => self.requested.as_ref().map(ToJson::to_json),
                "produced" => Some(self.produced.to_json()),
                "result" if op == "discover" => Some(self.list.received()),
                "result" => Some(self.result.to_json()),
                "tools" => Some(Value::Array(self.list.tools())),
                "legacyByTool" => self.list.legacy_by_tool(&self.list.tools()),
                "cache" => self.list.cache.as_ref().map(ToJson::to_json),
                "consumers" => self.consumers.as_ref().map(ToJson::to_json),
                "mode" => self.mode.as_ref().map(ToJson::to_json),
                "requireSchema" => self.require_schema.map(Value::from),
                "schemas" => self.schemas.map(Value::from),
                "legacyTool" => Some(self.legacy_tool.to_json()),
                "options" => self.options.map(|(p, a)| {
                    let mut o = Map::new();
                    if let Some(p) = p {
                        o.insert("programmaticFromOutputSchema".into(), p.into());
                    }
                    if let Some(a) = a {
                        o.insert("apps".into(), a.into());
                    }
                    Value::Object(o)
                }),
                _ => unknown.next().map(|(_, j)| j.value()),
            };
            if let Some(value) = value {
                m.insert((*field).into(), value);
            }
        }
        // Junk fields the op does not take: they are ignored or malformed, never a crash.
        for (k, j) in unknown {
            m.insert(k.value(), j.value());
        }
        Value::Object(m)
    }
}

/// The input of a structured target: JSON text (the seeds from tests/corpus are op inputs as
/// JSON text, starting with `{`), or else bytes for the grammar.
pub fn structured_input(data: &[u8], op: &str) -> Option<Value> {
    if data.first() == Some(&b'{') {
        let mut de = serde_json::Deserializer::from_slice(data);
        de.disable_recursion_limit();
        return serde::Deserialize::deserialize(&mut de).ok();
    }
    let mut u = Unstructured::new(data);
    let g: ArbResult<OpInputG> = OpInputG::arbitrary(&mut u);
    g.ok().map(|g| g.input(op))
}

pub mod ops {
    //! `ops::run` per op. Beyond the common invariants: `route` never hands back an output that
    //! is not in the result (2026-12-01), `respond` sends only produced outputs, in request
    //! order, and `scenario`'s route agrees with its own result.
    use super::*;

    pub fn fuzz(op: &str, data: &[u8]) {
        let Some(input) = structured_input(data, op) else { return };
        let answer = deterministic(|| mcp_outputs::ops::run(op, &input));
        // The npm package's `runOperation` reads check, route and respond through a tape of
        // their value (`ops::ThroughTape`): every answer and error must be the value path's.
        if ["check", "route", "respond", "scenario"].contains(&op) {
            let through = deterministic(|| {
                mcp_outputs::ops::run_with(op, &input, mcp_outputs::Limits::default(), &mcp_outputs::ops::ThroughTape)
            });
            let seen = |r: &mcp_outputs::Result<Value>| {
                r.clone().map_err(|e| (e.code(), e.path().to_owned(), e.message().to_owned(), e.jsonrpc_code()))
            };
            assert_eq!(seen(&answer), seen(&through), "ops::run and ThroughTape differ on {op} {input}");
        }
        let Ok(ok) = answer else { return };
        check_round_trip(&ok);
        match op {
            "route" => {
                if let Some(result) = input.get("result") {
                    route_outputs_are_received(&ok, result);
                }
            }
            "respond" => respond_sends_produced(&input, &ok),
            "scenario" => {
                if let (Some(route), Some(result)) = (ok.get("route"), ok.get("result")) {
                    route_outputs_are_received(route, result);
                }
            }
            _ => {}
        }
    }

    /// Every output a route lists is one of `result.outputs` (new revision), and the View's
    /// value is a received ui output's (or the legacy result's) value.
    pub fn route_outputs_are_received(route: &Value, result: &Value) {
        let Some(outputs) = result.get("outputs").and_then(Value::as_array) else { return };
        let legacy_content = result.get("content");
        let mut routed: Vec<&Value> = Vec::new();
        for key in ["model", "user", "programmatic"] {
            routed.extend(route.get(key).and_then(Value::as_array).into_iter().flatten());
        }
        for list in route.get("extensions").and_then(Value::as_object).into_iter().flat_map(Map::values) {
            routed.extend(list.as_array().into_iter().flatten());
        }
        for item in routed {
            // A legacy result (a revision before 2026-12-01 whose result also carries
            // `outputs`) routes its `content`; anything else must be a received output.
            let from_legacy = legacy_content.is_some() && item.get("content") == legacy_content;
            let structured_legacy = item.get("structuredContent").is_some()
                && item.get("structuredContent") == result.get("structuredContent");
            assert!(
                outputs.contains(item) || from_legacy || structured_legacy,
                "route returned an output that is not in the result: {item}"
            );
        }
        if let Some(view) = route.get("view").filter(|v| !v.is_null()) {
            let value = view.get("structuredContent");
            let received =
                outputs.iter().any(|o| o.get("structuredContent") == value) || result.get("structuredContent") == value;
            assert!(received, "view holds a value that is not in the result: {view}");
        }
    }

    /// Under 2026-12-01 every sent output is a produced one, and they follow request order.
    fn respond_sends_produced(input: &Value, ok: &Value) {
        let Some(sent) = ok.pointer("/result/outputs").and_then(Value::as_array) else { return };
        let produced = input.pointer("/produced/outputs").and_then(Value::as_array);
        for output in sent {
            assert!(produced.is_some_and(|p| p.contains(output)), "respond sent an output nobody produced: {output}");
        }
        if let Some(requested) = input.get("requestedOutputs").and_then(Value::as_array) {
            let position = |o: &Value| {
                requested
                    .iter()
                    .position(|s| s.get("audience") == o.get("audience") && s.get("format") == o.get("format"))
            };
            let order: Vec<Option<usize>> = sent.iter().map(position).collect();
            assert!(order.iter().all(Option::is_some), "respond sent an unrequested output");
            assert!(order.windows(2).all(|w| w.first() < w.get(1)), "respond broke request order: {order:?}");
        }
    }
}

pub mod tape;

/// Splits raw bytes into a selector byte and up to `N` texts separated by 0xFF (never in
/// UTF-8), each decoded lossily (the text entry points take `&str`).
pub fn split<const N: usize>(data: &[u8]) -> Option<(u8, [String; N])> {
    let (&first, rest) = data.split_first()?;
    let mut parts = rest.splitn(N, |b| *b == 0xFF);
    let texts: [String; N] = std::array::from_fn(|_| String::from_utf8_lossy(parts.next().unwrap_or(b"")).into_owned());
    Some((first, texts))
}

/// The tools and connections the text targets use, picked by one byte.
pub mod fixtures {
    use super::*;
    use mcp_outputs::client::ReceivedTool;
    use mcp_outputs::connection::{Config, Connection};
    use mcp_outputs::limits::Limits;
    use mcp_outputs::server::ServerTool;
    use serde_json::json;
    use std::sync::Arc;

    pub fn config() -> Arc<Config> {
        let ext = json!([{"id": CHARTS, "formats": ["structured", "content"], "modelContext": true, "metaKey": CHARTS, "legacyProjection": true}]);
        Config::with_extensions(Some(&ext), Limits::default()).expect("the fixture extension is valid")
    }

    pub fn tool(pick: u8) -> Value {
        let mut variants = vec![
            json!({"audience": "assistant", "format": "content"}),
            json!({"audience": "assistant", "format": "structured", "schema": {"type": "object", "properties": {"n": {"type": "integer"}}}}),
            json!({"audience": "user", "format": "structured", "schema": {"type": "array"}}),
            json!({"audience": "programmatic", "format": "structured"}),
            json!({"audience": UI, "format": "structured", "schema": {"type": "object"}}),
            json!({"audience": CHARTS, "format": "structured"}),
            json!({"audience": "user", "format": "content"}),
        ];
        variants.truncate(1 + usize::from(pick % 7));
        let mut tool = json!({"name": "t", "inputSchema": {"type": "object"}, "outputVariants": variants});
        if pick & 0x08 != 0 {
            tool["_meta"] = json!({"ui": {"resourceUri": "ui://t"}});
        }
        tool
    }

    pub fn connection(pick: u8, config: &Arc<Config>) -> Connection {
        let version = REVISIONS.get(usize::from(pick >> 4) % REVISIONS.len()).copied();
        let negotiated = match pick & 0x30 {
            0x00 => json!([]),
            0x10 => json!([UI]),
            0x20 => json!([CHARTS]),
            _ => json!([UI, CHARTS]),
        };
        Connection::from_json(version, Some(&negotiated), Arc::clone(config)).expect("a supported revision")
    }

    thread_local! {
        /// The fixtures by pick, built once per process: accepting a tool costs far more than
        /// one execution of a text target, and every object here is immutable once built (a
        /// received schema's lazy validator is built once either way), so sharing them only
        /// makes executions cheaper.
        static RECEIVED: std::cell::RefCell<std::collections::HashMap<u8, Option<(ReceivedTool, Connection)>>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
        static DECLARED: std::cell::RefCell<std::collections::HashMap<u8, (ServerTool, Connection)>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }

    /// Runs `f` on the received tool and connection of `pick` (`None` when the connection
    /// does not accept the tool).
    pub fn with_received<R>(pick: u8, f: impl FnOnce(&ReceivedTool, &Connection) -> R) -> Option<R> {
        RECEIVED.with(|cache| {
            let mut cache = cache.borrow_mut();
            let entry = cache.entry(pick).or_insert_with(|| {
                let config = config();
                let conn = connection(pick, &config);
                let server = ServerTool::declare(&tool(pick), None, &config).expect("fixture tools are valid");
                let tool = ReceivedTool::accept(&server.advertise(&conn), &conn).ok()?;
                Some((tool, conn))
            });
            entry.as_ref().map(|(tool, conn)| f(tool, conn))
        })
    }

    /// Runs `f` on the declared tool and connection of `pick`.
    pub fn with_declared<R>(pick: u8, f: impl FnOnce(&ServerTool, &Connection) -> R) -> R {
        DECLARED.with(|cache| {
            let mut cache = cache.borrow_mut();
            let (server, conn) = cache.entry(pick).or_insert_with(|| {
                let config = config();
                let conn = connection(pick, &config);
                let server = ServerTool::declare(&tool(pick), None, &config).expect("fixture tools are valid");
                (server, conn)
            });
            f(server, conn)
        })
    }
}

pub mod text_route {
    //! `ReceivedTool::route_text`: raw bytes as the requested outputs and the result. It must
    //! agree with `check_text` (ok or the same error) and with `route_json` on the parsed text.
    use super::*;
    use mcp_outputs::client::ReceivedTool;
    use mcp_outputs::connection::Connection;

    pub fn fuzz(data: &[u8]) {
        let Some((pick, [requested, result])) = split::<2>(data) else { return };
        let requested = (pick & 0x40 != 0).then_some(requested.as_str());
        fixtures::with_received(pick, |tool, conn| route(tool, conn, requested, &result));
    }

    fn route(tool: &ReceivedTool, conn: &Connection, requested: Option<&str>, result: &str) {
        let routed = deterministic(|| tool.route_text(requested, result));
        let checked = tool.check_text(requested, result);
        match (&routed, &checked) {
            (Ok(_), Ok(_)) => {}
            (Err(a), Err(b)) => assert_eq!(a.code(), b.code(), "route_text and check_text disagree"),
            _ => panic!("route_text {routed:?} but check_text {checked:?}"),
        }
        let Ok(text) = routed else { return };
        let route: Value = serde_json::from_str(&text).expect("route_text answers JSON");
        let limits = conn.limits();
        let parsed_result = limits.parse_text(result, "result").expect("route accepted it");
        let parsed_requested = requested.map(|t| limits.parse_text(t, "requestedOutputs").expect("route accepted it"));
        let by_value = tool.route_json(parsed_requested.as_ref(), &parsed_result).expect("the value path agrees");
        assert_eq!(route, by_value, "route_text and route_json disagree");
        ops::route_outputs_are_received(&route, &parsed_result);
    }
}

pub mod text_check {
    //! `ReceivedTool::check_text` against `check` on the value serde_json parses from the same
    //! text (when the library's limits accept it).
    use super::*;
    use mcp_outputs::client::ReceivedTool;
    use mcp_outputs::connection::Connection;
    use mcp_outputs::node::Node as _;

    pub fn fuzz(data: &[u8]) {
        let Some((pick, [requested, result])) = split::<2>(data) else { return };
        let requested = (pick & 0x40 != 0).then_some(requested.as_str());
        fixtures::with_received(pick, |tool, conn| check(tool, conn, requested, &result));
    }

    fn check(tool: &ReceivedTool, conn: &Connection, requested: Option<&str>, result: &str) {
        let checked = deterministic(|| tool.check_text(requested, result));
        let limits = conn.limits();
        // `tape::parse_text` (the npm text entries' reader) accepts and refuses as
        // `Limits::parse_text`, with the same error, and its tape reads as the parsed value.
        let on_tape = mcp_outputs::tape::parse_text(limits, result, "result");
        match (limits.parse_text(result, "result"), &on_tape) {
            (Ok(value), Ok(exact)) => {
                assert_eq!(exact.tape().root().to_value().into_owned(), value, "parse_text's tape is not the value")
            }
            (Err(a), Err(b)) => assert_eq!(
                (a.code(), a.path(), a.message()),
                (b.code(), b.path(), b.message()),
                "tape::parse_text and Limits::parse_text refuse differently"
            ),
            (a, b) => {
                panic!("Limits::parse_text {:?} but tape::parse_text {:?}", a.map(|_| ()), b.as_ref().map(|_| ()))
            }
        }
        let parsed = (limits.parse_text(result, "result"), requested.map(|t| limits.parse_text(t, "r")).transpose());
        if let (Ok(result), Ok(requested)) = parsed {
            // The same answer (`{}`, warnings or input_required) or the same error code.
            let by_value = tool.check(requested.as_ref(), &result).map(|c| c.to_json());
            assert_eq!(checked.map_err(|e| e.code()), by_value.map_err(|e| e.code()), "check_text and check disagree");
        } else {
            assert!(checked.is_err(), "check_text accepted text the parser rejects");
        }
    }
}

pub mod text_respond {
    //! `ServerTool::respond_text` / `select_text`: requested outputs and produced outputs as raw
    //! text. An ok answer is JSON; every error is a wire error (it has a JSON-RPC code).
    use super::*;
    use mcp_outputs::connection::Connection;
    use mcp_outputs::server::ServerTool;

    pub fn fuzz(data: &[u8]) {
        let Some((pick, [requested, produced])) = split::<2>(data) else { return };
        let requested = (pick & 0x40 != 0).then_some(requested.as_str());
        fixtures::with_declared(pick, |server, conn| respond(server, conn, requested, &produced));
    }

    fn respond(server: &ServerTool, conn: &Connection, requested: Option<&str>, produced: &str) {
        match deterministic(|| server.respond_text(conn, requested, produced)) {
            Ok(text) => {
                let _: Value = serde_json::from_str(&text).expect("respond_text answers JSON");
            }
            Err(e) => assert!(e.jsonrpc_code().is_some(), "a server error without a JSON-RPC code: {e:?}"),
        }
        match deterministic(|| server.select_text(conn, requested)) {
            Ok(text) => {
                let _: Value = serde_json::from_str(&text).expect("select_text answers JSON");
            }
            Err(e) => assert!(e.jsonrpc_code().is_some(), "a server error without a JSON-RPC code: {e:?}"),
        }
    }
}

pub mod text_request {
    //! The request parsers: `json::connection_from_request_text` (params, server capabilities)
    //! and `json::negotiate_text` (initialize / server/discover), on raw text. Every error is a
    //! wire error; a connection's version is one of the six revisions.
    use super::*;

    pub fn fuzz(data: &[u8]) {
        let Some((pick, [a, b])) = split::<2>(data) else { return };
        let config = fixtures::config();
        let conn = if pick & 1 == 0 {
            deterministic(|| mcp_outputs::json::connection_from_request_text(&config, &a, &b).map(|c| summary(&c)))
        } else {
            deterministic(|| mcp_outputs::json::negotiate_text(&config, &a).map(|c| summary(&c)))
        };
        match conn {
            Ok((version, negotiated)) => {
                assert!(REVISIONS.contains(&version.as_str()), "connection on {version}");
                assert!(negotiated.len() <= config.limits.max_extensions + 1, "{} extensions", negotiated.len());
            }
            Err(e) => assert!(e.jsonrpc_code().is_some(), "a request error without a JSON-RPC code: {e:?}"),
        }
    }

    fn summary(conn: &mcp_outputs::connection::Connection) -> (String, Vec<String>) {
        (conn.version().as_str().to_owned(), conn.negotiated().to_vec())
    }
}

pub mod limits {
    //! The limits walk: `Limits::parse_bytes` / `parse_text` / `check_value` against serde_json
    //! and an independent measure of the text. Parsing succeeds exactly when serde_json parses
    //! the text and the text is within every cap; it then equals serde_json's value and passes
    //! `check_value`. `limit-exceeded` only when a cap is really exceeded.
    //!
    //! What is measured where (docs/library.md, "Limits"): the byte size and the nesting depth
    //! are the text's, as written, duplicate members included (a member that a later one of the
    //! same name replaces has still been read); array and object lengths are the parsed value's,
    //! where the last of duplicate members wins, as in `JSON.parse`. Measuring the depth on the
    //! parsed value was this target's own mistake (docs/fuzzing.md, finding 8).
    use super::*;
    use mcp_outputs::limits::Limits;
    use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

    pub fn fuzz(data: &[u8]) {
        let Some((&pick, text)) = data.split_first() else { return };
        // Small caps so that the fuzzer reaches every one of them.
        let limits = Limits {
            max_depth: 1 + usize::from(pick & 0x0F),
            max_bytes: if pick & 0x10 != 0 { 64 } else { Limits::default().max_bytes },
            max_array_len: if pick & 0x20 != 0 { 3 } else { Limits::default().max_array_len },
            max_object_len: if pick & 0x40 != 0 { 3 } else { Limits::default().max_object_len },
            ..Limits::default()
        };
        let parsed = deterministic(|| limits.parse_bytes(text, "input"));
        let reference = std::str::from_utf8(text).ok().and_then(|t| {
            let value: Value = parse_unbounded(t)?;
            let written: Written = parse_unbounded(t)?;
            Some((value, written.depth()))
        });
        match (&parsed, &reference) {
            (Ok(v), Some((r, text_depth))) => {
                assert_eq!(v, r, "parse_bytes and serde_json disagree");
                assert!(within(&limits, r, *text_depth, text.len()), "parse_bytes accepted a value over a cap");
                assert_eq!(limits.check_value(v, ""), Ok(()), "check_value rejects what parse accepted");
            }
            (Ok(v), None) => panic!("parse_bytes accepted what serde_json rejects: {v}"),
            (Err(e), Some((r, text_depth))) => {
                assert_eq!(e.code(), ErrorCode::LimitExceeded, "valid JSON rejected as {e:?}");
                // With the small byte cap, the value's size estimate may differ from the text's
                // length (`1e5` is written `100000.0`); the structural caps are exact.
                if limits.max_bytes == Limits::default().max_bytes {
                    assert!(!within(&limits, r, *text_depth, text.len()), "limit-exceeded for a text within every cap");
                    // The parsed value alone: its own depth, which a duplicate member may have
                    // made smaller than the text's.
                    assert_eq!(
                        limits.check_value(r, "").is_ok(),
                        within(&limits, r, value_depth(r), 0),
                        "check_value and the reference disagree on {r}"
                    );
                }
            }
            (Err(e), None) => assert!(
                matches!(e.code(), ErrorCode::Malformed | ErrorCode::LimitExceeded),
                "invalid JSON rejected as {e:?}"
            ),
        }
    }

    fn parse_unbounded<'de, T: Deserialize<'de>>(text: &'de str) -> Option<T> {
        let mut de = serde_json::Deserializer::from_str(text);
        de.disable_recursion_limit();
        let v = T::deserialize(&mut de).ok()?;
        de.end().ok().map(|()| v)
    }

    /// The text's nesting as written: every member and element, duplicates included.
    enum Written {
        Leaf,
        Nested(Vec<Written>),
    }

    impl Written {
        /// The outermost value at 1, leaves at 0; an explicit stack, so any depth is measured.
        fn depth(&self) -> usize {
            let mut deepest = 0;
            let mut stack = vec![(self, 1usize)];
            while let Some((w, depth)) = stack.pop() {
                if let Written::Nested(items) = w {
                    deepest = deepest.max(depth);
                    stack.extend(items.iter().map(|i| (i, depth + 1)));
                }
            }
            deepest
        }
    }

    impl<'de> Deserialize<'de> for Written {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Written;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("JSON")
                }
                fn visit_bool<E>(self, _: bool) -> Result<Written, E> {
                    Ok(Written::Leaf)
                }
                fn visit_i64<E>(self, _: i64) -> Result<Written, E> {
                    Ok(Written::Leaf)
                }
                fn visit_u64<E>(self, _: u64) -> Result<Written, E> {
                    Ok(Written::Leaf)
                }
                fn visit_f64<E>(self, _: f64) -> Result<Written, E> {
                    Ok(Written::Leaf)
                }
                fn visit_str<E>(self, _: &str) -> Result<Written, E> {
                    Ok(Written::Leaf)
                }
                fn visit_unit<E>(self) -> Result<Written, E> {
                    Ok(Written::Leaf)
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Written, A::Error> {
                    let mut items = Vec::new();
                    while let Some(item) = seq.next_element()? {
                        items.push(item);
                    }
                    Ok(Written::Nested(items))
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Written, A::Error> {
                    let mut items = Vec::new();
                    while let Some((IgnoredAny, item)) = map.next_entry()? {
                        items.push(item);
                    }
                    Ok(Written::Nested(items))
                }
            }
            d.deserialize_any(V)
        }
    }

    /// The parsed value's own nesting depth (the outermost container at 1).
    fn value_depth(value: &Value) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(value, 1usize)];
        while let Some((v, depth)) = stack.pop() {
            match v {
                Value::Array(items) => {
                    deepest = deepest.max(depth);
                    stack.extend(items.iter().map(|i| (i, depth + 1)));
                }
                Value::Object(members) => {
                    deepest = deepest.max(depth);
                    stack.extend(members.values().map(|i| (i, depth + 1)));
                }
                _ => {}
            }
        }
        deepest
    }

    /// Within every cap: the given depth, the text's length, and the value's array and object
    /// lengths.
    fn within(limits: &Limits, value: &Value, depth: usize, text_len: usize) -> bool {
        if text_len > limits.max_bytes || depth > limits.max_depth {
            return false;
        }
        let mut stack = vec![value];
        while let Some(v) = stack.pop() {
            match v {
                Value::Array(items) => {
                    if items.len() > limits.max_array_len {
                        return false;
                    }
                    stack.extend(items.iter());
                }
                Value::Object(members) => {
                    if members.len() > limits.max_object_len {
                        return false;
                    }
                    stack.extend(members.values());
                }
                _ => {}
            }
        }
        true
    }
}

pub mod jsontext {
    //! `jsontext::stringify`, the legacy mirror's writer: its output parses back to the same
    //! value (numbers by value), and equals `serde_json::to_string` except in number formatting,
    //! where JavaScript's `Number::toString` differs from ryu (`1.0` → `1`, `1e21` → `1e+21`,
    //! `-0` → `0`); every number it writes is the shortest text that reads back as the same
    //! double, in the JavaScript form.
    use super::*;

    pub fn fuzz(data: &[u8]) {
        let value = if data.first() == Some(&b'{') || data.first() == Some(&b'[') {
            let mut de = serde_json::Deserializer::from_slice(data);
            de.disable_recursion_limit();
            match serde::Deserialize::deserialize(&mut de) {
                Ok(v) => v,
                Err(_) => return,
            }
        } else {
            match Json::arbitrary(&mut Unstructured::new(data)) {
                Ok(j) => j.value(),
                Err(_) => return,
            }
        };
        let text = mcp_outputs::jsontext::stringify(&value);
        assert_eq!(text, mcp_outputs::jsontext::stringify(&value), "not deterministic");
        let mut de = serde_json::Deserializer::from_str(&text);
        de.disable_recursion_limit();
        let back: Value = serde::Deserialize::deserialize(&mut de).expect("stringify writes JSON");
        assert!(same_by_value(&value, &back), "stringify changed the value:\n  {value}\n  {text}");
        let reference = serde_json::to_string(&value).expect("serde_json writes any Value");
        if !has_float(&value) {
            assert_eq!(text, reference, "stringify and serde_json differ on a value without floats");
        }
        assert!(!text.contains(' ') || value.to_string().contains(' '), "stringify added whitespace");
        numbers(&value, &mut |f| check_js_number(f));
    }

    fn same_by_value(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => match (x.as_u64(), y.as_u64(), x.as_i64(), y.as_i64()) {
                (Some(p), Some(q), _, _) => p == q,
                (_, _, Some(p), Some(q)) => p == q,
                _ => x.as_f64() == y.as_f64(),
            },
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_by_value(p, q))
            }
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|((k1, v1), (k2, v2))| k1 == k2 && same_by_value(v1, v2))
            }
            _ => a == b,
        }
    }

    fn has_float(v: &Value) -> bool {
        let mut found = false;
        numbers(v, &mut |_| found = true);
        found
    }

    fn numbers(v: &Value, f: &mut impl FnMut(f64)) {
        match v {
            Value::Number(n) if n.is_f64() => f(n.as_f64().unwrap_or(0.0)),
            Value::Array(items) => items.iter().for_each(|i| numbers(i, f)),
            Value::Object(members) => members.values().for_each(|i| numbers(i, f)),
            _ => {}
        }
    }

    /// ECMAScript Number::toString: integral values below 1e21 without fraction or exponent;
    /// exponent form (`e+` / `e-`) exactly below 1e-6 and from 1e21; the text reads back as
    /// the same double, with no more significant digits than ryu's shortest form.
    fn check_js_number(f: f64) {
        let text = mcp_outputs::jsontext::js_number(f);
        let back: f64 = text.parse().expect("js_number writes a number");
        assert!(back == f || (f == 0.0 && back == 0.0), "{f} written as {text}");
        let abs = f.abs();
        let exponent = text.contains('e');
        if abs != 0.0 {
            assert_eq!(exponent, !(1e-6..1e21).contains(&abs), "{f} written as {text}");
        }
        if exponent {
            assert!(text.contains("e+") || text.contains("e-"), "{f} written as {text}");
        }
        if abs.fract() == 0.0 && abs < 1e21 {
            assert!(!text.contains('.') && !exponent, "{f} written as {text}");
        }
        let digits = |s: &str| {
            let mantissa = s.split(['e', 'E']).next().unwrap_or("");
            mantissa.chars().filter(char::is_ascii_digit).collect::<String>().trim_matches('0').len()
        };
        let shortest = serde_json::Number::from_f64(f).map(|n| n.to_string()).unwrap_or_default();
        if !(abs.fract() == 0.0 && abs < 1e21) {
            assert!(digits(&text) <= digits(&shortest).max(1), "{f} written as {text}, ryu {shortest}");
        }
    }
}
