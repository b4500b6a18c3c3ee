//! Property tests for PLAN-15 and the SEP's "Security implications": whatever a tool
//! declares, whatever a host requests and whatever the tool produces, nothing reaches a
//! consumer it was not meant for.
//!
//! Every payload carries a unique marker (`SECRET-<audience>-<format>-<n>#`, and
//! `SECRET-meta<i>-<n>#` for result `_meta` entries), so a leak shows up as a marker in the
//! JSON of the wrong route list, of the View payload, or of the wire result. The flow is the
//! one a host runs: `advertise → accept → respond → route`, on one connection, for all six
//! protocol revisions, with Apps and a registered extension (`com.example/audit`) randomly
//! negotiated.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use mcp_outputs::{
    ops, Config, Connection, Error, ErrorCode, Limits, Produced, ProtocolVersion, ReceivedTool, ServerTool,
    APPS_EXTENSION,
};
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestCaseError, TestError, TestRunner};
use serde_json::{json, Map, Value};
use std::cell::Cell;
use std::collections::BTreeSet;
use std::sync::Arc;

const AUDIT: &str = "com.example/audit";

/// Result `_meta` keys the tool may produce: the Apps key, the audit extension's key, an
/// unrelated namespaced key, a core-looking key and a bare `ui` key that only looks like Apps.
const META_KEYS: [&str; 5] = [APPS_EXTENSION, AUDIT, "com.example/other", "progressToken", "ui"];

/// Every variant a random tool may declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    AssistantContent,
    AssistantStructured,
    UserContent,
    UserStructured,
    ProgrammaticStructured,
    UiStructured,
    AuditContent,
    AuditStructured,
}

const SLOTS: [Slot; 8] = [
    Slot::AssistantContent,
    Slot::AssistantStructured,
    Slot::UserContent,
    Slot::UserStructured,
    Slot::ProgrammaticStructured,
    Slot::UiStructured,
    Slot::AuditContent,
    Slot::AuditStructured,
];

impl Slot {
    fn index(self) -> usize {
        SLOTS.iter().position(|s| *s == self).unwrap()
    }

    fn audience(self) -> &'static str {
        match self {
            Slot::AssistantContent | Slot::AssistantStructured => "assistant",
            Slot::UserContent | Slot::UserStructured => "user",
            Slot::ProgrammaticStructured => "programmatic",
            Slot::UiStructured => APPS_EXTENSION,
            Slot::AuditContent | Slot::AuditStructured => AUDIT,
        }
    }

    fn is_content(self) -> bool {
        matches!(self, Slot::AssistantContent | Slot::UserContent | Slot::AuditContent)
    }

    fn format(self) -> &'static str {
        if self.is_content() {
            "content"
        } else {
            "structured"
        }
    }

    fn tag(self) -> &'static str {
        match self {
            Slot::AssistantContent => "assistant-content",
            Slot::AssistantStructured => "assistant-structured",
            Slot::UserContent => "user-content",
            Slot::UserStructured => "user-structured",
            Slot::ProgrammaticStructured => "programmatic-structured",
            Slot::UiStructured => "ui-structured",
            Slot::AuditContent => "audit-content",
            Slot::AuditStructured => "audit-structured",
        }
    }

    fn selector(self) -> Value {
        json!({ "audience": self.audience(), "format": self.format() })
    }

    fn of(output: &Value) -> Option<Slot> {
        let audience = output.get("audience")?.as_str()?;
        let format = output.get("format")?.as_str()?;
        SLOTS.into_iter().find(|s| s.audience() == audience && s.format() == format)
    }
}

/// Schemas a structured variant may declare (index 0: none).
fn schema(index: usize) -> Option<Value> {
    match index {
        1 => Some(json!({
            "type": "object",
            "properties": { "secret": { "type": "string" } },
            "required": ["secret"]
        })),
        2 => Some(json!({ "type": "object" })),
        3 => Some(json!({
            "type": "array", "items": { "$ref": "#/$defs/s" }, "$defs": { "s": { "type": "string" } }
        })),
        4 => Some(json!({ "type": "string", "pattern": "^SECRET-" })),
        // `{}` accepts every value, as the boolean schema `true` does; a schema that is not an
        // object is malformed (contract v2).
        5 => Some(json!({})),
        6 => Some(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "additionalProperties": { "$ref": "#/definitions/any" },
            "definitions": { "any": {} }
        })),
        7 => Some(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "anyOf": [{ "type": "string" }, { "type": "array" }]
        })),
        _ => None,
    }
}
const SCHEMA_COUNT: usize = 8;

#[derive(Clone, Copy, Debug)]
enum Shape {
    Object,
    Array,
    Text,
}

/// The payload shape a schema accepts (objects where any value goes).
fn matching_shape(schema_index: usize) -> Shape {
    match schema_index {
        3 => Shape::Array,
        4 | 7 => Shape::Text,
        _ => Shape::Object,
    }
}

fn payload(shape: Shape, marker: &str) -> Value {
    match shape {
        Shape::Object => json!({ "secret": marker, "nested": { "list": [marker] } }),
        Shape::Array => json!([marker, marker]),
        Shape::Text => json!(marker),
    }
}

fn block(kind: u8, annotation: u8, last_modified: bool, marker: &str) -> Value {
    let mut block = match kind % 5 {
        0 => json!({ "type": "text", "text": marker }),
        1 => json!({ "type": "image", "data": marker, "mimeType": "image/png" }),
        2 => json!({ "type": "audio", "data": marker, "mimeType": "audio/wav" }),
        3 => json!({ "type": "resource_link", "uri": "file:///r.txt", "name": marker }),
        _ => json!({ "type": "resource", "resource": { "uri": "file:///r.txt", "text": marker } }),
    };
    let audience = match annotation % 4 {
        1 => Some(json!(["assistant"])),
        2 => Some(json!(["user"])),
        3 => Some(json!(["user", "assistant"])),
        _ => None,
    };
    if audience.is_some() || last_modified {
        let mut ann = Map::new();
        if let Some(audience) = audience {
            ann.insert("audience".into(), audience);
        }
        if last_modified {
            ann.insert("lastModified".into(), json!("2025-01-01T00:00:00Z"));
        }
        block["annotations"] = Value::Object(ann);
    }
    block
}

/// The registered audit extension.
#[derive(Clone, Debug)]
struct AuditDef {
    registered: bool,
    /// 1: structured, 2: content, 3: both.
    formats: u8,
    model_context: bool,
    meta_key: bool,
    legacy_projection: bool,
    schemas_by_extension: bool,
}

