//! Hostile input (SEC-1, SEC-3): wrong JSON types everywhere, deep nesting, huge arrays,
//! oversize input, too many variants, `$ref` cycles, catastrophic regexes, external
//! references and bad text. Each test asserts a typed error code (or a bounded, correct
//! result), never a crash or a hang.
//!
//! Deep values are built iteratively and taken apart iteratively ([`Deep`]): dropping a
//! 10,000-level `serde_json::Value` recursively could exhaust a test thread's stack by itself.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use mcp_outputs::schema::CompiledSchema;
use mcp_outputs::{
    ops, Config, Connection, ErrorCode, Limits, Produced, ProtocolVersion, ReceivedTool, ServerTool, APPS_EXTENSION,
};
use serde_json::{json, Map, Value};
use std::sync::mpsc;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------------
// Helpers.

fn code_of(result: Result<Value, mcp_outputs::Error>) -> Option<ErrorCode> {
    result.err().map(|e| e.code())
}

fn run_code(op: &str, input: &Value) -> Option<ErrorCode> {
    code_of(ops::run(op, input))
}

/// Takes a value apart without recursion.
fn dismantle(value: Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => stack.extend(members.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// A value that may be deep, dropped without recursion.
struct Deep(Value);

impl Drop for Deep {
    fn drop(&mut self) {
        dismantle(std::mem::take(&mut self.0));
    }
}

/// `levels` nested arrays around `1`: depth `levels` (a scalar alone is depth 0 here, an
/// array holding it depth 1, as `Limits` counts).
fn nested_arrays(levels: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..levels {
        v = Value::Array(vec![v]);
    }
    v
}

/// `levels` nested objects `{"a": {"a": ... 1}}`.
fn nested_objects(levels: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..levels {
        let mut m = Map::new();
        m.insert("a".into(), v);
        v = Value::Object(m);
    }
    v
}

/// A schema of `levels` object levels: `{"items": {"items": ... {}}}` (the innermost `{}`
/// counts as one level).
fn nested_schema(levels: usize) -> Value {
    let mut v = json!({});
    for _ in 1..levels {
        let mut m = Map::new();
        m.insert("items".into(), v);
        v = Value::Object(m);
    }
    v
}

/// Depth as `Limits` counts it (each array or object level, the outermost at 1), without
/// recursion.
fn depth(value: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Value::Array(items) => {
                max = max.max(d + 1);
                stack.extend(items.iter().map(|i| (i, d + 1)));
            }
            Value::Object(members) => {
                max = max.max(d + 1);
                stack.extend(members.values().map(|i| (i, d + 1)));
            }
            _ => {}
        }
    }
    max
}

/// Sets the value at a JSON Pointer, creating the last member of an object if needed.
fn set(value: &mut Value, pointer: &str, new: Value) {
    if pointer.is_empty() {
        *value = new;
        return;
    }
    let (parent, last) = pointer.rsplit_once('/').unwrap();
    let last = last.replace("~1", "/").replace("~0", "~");
    match value.pointer_mut(parent) {
        Some(Value::Object(m)) => {
            m.insert(last, new);
        }
        Some(Value::Array(a)) => {
            let i: usize = last.parse().unwrap();
            a[i] = new;
        }
        _ => panic!("no container at {parent}"),
    }
}

/// Runs `f` on its own thread and fails the test if it does not finish within `budget`: a
/// termination check with a generous sanity bound, not a performance assertion.
fn bounded<T: Send + 'static>(what: &str, budget: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let started = Instant::now();
    std::thread::Builder::new()
        .name(what.to_owned())
        .spawn(move || {
            let _ = tx.send(f());
        })
        .unwrap();
    match rx.recv_timeout(budget) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: no answer after {:?}", started.elapsed())
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: panicked"),
    }
}

const BUDGET: Duration = Duration::from_secs(20);

// Deep values are never interpolated with `json!`: it copies them through `to_value`, which
// recurses. The builders below move them in place instead.

fn tool_with(schema: Value) -> Value {
    let mut tool = json!({
        "name": "t",
        "inputSchema": { "type": "object" },
        "outputVariants": [
            { "audience": "assistant", "format": "content" },
            { "audience": "programmatic", "format": "structured" }
        ]
    });
    tool["outputVariants"][1]["schema"] = schema;
    tool
}

fn programmatic_request() -> Value {
    json!([{ "audience": "programmatic", "format": "structured" }])
}

fn programmatic_output(value: Value) -> Value {
    let mut output = json!({ "audience": "programmatic", "format": "structured" });
    output["structuredContent"] = value;
    output
}

/// `{"outputs": [...]}`, what a tool produced.
fn produced_of(outputs: Vec<Value>) -> Value {
    let mut produced = Map::new();
    produced.insert("outputs".into(), Value::Array(outputs));
    Value::Object(produced)
}

/// `{"resultType": "complete", "outputs": [...]}`, a 2026-12-01 result.
fn result_of(outputs: Vec<Value>) -> Value {
    let mut result = json!({ "resultType": "complete" });
    result["outputs"] = Value::Array(outputs);
    result
}

fn assistant_output() -> Value {
    json!({ "audience": "assistant", "format": "content", "content": [{ "type": "text", "text": "ok" }] })
}

/// respond and route for one programmatic/structured value against `schema`, through the
/// typed API; both sides must agree.
fn respond_and_route(schema: Value, value: Value) -> Result<(), ErrorCode> {
    let config = Config::new();
    let server = ServerTool::declare(&tool_with(schema), None, &config).map_err(|e| e.code())?;
    let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], config);
    let host = ReceivedTool::accept(&server.advertise(&conn), &conn).map_err(|e| e.code())?;
    let requested = programmatic_request();
    let produced = produced_of(vec![programmatic_output(value.clone())]);
    let served = server.respond(&conn, Some(&requested), Produced::new(&produced)).map(|_| ()).map_err(|e| e.code());
    // The client checks what a hostile server might send unvalidated.
    let result = result_of(vec![programmatic_output(value)]);
    let routed = host.route(Some(&requested), &result).map(|_| ()).map_err(|e| e.code());
    assert_eq!(served, routed, "server and client disagree");
    served
}

// ---------------------------------------------------------------------------------------------
// Wrong JSON types at every field.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Null,
    Bool,
    Int,
    Float,
    Str,
    Arr,
    Obj,
}

const SAMPLES: [(Kind, &str); 10] = [
    (Kind::Null, "null"),
    (Kind::Bool, "true"),
    (Kind::Bool, "false"),
    (Kind::Int, "7"),
    (Kind::Int, "-1"),
    (Kind::Float, "2.5"),
    (Kind::Str, "\"s\""),
    (Kind::Arr, "[]"),
    (Kind::Arr, "[1]"),
    (Kind::Obj, "{\"z\":1}"),
];

/// One field of an operation's input: the kinds it accepts and the code for every other
/// kind.
struct Spot {
    pointer: &'static str,
    ok: &'static [Kind],
    wrong: ErrorCode,
}

const fn spot(pointer: &'static str, ok: &'static [Kind], wrong: ErrorCode) -> Spot {
    Spot { pointer, ok, wrong }
}

use ErrorCode::{Malformed, SchemaViolation};
use Kind::{Arr, Bool, Null, Obj, Str};

const ANY: &[Kind] = &[Kind::Null, Kind::Bool, Kind::Int, Kind::Float, Kind::Str, Kind::Arr, Kind::Obj];
const NOTHING: &[Kind] = &[];

/// Replaces each spot with a value of each kind: an accepted kind gives a result or a typed
/// error, every other kind exactly the spot's code. Spots accepting every kind are unknown
/// fields, which must be ignored: the operation still succeeds.
fn check_spots(op: &str, base: &Value, spots: &[Spot]) {
    let baseline = ops::run(op, base);
    assert!(baseline.is_ok(), "{op} baseline: {:?}", baseline.map_err(|e| e.to_string()));
    for s in spots {
        for (kind, sample) in SAMPLES {
            let mut input = base.clone();
            set(&mut input, s.pointer, serde_json::from_str(sample).unwrap());
            let got = ops::run(op, &input);
            if s.ok.contains(&kind) {
                if let Err(e) = &got {
                    assert!(ErrorCode::ALL.contains(&e.code()));
                }
                if s.ok == ANY {
                    assert!(
                        got.is_ok(),
                        "{op}: unknown field {} = {sample} was not ignored: {:?}",
                        s.pointer,
                        got.map_err(|e| e.to_string())
                    );
                }
            } else {
                assert_eq!(
                    code_of(got.clone()),
                    Some(s.wrong),
                    "{op}: {} = {sample}: {:?}",
                    s.pointer,
                    got.map_err(|e| e.to_string())
                );
            }
        }
    }
}

fn new_tool() -> Value {
    json!({
        "name": "t",
        "description": "d",
        "inputSchema": { "type": "object" },
        "_meta": { "ui": { "resourceUri": "ui://t" } },
        "outputVariants": [
            { "audience": "assistant", "format": "content", "title": "x" },
            { "audience": "programmatic", "format": "structured", "schema": { "type": "object" } },
            { "audience": APPS_EXTENSION, "format": "structured", "schema": { "type": "object" } }
        ]
    })
}

