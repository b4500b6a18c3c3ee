//! The tape (`mcp_outputs::tape`) and the per-call path over any representation
//! (`mcp_outputs::node`: `ReceivedTool::check_node`, `route_node`, `ServerTool::respond_node`).
//!
//! - [`raw`] (`tape_raw`): three arbitrary streams. `Tape::new` refuses them (`malformed`, or
//!   `limit-exceeded` for the depth) or accepts them; an accepted tape is read whole through the
//!   node traits (every accessor agrees with the node's kind, numbers answer as `serde_json`
//!   parses what `JSON.stringify` writes of them), and without held nodes it is exactly
//!   `encode(&root.to_value())`, and the core's readers and the per-call path answer for it as
//!   for its value.
//! - [`paths`] (`tape_paths`): a value (JSON text, or the op targets' grammar), held as
//!   JavaScript holds it (numbers as doubles), through check, route and respond on the value and
//!   on `encode(&value)`: the same answers and the same errors (code, path, message, JSON-RPC
//!   code). JSON text also goes through `encode_text`, which must write `encode`'s tape.
//!   On the tape, `check_node_then` selects at most once and answers as `check_node`, and a
//!   route written by index (`Route::to_out_with`, as the npm package hands back its caller's
//!   outputs) resolves to `Route::to_out`.
use super::*;
use mcp_outputs::answer::AnswerTape;
use mcp_outputs::client::ReceivedTool;
use mcp_outputs::connection::Connection;
use mcp_outputs::limits::Limits;
use mcp_outputs::node::{Array as _, Json as _, JsonNumber as _, JsonType, Node as _, Object as _};
use mcp_outputs::payload::InPlace;
use mcp_outputs::server::{Produced, ServerTool};
use mcp_outputs::tape::{encode, encode_text, Tape, TapeJson, TapeNode};
use mcp_outputs::Audience;
use std::ops::ControlFlow;

/// A value as the JavaScript side holds it: each number the double `JSON.stringify` writes,
/// read back by `serde_json` (as `core/src/node.rs`'s property test does).
pub fn as_javascript_holds_it(value: &Value) -> Value {
    match value {
        Value::Number(n) => {
            let double = n.as_f64().unwrap_or_default();
            serde_json::from_str(&mcp_outputs::jsontext::js_number(double)).unwrap_or(Value::Null)
        }
        Value::Array(items) => Value::Array(items.iter().map(as_javascript_holds_it).collect()),
        Value::Object(members) => {
            Value::Object(members.iter().map(|(k, v)| (k.clone(), as_javascript_holds_it(v))).collect())
        }
        other => other.clone(),
    }
}

type Outcome = std::result::Result<Value, (ErrorCode, String, String, Option<i64>)>;

fn outcome(result: mcp_outputs::Result<Value>) -> Outcome {
    if let Err(e) = &result {
        check_error(e);
    }
    result.map_err(|e| (e.code(), e.path().to_owned(), e.message().to_owned(), e.jsonrpc_code()))
}

/// The fixtures of the tape targets: `fixtures::tool(pick)` on `fixtures::connection(pick)`,
/// with the structured variants' schemas replaced by one of three sets and, sometimes, legacy
/// options, chosen by the option byte `opts`:
/// - bits 0–1: the local rule for an older server's `structuredContent` (LEG-8): none,
///   programmatic, user, the charts extension;
/// - bits 2–3: the schemas: the fixture's own, the property test's (`n` integer, `s` string,
///   `n` required), or one with most keywords (numbers, strings, `enum`, `const`,
///   `uniqueItems`, member names), where the tape's numbers and strings meet the validator;
/// - bits 4–5: the legacy options: none, the mirror off, `structuredFrom` the first structured
///   variant, an `outputSchema` of its own.
pub mod fixture {
    use super::*;
    use serde_json::json;

    pub fn rule(opts: u8) -> Option<Audience> {
        match opts & 0x03 {
            0 => None,
            1 => Some(Audience::Programmatic),
            2 => Some(Audience::User),
            _ => Some(Audience::Extension(CHARTS.to_owned())),
        }
    }

