//! Regression tests of issue 12's hostile-input sweep, core side: a raised `maxDepth` never
//! crashes (defect 1), the regex budget of one call (defect 9) and negotiation under
//! `maxExtensions` with well-formed identifiers only (defect 10). SEC-1, EXT-2.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use mcp_outputs::{
    json as facade, Config, Connection, ErrorCode, Limits, Produced, ProtocolVersion, ReceivedTool, ServerTool,
    MAX_DEPTH_CEILING,
};
use serde_json::{json, Map, Value};

/// Takes a value apart without recursion (dropping a deep `Value` recurses).
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

/// `levels` nested arrays around `1` (depth `levels`, as `Limits` counts).
fn nested_arrays(levels: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..levels {
        v = Value::Array(vec![v]);
    }
    v
}

/// Runs `f` on a thread with `stack` bytes of stack: the test fails (rather than the process
/// aborting silently elsewhere) when the work does not fit.
fn on_stack<T: Send + 'static>(stack: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(stack).spawn(f).unwrap().join().unwrap()
}

// ---------------------------------------------------------------------------------------------
// Defect 1: a raised maxDepth.

#[test]
fn max_depth_over_the_ceiling_is_refused_as_an_option() {
    for depth in [MAX_DEPTH_CEILING + 1, 30_000, 100_000, usize::MAX as u64 as usize] {
        let err = facade::config(Some(&json!({"limits": {"maxDepth": depth}}))).expect_err("over the ceiling");
        assert_eq!((err.code(), err.path()), (ErrorCode::Malformed, "/limits/maxDepth"), "{depth}");
    }
    let at = facade::config(Some(&json!({"limits": {"maxDepth": MAX_DEPTH_CEILING}}))).expect("at the ceiling");
    assert_eq!(at.limits.depth_cap(), MAX_DEPTH_CEILING);
}

/// A `Limits` built in Rust past the ceiling is held to it: deep text and values are
/// `limit-exceeded`, never a stack overflow (30,000 levels crashed the Python process).
#[test]
fn a_limits_struct_past_the_ceiling_is_held_to_it() {
    on_stack(8 << 20, || {
        let limits = Limits { max_depth: 100_000, max_bytes: usize::MAX, ..Limits::default() };
        assert_eq!(limits.depth_cap(), MAX_DEPTH_CEILING);
        for levels in [MAX_DEPTH_CEILING + 1, 30_000] {
            let text = format!("{}{}", "[".repeat(levels), "]".repeat(levels));
            let err = limits.parse_text(&text, "input").expect_err("too deep");
            assert_eq!(err.code(), ErrorCode::LimitExceeded, "{levels} levels of text");
            let value = nested_arrays(levels);
            let err = limits.check_value(&value, "").expect_err("too deep");
            assert_eq!(err.code(), ErrorCode::LimitExceeded, "{levels} levels of value");
            dismantle(value);
        }
        let text = format!("{}{}", "[".repeat(MAX_DEPTH_CEILING), "]".repeat(MAX_DEPTH_CEILING));
        dismantle(limits.parse_text(&text, "input").expect("at the ceiling"));
    });
}

/// `levels` nested objects `{"a": {"a": … {}}}` (depth `levels`).
fn nested_objects(levels: usize) -> Value {
    let mut v = json!({});
    for _ in 1..levels {
        let mut m = Map::new();
        m.insert("a".into(), v);
        v = Value::Object(m);
    }
    v
}

