//! JSON Schema handling: each declared schema is compiled once into a [`CompiledSchema`] and
//! reused by every call. No I/O ever happens (SEC-3): a `$ref` that leaves the schema is
//! `external-ref`, never a fetch.

use crate::error::{Error, ErrorCode, Result};
use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, ReferencingError, Retrieve, Uri, ValidationOptions, Validator};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The dialects a schema may name in `$schema`; absent means 2020-12 (the MCP default).
const DIALECTS: &[(&str, Draft)] = &[
    ("https://json-schema.org/draft/2020-12/schema", Draft::Draft202012),
    ("https://json-schema.org/draft/2019-09/schema", Draft::Draft201909),
    ("http://json-schema.org/draft-07/schema", Draft::Draft7),
    ("http://json-schema.org/draft-06/schema", Draft::Draft6),
    ("http://json-schema.org/draft-04/schema", Draft::Draft4),
];

/// The per-match backtracking limits a validation may use, largest first, for the patterns that
/// need the backtracking engine (backreferences, lookaround). Every other pattern runs on the
/// linear-time engine. The first limit is the one a schema is compiled with.
pub const REGEX_MATCH_STEP_LIMITS: [usize; 3] = [10_000, 1_000, 100];

/// The regex budget of one validation, in backtracking steps (SEC-1): the backtracking patterns
/// of the schema, times the strings and member names of the value, times the per-match limit,
/// may not exceed it. The largest per-match limit that fits is used; when even the smallest does
/// not fit, or a match does not finish within its limit, the validation is `limit-exceeded`
/// (never `schema-violation`: the value was not shown invalid). See docs/limits.md.
pub const REGEX_STEP_BUDGET: usize = 10_000_000;

/// A schema compiled once, with the facts the projections need.
pub struct CompiledSchema {
    source: Value,
    validator: Arc<Validator>,
    object_rooted: bool,
    /// The backtracking patterns of the schema, when it has any (see [`REGEX_STEP_BUDGET`]).
    backtracking: Option<Arc<Backtracking>>,
}

/// A compiled schema as the per-thread cache keeps it.
#[derive(Clone)]
struct Compiled {
    validator: Arc<Validator>,
    backtracking: Option<Arc<Backtracking>>,
}

/// The patterns of a schema that need the backtracking engine, one per occurrence, and the
/// schema compiled at each per-match limit (built when first needed).
struct Backtracking {
    draft: Draft,
    patterns: Vec<String>,
    tiers: [OnceLock<Option<Tier>>; REGEX_MATCH_STEP_LIMITS.len()],
}

/// The backtracking patterns and the validator at one per-match limit.
struct Tier {
    regexes: Vec<fancy_regex::Regex>,
    validator: Arc<Validator>,
}

/// How many compiled validators each thread keeps (see [`cached_validator`]).
const VALIDATOR_CACHE_CAPACITY: usize = 512;

/// Schemas whose text is longer are compiled every time rather than kept, so the cache holds
/// at most `VALIDATOR_CACHE_CAPACITY` × 64 KiB of schema text (SEC-1).
const VALIDATOR_CACHE_MAX_SCHEMA_BYTES: usize = 64 * 1024;

thread_local! {
    /// Compiled validators by schema text, per thread. `jsonschema` checks every schema
    /// against its draft's meta-schema while compiling it; natively that meta-validator is
    /// built once per process, but on wasm targets jsonschema 0.61 rebuilds it for every
    /// compile (`meta::validator_for_draft` under `cfg(target_family = "wasm")`), which costs
    /// about 1.4 ms even for `{"type": "object"}` and has no public switch. The schemas a
    /// process sees repeat (a host accepts the same tools/list on every connection, servers
    /// reuse one result shape across tools), so each distinct schema text is compiled once.
    /// A `Validator` is immutable and its compilation depends on nothing but the schema
    /// (the options are constants of this module), so sharing one is exact. Bounded: when
    /// full, the cache is emptied and refills.
    static VALIDATORS: RefCell<HashMap<String, Compiled>> = RefCell::new(HashMap::new());
}