fn blocks() -> Value {
    json!([
        { "type": "text", "text": "hi", "annotations": { "audience": ["assistant"], "priority": 1 } },
        { "type": "image", "data": "AA==", "mimeType": "image/png" },
        { "type": "audio", "data": "AA==", "mimeType": "audio/wav" },
        { "type": "resource_link", "uri": "file:///a", "name": "a" },
        { "type": "resource", "resource": { "uri": "file:///b", "text": "b" } }
    ])
}

#[test]
fn wrong_types_in_a_tool_variant_request_and_produced_outputs() {
    let base = json!({
        "negotiated": [APPS_EXTENSION],
        "tool": new_tool(),
        "legacy": { "mirror": true, "outputSchema": { "type": "object" } },
        "requestedOutputs": [
            { "audience": "assistant", "format": "content" },
            { "audience": "programmatic", "format": "structured" }
        ],
        "produced": {
            "outputs": [
                { "audience": "assistant", "format": "content", "content": blocks(), "note": 1 },
                { "audience": "programmatic", "format": "structured", "structuredContent": { "a": 1 } }
            ],
            "isError": false,
            "_meta": { "k": 1 }
        }
    });
    let spots = [
        spot("", &[Obj], Malformed),
        spot("/tool", &[Obj], Malformed),
        spot("/tool/name", &[Str], Malformed),
        spot("/tool/inputSchema", &[Obj], Malformed),
        spot("/tool/_meta", &[Obj], Malformed),
        spot("/tool/description", ANY, Malformed),
        spot("/tool/outputSchema", NOTHING, Malformed),
        spot("/tool/outputVariants", &[Arr], Malformed),
        spot("/tool/outputVariants/0", &[Obj], Malformed),
        spot("/tool/outputVariants/0/audience", &[Str], Malformed),
        spot("/tool/outputVariants/0/format", &[Str], Malformed),
        spot("/tool/outputVariants/0/title", ANY, Malformed),
        spot("/tool/outputVariants/0/schema", NOTHING, Malformed),
        spot("/tool/outputVariants/1/audience", &[Str], Malformed),
        spot("/tool/outputVariants/1/format", &[Str], Malformed),
        // Contract v2: a schema that is not an object is malformed (the SEP types it so).
        spot("/tool/outputVariants/1/schema", &[Obj], Malformed),
        spot("/legacy", &[Obj], Malformed),
        spot("/legacy/mirror", &[Bool], Malformed),
        // Contract v2: a schema is a JSON object; `true` is the wrong shape, not a schema.
        spot("/legacy/outputSchema", &[Obj], Malformed),
        spot("/legacy/structuredFrom", NOTHING, Malformed),
        spot("/protocolVersion", &[Str], Malformed),
        spot("/negotiated", &[Null, Arr], Malformed),
        spot("/negotiated/0", &[Str], Malformed),
        spot("/extensions", &[Arr], Malformed),
        spot("/requestedOutputs", &[Arr], Malformed),
        spot("/requestedOutputs/0", &[Obj], Malformed),
        spot("/requestedOutputs/0/audience", &[Str], Malformed),
        spot("/requestedOutputs/1/format", &[Str], Malformed),
        spot("/requestedOutputs/1/extra", ANY, Malformed),
        spot("/produced", &[Obj], Malformed),
        spot("/produced/outputs", &[Arr], Malformed),
        spot("/produced/outputs/0", &[Obj], Malformed),
        spot("/produced/outputs/0/audience", &[Str], Malformed),
        spot("/produced/outputs/0/format", &[Str], Malformed),
        spot("/produced/outputs/0/note", ANY, Malformed),
        spot("/produced/outputs/0/content", &[Arr], Malformed),
        spot("/produced/outputs/1/audience", &[Str], Malformed),
        spot("/produced/outputs/1/format", &[Str], Malformed),
        spot("/produced/outputs/1/structuredContent", &[Obj], SchemaViolation),
        spot("/produced/isError", &[Bool], Malformed),
        spot("/produced/_meta", &[Obj], Malformed),
        spot("/produced/_meta/k", ANY, Malformed),
        // Content blocks: every block type's required fields.
        spot("/produced/outputs/0/content/0", &[Obj], Malformed),
        spot("/produced/outputs/0/content/0/type", NOTHING, Malformed),
        spot("/produced/outputs/0/content/0/text", &[Str], Malformed),
        spot("/produced/outputs/0/content/0/annotations", &[Obj], Malformed),
        spot("/produced/outputs/0/content/0/annotations/audience", &[Arr], Malformed),
        spot("/produced/outputs/0/content/0/annotations/audience/0", &[Str], Malformed),
        spot("/produced/outputs/0/content/0/annotations/priority", ANY, Malformed),
        spot("/produced/outputs/0/content/1/data", &[Str], Malformed),
        spot("/produced/outputs/0/content/1/mimeType", &[Str], Malformed),
        spot("/produced/outputs/0/content/2/data", &[Str], Malformed),
        spot("/produced/outputs/0/content/2/mimeType", &[Str], Malformed),
        spot("/produced/outputs/0/content/3/uri", &[Str], Malformed),
        spot("/produced/outputs/0/content/3/name", &[Str], Malformed),
        spot("/produced/outputs/0/content/4/resource", &[Obj], Malformed),
        spot("/produced/outputs/0/content/4/resource/uri", &[Str], Malformed),
        spot("/produced/outputs/0/content/4/resource/text", &[Str], Malformed),
    ];
    check_spots("respond", &base, &spots);
    // The same declaration and request through select and declare.
    check_spots(
        "select",
        &base,
        &spots
            .iter()
            .filter(|s| s.pointer.starts_with("/tool") || s.pointer.starts_with("/requested"))
            .map(|s| spot(s.pointer, s.ok, s.wrong))
            .collect::<Vec<_>>(),
    );
    check_spots(
        "declare",
        &json!({ "tool": new_tool() }),
        &spots
            .iter()
            .filter(|s| s.pointer.starts_with("/tool"))
            .map(|s| spot(s.pointer, s.ok, s.wrong))
            .collect::<Vec<_>>(),
    );
}

#[test]
fn wrong_types_in_a_received_result() {
    let base = json!({
        "negotiated": [APPS_EXTENSION],
        "tool": new_tool(),
        "requestedOutputs": [
            { "audience": "assistant", "format": "content" },
            { "audience": APPS_EXTENSION, "format": "structured" }
        ],
        "result": {
            "resultType": "complete",
            "outputs": [
                { "audience": "assistant", "format": "content", "content": blocks(), "note": 1 },
                { "audience": APPS_EXTENSION, "format": "structured", "structuredContent": { "a": 1 } }
            ],
            "isError": false,
            "_meta": { APPS_EXTENSION: { "x": 1 }, "k": 1 },
            "extra": 1
        }
    });
    let spots = [
        spot("/tool", &[Obj], Malformed),
        spot("/tool/name", &[Str], Malformed),
        spot("/tool/inputSchema", &[Obj], Malformed),
        spot("/tool/_meta", &[Obj], Malformed),
        // Contract v2: a received 2026-12-01 Tool's outputSchema is ignored (with a warning).
        spot("/tool/outputSchema", ANY, Malformed),
        spot("/tool/outputVariants", &[Arr], Malformed),
        spot("/tool/outputVariants/2", &[Obj], Malformed),
        spot("/tool/outputVariants/2/audience", &[Str], Malformed),
        spot("/tool/outputVariants/2/schema", &[Obj], Malformed),
        spot("/requestedOutputs", &[Arr], Malformed),
        spot("/requestedOutputs/1", &[Obj], Malformed),
        spot("/requestedOutputs/1/audience", &[Str], Malformed),
        spot("/requestedOutputs/1/format", &[Str], Malformed),
        spot("/result", &[Obj], Malformed),
        spot("/result/extra", ANY, Malformed),
        // RT-1: from 2026-07-28 any string is a kind of answer (another one is an extension's).
        spot("/result/resultType", &[Str], Malformed),
        spot("/result/outputs", &[Arr], Malformed),
        spot("/result/outputs/0", &[Obj], Malformed),
        spot("/result/outputs/0/audience", &[Str], Malformed),
        spot("/result/outputs/0/format", &[Str], Malformed),
        spot("/result/outputs/0/note", ANY, Malformed),
        spot("/result/outputs/0/content", &[Arr], Malformed),
        spot("/result/outputs/0/content/0", &[Obj], Malformed),
        spot("/result/outputs/0/content/0/type", NOTHING, Malformed),
        spot("/result/outputs/0/content/0/text", &[Str], Malformed),
        spot("/result/outputs/0/content/0/annotations", &[Obj], Malformed),
        spot("/result/outputs/0/content/0/annotations/audience", &[Arr], Malformed),
        spot("/result/outputs/0/content/0/annotations/audience/0", &[Str], Malformed),
        spot("/result/outputs/0/content/1/data", &[Str], Malformed),
        spot("/result/outputs/0/content/2/mimeType", &[Str], Malformed),
        spot("/result/outputs/0/content/3/uri", &[Str], Malformed),
        spot("/result/outputs/0/content/3/name", &[Str], Malformed),
        spot("/result/outputs/0/content/4/resource", &[Obj], Malformed),
        spot("/result/outputs/0/content/4/resource/uri", &[Str], Malformed),
        spot("/result/outputs/0/content/4/resource/text", &[Str], Malformed),
        spot("/result/outputs/1/audience", &[Str], Malformed),
        spot("/result/outputs/1/structuredContent", &[Obj], SchemaViolation),
        spot("/result/isError", &[Bool], Malformed),
        spot("/result/_meta", &[Obj], Malformed),
        spot("/result/_meta/k", ANY, Malformed),
    ];
    check_spots("route", &base, &spots);
    check_spots("check", &base, &spots);

    // A legacy result (2025-06-18) for a legacy Tool.
    let legacy = json!({
        "protocolVersion": "2025-06-18",
        "tool": { "name": "t", "inputSchema": { "type": "object" }, "outputSchema": { "type": "object" } },
        "result": {
            "content": blocks(),
            "structuredContent": { "a": 1 },
            "isError": false,
            "_meta": { "k": 1 }
        }
    });
    let spots = [
        spot("/tool/outputSchema", &[Obj], Malformed),
        spot("/tool/outputVariants", ANY, Malformed),
        spot("/result/content", &[Arr], Malformed),
        spot("/result/content/0/text", &[Str], Malformed),
        spot("/result/content/4/resource/uri", &[Str], Malformed),
        spot("/result/structuredContent", &[Obj], SchemaViolation),
        spot("/result/resultType", NOTHING, Malformed),
        spot("/result/isError", &[Bool], Malformed),
        spot("/result/_meta", &[Obj], Malformed),
    ];
    check_spots("route", &legacy, &spots);
    check_spots("check", &legacy, &spots);
}

