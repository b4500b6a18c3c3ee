//! JSON Schema handling: each declared schema is compiled once into a [`CompiledSchema`] and
//! reused by every call. No I/O ever happens (SEC-3): a `$ref` that leaves the schema is
//! `external-ref`, never a fetch.
//!
//! With the `validator` feature (the default) the core validates payloads itself, with
//! `jsonschema`. Without it (the npm package's default build, which leaves validation to the
//! JSON Schema validator its caller already uses) every schema is still checked here, by a
//! direct reading of its dialect's meta-schema and of its references ([`meta`]); a binding
//! answers the rest through [`SchemaHost`]: whether a pattern is a valid regular expression,
//! building a validator, and validating. See "Builds without a validator" below.

use crate::error::{Error, ErrorCode, Result};
#[cfg(feature = "validator")]
use jsonschema::error::ValidationErrorKind;
#[cfg(feature = "validator")]
use jsonschema::json::{Json, SerdeJson};
#[cfg(feature = "validator")]
use jsonschema::meta::MetaValidator;
#[cfg(feature = "validator")]
use jsonschema::{Draft, ReferencingError, Retrieve, Uri, ValidationOptions, Validator};
use serde_json::{Map, Value};
#[cfg(feature = "validator")]
use std::any::Any;
#[cfg(feature = "validator")]
use std::cell::{OnceCell, RefCell};
#[cfg(feature = "validator")]
use std::collections::HashMap;
use std::fmt;
#[cfg(feature = "validator")]
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicU64, Ordering};
#[cfg(feature = "validator")]
use std::sync::Arc;
use std::sync::OnceLock;

/// A JSON Schema dialect the core knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// 2020-12, the default when `$schema` is absent (the MCP default).
    Draft202012,
    /// 2019-09.
    Draft201909,
    /// Draft 7.
    Draft7,
    /// Draft 6.
    Draft6,
    /// Draft 4.
    Draft4,
}

impl Dialect {
    /// The dialect's meta-schema URI, as `$schema` names it (without the empty fragment).
    pub fn uri(self) -> &'static str {
        DIALECTS.iter().find(|(_, d)| *d == self).map_or("", |(uri, _)| uri)
    }
}

/// The dialects a schema may name in `$schema`; absent means 2020-12 (the MCP default).
const DIALECTS: &[(&str, Dialect)] = &[
    ("https://json-schema.org/draft/2020-12/schema", Dialect::Draft202012),
    ("https://json-schema.org/draft/2019-09/schema", Dialect::Draft201909),
    ("http://json-schema.org/draft-07/schema", Dialect::Draft7),
    ("http://json-schema.org/draft-06/schema", Dialect::Draft6),
    ("http://json-schema.org/draft-04/schema", Dialect::Draft4),
];

/// jsonschema's name for a dialect.
#[cfg(feature = "validator")]
fn draft_of(dialect: Dialect) -> Draft {
    match dialect {
        Dialect::Draft202012 => Draft::Draft202012,
        Dialect::Draft201909 => Draft::Draft201909,
        Dialect::Draft7 => Draft::Draft7,
        Dialect::Draft6 => Draft::Draft6,
        Dialect::Draft4 => Draft::Draft4,
    }
}

/// The identity of each [`CompiledSchema`] made in this process, so that a binding keeping
/// validators of its own (a JavaScript provider's) can name them without sending the schema.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

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

/// A declared schema, checked, with the facts the projections need and its validator: built at
/// once by [`CompiledSchema::compile`] (a server wants its own faults at `declare`), or on the
/// first validation for a schema received by a host ([`CompiledSchema::received`]).
pub struct CompiledSchema {
    source: Value,
    /// The JSON Pointer of the schema in what declared it, for a failure of the deferred build.
    path: String,
    draft: Dialect,
    object_rooted: bool,
    /// The most schema levels a validation recurses through per level of a value
    /// ([`crate::validation_work::Work`]): the stack it needs ([`crate::stack`]).
    frames_per_level: usize,
    /// The schema's own JSON nesting: the stack building and dropping it needs.
    schema_depth: usize,
    /// Unique in this process ([`CompiledSchema::id`]).
    id: u64,
    /// The validator, built once: at once, or by the first validation that needs it. A failure
    /// is kept too, so every call answers alike.
    #[cfg(feature = "validator")]
    compiled: OnceLock<Result<Compiled>>,
    /// A validator for instances in a binding's own representation ([`CompiledSchema::validator_in`]),
    /// built by the first validation that asks for it; `None` when the schema cannot have one.
    #[cfg(feature = "validator")]
    foreign: OnceLock<Option<Box<dyn Any + Send + Sync>>>,
    /// Without a validator: the [`SchemaHost`]'s verdict on building one, once asked.
    #[cfg(not(feature = "validator"))]
    built: OnceLock<Result<()>>,
    /// Without a validator: the first pattern whose matching work cannot be bounded
    /// ([`regex_screen::is_bounded`]), when the schema has one.
    #[cfg(not(feature = "validator"))]
    unbounded: Option<String>,
}

/// A compiled schema as the per-thread cache keeps it.
#[cfg(feature = "validator")]
#[derive(Clone)]
struct Compiled {
    validator: Arc<Validator>,
    /// The backtracking patterns of the schema, when it has any (see [`REGEX_STEP_BUDGET`]).
    backtracking: Option<Arc<Backtracking>>,
}

#[cfg(feature = "validator")]
/// The patterns of a schema that need the backtracking engine, one per occurrence, and the
/// schema compiled at each per-match limit (built when first needed).
struct Backtracking {
    draft: Draft,
    patterns: Vec<String>,
    tiers: [OnceLock<Option<Tier>>; REGEX_MATCH_STEP_LIMITS.len()],
}

#[cfg(feature = "validator")]
/// The backtracking patterns and the validator at one per-match limit.
struct Tier {
    regexes: Vec<fancy_regex::Regex>,
    validator: Arc<Validator>,
}

#[cfg(feature = "validator")]
/// How many compiled validators each thread keeps (see [`cached_validator`]).
const VALIDATOR_CACHE_CAPACITY: usize = 512;

#[cfg(feature = "validator")]
/// Schemas whose text is longer are compiled every time rather than kept, so the cache holds
/// at most `VALIDATOR_CACHE_CAPACITY` × 64 KiB of schema text (SEC-1).
const VALIDATOR_CACHE_MAX_SCHEMA_BYTES: usize = 64 * 1024;

#[cfg(feature = "validator")]
/// Schemas nested deeper are compiled every time rather than kept (see [`cached_validator`]):
/// dropping one this deep needs well under 64 KiB of stack.
const VALIDATOR_CACHE_MAX_SCHEMA_DEPTH: usize = 32;

#[cfg(feature = "validator")]
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

#[cfg(feature = "validator")]
/// The validator for `schema` (whose text is `key`) from this thread's cache, or `build`'s
/// answer, cached when it is a validator. Errors are never cached.
fn cached_validator(key: String, depth: usize, build: impl FnOnce() -> Result<Compiled>) -> Result<Compiled> {
    if let Some(hit) = VALIDATORS.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(hit);
    }
    let validator = build()?;
    // A deep schema's validator is not kept: the cache is dropped when its thread ends, outside
    // the room on the stack that dropping it needs (`crate::stack`), and on whatever stack that
    // thread has. Its owners drop it with that room.
    if key.len() > VALIDATOR_CACHE_MAX_SCHEMA_BYTES || depth > VALIDATOR_CACHE_MAX_SCHEMA_DEPTH {
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

impl Drop for CompiledSchema {
    /// Dropping the schema and its validator recurses over them: done with the room that
    /// building them had, whatever stack the last owner drops them on.
    fn drop(&mut self) {
        let source = std::mem::take(&mut self.source);
        #[cfg(feature = "validator")]
        let validators = (std::mem::take(&mut self.compiled), std::mem::take(&mut self.foreign));
        crate::stack::with_room(crate::stack::schema_bytes(self.schema_depth), move || {
            drop(source);
            #[cfg(feature = "validator")]
            drop(validators);
        });
    }
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema").field("source", &self.source).finish_non_exhaustive()
    }
}

#[cfg(feature = "validator")]
/// Refuses every retrieval and remembers that one was attempted, which is how a `$ref` that
/// leaves the schema is told apart from other compile errors.
struct RefuseRetrieval(Arc<AtomicBool>);

#[cfg(feature = "validator")]
impl Retrieve for RefuseRetrieval {
    fn retrieve(&self, uri: &Uri<String>) -> std::result::Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        self.0.store(true, Ordering::Relaxed);
        Err(format!("external reference {uri} is not resolved: schemas are never fetched").into())
    }
}

#[cfg(feature = "validator")]
/// Which regex engine runs `pattern` and `patternProperties`.
#[derive(Clone, Copy)]
enum Engine {
    /// The `regex` crate: linear time in the subject, so no pattern can be catastrophic.
    Linear,
    /// `fancy-regex` with a backtracking limit, for patterns the linear engine cannot express.
    Backtracking,
}

#[cfg(feature = "validator")]
fn options(draft: Draft, attempted: &Arc<AtomicBool>, engine: Engine) -> ValidationOptions<'static> {
    options_at(draft, attempted, engine, REGEX_MATCH_STEP_LIMITS[0])
}

#[cfg(feature = "validator")]
fn options_at(draft: Draft, attempted: &Arc<AtomicBool>, engine: Engine, limit: usize) -> ValidationOptions<'static> {
    options_in::<SerdeJson>(draft, attempted, engine, limit)
}