/// The validator for `schema` (whose text is `key`) from this thread's cache, or `build`'s
/// answer, cached when it is a validator. Errors are never cached.
fn cached_validator(key: String, build: impl FnOnce() -> Result<Compiled>) -> Result<Compiled> {
    if let Some(hit) = VALIDATORS.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(hit);
    }
    let validator = build()?;
    if key.len() > VALIDATOR_CACHE_MAX_SCHEMA_BYTES {
        return Ok(validator);
    }
    VALIDATORS.with(|c| {
        let mut cache = c.borrow_mut();
        if cache.len() >= VALIDATOR_CACHE_CAPACITY {
            cache.clear();
        }
        cache.insert(key, validator.clone());
    });
    Ok(validator)
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema").field("source", &self.source).finish_non_exhaustive()
    }
}

/// Refuses every retrieval and remembers that one was attempted, which is how a `$ref` that
/// leaves the schema is told apart from other compile errors.
struct RefuseRetrieval(Arc<AtomicBool>);

impl Retrieve for RefuseRetrieval {
    fn retrieve(&self, uri: &Uri<String>) -> std::result::Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        self.0.store(true, Ordering::Relaxed);
        Err(format!("external reference {uri} is not resolved: schemas are never fetched").into())
    }
}

/// Which regex engine runs `pattern` and `patternProperties`.
#[derive(Clone, Copy)]
enum Engine {
    /// The `regex` crate: linear time in the subject, so no pattern can be catastrophic.
    Linear,
    /// `fancy-regex` with a backtracking limit, for patterns the linear engine cannot express.
    Backtracking,
}

fn options(draft: Draft, attempted: &Arc<AtomicBool>, engine: Engine) -> ValidationOptions<'static> {
    options_at(draft, attempted, engine, REGEX_MATCH_STEP_LIMITS[0])
}

fn options_at(draft: Draft, attempted: &Arc<AtomicBool>, engine: Engine, limit: usize) -> ValidationOptions<'static> {
    let options = jsonschema::options()
        .with_draft(draft)
        .with_retriever(RefuseRetrieval(Arc::clone(attempted)))
        // `format` is an annotation (the 2020-12 default), identical in every build.
        .should_validate_formats(false);
    match engine {
        Engine::Linear => options.with_pattern_options(jsonschema::PatternOptions::regex()),
        Engine::Backtracking => {
            options.with_pattern_options(jsonschema::PatternOptions::fancy_regex().backtrack_limit(limit))
        }
    }
}

impl CompiledSchema {
    /// Compiles `schema`. `path` is the JSON Pointer of the schema, for errors.
    pub fn compile(schema: &Value, path: &str) -> Result<Self> {
        let draft = match schema {
            Value::Bool(_) => Draft::Draft202012,
            Value::Object(map) => dialect(map, path)?,
            _ => {
                return Err(Error::new(ErrorCode::InvalidSchema, path, "a JSON Schema must be an object or a boolean"))
            }
        };
        let Compiled { validator, backtracking } =
            cached_validator(schema.to_string(), || build_validator(schema, draft, path))?;
        Ok(CompiledSchema { object_rooted: is_object_rooted(schema), source: schema.clone(), validator, backtracking })
    }

    /// The schema as declared.
    pub fn source(&self) -> &Value {
        &self.source
    }

    /// Whether the root says `"type": "object"` (what 2025 revisions require of
    /// `outputSchema`).
    pub fn is_object_rooted(&self) -> bool {
        self.object_rooted
    }