#[test]
fn wrong_types_in_extensions_plans_and_migration() {
    let extensions = json!({
        "extensions": [{
            "id": "com.example/audit", "formats": ["structured"], "modelContext": false,
            "metaKey": "com.example/audit", "legacyProjection": false, "schemas": "perVariant"
        }],
        "tool": {
            "name": "t", "inputSchema": { "type": "object" },
            "outputVariants": [
                { "audience": "assistant", "format": "content" },
                { "audience": "com.example/audit", "format": "structured" }
            ]
        }
    });
    check_spots(
        "declare",
        &extensions,
        &[
            spot("/extensions", &[Arr], Malformed),
            spot("/extensions/0", &[Obj], Malformed),
            spot("/extensions/0/id", &[Str], Malformed),
            spot("/extensions/0/formats", NOTHING, Malformed),
            spot("/extensions/0/formats/0", NOTHING, Malformed),
            spot("/extensions/0/modelContext", &[Bool], Malformed),
            spot("/extensions/0/metaKey", &[Str, Null], Malformed),
            spot("/extensions/0/legacyProjection", &[Bool], Malformed),
            spot("/extensions/0/schemas", NOTHING, Malformed),
        ],
    );

    let plan = json!({
        "negotiated": [APPS_EXTENSION], "tool": new_tool(),
        "mode": "apps", "schemas": true, "requireSchema": false
    });
    check_spots(
        "plan",
        &plan,
        &[
            spot("/mode", NOTHING, Malformed),
            spot("/schemas", &[Bool], Malformed),
            spot("/requireSchema", &[Bool], Malformed),
            spot("/tool/outputVariants/1/format", &[Str], Malformed),
        ],
    );
    let consumers = json!({
        "negotiated": [APPS_EXTENSION], "tool": new_tool(),
        "consumers": [{ "audience": "programmatic", "format": "structured" }]
    });
    check_spots(
        "plan",
        &consumers,
        &[
            spot("/consumers", &[Arr], Malformed),
            spot("/consumers/0", &[Obj], Malformed),
            spot("/consumers/0/audience", &[Str], Malformed),
            spot("/consumers/0/format", &[Str], Malformed),
        ],
    );

    let migrate = json!({
        "legacyTool": {
            "name": "t", "inputSchema": { "type": "object" }, "outputSchema": { "type": "object" },
            "_meta": { "ui": { "resourceUri": "ui://t" } }
        },
        "options": { "apps": true, "programmaticFromOutputSchema": true }
    });
    check_spots(
        "migrate",
        &migrate,
        &[
            spot("/legacyTool", &[Obj], Malformed),
            spot("/legacyTool/name", &[Str], Malformed),
            spot("/legacyTool/inputSchema", &[Obj], Malformed),
            spot("/legacyTool/outputSchema", &[Obj], Malformed),
            spot("/legacyTool/_meta", &[Obj], Malformed),
            spot("/options", &[Obj], Malformed),
            spot("/options/apps", &[Bool], Malformed),
            spot("/options/programmaticFromOutputSchema", &[Bool], Malformed),
        ],
    );

    let scenario = json!({
        "negotiated": [APPS_EXTENSION], "tool": new_tool(), "mode": "apps",
        "produced": { "outputs": [
            { "audience": "assistant", "format": "content", "content": [{ "type": "text", "text": "x" }] },
            { "audience": APPS_EXTENSION, "format": "structured", "structuredContent": { "v": 1 } }
        ] }
    });
    check_spots(
        "scenario",
        &scenario,
        &[
            spot("/produced/outputs/1/structuredContent", &[Obj], SchemaViolation),
            spot("/produced/outputs/0/content/0/text", &[Str], Malformed),
            spot("/produced/_meta", &[Obj], Malformed),
            spot("/produced/isError", &[Bool], Malformed),
            spot("/mode", NOTHING, Malformed),
        ],
    );
}

/// Fields missing where required: each is a typed error too.
#[test]
fn missing_fields() {
    let tool = new_tool();
    let route = |result: Value| {
        run_code(
            "route",
            &json!({
                "negotiated": [APPS_EXTENSION], "tool": tool,
                "requestedOutputs": [{ "audience": APPS_EXTENSION, "format": "structured" }],
                "result": result
            }),
        )
    };
    assert_eq!(route(json!({ "resultType": "complete" })), Some(Malformed));
    assert_eq!(
        route(json!({ "outputs": [{ "audience": APPS_EXTENSION, "format": "structured" }] })),
        Some(ErrorCode::OutputShapeMismatch)
    );
    assert_eq!(route(json!({ "outputs": [{ "audience": APPS_EXTENSION, "structuredContent": 1 }] })), Some(Malformed));
    assert_eq!(route(json!({ "outputs": [{ "format": "structured", "structuredContent": 1 }] })), Some(Malformed));
    assert_eq!(
        route(
            json!({ "outputs": [{ "audience": APPS_EXTENSION, "format": "structured", "structuredContent": {}, "content": [] }] })
        ),
        Some(ErrorCode::OutputShapeMismatch)
    );
    for missing in ["name", "inputSchema"] {
        let mut t = new_tool();
        t.as_object_mut().unwrap().remove(missing);
        assert_eq!(run_code("declare", &json!({ "tool": t })), Some(Malformed));
        assert_eq!(run_code("accept", &json!({ "tool": t })), Some(Malformed));
    }
    let mut t = new_tool();
    t.as_object_mut().unwrap().remove("outputVariants");
    assert_eq!(run_code("accept", &json!({ "tool": t })), Some(ErrorCode::MissingOutputVariants));
    for op in ["respond", "route", "check", "declare", "accept", "select", "plan"] {
        assert_eq!(run_code(op, &json!({})), Some(Malformed), "{op}");
    }
    assert_eq!(run_code("migrate", &json!({})), Some(Malformed));
    assert_eq!(run_code("no-such-op", &json!({ "tool": new_tool() })), Some(Malformed));
}

// ---------------------------------------------------------------------------------------------
// Deep nesting.

const DEEP: [usize; 4] = [129, 130, 1_000, 10_000];

/// A tool whose programmatic schema makes the whole tool exactly `total` levels deep
/// (tool, outputVariants, variant, then the schema's levels).
fn tool_of_depth(total: usize) -> Value {
    let tool = tool_with(nested_schema(total - 3));
    assert_eq!(depth(&tool), total);
    tool
}