impl AuditDef {
    fn allows(&self, slot: Slot) -> bool {
        match slot {
            Slot::AuditContent => self.formats & 2 != 0,
            Slot::AuditStructured => self.formats & 1 != 0,
            _ => true,
        }
    }

    fn to_json(&self) -> Value {
        let mut formats = Vec::new();
        if self.formats & 2 != 0 {
            formats.push("content");
        }
        if self.formats & 1 != 0 {
            formats.push("structured");
        }
        json!({
            "id": AUDIT,
            "formats": formats,
            "modelContext": self.model_context,
            "metaKey": if self.meta_key { json!(AUDIT) } else { Value::Null },
            "legacyProjection": self.legacy_projection,
            "schemas": if self.schemas_by_extension { "extension" } else { "perVariant" },
        })
    }
}

/// The raw random choices of one case; [`World::new`] turns them into JSON.
#[derive(Clone, Debug)]
struct Raw {
    include: [bool; 8],
    declaration_order: [u8; 8],
    schemas: [usize; 8],
    shapes: [u8; 8],
    blocks: Vec<Vec<(u8, u8, bool)>>,
    empty_assistant: bool,
    audit: AuditDef,
    apps: bool,
    audit_negotiated: bool,
    version: usize,
    request: Option<([bool; 8], [u8; 8])>,
    corrupt: u8,
    omit: [bool; 8],
    produce_order: [u8; 8],
    extras: u8,
    notes: [bool; 8],
    is_error: Option<bool>,
    meta: Option<[u8; 5]>,
    legacy: Option<(usize, u8, Option<bool>)>,
    app_tool: bool,
    n: u32,
}

prop_compose! {
    fn arb_audit()(
        registered in prop::bool::weighted(0.93),
        formats in 1u8..4,
        model_context in any::<bool>(),
        meta_key in any::<bool>(),
        legacy_projection in any::<bool>(),
        schemas_by_extension in any::<bool>(),
    ) -> AuditDef {
        AuditDef { registered, formats, model_context, meta_key, legacy_projection, schemas_by_extension }
    }
}

prop_compose! {
    fn arb_tool_part()(
        include in prop::array::uniform8(any::<bool>()),
        declaration_order in prop::array::uniform8(any::<u8>()),
        schemas in prop::array::uniform8(0..SCHEMA_COUNT),
        shapes in prop::array::uniform8(0u8..12),
        blocks in prop::collection::vec(prop::collection::vec((0u8..5, 0u8..4, any::<bool>()), 1..4), 8),
        empty_assistant in prop::bool::weighted(0.03),
        app_tool in any::<bool>(),
    ) -> (([bool; 8], [u8; 8], [usize; 8], [u8; 8]), Vec<Vec<(u8, u8, bool)>>, bool, bool) {
        ((include, declaration_order, schemas, shapes), blocks, empty_assistant, app_tool)
    }
}

prop_compose! {
    fn arb_call_part()(
        request in prop::option::weighted(0.75, (prop::array::uniform8(any::<bool>()), prop::array::uniform8(any::<u8>()))),
        corrupt in 0u8..40,
        omit in prop::array::uniform8(prop::bool::weighted(0.05)),
        produce_order in prop::array::uniform8(any::<u8>()),
        extras in 0u8..4,
        notes in prop::array::uniform8(any::<bool>()),
        is_error in prop_oneof![6 => Just(None), 1 => Just(Some(false)), 3 => Just(Some(true))],
        meta in prop::option::weighted(0.75, prop::array::uniform5(0u8..3)),
    ) -> (Option<([bool; 8], [u8; 8])>, u8, [bool; 8], [u8; 8], u8, [bool; 8], Option<bool>, Option<[u8; 5]>) {
        (request, corrupt, omit, produce_order, extras, notes, is_error, meta)
    }
}

prop_compose! {
    fn arb_raw()(
        tool in arb_tool_part(),
        call in arb_call_part(),
        audit in arb_audit(),
        apps in any::<bool>(),
        audit_negotiated in any::<bool>(),
        version in prop_oneof![5 => Just(5usize), 4 => 0usize..5],
        legacy in prop::option::weighted(0.4, (0..SCHEMA_COUNT, 0u8..5, prop::option::of(any::<bool>()))),
        n in any::<u32>(),
    ) -> Raw {
        let ((include, declaration_order, schemas, shapes), blocks, empty_assistant, app_tool) = tool;
        let (request, corrupt, omit, produce_order, extras, notes, is_error, meta) = call;
        Raw {
            include, declaration_order, schemas, shapes, blocks, empty_assistant, audit, apps,
            audit_negotiated, version, request, corrupt, omit, produce_order, extras, notes,
            is_error, meta, legacy, app_tool, n,
        }
    }
}

/// One case as JSON, with the markers to look for.
struct World {
    raw: Raw,
    config: Arc<Config>,
    conn: Connection,
    version: ProtocolVersion,
    tool: Value,
    legacy: Option<Value>,
    declared: Vec<Slot>,
    requested: Option<Value>,
    produced: Value,
    meta_keys: Vec<usize>,
}