    fn schema(set: u8) -> Option<Value> {
        match set {
            1 => Some(json!({"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
                "required": ["n"]})),
            2 => Some(json!({
                "properties": {
                    "n": {"type": "integer", "minimum": -5, "maximum": 1e15, "multipleOf": 3},
                    "f": {"type": "number", "exclusiveMinimum": 0.5, "multipleOf": 0.25},
                    "s": {"type": "string", "minLength": 1, "maxLength": 3},
                    "p": {"type": "string", "pattern": "^[a-c]+$"},
                    "e": {"enum": [1, 2.5, "x", null, true, [1, "a"], {"k": 1}]},
                    "c": {"const": {"a": [1, 2.0]}},
                    "u": {"type": "array", "uniqueItems": true, "maxItems": 4, "items": {"type": ["integer", "string"]}},
                    "o": {"type": "object", "minProperties": 1, "maxProperties": 2, "propertyNames": {"maxLength": 2},
                        "additionalProperties": {"type": "boolean"}},
                    "b": {"type": "boolean"},
                    "z": {"type": "null"}
                },
                "patternProperties": {"^x": {"type": "null"}},
                "dependentRequired": {"n": ["s"]},
                "prefixItems": [{"type": "number"}, {"type": "string"}],
                "contains": {"type": "integer"},
                "not": {"required": ["forbidden"]}
            })),
            _ => None,
        }
    }

    pub fn tool(pick: u8, opts: u8) -> Value {
        let mut tool = fixtures::tool(pick);
        if let Some(schema) = schema((opts >> 2) & 0x03) {
            for variant in tool["outputVariants"].as_array_mut().into_iter().flatten() {
                if variant["format"] == "structured" {
                    variant["schema"] = schema.clone();
                }
            }
        }
        tool
    }

