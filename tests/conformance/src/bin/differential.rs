//! The differential tester's Rust side (issue 12, "Differential testing").
//!
//! `differential generate <seed> <count>` writes `count` cases as JSON lines, each in the corpus
//! case shape (`id`, `op`, `input`, `expect`), where `expect` is what the Rust core
//! (`mcp_outputs::ops::run`) answers: `{"ok": …}` or `{"error": {"code", "jsonrpc"?}}`. The
//! inputs are valid and near-valid declarations, requests, results and legacy results across the
//! six revisions (and junk versions), Apps on and off, and a registered extension; a quarter are
//! mutated corpus inputs. The ops come from `mcp_outputs::ops::OPERATIONS`, and each input holds
//! exactly the fields that list gives the op, so a new op is generated without a change here
//! (give its new fields a generator in `field` to make its inputs meaningful).
//!
//! The JS driver (`bindings-js/test/differential.mjs`) and the Python driver
//! (`bindings-py/tests/differential.py`) run every case through their package the way their corpus
//! runner does (they call the runner's own functions), check it with the runner's own
//! comparison against the Rust answer, and write their raw outcomes as JSON lines.
//!
//! `differential compare <cases> <outcomes>...` then compares every outcome with the Rust answer
//! strictly (object key order ignored, numbers by value, every list in order, the error code and
//! the JSON-RPC code always), counts the runners' own verdicts too, prints a readable diff per
//! mismatch and the tally `differential: N cases, M mismatches`, and exits non-zero on a mismatch.
//! The generator is deterministic: one seed, one set of cases.

use mcp_outputs::ops::{COMMON_FIELDS, OPERATIONS};
use mcp_outputs_conformance::{compare, corpus_dir, json_files, load_cases, parse_strict, requirement_ids};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;

const REVISIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2026-12-01"];
const JUNK_VERSIONS: &[&str] = &["latest", "2026-13-45", "2027-01-01", "2026-12-1", ""];
const UI: &str = "io.modelcontextprotocol/ui";
/// The registered extension the generator defines (EXT-1) on some connections.
const CHARTS: &str = "com.example/charts";

/// splitmix64: small, fast and the same on every platform, so a seed names one set of cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        let i = self.below(items.len());
        items.get(i)
    }
    fn pick_str(&mut self, items: &[&str]) -> String {
        self.pick(items).map_or_else(String::new, |s| (*s).to_owned())
    }
}

/// Scalars and small values that stress the bindings' conversions: numbers by value (within
/// ±2^53, as the corpus contract asks), negative zero, exponents, non-ASCII and escapes.
fn scalar(rng: &mut Rng) -> Value {
    match rng.below(16) {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(false),
        3 => json!(0),
        4 => json!(-1),
        5 => json!(9_007_199_254_740_991_i64),
        6 => json!(1.5),
        7 => json!(-0.0),
        8 => json!(1e300),
        9 => json!(1e-7),
        10 => json!(2.0),
        11 => json!("ünïcödé ✓ 🎉"),
        12 => json!("quote \" backslash \\ newline \n nul \u{0} tab \t"),
        13 => json!("<script>&amp;"),
        14 => json!(""),
        _ => json!("aaa"),
    }
}

/// A small JSON value of any kind; keys are never integer-like (JavaScript enumerates those
/// first, and the contract keeps cases independent of that order).
fn any_value(rng: &mut Rng, depth: u32) -> Value {
    if depth == 0 || rng.chance(50) {
        return scalar(rng);
    }
    if rng.chance(50) {
        Value::Array((0..rng.below(4)).map(|_| any_value(rng, depth - 1)).collect())
    } else {
        let keys = ["n", "k", "é", "a b", "__proto__", "$ref", "type", "x-y"];
        let mut map = Map::new();
        for _ in 0..rng.below(4) {
            map.insert(rng.pick_str(&keys), any_value(rng, depth - 1));
        }
        Value::Object(map)
    }
}