impl World {
    fn new(raw: &Raw) -> World {
        let n = raw.n;
        let version = ProtocolVersion::ALL[raw.version];
        let mut declared: Vec<(u8, Slot)> = SLOTS
            .into_iter()
            .enumerate()
            .filter(|(i, slot)| *slot == Slot::AssistantContent || (raw.include[*i] && raw.audit.allows(*slot)))
            .map(|(i, slot)| (raw.declaration_order[i], slot))
            .collect();
        declared.sort_by_key(|(key, _)| *key);
        let declared: Vec<Slot> = declared.into_iter().map(|(_, s)| s).collect();

        let variants: Vec<Value> = declared
            .iter()
            .map(|slot| {
                let mut v = slot.selector();
                if !slot.is_content() {
                    if let Some(s) = schema(raw.schemas[slot.index()]) {
                        v["schema"] = s;
                    }
                }
                v
            })
            .collect();
        let mut tool = json!({
            "name": "search_customers",
            "description": "finds customers",
            "inputSchema": { "type": "object" },
            "outputVariants": variants,
        });
        if raw.app_tool {
            tool["_meta"] = json!({ "ui": { "resourceUri": "ui://search/app.html" } });
        }

        // Legacy options: an established schema, an explicit source and the mirror switch.
        // `structuredFrom` never names user or programmatic data: exposing those to old
        // clients is an explicit author choice (LEG-3), not a leak of the projection.
        let legacy = raw.legacy.map(|(schema_index, from, mirror)| {
            let mut options = Map::new();
            if let Some(s) = schema(schema_index) {
                options.insert("outputSchema".into(), s);
            }
            let source = match from {
                1 => Some(Slot::AssistantStructured),
                2 => Some(Slot::UiStructured),
                3 => Some(Slot::AuditStructured),
                _ => None,
            };
            if let Some(source) = source.filter(|s| declared.contains(s)) {
                options.insert("structuredFrom".into(), json!(format!("{}/structured", source.audience())));
            }
            if let Some(mirror) = mirror {
                options.insert("mirror".into(), json!(mirror));
            }
            Value::Object(options)
        });

        let extensions = json!([raw.audit.to_json()]);
        let config = if raw.audit.registered {
            Config::with_extensions(Some(&extensions), Limits::default()).unwrap()
        } else {
            Config::new()
        };
        let mut negotiated = Vec::new();
        if raw.apps {
            negotiated.push(APPS_EXTENSION.to_owned());
        }
        if raw.audit_negotiated {
            negotiated.push(AUDIT.to_owned());
        }
        let conn = Connection::new(version, negotiated, Arc::clone(&config));

        // The host's request: a subset of the declared selectors in random order, omitted
        // under legacy revisions most of the time (a host never sends it there), sometimes
        // corrupted to exercise the error paths.
        let requested = match raw.request {
            Some(_) if version.is_legacy() && raw.corrupt % 10 != 0 => None,
            None => None,
            Some((mask, keys)) => {
                let mut chosen: Vec<(u8, Slot)> =
                    declared.iter().enumerate().filter(|(i, _)| mask[*i]).map(|(i, s)| (keys[i], *s)).collect();
                if chosen.is_empty() {
                    let i = usize::from(keys[0]) % declared.len();
                    chosen.push((0, declared[i]));
                }
                chosen.sort_by_key(|(k, _)| *k);
                let mut list: Vec<Value> = chosen.iter().map(|(_, s)| s.selector()).collect();
                match raw.corrupt {
                    0 => list.push(list[0].clone()),
                    1 => list.push(SLOTS.into_iter().find(|s| !declared.contains(s)).map_or_else(
                        || json!({ "audience": "com.example/unknown", "format": "structured" }),
                        Slot::selector,
                    )),
                    2 => list.clear(),
                    3 => list.push(json!({ "audience": "host", "format": "content" })),
                    _ => {}
                }
                Some(Value::Array(list))
            }
        };

        // What the tool computed: every declared variant (rarely one missing), extra fields
        // holding their own markers, outputs nobody declared, in random order.
        let mut outputs: Vec<(u8, Value)> = Vec::new();
        for slot in &declared {
            let i = slot.index();
            if raw.omit[i] {
                continue;
            }
            let marker = marker(*slot, n);
            let mut output = slot.selector();
            if slot.is_content() {
                let blocks: Vec<Value> = if *slot == Slot::AssistantContent && raw.empty_assistant {
                    Vec::new()
                } else {
                    raw.blocks[i].iter().map(|(k, a, l)| block(*k, *a, *l, &marker)).collect()
                };
                output["content"] = Value::Array(blocks);
            } else {
                let shape = match raw.shapes[i] {
                    0 => Shape::Object,
                    1 => Shape::Array,
                    2 => Shape::Text,
                    _ => matching_shape(raw.schemas[i]),
                };
                output["structuredContent"] = payload(shape, &marker);
            }
            if raw.notes[i] {
                output["note"] = json!(note_marker(*slot, n));
            }
            outputs.push((raw.produce_order[i], output));
        }
        if raw.extras & 1 != 0 {
            if let Some(slot) = SLOTS.into_iter().find(|s| !declared.contains(s)) {
                let mut output = slot.selector();
                let m = format!("SECRET-undeclared-{n}#");
                if slot.is_content() {
                    output["content"] = json!([{ "type": "text", "text": m }]);
                } else {
                    output["structuredContent"] = json!({ "secret": m });
                }
                outputs.push(((n % 256) as u8, output));
            }
        }
        if raw.extras & 2 != 0 {
            outputs.push((
                ((n >> 8) % 256) as u8,
                json!({
                    "audience": "com.example/stray",
                    "format": "structured",
                    "structuredContent": format!("SECRET-stray-{n}#"),
                }),
            ));
        }
        outputs.sort_by_key(|(k, _)| *k);
        let mut produced = json!({ "outputs": outputs.into_iter().map(|(_, o)| o).collect::<Vec<_>>() });
        if let Some(is_error) = raw.is_error {
            produced["isError"] = json!(is_error);
        }
        let mut meta_keys = Vec::new();
        if let Some(shapes) = raw.meta {
            let mut meta = Map::new();
            for (i, shape) in shapes.iter().enumerate() {
                let m = meta_marker(i, n);
                let value = match shape {
                    1 => json!(m),
                    2 => json!({ "token": m, "list": [m] }),
                    _ => continue,
                };
                meta.insert(META_KEYS[i].to_owned(), value);
                meta_keys.push(i);
            }
            produced["_meta"] = Value::Object(meta);
        }

        World { raw: raw.clone(), config, conn, version, tool, legacy, declared, requested, produced, meta_keys }
    }

    fn describe(&self) -> String {
        format!(
            "version {}, negotiated {:?}, audit {:?}\ntool: {}\nlegacy: {:?}\nrequestedOutputs: {:?}\nproduced: {}",
            self.version,
            self.conn.negotiated(),
            self.raw.audit,
            self.tool,
            self.legacy.as_ref().map(Value::to_string),
            self.requested.as_ref().map(Value::to_string),
            self.produced
        )
    }
}

fn marker(slot: Slot, n: u32) -> String {
    format!("SECRET-{}-{n}#", slot.tag())
}

fn note_marker(slot: Slot, n: u32) -> String {
    format!("SECRET-{}-note-{n}#", slot.tag())
}

fn meta_marker(i: usize, n: u32) -> String {
    format!("SECRET-meta{i}-{n}#")
}

fn text(value: &Value) -> String {
    serde_json::to_string(value).unwrap()
}

/// A typed error: one of the stable codes, with its wire form intact.
fn assert_typed(error: &Error) -> Result<(), TestCaseError> {
    prop_assert!(ErrorCode::ALL.contains(&error.code()), "unknown code {:?}", error.code());
    prop_assert_eq!(ErrorCode::parse(error.code().as_str()), Some(error.code()));
    prop_assert_eq!(&error.to_json()["code"], &json!(error.code().as_str()));
    Ok(())
}