    fn legacy(opts: u8) -> Option<Value> {
        match (opts >> 4) & 0x03 {
            0 => None,
            1 => Some(json!({"mirror": false})),
            2 => Some(json!({"structuredFrom": "assistant/structured"})),
            _ => Some(json!({"outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}})),
        }
    }

    /// The declared tool, the tool its connection received (`None` when it refuses it), and
    /// the connection.
    pub type Fixture = (ServerTool, Option<ReceivedTool>, Connection);

    thread_local! {
        static BUILT: std::cell::RefCell<std::collections::HashMap<(u8, u8), Fixture>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }

    /// Runs `f` on the fixture of `pick` and `opts` (built once per process).
    pub fn with<R>(pick: u8, opts: u8, f: impl FnOnce(&ServerTool, Option<&ReceivedTool>, &Connection) -> R) -> R {
        BUILT.with(|cache| {
            let mut cache = cache.borrow_mut();
            let (server, host, conn) = cache.entry((pick, opts & 0x3C)).or_insert_with(|| {
                let config = fixtures::config();
                let conn = fixtures::connection(pick, &config);
                let tool = tool(pick, opts);
                // `structuredFrom` names a variant the pick may have left out: then no options.
                let server = legacy(opts)
                    .and_then(|legacy| ServerTool::declare(&tool, Some(&legacy), &config).ok())
                    .unwrap_or_else(|| ServerTool::declare(&tool, None, &config).expect("fixture tools are valid"));
                let host = ReceivedTool::accept(&server.advertise(&conn), &conn).ok();
                (server, host, conn)
            });
            f(server, host.as_ref(), conn)
        })
    }
}

/// Check, route and respond on `value` and on `tape` (its tape: `tape.root().to_value()` is
/// `value`) give the same answers and errors: check and route when `client` (the value as a
/// result), respond when `server` (the value as what a tool produced).
pub fn same_on_tape(
    pick: u8,
    opts: u8,
    requested: Option<&Value>,
    value: &Value,
    tape: &Tape<'_>,
    client: bool,
    server: bool,
) {
    let rule = fixture::rule(opts);
    fixture::with(pick, opts, |server_tool, host, conn| {
        if let (true, Some(host)) = (client, host) {
            same_for_host(host, requested, rule.as_ref(), value, tape);
        }
        if server {
            let on_value = outcome(server_tool.respond(conn, requested, Produced::new(value)));
            let on_tape = outcome(deterministic(|| {
                server_tool.respond_node::<TapeJson, _>(conn, requested, tape.root(), &InPlace).map(|out| {
                    let copied = out.to_value();
                    let mut answer = AnswerTape::default();
                    answer.write_out(&out);
                    assert_eq!(read_answer(&answer), as_javascript_holds_it(&copied), "respond's answer tape");
                    let moved = out.into_value();
                    assert_eq!(copied, moved, "Out::to_value and Out::into_value differ");
                    moved
                })
            }));
            assert_eq!(on_value, on_tape, "respond differs on the tape of {value}");
        }
    });
}

fn same_for_host(
    host: &ReceivedTool,
    requested: Option<&Value>,
    rule: Option<&Audience>,
    value: &Value,
    tape: &Tape<'_>,
) {
    let selectors = match host.selection(requested) {
        Ok(selectors) => selectors,
        Err(e) => {
            // Nothing of the result is read: the value path answers the same error.
            let routed = outcome(host.route_with(requested, rule, value).map(|r| r.to_json()));
            assert_eq!(routed, outcome(Err(e)), "route_with and selection disagree");
            return;
        }
    };
    let on_value = outcome(host.check_selected(&selectors, value).map(|c| c.to_json()));
    let on_tape = outcome(deterministic(|| {
        host.check_node::<TapeJson, _>(&selectors, tape.root(), &InPlace).map(|c| c.to_json())
    }));
    assert_eq!(on_value, on_tape, "check differs on the tape of {value}");
    if let Ok(checked) = &on_tape {
        let mut answer = AnswerTape::default();
        answer.write_value(checked);
        assert_eq!(read_answer(&answer), as_javascript_holds_it(checked), "the check's answer tape");
    }
    // The text paths' order of faults (the result's limits, then the request's, then the
    // result's own): `check_node_then` selects once, and only for a result within the limits.
    let selected = std::cell::Cell::new(0u32);
    let on_tape_then = outcome(deterministic(|| {
        selected.set(0);
        let answer = host.check_node_then::<TapeJson, _, _>(
            || {
                selected.set(selected.get() + 1);
                host.selection(requested)
            },
            tape.root(),
            &InPlace,
        );
        answer.map(|c| c.to_json())
    }));
    assert!(selected.get() <= 1, "check_node_then selected {} times", selected.get());
    assert_eq!(on_tape_then, on_tape, "check_node_then and check_node differ on the tape of {value}");
    let on_value = outcome(host.route_with(requested, rule, value).map(|r| r.to_json()));
    let on_tape = outcome(deterministic(|| {
        host.check_node::<TapeJson, _>(&selectors, tape.root(), &InPlace).map(|checked| {
            let route = host.route_node(&checked, rule);
            let out = route.to_out().into_value();
            assert_eq!(out, route.to_json(), "Route::to_out and Route::to_json differ on a tape");
            let indexed = indexed(&route);
            assert_eq!(by_index(indexed.clone(), value), out, "Route::to_out_with by index differs from Route::to_out");
            // The npm package's answer: the route written as an answer tape reads back as the
            // indexed route, as JavaScript holds it.
            let mut answer = AnswerTape::default();
            answer.write_route(&route);
            assert_eq!(read_answer(&answer), as_javascript_holds_it(&indexed), "the route's answer tape");
            out
        })
    }));
    assert_eq!(on_value, on_tape, "route differs on the tape of {value}");
    if let Ok(route) = &on_tape {
        ops::route_outputs_are_received(route, value);
    }
}

/// An answer tape read back (`answer::read_back`), which must read it whole.
fn read_answer(answer: &AnswerTape) -> Value {
    let (words, numbers, bytes) = answer.streams();
    mcp_outputs::answer::read_back(words, numbers, bytes).expect("an answer tape the core wrote reads back whole")
}

/// The route as a binding that hands back its caller's outputs by index writes it
/// (`Route::to_out_with`, each `Routed::Output` as `{"$index": i}`).
fn indexed(route: &mcp_outputs::routing::Route<'_, TapeJson>) -> Value {
    use mcp_outputs::node::Out;
    use mcp_outputs::routing::Routed;
    route
        .to_out_with(&|routed| match routed {
            Routed::Output { index, .. } => Out::Value(serde_json::json!({ "$index": index })),
            other => other.to_out(),
        })
        .into_value()
}

/// An indexed route ([`indexed`]) with every index resolved to `result.outputs[i]`. An output
/// is an object with `audience` and `format`, so the marker cannot be one.
fn by_index(indexed: Value, result: &Value) -> Value {
    fn resolve(value: Value, outputs: &[Value]) -> Value {
        match value {
            Value::Object(members) => {
                if let (1, Some(i)) = (members.len(), members.get("$index").and_then(Value::as_u64)) {
                    let i = usize::try_from(i).unwrap_or(usize::MAX);
                    return outputs
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| panic!("a routed output at index {i}, past outputs"));
                }
                Value::Object(members.into_iter().map(|(k, v)| (k, resolve(v, outputs))).collect())
            }
            Value::Array(items) => Value::Array(items.into_iter().map(|v| resolve(v, outputs)).collect()),
            other => other,
        }
    }
    let outputs = result.get("outputs").and_then(Value::as_array).cloned().unwrap_or_default();
    resolve(indexed, &outputs)
}

/// A tape with held nodes: the per-call path reads it without a panic, the same way twice.
fn held_on_tape(pick: u8, opts: u8, requested: Option<&Value>, tape: &Tape<'_>) {
    let rule = fixture::rule(opts);
    fixture::with(pick, opts, |server, host, conn| {
        if let Some(host) = host {
            if let Ok(selectors) = host.selection(requested) {
                let _ = outcome(deterministic(|| {
                    host.check_node::<TapeJson, _>(&selectors, tape.root(), &InPlace).map(|checked| {
                        // Its answer tape reads back whole, held nodes and all.
                        let route = host.route_node(&checked, rule.as_ref());
                        let mut answer = AnswerTape::default();
                        answer.write_route(&route);
                        read_answer(&answer);
                        route.to_out().into_value()
                    })
                }));
            }
        }
        let _ = outcome(deterministic(|| {
            server.respond_node::<TapeJson, _>(conn, requested, tape.root(), &InPlace).map(|out| {
                let mut answer = AnswerTape::default();
                answer.write_out(&out);
                read_answer(&answer);
                out.into_value()
            })
        }));
    });
}

pub mod raw {
    //! `tape_raw`: bytes `[pick, opts, words: u16 LE, numbers: u16 LE]`, then that many `u32`
    //! words (LE), that many `f64` numbers (LE), each count cut to what the input holds, and the
    //! rest as the byte stream.
    use super::*;

    pub struct Streams {
        pub pick: u8,
        pub opts: u8,
        pub words: Vec<u32>,
        pub numbers: Vec<f64>,
        pub bytes: Vec<u8>,
    }

    pub fn streams(data: &[u8]) -> Option<Streams> {
        let (&[pick, opts, w0, w1, f0, f1], rest) = data.split_first_chunk::<6>()?;
        let words_wanted = usize::from(u16::from_le_bytes([w0, w1]));
        let numbers_wanted = usize::from(u16::from_le_bytes([f0, f1]));
        let word_count = words_wanted.min(rest.len() / 4);
        let (word_bytes, rest) = rest.split_at(word_count * 4);
        let number_count = numbers_wanted.min(rest.len() / 8);
        let (number_bytes, bytes) = rest.split_at(number_count * 8);
        let words = word_bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let numbers = number_bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        Some(Streams { pick, opts, words, numbers, bytes: bytes.to_vec() })
    }

    pub fn fuzz(data: &[u8]) {
        let Some(s) = streams(data) else { return };
        let first = Tape::new(&s.words, &s.numbers, &s.bytes);
        let second = Tape::new(&s.words, &s.numbers, &s.bytes);
        let tape = match (first, second) {
            (Ok(tape), Ok(_)) => tape,
            (Err(e), Err(again)) => {
                assert_eq!(e, again, "Tape::new is not deterministic");
                check_error(&e);
                assert!(matches!(e.code(), ErrorCode::Malformed | ErrorCode::LimitExceeded), "a tape refused as {e:?}");
                assert!(e.path().is_empty(), "a tape fault with a path: {e:?}");
                return;
            }
            (a, b) => panic!("Tape::new is not deterministic: {a:?} then {b:?}"),
        };
        assert_eq!(tape.sizes(), (s.words.len(), s.numbers.len(), s.bytes.len()), "sizes are not the streams'");
        let mut seen = Seen::default();
        let root = tape.root();
        let read = read(&root, 0, &mut seen);
        assert_eq!(seen.depth, tape.depth(), "Tape::depth is not the tape's");
        assert_eq!(seen.held, tape.held_count(), "Tape::held_count is not the tape's");
        assert!(tape.depth() <= mcp_outputs::MAX_DEPTH_CEILING, "accepted past the depth ceiling");
        let value = root.to_value().into_owned();
        assert_eq!(value, read, "to_value is not the value read node by node");
        assert_eq!(as_javascript_holds_it(&value), value, "to_value holds a number JavaScript would not");
        if tape.held_count() > 0 {
            assert_eq!(
                mcp_outputs::jsontext::stringify_node::<TapeJson, _>(&root),
                None,
                "stringify_node wrote a tape with held nodes"
            );
            held_on_tape(s.pick, s.opts, None, &tape);
            return;
        }
        // Without held nodes the tape is exactly the encoding of its value.
        let buf = encode(&value);
        let (words, numbers, bytes) = buf.streams();
        assert_eq!(words, &s.words[..], "encode(to_value) wrote other words");
        assert_eq!(numbers, &s.numbers[..], "encode(to_value) wrote other numbers");
        assert_eq!(bytes, &s.bytes[..], "encode(to_value) wrote other bytes");
        let again = Tape::new(words, numbers, bytes).expect("Tape::new accepts what encode wrote");
        assert_eq!(again.root().to_value().into_owned(), value, "encode(to_value) does not read back");
        // The core's generic readers answer for the tape as for its value.
        let limits = Limits::default();
        assert_eq!(
            outcome(limits.check_node::<TapeJson>(&root, 1, "").map(|()| Value::Null)),
            outcome(limits.check_value(&value, "").map(|()| Value::Null)),
            "Limits::check_node and check_value disagree on {value}"
        );
        assert_eq!(
            mcp_outputs::jsontext::stringify_node::<TapeJson, _>(&root),
            Some(mcp_outputs::jsontext::stringify(&value)),
            "stringify_node and stringify disagree"
        );
        let requested = (s.opts & 0x40 != 0).then(|| {
            serde_json::json!([{"audience": "assistant", "format": "structured"}, {"audience": "user", "format": "content"}])
        });
        same_on_tape(s.pick, s.opts, requested.as_ref(), &value, &tape, true, true);
    }

    #[derive(Default)]
    struct Seen {
        depth: usize,
        held: usize,
    }

    /// The node's value, read through every accessor of the node traits, each checked against
    /// the node's kind. `depth`: containers around the node.
    fn read(node: &TapeNode<'_>, depth: usize, seen: &mut Seen) -> Value {
        let kind = node.json_type();
        let (object, array, string, number, boolean) =
            (node.as_object(), node.as_array(), node.as_string(), node.as_number(), node.as_boolean());
        assert_eq!(object.is_some(), kind == JsonType::Object, "as_object disagrees with json_type");
        assert_eq!(array.is_some(), kind == JsonType::Array, "as_array disagrees with json_type");
        assert_eq!(string.is_some(), kind == JsonType::String, "as_string disagrees with json_type");
        assert_eq!(node.is_string(), kind == JsonType::String, "is_string disagrees with json_type");
        assert_eq!(number.is_some(), kind == JsonType::Number, "as_number disagrees with json_type");
        assert_eq!(node.is_number(), kind == JsonType::Number, "is_number disagrees with json_type");
        assert_eq!(boolean.is_some(), kind == JsonType::Boolean, "as_boolean disagrees with json_type");
        if node.held().is_some() {
            assert_eq!(kind, JsonType::Null, "a held node's type");
            assert!(!node.is_null(), "a held node is null");
            seen.held += 1;
            return Value::Null;
        }
        let value = match kind {
            JsonType::Null => {
                assert!(node.is_null(), "a null node is not null");
                Value::Null
            }
            JsonType::Boolean => Value::Bool(boolean.unwrap_or_default()),
            JsonType::Number | JsonType::Integer => {
                let Some(n) = number else { unreachable!() };
                let double = n.value();
                assert!(double.is_finite(), "an accepted number that is not finite: {double}");
                let written = mcp_outputs::jsontext::js_number(double);
                let expected: serde_json::Number = serde_json::from_str(&written).expect("js_number writes a number");
                assert_eq!(n.number(), expected, "a number that is not what JSON.stringify writes ({written})");
                assert_eq!(n.as_u64(), expected.as_u64(), "as_u64 of {written}");
                assert_eq!(n.as_i64(), expected.as_i64(), "as_i64 of {written}");
                assert_eq!(n.as_f64(), expected.as_f64(), "as_f64 of {written}");
                assert_eq!(n.to_number().into_owned(), expected, "to_number of {written}");
                assert_eq!(n.as_str(), expected.to_string(), "as_str of {written}");
                assert_eq!(n.is_integer(), double.fract() == 0.0, "is_integer of {written}");
                assert_eq!(
                    n.is_written_as_integer(),
                    mcp_outputs::node::JsonNumber::is_written_as_integer(&expected),
                    "is_written_as_integer of {written}"
                );
                Value::Number(expected)
            }
            JsonType::String => {
                let text = string.unwrap_or_default();
                assert_eq!(node.as_str(), Some(&*text), "as_str and as_string differ");
                Value::String(text.into_owned())
            }
            JsonType::Array => {
                let Some(array) = array else { unreachable!() };
                seen.depth = seen.depth.max(depth + 1);
                let items: Vec<Value> = array.elements().map(|item| read(&item, depth + 1, seen)).collect();
                assert_eq!(items.len(), array.len(), "elements are not len");
                for (index, item) in items.iter().enumerate().take(8) {
                    let at = array.get(index).expect("an element within len");
                    assert_eq!(&at.to_value().into_owned(), item, "TapeArray::get({index})");
                }
                assert!(array.get(items.len()).is_none(), "an element past len");
                Value::Array(items)
            }
            JsonType::Object => {
                let Some(object) = object else { unreachable!() };
                seen.depth = seen.depth.max(depth + 1);
                let mut members = Map::new();
                for (name, item) in object.members() {
                    let read = read(&item, depth + 1, seen);
                    let by_name = object.get_str(name).map(|n| n.to_value().into_owned());
                    assert_eq!(by_name.as_ref(), Some(&read), "get_str({name:?})");
                    let prepared = TapeJson::prepare_key(name);
                    let by_key = object.get(&prepared).map(|n| n.to_value().into_owned());
                    assert_eq!(by_key.as_ref(), Some(&read), "get({name:?})");
                    assert!(members.insert(name.to_owned(), read).is_none(), "a name twice: {name:?}");
                }
                assert_eq!(members.len(), object.len(), "members are not len");
                let mut names = Vec::new();
                let _ = object.try_for_each_name_node(&mut (), |name| {
                    names.push(name.as_str().map(str::to_owned));
                    ControlFlow::<()>::Continue(())
                });
                let expected: Vec<Option<String>> = members.keys().cloned().map(Some).collect();
                assert_eq!(names, expected, "try_for_each_name_node is not the names");
                let mut absent = format!("{}\u{0}", members.keys().next().map_or("", String::as_str));
                while members.contains_key(&absent) {
                    absent.push('\u{0}');
                }
                assert!(object.get_str(&absent).is_none(), "get_str found a name the object lacks");
                Value::Object(members)
            }
        };
        assert_eq!(node.to_value().into_owned(), value, "to_value of one node");
        value
    }
}

pub mod paths {
    //! `tape_paths`: `[pick, opts]`, then either the requested outputs text, 0xFF and a JSON
    //! text (the corpus seeds: a result or a produced value, read as both), or, when that is
    //! not JSON, bytes for the grammar (requested outputs, a result, a produced value).
    use super::*;

    #[derive(Arbitrary, Debug)]
    struct Case {
        requested: Option<Or<Vec<Or<SelectorG>>>>,
        result: Or<ResultG>,
        produced: Or<ProducedG>,
    }

    pub fn fuzz(data: &[u8]) {
        let Some((&[pick, opts], rest)) = data.split_first_chunk::<2>() else { return };
        let mut parts = rest.splitn(2, |b| *b == 0xFF);
        let (requested_bytes, text) = (parts.next().unwrap_or(b""), parts.next());
        if let Some(text) = text.and_then(|t| std::str::from_utf8(t).ok()) {
            if let Ok(parsed) = serde_json::from_str::<Value>(text) {
                let requested = std::str::from_utf8(requested_bytes)
                    .ok()
                    .filter(|_| pick & 0x40 != 0)
                    .and_then(|t| serde_json::from_str::<Value>(t).ok());
                encoded_text(text, &parsed);
                let value = as_javascript_holds_it(&parsed);
                compare(pick, opts, requested.as_ref(), &value, true, true);
                return;
            }
            // Text that is not JSON: encode_text refuses it, as serde_json does (unless it is
            // only deeper than serde_json's own limit).
            if let Ok(buf) = encode_text(text) {
                let (w, f, b) = buf.streams();
                let tape = Tape::new(w, f, b).expect("Tape::new accepts what encode_text wrote");
                assert!(tape.depth() > 100, "encode_text accepted what serde_json refuses: {text:?}");
            }
        }
        let Ok(case) = Case::arbitrary(&mut Unstructured::new(rest)) else { return };
        let requested = case.requested.as_ref().map(ToJson::to_json);
        let result = as_javascript_holds_it(&case.result.to_json());
        let produced = as_javascript_holds_it(&case.produced.to_json());
        compare(pick, opts, requested.as_ref(), &result, true, false);
        compare(pick, opts, requested.as_ref(), &produced, false, true);
    }

    /// `encode_text` writes `encode`'s tape of the value `serde_json` parses.
    fn encoded_text(text: &str, parsed: &Value) {
        let from_text = encode_text(text).expect("encode_text accepts what serde_json parses");
        let from_value = encode(parsed);
        assert_eq!(from_text.streams().0, from_value.streams().0, "encode_text and encode wrote other words");
        assert_eq!(from_text.streams().1, from_value.streams().1, "encode_text and encode wrote other numbers");
        assert_eq!(from_text.streams().2, from_value.streams().2, "encode_text and encode wrote other bytes");
    }

    fn compare(pick: u8, opts: u8, requested: Option<&Value>, value: &Value, client: bool, server: bool) {
        let buf = encode(value);
        let (w, f, b) = buf.streams();
        // What encode wrote is a tape (within the depth ceiling) that reads back as the value.
        match Tape::new(w, f, b) {
            Ok(checked) => {
                assert_eq!(checked.root().to_value().into_owned(), *value, "the tape does not read back");
                assert_eq!(checked.held_count(), 0, "encode wrote a held node");
            }
            Err(e) => assert!(
                e.code() == ErrorCode::LimitExceeded && buf.tape().depth() > mcp_outputs::MAX_DEPTH_CEILING,
                "Tape::new refuses what encode wrote: {e:?}"
            ),
        }
        let tape = buf.tape();
        assert_eq!(tape.root().to_value().into_owned(), *value, "encode's tape does not read back");
        same_on_tape(pick, opts, requested, value, &tape, client, server);
    }
}

pub mod snapshot {
    //! `tape_snapshot`: `[caps, inject, surrogate: u16 LE]`, then a value: JSON text (the seeds
    //! of the corpus), else bytes for the grammar. The value
    //! is written as the npm package's snapshot writer writes a JavaScript value (npm/api.js,
    //! `snapshotSink`): the text `JSON.stringify` makes of it and, beside it, its tape, with
    //! `inject` putting a lone surrogate into one of its strings or member names (and, with its
    //! top bit, a second member whose name is the first's with U+FFFD there: two keys of one
    //! object that are one name on the tape). `tape::snapshot` of the tape, its text's UTF-8
    //! length and its first lone surrogate must answer exactly as `tape::parse_text` of the text
    //! (code, path, message) under the same small caps; without a lone surrogate the tape is
    //! `encode`'s of the value and `Tape::new` takes it.
    use super::*;
    use mcp_outputs::jsontext::stringify;
    use mcp_outputs::tape::{parse_text, snapshot};

    /// Where a lone surrogate goes: a code point no input string holds after `clean`.
    const MARK: char = '\u{10FFFE}';

    /// Everything the writer writes: the text, the three streams, the first lone surrogate (the
    /// byte offset of its string's opening quote, and that string as the text writes it).
    #[derive(Default)]
    struct Written {
        text: String,
        words: Vec<u32>,
        numbers: Vec<f64>,
        bytes: Vec<u8>,
        lone: Option<(usize, String)>,
        surrogate: u16,
    }

    impl Written {
        fn string(&mut self, s: &str) {
            let at = self.text.len();
            // The text: each MARK as `JSON.stringify` writes a lone surrogate.
            let mut quoted = String::from("\"");
            for (i, piece) in s.split(MARK).enumerate() {
                if i > 0 {
                    quoted.push_str(&format!("\\u{:04x}", self.surrogate));
                }
                let q = stringify(&Value::String(piece.to_owned()));
                quoted.push_str(&q[1..q.len() - 1]);
            }
            quoted.push('"');
            if s.contains(MARK) && self.lone.is_none() {
                self.lone = Some((at, quoted.clone()));
            }
            self.text.push_str(&quoted);
            // The tape: TextEncoder's U+FFFD for each.
            let tape = s.replace(MARK, "\u{fffd}");
            self.words.extend([4, tape.len() as u32]);
            self.bytes.extend_from_slice(tape.as_bytes());
        }

        fn value(&mut self, v: &Value) {
            match v {
                Value::Null => self.scalar(0, v),
                Value::Bool(b) => self.scalar(if *b { 2 } else { 1 }, v),
                Value::Number(n) => {
                    self.numbers.push(n.as_f64().unwrap_or_default());
                    self.scalar(3, v);
                }
                Value::String(s) => self.string(s),
                Value::Array(items) => self.container(5, items.len(), |w| {
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            w.text.push(',');
                        }
                        w.value(item);
                    }
                }),
                Value::Object(members) => self.container(6, members.len(), |w| {
                    for (i, (key, item)) in members.iter().enumerate() {
                        if i > 0 {
                            w.text.push(',');
                        }
                        w.string(key);
                        w.text.push(':');
                        w.value(item);
                    }
                }),
            }
        }

        fn scalar(&mut self, word: u32, v: &Value) {
            self.words.push(word);
            self.text.push_str(&stringify(v));
        }

        fn container(&mut self, kind: u32, n: usize, content: impl FnOnce(&mut Self)) {
            let header = self.words.len();
            let (num0, byte0) = (self.numbers.len(), self.bytes.len());
            self.words.extend([kind, n as u32, 0, 0, 0]);
            self.text.push(if kind == 5 { '[' } else { '{' });
            content(self);
            self.text.push(if kind == 5 { ']' } else { '}' });
            let extents = [
                (self.words.len() - header - 5) as u32,
                (self.numbers.len() - num0) as u32,
                (self.bytes.len() - byte0) as u32,
            ];
            self.words[header + 2..header + 5].copy_from_slice(&extents);
        }
    }

