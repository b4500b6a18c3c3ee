//! Loads, lints and runs the shared conformance corpus (`tests/corpus/`) against the Rust
//! core, in the format of the corpus contract: case files are `<area>/*.json`, each one case
//! or an array of cases; extra cases come from `MCP_OUTPUTS_EXTRA_CORPUS`.

use mcp_outputs::ops::{COMMON_FIELDS, OPERATIONS};
use mcp_outputs::ErrorCode;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// The keys of a case, exactly.
pub const CASE_KEYS: &[&str] = &["id", "requirements", "description", "op", "input", "expect"];

/// The repository corpus directory.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

/// One linted case.
#[derive(Clone, Debug)]
pub struct Case {
    pub id: String,
    pub requirements: Vec<String>,
    pub op: String,
    pub input: Value,
    pub expect: Expect,
    pub file: PathBuf,
}

/// What a case expects.
#[derive(Clone, Debug)]
pub enum Expect {
    Ok(Value),
    Error { code: String, jsonrpc: Option<i64> },
}

/// The requirement IDs of `tests/corpus/requirements.json`.
pub fn requirement_ids() -> Result<Vec<String>, String> {
    let path = corpus_dir().join("requirements.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value = parse_strict(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let list = value
        .get("requirements")
        .and_then(Value::as_array)
        .ok_or_else(|| "requirements.json: no requirements array".to_owned())?;
    list.iter()
        .map(|r| {
            r.get("id").and_then(Value::as_str).map(str::to_owned).ok_or_else(|| format!("requirement without id: {r}"))
        })
        .collect()
}

/// Parses JSON text with no nesting limit (cases may nest deeper than serde_json's default to
/// test the library's own limit) and with duplicate object keys rejected.
pub fn parse_strict(text: &str) -> Result<Value, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = StrictValue::deserialize_from(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(value)
}

struct StrictValue;

impl StrictValue {
    fn deserialize_from<'de, D: Deserializer<'de>>(de: D) -> Result<Value, D::Error> {
        de.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

struct StrictSeed;

impl<'de> de::DeserializeSeed<'de> for StrictSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(StrictVisitor)
    }
}

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(StrictSeed)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate key {key:?}")));
            }
            let value = map.next_value_seed(StrictSeed)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

/// Every `*.json` file below `dir`, sorted; with `skip_top`, files directly in `dir` are
/// left out (the repository corpus keeps its requirement list there).
pub fn json_files(dir: &Path, skip_top: bool) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    while let Some((current, depth)) = stack.pop() {
        let entries = std::fs::read_dir(&current).map_err(|e| format!("{}: {e}", current.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                stack.push((path, depth + 1));
            } else if path.extension().is_some_and(|e| e == "json") && !(skip_top && depth == 0) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Loads and lints every case of the files: the case shape (no unknown field, at any level
/// the contract fixes), kebab-case ids unique across `seen`, cited IDs that exist, known
/// operations, input fields and error codes.
pub fn load_cases(
    files: &[PathBuf],
    known: &BTreeSet<String>,
    seen: &mut BTreeSet<String>,
) -> Result<Vec<Case>, Vec<String>> {
    let mut cases = Vec::new();
    let mut problems = Vec::new();
    for file in files {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                problems.push(format!("{}: {e}", file.display()));
                continue;
            }
        };
        let value = match parse_strict(&text) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{}: {e}", file.display()));
                continue;
            }
        };
        let items = match value {
            Value::Array(items) => items,
            single => vec![single],
        };
        for (i, item) in items.into_iter().enumerate() {
            match lint_case(item, known, file) {
                Ok(case) => {
                    if !seen.insert(case.id.clone()) {
                        problems.push(format!("{}[{i}]: duplicate id {}", file.display(), case.id));
                    } else {
                        cases.push(case);
                    }
                }
                Err(e) => problems.push(format!("{}[{i}]: {e}", file.display())),
            }
        }
    }
    if problems.is_empty() {
        Ok(cases)
    } else {
        Err(problems)
    }
}