#[derive(Default)]
struct Stats {
    cases: Cell<usize>,
    declare_errors: Cell<usize>,
    respond_errors: Cell<usize>,
    routed_new: Cell<usize>,
    routed_legacy: Cell<usize>,
    views: Cell<usize>,
    legacy_views: Cell<usize>,
    meta_forwarded: Cell<usize>,
    legacy_structured: Cell<usize>,
    tampered: Cell<usize>,
    codes: std::cell::RefCell<std::collections::BTreeMap<&'static str, usize>>,
}

fn bump(cell: &Cell<usize>) {
    cell.set(cell.get() + 1);
}

fn check_case(raw: &Raw, stats: &Stats) -> Result<(), TestCaseError> {
    bump(&stats.cases);
    let w = World::new(raw);
    let server = match ServerTool::declare(&w.tool, w.legacy.as_ref(), &w.config) {
        Ok(server) => server,
        Err(e) => {
            assert_typed(&e)?;
            prop_assert_eq!(e.jsonrpc_code(), Some(-32603));
            bump(&stats.declare_errors);
            *stats.codes.borrow_mut().entry(e.code().as_str()).or_default() += 1;
            return Ok(());
        }
    };
    let advertised = server.advertise(&w.conn);
    // DECL-5: an unnegotiated extension's variant is never advertised.
    for variant in advertised["outputVariants"].as_array().into_iter().flatten() {
        let audience = variant["audience"].as_str().unwrap();
        if audience.contains('/') {
            prop_assert!(w.conn.negotiated_extension(audience).is_some(), "advertised unnegotiated {audience}");
        }
    }
    let host = ReceivedTool::accept(&advertised, &w.conn).map_err(|e| {
        TestCaseError::fail(format!(
            "the host rejects the tool its server advertised: {e}\nadvertised: {advertised}\n{}",
            w.describe()
        ))
    })?;

    let result = match server.respond(&w.conn, w.requested.as_ref(), Produced::new(&w.produced)) {
        Ok(result) => result,
        Err(e) => {
            assert_typed(&e)?;
            prop_assert!(
                matches!(e.jsonrpc_code(), Some(-32602 | -32603 | -32022)),
                "respond error without a JSON-RPC code: {}",
                e
            );
            bump(&stats.respond_errors);
            *stats.codes.borrow_mut().entry(e.code().as_str()).or_default() += 1;
            return Ok(());
        }
    };
    let route = match host.route(w.requested.as_ref(), &result) {
        Ok(route) => route,
        Err(e) => {
            assert_typed(&e)?;
            return Err(TestCaseError::fail(format!(
                "route rejects what respond produced: {e}\nresult: {result}\n{}",
                w.describe()
            )));
        }
    };
    let route_json = route.to_json();
    let view = route.view.as_ref().map(mcp_outputs::View::to_json);
    prop_assert_eq!(&route_json["view"], view.as_ref().unwrap_or(&Value::Null));

    if w.version.is_legacy() {
        check_legacy(&w, &result, &route_json, stats)?;
        bump(&stats.routed_legacy);
    } else {
        check_new(&w, &host, &result, &route_json, stats)?;
        bump(&stats.routed_new);
    }
    Ok(())
}

/// The selectors the request asked for, as slots (the fallback when omitted).
fn requested_slots(w: &World) -> Vec<Slot> {
    match &w.requested {
        None => vec![Slot::AssistantContent],
        Some(list) => list.as_array().unwrap().iter().map(|s| Slot::of(s).unwrap()).collect(),
    }
}