/// With `maxDepth` at the ceiling, a value of that depth goes through every step of a call:
/// text parsing, declaration with a recursive schema, respond (validation), advertise, accept,
/// check and route (validation again, on the text path too). Run on a 8 MiB stack (the main
/// thread's default; an unoptimised build needs far more stack per level than a release one).
#[test]
fn every_path_handles_the_ceiling_depth() {
    on_stack(8 << 20, || {
        let config = facade::config(Some(&json!({"limits": {"maxDepth": MAX_DEPTH_CEILING}}))).expect("options");
        // A recursive schema: each level is an object whose `a` is again the schema, so the
        // validator walks the whole value.
        let schema = json!({"type": "object", "properties": {"a": {"$ref": "#"}}});
        let tool = json!({
            "name": "deep", "inputSchema": {"type": "object"},
            "outputVariants": [
                {"audience": "assistant", "format": "content"},
                {"audience": "programmatic", "format": "structured", "schema": schema}
            ]
        });
        let server = ServerTool::declare(&tool, None, &config).expect("declared");
        let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], config.clone());
        let host = ReceivedTool::accept(&server.advertise(&conn), &conn).expect("accepted");
        let requested = json!([{"audience": "programmatic", "format": "structured"}]);
        // The payload sits below the result (1), its outputs (2) and the output (3).
        let payload = nested_objects(MAX_DEPTH_CEILING - 3);
        let mut output = json!({"audience": "programmatic", "format": "structured"});
        output["structuredContent"] = payload;
        let mut produced = json!({});
        produced["outputs"] = Value::Array(vec![output]);
        let result = server.respond(&conn, Some(&requested), Produced::new(&produced)).expect("responded");
        let text = result.to_string();
        host.check(Some(&requested), &result).expect("checked");
        drop(host.route(Some(&requested), &result).expect("routed"));
        host.check_text(Some(&requested.to_string()), &text).expect("checked as text");
        // One level more is limit-exceeded on the way in, on both paths.
        let mut deeper = json!({"audience": "programmatic", "format": "structured"});
        deeper["structuredContent"] = nested_objects(MAX_DEPTH_CEILING - 2);
        let mut too_deep = json!({});
        too_deep["outputs"] = Value::Array(vec![deeper]);
        let err = host.check_text(Some(&requested.to_string()), &too_deep.to_string()).expect_err("too deep");
        assert_eq!(err.code(), ErrorCode::LimitExceeded);
        let err = server.respond(&conn, Some(&requested), Produced::new(&too_deep)).expect_err("too deep");
        assert_eq!(err.code(), ErrorCode::LimitExceeded);
        for v in [result, produced, too_deep] {
            dismantle(v);
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Defect 10: negotiation under maxExtensions, well-formed identifiers only.

fn caps_listing(ids: &[String]) -> Value {
    let extensions: Map<String, Value> = ids.iter().map(|id| (id.clone(), json!({}))).collect();
    json!({ "extensions": extensions })
}

#[test]
fn negotiation_is_held_to_max_extensions() {
    let config = facade::config(Some(&json!({"limits": {"maxExtensions": 3}}))).expect("options");
    let ids = |n: usize| (0..n).map(|i| format!("com.example/x{i}")).collect::<Vec<_>>();
    let init = |n: usize| {
        json!({"protocolVersion": "2025-06-18", "clientCapabilities": caps_listing(&ids(n)),
               "serverCapabilities": caps_listing(&ids(n))})
    };
    assert_eq!(facade::negotiate(&config, &init(3)).expect("at the cap").negotiated().len(), 3);
    let err = facade::negotiate(&config, &init(4)).map(|_| ()).expect_err("over the cap");
    assert_eq!((err.code(), err.jsonrpc_code()), (ErrorCode::LimitExceeded, Some(-32602)));
    // Only the identifiers both sides list count.
    let mut one_sided = init(10);
    one_sided["serverCapabilities"] = caps_listing(&ids(2));
    assert_eq!(facade::negotiate(&config, &one_sided).expect("two shared").negotiated().len(), 2);

    let params = |n: usize| {
        let mut meta = Map::new();
        meta.insert("io.modelcontextprotocol/protocolVersion".into(), json!("2026-12-01"));
        meta.insert("io.modelcontextprotocol/clientCapabilities".into(), caps_listing(&ids(n)));
        json!({ "_meta": meta })
    };
    let conn = facade::connection_from_request(&config, &params(3), &caps_listing(&ids(3))).expect("at the cap");
    assert_eq!(conn.negotiated().len(), 3);
    let err =
        facade::connection_from_request(&config, &params(4), &caps_listing(&ids(4))).map(|_| ()).expect_err("over");
    assert_eq!((err.code(), err.jsonrpc_code()), (ErrorCode::LimitExceeded, Some(-32602)));
    let err = facade::connection_from_request_text(&config, &params(4).to_string(), &caps_listing(&ids(4)).to_string())
        .map(|_| ())
        .expect_err("over, as text");
    assert_eq!(err.code(), ErrorCode::LimitExceeded);
    // The default cap: 10^5 shared identifiers (accepted before) are refused.
    let many = ids(100_000);
    let init = json!({"protocolVersion": "2025-06-18", "clientCapabilities": caps_listing(&many),
                      "serverCapabilities": caps_listing(&many)});
    let err = facade::negotiate(&Config::new(), &init).map(|_| ()).expect_err("10^5 extensions");
    assert_eq!(err.code(), ErrorCode::LimitExceeded);
}

#[test]
fn identifiers_that_are_not_well_formed_are_never_negotiated() {
    let odd: Vec<String> =
        ["__proto__", "constructor", "x", "/", "com.example/", "-a.b/c", "com.example/x y", "com.example/ok"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
    let init = json!({"protocolVersion": "2025-06-18", "clientCapabilities": caps_listing(&odd),
                      "serverCapabilities": caps_listing(&odd)});
    let conn = facade::negotiate(&Config::new(), &init).expect("negotiated");
    assert_eq!(conn.negotiated(), ["com.example/ok"]);
    let mut meta = Map::new();
    meta.insert("io.modelcontextprotocol/protocolVersion".into(), json!("2026-12-01"));
    meta.insert("io.modelcontextprotocol/clientCapabilities".into(), caps_listing(&odd));
    let conn =
        facade::connection_from_request(&Config::new(), &json!({ "_meta": meta }), &caps_listing(&odd)).expect("ok");
    assert_eq!(conn.negotiated(), ["com.example/ok"]);
}

// ---------------------------------------------------------------------------------------------
// Defect 9: the regex budget of a validation.

fn tool_with(schema: Value) -> Value {
    let mut tool = json!({
        "name": "t", "inputSchema": {"type": "object"},
        "outputVariants": [
            {"audience": "assistant", "format": "content"},
            {"audience": "programmatic", "format": "structured"}
        ]
    });
    tool["outputVariants"][1]["schema"] = schema;
    tool
}

/// check and respond of one programmatic/structured value: both sides must agree.
fn check_value(schema: Value, value: Value) -> Result<(), ErrorCode> {
    let config = Config::new();
    let server = ServerTool::declare(&tool_with(schema), None, &config).map_err(|e| e.code())?;
    let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], config);
    let host = ReceivedTool::accept(&server.advertise(&conn), &conn).map_err(|e| e.code())?;
    let requested = json!([{"audience": "programmatic", "format": "structured"}]);
    let mut output = json!({"audience": "programmatic", "format": "structured"});
    output["structuredContent"] = value;
    let mut result = json!({});
    result["outputs"] = Value::Array(vec![output]);
    let served = server.respond(&conn, Some(&requested), Produced::new(&result)).map(|_| ()).map_err(|e| e.code());
    let checked = host.check(Some(&requested), &result).map(|_| ()).map_err(|e| e.code());
    assert_eq!(served, checked, "server and client disagree");
    checked
}

/// The sweep's input: 100 backreference patterns in `patternProperties` against 10,000 member
/// names (330 s in Python before) is 10^6 matches, over the budget even at 100 steps a match:
/// limit-exceeded before any match runs.
#[test]
fn many_backtracking_patterns_over_many_names_are_refused_at_once() {
    let patterns: Map<String, Value> =
        (0..100).map(|i| (format!("^(a|b)\\1-{i}$"), json!({"type": "integer"}))).collect();
    let schema = json!({"type": "object", "patternProperties": patterns});
    let big: Map<String, Value> = (0..10_000).map(|i| (format!("key-{i:05}-{}", "ab".repeat(10)), json!(i))).collect();
    let started = std::time::Instant::now();
    assert_eq!(check_value(schema.clone(), Value::Object(big)), Err(ErrorCode::LimitExceeded));
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
    // A few names fit the budget and are checked for real, valid and invalid.
    assert_eq!(check_value(schema.clone(), json!({"aa-1": 1, "zz": "free"})), Ok(()));
    assert_eq!(check_value(schema, json!({"aa-1": "x"})), Err(ErrorCode::SchemaViolation));
}

/// A valid value whose proof needs more steps than a match may take is limit-exceeded; the
/// sweep found it reported as schema-violation.
#[test]
fn an_unfinished_match_is_limit_exceeded_not_a_violation() {
    let schema = json!({"type": "object", "properties": {"s": {"not": {"pattern": "^(a|a)*\\1b"}}}});
    assert_eq!(check_value(schema.clone(), json!({"s": "aaa!"})), Ok(()));
    assert_eq!(check_value(schema.clone(), json!({"s": "aab"})), Err(ErrorCode::SchemaViolation));
    assert_eq!(
        check_value(schema.clone(), json!({"s": format!("{}!", "a".repeat(40))})),
        Err(ErrorCode::LimitExceeded)
    );
    // Through the text path and the typed error: the code, the budget in the message.
    let err = mcp_outputs::schema::CompiledSchema::compile(&schema, "")
        .unwrap()
        .validate(&json!({"s": format!("{}!", "a".repeat(40))}), "/x", "the value")
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::LimitExceeded);
    assert!(err.message().starts_with("regex budget of 10000000 steps"), "{}", err.message());
}