#[cfg(feature = "validator")]
/// The options of every validator of a schema, for instances in the representation `F`: one
/// place, so that a binding's validator judges exactly as the core's own.
fn options_in<F: Json>(
    draft: Draft,
    attempted: &Arc<AtomicBool>,
    engine: Engine,
    limit: usize,
) -> ValidationOptions<'static, Arc<dyn Retrieve>, F> {
    let options = jsonschema::options_for::<F>()
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
    /// Checks and compiles `schema` now (a server's `declare`: authors want errors early).
    /// `path` is the JSON Pointer of the schema, for errors.
    pub fn compile(schema: &Value, path: &str) -> Result<Self> {
        let checked = Self::received(schema, path)?;
        checked.build()?;
        Ok(checked)
    }

    /// The schema, not yet checked.
    fn unchecked(schema: &Value, path: &str) -> Result<Self> {
        let draft = match schema {
            Value::Bool(_) => Dialect::Draft202012,
            Value::Object(map) => dialect(map, path)?,
            _ => {
                return Err(Error::new(ErrorCode::InvalidSchema, path, "a JSON Schema must be an object or a boolean"))
            }
        };
        Ok(CompiledSchema {
            object_rooted: is_object_rooted(schema),
            frames_per_level: 1,
            schema_depth: crate::stack::json_depth(schema),
            source: schema.clone(),
            path: path.to_owned(),
            draft,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            #[cfg(feature = "validator")]
            compiled: OnceLock::new(),
            #[cfg(feature = "validator")]
            foreign: OnceLock::new(),
            #[cfg(not(feature = "validator"))]
            built: OnceLock::new(),
            #[cfg(not(feature = "validator"))]
            unbounded: None,
        })
    }

    /// This schema's identity, unique in the process: a binding that keeps validators of its
    /// own ([`SchemaHost`]) keys them by it.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The schema's dialect (from its `$schema`; 2020-12 when absent).
    pub fn dialect(&self) -> Dialect {
        self.draft
    }

    /// The JSON Pointer of the schema in what declared it.
    pub fn path(&self) -> &str {
        &self.path
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

    /// Validates with a validator other than the core's (the [`SchemaHost`]'s, or a binding's
    /// on a payload it holds): `validate` answers the violation, `None` when valid; the error's
    /// path is `path` and the violation's location below it (when it is a JSON Pointer).
    /// `has_subjects`: whether the value has strings or member names for patterns to match.
    pub fn validate_by(
        &self,
        has_subjects: bool,
        path: &str,
        what: &str,
        validate: impl FnOnce() -> Result<Option<Violation>>,
    ) -> Result<()> {
        // The order every validation reports in: the schema's own fault, then regex work this
        // build cannot bound (before anything runs), then the validator's verdict.
        self.build()?;
        self.check_regex_work(has_subjects, path)?;
        self.judged(validate()?, path, what)
    }

    /// The error of a validation's verdict (see [`CompiledSchema::validate_by`]).
    pub fn judged(&self, violation: Option<Violation>, path: &str, what: &str) -> Result<()> {
        match violation {
            None => Ok(()),
            Some(Violation { detail, at }) => {
                let below = if at.is_empty() || at.starts_with('/') { at.as_str() } else { "" };
                Err(Error::new(
                    ErrorCode::SchemaViolation,
                    format!("{path}{below}"),
                    format!("{what} does not match its schema: {detail}"),
                ))
            }
        }
    }
}

#[cfg(feature = "validator")]
impl CompiledSchema {
    /// Builds the validator once (see [`CompiledSchema::received`]).
    pub fn build(&self) -> Result<()> {
        self.compiled().map(|_| ())
    }

    /// With the core's validator, a validation's regex work is bounded by its regex budget
    /// (see [`REGEX_STEP_BUDGET`]): nothing to refuse beforehand.
    pub fn check_regex_work(&self, _has_subjects: bool, _path: &str) -> Result<()> {
        Ok(())
    }

    /// Checks `schema` as [`CompiledSchema::compile`] does, with the same errors, but leaves
    /// building its validator to the first validation (a host accepting a large tools/list
    /// would otherwise compile schemas it may never use). The check runs the meta-schema and
    /// proves that the build cannot fail (see [`Check`]); a schema it cannot prove so is
    /// compiled here, so no fault `compile` reports is left for later.
    pub fn received(schema: &Value, path: &str) -> Result<Self> {
        // The meta-schema check and the build recurse over the schema.
        let room = crate::stack::schema_bytes(crate::stack::json_depth(schema));
        crate::stack::with_room(room, || Self::received_here(schema, path))
    }

    fn received_here(schema: &Value, path: &str) -> Result<Self> {
        let checked = Self::unchecked(schema, path)?;
        let draft = draft_of(checked.draft);
        match check(schema, draft, path)? {
            Check::Builds => {}
            Check::Build => {
                let built =
                    cached_validator(schema.to_string(), checked.schema_depth, || build_validator(schema, draft, path));
                // Set before anyone else can see the schema, so this cannot fail.
                let _ = checked.compiled.set(Ok(built?));
            }
        }
        // Last, as in the build without a validator: a schema is judged valid first (SEC-4).
        let mut checked = checked;
        checked.frames_per_level = crate::validation_work::check(schema, path)?.frames_per_level;
        Ok(checked)
    }