fn check_new(
    w: &World,
    host: &ReceivedTool,
    result: &Value,
    route: &Value,
    stats: &Stats,
) -> Result<(), TestCaseError> {
    let n = w.raw.n;
    let ctx = || w.describe();
    let requested = requested_slots(w);
    let is_error = w.raw.is_error == Some(true);
    let audit_to_model = w.raw.audit.model_context;

    // The wire result: exactly the requested outputs (a subset for an error), no legacy
    // fields, no unrequested mirror.
    let outputs = result["outputs"].as_array().unwrap();
    prop_assert!(result.get("content").is_none() && result.get("structuredContent").is_none());
    let sent: Vec<Slot> = outputs.iter().map(|o| Slot::of(o).unwrap()).collect();
    let distinct: BTreeSet<Slot> = sent.iter().copied().collect();
    prop_assert_eq!(distinct.len(), sent.len(), "an output sent twice");
    prop_assert!(sent.iter().all(|s| requested.contains(s)), "unrequested output sent");
    if !is_error {
        prop_assert_eq!(&sent, &requested, "outputs not in request order");
    }

    let result_text = text(result);
    let route_text = text(route);
    let model_text = text(&route["model"]);
    let user_text = text(&route["user"]);
    let programmatic_text = text(&route["programmatic"]);
    let extensions_text = text(&route["extensions"]);
    let view_text = text(&route["view"]);

    // Routing as the audiences say, nothing more (ROUTE-1..4): each list holds exactly the
    // outputs of its audience, as received.
    let pick = |f: &dyn Fn(&str) -> bool| -> Value {
        Value::Array(outputs.iter().filter(|o| f(o["audience"].as_str().unwrap())).cloned().collect())
    };
    prop_assert_eq!(&route["model"], &pick(&|a| a == "assistant" || (a == AUDIT && audit_to_model)), "model {}", ctx());
    prop_assert_eq!(&route["user"], &pick(&|a| a == "user"));
    prop_assert_eq!(&route["programmatic"], &pick(&|a| a == "programmatic"));
    let mut extensions = Map::new();
    for id in [APPS_EXTENSION, AUDIT] {
        let list = pick(&|a| a == id);
        if !list.as_array().unwrap().is_empty() {
            extensions.insert(id.to_owned(), list);
        }
    }
    let got_ids: BTreeSet<&String> = route["extensions"].as_object().unwrap().keys().collect();
    let want_ids: BTreeSet<&String> = extensions.keys().collect();
    prop_assert_eq!(got_ids, want_ids);
    for (id, list) in &extensions {
        prop_assert_eq!(&route["extensions"][id], list);
    }

    // (a) PLAN-15: nothing of an unrequested output anywhere: not on the wire, not in any
    // route list, not in the View.
    for slot in SLOTS {
        if requested.contains(&slot) {
            continue;
        }
        for m in [marker(slot, n), note_marker(slot, n)] {
            prop_assert!(!result_text.contains(&m), "{m} on the wire\n{}", ctx());
            prop_assert!(!route_text.contains(&m), "{m} routed\n{}", ctx());
        }
    }
    for m in [format!("SECRET-undeclared-{n}#"), format!("SECRET-stray-{n}#")] {
        prop_assert!(!result_text.contains(&m), "{m} on the wire\n{}", ctx());
        prop_assert!(!route_text.contains(&m), "{m} routed\n{}", ctx());
    }

    // (d) ROUTE-2, ROUTE-3, ROUTE-4: user, programmatic and View data never reach the model;
    // the audit extension's only when its definition says so.
    for slot in SLOTS {
        let to_model =
            slot.audience() == "assistant" || (slot.audience() == AUDIT && audit_to_model && requested.contains(&slot));
        for m in [marker(slot, n), note_marker(slot, n)] {
            if !to_model {
                prop_assert!(!model_text.contains(&m), "{m} reached the model\n{}", ctx());
            }
            if slot.audience() != "user" {
                prop_assert!(!user_text.contains(&m), "{m} reached the user");
            }
            if slot.audience() != "programmatic" {
                prop_assert!(!programmatic_text.contains(&m), "{m} reached programmatic");
            }
            if slot.audience() != APPS_EXTENSION && slot.audience() != AUDIT {
                prop_assert!(!extensions_text.contains(&m), "{m} reached an extension");
            }
        }
    }

    // (b) META-1: result `_meta` has no audience. Only the Apps entry reaches a consumer
    // (the View, inside `view`); every entry no present extension forwards is in `dropped`.
    let present: BTreeSet<&str> = outputs.iter().map(|o| o["audience"].as_str().unwrap()).collect();
    let mut forwarded: BTreeSet<&str> = BTreeSet::new();
    if present.contains(APPS_EXTENSION) {
        forwarded.insert(APPS_EXTENSION);
    }
    if present.contains(AUDIT) && w.raw.audit.meta_key {
        forwarded.insert(AUDIT);
    }
    // META-2: the server sends an extension's entry only when the extension is negotiated and
    // its output is in the response; every other key passes unchanged.
    let audit_key = w.raw.audit.registered && w.raw.audit.meta_key;
    let expected_wire: BTreeSet<&str> = w
        .meta_keys
        .iter()
        .map(|i| META_KEYS[*i])
        .filter(|k| match *k {
            APPS_EXTENSION => w.raw.apps && present.contains(APPS_EXTENSION),
            AUDIT if audit_key => w.raw.audit_negotiated && present.contains(AUDIT),
            _ => true,
        })
        .collect();
    prop_assert_eq!(wire_meta_keys(result), expected_wire.clone(), "result _meta (META-2)\n{}", ctx());
    prop_assert_eq!(
        result.get("_meta").is_some(),
        w.produced.get("_meta").is_some(),
        "_meta present exactly when produced"
    );
    let expected_dropped: BTreeSet<String> =
        expected_wire.iter().filter(|k| !forwarded.contains(*k)).map(|k| text(&json!({ "meta": k }))).collect();
    let dropped: BTreeSet<String> = route["dropped"].as_array().unwrap().iter().map(text).collect();
    prop_assert_eq!(dropped, expected_dropped, "dropped\n{}", ctx());
    for i in &w.meta_keys {
        let m = meta_marker(*i, n);
        for (name, list) in [
            ("model", &model_text),
            ("user", &user_text),
            ("programmatic", &programmatic_text),
            ("extensions", &extensions_text),
        ] {
            prop_assert!(!list.contains(&m), "_meta {} reached {name}", META_KEYS[*i]);
        }
        if META_KEYS[*i] != APPS_EXTENSION {
            prop_assert!(!view_text.contains(&m), "_meta {} reached the View", META_KEYS[*i]);
        } else if present.contains(APPS_EXTENSION) {
            bump(&stats.meta_forwarded);
        }
    }

    // (c) APP-5: the View gets the ui output's structuredContent and the ui `_meta` entry,
    // nothing else; no View without a ui output.
    let ui_output = outputs.iter().find(|o| o["audience"] == json!(APPS_EXTENSION));
    let expected_view = ui_output.map(|o| {
        let mut view = Map::new();
        view.insert("content".into(), json!([]));
        view.insert("structuredContent".into(), o["structuredContent"].clone());
        if let Some(meta) = w.produced["_meta"].get(APPS_EXTENSION) {
            view.insert("_meta".into(), json!({ APPS_EXTENSION: meta }));
        }
        if is_error {
            view.insert("isError".into(), json!(true));
        }
        Value::Object(view)
    });
    prop_assert_eq!(&route["view"], expected_view.as_ref().unwrap_or(&Value::Null), "view\n{}", ctx());
    if expected_view.is_some() {
        bump(&stats.views);
    }
    let allowed_in_view = [marker(Slot::UiStructured, n), meta_marker(0, n)];
    for slot in SLOTS {
        for m in [marker(slot, n), note_marker(slot, n)] {
            if !allowed_in_view.contains(&m) {
                prop_assert!(!view_text.contains(&m), "{m} crossed into the View");
            }
        }
    }

    // A hostile server adding an unrequested output, or a second copy of a requested one:
    // the host routes nothing of it (PLAN-15 on the receiving side).
    let extra = w
        .declared
        .iter()
        .find(|s| !requested.contains(s))
        .map(|slot| {
            let mut o = slot.selector();
            if slot.is_content() {
                o["content"] = json!([{ "type": "text", "text": marker(*slot, n) }]);
            } else {
                o["structuredContent"] = json!(marker(*slot, n));
            }
            o
        })
        .or_else(|| outputs.first().cloned());
    if let Some(extra) = extra {
        let mut tampered = result.clone();
        tampered["outputs"].as_array_mut().unwrap().push(extra);
        match host.route(w.requested.as_ref(), &tampered) {
            Ok(_) => {
                return Err(TestCaseError::fail(format!("a result with an unrequested output was routed: {tampered}")))
            }
            Err(e) => {
                assert_typed(&e)?;
                prop_assert_eq!(e.code(), ErrorCode::UnrequestedOutput);
                prop_assert_eq!(e.jsonrpc_code(), None);
            }
        }
        bump(&stats.tampered);
    }
    Ok(())
}

/// The keys of a result's `_meta`.
fn wire_meta_keys(result: &Value) -> BTreeSet<&str> {
    result.get("_meta").and_then(Value::as_object).map(|m| m.keys().map(String::as_str).collect()).unwrap_or_default()
}