#[test]
fn deep_tool_schema_is_limit_exceeded_and_depth_128_is_accepted() {
    let config = Config::new();
    let tool = Deep(tool_of_depth(128));
    let server = ServerTool::declare(&tool.0, None, &config).unwrap();
    let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], Config::new());
    let host = ReceivedTool::accept(&server.advertise(&conn), &conn).unwrap();
    // The deep schema is compiled and used.
    let produced = produced_of(vec![assistant_output(), programmatic_output(json!([[1]]))]);
    let result = server.respond(&conn, Some(&programmatic_request()), Produced::new(&produced)).unwrap();
    host.route(Some(&programmatic_request()), &result).unwrap();
    let mut input = Deep(json!({}));
    input.0["tool"] = tool.0.clone();
    assert_eq!(run_code("declare", &input.0), None);

    for d in DEEP {
        let tool = Deep(tool_of_depth(d));
        let server = ServerTool::declare(&tool.0, None, &config).map(|_| ());
        assert_eq!(server.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded), "{d}");
        let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], Config::new());
        let received = ReceivedTool::accept(&tool.0, &conn).map(|_| ());
        assert_eq!(received.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
        // A legacy Tool's outputSchema, on the client.
        let mut legacy = Deep(json!({ "name": "t", "inputSchema": {} }));
        legacy.0["outputSchema"] = nested_schema(d);
        let old = Connection::new(ProtocolVersion::V2025_06_18, vec![], Config::new());
        let received = ReceivedTool::accept(&legacy.0, &old).map(|_| ());
        assert_eq!(received.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
        // And in the server's legacy options.
        let mut options = Deep(json!({}));
        options.0["outputSchema"] = nested_schema(d);
        let declared = ServerTool::declare(&tool_with(json!({})), Some(&options.0), &config);
        assert_eq!(declared.map(|_| ()).map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
    }
}

/// produced / result (1), outputs (2), the output (3), then `total - 3` levels of value.
fn output_of_depth(total: usize) -> Value {
    programmatic_output(nested_arrays(total - 3))
}

#[test]
fn deep_structured_content_is_limit_exceeded_and_depth_128_is_accepted() {
    let config = Config::new();
    // A recursive schema: validation recurses with the value, so the client bounds it too.
    let recursive = json!({ "$defs": { "any": {} }, "items": { "$ref": "#/$defs/any" } });
    for schema in [json!({}), recursive.clone()] {
        let server = ServerTool::declare(&tool_with(schema), None, &config).unwrap();
        let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], Config::new());
        let host = ReceivedTool::accept(&server.advertise(&conn), &conn).unwrap();
        let requested = programmatic_request();

        let produced = Deep(produced_of(vec![output_of_depth(128)]));
        assert_eq!(depth(&produced.0), 128);
        let result = Deep(server.respond(&conn, Some(&requested), Produced::new(&produced.0)).unwrap());
        assert_eq!(depth(&result.0), 128);
        let route = host.route(Some(&requested), &result.0).unwrap();
        assert_eq!(route.programmatic.len(), 1);
        drop(route);

        // The server never sends a payload over the limit.
        for d in DEEP {
            let produced = Deep(produced_of(vec![output_of_depth(d)]));
            let got = server.respond(&conn, Some(&requested), Produced::new(&produced.0));
            assert_eq!(code_of(got), Some(ErrorCode::LimitExceeded), "{d}");
        }
    }
    // The client refuses a deep payload its recursive schema would recurse into.
    let host_conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], Config::new());
    let host = ReceivedTool::accept(&tool_with(recursive), &host_conn).unwrap();
    for d in DEEP {
        let result = Deep(result_of(vec![output_of_depth(d)]));
        let got = host.route(Some(&programmatic_request()), &result.0).map(|_| ());
        assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded), "{d}");
    }
    // Legacy: a legacy outputSchema with a reference bounds structuredContent.
    let legacy_tool = json!({
        "name": "t", "inputSchema": {},
        "outputSchema": { "type": "object", "additionalProperties": { "$ref": "#" } }
    });
    let old = Connection::new(ProtocolVersion::V2026_07_28, vec![], Config::new());
    let legacy_host = ReceivedTool::accept(&legacy_tool, &old).unwrap();
    for d in DEEP {
        let mut legacy_result = Deep(json!({ "content": [] }));
        legacy_result.0["structuredContent"] = nested_objects(d);
        let got = legacy_host.route(None, &legacy_result.0).map(|_| ());
        assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
    }
    // Deep content blocks are bounded on both sides whatever the schemas.
    let server = ServerTool::declare(&tool_with(json!({})), None, &config).unwrap();
    let host = ReceivedTool::accept(&server.advertise(&host_conn), &host_conn).unwrap();
    for d in DEEP {
        // Built twice: cloning a deep value would recurse.
        let output = || {
            let mut output = assistant_output();
            output["content"][0]["annotations"] = json!({});
            output["content"][0]["annotations"]["x"] = nested_objects(d);
            output
        };
        let produced = Deep(produced_of(vec![output()]));
        let got = server.respond(&host_conn, None, Produced::new(&produced.0));
        assert_eq!(code_of(got), Some(ErrorCode::LimitExceeded));
        let result = Deep(result_of(vec![output()]));
        let got = host.route(None, &result.0).map(|_| ());
        assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
    }
}

/// A received result is untrusted input like any other (SEC-1, and the contract's "every
/// input is bounded"): a structuredContent over the depth, array or size caps must be
/// `limit-exceeded` whatever its variant's schema. (A payload skipped by the limits walk once
/// reached `Route::to_json`, whose recursive copy overflowed the stack at a few thousand
/// levels.)
#[test]
fn received_structured_content_is_bounded_whatever_its_schema() {
    let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], Config::new());
    let requested = programmatic_request();
    for schema in [json!({}), json!({ "type": "array" })] {
        let host = ReceivedTool::accept(&tool_with(schema), &conn).unwrap();
        for d in DEEP {
            let result = Deep(result_of(vec![output_of_depth(d)]));
            let got = host.check(Some(&requested), &result.0).map(|_| ());
            assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded), "{d}");
            let got = host.route(Some(&requested), &result.0).map(|_| ());
            assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded), "{d}");
        }
        let zeros = Value::Array(vec![json!(0); Limits::default().max_array_len + 1]);
        let result = result_of(vec![programmatic_output(zeros)]);
        let got = host.route(Some(&requested), &result).map(|_| ());
        assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
    }
    let small = Limits { max_bytes: 1_000, ..Limits::default() };
    let input = json!({
        "tool": tool_with(json!({ "type": "string" })),
        "requestedOutputs": programmatic_request(),
        "result": result_of(vec![programmatic_output(json!("x".repeat(2_000)))])
    });
    for op in ["check", "route"] {
        assert_eq!(code_of(ops::run_with_limits(op, &input, small.clone())), Some(ErrorCode::LimitExceeded), "{op}");
    }
    // Legacy, and the Apps View (which forwards the whole legacy result, APP-6).
    let old = Connection::new(ProtocolVersion::V2026_07_28, vec![APPS_EXTENSION.to_owned()], Config::new());
    let legacy_tool = json!({ "name": "t", "inputSchema": {}, "_meta": { "ui": { "resourceUri": "ui://t" } } });
    let legacy_host = ReceivedTool::accept(&legacy_tool, &old).unwrap();
    let mut legacy_result = Deep(json!({ "content": [] }));
    legacy_result.0["structuredContent"] = nested_objects(10_000);
    let got = legacy_host.route(None, &legacy_result.0).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
}

#[test]
fn deep_requested_outputs_and_meta_are_limit_exceeded() {
    let config = Config::new();
    let server = ServerTool::declare(&tool_with(json!({})), None, &config).unwrap();
    let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], Config::new());
    let host = ReceivedTool::accept(&server.advertise(&conn), &conn).unwrap();
    let produced = json!({ "outputs": [assistant_output(), programmatic_output(json!(1))] });
    let result = json!({ "resultType": "complete", "outputs": [programmatic_output(json!(1))] });

    // requestedOutputs (1), the selector (2), an extra member holding the rest: unknown
    // members of a selector are ignored, so depth 128 is accepted.
    let requested_of = |total: usize| {
        let mut selector = programmatic_request()[0].clone();
        selector["extra"] = nested_arrays(total - 2);
        Value::Array(vec![selector])
    };
    let requested = Deep(requested_of(128));
    assert_eq!(depth(&requested.0), 128);
    server.respond(&conn, Some(&requested.0), Produced::new(&produced)).unwrap();
    host.route(Some(&requested.0), &result).unwrap();
    for d in DEEP {
        let requested = Deep(requested_of(d));
        let got = server.select(&conn, Some(&requested.0)).map(|_| ());
        assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
        let got = server.respond(&conn, Some(&requested.0), Produced::new(&produced));
        assert_eq!(code_of(got), Some(ErrorCode::LimitExceeded));
        let got = host.route(Some(&requested.0), &result).map(|_| ());
        assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
        let got = host.plan_consumers(&requested.0, &Default::default()).map(|_| ());
        assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
    }

    // produced / result (1), _meta (2), the entry's value.
    let with_meta = |base: &Value, total: usize| {
        let mut v = base.clone();
        v["_meta"] = json!({});
        v["_meta"]["k"] = nested_objects(total - 2);
        v
    };
    let p = Deep(with_meta(&produced, 128));
    let r = Deep(with_meta(&result, 128));
    assert_eq!((depth(&p.0), depth(&r.0)), (128, 128));
    server.respond(&conn, Some(&programmatic_request()), Produced::new(&p.0)).unwrap();
    let route = host.route(Some(&programmatic_request()), &r.0).unwrap();
    assert_eq!(route.dropped.len(), 1);
    drop(route);
    for d in DEEP {
        let p = Deep(with_meta(&produced, d));
        let got = server.respond(&conn, Some(&programmatic_request()), Produced::new(&p.0));
        assert_eq!(code_of(got), Some(ErrorCode::LimitExceeded));
        let r = Deep(with_meta(&result, d));
        let got = host.route(Some(&programmatic_request()), &r.0).map(|_| ());
        assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
        // The tool's own _meta.
        let mut t = Deep(tool_with(json!({})));
        t.0["_meta"] = nested_objects(d - 1);
        let got = ServerTool::declare(&t.0, None, &config).map(|_| ());
        assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
        let got = ReceivedTool::accept(&t.0, &conn).map(|_| ());
        assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
    }
}