    /// The validator, built on first need. A build the check proved cannot fail is not expected
    /// to; should it, the error is `invalid-schema` at the schema's own path, on every call.
    fn compiled(&self) -> Result<&Compiled> {
        self.compiled
            .get_or_init(|| {
                // Writing the cache key and building both recurse over the schema.
                crate::stack::with_room(crate::stack::schema_bytes(self.schema_depth), || {
                    cached_validator(self.source.to_string(), self.schema_depth, || {
                        build_validator(&self.source, draft_of(self.draft), &self.path)
                    })
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Whether the validator has been built (tests, and hosts that want to know what a first
    /// validation will cost).
    pub fn is_compiled(&self) -> bool {
        self.compiled.get().is_some()
    }

    /// Whether `instance` is valid (`false` too when its regex budget runs out: see
    /// [`CompiledSchema::validate`]).
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.with_stack(
            || crate::stack::json_depth(instance),
            "",
            || Ok(self.validator_for(instance, "").is_ok_and(|validator| validator.is_valid(instance))),
        )
        .unwrap_or(false)
    }

    /// Runs a validation with the stack it needs (see [`crate::stack`]): natively on a segment
    /// with room for [`crate::limits::MAX_DEPTH_CEILING`] levels of value; on wasm, refused as
    /// `limit-exceeded` when the value (`depth`, asked only then) would recurse deeper than
    /// the engine's stack holds.
    fn with_stack<R>(&self, depth: impl FnOnce() -> usize, path: &str, f: impl FnOnce() -> Result<R>) -> Result<R> {
        use crate::limits::MAX_DEPTH_CEILING;
        if cfg!(target_arch = "wasm32") && !crate::stack::fits_on_wasm(MAX_DEPTH_CEILING, self.frames_per_level) {
            let levels = depth();
            if !crate::stack::fits_on_wasm(levels, self.frames_per_level) {
                return Err(Error::new(
                    ErrorCode::LimitExceeded,
                    path,
                    format!(
                        "stack: {levels} levels of value through {} schema levels each exceed the {} that a wasm \
                         engine's stack holds",
                        self.frames_per_level,
                        crate::stack::WASM_SCHEMA_LEVELS
                    ),
                ));
            }
        }
        crate::stack::with_room(crate::stack::validation_bytes(MAX_DEPTH_CEILING, self.frames_per_level), f)
    }

    /// The validator to run on `instance`: the schema's own, or for a schema with backtracking
    /// patterns, the one at the largest per-match limit the regex budget allows, once every
    /// backtracking match on the value's strings and member names has finished within it.
    fn validator_for(&self, instance: &Value, path: &str) -> Result<&Validator> {
        let compiled = self.compiled()?;
        let Some(backtracking) = &compiled.backtracking else {
            return Ok(&compiled.validator);
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
        self.with_stack(
            || crate::stack::json_depth(instance),
            path,
            || {
                let validator = self.validator_for(instance, path)?;
                verdict(validator, instance, path, what)
            },
        )
    }

    /// A validator of this schema for instances in the representation `F` (a binding's own
    /// objects, validated where they are: see `crate::payload`), built with the options of the
    /// schema's own validator the first time it is asked for, and kept with the schema. `None`
    /// when the schema has backtracking patterns (their regex budget is counted over the strings
    /// of a `Value`: such payloads are validated as values), or when this schema already keeps
    /// a validator for another representation. A fault of the schema is the error
    /// [`CompiledSchema::validate`] reports.
    pub fn validator_in<F: Json>(&self) -> Result<Option<&Validator<F>>>
    where
        Validator<F>: Send + Sync,
    {
        let compiled = self.compiled()?;
        let foreign = self.foreign.get_or_init(|| {
            if compiled.backtracking.is_some() {
                return None;
            }
            let attempted = Arc::new(AtomicBool::new(false));
            let options = options_in::<F>(draft_of(self.draft), &attempted, Engine::Linear, REGEX_MATCH_STEP_LIMITS[0]);
            // The schema's own build succeeded on the linear engine with these options, so this
            // one is not expected to fail; should it, the payload is validated as a value.
            let validator = options.build(&self.source).ok()?;
            Some(Box::new(validator) as Box<dyn Any + Send + Sync>)
        });
        Ok(foreign.as_ref().and_then(|boxed| boxed.downcast_ref::<Validator<F>>()))
    }

    /// [`CompiledSchema::validate`] for an instance in the representation of `validator` (from
    /// [`CompiledSchema::validator_in`]): the same errors.
    pub fn validate_in<'i, F: Json>(
        &self,
        validator: &Validator<F>,
        instance: F::Node<'i>,
        path: &str,
        what: &str,
    ) -> Result<()> {
        // The depth is measured only for a schema that does not fit at the ceiling (wasm).
        let depth = || crate::stack::node_depth::<F>(&instance);
        self.with_stack(depth, path, || verdict(validator, instance.clone(), path, what))
    }
}

// ---- Builds without a validator ----------------------------------------------------------------
//
// The npm package's default build leaves payload validation to the JSON Schema validator its
// caller already uses (Ajv, @cfworker/json-schema: see bindings-js). The core still rules on
// every schema it is given, with the same codes: the dialect, the direct reading of the
// meta-schema and of the references ([`meta::read`]), and each pattern, which the binding
// judges as its validator will (JSON Schema patterns are ECMA-262 regular expressions). What
// the reading does not settle goes to the binding's validator, which builds it or refuses it
// (`invalid-schema`). A server's schemas are built at `declare`; a host's on first use.

/// What a build without the `validator` feature asks of its binding about schemas. (Defined in
/// every build, so that a binding compiles whatever features a workspace unifies; a build with
/// the validator never asks.)
pub trait SchemaHost {
    /// Whether `pattern` is a regular expression the binding's validator accepts.
    fn pattern_is_valid(&self, pattern: &str) -> bool;

    /// Whether the binding has a validator for this call at all: a schema is refused with
    /// `missing-validator` where it is first read, rather than `invalid-schema` at its first use.
    fn has_validator(&self) -> bool {
        true
    }

    /// Builds the binding's validator of `schema` (keyed by [`CompiledSchema::id`]); the
    /// message says why it cannot.
    fn build(&self, schema: &CompiledSchema) -> std::result::Result<(), String>;

    /// Validates `instance` against the built `schema`: `None` when valid, else the
    /// [`Violation`]. An error is the binding's own fault (its validator threw), with the code
    /// the binding gives it.
    fn validate(&self, schema: &CompiledSchema, instance: Instance<'_>) -> Result<Option<Violation>>;

    /// The text of the payload the binding holds in `slot` of the call in progress, as
    /// `JSON.stringify` writes it (the legacy mirror); `None` for a host that holds none.
    fn held_text(&self, _slot: u32) -> Option<String> {
        None
    }
}

/// What a [`SchemaHost`] validates: the instance in the form the core has it.
#[derive(Clone, Copy, Debug)]
pub enum Instance<'a> {
    /// A value the core holds (the Rust API's, `ops::run`'s).
    Value(&'a Value),
    /// A payload as JSON text, written from where it lies (`node::stringify`: no value built),
    /// for a host that validates outside the core (a JavaScript validator parses it).
    Text(&'a str),
    /// The payload the binding holds in this slot of the call in progress (a tape's held node:
    /// `crate::tape`), which never crossed into the core.
    Held(u32),
}

/// What a binding's validator found wrong with a value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Violation {
    /// What fails, in the validator's words.
    pub detail: String,
    /// Where, as a JSON Pointer below the value (`""` when the validator does not say).
    pub at: String,
}

thread_local! {
    /// The host answering for this thread's schemas during a call ([`with_host`]).
    static HOST: std::cell::RefCell<Option<std::rc::Rc<dyn SchemaHost>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with `host` answering for the schemas this thread checks, builds and validates (a
/// binding wraps each call); the previous host is back afterwards, also when `f` unwinds.
pub fn with_host<R>(host: std::rc::Rc<dyn SchemaHost>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<std::rc::Rc<dyn SchemaHost>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            HOST.with(|h| *h.borrow_mut() = previous);
        }
    }
    let _restore = Restore(HOST.with(|h| h.replace(Some(host))));
    f()
}

/// Refuses a schema when this build has no validator and the caller gave none: said where the
/// schema is read, with its own code, not as an `invalid-schema` at its first use.
#[cfg(not(feature = "validator"))]
fn require_validator(path: &str) -> Result<()> {
    let present = HOST.with(|h| h.borrow().as_ref().is_some_and(|host| host.has_validator()));
    if present {
        Ok(())
    } else {
        Err(Error::new(
            ErrorCode::MissingValidator,
            path,
            "this build of mcp-outputs has no JSON Schema validator of its own, and none was given: pass \
             options.validator (or call setValidator) with a getValidator(schema) provider, e.g. Ajv or \
             @cfworker/json-schema, or use the full entry",
        ))
    }
}

#[cfg(not(feature = "validator"))]
fn current_host(path: &str) -> Result<std::rc::Rc<dyn SchemaHost>> {
    HOST.with(|h| h.borrow().clone()).ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidSchema,
            path,
            "this build of mcp-outputs has no JSON Schema validator, and none was given to check or apply this schema",
        )
    })
}

#[cfg(not(feature = "validator"))]
impl CompiledSchema {
    /// Checks `schema` as [`CompiledSchema::compile`] does, with the same errors, leaving the
    /// host's validator to its first use unless the direct reading cannot settle the schema.
    pub fn received(schema: &Value, path: &str) -> Result<Self> {
        // The meta-schema check and the build recurse over the schema.
        let room = crate::stack::schema_bytes(crate::stack::json_depth(schema));
        crate::stack::with_room(room, || Self::received_here(schema, path))
    }

    fn received_here(schema: &Value, path: &str) -> Result<Self> {
        let mut checked = Self::unchecked(schema, path)?;
        let verdict = meta::read(schema, checked.draft);
        match verdict {
            meta::Verdict::Invalid(at, what) => {
                return Err(Error::new(
                    ErrorCode::InvalidSchema,
                    path,
                    format!("not a valid JSON Schema: {} at {at:?}", what),
                ))
            }
            meta::Verdict::ExternalRef(_, what) => {
                return Err(Error::new(ErrorCode::ExternalRef, path, format!("schema refers outside itself: {}", what)))
            }
            meta::Verdict::Unresolvable(at, what) => {
                return Err(Error::new(
                    ErrorCode::InvalidSchema,
                    path,
                    format!("not a valid JSON Schema: {what} at {at:?}"),
                ))
            }
            meta::Verdict::Valid | meta::Verdict::Unsure => {}
        }
        // What the direct reading settles is said first; a schema it cannot fault needs a validator.
        require_validator(path)?;
        let patterns = meta::patterns(schema, checked.draft);
        if !patterns.is_empty() {
            let host = current_host(path)?;
            if let Some((at, pattern)) = patterns.iter().find(|(_, p)| !host.pattern_is_valid(p)) {
                return Err(Error::new(
                    ErrorCode::InvalidSchema,
                    path,
                    format!("not a valid JSON Schema: {:?} at {at:?} is not a regular expression", pattern),
                ));
            }
        }
        checked.unbounded =
            patterns.into_iter().map(|(_, pattern)| pattern).find(|pattern| !regex_screen::is_bounded(pattern));
        if verdict == meta::Verdict::Unsure {
            checked.build()?;
        }
        // Checked on the schema alone, so that the caller's validator, which nothing can
        // interrupt, never sees a value for a schema whose work is unbounded (SEC-4).
        checked.frames_per_level = crate::validation_work::check(schema, path)?.frames_per_level;
        Ok(checked)
    }

    /// Refuses a validation whose regex work this build cannot bound (SEC-1): a schema with a
    /// pattern that can backtrack without bound ([`regex_screen`]), on a value with strings or
    /// member names for it to match (`has_subjects`). The binding's validator runs patterns on a
    /// backtracking engine with no step limit, so such a validation is `limit-exceeded` here,
    /// never run (the `validator` build runs it within its regex budget).
    pub fn check_regex_work(&self, has_subjects: bool, path: &str) -> Result<()> {
        match &self.unbounded {
            Some(pattern) if has_subjects => Err(Error::new(
                ErrorCode::LimitExceeded,
                path,
                format!(
                    "regex budget: the pattern {pattern:?} can backtrack without bound, and this build's validator \
                     cannot limit its work (a build with the core's validator, mcp-outputs/full, can)"
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Builds the host's validator once; a failure is kept, so every call answers alike.
    pub fn build(&self) -> Result<()> {
        self.built
            .get_or_init(|| {
                let host = current_host(&self.path)?;
                host.build(self).map_err(|why| {
                    Error::new(ErrorCode::InvalidSchema, &self.path, format!("not a valid JSON Schema: {why}"))
                })
            })
            .clone()
    }

    /// Whether the host's validator has been built (or refused).
    pub fn is_compiled(&self) -> bool {
        self.built.get().is_some()
    }

    /// Whether `instance` is valid.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validate(instance, "", "").is_ok()
    }

    /// Validates `instance` with the host's validator; the error is at `path`.
    pub fn validate(&self, instance: &Value, path: &str, what: &str) -> Result<()> {
        let has_subjects = crate::node::has_subjects::<crate::node::SerdeJson>(&instance);
        self.validate_hosted(has_subjects, path, what, |host| host.validate(self, Instance::Value(instance)))
    }

    /// [`CompiledSchema::validate_by`] with the host's verdict: `ask` puts the instance to the
    /// host in the form the caller has it (`node::validate`). One rule places the host's faults,
    /// whatever form the instance crossed in (a held payload's slot, its text, a value): a schema
    /// the host refuses is the schema's fault, at the schema's path; the host's own failure on
    /// this instance (its validator threw, ran out of stack, answered in another shape) is placed
    /// where the instance is, as its verdict would be.
    pub(crate) fn validate_hosted(
        &self,
        has_subjects: bool,
        path: &str,
        what: &str,
        ask: impl FnOnce(&dyn SchemaHost) -> Result<Option<Violation>>,
    ) -> Result<()> {
        self.validate_by(has_subjects, path, what, || {
            ask(&*current_host(&self.path)?).map_err(|fault| match fault.code() {
                ErrorCode::InvalidSchema | ErrorCode::ExternalRef => fault,
                code => Error::new(code, path, fault.message()),
            })
        })
    }
}

/// The text of the payload the host of this call holds in `slot` (`node::stringify`).
#[cfg(not(feature = "validator"))]
pub(crate) fn held_text(slot: u32) -> Option<String> {
    HOST.with(|h| h.borrow().clone()).and_then(|host| host.held_text(slot))
}

/// A syntactic screen of ECMA-262 patterns, for builds whose validator runs them on a
/// backtracking engine without a step limit (a JavaScript validator). A pattern is bounded
/// unless it has a backreference, or a repeated group that itself holds a repetition or an
/// alternation (`(a+)+`, `(a|a)*`, `(\w+\s?)*`): the forms whose matching time can grow
/// exponentially with the subject. (Polynomial forms such as `.*.*=.*` pass: their cost is
/// bounded by the size limits.) Conservative both ways only in the direction of refusing.
pub mod regex_screen {
    /// What a group holds, as far as the screen cares.
    #[derive(Default)]
    struct Group {
        repeats: bool,
        alternates: bool,
    }

    /// Whether `pattern` is free of the exponential forms above.
    pub fn is_bounded(pattern: &str) -> bool {
        let chars: Vec<char> = pattern.chars().collect();
        let mut stack = vec![Group::default()];
        // What the last atom was: a group (with its contents), or anything else.
        let mut last_group: Option<Group> = None;
        let mut i = 0;
        while let Some(&c) = chars.get(i) {
            i += 1;
            match c {
                '\\' => {
                    let next = chars.get(i).copied();
                    i += 1;
                    if next.is_some_and(|n| n.is_ascii_digit() && n != '0') || next == Some('k') {
                        return false;
                    }
                    last_group = None;
                }
                '[' => {
                    // A class: skip to its closing bracket.
                    while let Some(&k) = chars.get(i) {
                        i += 1;
                        if k == '\\' {
                            i += 1;
                        } else if k == ']' {
                            break;
                        }
                    }
                    last_group = None;
                }
                '(' => {
                    stack.push(Group::default());
                    last_group = None;
                }
                ')' => {
                    let Some(group) = stack.pop() else { return false };
                    if stack.is_empty() {
                        return false;
                    }
                    // What a group holds, its enclosing group holds too.
                    if let Some(outer) = stack.last_mut() {
                        outer.repeats |= group.repeats;
                        outer.alternates |= group.alternates;
                    }
                    last_group = Some(group);
                }
                '|' => {
                    if let Some(top) = stack.last_mut() {
                        top.alternates = true;
                    }
                    last_group = None;
                }
                '*' | '+' | '{' | '?' => {
                    let repeats = match c {
                        '*' | '+' => true,
                        '?' => false,
                        _ => {
                            // `{n}`, `{n,}`, `{n,m}`: repeats unless at most once.
                            let mut body = String::new();
                            while let Some(&k) = chars.get(i) {
                                i += 1;
                                if k == '}' {
                                    break;
                                }
                                body.push(k);
                            }
                            let mut bounds = body.splitn(2, ',');
                            let low = bounds.next().and_then(|n| n.trim().parse::<u64>().ok()).unwrap_or(0);
                            match bounds.next() {
                                None => low > 1,
                                Some(high) => high.trim().parse::<u64>().map_or(true, |high| high > 1),
                            }
                        }
                    };
                    // (`?` repeats nothing, so a lazy mark after a quantifier changes nothing.)
                    if repeats {
                        if last_group.as_ref().is_some_and(|group| group.repeats || group.alternates) {
                            return false;
                        }
                        if let Some(top) = stack.last_mut() {
                            top.repeats = true;
                        }
                    }
                    last_group = None;
                }
                _ => last_group = None,
            }
        }
        stack.len() == 1
    }

    #[cfg(test)]
    mod tests {
        use super::is_bounded;

        #[test]
        fn exponential_forms_are_refused_and_common_patterns_pass() {
            for bounded in [
                "^[a-z0-9_-]+$",
                "^c[0-9]+$",
                "^\\d{4}-\\d{2}-\\d{2}$",
                "^(\\+|-)?\\d+$",
                "^(abc)+$",
                "(a+)?",
                "(a+){1}",
                "^(?=.*[A-Z])(?=.*\\d).{8,}$",
                "^[^@]+@[^@]+\\.[a-z]{2,}$",
                "a+?b*?",
                "[(a+)+]",
                "\\(a+\\)+",
                ".*.*=.*",
                "^x-",
            ] {
                assert!(is_bounded(bounded), "{bounded}");
            }
            for unbounded in [
                "^(a+)+$",
                "(a*)*",
                "(a|a)*",
                "(a|ab)+c",
                "^(\\w+\\s?)*$",
                "((ab)+)+",
                "(a+){2,}",
                "(a+){1,5}",
                "(x+)\\1+y",
                "(?<n>a)\\k<n>",
                "(?:a+)+",
                "(a",
                "a)",
            ] {
                assert!(!is_bounded(unbounded), "{unbounded}");
            }
        }
    }
}

#[cfg(feature = "validator")]
/// The verdict of `validator` on `instance`, as [`CompiledSchema::validate`] reports it.
fn verdict<'i, F: Json>(validator: &Validator<F>, instance: F::Node<'i>, path: &str, what: &str) -> Result<()> {
    if validator.is_valid(instance.clone()) {
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

#[cfg(feature = "validator")]
/// Compiles `schema` under `draft`: the linear regex engine first; a schema it refuses (a
/// pattern with a backreference or a lookaround, or a schema that is invalid anyway) is
/// compiled again with the backtracking engine, whose answer is final. (jsonschema runs the
/// meta-schema again here: it has no public switch to skip it.)
fn build_validator(schema: &Value, draft: Draft, path: &str) -> Result<Compiled> {
    #[cfg(test)]
    tests::count_build(schema);
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
            // Named by the schema's first such `$ref` in document order: jsonschema names the one
            // its registry met first, which varies from process to process (fuzz: op_advertise).
            let detail = first_outside_ref(schema).map_or_else(
                || "a reference or identifier leaves it".to_owned(),
                |reference| format!("$ref {reference:?} is not in the schema"),
            );
            Error::new(ErrorCode::ExternalRef, path, format!("schema refers outside itself: {detail}"))
        } else {
            Error::new(ErrorCode::InvalidSchema, path, format!("not a valid JSON Schema: {e}"))
        }
    })
}

/// The first `$ref` in `schema`, in document order, that is not a same-document fragment.
#[cfg(feature = "validator")]
fn first_outside_ref(schema: &Value) -> Option<&str> {
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(reference)) = map.get("$ref") {
                    if !reference.is_empty() && !reference.starts_with('#') {
                        return Some(reference);
                    }
                }
                stack.extend(map.values().rev());
            }
            Value::Array(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    None
}

#[cfg(feature = "validator")]
/// What [`check`] proved about building a schema's validator.
#[derive(Debug, PartialEq, Eq)]
enum Check {
    /// The build cannot fail: it can wait for the first validation.
    Builds,
    /// The check could not prove it: build now, so that a fault is reported where it is today.
    Build,
}

#[cfg(feature = "validator")]
/// Checks `schema` (under `draft`, already read from its `$schema`) without building a
/// validator, reporting exactly what [`build_validator`] would: the meta-schema first (the
/// build's own first step, so the same `invalid-schema`), then the faults a build finds after
/// it, which are proved absent here only for the common case (see [`builds_surely`]). Anything
/// else is left to an immediate build, whose answer is then the same by construction.
fn check(schema: &Value, draft: Draft, path: &str) -> Result<Check> {
    let Value::Object(map) = schema else {
        // A boolean schema: nothing to check, nothing that can fail.
        return Ok(Check::Builds);
    };
    // An embedded resource with its own `$schema` is validated against its own meta-schema by
    // jsonschema; rather than mirror that, such a schema is built at once.
    if map.values().any(mentions_schema_keyword) {
        return Ok(Check::Build);
    }
    // The generic meta-validator costs about as much as the rest of `accept` together; most
    // 2020-12 schemas are shown valid by a direct reading of its meta-schema instead. Anything
    // that reading does not vouch for goes to the meta-validator, whose answer is final.
    let vouched = draft == Draft::Draft202012 && meta::read(schema, Dialect::Draft202012) == meta::Verdict::Valid;
    if !map.is_empty() && !vouched {
        let Some(verdict) = meta_validate(draft, schema) else {
            return Ok(Check::Build);
        };
        verdict.map_err(|e| Error::new(ErrorCode::InvalidSchema, path, format!("not a valid JSON Schema: {e}")))?;
    }
    Ok(if draft == Draft::Draft202012 && builds_surely(schema) { Check::Builds } else { Check::Build })
}

/// The meta-schemas of the five dialects read directly, one keyword at a time, with the
/// references of the schema. A verdict is [`Verdict::Valid`] only when the dialect's
/// meta-validator would accept the schema and its references resolve inside it, and
/// [`Verdict::Invalid`] only when the meta-validator would refuse it (or a `$ref` surely leaves
/// it); anything this reading does not settle (`$vocabulary`, an integer written `1.0`, an
/// identifier or anchor that moves the base URI, a pointer it does not follow) is
/// [`Verdict::Unsure`]. With a validator, `Unsure` goes to jsonschema, whose answer is final;
/// without one, to the [`SchemaHost`]. A property test holds the reading to jsonschema's
/// meta-validators, both ways.
pub mod meta {
    use super::{resolves_to_subschema, Dialect};
    use serde_json::Value;

    /// What the direct reading settled.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum Verdict {
        /// The meta-schema accepts the schema, and every `$ref` resolves to one of its subschemas.
        Valid,
        /// The meta-schema refuses the schema: what fails, and where (a JSON Pointer).
        Invalid(String, String),
        /// A `$ref` leaves the schema (no identifier moves its base URI): where.
        ExternalRef(String, String),
        /// The meta-schema accepts the schema, but a `$ref` is not a URI reference, or is a
        /// fragment that names nothing in it: where, and what (`invalid-schema`, as a build says).
        Unresolvable(String, String),
        /// Not settled by this reading.
        Unsure,
    }

    /// `simpleTypes`.
    const SIMPLE_TYPES: &[&str] = &["array", "boolean", "integer", "null", "number", "object", "string"];

    /// Reads `schema` under `dialect`. Patterns are not judged here (a regex engine is needed).
    pub fn read(schema: &Value, dialect: Dialect) -> Verdict {
        // Draft 4's meta-schema has rules between keywords (`exclusiveMinimum` needs `minimum`)
        // that this reading does not follow: its schemas are left to the meta-validator.
        if dialect == Dialect::Draft4 {
            return Verdict::Unsure;
        }
        let mut reading = Reading { dialect, unsure: false, moves_base: false, refs: Vec::new() };
        if let Err((at, what)) = reading.schema(schema, &mut String::new()) {
            return Verdict::Invalid(at, what);
        }
        if reading.unsure {
            return Verdict::Unsure;
        }
        let refs = std::mem::take(&mut reading.refs);
        // A reference that is not a URI reference fails every build, whatever moves the base.
        if let Some((at, reference)) = refs.iter().find(|(_, reference)| !is_uri_reference(reference)) {
            return Verdict::Unresolvable(at.clone(), format!("$ref {reference:?} is not a URI reference"));
        }
        for (at, reference) in refs {
            if reference.is_empty() || reference == "#" || resolves_to_subschema(schema, &reference) {
                continue;
            }
            if !reading.moves_base {
                // Nothing moves the base URI: a fragment is a JSON Pointer into this document
                // (no anchor exists), and anything else leaves it. Settled here rather than by a
                // host's validator, which may build such a schema and fail only later, so that
                // every flavour answers alike (fuzzing finding 9).
                match reference.strip_prefix('#') {
                    Some(fragment) if points_nowhere(schema, fragment) => {
                        return Verdict::Unresolvable(
                            at,
                            format!("$ref {reference:?} resolves to nothing in the schema"),
                        )
                    }
                    Some(_) => {}
                    None => return Verdict::ExternalRef(at, format!("$ref {reference:?} leaves the schema")),
                }
            }
            return Verdict::Unsure;
        }
        if reading.moves_base {
            return Verdict::Unsure;
        }
        Verdict::Valid
    }

    /// Every `pattern` and `patternProperties` name in the schema positions of `schema`, with
    /// its JSON Pointer (a binding without a regex engine of the core's judges them).
    pub fn patterns(schema: &Value, dialect: Dialect) -> Vec<(String, String)> {
        let mut found = Vec::new();
        let reading = Reading { dialect, unsure: false, moves_base: false, refs: Vec::new() };
        reading.visit_patterns(schema, &mut String::new(), &mut found);
        found
    }

    struct Reading {
        dialect: Dialect,
        unsure: bool,
        /// An `$id` (or draft 4 `id`), anchor or dynamic reference appears: references may
        /// resolve elsewhere than this reading follows.
        moves_base: bool,
        refs: Vec<(String, String)>,
    }

    type Fault = (String, String);

    fn push(at: &mut String, token: &str) -> usize {
        let len = at.len();
        at.push('/');
        at.push_str(&token.replace('~', "~0").replace('/', "~1"));
        len
    }

    impl Reading {
        fn modern(&self) -> bool {
            matches!(self.dialect, Dialect::Draft202012 | Dialect::Draft201909)
        }

        /// Whether the dialect's meta-validator asserts `format` (drafts 6 and 7 do).
        fn formats_asserted(&self) -> bool {
            matches!(self.dialect, Dialect::Draft6 | Dialect::Draft7)
        }

        fn at_least_6(&self) -> bool {
            self.dialect != Dialect::Draft4
        }

        fn at_least_7(&self) -> bool {
            !matches!(self.dialect, Dialect::Draft4 | Dialect::Draft6)
        }

        fn fail<T>(&self, at: &str, what: impl Into<String>) -> Result<T, Fault> {
            Err((at.to_owned(), what.into()))
        }

        /// A subschema: an object, or a boolean from draft 6 on.
        fn schema(&mut self, value: &Value, at: &mut String) -> Result<(), Fault> {
            let map = match value {
                Value::Bool(_) if self.at_least_6() => return Ok(()),
                Value::Object(map) => map,
                _ => return self.fail(at, "a schema must be an object or a boolean"),
            };
            for (keyword, item) in map {
                let len = push(at, keyword);
                self.keyword(keyword, item, at)?;
                at.truncate(len);
            }
            Ok(())
        }

        fn schema_map(&mut self, value: &Value, at: &mut String) -> Result<(), Fault> {
            let Value::Object(members) = value else { return self.fail(at, "must be an object of schemas") };
            for (name, item) in members {
                let len = push(at, name);
                self.schema(item, at)?;
                at.truncate(len);
            }
            Ok(())
        }

        fn schema_array(&mut self, value: &Value, at: &mut String) -> Result<(), Fault> {
            let Value::Array(items) = value else { return self.fail(at, "must be an array of schemas") };
            if items.is_empty() {
                return self.fail(at, "must not be empty");
            }
            for (i, item) in items.iter().enumerate() {
                let len = push(at, &i.to_string());
                self.schema(item, at)?;
                at.truncate(len);
            }
            Ok(())
        }

        fn non_negative_integer(&mut self, value: &Value, at: &str) -> Result<(), Fault> {
            if value.is_u64() {
                return Ok(());
            }
            match value.as_f64() {
                // jsonschema reads some integers written as floats as integers: not settled here.
                Some(n) if n >= 0.0 && n.fract() == 0.0 => {
                    self.unsure = true;
                    Ok(())
                }
                _ => self.fail(at, "must be a non-negative integer"),
            }
        }

        fn string_array(&mut self, value: &Value, at: &str, non_empty: bool) -> Result<(), Fault> {
            let Value::Array(items) = value else { return self.fail(at, "must be an array of strings") };
            if !items.iter().all(Value::is_string) {
                return self.fail(at, "must be an array of strings");
            }
            if !all_unique(items) {
                return self.fail(at, "must not repeat a string");
            }
            if non_empty && items.is_empty() {
                return self.fail(at, "must not be empty");
            }
            Ok(())
        }

        fn string(&mut self, value: &Value, at: &str) -> Result<(), Fault> {
            if value.is_string() {
                Ok(())
            } else {
                self.fail(at, "must be a string")
            }
        }

        fn keyword(&mut self, keyword: &str, value: &Value, at: &mut String) -> Result<(), Fault> {
            let modern = self.modern();
            let latest = self.dialect == Dialect::Draft202012;
            match keyword {
                // Drafts 6 and 7 assert `format` in their meta-schemas: a pattern must be a regex
                // and a `$ref` a URI reference there, which this reading does not judge.
                "pattern" if self.formats_asserted() => {
                    self.string(value, at)?;
                    self.unsure = true;
                    Ok(())
                }
                "patternProperties" if self.formats_asserted() => {
                    self.unsure = true;
                    self.schema_map(value, at)
                }
                "$schema" | "title" | "description" | "format" | "pattern" => self.string(value, at),
                "$comment" | "contentEncoding" | "contentMediaType" if self.at_least_7() => self.string(value, at),
                // Draft 4's meta-schema does not name `$ref`: the build judges it.
                "$ref" if !self.at_least_6() && !value.is_string() => {
                    self.unsure = true;
                    Ok(())
                }
                "$ref" => {
                    let Value::String(reference) = value else { return self.fail(at, "must be a string") };
                    if self.formats_asserted() && !reference.is_empty() && !is_plain_uri_reference(reference) {
                        self.unsure = true;
                    }
                    self.refs.push((at.clone(), reference.clone()));
                    Ok(())
                }
                "$id" if self.at_least_6() => self.id(value, at),
                "id" if !self.at_least_6() => self.id(value, at),
                "$anchor" | "$dynamicAnchor" | "$dynamicRef" | "$recursiveRef" | "$recursiveAnchor" if modern => {
                    self.moves_base = true;
                    self.unsure = true;
                    Ok(())
                }
                "$vocabulary" if modern => {
                    self.unsure = true;
                    Ok(())
                }
                "$defs" if modern => self.schema_map(value, at),
                "definitions" | "properties" | "patternProperties" => self.schema_map(value, at),
                "dependentSchemas" if modern => self.schema_map(value, at),
                "dependencies" => {
                    let Value::Object(members) = value else { return self.fail(at, "must be an object") };
                    for (name, item) in members {
                        let len = push(at, name);
                        if item.is_array() {
                            self.string_array(item, at, false)?;
                        } else {
                            self.schema(item, at)?;
                        }
                        at.truncate(len);
                    }
                    Ok(())
                }
                "allOf" | "anyOf" | "oneOf" => self.schema_array(value, at),
                "prefixItems" if latest => self.schema_array(value, at),
                "items" if latest => self.schema(value, at),
                "items" => {
                    if value.is_array() {
                        self.schema_array(value, at)
                    } else {
                        self.schema(value, at)
                    }
                }
                "additionalItems" if !latest => self.schema(value, at),
                "not" | "additionalProperties" => self.schema(value, at),
                "contains" | "propertyNames" if self.at_least_6() => self.schema(value, at),
                "if" | "then" | "else" if self.at_least_7() => self.schema(value, at),
                "unevaluatedItems" | "unevaluatedProperties" | "contentSchema" if modern => self.schema(value, at),
                "type" => match value {
                    Value::String(name) if SIMPLE_TYPES.contains(&name.as_str()) => Ok(()),
                    Value::Array(names)
                        if !names.is_empty()
                            && names.iter().all(|n| n.as_str().is_some_and(|n| SIMPLE_TYPES.contains(&n)))
                            && all_unique(names) =>
                    {
                        Ok(())
                    }
                    _ => self.fail(at, "must be a simple type name or an array of distinct ones"),
                },
                "enum" => match value {
                    // Draft 4 asks for distinct items, at least one: left to the meta-validator.
                    Value::Array(items) if items.len() != 1 && !self.at_least_6() => {
                        self.unsure = true;
                        Ok(())
                    }
                    Value::Array(_) => Ok(()),
                    _ => self.fail(at, "must be an array"),
                },
                "examples" if self.at_least_6() => match value {
                    Value::Array(_) => Ok(()),
                    _ => self.fail(at, "must be an array"),
                },
                "multipleOf" => match value.as_f64() {
                    Some(n) if n > 0.0 => Ok(()),
                    _ => self.fail(at, "must be a number greater than 0"),
                },
                "maximum" | "minimum" => {
                    if value.is_number() {
                        Ok(())
                    } else {
                        self.fail(at, "must be a number")
                    }
                }
                "exclusiveMaximum" | "exclusiveMinimum" => {
                    let fine = if self.at_least_6() { value.is_number() } else { value.is_boolean() };
                    if fine {
                        Ok(())
                    } else {
                        self.fail(at, "has the wrong type for this dialect")
                    }
                }
                "maxLength" | "minLength" | "maxItems" | "minItems" | "maxProperties" | "minProperties" => {
                    self.non_negative_integer(value, at)
                }
                "maxContains" | "minContains" if modern => self.non_negative_integer(value, at),
                "uniqueItems" => self.boolean(value, at),
                "readOnly" | "writeOnly" if self.at_least_7() => self.boolean(value, at),
                "deprecated" if modern => self.boolean(value, at),
                "required" => self.string_array(value, at, !self.at_least_6()),
                "dependentRequired" if modern => {
                    let Value::Object(members) = value else { return self.fail(at, "must be an object") };
                    for (name, item) in members {
                        let len = push(at, name);
                        self.string_array(item, at, false)?;
                        at.truncate(len);
                    }
                    Ok(())
                }
                // `const`, `default` and every keyword the meta-schema does not name: anything.
                _ => Ok(()),
            }
        }

        fn boolean(&mut self, value: &Value, at: &str) -> Result<(), Fault> {
            if value.is_boolean() {
                Ok(())
            } else {
                self.fail(at, "must be a boolean")
            }
        }

        /// `$id` (draft 4: `id`): a string; it moves the base URI, so references are unsure.
        fn id(&mut self, value: &Value, at: &str) -> Result<(), Fault> {
            let Value::String(_) = value else { return self.fail(at, "must be a string") };
            self.moves_base = true;
            self.unsure = true;
            Ok(())
        }

        /// The patterns under the schema positions of `value` (a schema).
        fn visit_patterns(&self, value: &Value, at: &mut String, found: &mut Vec<(String, String)>) {
            let Value::Object(map) = value else { return };
            for (keyword, item) in map {
                let len = push(at, keyword);
                match (keyword.as_str(), item) {
                    ("pattern", Value::String(pattern)) => found.push((at.clone(), pattern.clone())),
                    ("patternProperties", Value::Object(members)) => {
                        for (pattern, sub) in members {
                            let inner = push(at, pattern);
                            found.push((at.clone(), pattern.clone()));
                            self.visit_patterns(sub, at, found);
                            at.truncate(inner);
                        }
                    }
                    (
                        "$defs" | "definitions" | "properties" | "dependentSchemas" | "dependencies",
                        Value::Object(members),
                    ) => {
                        for (name, sub) in members {
                            let inner = push(at, name);
                            self.visit_patterns(sub, at, found);
                            at.truncate(inner);
                        }
                    }
                    ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(items)) => {
                        for (i, sub) in items.iter().enumerate() {
                            let inner = push(at, &i.to_string());
                            self.visit_patterns(sub, at, found);
                            at.truncate(inner);
                        }
                    }
                    (
                        "items"
                        | "additionalItems"
                        | "not"
                        | "additionalProperties"
                        | "contains"
                        | "propertyNames"
                        | "if"
                        | "then"
                        | "else"
                        | "unevaluatedItems"
                        | "unevaluatedProperties"
                        | "contentSchema",
                        _,
                    ) => {
                        self.visit_patterns(item, at, found);
                    }
                    _ => {}
                }
                at.truncate(len);
            }
        }
    }

    /// Whether the strings of `items` are distinct (only called on arrays of strings).
    fn all_unique(items: &[Value]) -> bool {
        let mut seen: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
        crate::validation_work::heap_sort(&mut seen);
        seen.windows(2).all(|pair| pair.first() != pair.get(1))
    }

    /// Whether `reference` is a URI reference of characters a URI allows unencoded, with at
    /// most one `#` (a draft whose meta-schema asserts `format` may refuse anything else).
    fn is_plain_uri_reference(reference: &str) -> bool {
        !reference.is_empty()
            && reference.matches('#').count() <= 1
            && reference.chars().all(|c| c.is_ascii_alphanumeric() || "-._~:/?#@!$&'()*+,;=".contains(c))
    }

    /// Whether `reference` is a URI reference as RFC 3986 writes one: characters a URI allows,
    /// `%` only before two hex digits, at most one `#`. jsonschema refuses anything else as
    /// "Invalid URI reference".
    fn is_uri_reference(reference: &str) -> bool {
        let bytes = reference.as_bytes();
        let escapes_ok = bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'%')
            .all(|(i, _)| bytes.get(i + 1..i + 3).is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)));
        escapes_ok
            && reference.matches('#').count() <= 1
            && reference.chars().all(|c| c.is_ascii_alphanumeric() || "-._~:/?#[]@!$&'()*+,;=%".contains(c))
    }

    /// Whether the fragment `fragment` (after `#`) surely names nothing in `root`: a plain name
    /// (no anchor exists when nothing moves the base) or a JSON Pointer to no member. A fragment
    /// this reading cannot decode is left to the build.
    fn points_nowhere(root: &Value, fragment: &str) -> bool {
        let Some(decoded) = crate::validation_work::percent_decode(fragment) else { return false };
        if decoded.is_empty() {
            return false;
        }
        let Some(pointer) = decoded.strip_prefix('/') else { return true };
        let mut at = root;
        for token in pointer.split('/') {
            let Some(token) = super::unescape_token(token) else { return false };
            let next = match at {
                Value::Object(map) => map.get(&token),
                Value::Array(items) => super::parse_index(&token).and_then(|i| items.get(i)),
                _ => None,
            };
            match next {
                Some(next) => at = next,
                None => return true,
            }
        }
        false
    }
}