    /// Whether `instance` is valid (`false` too when its regex budget runs out: see
    /// [`CompiledSchema::validate`]).
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator_for(instance, "").is_ok_and(|validator| validator.is_valid(instance))
    }

    /// The validator to run on `instance`: the schema's own, or for a schema with backtracking
    /// patterns, the one at the largest per-match limit the regex budget allows, once every
    /// backtracking match on the value's strings and member names has finished within it.
    fn validator_for(&self, instance: &Value, path: &str) -> Result<&Validator> {
        let Some(backtracking) = &self.backtracking else {
            return Ok(&self.validator);
        };
        let subjects = strings_and_names(instance);
        let matches = backtracking.patterns.len().saturating_mul(subjects.len());
        let over = |detail: String| {
            Error::new(ErrorCode::LimitExceeded, path, format!("regex budget of {REGEX_STEP_BUDGET} steps: {detail}"))
        };
        let Some(level) =
            REGEX_MATCH_STEP_LIMITS.iter().position(|limit| matches.saturating_mul(*limit) <= REGEX_STEP_BUDGET)
        else {
            return Err(over(format!("{matches} backtracking pattern matches would exceed it")));
        };
        let (Some(slot), Some(limit)) = (backtracking.tiers.get(level), REGEX_MATCH_STEP_LIMITS.get(level)) else {
            return Err(over("no per-match limit".to_owned()));
        };
        let tier = slot
            .get_or_init(|| backtracking.tier(&self.source, *limit))
            .as_ref()
            .ok_or_else(|| over("the schema could not be compiled at a lower per-match limit".to_owned()))?;
        // The validator runs the same patterns, translated alike, under the same limit: once each
        // match has finished here, none of its matches can run out, so it never runs the
        // validation again under assumed outcomes (jsonschema does, up to 64 times).
        for regex in &tier.regexes {
            for subject in &subjects {
                if regex.is_match(subject).is_err() {
                    return Err(over(format!(
                        "a match of the pattern {:?} did not finish within {limit} steps",
                        shorten(regex.as_str())
                    )));
                }
            }
        }
        Ok(&tier.validator)
    }

    /// Validates `instance`; the error names the first failing location below `path`.
    /// The fast path is one `is_valid`; error details are only computed on failure. A schema
    /// with backtracking patterns is validated within the regex budget ([`REGEX_STEP_BUDGET`]):
    /// running out of it is `limit-exceeded`.
    pub fn validate(&self, instance: &Value, path: &str, what: &str) -> Result<()> {
        let validator = self.validator_for(instance, path)?;
        if validator.is_valid(instance) {
            return Ok(());
        }
        let (location, detail) = match validator.validate(instance) {
            Err(e) => {
                // A match the engine could not finish decides nothing about the value.
                if matches!(
                    e.kind(),
                    ValidationErrorKind::BacktrackLimitExceeded { .. } | ValidationErrorKind::RegexEngineFailure { .. }
                ) {
                    return Err(Error::new(
                        ErrorCode::LimitExceeded,
                        format!("{path}{}", e.instance_path()),
                        format!("{what}: a regex match did not finish within its limit"),
                    ));
                }
                (e.instance_path().to_string(), e.to_string())
            }
            Ok(()) => (String::new(), "invalid".to_owned()),
        };
        Err(Error::new(
            ErrorCode::SchemaViolation,
            format!("{path}{location}"),
            format!("{what} does not match its schema: {detail}"),
        ))
    }
}

/// Compiles `schema` under `draft`: the linear regex engine first; a schema it refuses (a
/// pattern with a backreference or a lookaround, or a schema that is invalid anyway) is
/// compiled again with the backtracking engine, whose answer is final.
fn build_validator(schema: &Value, draft: Draft, path: &str) -> Result<Compiled> {
    let attempted = Arc::new(AtomicBool::new(false));
    let built = match options(draft, &attempted, Engine::Linear).build(schema) {
        Ok(validator) => Ok(Compiled { validator: Arc::new(validator), backtracking: None }),
        Err(_) => options(draft, &attempted, Engine::Backtracking).build(schema).map(|validator| {
            let patterns = backtracking_patterns(schema);
            let backtracking = (!patterns.is_empty())
                .then(|| Arc::new(Backtracking { draft, patterns, tiers: std::array::from_fn(|_| OnceLock::new()) }));
            Compiled { validator: Arc::new(validator), backtracking }
        }),
    };
    built.map_err(|e| {
        // A resource outside the schema that could not be retrieved is an external
        // reference even when the retriever was never asked (an external `$dynamicRef`
        // is resolved after the registry is built, without calling it).
        let unretrievable =
            matches!(e.kind(), ValidationErrorKind::Referencing(ReferencingError::Unretrievable { .. }));
        if attempted.load(Ordering::Relaxed) || unretrievable {
            Error::new(ErrorCode::ExternalRef, path, format!("schema refers outside itself: {e}"))
        } else {
            Error::new(ErrorCode::InvalidSchema, path, format!("not a valid JSON Schema: {e}"))
        }
    })
}