/// Every operation, with a 10,000-level value in each of its fields.
#[test]
fn deep_values_in_every_field_of_every_operation() {
    for (op, fields) in ops::OPERATIONS {
        for field in fields.iter().chain(ops::COMMON_FIELDS) {
            for (objects, nested) in [(false, nested_arrays as fn(usize) -> Value), (true, nested_objects)] {
                let mut input = Deep(json!({
                    "tool": tool_with(json!({})),
                    "produced": { "outputs": [assistant_output()] },
                    "result": result_of(vec![assistant_output()]),
                    "legacyTool": { "name": "t", "inputSchema": {} },
                    "mode": "conversational"
                }));
                input.0[*field] = nested(10_000);
                if *field == "consumers" {
                    input.0.as_object_mut().unwrap().remove("mode");
                }
                let code = code_of(ops::run(op, &input.0));
                // A field read as JSON is refused for its depth; a deep array where an
                // object is expected may be refused for its type first. Flags and strings
                // are refused for their type, and unread fields are ignored.
                let read = matches!(
                    *field,
                    "tool"
                        | "legacy"
                        | "requestedOutputs"
                        | "produced"
                        | "result"
                        | "legacyTool"
                        | "consumers"
                        | "extensions"
                );
                if read && objects {
                    assert_eq!(code, Some(ErrorCode::LimitExceeded), "{op}.{field}");
                } else if read {
                    assert!(
                        matches!(code, Some(ErrorCode::LimitExceeded | ErrorCode::Malformed)),
                        "{op}.{field}: {code:?}"
                    );
                } else {
                    assert!(
                        matches!(code, None | Some(ErrorCode::Malformed | ErrorCode::LimitExceeded)),
                        "{op}.{field}: {code:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn limits_check_value_counts_depth_as_documented() {
    let limits = Limits::default();
    for d in [1, 2, 127, 128] {
        let v = Deep(nested_arrays(d));
        assert!(limits.check_value(&v.0, "").is_ok(), "{d}");
        let v = Deep(nested_objects(d));
        assert!(limits.check_value(&v.0, "").is_ok(), "{d}");
    }
    for d in DEEP {
        let v = Deep(nested_arrays(d));
        let e = limits.check_value(&v.0, "/x").unwrap_err();
        assert_eq!(e.code(), ErrorCode::LimitExceeded);
        // The path names where the limit was crossed, and stays bounded.
        assert!(e.path().starts_with("/x/0/0/"), "{}", e.path());
        assert!(e.path().len() < 4 * 130, "{}", e.path().len());
    }
    let small = Limits { max_depth: 3, ..Limits::default() };
    assert!(small.check_value(&json!([[[1]]]), "").is_ok());
    assert_eq!(small.check_value(&json!([[[[1]]]]), "").unwrap_err().code(), ErrorCode::LimitExceeded);
    assert!(small.check_value(&json!({"a": {"b": ["x"]}}), "").is_ok());
    assert_eq!(small.check_value(&json!({"a": {"b": [{}]}}), "").unwrap_err().code(), ErrorCode::LimitExceeded);
}

// ---------------------------------------------------------------------------------------------
// Huge arrays, oversize input, too many variants.

#[test]
fn huge_arrays_are_limit_exceeded() {
    let max = Limits::default().max_array_len;
    let config = Config::new();
    let server = ServerTool::declare(&tool_with(json!({})), None, &config).unwrap();
    let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], Config::new());
    let host = ReceivedTool::accept(&server.advertise(&conn), &conn).unwrap();
    let requested = programmatic_request();
    let zeros = |n: usize| Value::Array(vec![json!(0); n]);

    // Exactly the cap is accepted, one more is not.
    let produced = produced_of(vec![programmatic_output(zeros(max))]);
    let result = server.respond(&conn, Some(&requested), Produced::new(&produced)).unwrap();
    host.route(Some(&requested), &result).unwrap();
    let produced = produced_of(vec![programmatic_output(zeros(max + 1))]);
    let got = server.respond(&conn, Some(&requested), Produced::new(&produced));
    assert_eq!(code_of(got), Some(ErrorCode::LimitExceeded));
    let small_result = result_of(vec![programmatic_output(json!(1))]);

    // In a schema (server and client).
    let tool = tool_with(json!({ "enum": zeros(max + 1) }));
    let got = ServerTool::declare(&tool, None, &config).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
    let got = ReceivedTool::accept(&tool, &conn).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));

    // In content (server and client).
    let mut output = assistant_output();
    output["content"] = Value::Array(vec![json!({ "type": "text", "text": "x" }); max + 1]);
    let got = server.respond(&conn, None, Produced::new(&produced_of(vec![output.clone()])));
    assert_eq!(code_of(got), Some(ErrorCode::LimitExceeded));
    let got = host.route(None, &result_of(vec![output])).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));

    // In requestedOutputs (server, client, plan).
    let requested_huge = Value::Array(vec![requested[0].clone(); max + 1]);
    let got = server.select(&conn, Some(&requested_huge)).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
    let got = host.route(Some(&requested_huge), &small_result).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
    let got = host.plan_consumers(&requested_huge, &Default::default()).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));

    // In _meta (server and client).
    let mut produced = produced_of(vec![programmatic_output(json!(1))]);
    produced["_meta"] = json!({});
    produced["_meta"]["k"] = zeros(max + 1);
    let got = server.respond(&conn, Some(&requested), Produced::new(&produced));
    assert_eq!(code_of(got), Some(ErrorCode::LimitExceeded));
    let mut result = small_result.clone();
    result["_meta"] = produced["_meta"].clone();
    let got = host.route(Some(&requested), &result).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));

    // An object with too many members.
    let members: Map<String, Value> =
        (0..=Limits::default().max_object_len).map(|i| (format!("k{i}"), json!(0))).collect();
    let produced = produced_of(vec![programmatic_output(Value::Object(members.clone()))]);
    let got = server.respond(&conn, Some(&requested), Produced::new(&produced));
    assert_eq!(code_of(got), Some(ErrorCode::LimitExceeded));
    let mut result = small_result.clone();
    result["_meta"] = Value::Object(members);
    let got = host.route(Some(&requested), &result).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));

    // Through ops as well.
    let mut input = json!({ "tool": tool_with(json!({})), "requestedOutputs": requested });
    input["produced"] = produced_of(vec![programmatic_output(zeros(max + 1))]);
    assert_eq!(run_code("respond", &input), Some(ErrorCode::LimitExceeded));
    input["tool"]["outputVariants"][1]["schema"] = json!({ "enum": zeros(max + 1) });
    assert_eq!(run_code("accept", &input), Some(ErrorCode::LimitExceeded));
}

#[test]
fn oversize_input_with_small_limits() {
    let limits = Limits { max_bytes: 1_000, ..Limits::default() };
    let big = "x".repeat(2_000);
    let small = "x".repeat(100);
    let input = |text: &str| {
        let text_output =
            json!({ "audience": "assistant", "format": "content", "content": [{ "type": "text", "text": text }] });
        json!({
            "tool": tool_with(json!({ "type": "string" })),
            "requestedOutputs": programmatic_request(),
            "produced": produced_of(vec![programmatic_output(json!(text))]),
            "result": result_of(vec![text_output]),
        })
    };
    // The server bounds what it sends.
    assert_eq!(code_of(ops::run_with_limits("respond", &input(&small), limits.clone())), None);
    assert_eq!(code_of(ops::run_with_limits("respond", &input(&big), limits.clone())), Some(ErrorCode::LimitExceeded));
    // The client bounds received content and _meta.
    for op in ["route", "check"] {
        let mut i = input(&small);
        i.as_object_mut().unwrap().remove("requestedOutputs");
        assert_eq!(code_of(ops::run_with_limits(op, &i, limits.clone())), None, "{op}");
        let mut i = input(&big);
        i.as_object_mut().unwrap().remove("requestedOutputs");
        assert_eq!(code_of(ops::run_with_limits(op, &i, limits.clone())), Some(ErrorCode::LimitExceeded), "{op}");
        let mut i = input(&small);
        i.as_object_mut().unwrap().remove("requestedOutputs");
        i["result"]["_meta"] = json!({ "k": big });
        assert_eq!(code_of(ops::run_with_limits(op, &i, limits.clone())), Some(ErrorCode::LimitExceeded), "{op}");
    }
    // A big tool (a long description) is refused by declare and accept.
    let mut tool = tool_with(json!({}));
    tool["description"] = json!(big);
    for op in ["declare", "accept", "advertise"] {
        assert_eq!(
            code_of(ops::run_with_limits(op, &json!({ "tool": tool }), limits.clone())),
            Some(ErrorCode::LimitExceeded),
            "{op}"
        );
    }
    // Many small values add up: the size estimate counts every member.
    let mut i = input("x");
    i["produced"]["outputs"][0]["structuredContent"] = Value::Array(vec![json!("ab"); 500]);
    i["tool"] = tool_with(json!({}));
    assert_eq!(code_of(ops::run_with_limits("respond", &i, limits.clone())), Some(ErrorCode::LimitExceeded));
    // Text input over the byte cap never reaches the parser.
    let text = format!("\"{big}\"");
    let e = limits.parse_text(&text, "result").unwrap_err();
    assert_eq!(e.code(), ErrorCode::LimitExceeded);
    let e = limits.parse_bytes(text.as_bytes(), "result").unwrap_err();
    assert_eq!(e.code(), ErrorCode::LimitExceeded);
    assert!(limits.parse_text(&format!("\"{small}\""), "x").is_ok());
}