fn check_legacy(w: &World, result: &Value, route: &Value, stats: &Stats) -> Result<(), TestCaseError> {
    let n = w.raw.n;
    let ctx = || w.describe();
    prop_assert!(result.get("outputs").is_none());
    prop_assert!(result["content"].is_array());
    if result.get("structuredContent").is_some() {
        bump(&stats.legacy_structured);
    }
    let result_text = text(result);
    let model_text = text(&route["model"]);

    // LEG-5: legacy content goes to the model, as an assistant/content output; nothing else
    // is routed by default. An error with no content block carries nothing for it (ERR-5).
    let empty_error = result["isError"] == json!(true) && result["content"] == json!([]);
    let expected_model = if empty_error {
        json!([])
    } else {
        json!([{ "audience": "assistant", "format": "content", "content": result["content"] }])
    };
    prop_assert_eq!(&route["model"], &expected_model);
    prop_assert_eq!(&route["user"], &json!([]));
    prop_assert_eq!(&route["programmatic"], &json!([]));
    prop_assert_eq!(&route["extensions"], &json!({}));

    // (e) The legacy projection never turns user, programmatic, extension or View data into
    // content or a mirror: only assistant payloads reach the model. A ui source is never
    // mirrored.
    let allowed = [marker(Slot::AssistantContent, n), marker(Slot::AssistantStructured, n)];
    for slot in SLOTS {
        for m in [marker(slot, n), note_marker(slot, n)] {
            if !allowed.contains(&m) {
                prop_assert!(!model_text.contains(&m), "{m} reached the model\n{}", ctx());
            }
        }
    }
    for m in [format!("SECRET-undeclared-{n}#"), format!("SECRET-stray-{n}#")] {
        prop_assert!(!result_text.contains(&m), "{m} on the wire");
    }
    for i in &w.meta_keys {
        let m = meta_marker(*i, n);
        prop_assert!(!model_text.contains(&m), "_meta reached the model");
    }
    // On the wire: no user, programmatic or unprojectable extension data at all (LEG-1).
    for slot in [Slot::UserContent, Slot::UserStructured, Slot::ProgrammaticStructured, Slot::AuditContent] {
        prop_assert!(!result_text.contains(&marker(slot, n)), "{} on the wire\n{}", slot.tag(), ctx());
    }
    if !w.raw.apps {
        prop_assert!(!result_text.contains(&marker(Slot::UiStructured, n)));
    }
    if !(w.raw.audit_negotiated && w.raw.audit.legacy_projection) {
        prop_assert!(!result_text.contains(&marker(Slot::AuditStructured, n)));
    }
    for slot in SLOTS {
        prop_assert!(!result_text.contains(&note_marker(slot, n)));
    }

    // META-2: every key but the extensions' entries passes; an extension's entry needs the
    // extension negotiated (and its variant as the legacy source).
    let wire = wire_meta_keys(result);
    for k in w.meta_keys.iter().map(|i| META_KEYS[*i]) {
        let extension_entry = k == APPS_EXTENSION || (k == AUDIT && w.raw.audit.registered && w.raw.audit.meta_key);
        if !extension_entry {
            prop_assert!(wire.contains(k), "_meta {k} was removed");
        }
    }
    prop_assert!(w.raw.apps || !wire.contains(APPS_EXTENSION), "the ui entry went to a client without Apps");
    prop_assert!(
        w.raw.audit_negotiated || !(w.raw.audit.registered && w.raw.audit.meta_key && wire.contains(AUDIT)),
        "the audit entry went to a client without it"
    );
    prop_assert_eq!(
        result.get("_meta").is_some(),
        w.produced.get("_meta").is_some(),
        "_meta present exactly when produced"
    );

    // APP-6: with Apps negotiated for an Apps tool the View gets the legacy result unchanged;
    // otherwise there is no View and every `_meta` entry (and structuredContent) is dropped.
    let apps_view = w.raw.apps && w.raw.app_tool;
    let dropped: BTreeSet<String> = route["dropped"].as_array().unwrap().iter().map(text).collect();
    if apps_view {
        prop_assert_eq!(&route["view"], result);
        prop_assert!(dropped.is_empty());
        bump(&stats.legacy_views);
    } else {
        prop_assert_eq!(&route["view"], &Value::Null);
        let mut expected: BTreeSet<String> =
            wire_meta_keys(result).iter().map(|k| text(&json!({ "meta": k }))).collect();
        if result.get("structuredContent").is_some() {
            expected.insert(text(&json!({ "legacy": "structuredContent" })));
        }
        prop_assert_eq!(dropped, expected);
    }
    Ok(())
}

fn run_property<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let mut runner = TestRunner::new(RunnerConfig { cases, failure_persistence: None, ..RunnerConfig::default() });
    match runner.run(&strategy, test) {
        Ok(()) => {}
        Err(TestError::Fail(reason, value)) => {
            panic!("property failed: {reason}\nminimal failing input: {value:#?}")
        }
        Err(TestError::Abort(reason)) => panic!("property aborted: {reason}"),
    }
}

/// PLAN-15, META-1, APP-5, ROUTE-1..4 and LEG-1/LEG-4 over 10,000 random tools, requests
/// and results.
#[test]
fn nothing_reaches_a_consumer_it_was_not_meant_for() {
    let stats = Stats::default();
    run_property(10_000, arb_raw(), |raw| check_case(&raw, &stats));
    let cases = stats.cases.get();
    eprintln!(
        "cases {cases}: declare errors {}, respond errors {}, routed new {}, routed legacy {}, views {}, legacy views {}, ui meta forwarded {}, legacy structuredContent {}, tampered {}",
        stats.declare_errors.get(),
        stats.respond_errors.get(),
        stats.routed_new.get(),
        stats.routed_legacy.get(),
        stats.views.get(),
        stats.legacy_views.get(),
        stats.meta_forwarded.get(),
        stats.legacy_structured.get(),
        stats.tampered.get()
    );
    eprintln!("error codes: {:?}", stats.codes.borrow());
    // The property is only as good as the cases that reach routing: make sure most do, on
    // every path that matters.
    let routed = stats.routed_new.get() + stats.routed_legacy.get();
    assert!(
        routed * 2 >= cases,
        "only {routed} of {cases} cases were routed (declare errors {}, respond errors {})",
        stats.declare_errors.get(),
        stats.respond_errors.get()
    );
    assert!(stats.routed_new.get() >= cases / 10);
    assert!(stats.routed_legacy.get() >= cases / 20);
    assert!(stats.views.get() >= cases / 50, "too few View payloads");
    assert!(stats.meta_forwarded.get() >= cases / 100);
    assert!(stats.legacy_views.get() >= cases / 200);
    assert!(stats.legacy_structured.get() >= cases / 200);
    assert!(stats.tampered.get() >= cases / 10);
    assert!(stats.respond_errors.get() >= cases / 100);
    assert!(stats.declare_errors.get() >= cases / 200);
}