impl Backtracking {
    /// The schema and its backtracking patterns at the per-match `limit`; `None` if either does
    /// not compile (it compiled at the first limit, so this is not expected).
    fn tier(&self, schema: &Value, limit: usize) -> Option<Tier> {
        let regexes = self.patterns.iter().map(|p| backtracking_regex(p, limit)).collect::<Option<Vec<_>>>()?;
        let attempted = Arc::new(AtomicBool::new(false));
        let validator = options_at(self.draft, &attempted, Engine::Backtracking, limit).build(schema).ok()?;
        Some(Tier { regexes, validator: Arc::new(validator) })
    }
}

/// The `pattern` strings and `patternProperties` names anywhere in `schema` that the linear
/// engine cannot run, one per occurrence (each occurrence may be matched against every string).
/// Strings that only look like patterns (inside `const` or `enum`) are counted too: that
/// overstates the work, never understates it.
fn backtracking_patterns(schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    match (key.as_str(), item) {
                        ("pattern", Value::String(pattern)) => found.push(pattern.clone()),
                        ("patternProperties", Value::Object(properties)) => found.extend(properties.keys().cloned()),
                        _ => {}
                    }
                    stack.push(item);
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    found.retain(|pattern| backtracking_regex(pattern, REGEX_MATCH_STEP_LIMITS[0]).is_some());
    found
}

/// `pattern` compiled as jsonschema compiles it for the backtracking engine (the same
/// translation and search form) with the per-match `limit`, when it needs that engine; `None`
/// for a pattern the linear engine runs (or that does not compile).
fn backtracking_regex(pattern: &str, limit: usize) -> Option<fancy_regex::Regex> {
    let translated = jsonschema_regex::to_rust_regex(pattern).ok()?;
    let source = match jsonschema_regex::search_form(pattern, &translated) {
        Some(jsonschema_regex::Search::RepeatedClass(_)) => return None,
        Some(jsonschema_regex::Search::Collapsed(collapsed)) => collapsed,
        None => translated.into_owned(),
    };
    if regex::Regex::new(&source).is_ok() {
        return None;
    }
    fancy_regex::RegexBuilder::new(&source).backtrack_limit(limit).build().ok()
}

/// Every string and object member name in `value`, without recursion.
fn strings_and_names(value: &Value) -> Vec<&str> {
    let mut found = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(s) => found.push(s.as_str()),
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => {
                for (key, item) in members {
                    found.push(key.as_str());
                    stack.push(item);
                }
            }
            _ => {}
        }
    }
    found
}

/// A pattern cut to a length fit for an error message.
fn shorten(pattern: &str) -> String {
    const MAX: usize = 100;
    match pattern.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &pattern[..cut]),
        None => pattern.to_owned(),
    }
}

fn dialect(map: &Map<String, Value>, path: &str) -> Result<Draft> {
    match map.get("$schema") {
        None => Ok(Draft::Draft202012),
        Some(Value::String(uri)) => {
            let trimmed = uri.strip_suffix('#').unwrap_or(uri);
            DIALECTS.iter().find(|(known, _)| *known == trimmed).map(|(_, d)| *d).ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidSchema,
                    crate::error::pointer_push(path, "$schema"),
                    format!("unsupported JSON Schema dialect {uri:?}"),
                )
            })
        }
        Some(_) => Err(Error::new(
            ErrorCode::InvalidSchema,
            crate::error::pointer_push(path, "$schema"),
            "$schema must be a string",
        )),
    }
}