/// 64 distinct variants: the five core ones, the Apps one and 58 registered extensions.
fn variants(count: usize) -> (Value, Vec<Value>) {
    let extensions: Vec<Value> =
        (0..58).map(|i| json!({ "id": format!("com.example/e{i}"), "formats": ["structured"] })).collect();
    let mut list = vec![
        json!({ "audience": "assistant", "format": "content" }),
        json!({ "audience": "assistant", "format": "structured" }),
        json!({ "audience": "user", "format": "content" }),
        json!({ "audience": "user", "format": "structured" }),
        json!({ "audience": "programmatic", "format": "structured" }),
        json!({ "audience": APPS_EXTENSION, "format": "structured" }),
    ];
    list.extend((0..58).map(|i| json!({ "audience": format!("com.example/e{i}"), "format": "structured" })));
    while list.len() < count {
        list.push(list[1].clone());
    }
    list.truncate(count);
    (Value::Array(extensions), list)
}

#[test]
fn too_many_variants_selectors_and_outputs() {
    let max = Limits::default().max_variants;
    assert_eq!(max, 64);
    let (extensions, list) = variants(max);
    let ids: Vec<String> = (0..58).map(|i| format!("com.example/e{i}")).chain([APPS_EXTENSION.to_owned()]).collect();
    let config = Config::with_extensions(Some(&extensions), Limits::default()).unwrap();
    let conn = Connection::new(ProtocolVersion::V2026_12_01, ids.clone(), config.clone());
    let tool = json!({ "name": "t", "inputSchema": {}, "outputVariants": list });

    // Exactly the cap: declared, advertised, accepted, every variant requested and answered.
    let server = ServerTool::declare(&tool, None, &config).unwrap();
    let host = ReceivedTool::accept(&server.advertise(&conn), &conn).unwrap();
    let requested: Vec<Value> = list.clone();
    let outputs: Vec<Value> = list
        .iter()
        .map(|s| {
            let mut o = s.clone();
            if s["format"] == "content" {
                o["content"] = json!([{ "type": "text", "text": "x" }]);
            } else {
                o["structuredContent"] = json!(1);
            }
            o
        })
        .collect();
    let requested = Value::Array(requested);
    let produced = json!({ "outputs": outputs });
    let result = server.respond(&conn, Some(&requested), Produced::new(&produced)).unwrap();
    let route = host.route(Some(&requested), &result).unwrap();
    assert_eq!(route.extensions.len(), 59);
    drop(route);

    // One more variant: limit-exceeded before the duplicate is looked at.
    let (_, list65) = variants(max + 1);
    let tool65 = json!({ "name": "t", "inputSchema": {}, "outputVariants": list65 });
    let got = ServerTool::declare(&tool65, None, &config).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
    let got = ReceivedTool::accept(&tool65, &conn).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));

    // 65 selectors (duplicates): limit-exceeded before duplicate-selector.
    let mut many = requested.as_array().unwrap().clone();
    many.push(many[0].clone());
    let many = Value::Array(many);
    let got = server.select(&conn, Some(&many)).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
    let got = host.route(Some(&many), &result).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
    let got = host.plan_consumers(&many, &Default::default()).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));

    // 65 produced outputs, 65 result outputs.
    let mut outs = produced["outputs"].as_array().unwrap().clone();
    outs.push(outs[2].clone());
    let got = server.respond(&conn, Some(&requested), Produced::new(&json!({ "outputs": outs })));
    assert_eq!(code_of(got), Some(ErrorCode::LimitExceeded));
    let mut r = result.clone();
    r["outputs"].as_array_mut().unwrap().push(outs[2].clone());
    let got = host.route(Some(&requested), &r).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));

    // 64 produced outputs of which 63 nobody requested (and duplicated) are fine.
    let mut outs = vec![assistant_output()];
    outs.extend((0..63).map(|_| json!({ "audience": "user", "format": "content", "content": [] })));
    let got = server.respond(&conn, None, Produced::new(&json!({ "outputs": outs })));
    assert!(got.is_ok());

    // Too many extension definitions, too many negotiated extensions.
    let defs: Vec<Value> =
        (0..65).map(|i| json!({ "id": format!("com.example/e{i}"), "formats": ["structured"] })).collect();
    let got = Config::with_extensions(Some(&Value::Array(defs)), Limits::default()).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::LimitExceeded));
    let negotiated: Vec<Value> = (0..65).map(|i| json!(format!("com.example/e{i}"))).collect();
    assert_eq!(
        run_code("accept", &json!({ "tool": tool_with(json!({})), "negotiated": negotiated })),
        Some(ErrorCode::LimitExceeded)
    );

    // With small custom limits the same caps apply at their configured values.
    let small = Limits { max_variants: 2, ..Limits::default() };
    let input = json!({
        "tool": tool_with(json!({})),
        "requestedOutputs": [
            { "audience": "assistant", "format": "content" },
            { "audience": "programmatic", "format": "structured" },
            { "audience": "programmatic", "format": "structured" }
        ]
    });
    assert_eq!(code_of(ops::run_with_limits("select", &input, small.clone())), Some(ErrorCode::LimitExceeded));
    let mut three = tool_with(json!({}));
    three["outputVariants"].as_array_mut().unwrap().push(json!({ "audience": "user", "format": "content" }));
    assert_eq!(
        code_of(ops::run_with_limits("declare", &json!({ "tool": three }), small)),
        Some(ErrorCode::LimitExceeded)
    );
}

// ---------------------------------------------------------------------------------------------
// Schemas: cycles, catastrophic regexes, invalid regexes, external references.

fn cyclic_schemas() -> Vec<Value> {
    vec![
        json!({ "$ref": "#" }),
        json!({ "allOf": [{ "$ref": "#" }] }),
        json!({ "not": { "$ref": "#" } }),
        json!({ "anyOf": [{ "$ref": "#" }, { "type": "string" }] }),
        json!({ "$defs": { "a": { "$ref": "#/$defs/b" }, "b": { "$ref": "#/$defs/a" } }, "$ref": "#/$defs/a" }),
        json!({ "$defs": { "a": { "$ref": "#/$defs/b" }, "b": { "$ref": "#/$defs/c" }, "c": { "not": { "$ref": "#/$defs/a" } } }, "$ref": "#/$defs/a" }),
        json!({ "$ref": "#/$defs/a", "$defs": { "a": { "anyOf": [{ "$ref": "#/$defs/a" }, { "type": "string" }] } } }),
        json!({ "$anchor": "me", "$ref": "#me" }),
        json!({ "$dynamicAnchor": "x", "$dynamicRef": "#x" }),
        json!({ "$id": "https://example.com/s", "$dynamicAnchor": "x", "anyOf": [{ "$dynamicRef": "#x" }] }),
        json!({ "$dynamicAnchor": "x", "properties": { "a": { "$dynamicRef": "#x" } }, "items": { "$dynamicRef": "#x" } }),
        json!({ "$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveAnchor": true, "$recursiveRef": "#" }),
        json!({ "$schema": "http://json-schema.org/draft-07/schema#", "definitions": { "a": { "$ref": "#/definitions/a" } }, "$ref": "#/definitions/a" }),
        json!({ "$schema": "http://json-schema.org/draft-04/schema#", "id": "urn:x", "not": { "$ref": "#" } }),
        json!({ "properties": { "a": { "$ref": "#" } }, "items": { "$ref": "#" } }),
        json!({ "$id": "https://example.com/root", "items": { "$ref": "https://example.com/root" } }),
    ]
}