/// Schemas: object-rooted and not, with local `$ref`s and `$schema`, a pattern, an invalid one,
/// an external reference and a non-object schema (`malformed` since contract v2).
fn schema(rng: &mut Rng) -> Value {
    match rng.below(40) {
        0..=11 => json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
        12..=16 => json!({"type": "array", "items": {"type": "number"}}),
        17..=20 => json!({"type": "string", "pattern": "^a+$"}),
        21..=24 => json!({}),
        25..=29 => json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/row",
                    "$defs": {"row": {"type": "object", "properties": {"n": {"type": "number"}}}}}),
        30..=33 => json!({"type": "object", "additionalProperties": false, "properties": {"k": {"type": "string"}}}),
        34 => json!({"type": "nope"}),
        35 => json!({"$ref": "https://example.com/schema.json"}),
        36 => json!(true),
        _ => json!({"type": ["object", "null"]}),
    }
}

/// A structured value: mostly one that some schema above accepts, sometimes not.
fn structured_value(rng: &mut Rng) -> Value {
    match rng.below(10) {
        0..=2 => json!({"n": rng.below(5)}),
        3 => json!([1, 2.5, -0.0]),
        4 => json!("aaa"),
        5 => json!({"k": "ünï"}),
        6 => json!({"n": "not a number"}),
        7 => Value::Null,
        8 => json!({"n": 1, "nested": {"list": [true, null, 1e-7]}}),
        _ => any_value(rng, 3),
    }
}

fn annotations(rng: &mut Rng) -> Value {
    let mut map = Map::new();
    if rng.chance(70) {
        let audiences: Vec<Value> =
            (0..rng.below(3)).map(|_| json!(rng.pick_str(&["assistant", "user", "programmatic"]))).collect();
        map.insert("audience".into(), Value::Array(audiences));
    }
    if rng.chance(40) {
        map.insert("priority".into(), json!(0.5));
    }
    if rng.chance(40) {
        map.insert("lastModified".into(), json!("2026-01-01T00:00:00Z"));
    }
    Value::Object(map)
}