/// Whether the schema root has `"type": "object"`.
pub fn is_object_rooted(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// Wraps a schema that is not object-rooted as
/// `{"type":"object","properties":{"result":<schema>},"required":["result"]}` for the 2025
/// revisions: a root `$schema` moves to the wrapper, and same-document references `#/...`
/// inside are rewritten to `#/properties/result/...` so they still resolve.
pub fn wrap_schema(schema: &Value) -> Value {
    let mut inner = schema.clone();
    let dialect = inner.as_object_mut().and_then(|m| m.remove("$schema"));
    rewrite_refs(&mut inner);
    let mut wrapper = Map::new();
    if let Some(d) = dialect {
        wrapper.insert("$schema".into(), d);
    }
    wrapper.insert("type".into(), Value::from("object"));
    let mut properties = Map::new();
    properties.insert("result".into(), inner);
    wrapper.insert("properties".into(), Value::Object(properties));
    wrapper.insert("required".into(), Value::Array(vec![Value::from("result")]));
    Value::Object(wrapper)
}

fn rewrite_refs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                match item {
                    Value::String(target) if key == "$ref" || key == "$dynamicRef" => {
                        if target == "#" {
                            *target = "#/properties/result".to_owned();
                        } else if let Some(rest) = target.strip_prefix("#/") {
                            *target = format!("#/properties/result/{rest}");
                        }
                    }
                    _ => rewrite_refs(item),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(schema: Value) -> Option<ErrorCode> {
        CompiledSchema::compile(&schema, "/schema").err().map(|e| e.code())
    }

    #[test]
    fn external_refs_are_refused() {
        assert_eq!(code(json!({"$ref": "https://example.com/s.json"})), Some(ErrorCode::ExternalRef));
        assert_eq!(code(json!({"$ref": "other.json#/x"})), Some(ErrorCode::ExternalRef));
        assert_eq!(code(json!({"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"})), None);
    }

    #[test]
    fn dialects() {
        assert_eq!(code(json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"})), None);
        assert_eq!(code(json!({"$schema": "https://example.com/my-dialect"})), Some(ErrorCode::InvalidSchema));
        assert_eq!(code(json!({"type": 12})), Some(ErrorCode::InvalidSchema));
        assert_eq!(code(json!([])), Some(ErrorCode::InvalidSchema));
    }

    #[test]
    fn validators_are_compiled_once_per_schema_text() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "pattern": "^x"}}});
        let a = CompiledSchema::compile(&schema, "/a").expect("valid");
        let b = CompiledSchema::compile(&schema.clone(), "/b").expect("valid");
        assert!(Arc::ptr_eq(&a.validator, &b.validator), "the same schema text shares one validator");
        assert!(a.backtracking.is_none(), "a linear pattern needs no regex budget");
        let other = CompiledSchema::compile(&json!({"type": "object", "required": ["n"]}), "").expect("valid");
        assert!(!Arc::ptr_eq(&a.validator, &other.validator));
        assert!(b.is_valid(&json!({"n": 1})) && !b.is_valid(&json!({"n": "1"})));
        assert!(other.is_valid(&json!({"n": 1})) && !other.is_valid(&json!({})));
        // Errors are not cached: each compile reports its own path.
        let first = CompiledSchema::compile(&json!({"type": 12}), "/first").expect_err("invalid");
        let second = CompiledSchema::compile(&json!({"type": 12}), "/second").expect_err("invalid");
        assert_eq!((first.path(), second.path()), ("/first", "/second"));
        // Bounded: past the capacity the cache refills, and answers stay right.
        for i in 0..(VALIDATOR_CACHE_CAPACITY + 10) {
            let c = CompiledSchema::compile(&json!({"maximum": i}), "").expect("valid");
            assert!(c.is_valid(&json!(i)) && !c.is_valid(&json!(i + 1)));
        }
        assert!(VALIDATORS.with(|c| c.borrow().len()) <= VALIDATOR_CACHE_CAPACITY);
        let big = json!({"enum": [("x".repeat(VALIDATOR_CACHE_MAX_SCHEMA_BYTES))]});
        let (x, y) =
            (CompiledSchema::compile(&big, "").expect("valid"), CompiledSchema::compile(&big, "").expect("valid"));
        assert!(!Arc::ptr_eq(&x.validator, &y.validator), "a schema over the byte bound is not kept");
        assert!(x.is_valid(&json!("x".repeat(VALIDATOR_CACHE_MAX_SCHEMA_BYTES))) && !y.is_valid(&json!("x")));
        let again = CompiledSchema::compile(&schema, "").expect("valid");
        assert!(again.is_valid(&json!({"n": 2})) && !again.is_valid(&json!({"n": []})));
    }

    #[test]
    fn wrap_rewrites_refs() {
        let wrapped = wrap_schema(&json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "array", "items": {"$ref": "#/$defs/row"}, "$defs": {"row": {"type": "string"}}
        }));
        assert_eq!(wrapped["$schema"], json!("https://json-schema.org/draft/2020-12/schema"));
        assert_eq!(wrapped["properties"]["result"]["items"]["$ref"], json!("#/properties/result/$defs/row"));
        let compiled = CompiledSchema::compile(&wrapped, "").map_err(|e| e.to_string());
        assert!(compiled.is_ok_and(|c| c.is_valid(&json!({"result": ["a"]})) && !c.is_valid(&json!({"result": [1]}))));
    }
}