    /// The containers of `value`'s deepest path.
    fn nesting(value: &Value) -> usize {
        match value {
            Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
            Value::Object(members) => 1 + members.values().map(nesting).max().unwrap_or(0),
            _ => 0,
        }
    }

    /// `value` without MARK anywhere (the grammar's strings are any strings).
    fn clean(value: &Value) -> Value {
        let clean_str = |s: &str| s.replace(MARK, "?");
        match value {
            Value::String(s) => Value::String(clean_str(s)),
            Value::Array(items) => Value::Array(items.iter().map(clean).collect()),
            Value::Object(members) => Value::Object(members.iter().map(|(k, v)| (clean_str(k), clean(v))).collect()),
            other => other.clone(),
        }
    }

    /// Puts MARK into the `target`-th string or member name (in the text's order) at `at`
    /// (a character boundary near it); with `twin`, the object holding a marked name gets a
    /// member named as the tape will name it. Counts the strings seen in `seen`.
    fn inject(value: &mut Value, target: usize, at: usize, twin: bool, seen: &mut usize) {
        let mark = |s: &str| {
            let mut cut = at.min(s.len());
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            format!("{}{MARK}{}", &s[..cut], &s[cut..])
        };
        match value {
            Value::String(s) => {
                if *seen == target {
                    *s = mark(s);
                }
                *seen += 1;
            }
            Value::Array(items) => items.iter_mut().for_each(|item| inject(item, target, at, twin, seen)),
            Value::Object(members) => {
                let old = std::mem::take(members);
                for (key, mut item) in old {
                    let key = if *seen == target { mark(&key) } else { key };
                    *seen += 1;
                    inject(&mut item, target, at, twin, seen);
                    if twin && key.contains(MARK) {
                        members.insert(key.replace(MARK, "\u{fffd}"), Value::Null);
                    }
                    members.insert(key, item);
                }
            }
            _ => {}
        }
    }