// ---------------------------------------------------------------------------------------------
// ops::run never panics.

const WORDS: &[&str] = &[
    "assistant",
    "user",
    "programmatic",
    "io.modelcontextprotocol/ui",
    "com.example/audit",
    "host",
    "content",
    "structured",
    "complete",
    "input_required",
    "text",
    "image",
    "audio",
    "resource",
    "resource_link",
    "2026-12-01",
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
    "2026-13-45",
    "object",
    "array",
    "string",
    "#",
    "#/$defs/a",
    "http://example.com/s.json",
    "conversational",
    "code",
    "apps",
    "app-only",
    "assistant/structured",
    "io.modelcontextprotocol/ui/structured",
    "^(a+)+$",
    "((",
    "",
];

const KEYS: &[&str] = &[
    "name",
    "inputSchema",
    "outputVariants",
    "audience",
    "format",
    "schema",
    "content",
    "structuredContent",
    "type",
    "text",
    "data",
    "mimeType",
    "uri",
    "resource",
    "annotations",
    "isError",
    "_meta",
    "resultType",
    "outputs",
    "requestedOutputs",
    "tool",
    "legacy",
    "produced",
    "result",
    "mode",
    "consumers",
    "protocolVersion",
    "negotiated",
    "extensions",
    "id",
    "formats",
    "metaKey",
    "modelContext",
    "legacyProjection",
    "outputSchema",
    "structuredFrom",
    "mirror",
    "$ref",
    "$defs",
    "$schema",
    "properties",
    "items",
    "pattern",
    "required",
    "legacyTool",
    "options",
    "apps",
    "ui",
    "resourceUri",
    "io.modelcontextprotocol/ui",
];

/// Arbitrary JSON, biased towards the library's own vocabulary, bounded in size.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(Value::from),
        prop::sample::select(WORDS).prop_map(Value::from),
        "\\PC{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        let key = prop_oneof![
            3 => prop::sample::select(KEYS).prop_map(str::to_owned),
            1 => "[a-z_/]{0,6}",
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..6).prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

fn full_tool() -> Value {
    json!({
        "name": "t",
        "inputSchema": { "type": "object" },
        "_meta": { "ui": { "resourceUri": "ui://t" } },
        "outputVariants": [
            { "audience": "assistant", "format": "content" },
            { "audience": "assistant", "format": "structured", "schema": { "type": "object" } },
            { "audience": "programmatic", "format": "structured", "schema": { "type": "array", "items": { "$ref": "#/$defs/s" }, "$defs": { "s": { "type": "string" } } } },
            { "audience": "user", "format": "content" },
            { "audience": "io.modelcontextprotocol/ui", "format": "structured", "schema": { "type": "object" } },
            { "audience": "com.example/audit", "format": "structured" }
        ]
    })
}

fn full_outputs() -> Value {
    json!([
        { "audience": "assistant", "format": "content", "content": [
            { "type": "text", "text": "hi", "annotations": { "audience": ["user"] } },
            { "type": "resource_link", "uri": "file:///a", "name": "a" },
            { "type": "audio", "data": "AA==", "mimeType": "audio/wav" }
        ] },
        { "audience": "assistant", "format": "structured", "structuredContent": { "a": 1 } },
        { "audience": "programmatic", "format": "structured", "structuredContent": ["x"] },
        { "audience": "io.modelcontextprotocol/ui", "format": "structured", "structuredContent": { "v": 1 } },
        { "audience": "com.example/audit", "format": "structured", "structuredContent": 1 }
    ])
}

/// A valid input for each operation, to mutate.
fn template(op: &str) -> Value {
    let extensions = json!([{ "id": "com.example/audit", "formats": ["structured"], "modelContext": false, "metaKey": "com.example/audit", "legacyProjection": true }]);
    let negotiated = json!(["io.modelcontextprotocol/ui", "com.example/audit"]);
    let requested = json!([
        { "audience": "assistant", "format": "content" },
        { "audience": "io.modelcontextprotocol/ui", "format": "structured" }
    ]);
    let produced = json!({ "outputs": full_outputs(), "_meta": { "io.modelcontextprotocol/ui": { "t": 1 }, "x": 2 } });
    let result = json!({
        "resultType": "complete",
        "outputs": [full_outputs()[0].clone(), full_outputs()[3].clone()],
        "_meta": { "io.modelcontextprotocol/ui": { "t": 1 }, "x": 2 }
    });
    let legacy =
        json!({ "structuredFrom": "assistant/structured", "mirror": false, "outputSchema": { "type": "object" } });
    match op {
        "declare" => json!({ "tool": full_tool(), "extensions": extensions }),
        "advertise" => {
            json!({ "tool": full_tool(), "extensions": extensions, "legacy": legacy, "protocolVersion": "2025-06-18", "negotiated": negotiated })
        }
        "select" => {
            json!({ "tool": full_tool(), "extensions": extensions, "negotiated": negotiated, "requestedOutputs": requested })
        }
        "respond" => {
            json!({ "tool": full_tool(), "extensions": extensions, "negotiated": negotiated, "requestedOutputs": requested, "produced": produced, "legacy": legacy })
        }
        "accept" => {
            json!({ "tool": full_tool(), "extensions": extensions, "negotiated": negotiated })
        }
        "plan" => {
            json!({ "tool": full_tool(), "extensions": extensions, "negotiated": negotiated, "mode": "apps", "schemas": true })
        }
        "check" | "route" => {
            json!({ "tool": full_tool(), "extensions": extensions, "negotiated": negotiated, "requestedOutputs": requested, "result": result })
        }
        "list" => {
            json!({ "tools": [full_tool()], "extensions": extensions, "negotiated": negotiated, "protocolVersion": "2026-07-28",
                    "legacyByTool": { full_tool()["name"].as_str().unwrap_or_default(): legacy }, "cache": { "ttlMs": 1000, "cacheScope": "public" } })
        }
        "discover" => {
            json!({ "extensions": extensions, "negotiated": negotiated,
                    "result": { "resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": [full_tool()] } })
        }
        "migrate" => {
            json!({ "legacyTool": { "name": "t", "inputSchema": { "type": "object" }, "outputSchema": { "type": "object" }, "_meta": { "ui/resourceUri": "ui://t" } }, "options": { "apps": true, "programmaticFromOutputSchema": true } })
        }
        _ => {
            json!({ "tool": full_tool(), "extensions": extensions, "negotiated": negotiated, "legacy": legacy, "mode": "apps", "produced": produced })
        }
    }
}