fn lint_case(value: Value, known: &BTreeSet<String>, file: &Path) -> Result<Case, String> {
    let Value::Object(mut obj) = value else {
        return Err("a case must be an object".into());
    };
    let unknown: Vec<&String> = obj.keys().filter(|k| !CASE_KEYS.contains(&k.as_str())).collect();
    if !unknown.is_empty() {
        return Err(format!("unknown case fields {unknown:?}"));
    }
    for key in CASE_KEYS {
        if !obj.contains_key(*key) {
            return Err(format!("missing case field {key}"));
        }
    }
    let id = obj.get("id").and_then(Value::as_str).ok_or("id must be a string")?.to_owned();
    let kebab = !id.is_empty()
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !id.starts_with('-')
        && !id.ends_with('-');
    if !kebab {
        return Err(format!("id {id:?} is not kebab-case"));
    }
    let requirements: Vec<String> = obj
        .get("requirements")
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty())
        .ok_or(format!("{id}: requirements must be a non-empty array"))?
        .iter()
        .map(|r| r.as_str().map(str::to_owned).ok_or(format!("{id}: requirement ids are strings")))
        .collect::<Result<_, _>>()?;
    if let Some(bad) = requirements.iter().find(|r| !known.contains(*r)) {
        return Err(format!("{id}: cites unknown requirement {bad}"));
    }
    let described = obj.get("description").and_then(Value::as_str).is_some_and(|s| !s.trim().is_empty());
    if !described {
        return Err(format!("{id}: description must be a non-empty string"));
    }
    let op = obj.get("op").and_then(Value::as_str).ok_or(format!("{id}: op must be a string"))?.to_owned();
    let fields = OPERATIONS
        .iter()
        .find(|(name, _)| *name == op)
        .map(|(_, fields)| *fields)
        .ok_or(format!("{id}: unknown op {op:?}"))?;
    let input = obj.remove("input").unwrap_or(Value::Null);
    let Some(input_obj) = input.as_object() else {
        return Err(format!("{id}: input must be an object"));
    };
    if let Some(bad) = input_obj.keys().find(|k| !fields.contains(&k.as_str()) && !COMMON_FIELDS.contains(&k.as_str()))
    {
        return Err(format!("{id}: input field {bad:?} is not one of op {op}"));
    }
    let expect = match obj.remove("expect") {
        Some(Value::Object(mut e)) if e.len() == 1 && e.contains_key("ok") => {
            let ok = e.remove("ok").unwrap_or(Value::Null);
            if !ok.is_object() {
                return Err(format!("{id}: expect.ok must be an object"));
            }
            Expect::Ok(ok)
        }
        Some(Value::Object(e)) if e.len() == 1 && e.contains_key("error") => {
            let Some(Value::Object(err)) = e.get("error") else {
                return Err(format!("{id}: expect.error must be an object"));
            };
            if let Some(bad) = err.keys().find(|k| *k != "code" && *k != "jsonrpc") {
                return Err(format!("{id}: unknown field {bad:?} in expect.error"));
            }
            let code =
                err.get("code").and_then(Value::as_str).ok_or(format!("{id}: expect.error.code must be a string"))?;
            if ErrorCode::parse(code).is_none() {
                return Err(format!("{id}: unknown error code {code:?}"));
            }
            let jsonrpc = match err.get("jsonrpc") {
                None => None,
                Some(v) => Some(v.as_i64().ok_or(format!("{id}: expect.error.jsonrpc must be an integer"))?),
            };
            Expect::Error { code: code.to_owned(), jsonrpc }
        }
        _ => return Err(format!("{id}: expect must be exactly {{\"ok\": …}} or {{\"error\": …}}")),
    };
    Ok(Case { id, requirements, op, input, expect, file: file.to_path_buf() })
}