    pub fn fuzz(data: &[u8]) {
        let Some((&[caps, pick, s0, s1], rest)) = data.split_first_chunk::<4>() else { return };
        // JSON text (the corpus seeds), else bytes for the grammar.
        let parsed = std::str::from_utf8(rest).ok().and_then(|text| serde_json::from_str::<Value>(text).ok());
        let value = match parsed {
            Some(value) => value,
            None => match Json::arbitrary(&mut Unstructured::new(rest)) {
                Ok(json) => json.value(),
                Err(_) => return,
            },
        };
        // Small caps so that the fuzzer reaches every one of them, and each fault's order.
        let limits = Limits {
            max_depth: 1 + usize::from(caps & 0x07),
            max_bytes: if caps & 0x08 != 0 { 16 + usize::from(caps >> 4) * 24 } else { Limits::default().max_bytes },
            max_array_len: if caps & 0x40 != 0 { 3 } else { Limits::default().max_array_len },
            max_object_len: if caps & 0x80 != 0 { 3 } else { Limits::default().max_object_len },
            ..Limits::default()
        };
        let mut value = clean(&as_javascript_holds_it(&value));
        if pick & 0x40 != 0 {
            inject(&mut value, usize::from(pick & 0x0F), usize::from(pick >> 4 & 0x03), pick & 0x80 != 0, &mut 0);
        }
        let surrogate = 0xD800 | (u16::from_le_bytes([s0, s1]) & 0x07FF);
        let mut w = Written { surrogate, ..Written::default() };
        w.value(&value);

        let expected = parse_text(&limits, &w.text, "result").map(|_| ());
        if let Err(e) = &expected {
            check_error(e);
        }
        let tape = Tape::new_snapshot(&w.words, &w.numbers, &w.bytes)
            .unwrap_or_else(|e| panic!("the snapshot writer's tape is refused: {e:?} ({:?})", w.text));
        assert_eq!(tape.depth(), nesting(&value), "a depth not the value's");
        let lone = w.lone.as_ref().map(|(at, quoted)| (*at, quoted.as_str()));
        let got = deterministic(|| snapshot(&limits, &tape, w.text.len(), lone, "result"));
        assert_eq!(
            got.as_ref().map_err(|e| (e.code(), e.path(), e.message())),
            expected.as_ref().map_err(|e| (e.code(), e.path(), e.message())),
            "the snapshot answers otherwise than its text {:?}",
            w.text
        );
        if w.lone.is_none() {
            let (words, numbers, bytes) = encode(&value).into_streams();
            assert_eq!((&w.words, &w.numbers, &w.bytes), (&words, &numbers, &bytes), "not encode's tape");
            assert!(Tape::new(&w.words, &w.numbers, &w.bytes).is_ok(), "Tape::new refuses a snapshot's tape");
        }
    }
}
