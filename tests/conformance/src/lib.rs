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
            // This host holds no payload, and the runner's calls hand it values (`ops::run`);
            // text is parsed as a JavaScript validator's host parses it.
            let parsed;
            let instance = match instance {
                Instance::Value(value) => value,
                Instance::Text(text) => {
                    parsed = serde_json::from_str::<Value>(text)
                        .map_err(|e| mcp_outputs::Error::new(mcp_outputs::ErrorCode::Malformed, "", e.to_string()))?;
                    &parsed
                }
                Instance::Held(slot) => {
                    return Err(mcp_outputs::Error::new(
                        mcp_outputs::ErrorCode::Malformed,
                        "",
                        format!("no payload is held here (slot {slot})"),
                    ))
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
    }
}