#[test]
fn ref_cycles_terminate() {
    let values = [json!(1), json!("s"), json!(null), json!({ "a": { "a": { "a": 1 } } }), json!([[[[["x"]]]]])];
    for schema in cyclic_schemas() {
        let label = schema.to_string();
        let s = schema.clone();
        let values = values.clone();
        bounded(&label, BUDGET, move || {
            // Compiling terminates with a schema or a typed error.
            match CompiledSchema::compile(&s, "/schema") {
                Ok(compiled) => {
                    for v in &values {
                        let _ = compiled.is_valid(v);
                        if let Err(e) = compiled.validate(v, "", "value") {
                            assert_eq!(e.code(), ErrorCode::SchemaViolation);
                        }
                    }
                }
                // A schema that applies itself to the same value (every one above but those that
                // recurse into children) is refused for its unbounded work (SEC-4): the callers'
                // validators recurse on it without end.
                Err(e) => assert!(
                    matches!(e.code(), ErrorCode::InvalidSchema | ErrorCode::ExternalRef | ErrorCode::LimitExceeded),
                    "{e}"
                ),
            }
            // And so does the whole flow, server and client.
            for v in &values {
                if let Err(code) = respond_and_route(s.clone(), v.clone()) {
                    assert!(
                        matches!(
                            code,
                            ErrorCode::SchemaViolation
                                | ErrorCode::InvalidSchema
                                | ErrorCode::ExternalRef
                                | ErrorCode::LimitExceeded
                        ),
                        "{code:?}"
                    );
                }
            }
        });
    }
    // Exactly the schemas that reach themselves at the same value are refused.
    let refused: Vec<bool> = cyclic_schemas()
        .iter()
        .map(|s| CompiledSchema::compile(s, "/schema").is_err_and(|e| e.code() == ErrorCode::LimitExceeded))
        .collect();
    assert_eq!(
        refused,
        [true, true, true, true, true, true, true, true, true, true, false, true, true, true, false, false]
    );
    // A recursive schema validates a recursive value down to the depth limit.
    let schema =
        json!({ "type": ["object", "integer"], "properties": { "a": { "$ref": "#" } }, "additionalProperties": false });
    let ok = nested_objects(124);
    assert_eq!(respond_and_route(schema.clone(), ok), Ok(()));
    let mut bad = nested_objects(123);
    *bad.pointer_mut(&"/a".repeat(122)).unwrap() = json!({ "a": { "b": 1 } });
    assert_eq!(respond_and_route(schema, bad), Err(ErrorCode::SchemaViolation));
}

#[test]
fn catastrophic_patterns_are_bounded() {
    let long = format!("{}!", "a".repeat(100_000));
    let short = format!("{}!", "a".repeat(40));
    let cases = [
        ("^(a+)+$", long.clone()),
        ("^(a|a)*$", long.clone()),
        ("^(a|aa)+$", long.clone()),
        ("^(a*)*b$", long.clone()),
        ("^(?=(a+)+$)a*$", short.clone()),
        ("^(a|a)*\\1b", short.clone()),
        ("^(a+)+\\1$", short.clone()),
        ("^(a|a)*\\1$", short.clone()),
    ];
    for (pattern, subject) in cases {
        let label = format!("pattern {pattern}");
        let started = Instant::now();
        let got = bounded(&label, BUDGET, move || {
            let schema = json!({ "type": "string", "pattern": pattern });
            let direct = respond_and_route(schema.clone(), json!(subject.clone()));
            // In nested positions too: an array item and an object key.
            let items = respond_and_route(json!({ "type": "array", "items": schema }), json!([subject.clone()]));
            let keys = respond_and_route(json!({ "propertyNames": { "pattern": pattern } }), json!({ subject: 1 }));
            (direct, items, keys)
        });
        // A backtracking pattern whose match does not finish within its step limit decides
        // nothing: limit-exceeded (issue 12, defect 9), never schema-violation by mistake.
        let backtracking = pattern.contains('\\') || pattern.contains("?=");
        for r in [got.0, got.1, got.2] {
            assert!(
                matches!(r, Ok(()) | Err(ErrorCode::SchemaViolation))
                    || (backtracking && r == Err(ErrorCode::LimitExceeded)),
                "{pattern}: {r:?}"
            );
        }
        // None of these subjects matches: a bounded answer must not be "valid" by mistake
        // for the patterns the engine can decide.
        if !pattern.contains('\\') && !pattern.contains("?=") {
            assert_eq!(got.0, Err(ErrorCode::SchemaViolation), "{pattern}");
        }
        assert!(started.elapsed() < BUDGET);
    }
}

/// Catastrophic patterns that the linear-time engine can express run on it: many of them
/// against many strings cost time linear in the input, whatever the pattern.
#[test]
fn many_catastrophic_linear_patterns_are_bounded_in_total() {
    let patterns: Vec<Value> =
        (0..100).map(|i| json!({ "not": { "pattern": format!("^(a+)+$|^(a|aa)+b|x{{{i}}}z") } })).collect();
    let schema = json!({ "items": { "allOf": patterns } });
    let strings: Vec<Value> = (0..100).map(|i| json!(format!("{}{i}!", "a".repeat(40)))).collect();
    let got =
        bounded("many catastrophic linear patterns", BUDGET, move || respond_and_route(schema, Value::Array(strings)));
    assert!(matches!(got, Ok(()) | Err(ErrorCode::SchemaViolation)));
}

/// Patterns only the backtracking engine can run (a backreference) are bounded per match by
/// the backtracking limit, and in total by the regex budget of a validation (docs/limits.md):
/// matches that do not finish make the (valid) value limit-exceeded, not schema-violation.
#[test]
fn backtracking_patterns_are_bounded_per_match() {
    let patterns: Vec<Value> =
        (0..10).map(|i| json!({ "not": { "pattern": format!("^(a|a)*\\1b|x{{{i}}}z") } })).collect();
    let schema = json!({ "items": { "allOf": patterns } });
    let strings: Vec<Value> = (0..10).map(|i| json!(format!("{}{i}!", "a".repeat(30)))).collect();
    let got = bounded("backtracking patterns", BUDGET, move || respond_and_route(schema, Value::Array(strings)));
    assert_eq!(got, Err(ErrorCode::LimitExceeded));
}

#[test]
fn invalid_patterns_are_invalid_schema() {
    for pattern in ["((", "[", "a{2,1}", "\\p{Unknown}", "(?<n>a)\\k<m>", "*"] {
        let schemas = [
            json!({ "type": "string", "pattern": pattern }),
            json!({ "patternProperties": { pattern: {} } }),
            json!({ "propertyNames": { "pattern": pattern } }),
            json!({ "items": { "pattern": pattern } }),
        ];
        for schema in schemas {
            let got = ServerTool::declare(&tool_with(schema.clone()), None, &Config::new());
            assert_eq!(got.map(|_| ()).map_err(|e| e.code()), Err(ErrorCode::InvalidSchema), "{schema}");
            // Received by a client, new and legacy shape.
            let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], Config::new());
            let got = ReceivedTool::accept(&tool_with(schema.clone()), &conn).map(|_| ());
            assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::InvalidSchema));
            let old = Connection::new(ProtocolVersion::V2025_11_25, vec![], Config::new());
            let legacy = json!({ "name": "t", "inputSchema": {}, "outputSchema": schema });
            let got = ReceivedTool::accept(&legacy, &old).map(|_| ());
            assert_eq!(got.map_err(|e| e.code()), Err(ErrorCode::InvalidSchema));
        }
    }
    // A pattern of the wrong type is an invalid schema as well.
    let got = ServerTool::declare(&tool_with(json!({ "pattern": 5 })), None, &Config::new());
    assert_eq!(got.map(|_| ()).map_err(|e| e.code()), Err(ErrorCode::InvalidSchema));
}

/// Every place a schema enters the library, with `schema` in it; returns each code.
fn schema_entry_points(schema: &Value) -> Vec<(&'static str, Option<ErrorCode>)> {
    let config = Config::new();
    let new = Connection::new(ProtocolVersion::V2026_12_01, vec![], Config::new());
    let old = Connection::new(ProtocolVersion::V2025_06_18, vec![], Config::new());
    let legacy_tool = json!({ "name": "t", "inputSchema": {}, "outputSchema": schema });
    let errs = |r: Result<(), mcp_outputs::Error>| r.err().map(|e| e.code());
    vec![
        ("declare", errs(ServerTool::declare(&tool_with(schema.clone()), None, &config).map(|_| ()))),
        (
            "legacy.outputSchema",
            errs(
                ServerTool::declare(
                    &tool_with(json!({})),
                    // A source for the schema: without one, declare refuses it as malformed.
                    Some(&json!({ "outputSchema": schema, "structuredFrom": "programmatic/structured" })),
                    &config,
                )
                .map(|_| ()),
            ),
        ),
        ("accept", errs(ReceivedTool::accept(&tool_with(schema.clone()), &new).map(|_| ()))),
        ("accept legacy", errs(ReceivedTool::accept(&legacy_tool, &old).map(|_| ()))),
        (
            "migrate",
            run_code(
                "migrate",
                &json!({ "legacyTool": legacy_tool, "options": { "programmaticFromOutputSchema": true } }),
            ),
        ),
        ("schema", CompiledSchema::compile(schema, "").err().map(|e| e.code())),
    ]
}