#[cfg(feature = "validator")]
/// Whether `$schema` is a member name anywhere in `value` (jsonschema's own test for embedded
/// dialects, which looks inside data keywords too).
fn mentions_schema_keyword(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(key, item)| key == "$schema" || mentions_schema_keyword(item)),
        Value::Array(items) => items.iter().any(mentions_schema_keyword),
        _ => false,
    }
}

#[cfg(feature = "validator")]
thread_local! {
    /// The meta-schema validators, one per dialect (in [`DIALECTS`] order), built on first use.
    /// jsonschema keeps them per process natively but rebuilds one for every call on wasm
    /// targets (see [`VALIDATORS`]), which would cost a host about 1.4 ms per schema.
    static META_VALIDATORS: [OnceCell<Option<MetaValidator<'static>>>; DIALECTS.len()] =
        const { [const { OnceCell::new() }; DIALECTS.len()] };
}

#[cfg(feature = "validator")]
/// `schema` against the meta-schema of `draft`, as jsonschema's build runs it; `None` if the
/// meta-validator is not available (not expected: the drafts are bundled).
fn meta_validate(draft: Draft, schema: &Value) -> Option<std::result::Result<(), String>> {
    let index = DIALECTS.iter().position(|(_, known)| draft_of(*known) == draft)?;
    let uri = DIALECTS.get(index).map(|(uri, _)| *uri)?;
    META_VALIDATORS.with(|validators| {
        let validator = validators
            .get(index)?
            .get_or_init(|| {
                let mut probe = Map::new();
                probe.insert("$schema".into(), Value::from(uri));
                jsonschema::meta::validator_for(&Value::Object(probe)).ok()
            })
            .as_ref()?;
        Some(validator.validate(schema).map_err(|e| e.to_string()))
    })
}

#[cfg(feature = "validator")]
/// Whether a 2020-12 schema that passed its meta-schema is sure to build. After the
/// meta-schema, a build can still fail on a `$ref` (outside the schema, or not resolving), an
/// identifier or anchor that moves the base URI, or a regex the engines refuse. So the schema
/// is sure to build when, anywhere in it (data keywords included, which only overstates):
/// no `$id`, anchor, `$dynamicRef`, `$recursiveRef` or `$vocabulary` member appears; every
/// `$ref` is `#` or a plain JSON Pointer fragment that walks schema keywords to a schema (see
/// [`resolves_to_subschema`]); every `pattern` and `patternProperties` name compiles on the
/// linear engine as jsonschema translates it.
fn builds_surely(root: &Value) -> bool {
    let mut stack = vec![root];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    let fine = match (key.as_str(), item) {
                        (
                            "$id" | "$anchor" | "$dynamicAnchor" | "$dynamicRef" | "$recursiveRef" | "$recursiveAnchor"
                            | "$vocabulary",
                            _,
                        ) => false,
                        ("$ref", Value::String(reference)) => resolves_to_subschema(root, reference),
                        ("pattern", Value::String(pattern)) => compiles_linear(pattern),
                        ("patternProperties", Value::Object(properties)) => {
                            properties.keys().all(|pattern| compiles_linear(pattern))
                        }
                        _ => true,
                    };
                    if !fine {
                        return false;
                    }
                    stack.push(item);
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    true
}

/// Whether `reference` is `#` or `#/<pointer>` naming, through 2020-12 subschema keywords only,
/// an object or boolean in `root` (a subschema the meta-schema has checked). The fragment may
/// only hold characters a URI fragment allows unencoded, and no percent-encoding: anything else
/// is left to the build.
fn resolves_to_subschema(root: &Value, reference: &str) -> bool {
    const IN_PLACE: &[&str] = &[
        "not",
        "if",
        "then",
        "else",
        "items",
        "contains",
        "additionalProperties",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    ];
    const BY_NAME: &[&str] = &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
    const BY_INDEX: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
    let Some(pointer) = reference.strip_prefix('#') else {
        return false;
    };
    let plain = |c: char| c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=:@/?".contains(c);
    if !pointer.chars().all(plain) {
        return false;
    }
    if pointer.is_empty() {
        return true;
    }
    let Some(pointer) = pointer.strip_prefix('/') else {
        return false;
    };
    let mut tokens = pointer.split('/').map(unescape_token);
    let mut at = root;
    while let Some(token) = tokens.next() {
        let (Some(token), Value::Object(schema)) = (token, at) else {
            return false;
        };
        let next = if IN_PLACE.contains(&token.as_str()) {
            schema.get(&token)
        } else if BY_NAME.contains(&token.as_str()) {
            let name = tokens.next().flatten();
            name.and_then(|name| schema.get(&token)?.as_object()?.get(&name))
        } else if BY_INDEX.contains(&token.as_str()) {
            let index = tokens.next().flatten().and_then(|i| parse_index(&i));
            index.and_then(|i| schema.get(&token)?.as_array()?.get(i))
        } else {
            None
        };
        match next {
            Some(next) => at = next,
            None => return false,
        }
    }
    at.is_object() || at.is_boolean()
}

/// A JSON Pointer token with `~1` and `~0` decoded; `None` for any other `~` escape.
fn unescape_token(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        match c {
            '~' => match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            },
            c => out.push(c),
        }
    }
    Some(out)
}