/// The per-match limit shrinks as the value grows: a value with many strings is still
/// validated (at 100 or 1,000 steps a match) when its matches finish.
#[test]
fn large_values_get_smaller_per_match_limits() {
    use mcp_outputs::schema::{REGEX_MATCH_STEP_LIMITS, REGEX_STEP_BUDGET};
    let schema = json!({"type": "array", "items": {"type": "string", "pattern": "^(\\w)\\1?-\\d+$"}});
    for count in [10usize, 2_000, 20_000] {
        let matches = count;
        let level = REGEX_MATCH_STEP_LIMITS.iter().position(|l| matches * l <= REGEX_STEP_BUDGET);
        assert!(level.is_some(), "{count} strings fit one of the limits");
        let strings: Vec<Value> = (0..count).map(|i| json!(format!("aa-{i}"))).collect();
        assert_eq!(check_value(schema.clone(), Value::Array(strings)), Ok(()), "{count} valid strings");
        let mut strings: Vec<Value> = (0..count).map(|i| json!(format!("aa-{i}"))).collect();
        strings.push(json!("ab-1"));
        assert_eq!(check_value(schema.clone(), Value::Array(strings)), Err(ErrorCode::SchemaViolation));
    }
    // Past 100 steps × strings, nothing fits: refused without matching.
    let strings: Vec<Value> = (0..(REGEX_STEP_BUDGET / 100 + 1)).map(|_| json!("aa-1")).collect();
    let schema = json!({"type": "array", "items": {"pattern": "^(\\w)\\1?-\\d+$"}});
    let config = Config::new();
    let limits = Limits { max_array_len: usize::MAX, max_bytes: usize::MAX, ..Limits::default() };
    let config = std::sync::Arc::new(Config {
        registry: config.registry.clone(),
        limits,
        supported_versions: config.supported_versions.clone(),
    });
    let server = ServerTool::declare(&tool_with(schema), None, &config).unwrap();
    let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], config);
    let mut output = json!({"audience": "programmatic", "format": "structured"});
    output["structuredContent"] = Value::Array(strings);
    let mut produced = json!({});
    produced["outputs"] = Value::Array(vec![output]);
    let requested = json!([{"audience": "programmatic", "format": "structured"}]);
    let err = server.respond(&conn, Some(&requested), Produced::new(&produced)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::LimitExceeded);
    assert!(err.message().contains("would exceed"), "{}", err.message());
}