/// Runs one case; `Err` holds the difference, expected vs got.
pub fn run_case(case: &Case) -> Result<(), String> {
    let got = run_op(&case.op, &case.input);
    match (&case.expect, got) {
        (Expect::Ok(expected), Ok(got)) => {
            let mut diffs = Vec::new();
            compare(expected, &got, "", &set_paths(&case.op), &mut diffs);
            if diffs.is_empty() {
                Ok(())
            } else {
                Err(format!("{}\n  expected: {}\n  got:      {}", diffs.join("\n"), short(expected), short(&got)))
            }
        }
        (Expect::Ok(expected), Err(e)) => Err(format!("expected ok {}\n  got error {}", short(expected), e)),
        (Expect::Error { code, .. }, Ok(got)) => Err(format!("expected error {code}\n  got ok {}", short(&got))),
        (Expect::Error { code, jsonrpc }, Err(e)) => {
            if e.code().as_str() != code {
                return Err(format!("expected error {code}, got {e}"));
            }
            if let Some(rpc) = jsonrpc {
                if e.jsonrpc_code() != Some(*rpc) {
                    return Err(format!("expected JSON-RPC {rpc}, got {:?} ({e})", e.jsonrpc_code()));
                }
            }
            Ok(())
        }
    }
}

/// The JSON Pointers of lists compared as sets for an op.
fn set_paths(op: &str) -> Vec<&'static str> {
    match op {
        "route" => vec!["/dropped", "/diagnostics"],
        "scenario" => vec!["/route/dropped", "/route/diagnostics"],
        _ => vec!["/warnings"],
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.len() > 1500 {
        format!("{}…", &text[..text.char_indices().nth(1500).map_or(text.len(), |(i, _)| i)])
    } else {
        text
    }
}