/// The value reached by following `path`: each step picks a child by index modulo the number
/// of children, and the walk stops at a scalar or an empty container.
fn navigate<'v>(value: &'v mut Value, path: &[u8]) -> &'v mut Value {
    let mut current = value;
    for step in path {
        let len = match &*current {
            Value::Array(items) => items.len(),
            Value::Object(members) => members.len(),
            _ => 0,
        };
        if len == 0 {
            break;
        }
        let i = usize::from(*step) % len;
        current = match current {
            Value::Array(items) => &mut items[i],
            Value::Object(members) => members.values_mut().nth(i).unwrap(),
            _ => unreachable!(),
        };
    }
    current
}

/// One change to a valid input.
#[derive(Clone, Debug)]
enum Edit {
    /// Replace the value the path leads to.
    Replace(Vec<u8>, Value),
    /// Remove a member of the object the path leads to.
    Remove(Vec<u8>),
    /// Append a copy of an element to the array the path leads to.
    Duplicate(Vec<u8>),
}

#[derive(Clone, Debug)]
enum Fuzz {
    /// Any JSON as the input.
    Arbitrary(Value),
    /// An object with the operation's own fields, each holding any JSON.
    Fields(Vec<(usize, Value)>),
    /// A valid input with a few edits deep inside.
    Mutated(Vec<Edit>),
}

fn arb_edit() -> impl Strategy<Value = Edit> {
    let path = || prop::collection::vec(any::<u8>(), 0..8);
    let word = prop_oneof![
        prop::sample::select(WORDS).prop_map(Value::from),
        any::<bool>().prop_map(Value::Bool),
        Just(json!([])),
        Just(json!({})),
    ];
    prop_oneof![
        3 => (path(), arb_json()).prop_map(|(p, v)| Edit::Replace(p, v)),
        3 => (path(), word).prop_map(|(p, v)| Edit::Replace(p, v)),
        1 => path().prop_map(Edit::Remove),
        1 => path().prop_map(Edit::Duplicate),
    ]
}

fn arb_fuzz() -> impl Strategy<Value = (usize, Fuzz, bool)> {
    let fuzz = prop_oneof![
        1 => arb_json().prop_map(Fuzz::Arbitrary),
        2 => prop::collection::vec((0usize..16, arb_json()), 0..6).prop_map(Fuzz::Fields),
        8 => prop::collection::vec(arb_edit(), 0..4).prop_map(Fuzz::Mutated),
    ];
    (0..ops::OPERATIONS.len() + 1, fuzz, prop::bool::weighted(0.2))
}

fn fuzz_input(op: &str, fields: &[&str], fuzz: &Fuzz) -> Value {
    match fuzz {
        Fuzz::Arbitrary(value) => value.clone(),
        Fuzz::Fields(members) => {
            let names: Vec<&str> = fields.iter().chain(ops::COMMON_FIELDS).copied().collect();
            Value::Object(members.iter().map(|(i, v)| (names[i % names.len()].to_owned(), v.clone())).collect())
        }
        Fuzz::Mutated(edits) => {
            let mut input = template(op);
            for edit in edits {
                match edit {
                    Edit::Replace(path, v) => *navigate(&mut input, path) = v.clone(),
                    Edit::Remove(path) => {
                        let (last, parent) = path.split_last().unwrap_or((&0, &[]));
                        if let Value::Object(members) = navigate(&mut input, parent) {
                            if !members.is_empty() {
                                let i = usize::from(*last) % members.len();
                                let key = members.keys().nth(i).cloned().unwrap();
                                members.shift_remove(&key);
                            }
                        }
                    }
                    Edit::Duplicate(path) => {
                        let (last, parent) = path.split_last().unwrap_or((&0, &[]));
                        if let Value::Array(items) = navigate(&mut input, parent) {
                            if !items.is_empty() {
                                let copy = items[usize::from(*last) % items.len()].clone();
                                items.push(copy);
                            }
                        }
                    }
                }
            }
            input
        }
    }
}

/// SEC-1: every operation of the contract returns a value or a typed error on any input,
/// never a panic.
#[test]
fn ops_run_never_panics() {
    let tight = Limits {
        max_depth: 5,
        max_bytes: 600,
        max_array_len: 4,
        max_object_len: 8,
        max_variants: 3,
        max_tools: 2,
        max_extensions: 1,
    };
    let ok = Cell::new(0usize);
    let total = Cell::new(0usize);
    let codes = std::cell::RefCell::new(BTreeSet::new());
    run_property(6_000, arb_fuzz(), |(op_index, fuzz, tight_limits)| {
        let (op, fields) = ops::OPERATIONS.get(op_index).copied().unwrap_or(("no-such-op", &[]));
        let input = fuzz_input(op, fields, &fuzz);
        let limits = if tight_limits { tight.clone() } else { Limits::default() };
        bump(&total);
        match ops::run_with_limits(op, &input, limits) {
            Ok(out) => {
                prop_assert!(out.is_object(), "{op} returned {out}");
                prop_assert!(op != "no-such-op");
                bump(&ok);
            }
            Err(e) => {
                assert_typed(&e)?;
                codes.borrow_mut().insert(e.code().as_str());
            }
        }
        Ok(())
    });
    eprintln!("{} of {} succeeded; codes seen: {:?}", ok.get(), total.get(), codes.borrow());
    // The mutated templates must reach the operations' happy paths too, not only their
    // first shape check.
    assert!(codes.borrow().len() >= 10, "the fuzzer reached only {:?}", codes.borrow());
    assert!(ok.get() * 20 >= total.get(), "only {} of {} fuzzed inputs succeeded", ok.get(), total.get());
}

/// The templates the fuzzer mutates are valid: otherwise the fuzzing would only ever reach
/// the first error of each operation.
#[test]
fn fuzz_templates_are_valid() {
    for (op, _) in ops::OPERATIONS {
        let out = ops::run(op, &template(op));
        assert!(out.is_ok(), "{op}: {:?}", out.map_err(|e| e.to_string()).err());
    }
}