fn block(rng: &mut Rng) -> Value {
    let mut b = match rng.below(9) {
        0..=3 => json!({"type": "text", "text": scalar_text(rng)}),
        4 => json!({"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}),
        5 => json!({"type": "audio", "data": "aGVsbG8=", "mimeType": "audio/wav"}),
        6 => json!({"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"}),
        7 => json!({"type": "resource", "resource": {"uri": "file:///b.txt", "text": "b"}}),
        _ => match rng.below(3) {
            0 => json!({"type": "nope"}),
            1 => json!({"type": "text"}),
            _ => json!({"type": "text", "text": 5}),
        },
    };
    if rng.chance(30) {
        if let Some(obj) = b.as_object_mut() {
            obj.insert("annotations".into(), annotations(rng));
        }
    }
    b
}

fn scalar_text(rng: &mut Rng) -> String {
    match scalar(rng) {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

fn audience(rng: &mut Rng) -> String {
    match rng.below(40) {
        0..=13 => "assistant".into(),
        14..=20 => "user".into(),
        21..=27 => "programmatic".into(),
        28..=33 => UI.into(),
        34..=37 => CHARTS.into(),
        38 => "com.example/unregistered".into(),
        _ => {
            if rng.chance(50) {
                "Not An Id".into()
            } else {
                String::new()
            }
        }
    }
}

fn format(rng: &mut Rng) -> String {
    match rng.below(40) {
        0..=16 => "content".into(),
        17..=38 => "structured".into(),
        _ => "text".into(),
    }
}

/// A format that suits the audience most of the time (extensions carry structured data).
fn format_for(rng: &mut Rng, audience: &str) -> String {
    if (audience == UI || audience == CHARTS || audience == "programmatic") && rng.chance(90) {
        "structured".into()
    } else {
        format(rng)
    }
}

/// One connection's view of the world: what the tool declares and what was negotiated.
struct World {
    version: Option<Value>,
    negotiated: Vec<String>,
    register_charts: bool,
    variants: Vec<(String, String)>,
    tool: Value,
}

fn variant(rng: &mut Rng, audience: &str, format: &str) -> Value {
    let mut v = Map::new();
    v.insert("audience".into(), json!(audience));
    v.insert("format".into(), json!(format));
    if format == "structured" && rng.chance(70) || format == "content" && rng.chance(1) {
        v.insert("schema".into(), schema(rng));
    }
    if rng.chance(20) {
        v.insert("description".into(), json!("a variant"));
    }
    Value::Object(v)
}

fn world(rng: &mut Rng) -> World {
    let version = match rng.below(20) {
        0..=2 => None,
        3 => Some(json!(rng.pick_str(JUNK_VERSIONS))),
        4 if rng.chance(10) => Some(json!(20261201)),
        _ => Some(json!(rng.pick_str(REVISIONS))),
    };
    let mut negotiated = Vec::new();
    if rng.chance(50) {
        negotiated.push(UI.to_owned());
    }
    if rng.chance(35) {
        negotiated.push(CHARTS.to_owned());
    }
    if rng.chance(3) {
        negotiated.push("Not An Id".to_owned());
    }
    let register_charts = rng.chance(60);
    let mut variants: Vec<(String, String)> = Vec::new();
    if rng.chance(93) {
        variants.push(("assistant".into(), "content".into()));
    }
    for _ in 0..rng.below(4) {
        let a = audience(rng);
        let pair = (a.clone(), format_for(rng, &a));
        // Duplicates stay possible (DECL-1), just rare.
        if !variants.contains(&pair) || rng.chance(5) {
            variants.push(pair);
        }
    }
    let order = rng.below(variants.len().max(1));
    variants.rotate_left(if rng.chance(20) { order } else { 0 });
    let mut tool = Map::new();
    if !rng.chance(2) {
        tool.insert("name".into(), json!(rng.pick_str(&["search", "get_weather", "ünï-tool"])));
    }
    if !rng.chance(2) {
        tool.insert("inputSchema".into(), json!({"type": "object", "properties": {"q": {"type": "string"}}}));
    }
    if rng.chance(30) {
        tool.insert("description".into(), json!("Searches."));
    }
    if rng.chance(10) {
        tool.insert("title".into(), json!("Search"));
        tool.insert("icons".into(), json!([{"src": "https://example.com/i.png"}]));
    }
    if rng.chance(35) {
        let mut meta = json!({"ui": {"resourceUri": "ui://search/view.html"}});
        if rng.chance(30) {
            meta = json!({"ui": {"resourceUri": "ui://v"}, "com.example/other": 1});
        }
        tool.insert("_meta".into(), meta);
    }
    if !rng.chance(4) {
        let list: Vec<Value> = variants.iter().map(|(a, f)| variant(rng, a, f)).collect();
        tool.insert("outputVariants".into(), Value::Array(list));
    }
    if rng.chance(3) {
        tool.insert("outputSchema".into(), schema(rng));
    }
    World { version, negotiated, register_charts, variants, tool: Value::Object(tool) }
}

fn selector(audience: &str, format: &str) -> Value {
    json!({"audience": audience, "format": format})
}

fn requested_outputs(rng: &mut Rng, w: &World) -> Option<Value> {
    let legacy = w.version.as_ref().and_then(Value::as_str).is_some_and(|v| v != "2026-12-01");
    if rng.chance(if legacy { 85 } else { 25 }) {
        return None;
    }
    let mut list: Vec<Value> = Vec::new();
    for (a, f) in &w.variants {
        if rng.chance(55) {
            list.push(selector(a, f));
        }
    }
    if rng.chance(8) {
        list.push(selector(&audience(rng), &format(rng)));
    }
    if rng.chance(4) {
        if let Some(first) = list.first().cloned() {
            list.push(first);
        }
    }
    if rng.chance(3) {
        list.push(json!({"audience": "assistant"}));
    }
    if list.is_empty() && rng.chance(80) {
        list.push(selector("assistant", "content"));
    }
    let n = list.len();
    list.rotate_left(rng.below(n.max(1)));
    Some(Value::Array(list))
}

fn output(rng: &mut Rng, audience: &str, format: &str) -> Value {
    let mut o = Map::new();
    o.insert("audience".into(), json!(audience));
    o.insert("format".into(), json!(format));
    let content =
        |rng: &mut Rng| Value::Array((0..rng.below(3) + usize::from(rng.chance(85))).map(|_| block(rng)).collect());
    match (format, rng.below(40)) {
        (_, 0) => {}
        (_, 1) => {
            o.insert("content".into(), content(rng));
            o.insert("structuredContent".into(), structured_value(rng));
        }
        ("content", 2) => {
            o.insert("content".into(), json!("not an array"));
        }
        ("content", _) => {
            o.insert("content".into(), content(rng));
        }
        _ => {
            o.insert("structuredContent".into(), structured_value(rng));
        }
    }
    Value::Object(o)
}

fn result_meta(rng: &mut Rng) -> Value {
    let mut meta = Map::new();
    if rng.chance(50) {
        meta.insert(UI.into(), json!({"prefersBorder": true}));
    }
    if rng.chance(40) {
        meta.insert(CHARTS.into(), json!({"theme": "dark"}));
    }
    if rng.chance(40) {
        meta.insert("com.example/trace".into(), json!("t-1"));
    }
    Value::Object(meta)
}

fn produced(rng: &mut Rng, w: &World) -> Value {
    let mut outputs: Vec<Value> = Vec::new();
    for (a, f) in &w.variants {
        if rng.chance(85) {
            outputs.push(output(rng, a, f));
        }
    }
    if rng.chance(5) {
        let (a, f) = (audience(rng), format(rng));
        outputs.push(output(rng, &a, &f));
    }
    let mut p = Map::new();
    p.insert("outputs".into(), Value::Array(outputs));
    if rng.chance(15) {
        p.insert("isError".into(), json!(true));
    } else if rng.chance(5) {
        p.insert("isError".into(), json!(false));
    }
    if rng.chance(30) {
        p.insert("_meta".into(), result_meta(rng));
    }
    Value::Object(p)
}

fn legacy_options(rng: &mut Rng, w: &World) -> Value {
    let mut l = Map::new();
    if rng.chance(40) {
        l.insert("outputSchema".into(), schema(rng));
    }
    if rng.chance(40) {
        let structured: Vec<&(String, String)> = w.variants.iter().filter(|(_, f)| f == "structured").collect();
        match rng.pick(&structured) {
            Some((a, f)) if rng.chance(90) => {
                l.insert("structuredFrom".into(), json!(format!("{a}/{f}")));
            }
            _ if rng.chance(20) => {
                l.insert("structuredFrom".into(), json!("user/content"));
            }
            _ => {}
        }
    }
    if rng.chance(30) {
        l.insert("mirror".into(), json!(rng.chance(50)));
    }
    Value::Object(l)
}

fn extension_definitions(rng: &mut Rng) -> Value {
    let mut def = json!({
        "id": CHARTS,
        "formats": if rng.chance(50) { json!(["structured"]) } else { json!(["structured", "content"]) },
        "modelContext": rng.chance(40),
        "metaKey": if rng.chance(60) { json!(CHARTS) } else { Value::Null },
        "legacyProjection": rng.chance(40),
    });
    if rng.chance(4) {
        def = match rng.below(3) {
            0 => {
                json!({"id": "assistant", "formats": ["structured"], "modelContext": false, "metaKey": null, "legacyProjection": false})
            }
            1 => json!({"id": CHARTS}),
            _ => {
                json!({"id": "Bad Id", "formats": ["structured"], "modelContext": false, "metaKey": null, "legacyProjection": false})
            }
        };
    }
    Value::Array(vec![def])
}

/// The common fields plus every field the op takes, each from its own generator.
fn input_for(rng: &mut Rng, op: &str, fields: &[&str]) -> Value {
    let w = world(rng);
    let mut input = Map::new();
    for common in COMMON_FIELDS {
        match *common {
            "protocolVersion" => {
                if let Some(v) = &w.version {
                    input.insert("protocolVersion".into(), v.clone());
                }
            }
            "negotiated" => {
                if !w.negotiated.is_empty() || rng.chance(20) {
                    input.insert("negotiated".into(), json!(w.negotiated));
                }
            }
            "extensions" => {
                if w.register_charts {
                    input.insert("extensions".into(), extension_definitions(rng));
                }
            }
            other => {
                if rng.chance(50) {
                    input.insert(other.into(), any_value(rng, 2));
                }
            }
        }
    }
    let requested = requested_outputs(rng, &w);
    for name in fields {
        if let Some(value) = field(rng, op, name, &w, &input, requested.as_ref()) {
            input.insert((*name).into(), value);
        }
    }
    // A plan takes exactly one of `mode` and `consumers`: mostly keep it that way.
    if input.contains_key("mode") && input.contains_key("consumers") && rng.chance(90) {
        input.remove(if rng.chance(50) { "mode" } else { "consumers" });
    } else if fields.contains(&"mode")
        && !input.contains_key("mode")
        && !input.contains_key("consumers")
        && rng.chance(90)
    {
        input.insert("mode".into(), json!("conversational"));
    }
    Value::Object(input)
}

/// One field of an op's input; `None` leaves it out.
fn field(
    rng: &mut Rng,
    op: &str,
    name: &str,
    w: &World,
    common: &Map<String, Value>,
    requested: Option<&Value>,
) -> Option<Value> {
    match name {
        "tool" => Some(if is_client_op(op) && rng.chance(60) {
            advertised(w, common).unwrap_or_else(|| w.tool.clone())
        } else {
            w.tool.clone()
        }),
        "legacy" => rng.chance(40).then(|| legacy_options(rng, w)),
        "requestedOutputs" => requested.cloned(),
        "produced" => Some(produced(rng, w)),
        "result" => Some(result(rng, w, common, requested)),
        "consumers" => rng.chance(50).then(|| {
            let list: Vec<Value> = w.variants.iter().filter(|_| rng.chance(50)).map(|(a, f)| selector(a, f)).collect();
            Value::Array(list)
        }),
        "mode" if w.version.as_ref().and_then(Value::as_str).is_some_and(|v| v != "2026-12-01") && rng.chance(50) => {
            Some(json!("conversational"))
        }
        "mode" => rng.chance(60).then(|| {
            json!(rng.pick_str(&[
                "conversational",
                "code",
                "structured-model",
                "user-media",
                "host-table",
                "apps",
                "app-only",
                "poetry"
            ]))
        }),
        "requireSchema" | "schemas" => rng.chance(30).then(|| json!(rng.chance(60))),
        "legacyTool" => Some(legacy_tool(rng)),
        "options" => rng.chance(80).then(|| {
            let mut o = Map::new();
            if rng.chance(60) {
                o.insert("programmaticFromOutputSchema".into(), json!(rng.chance(50)));
            }
            if rng.chance(60) {
                o.insert("apps".into(), json!(rng.chance(50)));
            }
            Value::Object(o)
        }),
        "legacyStructured" => {
            rng.chance(30).then(|| json!(rng.pick_str(&["assistant", "user", "programmatic", UI, CHARTS, "model"])))
        }
        "supportedVersions" => rng.chance(20).then(|| {
            let list: Vec<Value> = REVISIONS.iter().filter(|_| rng.chance(50)).map(|v| json!(v)).collect();
            Value::Array(list)
        }),
        "tools" => Some(Value::Array((0..rng.below(3) + 1).map(|_| world(rng).tool).collect())),
        "cache" => rng.chance(40).then(
            || json!({"ttlMs": rng.below(3) * 1000, "cacheScope": rng.pick_str(&["public", "private", "shared"])}),
        ),
        // A field this generator does not know yet (a new op's): any small value.
        _ => rng.chance(70).then(|| any_value(rng, 3)),
    }
}

fn is_client_op(op: &str) -> bool {
    matches!(op, "accept" | "plan" | "check" | "route" | "discover")
}

/// The tool as the server would advertise it on this connection, when it can.
fn advertised(w: &World, common: &Map<String, Value>) -> Option<Value> {
    let mut input = common.clone();
    input.insert("tool".into(), w.tool.clone());
    mcp_outputs::ops::run("advertise", &Value::Object(input)).ok()?.get("tool").cloned()
}

/// A result as received: mostly what the Rust server sends for this request (so valid results
/// of every revision are common), then often damaged; else one written by hand.
fn result(rng: &mut Rng, w: &World, common: &Map<String, Value>, requested: Option<&Value>) -> Value {
    let mut input = common.clone();
    input.insert("tool".into(), w.tool.clone());
    if let Some(r) = requested {
        input.insert("requestedOutputs".into(), r.clone());
    }
    input.insert("produced".into(), produced(rng, w));
    if rng.chance(30) {
        input.insert("legacy".into(), legacy_options(rng, w));
    }
    let sent = mcp_outputs::ops::run("respond", &Value::Object(input)).ok().and_then(|ok| ok.get("result").cloned());
    let mut result = match sent {
        Some(r) if rng.chance(90) => r,
        _ => hand_written_result(rng, w, common),
    };
    if rng.chance(35) {
        damage_result(rng, w, &mut result);
    }
    result
}

fn hand_written_result(rng: &mut Rng, w: &World, common: &Map<String, Value>) -> Value {
    let mut r = Map::new();
    let new_shape = common.get("protocolVersion").is_none_or(|v| v == "2026-12-01");
    if new_shape != rng.chance(10) {
        let mut outputs: Vec<Value> = Vec::new();
        for (a, f) in &w.variants {
            if rng.chance(70) {
                outputs.push(output(rng, a, f));
            }
        }
        r.insert("outputs".into(), Value::Array(outputs));
        r.insert("resultType".into(), json!("complete"));
    } else {
        r.insert("content".into(), Value::Array((0..rng.below(3)).map(|_| block(rng)).collect()));
        if rng.chance(50) {
            r.insert("structuredContent".into(), structured_value(rng));
        }
    }
    if rng.chance(20) {
        r.insert("isError".into(), json!(true));
    }
    if rng.chance(30) {
        r.insert("_meta".into(), result_meta(rng));
    }
    Value::Object(r)
}

fn damage_result(rng: &mut Rng, w: &World, result: &mut Value) {
    let Some(r) = result.as_object_mut() else { return };
    match rng.below(10) {
        0 => {
            r.insert("isError".into(), json!(true));
        }
        1 => {
            r.insert("outputs".into(), json!([]));
        }
        2 => {
            r.insert("resultType".into(), json!(rng.pick_str(&["input_required", "incomplete", "complete"])));
        }
        3 => {
            r.insert("inputRequests".into(), json!({"q": {"method": "elicitation/create"}}));
            r.insert("resultType".into(), json!("input_required"));
            if rng.chance(50) {
                r.remove("outputs");
                r.remove("content");
            }
        }
        4 => {
            r.insert("_meta".into(), result_meta(rng));
        }
        5 => {
            r.insert("structuredContent".into(), structured_value(rng));
        }
        6 => {
            if let Some(Value::Array(outputs)) = r.get_mut("outputs") {
                let (a, f) = w.variants.get(rng.below(w.variants.len())).cloned().unwrap_or_default();
                outputs.push(output(rng, &a, &f));
            }
        }
        7 => {
            if let Some(Value::Array(outputs)) = r.get_mut("outputs") {
                if !outputs.is_empty() {
                    let i = rng.below(outputs.len());
                    outputs.remove(i);
                }
            }
        }
        8 => {
            r.remove(if rng.chance(50) { "outputs" } else { "content" });
        }
        _ => {
            if let Some(Value::Array(outputs)) = r.get_mut("outputs") {
                outputs.reverse();
            }
        }
    }
}

fn legacy_tool(rng: &mut Rng) -> Value {
    let mut t = json!({"name": "legacy_search", "inputSchema": {"type": "object"}});
    if let Some(obj) = t.as_object_mut() {
        if rng.chance(60) {
            obj.insert("outputSchema".into(), schema(rng));
        }
        if rng.chance(40) {
            obj.insert("_meta".into(), json!({"ui": {"resourceUri": "ui://legacy/view"}}));
        }
        if rng.chance(20) {
            obj.insert("outputVariants".into(), json!([{"audience": "assistant", "format": "content"}]));
        }
        if rng.chance(5) {
            obj.remove("name");
        }
    }
    t
}

/// Near-valid: a few random edits anywhere in the input (remove a key, replace a node, drop or
/// repeat an array item, retype a leaf).
fn mutate(rng: &mut Rng, value: &mut Value, edits: usize) {
    for _ in 0..edits {
        // Choose a random path first (a JSON Pointer), then edit the node it names.
        let mut pointer = String::new();
        let mut node = &*value;
        for _ in 0..8 {
            if rng.chance(30) {
                break;
            }
            let next = match node {
                Value::Object(map) if !map.is_empty() => {
                    let i = rng.below(map.len());
                    map.iter().nth(i).map(|(k, v)| (k.replace('~', "~0").replace('/', "~1"), v))
                }
                Value::Array(list) if !list.is_empty() => {
                    let i = rng.below(list.len());
                    list.get(i).map(|v| (i.to_string(), v))
                }
                _ => None,
            };
            match next {
                Some((token, child)) => {
                    pointer.push('/');
                    pointer.push_str(&token);
                    node = child;
                }
                None => break,
            }
        }
        let Some(node) = value.pointer_mut(&pointer) else { continue };
        // The root stays an object (an input that is not one is a single, well-tested error):
        // at the root, only drop a field, and rarely.
        if pointer.is_empty() {
            if let Some(map) = node.as_object_mut().filter(|m| !m.is_empty() && rng.chance(20)) {
                let i = rng.below(map.len());
                if let Some(key) = map.keys().nth(i).cloned() {
                    map.shift_remove(&key);
                }
            }
            continue;
        }
        match node {
            Value::Object(map) if !map.is_empty() && rng.chance(50) => {
                let i = rng.below(map.len());
                if let Some(key) = map.keys().nth(i).cloned() {
                    map.shift_remove(&key);
                }
            }
            Value::Array(list) if !list.is_empty() && rng.chance(50) => {
                let i = rng.below(list.len());
                if rng.chance(50) {
                    list.remove(i);
                } else if let Some(item) = list.get(i).cloned() {
                    list.push(item);
                }
            }
            other => *other = if rng.chance(50) { scalar(rng) } else { any_value(rng, 2) },
        }
    }
}

/// A corpus case's input, often moved to another revision or connection, then edited.
fn from_corpus(rng: &mut Rng, seeds: &[(String, Value)]) -> Option<(String, Value)> {
    let (op, input) = rng.pick(seeds)?;
    let mut input = input.clone();
    if let Some(obj) = input.as_object_mut() {
        if rng.chance(40) {
            obj.insert("protocolVersion".into(), json!(rng.pick_str(REVISIONS)));
        }
        if rng.chance(25) {
            let mut negotiated = Vec::new();
            if rng.chance(50) {
                negotiated.push(json!(UI));
            }
            obj.insert("negotiated".into(), Value::Array(negotiated));
        }
    }
    if rng.chance(70) {
        let edits = 1 + rng.below(3);
        mutate(rng, &mut input, edits);
    }
    Some((op.clone(), input))
}

fn corpus_seeds() -> Result<Vec<(String, Value)>, String> {
    let known: BTreeSet<String> = requirement_ids()?.into_iter().collect();
    let files = json_files(&corpus_dir(), true)?;
    let cases = load_cases(&files, &known, &mut BTreeSet::new()).map_err(|p| p.join("\n"))?;
    Ok(cases.into_iter().map(|c| (c.op, c.input)).collect())
}

/// The Rust answer, in the corpus `expect` shape (the JSON-RPC code whenever there is one).
fn expect_of(op: &str, input: &Value) -> Value {
    match mcp_outputs::ops::run(op, input) {
        Ok(ok) => json!({ "ok": ok }),
        Err(e) => {
            let mut err = Map::new();
            err.insert("code".into(), json!(e.code().as_str()));
            if let Some(rpc) = e.jsonrpc_code() {
                err.insert("jsonrpc".into(), json!(rpc));
            }
            json!({ "error": err })
        }
    }
}

fn generate(seed: u64, count: usize) -> Result<(), String> {
    let seeds = corpus_seeds()?;
    let mut rng = Rng(seed);
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut i = 0;
    while i < count {
        let (op, input) = match (rng.chance(25), OPERATIONS.get(rng.below(OPERATIONS.len()))) {
            (true, _) => from_corpus(&mut rng, &seeds).ok_or("the corpus has no case")?,
            (false, Some((op, fields))) => {
                let mut input = input_for(&mut rng, op, fields);
                if rng.chance(15) {
                    mutate(&mut rng, &mut input, 1);
                }
                ((*op).to_owned(), input)
            }
            (false, None) => return Err("no operation".into()),
        };
        let expect = expect_of(&op, &input);
        // Ops are deterministic: the same input gives the same answer.
        if expect_of(&op, &input) != expect {
            return Err(format!("op {op} is not deterministic on {input}"));
        }
        let case = json!({"id": format!("diff-{seed}-{i}"), "op": op, "input": input, "expect": expect});
        writeln!(out, "{case}").map_err(|e| e.to_string())?;
        i += 1;
    }
    out.flush().map_err(|e| e.to_string())
}

fn read_lines(path: &str) -> Result<Vec<Value>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    std::io::BufReader::new(file)
        .lines()
        .map(|line| {
            let line = line.map_err(|e| format!("{path}: {e}"))?;
            parse_strict(&line).map_err(|e| format!("{path}: {e}: {line}"))
        })
        .collect()
}

/// One implementation's outcome against the Rust answer: strict, every list in order.
fn outcome_diff(expect: &Value, outcome: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    match (expect.get("ok"), outcome.get("ok"), expect.get("error"), outcome.get("error")) {
        (Some(want), Some(got), _, _) => compare(want, got, "", &[], &mut diffs),
        (_, _, Some(want), Some(got)) => {
            if want.get("code") != got.get("code") || want.get("jsonrpc") != got.get("jsonrpc") {
                diffs.push(format!("  expected error {want}, got error {got}"));
            }
        }
        _ => diffs.push(format!("  expected {expect}\n  got      {outcome}")),
    }
    diffs
}

fn compare_files(cases_path: &str, outcome_paths: &[String]) -> Result<bool, String> {
    let cases = read_lines(cases_path)?;
    let mut mismatched = BTreeSet::new();
    let mut reports = Vec::new();
    for path in outcome_paths {
        let lines = read_lines(path)?;
        if lines.len() != cases.len() {
            return Err(format!("{path}: {} outcomes for {} cases", lines.len(), cases.len()));
        }
        for (i, (case, line)) in cases.iter().zip(&lines).enumerate() {
            let lang = line.get("lang").and_then(Value::as_str).unwrap_or("?");
            if line.get("id") != case.get("id") {
                return Err(format!("{path}: line {i} is not case {}", case.get("id").unwrap_or(&Value::Null)));
            }
            let expect = case.get("expect").unwrap_or(&Value::Null);
            let mut problems = Vec::new();
            for outcome in line.get("outcomes").and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
                let label = outcome.get("label").and_then(Value::as_str).unwrap_or("?");
                let diffs = outcome_diff(expect, outcome);
                if !diffs.is_empty() {
                    problems.push(format!("[{lang} {label}]\n{}", diffs.join("\n")));
                }
            }
            if line.get("outcomes").and_then(Value::as_array).is_none_or(Vec::is_empty) {
                problems.push(format!("[{lang}] no outcome"));
            }
            if let Some(runner) = line.get("runner").and_then(Value::as_str) {
                problems.push(format!("[{lang} corpus runner's comparison]\n{runner}"));
            }
            if !problems.is_empty() {
                mismatched.insert(i);
                reports.push((i, problems.join("\n")));
            }
        }
    }
    reports.sort_by_key(|(i, _)| *i);
    for (i, report) in &reports {
        let case = cases.get(*i).unwrap_or(&Value::Null);
        println!("MISMATCH {}\n  case: {case}\n{report}\n", case.get("id").unwrap_or(&Value::Null));
    }
    println!("differential: {} cases, {} mismatches", cases.len(), mismatched.len());
    Ok(mismatched.is_empty() && !cases.is_empty())
}

/// Prints the Rust error (code, path, message) of every failing case: to tune the generator and
/// to read a mismatch.
fn explain(cases_path: &str) -> Result<(), String> {
    for case in read_lines(cases_path)? {
        let op = case.get("op").and_then(Value::as_str).unwrap_or("");
        let input = case.get("input").unwrap_or(&Value::Null);
        if let Err(e) = mcp_outputs::ops::run(op, input) {
            println!("{op}\t{}\t{}\t{}", e.code().as_str(), e.path(), e.message());
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["generate", seed, count] => match (seed.parse(), count.parse()) {
            (Ok(seed), Ok(count)) => generate(seed, count).map(|()| true),
            _ => Err("generate <seed: u64> <count: usize>".into()),
        },
        ["explain", cases] => explain(cases).map(|()| true),
        ["compare", cases, outcomes @ ..] if !outcomes.is_empty() => {
            let outcomes: Vec<String> = outcomes.iter().map(|s| (*s).to_owned()).collect();
            compare_files(cases, &outcomes)
        }
        _ => Err("usage: differential generate <seed> <count> | compare <cases.jsonl> <outcomes.jsonl>... | explain <cases.jsonl>".into()),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("differential: {e}");
            ExitCode::FAILURE
        }
    }
}