/// JSON comparison: object key order ignored, numbers by value, lists at `sets` as sets.
pub fn compare(expected: &Value, got: &Value, path: &str, sets: &[&str], diffs: &mut Vec<String>) {
    match (expected, got) {
        (Value::Number(a), Value::Number(b)) => {
            if a.as_f64() != b.as_f64() {
                diffs.push(format!("  at {path:?}: expected {a}, got {b}"));
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                let sub = format!("{path}/{key}");
                match b.get(key) {
                    Some(other) => compare(value, other, &sub, sets, diffs),
                    None => diffs.push(format!("  at {sub:?}: missing")),
                }
            }
            for key in b.keys().filter(|k| !a.contains_key(*k)) {
                diffs.push(format!("  at {:?}: unexpected", format!("{path}/{key}")));
            }
        }
        (Value::Array(a), Value::Array(b)) if sets.contains(&path) => {
            let contains = |list: &[Value], item: &Value| {
                list.iter().any(|x| {
                    let mut d = Vec::new();
                    compare(item, x, "", &[], &mut d);
                    d.is_empty()
                })
            };
            if !(a.iter().all(|x| contains(b, x)) && b.iter().all(|x| contains(a, x))) {
                diffs.push(format!("  at {path:?} (a set): expected {expected}, got {got}"));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                diffs.push(format!("  at {path:?}: expected {} items, got {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                compare(x, y, &format!("{path}/{i}"), sets, diffs);
            }
        }
        (a, b) => {
            if a != b {
                diffs.push(format!("  at {path:?}: expected {a}, got {b}"));
            }
        }
    }
}

/// The requirement IDs no case cites.
pub fn uncovered(cases: &[Case], known: &[String]) -> Vec<String> {
    let cited: BTreeSet<&str> = cases.iter().flat_map(|c| c.requirements.iter().map(String::as_str)).collect();
    known.iter().filter(|id| !cited.contains(id.as_str())).cloned().collect()
}

/// Cases per area folder, for the summary.
pub fn by_area(cases: &[Case]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for case in cases {
        let area =
            case.file.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        *out.entry(area).or_insert(0) += 1;
    }
    out
}

/// What this runner's build is called in its tally line.
pub const LABEL: &str = if cfg!(feature = "validator") { "rust" } else { "rust without validator" };

/// `ops::run`; in a build of the core without a validator, with [`host::Jsonschema`] answering
/// for schemas, as a binding's validator would.
pub fn run_op(op: &str, input: &Value) -> mcp_outputs::Result<Value> {
    #[cfg(not(feature = "validator"))]
    return mcp_outputs::schema::with_host(std::rc::Rc::new(host::Jsonschema::default()), || {
        mcp_outputs::ops::run(op, input)
    });
    #[cfg(feature = "validator")]
    mcp_outputs::ops::run(op, input)
}

/// A [`SchemaHost`](mcp_outputs::schema::SchemaHost) over jsonschema, as plain as a binding's
/// provider: its own defaults, no regex budget, formats not asserted (the core's setting).
#[cfg(not(feature = "validator"))]
pub mod host {
    use mcp_outputs::schema::{CompiledSchema, Dialect, Instance, SchemaHost, Violation};
    use serde_json::{json, Value};
    use std::cell::RefCell;
    use std::collections::HashMap;

    thread_local! {
        /// The payloads a [`held::HeldTape`](crate::held::HeldTape) call holds, by slot, as the
        /// JavaScript layer holds its caller's.
        pub(crate) static HELD: RefCell<Vec<Value>> = const { RefCell::new(Vec::new()) };
    }

    /// Validators by schema id, for the host's lifetime (one call).
    #[derive(Default)]
    pub struct Jsonschema {
        built: RefCell<HashMap<u64, jsonschema::Validator>>,
    }

    impl std::fmt::Debug for Jsonschema {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Jsonschema").field("built", &self.built.borrow().len()).finish()
        }
    }

    fn draft(dialect: Dialect) -> jsonschema::Draft {
        match dialect {
            Dialect::Draft202012 => jsonschema::Draft::Draft202012,
            Dialect::Draft201909 => jsonschema::Draft::Draft201909,
            Dialect::Draft7 => jsonschema::Draft::Draft7,
            Dialect::Draft6 => jsonschema::Draft::Draft6,
            Dialect::Draft4 => jsonschema::Draft::Draft4,
        }
    }

    impl SchemaHost for Jsonschema {
        fn pattern_is_valid(&self, pattern: &str) -> bool {
            jsonschema::options().build(&json!({"pattern": pattern})).is_ok()
        }

        fn build(&self, schema: &CompiledSchema) -> Result<(), String> {
            let validator = jsonschema::options()
                .with_draft(draft(schema.dialect()))
                .should_validate_formats(false)
                .build(schema.source())
                .map_err(|e| e.to_string())?;
            self.built.borrow_mut().insert(schema.id(), validator);
            Ok(())
        }

        fn validate(&self, schema: &CompiledSchema, instance: Instance<'_>) -> mcp_outputs::Result<Option<Violation>> {
            // Text is parsed as a JavaScript validator's host parses it; a held payload is the
            // one of its slot in the call in progress.
            let parsed;
            let instance = match instance {
                Instance::Value(value) => value,
                Instance::Text(text) => {
                    parsed = serde_json::from_str::<Value>(text)
                        .map_err(|e| mcp_outputs::Error::new(mcp_outputs::ErrorCode::Malformed, "", e.to_string()))?;
                    &parsed
                }
                Instance::Held(slot) => {
                    parsed = held(slot).ok_or_else(|| {
                        mcp_outputs::Error::new(
                            mcp_outputs::ErrorCode::Malformed,
                            "",
                            format!("no payload is held in slot {slot}"),
                        )
                    })?;
                    &parsed
                }
            };
            if !self.built.borrow().contains_key(&schema.id()) {
                // Built by an earlier host (a schema outlives a call): build it for this one.
                self.build(schema).map_err(|why| {
                    mcp_outputs::Error::new(mcp_outputs::ErrorCode::InvalidSchema, schema.path(), why)
                })?;
            }
            let built = self.built.borrow();
            let validator = built.get(&schema.id()).ok_or_else(|| {
                mcp_outputs::Error::new(mcp_outputs::ErrorCode::InvalidSchema, schema.path(), "not built")
            })?;
            Ok(validator
                .validate(instance)
                .err()
                .map(|e| Violation { detail: e.to_string(), at: e.instance_path().to_string() }))
        }

        fn held_text(&self, slot: u32) -> Option<String> {
            held(slot).map(|payload| mcp_outputs::jsontext::stringify(&payload))
        }
    }

    fn held(slot: u32) -> Option<Value> {
        let slot = usize::try_from(slot).ok()?;
        HELD.with(|h| h.borrow().get(slot).cloned())
    }
}

/// Check, route and respond over a tape whose payloads are held nodes, each payload kept by the
/// host ([`host::Jsonschema`]), as the npm package's default build writes a plain result: the
/// per-call path reads every node with the core's own `payload::InPlace`, and asks the host
/// (the one seam) to validate a held payload by its slot and for its text.
#[cfg(not(feature = "validator"))]
pub mod held {
    use mcp_outputs::node::Out;
    use mcp_outputs::ops::{AsValues, Calls};
    use mcp_outputs::payload::InPlace;
    use mcp_outputs::tape::{kind, Tape, TapeJson, TapeNode, HELD_HAS_SUBJECTS, HELD_IS_OBJECT};
    use mcp_outputs::{Audience, Connection, Limits, ReceivedTool, Selector, ServerTool};
    use serde_json::Value;

    /// [`Calls`] through a tape holding each payload (see the module).
    #[derive(Clone, Copy, Debug, Default)]
    pub struct HeldTape;

    /// A tape's three streams, with the payloads held where the npm package's writer holds
    /// them (`payload::RESULT` / `PRODUCED`: each output's `structuredContent`, and a result's
    /// own).
    #[derive(Default)]
    struct Writer {
        words: Vec<u32>,
        numbers: Vec<f64>,
        bytes: Vec<u8>,
        held: Vec<Value>,
        top_held: bool,
    }

    fn len32(n: usize) -> u32 {
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    impl Writer {
        fn string(&mut self, text: &str) {
            self.words.extend([kind::STRING, len32(text.len())]);
            self.bytes.extend_from_slice(text.as_bytes());
        }

        /// `level`: 0 the root, 1 its `outputs`, 2 an output, 3 anything else (api.js's).
        fn value(&mut self, value: &Value, level: u8) {
            match value {
                Value::Null => self.words.push(kind::NULL),
                Value::Bool(b) => self.words.push(if *b { kind::TRUE } else { kind::FALSE }),
                Value::Number(n) => {
                    self.words.push(kind::NUMBER);
                    self.numbers.push(n.as_f64().unwrap_or(0.0));
                }
                Value::String(text) => self.string(text),
                Value::Array(items) => {
                    let header = self.open(kind::ARRAY, items.len());
                    for item in items {
                        self.value(item, if level == 1 { 2 } else { 3 });
                    }
                    self.close(header);
                }
                Value::Object(members) => {
                    let header = self.open(kind::OBJECT, members.len());
                    for (name, item) in members {
                        self.string(name);
                        if ((level == 0 && self.top_held) || level == 2) && name == "structuredContent" {
                            self.hold(item);
                        } else {
                            self.value(item, if level == 0 && name == "outputs" { 1 } else { 3 });
                        }
                    }
                    self.close(header);
                }
            }
        }

        fn hold(&mut self, payload: &Value) {
            let is_object = if payload.is_object() { HELD_IS_OBJECT } else { 0 };
            let subjects = mcp_outputs::node::has_subjects::<mcp_outputs::node::SerdeJson>(&payload);
            let flags = is_object | if subjects { HELD_HAS_SUBJECTS } else { 0 };
            // Charged 8, as the npm package charges it (its writer bounds the payload's bytes).
            self.words.extend([kind::HELD, len32(self.held.len()), 8, flags]);
            self.held.push(payload.clone());
        }

        fn open(&mut self, found: u32, len: usize) -> [usize; 3] {
            self.words.extend([found, len32(len), 0, 0, 0]);
            [self.words.len(), self.numbers.len(), self.bytes.len()]
        }

        fn close(&mut self, [words, numbers, bytes]: [usize; 3]) {
            let extents = [self.words.len() - words, self.numbers.len() - numbers, self.bytes.len() - bytes];
            if let Some(slots) = self.words.get_mut(words - 3..words) {
                for (slot, extent) in slots.iter_mut().zip(extents) {
                    *slot = len32(extent);
                }
            }
        }
    }

    /// Runs `f` over `value`'s tape, its payloads held by the host for the call.
    fn on_tape<T>(
        value: &Value,
        top_held: bool,
        f: impl FnOnce(&Tape<'_>, &dyn Fn(&TapeNode<'_>) -> Value) -> mcp_outputs::Result<T>,
    ) -> mcp_outputs::Result<T> {
        let mut writer = Writer { top_held, ..Writer::default() };
        writer.value(value, 0);
        let tape = Tape::new(&writer.words, &writer.numbers, &writer.bytes)?;
        let held = writer.held;
        crate::host::HELD.with(|h| *h.borrow_mut() = held.clone());
        // An answer's held node is the caller's own payload, handed back (api.js, `answerReader`).
        let resolve = |node: &TapeNode<'_>| resolved(node, &held);
        let answer = f(&tape, &resolve);
        crate::host::HELD.with(|h| h.borrow_mut().clear());
        answer
    }

    fn resolved(node: &TapeNode<'_>, held: &[Value]) -> Value {
        use mcp_outputs::node::{Array as _, Node as _, Object as _};
        if let Some(h) = node.held() {
            return usize::try_from(h.slot).ok().and_then(|i| held.get(i)).cloned().unwrap_or(Value::Null);
        }
        if let Some(items) = node.as_array() {
            return Value::Array(items.elements().map(|item| resolved(&item, held)).collect());
        }
        if let Some(members) = node.as_object() {
            return Value::Object(
                members.members().map(|(k, v): (&str, TapeNode<'_>)| (k.to_owned(), resolved(&v, held))).collect(),
            );
        }
        mcp_outputs::node::to_value::<TapeJson>(node).into_owned()
    }

    /// Whether the npm package's writer would write `value` as a tape: only within the limits
    /// (else it is the text path's, whose faults the value path's are).
    fn written(value: &Value, limits: &Limits) -> bool {
        limits.check_value(value, "").is_ok()
    }

    impl Calls for HeldTape {
        fn check(&self, tool: &ReceivedTool, selectors: &[Selector], result: &Value) -> mcp_outputs::Result<Value> {
            if !written(result, tool.connection().limits()) {
                return AsValues.check(tool, selectors, result);
            }
            on_tape(result, true, |tape, _| {
                tool.check_node::<TapeJson, _>(selectors, tape.root(), &InPlace).map(|checked| checked.to_json())
            })
        }

        fn route(
            &self,
            tool: &ReceivedTool,
            selectors: &[Selector],
            rule: Option<&Audience>,
            result: &Value,
        ) -> mcp_outputs::Result<Value> {
            if !written(result, tool.connection().limits()) {
                return AsValues.route(tool, selectors, rule, result);
            }
            on_tape(result, true, |tape, resolve| {
                let checked = tool.check_node::<TapeJson, _>(selectors, tape.root(), &InPlace)?;
                Ok(tool.route_node(&checked, rule).to_out().to_value_with(resolve))
            })
        }

        fn assemble(
            &self,
            tool: &ServerTool,
            conn: &Connection,
            selectors: &[Selector],
            produced: &Value,
        ) -> mcp_outputs::Result<Value> {
            if !written(produced, conn.limits()) {
                return AsValues.assemble(tool, conn, selectors, produced);
            }
            on_tape(produced, false, |tape, resolve| {
                let out: Out<'_, TapeJson> =
                    tool.assemble_node::<TapeJson, _>(conn, selectors, tape.root(), &InPlace)?;
                Ok(out.to_value_with(resolve))
            })
        }
    }

    /// Every check, route, respond and scenario case run through [`HeldTape`] against its
    /// answer through values (`crate::run_op`), then the regex budget's cases
    /// ([`budget_cases`]): the ids of those that differ, and how many ran.
    pub fn differences(cases: &[crate::Case]) -> (Vec<String>, usize) {
        let corpus = cases
            .iter()
            .filter(|c| ["check", "route", "respond", "scenario"].contains(&c.op.as_str()))
            .map(|c| (c.id.clone(), c.op.clone(), c.input.clone()));
        let mut differ = Vec::new();
        let mut ran = 0;
        for (id, op, input) in corpus.chain(budget_cases()) {
            let values = crate::run_op(&op, &input);
            let host = std::rc::Rc::new(crate::host::Jsonschema::default());
            let held = mcp_outputs::schema::with_host(host, || {
                mcp_outputs::ops::run_with(&op, &input, Limits::default(), &HeldTape)
            });
            let same = match (&values, &held) {
                (Ok(a), Ok(b)) => a == b,
                (Err(a), Err(b)) => a.to_json() == b.to_json(),
                _ => false,
            };
            // The budget's cases must meet it exactly where the payload has something to match.
            let budget = id.strip_suffix(" (budget)").map(|_| {
                let refused = values.as_ref().err().is_some_and(|e| e.message().contains("regex budget"));
                refused == id.starts_with("refused")
            });
            if !same || budget == Some(false) {
                differ.push(format!("{id}: {values:?} against {held:?}"));
            }
            ran += 1;
        }
        (differ, ran)
    }

    /// A schema with a pattern that can backtrack without bound, and payloads with and without
    /// strings or member names (the held node's `HELD_HAS_SUBJECTS`), through check, route and
    /// respond: `(id, op, input)`, the id saying whether the budget refuses it.
    fn budget_cases() -> Vec<(String, String, Value)> {
        let schema = serde_json::json!({"properties": {"a": {"type": "string", "pattern": "^(a+)+$"}}});
        let tool = serde_json::json!({"name": "t", "inputSchema": {"type": "object"}, "outputVariants": [
            {"audience": "assistant", "format": "content"},
            {"audience": "programmatic", "format": "structured", "schema": schema},
        ]});
        let requested = serde_json::json!([{"audience": "programmatic", "format": "structured"}]);
        let payloads = [
            (serde_json::json!({}), false),
            (serde_json::json!([1, [null, true, [{}]]]), false),
            (serde_json::json!(null), false),
            (serde_json::json!({"a": "aaa"}), true),
            (serde_json::json!({"b": 1}), true),
            (serde_json::json!("s"), true),
            (serde_json::json!([[{"x": 1}]]), true),
        ];
        let mut cases = Vec::new();
        for (payload, refused) in payloads {
            let outputs =
                serde_json::json!([{"audience": "programmatic", "format": "structured", "structuredContent": payload}]);
            let result = serde_json::json!({"resultType": "complete", "outputs": outputs});
            let id = format!("{} {payload} (budget)", if refused { "refused" } else { "validated" });
            for op in ["check", "route"] {
                let input = serde_json::json!({"tool": tool, "requestedOutputs": requested, "result": result});
                cases.push((id.clone(), op.to_owned(), input));
            }
            let input =
                serde_json::json!({"tool": tool, "requestedOutputs": requested, "produced": {"outputs": outputs}});
            cases.push((id, "respond".to_owned(), input));
        }
        cases
    }
}