#[test]
fn external_refs_are_refused_and_nothing_is_fetched() {
    // A server that would answer, to prove no request is ever made.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    // A file that exists and holds a valid schema: if it were read, compiling would succeed.
    let dir = std::env::temp_dir().join(format!("mcp-outputs-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.json");
    std::fs::write(&file, r#"{"type": "string"}"#).unwrap();
    let file_uri = format!("file://{}", file.display());

    let external = [
        json!({ "$ref": format!("http://127.0.0.1:{port}/s.json") }),
        json!({ "$ref": format!("http://127.0.0.1:{port}/s.json#/$defs/a") }),
        json!({ "$ref": "https://example.com/schema.json" }),
        json!({ "$ref": file_uri }),
        json!({ "$ref": format!("{file_uri}#/type") }),
        json!({ "$ref": "other.json" }),
        json!({ "$ref": "other.json#/$defs/x" }),
        json!({ "$ref": "../s.json" }),
        json!({ "$ref": "//example.com/s.json" }),
        json!({ "$ref": "urn:uuid:deadbeef-1234-0000-0000-4321fedcba98" }),
        json!({ "$id": format!("http://127.0.0.1:{port}/root.json"), "$ref": "other.json" }),
        json!({ "$id": format!("file://{}/root.json", dir.display()), "$ref": "s.json" }),
        json!({ "$defs": { "unused": { "$ref": format!("http://127.0.0.1:{port}/u.json") } } }),
        json!({ "anyOf": [{ "type": "string" }, { "$ref": format!("http://127.0.0.1:{port}/a.json") }] }),
        json!({ "$ref": "#/$defs/a", "$defs": { "a": { "$ref": "#/$defs/b" }, "b": { "$ref": format!("http://127.0.0.1:{port}/b.json") } } }),
        json!({ "$schema": "http://json-schema.org/draft-07/schema#", "items": { "$ref": format!("http://127.0.0.1:{port}/i.json") } }),
        json!({ "$schema": "http://json-schema.org/draft-04/schema#", "$ref": format!("{file_uri}") }),
    ];
    for schema in &external {
        for (entry, code) in schema_entry_points(schema) {
            assert_eq!(code, Some(ErrorCode::ExternalRef), "{entry}: {schema}");
        }
    }
    // A meta-schema URL is not a reference: an unknown dialect is refused without a fetch.
    let dialect = json!({ "$schema": format!("http://127.0.0.1:{port}/meta") });
    for (entry, code) in schema_entry_points(&dialect) {
        assert_eq!(code, Some(ErrorCode::InvalidSchema), "{entry}");
    }
    // Internal references, including to an embedded resource with an absolute $id, are fine.
    for schema in [
        json!({ "$defs": { "a": { "type": "string" } }, "$ref": "#/$defs/a" }),
        json!({ "$defs": { "x": { "$id": format!("http://127.0.0.1:{port}/x"), "type": "string" } }, "$ref": format!("http://127.0.0.1:{port}/x") }),
        json!({ "$id": format!("http://127.0.0.1:{port}/root.json"), "$defs": { "a": {} }, "$ref": "root.json#/$defs/a" }),
    ] {
        for (entry, code) in schema_entry_points(&schema) {
            assert_eq!(code, None, "{entry}: {schema}");
        }
    }
    // Nothing was fetched: no connection, and the file's content was never used.
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("a schema reference was fetched: {other:?}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An external `$dynamicRef` is an external reference like an external `$ref` (SEC-3).
#[test]
fn external_dynamic_refs_are_external_ref() {
    for schema in [
        json!({ "$dynamicRef": "http://example.com/s.json#a" }),
        json!({ "$dynamicRef": "other.json#a" }),
        json!({ "properties": { "a": { "$dynamicRef": "https://example.com/x" } } }),
    ] {
        for (entry, code) in schema_entry_points(&schema) {
            assert_eq!(code, Some(ErrorCode::ExternalRef), "{entry}: {schema}");
        }
    }
    // An anchor that does not exist inside the schema stays an invalid schema.
    assert_eq!(
        CompiledSchema::compile(&json!({ "$dynamicRef": "#nope" }), "").err().map(|e| e.code()),
        Some(ErrorCode::InvalidSchema)
    );
}

// ---------------------------------------------------------------------------------------------
// Text and versions.

#[test]
fn deep_text_is_refused_before_parsing() {
    let limits = Limits::default();
    // 100,000 '[': parsing it (with serde_json's recursion limit disabled) would overflow the
    // stack; the depth scan refuses it first.
    let text = "[".repeat(100_000);
    let e = limits.parse_text(&text, "result").unwrap_err();
    assert_eq!(e.code(), ErrorCode::LimitExceeded);
    let closed = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(limits.parse_text(&closed, "x").unwrap_err().code(), ErrorCode::LimitExceeded);
    let objects = format!("{}1{}", "{\"a\":".repeat(50_000), "}".repeat(50_000));
    assert_eq!(limits.parse_bytes(objects.as_bytes(), "x").unwrap_err().code(), ErrorCode::LimitExceeded);
    // The boundary: 128 levels parse, 129 do not.
    let at = |d: usize| format!("{}{}", "[".repeat(d), "]".repeat(d));
    let v = Deep(limits.parse_text(&at(128), "x").unwrap());
    assert_eq!(depth(&v.0), 128);
    assert_eq!(limits.parse_text(&at(129), "x").unwrap_err().code(), ErrorCode::LimitExceeded);
    // Brackets inside strings (with escaped quotes) are not nesting.
    let inside = format!("[\"\\\"{}\"]", "[".repeat(10_000));
    assert_eq!(limits.parse_text(&inside, "x").unwrap(), json!([format!("\"{}", "[".repeat(10_000))]));
    // Unbalanced closers first do not hide what follows.
    let tricky = format!("]]]]{}", "[".repeat(200));
    assert_eq!(limits.parse_text(&tricky, "x").unwrap_err().code(), ErrorCode::LimitExceeded);
    // Other bad text is malformed.
    for bad in ["", "[", "[1] x", "{\"a\":}", "\"\\ud800\"", "\"\\udc00\"", "1e999", "nul"] {
        assert_eq!(limits.parse_text(bad, "x").unwrap_err().code(), ErrorCode::Malformed, "{bad:?}");
    }
    // A huge array in text is refused after parsing by the array cap.
    let huge = format!("[{}0]", "0,".repeat(Limits::default().max_array_len));
    assert_eq!(limits.parse_text(&huge, "x").unwrap_err().code(), ErrorCode::LimitExceeded);
}

#[test]
fn non_utf8_bytes_are_malformed() {
    let limits = Limits::default();
    for bytes in [
        &b"\xff\xfe"[..],
        b"\"\xc3\x28\"",
        b"\xc0\xaf",
        b"\"\xed\xa0\x80\"",
        b"[\"\xf8\x88\x80\x80\x80\"]",
        b"{\"a\": \"\x80\"}",
        b"\"\xf4\x90\x80\x80\"",
        b"[1, 2, \xe2\x82]",
    ] {
        assert_eq!(limits.parse_bytes(bytes, "x").unwrap_err().code(), ErrorCode::Malformed, "{bytes:?}");
    }
    assert_eq!(limits.parse_bytes("[\"é\"]".as_bytes(), "x").unwrap(), json!(["é"]));
}

#[test]
fn odd_protocol_versions() {
    for v in ProtocolVersion::ALL {
        assert_eq!(ProtocolVersion::parse(v.as_str()).unwrap(), v);
    }
    let long = "2026-12-01".repeat(100_000);
    let invalid = [
        "",
        " ",
        "latest",
        "2026-12-01 ",
        " 2026-12-01",
        "2026-12-01\n",
        "2026-12-01\0",
        "2026-12-1",
        "2026-1-01",
        "26-12-01",
        "2026/12/01",
        "20261201",
        "2026-12-01T00:00:00Z",
        "２０２６-１２-０１",
        "2026-12-0١",
        "20é-12-01",
        "+026-12-01",
        "-026-12-01",
        "2026-13-01",
        "2026-00-10",
        "2026-12-00",
        "2026-12-32",
        "2026-02-29",
        "1900-02-29",
        "2026-04-31",
        "DROP TABLE",
        long.as_str(),
    ];
    for text in invalid {
        let e = ProtocolVersion::parse(text).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidProtocolVersion, "{:?}", text.get(..20));
        assert_eq!(e.to_jsonrpc_error(), None);
    }
    for text in ["2026-12-02", "2024-02-29", "2000-02-29", "0000-01-01", "9999-12-31", "2025-01-01"] {
        let e = ProtocolVersion::parse(text).unwrap_err();
        assert_eq!(e.code(), ErrorCode::UnsupportedProtocolVersion, "{text}");
        assert_eq!(e.data().unwrap()["requested"], json!(text));
        assert_eq!(e.data().unwrap()["supported"].as_array().unwrap().len(), 6);
    }
    // On the wire: a server answers -32602 for a malformed version and -32022 for an
    // unsupported one, for every operation that takes a version.
    let input = |v: &str| {
        json!({
            "protocolVersion": v,
            "tool": tool_with(json!({})),
            "produced": { "outputs": [assistant_output()] }
        })
    };
    let e = ops::run("respond", &input("latest")).unwrap_err();
    assert_eq!((e.code(), e.jsonrpc_code()), (ErrorCode::InvalidProtocolVersion, Some(-32602)));
    let e = ops::run("respond", &input("2099-01-01")).unwrap_err();
    assert_eq!((e.code(), e.jsonrpc_code()), (ErrorCode::UnsupportedProtocolVersion, Some(-32022)));
    for op in ["advertise", "select", "accept", "route", "check", "plan"] {
        assert_eq!(run_code(op, &input("2026-12-01x")), Some(ErrorCode::InvalidProtocolVersion), "{op}");
    }
}