/// Schemas whose patterns all run on the linear engine have no regex budget: a value with more
/// strings than any budget would allow is still validated.
#[test]
fn linear_patterns_have_no_budget() {
    let schema = json!({"type": "array", "items": {"type": "string", "pattern": "^(a+)+$"}});
    let strings: Vec<Value> = (0..90_000).map(|_| json!("aaaa")).collect();
    assert_eq!(check_value(schema, Value::Array(strings)), Ok(()));
}

// ---------------------------------------------------------------------------------------------
// Issue 19, item 5: a validation never overflows the stack it is called on. It recurses once
// per schema level per level of the value; natively it moves to a segment with room for the
// ceiling depth through the schema's deepest chain of in-place applicators (`stack`).

#[test]
fn a_validation_fits_any_thread_stack() {
    use mcp_outputs::schema::CompiledSchema;
    for (stack, nesting) in [(64 << 10, 0), (128 << 10, 4), (128 << 10, 64)] {
        // Built here: `json!` itself needs more stack than the smallest thread has in a debug build.
        let mut inner = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/n"}}});
        for _ in 0..nesting {
            inner = json!({"allOf": [inner, {"type": "object"}]});
        }
        let schema = json!({"$defs": {"n": inner}, "$ref": "#/$defs/n"});
        let valid = nested_objects(MAX_DEPTH_CEILING - 3);
        let mut invalid = nested_objects(MAX_DEPTH_CEILING - 3);
        *invalid.pointer_mut(&"/a".repeat(MAX_DEPTH_CEILING - 5)).unwrap() = json!({"a": 1});
        on_stack(stack, move || {
            let compiled = CompiledSchema::compile(&schema, "/schema").expect("compiled");
            compiled.validate(&valid, "", "value").expect("valid at the ceiling");
            let e = compiled.validate(&invalid, "", "value").expect_err("invalid at the bottom");
            assert_eq!(e.code(), ErrorCode::SchemaViolation);
            assert!(compiled.is_valid(&valid) && !compiled.is_valid(&invalid));
            dismantle(valid);
            dismantle(invalid);
        });
    }
}

/// A schema as deep as the ceiling allows is checked and built on any thread's stack: the
/// meta-schema check and the build recurse over it (`stack::SCHEMA_BYTES`).
#[test]
fn the_deepest_schema_is_checked_and_built_on_a_small_stack() {
    use mcp_outputs::schema::CompiledSchema;
    // `properties` / `a` / schema: two levels of JSON per level of schema.
    let mut schema = json!({"type": "string"});
    for _ in 0..(MAX_DEPTH_CEILING - 2) / 2 {
        let mut properties = Map::new();
        properties.insert("a".into(), schema);
        let mut level = Map::new();
        level.insert("properties".into(), Value::Object(properties));
        schema = Value::Object(level);
    }
    on_stack(64 << 10, move || {
        let compiled = CompiledSchema::compile(&schema, "/schema").expect("compiled");
        assert!(compiled.is_valid(&json!({})));
        dismantle(schema);
    });
}