/// An array index as a JSON Pointer writes it: digits, no sign, no leading zero.
pub(crate) fn parse_index(token: &str) -> Option<usize> {
    let canonical = token.bytes().all(|b| b.is_ascii_digit()) && (token == "0" || !token.starts_with('0'));
    canonical.then(|| token.parse().ok()).flatten()
}

#[cfg(feature = "validator")]
/// How many pattern verdicts each thread keeps, and the longest pattern kept (see
/// [`compiles_linear`]).
const PATTERN_CACHE_CAPACITY: usize = 1024;
#[cfg(feature = "validator")]
const PATTERN_CACHE_MAX_BYTES: usize = 1024;

#[cfg(feature = "validator")]
thread_local! {
    /// [`compiles_linear`]'s verdicts by pattern: compiling a regex costs tens of microseconds,
    /// and a tools/list repeats a few patterns across many properties and tools. Bounded like
    /// [`VALIDATORS`].
    static PATTERN_VERDICTS: RefCell<HashMap<String, bool>> = RefCell::new(HashMap::new());
}

#[cfg(feature = "validator")]
/// Whether `pattern` compiles on the linear engine as jsonschema compiles it there (the same
/// translation and search form): then no engine refuses it.
fn compiles_linear(pattern: &str) -> bool {
    if let Some(verdict) = PATTERN_VERDICTS.with(|c| c.borrow().get(pattern).copied()) {
        return verdict;
    }
    let verdict = compile_linear(pattern);
    if pattern.len() <= PATTERN_CACHE_MAX_BYTES {
        PATTERN_VERDICTS.with(|c| {
            let mut cache = c.borrow_mut();
            if cache.len() >= PATTERN_CACHE_CAPACITY {
                cache.clear();
            }
            cache.insert(pattern.to_owned(), verdict);
        });
    }
    verdict
}

#[cfg(feature = "validator")]
fn compile_linear(pattern: &str) -> bool {
    let Ok(translated) = jsonschema_regex::to_rust_regex(pattern) else {
        return false;
    };
    match jsonschema_regex::search_form(pattern, &translated) {
        Some(jsonschema_regex::Search::RepeatedClass(_)) => true,
        Some(jsonschema_regex::Search::Collapsed(collapsed)) => regex::Regex::new(&collapsed).is_ok(),
        None => regex::Regex::new(&translated).is_ok(),
    }
}

#[cfg(feature = "validator")]
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

#[cfg(feature = "validator")]
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

#[cfg(feature = "validator")]
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

#[cfg(feature = "validator")]
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

#[cfg(feature = "validator")]
/// A pattern cut to a length fit for an error message.
fn shorten(pattern: &str) -> String {
    const MAX: usize = 100;
    match pattern.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &pattern[..cut]),
        None => pattern.to_owned(),
    }
}

fn dialect(map: &Map<String, Value>, path: &str) -> Result<Dialect> {
    match map.get("$schema") {
        None => Ok(Dialect::Draft202012),
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

#[cfg(all(test, feature = "validator"))]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Mutex;

    /// How many times each schema text was built, across threads (tests use schemas of their
    /// own, so they do not disturb each other's counts).
    static BUILDS: Mutex<Option<HashMap<String, usize>>> = Mutex::new(None);

    pub(super) fn count_build(schema: &Value) {
        let mut builds = BUILDS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *builds.get_or_insert_with(HashMap::new).entry(schema.to_string()).or_default() += 1;
    }

    fn builds(schema: &Value) -> usize {
        let builds = BUILDS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        builds.as_ref().and_then(|b| b.get(&schema.to_string()).copied()).unwrap_or(0)
    }

    fn validator(schema: &CompiledSchema) -> &Arc<Validator> {
        &schema.compiled().expect("compiles").validator
    }

    fn code(schema: Value) -> Option<ErrorCode> {
        CompiledSchema::compile(&schema, "/schema").err().map(|e| e.code())
    }

    #[test]
    fn external_refs_are_refused() {
        assert_eq!(code(json!({"$ref": "https://example.com/s.json"})), Some(ErrorCode::ExternalRef));
        assert_eq!(code(json!({"$ref": "other.json#/x"})), Some(ErrorCode::ExternalRef));
        assert_eq!(code(json!({"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"})), None);
    }

    /// Fuzz finding (op_advertise, 2026-12-03): with two external references, the message named
    /// whichever jsonschema's registry met first, which changed between two runs in one process.
    #[test]
    fn an_external_ref_error_is_the_same_every_time() {
        let schema = json!({"type": "object", "properties": {
            "a": {"$ref": "LLLL=L#/$defs/region"}, "b": {"$ref": "string"}, "c": {"$ref": "#"}}});
        let first = CompiledSchema::compile(&schema, "/s").expect_err("external");
        assert_eq!(first.code(), ErrorCode::ExternalRef);
        assert!(first.message().contains("\"LLLL=L#/$defs/region\""), "{}", first.message());
        for _ in 0..50 {
            let again = CompiledSchema::compile(&schema, "/s").expect_err("external");
            assert_eq!((again.code(), again.message()), (first.code(), first.message()));
            let received = CompiledSchema::received(&schema, "/s").expect_err("external");
            assert_eq!(received.message(), first.message());
        }
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
        assert!(Arc::ptr_eq(validator(&a), validator(&b)), "the same schema text shares one validator");
        assert!(a.compiled().expect("compiles").backtracking.is_none(), "a linear pattern needs no regex budget");
        let other = CompiledSchema::compile(&json!({"type": "object", "required": ["n"]}), "").expect("valid");
        assert!(!Arc::ptr_eq(validator(&a), validator(&other)));
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
        assert!(!Arc::ptr_eq(validator(&x), validator(&y)), "a schema over the byte bound is not kept");
        assert!(x.is_valid(&json!("x".repeat(VALIDATOR_CACHE_MAX_SCHEMA_BYTES))) && !y.is_valid(&json!("x")));
        let again = CompiledSchema::compile(&schema, "").expect("valid");
        assert!(again.is_valid(&json!({"n": 2})) && !again.is_valid(&json!({"n": []})));
    }

    #[test]
    fn a_validator_for_another_representation_is_built_once_and_judges_alike() {
        let schema = json!({"type": "object", "properties": {"id": {"type": "string", "pattern": "^c[0-9]+$"}},
            "required": ["id"]});
        let received = CompiledSchema::received(&schema, "/outputVariants/1/schema").expect("valid");
        let first = received.validator_in::<SerdeJson>().expect("builds").expect("a linear schema has one");
        let again = received.validator_in::<SerdeJson>().expect("builds").expect("kept");
        assert!(std::ptr::eq(first, again), "built once, kept with the schema");
        for value in [json!({"id": "c1"}), json!({"id": "x"}), json!({}), json!([]), json!({"id": 1})] {
            let plain = received
                .validate(&value, "/p", "the value")
                .map_err(|e| (e.code(), e.path().to_owned(), e.message().to_owned()));
            let other = received
                .validate_in(first, &value, "/p", "the value")
                .map_err(|e| (e.code(), e.path().to_owned(), e.message().to_owned()));
            assert_eq!(plain, other, "{value}");
        }
        // A schema with backtracking patterns has none: its regex budget is counted over a value.
        let backtracking = CompiledSchema::compile(&json!({"pattern": "^(?=a)a"}), "").expect("valid");
        assert!(backtracking.validator_in::<SerdeJson>().expect("builds").is_none());
    }

    #[test]
    fn a_received_schema_is_built_by_its_first_validation_only() {
        let schema = json!({"type": "object", "properties": {"first_use": {"type": "string", "pattern": "^[a-z]+$"}}});
        let received = CompiledSchema::received(&schema, "/outputVariants/1/schema").expect("valid");
        assert_eq!((builds(&schema), received.is_compiled()), (0, false), "checking builds no validator");
        assert!(received.is_valid(&json!({"first_use": "abc"})));
        assert_eq!(builds(&schema), 1);
        let error = received.validate(&json!({"first_use": "ABC"}), "/outputs/1/structuredContent", "the value");
        assert_eq!(error.map_err(|e| e.code()), Err(ErrorCode::SchemaViolation));
        assert!(!received.is_valid(&json!({"first_use": 1})));
        assert_eq!((builds(&schema), received.is_compiled()), (1, true), "later validations reuse it");
        // A server's compile is eager (and, on this thread, the cached validator is shared).
        let declared = json!({"type": "object", "properties": {"declared_now": {"type": "integer"}}});
        let compiled = CompiledSchema::compile(&declared, "/outputVariants/1/schema").expect("valid");
        assert_eq!((builds(&declared), compiled.is_compiled()), (1, true));
    }

    #[test]
    fn concurrent_first_validations_build_once_and_agree() {
        let schema = json!({"type": "object", "properties": {"concurrent": {"type": "integer", "maximum": 10}}});
        let received = Arc::new(CompiledSchema::received(&schema, "").expect("valid"));
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let received = Arc::clone(&received);
                std::thread::spawn(move || {
                    let answers =
                        (received.is_valid(&json!({"concurrent": i})), received.is_valid(&json!({"concurrent": 11})));
                    (answers, Arc::as_ptr(validator(&received)) as usize)
                })
            })
            .collect();
        let answers: Vec<_> = threads.into_iter().map(|t| t.join().expect("no panic")).collect();
        assert!(answers.iter().all(|(valid, _)| *valid == (true, false)));
        assert!(answers.windows(2).all(|w| w[0].1 == w[1].1), "every thread uses one validator");
        assert_eq!(builds(&schema), 1);
    }

    /// Whether `schema` is left to its first validation by a host.
    fn deferred(schema: &Value) -> bool {
        CompiledSchema::received(schema, "/s").is_ok_and(|s| !s.is_compiled())
    }

    #[test]
    fn checking_reports_what_compiling_reports() {
        let cases = [
            json!(true),
            json!(false),
            json!({}),
            json!({"type": "objekt"}),
            json!({"type": "array", "items": {"type": "string", "minLength": -1}}),
            json!({"type": "object", "properties": {"c": {"$ref": "https://example.com/s.json"}}}),
            json!({"$ref": "other.json#/x"}),
            json!({"$ref": ""}),
            json!({"$ref": "json-schema:///#/$defs/a", "$defs": {"a": {"type": "string"}}}),
            json!({"$ref": "#/$defs/missing"}),
            json!({"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}}),
            json!({"$ref": "#/$defs/a~1b", "$defs": {"a/b": {"type": "string"}}}),
            json!({"$ref": "#/$defs/a~2b", "$defs": {"a~2b": {"type": "string"}}}),
            json!({"$ref": "#/$defs/a%20b", "$defs": {"a b": {"type": "string"}}}),
            json!({"$ref": "#/$defs/a b", "$defs": {"a b": {"type": "string"}}}),
            json!({"$ref": "#/properties", "properties": {"type": {"type": "string"}}}),
            json!({"$ref": "#/required/0", "required": ["a"]}),
            json!({"$ref": "#/const", "const": {"type": 5}}),
            json!({"$ref": "#/const", "const": {"pattern": "("}}),
            json!({"$ref": "#/allOf/01", "allOf": [{}, {}]}),
            json!({"$ref": "#/allOf/1", "allOf": [{}, {"type": "string"}]}),
            json!({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}),
            json!({"$ref": "#", "properties": {"next": {"$ref": "#"}}}),
            json!({"$ref": "#foo", "$defs": {"a": {"$anchor": "foo"}}}),
            json!({"$ref": "#bar"}),
            json!({"$id": "https://example.com/root", "$ref": "https://example.com/root#/$defs/a", "$defs": {"a": {}}}),
            json!({"$dynamicRef": "#meta"}),
            json!({"$defs": {"a": {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "x", "type": 5}}}),
            json!({"pattern": "("}),
            json!({"pattern": "^(?=a)"}),
            json!({"pattern": "(a)\\1"}),
            json!({"pattern": "^[a-z0-9_-]+$"}),
            json!({"pattern": "\\p{Letter}"}),
            json!({"patternProperties": {"[": {}}}),
            json!({"patternProperties": {"^x-": {"type": "string"}}}),
            json!({"const": {"pattern": "("}}),
            json!({"properties": {"pattern": {"type": "string"}, "$id": {"type": "string"}}}),
            json!({"maxLength": 1.0, "minItems": 1e300}),
            json!({"maxLength": 1.5}),
            json!({"format": "no-such-format", "contentMediaType": "application/x-unknown"}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "$defs": {"a": {"type": 5}}}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"a": {"type": 5}}}),
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "properties": {"a": {"$ref": "#/definitions/x"}}}),
            json!({"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveRef": "#"}),
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema#", "type": "string"}),
            json!({"$schema": "https://example.com/my-dialect"}),
            json!({"$schema": 7}),
            json!({"$vocabulary": {"https://example.com/vocab": true}}),
        ];
        for schema in &cases {
            // What compiling answered before checks existed: the dialect, then the whole build;
            // then the bound on validation work (SEC-4), last in every build.
            let draft = match schema {
                Value::Object(map) => dialect(map, "/s"),
                _ => Ok(Dialect::Draft202012),
            };
            let built = draft
                .and_then(|draft| build_validator(schema, draft_of(draft), "/s"))
                .and_then(|built| crate::validation_work::check(schema, "/s").map(|_| built));
            let compiled = built.map(|_| ()).map_err(|e| (e.code(), e.path().to_owned()));
            let received = CompiledSchema::received(schema, "/s");
            let checked = received.as_ref().map(|_| ()).map_err(|e| (e.code(), e.path().to_owned()));
            assert_eq!(checked, compiled, "{schema}");
            if let Ok(received) = received {
                let first_use = received.compiled().map(|_| ()).map_err(|e| e.code());
                assert_eq!(first_use, Ok(()), "{schema}: a deferred build fails");
            }
        }
        // What a host is sent in practice is left to its first validation.
        for schema in [
            json!({"type": "object", "properties": {"s": {"type": ["string", "null"], "format": "date-time"}}}),
            json!({"type": "array", "items": {"type": "string", "pattern": "^[a-z0-9_-]+$"}}),
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"row": {"type": "string"}},
                   "type": "array", "items": {"$ref": "#/$defs/row"}}),
            json!({"type": "object", "properties": {"child": {"$ref": "#"}}}),
            json!({"patternProperties": {"^x-": {"type": "string"}}}),
            json!(true),
        ] {
            assert!(deferred(&schema), "{schema}");
        }
        // What the check cannot settle is compiled at once, so its fault is still found here.
        for schema in [
            json!({"$id": "https://example.com/s", "type": "object"}),
            json!({"pattern": "^(?=a)"}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}),
        ] {
            assert!(!deferred(&schema), "{schema}");
        }
    }

    /// Values of every JSON type, valid and invalid for the meta-schema's keywords.
    fn meta_keyword_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = proptest::sample::select(vec![
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-1),
            json!(3),
            json!(1.0),
            json!(1.5),
            json!(-0.5),
            json!(""),
            json!("string"),
            json!("integer"),
            json!("strin"),
            json!("#"),
            json!("a#"),
            json!("a#b"),
            json!("_a-1.b"),
            json!("1a"),
            json!("("),
            json!("^[a-z]+$"),
            json!([]),
            json!(["a", "a"]),
            json!(["a", "b"]),
            json!(["string", "null"]),
            json!(["string", "string"]),
            json!(["foo"]),
            json!([1]),
            json!({}),
        ]);
        leaf.prop_recursive(4, 48, 6, |inner| {
            let keyword = proptest::sample::select(vec![
                "$id",
                "$ref",
                "$anchor",
                "$dynamicAnchor",
                "$recursiveAnchor",
                "$comment",
                "$defs",
                "definitions",
                "dependencies",
                "prefixItems",
                "items",
                "contains",
                "additionalProperties",
                "properties",
                "patternProperties",
                "dependentSchemas",
                "propertyNames",
                "if",
                "then",
                "else",
                "allOf",
                "anyOf",
                "oneOf",
                "not",
                "unevaluatedItems",
                "unevaluatedProperties",
                "type",
                "const",
                "enum",
                "multipleOf",
                "maximum",
                "exclusiveMinimum",
                "maxLength",
                "minContains",
                "pattern",
                "uniqueItems",
                "required",
                "dependentRequired",
                "title",
                "default",
                "deprecated",
                "examples",
                "format",
                "contentEncoding",
                "contentSchema",
                "x-unknown",
                "a",
            ]);
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                proptest::collection::btree_map(keyword.prop_map(str::to_owned), inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// The direct reading of each dialect's meta-schema never vouches for a schema the
        /// meta-validator refuses, and never refuses one it accepts (a build without a
        /// validator rules on schemas with this reading alone).
        #[test]
        fn the_direct_meta_reading_agrees_with_the_meta_validators(schema in meta_keyword_value(), d in 0..DIALECTS.len()) {
            let dialect = DIALECTS[d].1;
            let meta_verdict = meta_validate(draft_of(dialect), &schema);
            match meta::read(&schema, dialect) {
                meta::Verdict::Valid => proptest::prop_assert_eq!(meta_verdict, Some(Ok(())), "{:?} {}", dialect, schema),
                meta::Verdict::Invalid(at, what) => proptest::prop_assert!(
                    matches!(meta_verdict, Some(Err(_))), "{:?} {} refused at {} ({})", dialect, schema, at, what),
                // A reference that surely leaves the schema: what a build reports, after the meta-schema.
                meta::Verdict::ExternalRef(..) => {
                    proptest::prop_assert_eq!(&meta_verdict, &Some(Ok(())), "{:?} {}", dialect, schema);
                    let built = build_validator(&schema, draft_of(dialect), "").map(|_| ()).map_err(|e| e.code());
                    proptest::prop_assert_eq!(built, Err(ErrorCode::ExternalRef), "{:?} {}", dialect, schema);
                }
                // A reference that cannot resolve: the build refuses it as not a schema.
                meta::Verdict::Unresolvable(..) => {
                    proptest::prop_assert_eq!(&meta_verdict, &Some(Ok(())), "{:?} {}", dialect, schema);
                    let built = build_validator(&schema, draft_of(dialect), "").map(|_| ()).map_err(|e| e.code());
                    proptest::prop_assert_eq!(built, Err(ErrorCode::InvalidSchema), "{:?} {}", dialect, schema);
                }
                meta::Verdict::Unsure => {}
            }
        }
    }

    /// A reference that resolves nowhere is settled by the direct reading as the build settles
    /// it (fuzzing finding 9: a host validator built such a schema, and SEC-4 then read the
    /// reference as leading anywhere).
    #[test]
    fn the_direct_meta_reading_refuses_references_to_nothing_as_the_build_does() {
        let unresolvable =
            ["ünïcödé ✓ 🎉", "a b", "%%", "%4", "#a#b", "#/$defs/missing", "#/properties/x/y", "#nowhere"];
        for reference in unresolvable {
            let schema = json!({"type": "object", "properties": {"x": {"$ref": reference}}});
            let verdict = meta::read(&schema, Dialect::Draft202012);
            assert!(matches!(verdict, meta::Verdict::Unresolvable(..)), "{reference:?}: {verdict:?}");
            let built = build_validator(&schema, Draft::Draft202012, "").map(|_| ()).map_err(|e| e.code());
            assert_eq!(built, Err(ErrorCode::InvalidSchema), "{reference:?}");
        }
        for reference in ["#/$defs/a%20b", "#/properties/x", "#", ""] {
            let schema = json!({"$defs": {"a b": {"type": "string"}}, "properties": {"x": {"$ref": reference}}});
            let verdict = meta::read(&schema, Dialect::Draft202012);
            assert!(!matches!(verdict, meta::Verdict::Unresolvable(..)), "{reference:?}: {verdict:?}");
        }
    }

    #[test]
    fn the_direct_meta_reading_vouches_for_common_schemas() {
        for schema in [
            json!({"type": "object", "properties": {"a": {"type": ["string", "null"], "maxLength": 3}},
                   "required": ["a"], "additionalProperties": false}),
            json!({"$defs": {"row": {"enum": ["x", 1]}}, "type": "array", "items": {"$ref": "#/$defs/row"}, "minItems": 1}),
            json!({"anyOf": [{"type": "string", "pattern": "^x"}, {"type": "integer", "minimum": 0, "multipleOf": 2}]}),
        ] {
            assert_eq!(meta::read(&schema, Dialect::Draft202012), meta::Verdict::Valid, "{schema}");
        }
        for schema in
            [json!({"type": "objekt"}), json!({"minLength": -1}), json!({"required": ["a", "a"]}), json!({"allOf": []})]
        {
            assert!(matches!(meta::read(&schema, Dialect::Draft202012), meta::Verdict::Invalid(..)), "{schema}");
            assert!(matches!(meta_validate(Draft::Draft202012, &schema), Some(Err(_))), "{schema}");
        }
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
