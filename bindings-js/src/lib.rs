//! WebAssembly binding of `mcp-outputs`, the engine of the npm package `mcp-outputs`
//! (`bindings-js/npm/`).
//!
//! Two builds of this crate: the default one has no JSON Schema validator (the core without its
//! `validator` feature): the core rules on schemas itself, and asks the JavaScript layer, through
//! the host object given to [`set_schema_host`], whether a pattern is a regular expression, to
//! build a validator and to validate, which it does with the caller's own validator (the
//! TypeScript SDK's `jsonSchemaValidator` interface: Ajv, @cfworker/json-schema). The `full`
//! feature puts jsonschema inside the wasm instead.
//!
//! This crate only adapts types and errors. A result or produced value of plain data crosses as
//! a tape the JavaScript layer writes into this module's memory (`mcp_outputs::tape`: checked in
//! one pass, read where it lies); anything else, and every cold argument (declarations, options,
//! tools/list), crosses as JSON text the core reads under its [`Limits`](mcp_outputs::Limits)
//! (the per-call texts into a tape, `tape::parse_text`). The requested outputs of a tape call
//! cross as a tape of their own, before the result's, when they are plain data. The answer of a
//! tape call is a tape in this module's memory (`mcp_outputs::answer`: index nodes name the
//! caller's outputs, held nodes its payloads), which the JavaScript layer reads into objects with
//! the caller's own at those nodes; the text entry points answer JSON text (docs/boundary.md).
//! Errors are thrown as an object carrying the core's
//! [`Error::to_json`] in its `mcpOutputs` property; the JavaScript layer rethrows them as
//! `McpOutputsError`. There is no protocol logic here: every decision is the core's.

use mcp_outputs::json as facade;
use mcp_outputs::payload::PayloadsIn;
use mcp_outputs::tape::TapeJson;
use mcp_outputs::{CheckedResult, Config, Connection, Error, ErrorCode, ReceivedTool, ServerArgument, ServerTool};
use serde_json::Value;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// What the wasm side throws for a core error: a plain object whose `mcpOutputs` property is
/// the address of an answer tape's header (`mod answer`) holding `{code, message, path,
/// jsonrpc?}`, so that no JSON text crosses for it either. The JavaScript layer catches it at
/// once, reads the tape (before any other call can write over it) and throws `McpOutputsError`
/// (a real `Error`) instead, so no caller ever sees it; a plain object rather than a
/// `js_sys::Error` because capturing a second stack trace per error costs several microseconds.
fn js_error(error: &Error) -> JsValue {
    let payload = js_sys::Object::new();
    let header = answer::give(|a| a.write_value(&error.to_json()));
    // Setting a property on a fresh plain object cannot fail; a failure would only lose the
    // payload, and the JavaScript layer then rethrows the bare value unchanged.
    let _ = js_sys::Reflect::set(&payload, &JsValue::from_str("mcpOutputs"), &JsValue::from(header));
    payload.into()
}

type JsResult<T> = Result<T, JsValue>;

/// A value's JSON text, the bytes `Value`'s `Display` writes, by the core's one writer of them
/// (`jsontext::compact`): `Display` would link serde_json's compact and pretty serialisers of
/// `Value` besides (P-JS-4).
fn text(value: &Value) -> String {
    mcp_outputs::jsontext::compact(value)
}

/// A core result as a wasm one, the call run with the JavaScript schema host (default build).
fn lift<T>(result: impl FnOnce() -> mcp_outputs::Result<T>) -> JsResult<T> {
    hosted(result).map_err(|e| js_error(&e))
}

#[cfg(feature = "full")]
fn hosted<T>(f: impl FnOnce() -> T) -> T {
    f()
}

/// Whether this build validates payloads itself (the `full` feature).
#[wasm_bindgen(js_name = hasValidator)]
pub fn has_validator() -> bool {
    cfg!(feature = "full")
}

#[cfg(not(feature = "full"))]
mod host {
    //! The core's `SchemaHost` answered by the JavaScript layer (npm/api.js, `schemaHost`): the
    //! one seam of the caller's validator, for a value, a payload's text, and a payload the
    //! JavaScript layer holds (a tape's held node, validated and written by its slot).
    use mcp_outputs::schema::{CompiledSchema, Instance, SchemaHost, Violation};
    use mcp_outputs::{Error, ErrorCode};
    use std::cell::RefCell;
    use std::rc::Rc;
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        /// The JavaScript host object: see npm/api.js.
        pub type JsSchemaHost;

        /// Whether `pattern` is a regular expression the validator accepts.
        #[wasm_bindgen(method, js_name = patternIsValid)]
        fn pattern_is_valid(this: &JsSchemaHost, pattern: &str) -> bool;

        /// Whether the call in progress has a validator (`options.validator` or `setValidator`).
        #[wasm_bindgen(method, js_name = hasValidator)]
        fn has_validator(this: &JsSchemaHost) -> bool;

        /// Builds the validator of schema `id` from its text: `undefined`, or why it cannot.
        #[wasm_bindgen(method)]
        fn build(this: &JsSchemaHost, id: f64, schema: &str, dialect: &str) -> Option<String>;

        /// Validates an instance (JSON text) against schema `id`: `true` when valid, `null` when
        /// the validator of `id` is not built (then built, and asked again), `{detail, at}` when
        /// invalid, `{error: [code, message]}` when the validator threw. The common answers are
        /// primitives: reading a field of an answer object costs more than a small validation.
        #[wasm_bindgen(method)]
        fn validate(this: &JsSchemaHost, id: f64, instance: &str) -> JsValue;

        /// [`JsSchemaHost::validate`] for the payload the JavaScript layer holds in `slot` of
        /// the call in progress (it never crosses into the wasm).
        #[wasm_bindgen(method, js_name = validatePayload)]
        fn validate_payload(this: &JsSchemaHost, id: f64, slot: u32) -> JsValue;

        /// The held payload of `slot` as `JSON.stringify` writes it (the legacy mirror).
        #[wasm_bindgen(method, js_name = payloadText)]
        fn payload_text(this: &JsSchemaHost, slot: u32) -> String;
    }

    thread_local! {
        static HOST: RefCell<Option<Rc<Js>>> = const { RefCell::new(None) };
    }

    /// The host object, kept for every later call.
    pub fn set(host: JsSchemaHost) {
        HOST.with(|h| *h.borrow_mut() = Some(Rc::new(Js(host))));
    }

    pub fn hosted<T>(f: impl FnOnce() -> T) -> T {
        match HOST.with(|h| h.borrow().clone()) {
            Some(host) => mcp_outputs::schema::with_host(host, f),
            None => f(),
        }
    }

    pub(crate) struct Js(JsSchemaHost);

    fn field(value: &JsValue, name: &str) -> JsValue {
        js_sys::Reflect::get(value, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
    }

    /// A schema id as a JavaScript number: ids count up from 1 and stay far below 2^53.
    #[allow(clippy::cast_precision_loss)]
    fn id_of(schema: &CompiledSchema) -> f64 {
        schema.id() as f64
    }

    /// The host's answer to a validation: asked again once the schema is built when the host
    /// did not know it (its cache is bounded, and another validator may be in force).
    fn answered(
        schema: &CompiledSchema,
        host: &Js,
        ask: impl Fn() -> JsValue,
    ) -> mcp_outputs::Result<Option<Violation>> {
        let mut answer = ask();
        if answer.is_null() {
            host.build(schema).map_err(|why| Error::new(ErrorCode::InvalidSchema, schema.path(), why))?;
            answer = ask();
        }
        if answer.as_bool() == Some(true) {
            return Ok(None);
        }
        let error = field(&answer, "error");
        if !error.is_undefined() {
            let parts = js_sys::Array::from(&error);
            let code = parts.get(0).as_string().and_then(|c| ErrorCode::parse(&c)).unwrap_or(ErrorCode::Malformed);
            return Err(Error::new(code, "", parts.get(1).as_string().unwrap_or_default()));
        }
        // Anything else is a violation: one without a detail (an answer of the wrong shape, or
        // null again after a build) still fails the value rather than passing it.
        Ok(Some(Violation {
            detail: field(&answer, "detail").as_string().unwrap_or_else(|| "invalid".to_owned()),
            at: field(&answer, "at").as_string().unwrap_or_default(),
        }))
    }

    impl SchemaHost for Js {
        fn pattern_is_valid(&self, pattern: &str) -> bool {
            self.0.pattern_is_valid(pattern)
        }

        fn has_validator(&self) -> bool {
            self.0.has_validator()
        }

        fn build(&self, schema: &CompiledSchema) -> Result<(), String> {
            match self.0.build(id_of(schema), &crate::text(schema.source()), schema.dialect().uri()) {
                None => Ok(()),
                Some(why) => Err(why),
            }
        }

        fn validate(&self, schema: &CompiledSchema, instance: Instance<'_>) -> mcp_outputs::Result<Option<Violation>> {
            let id = id_of(schema);
            match instance {
                Instance::Value(value) => {
                    let text = crate::text(value);
                    answered(schema, self, || self.0.validate(id, &text))
                }
                Instance::Text(text) => answered(schema, self, || self.0.validate(id, text)),
                Instance::Held(slot) => answered(schema, self, || self.0.validate_payload(id, slot)),
            }
        }

        fn held_text(&self, slot: u32) -> Option<String> {
            Some(self.0.payload_text(slot))
        }
    }
}

#[cfg(not(feature = "full"))]
use host::hosted;

/// The payload reader of every tape, held payloads or not: the core's own (`payload::InPlace`),
/// which asks the host about a payload JavaScript holds (default build; the full build's writer
/// holds none, and `tape::read` refuses a held node). A trait object, as `ops::ThroughTape`'s:
/// the core's per-call path is generic over the reader, and one instantiation of it is what
/// keeps the wasm small (P-JS-4).
const PAYLOADS: &dyn PayloadsIn<TapeJson> = &mcp_outputs::payload::InPlace;

/// Gives the default build its JavaScript schema host (npm/api.js does, once per instance).
#[cfg(not(feature = "full"))]
#[wasm_bindgen(js_name = setSchemaHost)]
pub fn set_schema_host(host: host::JsSchemaHost) {
    host::set(host);
}

/// Parses an optional JSON text argument under `config`'s limits.
fn parse_opt(config: &Config, text: Option<String>, what: &str) -> mcp_outputs::Result<Option<Value>> {
    text.map(|t| config.limits.parse_text(&t, what)).transpose()
}

/// Library options (`{extensions?, limits?}`) as JSON text, parsed under the default limits.
fn config_from(options: Option<String>) -> mcp_outputs::Result<Arc<Config>> {
    let options = parse_opt(&Config::new(), options, "options")?;
    facade::config(options.as_ref())
}

/// Every error code, in the core's order, as a JSON array of strings.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> String {
    text(&Value::Array(ErrorCode::ALL.iter().map(|c| Value::from(c.as_str())).collect()))
}

/// The version of the core.
#[wasm_bindgen(js_name = coreVersion)]
pub fn core_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// The supported protocol revisions, oldest first, as a JSON array.
#[wasm_bindgen(js_name = protocolVersions)]
pub fn protocol_versions() -> String {
    text(&facade::protocol_versions())
}

/// The limits that library options (`{extensions?, limits?}`, JSON text, or none for the
/// defaults) put in force, every key present (`json::limits_json`). The JavaScript layer
/// serialises values under these, so that it stops as soon as a cap is passed instead of
/// building the whole text first; the options are validated as the operation itself would.
#[wasm_bindgen(js_name = limitsOf)]
pub fn limits_of(options: Option<String>) -> JsResult<String> {
    lift(|| config_from(options).map(|config| text(&facade::limits_json(&config.limits))))
}

/// Panics, which in wasm is a trap: the tests' way to prove that the package recovers from a
/// bug in the engine. Not part of the API (not in the typings, not re-exported).
#[wasm_bindgen(js_name = __panicForTest)]
#[allow(clippy::panic)] // The one intended panic: it exists to be one.
pub fn panic_for_test() {
    panic!("panic requested by a test");
}

/// One connection: the negotiated protocol version and extensions, with the library options.
#[wasm_bindgen]
#[derive(Debug)]
pub struct RawConnection {
    inner: Connection,
}

#[wasm_bindgen]
impl RawConnection {
    /// `connection`: `{protocolVersion?, negotiated?}`; `options`: `{extensions?, limits?}`.
    #[wasm_bindgen(constructor)]
    pub fn new(connection: Option<String>, options: Option<String>) -> JsResult<RawConnection> {
        lift(|| {
            let config = config_from(options)?;
            let value = parse_opt(&config, connection, "connection")?;
            let inner = facade::connection_init(&config, value.as_ref())?;
            Ok(RawConnection { inner })
        })
    }

    /// The connection agreed after `initialize` or `server/discover`: `init` is
    /// `{protocolVersion, clientCapabilities, serverCapabilities}` (JSON text).
    pub fn negotiate(init: String, options: Option<String>) -> JsResult<RawConnection> {
        lift(|| {
            let config = config_from(options)?;
            Ok(RawConnection { inner: facade::negotiate_text(&config, &init)? })
        })
    }

    /// The connection of one request (2026-07-28 on) from its `params` and the server's
    /// capabilities (both JSON text).
    #[wasm_bindgen(js_name = fromRequest)]
    pub fn from_request(
        params: String,
        server_capabilities: String,
        options: Option<String>,
    ) -> JsResult<RawConnection> {
        lift(|| {
            let config = config_from(options)?;
            Ok(RawConnection { inner: facade::connection_from_request_text(&config, &params, &server_capabilities)? })
        })
    }

    /// The `params` of a tools/call (JSON text in, JSON text out).
    #[wasm_bindgen(js_name = toolsCallParams)]
    pub fn tools_call_params(
        &self,
        name: String,
        arguments: Option<String>,
        plan: String,
        client_capabilities: String,
    ) -> JsResult<String> {
        lift(|| {
            let config = self.inner.config();
            let arguments = parse_opt(config, arguments, "arguments")?;
            let plan = config.limits.parse_text(&plan, "plan")?;
            let caps = config.limits.parse_text(&client_capabilities, "clientCapabilities")?;
            Ok(text(&self.inner.tools_call_params_json(&name, arguments.as_ref(), &plan, &caps)?))
        })
    }

    /// The `params` of any request on this connection (JSON text in, JSON text out).
    #[wasm_bindgen(js_name = requestParams)]
    pub fn request_params(&self, params: String, client_capabilities: String) -> JsResult<String> {
        lift(|| {
            let limits = &self.inner.config().limits;
            let params = limits.parse_text(&params, "params")?;
            let caps = limits.parse_text(&client_capabilities, "clientCapabilities")?;
            Ok(text(&self.inner.request_params_json(&params, &caps)?))
        })
    }

    /// The tools/list result for this connection, from one Tool's JSON text per tool, with the
    /// cache option `{ttlMs, cacheScope}` (JSON text, optional).
    #[wasm_bindgen(js_name = toolsListResult)]
    pub fn tools_list_result(
        &self,
        tools: Vec<String>,
        cache: Option<String>,
        next_cursor: Option<String>,
    ) -> JsResult<String> {
        lift(|| self.inner.tools_list_result_text(&tools, cache.as_deref(), next_cursor.as_deref()))
    }

    /// The protocol version string.
    #[wasm_bindgen(getter, js_name = protocolVersion)]
    pub fn protocol_version(&self) -> String {
        self.inner.version().as_str().to_owned()
    }

    /// The negotiated extension ids, as a JSON array.
    #[wasm_bindgen(getter)]
    pub fn negotiated(&self) -> String {
        text(&Value::from(self.inner.negotiated().to_vec()))
    }

    /// The limits of this connection's options, as `limitsOf` writes them.
    #[wasm_bindgen(getter)]
    pub fn limits(&self) -> String {
        text(&facade::limits_json(self.inner.limits()))
    }
}

/// A tool declared by a server, compiled once.
#[wasm_bindgen]
#[derive(Debug)]
pub struct RawServerTool {
    inner: ServerTool,
}

#[wasm_bindgen]
impl RawServerTool {
    /// An error the JavaScript serialiser found in a declaration before it reached the core
    /// (a limit passed, a value JSON cannot hold), as the core answers it: the serialiser must
    /// not decide the wire form itself.
    #[wasm_bindgen(js_name = declarationError)]
    pub fn declaration_error(code: String, message: String, path: String) -> JsValue {
        let code = ErrorCode::parse(&code).unwrap_or(ErrorCode::Malformed);
        js_error(&ServerArgument::Tool.fault(Error::new(code, path, message)))
    }

    /// Declares `tool` (JSON text), with optional legacy options and library options.
    #[wasm_bindgen(constructor)]
    pub fn new(tool: String, legacy: Option<String>, options: Option<String>) -> JsResult<RawServerTool> {
        lift(|| {
            let config = config_from(options)?;
            // A declaration over a limit is the server's own fault, as every error of
            // `ServerTool::declare` is: the text path must not lose the JSON-RPC code.
            let on_wire = |e: mcp_outputs::Error| ServerArgument::Tool.fault(e);
            let tool = config.limits.parse_text(&tool, "tool").map_err(on_wire)?;
            let legacy = parse_opt(&config, legacy, "legacy").map_err(on_wire)?;
            Ok(RawServerTool { inner: ServerTool::declare(&tool, legacy.as_ref(), &config)? })
        })
    }

    /// The tool's name.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.inner.name().to_owned()
    }

    /// The warning codes, as a JSON array.
    #[wasm_bindgen(getter)]
    pub fn warnings(&self) -> String {
        text(&facade::warnings(self.inner.warnings()))
    }

    /// The Tool object for tools/list on this connection, as JSON text.
    pub fn advertise(&self, conn: &RawConnection) -> String {
        text(&self.inner.advertise(&conn.inner))
    }

    /// The selection for a request's `requestedOutputs` (JSON text, or none when omitted).
    pub fn select(&self, conn: &RawConnection, requested: Option<String>) -> JsResult<String> {
        lift(|| self.inner.select_text(&conn.inner, requested.as_deref()))
    }

    /// The CallToolResult for the wire, as JSON text.
    pub fn respond(&self, conn: &RawConnection, requested: Option<String>, produced: String) -> JsResult<String> {
        // `ServerTool::respond_text`, in its order and with its codes and answers (numbers as
        // `serde_json` parsed them: `tape::ExactTape`), the produced outputs read into a tape:
        // both builds run every call on a tape (the default build's `runOperation` too).
        lift(|| {
            let conn = &conn.inner;
            let requested = server_requested(conn, requested)?;
            let selectors = self.inner.select(conn, requested.as_ref())?;
            let read = mcp_outputs::tape::parse_text(conn.limits(), &produced, "produced")
                .map_err(|e| ServerArgument::Tool.fault(e))?;
            let tape = read.tape();
            let out = self.inner.respond_selected::<TapeJson, _>(conn, &selectors, tape.root(), PAYLOADS)?;
            Ok(text(&out.into_value()))
        })
    }

    /// `respond` of produced outputs the JavaScript layer wrote as a tape (see
    /// `RawReceivedTool::check_tape`), the requested outputs as a tape before it (`req_*`, when
    /// they are plain data) or as JSON text: the address of the answer's header (`mod
    /// answer`), the wire result written as a tape, each held payload it carries (default
    /// build) a held node, for the JavaScript layer to put its caller's own payload back.
    #[wasm_bindgen(js_name = respondTape)]
    #[allow(clippy::too_many_arguments)]
    pub fn respond_tape(
        &self,
        conn: &RawConnection,
        requested: Option<String>,
        req_words: u32,
        req_numbers: u32,
        req_bytes: u32,
        words: u32,
        numbers: u32,
        bytes: u32,
        text_bytes: Option<u32>,
        lone_at: u32,
        lone: Option<String>,
    ) -> JsResult<u32> {
        lift(|| {
            let conn = &conn.inner;
            let requested = server_requested(conn, requested)?;
            tape::read(
                text_bytes.is_some(),
                [req_words, req_numbers, req_bytes],
                [words, numbers, bytes],
                |request, result| {
                    let request_fault = |e| ServerArgument::Request.fault(e);
                    // `ServerTool::respond_node`'s order: the request's faults, then the produced
                    // outputs' (a tape that does not check out among them).
                    let selectors = match request.map_err(request_fault)? {
                        Some(request) => {
                            let root = request.tape.root();
                            // What the text path's parse reports (`Limits::parse_text`'s walk, its
                            // paths within the request), over the tape.
                            conn.limits().check_node::<TapeJson>(&root, 1, "").map_err(request_fault)?;
                            self.inner.select_node::<TapeJson>(conn, Some(&root))?
                        }
                        None => self.inner.select(conn, requested.as_ref())?,
                    };
                    let tape = result
                        .and_then(|tape| match text_bytes {
                            Some(text_bytes) => {
                                snapshot(conn.limits(), tape, text_bytes, lone_at, lone.as_deref(), "produced")
                            }
                            None => Ok(tape),
                        })
                        .map_err(|e| ServerArgument::Tool.fault(e))?;
                    let out = self.inner.respond_selected::<TapeJson, _>(conn, &selectors, tape.root(), PAYLOADS)?;
                    Ok(answer::give(|a| a.write_out(&out)))
                },
            )
        })
    }

    /// The error of a respond whose produced outputs JavaScript could not serialise
    /// (`code`/`message`/`path`): the core puts the request's own faults first.
    #[wasm_bindgen(js_name = respondUnread)]
    pub fn respond_unread(
        &self,
        conn: &RawConnection,
        requested: Option<String>,
        code: String,
        message: String,
        path: String,
    ) -> JsValue {
        let code = ErrorCode::parse(&code).unwrap_or(ErrorCode::Malformed);
        js_error(&self.inner.respond_unread(&conn.inner, requested.as_deref(), Error::new(code, path, message)))
    }
}

/// Declares every tool of a tools/list (`tools`: a JSON array; `legacy_by_tool`: an object of
/// legacy options keyed by tool name), the first failing tool being the error.
#[wasm_bindgen(js_name = declareTools)]
pub fn declare_tools(
    tools: String,
    legacy_by_tool: Option<String>,
    options: Option<String>,
) -> JsResult<Vec<RawServerTool>> {
    lift(|| {
        let config = config_from(options)?;
        let tools = config.limits.parse_text(&tools, "tools")?;
        let legacy_by_tool = parse_opt(&config, legacy_by_tool, "legacyByTool")?;
        let declared = mcp_outputs::wire::declare_tools(&tools, legacy_by_tool.as_ref(), &config)?;
        Ok(declared.into_iter().map(|inner| RawServerTool { inner }).collect())
    })
}

/// A whole tools/list result as received (JSON text), accepted for `conn` (LIST-2).
#[wasm_bindgen]
#[derive(Debug)]
pub struct RawDiscovered {
    tools: Vec<ReceivedTool>,
    accepted: Vec<usize>,
    summary: String,
    warnings: String,
}

#[wasm_bindgen]
impl RawDiscovered {
    /// Reads and accepts every Tool of the result.
    #[wasm_bindgen(constructor)]
    pub fn new(result: String, conn: &RawConnection) -> JsResult<RawDiscovered> {
        lift(|| {
            let result = conn.inner.limits().parse_text(&result, "result")?;
            let discovered = ReceivedTool::discover(&result, &conn.inner)?;
            Ok(RawDiscovered {
                warnings: text(&facade::warnings(&discovered.warnings)),
                summary: text(&discovered.to_json()),
                accepted: discovered.accepted,
                tools: discovered.tools,
            })
        })
    }

    /// The accepted tools, in the order received (each handed over once).
    #[wasm_bindgen(js_name = takeTools)]
    pub fn take_tools(&mut self) -> Vec<RawReceivedTool> {
        std::mem::take(&mut self.tools).into_iter().map(RawReceivedTool::of).collect()
    }

    /// The warnings (`{code, path}` each), as a JSON array.
    #[wasm_bindgen(getter)]
    pub fn warnings(&self) -> String {
        self.warnings.clone()
    }

    /// `discover`'s answer as JSON text: names, `excluded`, `cache`, `nextCursor`, `warnings`.
    #[wasm_bindgen(getter)]
    pub fn summary(&self) -> String {
        self.summary.clone()
    }

    /// The index in the result's `tools` of each accepted tool, in order.
    #[wasm_bindgen(getter)]
    pub fn accepted(&self) -> Vec<usize> {
        self.accepted.clone()
    }
}

/// A tool as a host received it in tools/list, accepted for one connection.
#[wasm_bindgen]
#[derive(Debug)]
pub struct RawReceivedTool {
    inner: ReceivedTool,
    /// The selectors of the last requested outputs (their JSON text, `None` for none) on the
    /// held paths: a host sends the same request call after call, and reading and resolving it
    /// again was a tenth of a small call.
    last_selection: std::cell::RefCell<Option<(Asked, Selectors)>>,
}

/// The requested outputs of the last call on a held path: their JSON text (`None` for none), or
/// their tape's streams (numbers by their bits).
#[derive(Debug)]
enum Asked {
    Text(Option<String>),
    Tape(Vec<u32>, Vec<u64>, Vec<u8>),
}

/// Resolved selectors, shared between the cache and the call that uses them.
type Selectors = std::rc::Rc<[mcp_outputs::Selector]>;

impl RawReceivedTool {
    fn of(inner: ReceivedTool) -> Self {
        RawReceivedTool { inner, last_selection: std::cell::RefCell::new(None) }
    }
}

#[wasm_bindgen]
impl RawReceivedTool {
    /// Accepts `tool` (JSON text) for `conn`.
    #[wasm_bindgen(constructor)]
    pub fn new(tool: String, conn: &RawConnection) -> JsResult<RawReceivedTool> {
        lift(|| {
            let tool = conn.inner.limits().parse_text(&tool, "tool")?;
            Ok(RawReceivedTool::of(ReceivedTool::accept(&tool, &conn.inner)?))
        })
    }

    /// The warning codes, as a JSON array.
    #[wasm_bindgen(getter)]
    pub fn warnings(&self) -> String {
        text(&facade::warnings(self.inner.warnings()))
    }

    /// The tool's name.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.inner.name().to_owned()
    }

    /// Plans a call from `{mode | consumers, requireSchema?, schemas?}` (JSON text).
    pub fn plan(&self, request: String) -> JsResult<String> {
        lift(|| {
            let request = self.inner.connection().limits().parse_text(&request, "plan request")?;
            Ok(text(&self.inner.plan_json(&request)?))
        })
    }

    /// Checks a result (JSON text) against the request; the address of the answer's header
    /// (`mod answer`: `{}`, `{warnings}` or `{resultType: "input_required"}` written as a tape,
    /// as `check_tape` writes it, so that one answer writer serves both paths).
    /// `legacy_structured` (JSON text) is a local rule for legacy `structuredContent`, only
    /// validated here.
    pub fn check(&self, requested: Option<String>, result: String, legacy_structured: Option<String>) -> JsResult<u32> {
        lift(|| {
            self.inner.legacy_rule_text(legacy_structured.as_deref())?;
            let (selectors, buf) = self.read_text(requested, &result)?;
            let tape = buf.tape();
            let checked = self.inner.check_node::<TapeJson, _>(&selectors, tape.root(), PAYLOADS)?;
            Ok(answer::give(|a| a.write_value(&checked.to_json())))
        })
    }

    /// The error of a `check` or `route` whose result the JavaScript layer could not read
    /// (`code`, `message`, `path`): the local rule's or the request's own fault when there is
    /// one, as the core ranks them (`ReceivedTool::check_unread`).
    #[wasm_bindgen(js_name = checkUnread)]
    pub fn check_unread(
        &self,
        requested: Option<String>,
        legacy_structured: Option<String>,
        code: String,
        message: String,
        path: String,
    ) -> JsValue {
        let code = ErrorCode::parse(&code).unwrap_or(ErrorCode::Malformed);
        js_error(&self.inner.check_unread(
            requested.as_deref(),
            legacy_structured.as_deref(),
            Error::new(code, path, message),
        ))
    }

    /// `check` of a result the JavaScript layer wrote as a tape ([`tape_area`]: `words`,
    /// `numbers` and `bytes` long), and its route when `route`: a tape of plain data, its
    /// structured payloads held there (default build) or written in it (full build), or a
    /// snapshot's (`text_bytes`: the size of the text it stands for, see `tape::snapshot`); the
    /// requested outputs as a tape before it (`req_*`, when they are plain data) or as JSON text.
    /// The address of the answer's header (`mod answer`): the check's verdict, or the route,
    /// its routed outputs as index nodes and the held payloads it names (the View, a legacy
    /// structured output) as held nodes, for the JavaScript layer to put its caller's own objects
    /// in their place. One entry for both operations and both kinds of tape: each entry's glue
    /// costs the npm wasm about 0.5 KB gzip (P-JS-4).
    #[wasm_bindgen(js_name = checkTape)]
    #[allow(clippy::too_many_arguments)]
    pub fn check_tape(
        &self,
        route: bool,
        requested: Option<String>,
        req_words: u32,
        req_numbers: u32,
        req_bytes: u32,
        words: u32,
        numbers: u32,
        bytes: u32,
        text_bytes: Option<u32>,
        lone_at: u32,
        lone: Option<String>,
        legacy_structured: Option<String>,
    ) -> JsResult<u32> {
        lift(|| {
            let rule = self.inner.legacy_rule_text(legacy_structured.as_deref())?;
            let (request, result) = ([req_words, req_numbers, req_bytes], [words, numbers, bytes]);
            // The check's verdict, or the route: its outputs as index nodes and its held payloads
            // as held nodes, for the JavaScript layer to put its caller's own objects in their
            // place; a snapshot holds nothing of the caller's, so every node is then a copy read
            // from the checked tape, the routed outputs included.
            let answer = |checked: &CheckedResult<'_, TapeJson>, copied: bool| {
                if !route {
                    return answer::give(|a| a.write_value(&checked.to_json()));
                }
                let route = self.inner.route_node(checked, rule.as_ref());
                answer::give(|a| if copied { a.write_route_copied(&route) } else { a.write_route(&route) })
            };
            if let Some(text_bytes) = text_bytes {
                return self.read_snapshot(requested, request, result, text_bytes, lone_at, lone, |selectors, tape| {
                    let checked = self.inner.check_node::<TapeJson, _>(&selectors, tape.root(), PAYLOADS)?;
                    Ok(answer(&checked, true))
                });
            }
            tape::read(false, request, result, |request, result| {
                let tape = result?;
                let checked =
                    self.inner.check_node_then(|| self.selection(requested, request?), tape.root(), PAYLOADS)?;
                Ok(answer(&checked, false))
            })
        })
    }

    /// Checks and routes a result (JSON text); the address of the answer's header (`mod
    /// answer`), the route written as `check_tape` writes a route: each routed output of
    /// `result.outputs` is an index node, for the JavaScript layer to put there the output it
    /// parses from the text that was checked (outputs never travel back across the boundary).
    /// The text path holds nothing, so every other node (the View, a legacy structured output)
    /// is a copy read from the tape.
    /// `legacy_structured` (JSON text) names the consumer of a legacy `structuredContent`.
    pub fn route(&self, requested: Option<String>, result: String, legacy_structured: Option<String>) -> JsResult<u32> {
        lift(|| {
            let rule = self.inner.legacy_rule_text(legacy_structured.as_deref())?;
            let (selectors, buf) = self.read_text(requested, &result)?;
            let tape = buf.tape();
            let checked = self.inner.check_node::<TapeJson, _>(&selectors, tape.root(), PAYLOADS)?;
            let route = self.inner.route_node(&checked, rule.as_ref());
            Ok(answer::give(|a| a.write_route(&route)))
        })
    }
}

impl RawReceivedTool {
    /// `read_text` of a snapshot: the requested outputs (their tape, `request`, when they are
    /// plain data, else their text), the result's tape (checked as the text it stands for), then
    /// the selection, in `read_text`'s order; `f` answers from them.
    #[allow(clippy::too_many_arguments)]
    fn read_snapshot(
        &self,
        requested: Option<String>,
        request: tape::Extents,
        result: tape::Extents,
        text_bytes: u32,
        lone_at: u32,
        lone: Option<String>,
        f: impl FnOnce(Selectors, mcp_outputs::tape::Tape<'_>) -> mcp_outputs::Result<u32>,
    ) -> mcp_outputs::Result<u32> {
        let limits = self.inner.connection().limits();
        // The request's text is read first, as `read_text` reads it (a plain request's tape has
        // no fault of its limits: the writer wrote it within them).
        if let Some(text) = &requested {
            limits.parse_text(text, "requestedOutputs")?;
        }
        tape::read(true, request, result, |request, read| {
            let tape = snapshot(limits, read?, text_bytes, lone_at, lone.as_deref(), "result")?;
            f(self.selection(requested, request?)?, tape)
        })
    }

    /// The selectors of the requested outputs (a tape JavaScript wrote, else JSON text or none),
    /// read once for a request equal to the last call's: compared by its text, or by its tape's
    /// streams, which JavaScript writes anew from the caller's value on every call (so a request
    /// array the caller changed between two calls is read again).
    fn selection(&self, requested: Option<String>, tape: Option<tape::Request<'_>>) -> mcp_outputs::Result<Selectors> {
        if let Some((asked, selectors)) = &*self.last_selection.borrow() {
            let same = match (asked, &tape) {
                (Asked::Tape(words, numbers, bytes), Some(t)) => {
                    words.as_slice() == t.words
                        && bytes.as_slice() == t.bytes
                        && numbers.len() == t.numbers.len()
                        && numbers.iter().zip(t.numbers).all(|(a, b)| *a == b.to_bits())
                }
                (Asked::Text(text), None) => *text == requested,
                _ => false,
            };
            if same {
                return Ok(selectors.clone());
            }
        }
        let limits = self.inner.connection().limits();
        let (asked, selectors): (Asked, Selectors) = match tape {
            Some(t) => {
                // `parse_text`'s limits walk, over the tape (the same caps, costs and errors).
                let root = t.tape.root();
                limits.check_node::<TapeJson>(&root, 1, "")?;
                let selectors = self.inner.selection_node::<TapeJson>(Some(&root))?;
                let numbers = t.numbers.iter().map(|n| n.to_bits()).collect();
                (Asked::Tape(t.words.to_vec(), numbers, t.bytes.to_vec()), selectors.into())
            }
            None => {
                let read = requested.as_deref().map(|t| limits.parse_text(t, "requestedOutputs")).transpose()?;
                (Asked::Text(requested), self.inner.selection(read.as_ref())?.into())
            }
        };
        *self.last_selection.borrow_mut() = Some((asked, selectors.clone()));
        Ok(selectors)
    }
}

impl RawReceivedTool {
    /// The selectors and the result of a call given as JSON text, read as `check_text` reads
    /// them, in its order: the requested outputs' text, the result's (into a tape: both builds
    /// run every call on a tape), then the selection (its errors come after the result's).
    fn read_text(
        &self,
        requested: Option<String>,
        result: &str,
    ) -> mcp_outputs::Result<(Vec<mcp_outputs::Selector>, mcp_outputs::tape::ExactTape)> {
        let limits = self.inner.connection().limits();
        let requested = requested.map(|t| limits.parse_text(&t, "requestedOutputs")).transpose()?;
        let result = mcp_outputs::tape::parse_text(limits, result, "result")?;
        Ok((self.inner.selection(requested.as_ref())?, result))
    }
}

/// A snapshot's tape, checked as the text it stands for (`mcp_outputs::tape::snapshot`).
fn snapshot<'a>(
    limits: &mcp_outputs::Limits,
    tape: mcp_outputs::tape::Tape<'a>,
    text_bytes: u32,
    lone_at: u32,
    lone: Option<&str>,
    what: &str,
) -> mcp_outputs::Result<mcp_outputs::tape::Tape<'a>> {
    let size = |n: u32| usize::try_from(n).unwrap_or(usize::MAX);
    mcp_outputs::tape::snapshot(limits, &tape, size(text_bytes), lone.map(|text| (size(lone_at), text)), what)?;
    Ok(tape)
}

/// A server's requested outputs (JSON text) read under `conn`'s limits: a fault of theirs is
/// the request's (the respond entries that read the produced outputs themselves).
fn server_requested(conn: &Connection, requested: Option<String>) -> mcp_outputs::Result<Option<Value>> {
    requested
        .map(|t| conn.limits().parse_text(&t, "requestedOutputs"))
        .transpose()
        .map_err(|e| ServerArgument::Request.fault(e))
}

/// Where structured payloads sit in what a host checks (`result`) and what a server responds
/// with (`produced`): `{"result": [[step, …], …], "produced": …}`, a step a member name or `"*"`
/// for every element. The JavaScript layer holds the payloads it finds there (default build).
#[wasm_bindgen(js_name = payloadPositions)]
pub fn payload_positions() -> String {
    use mcp_outputs::payload::Step;
    let steps = |positions: &[&[Step]]| {
        Value::Array(
            positions
                .iter()
                .map(|steps| {
                    Value::Array(
                        steps
                            .iter()
                            .map(|s| match s {
                                Step::Key(name) => Value::from(*name),
                                Step::Each => Value::from("*"),
                            })
                            .collect(),
                    )
                })
                .collect(),
        )
    };
    let positions =
        [("result", steps(mcp_outputs::payload::RESULT)), ("produced", steps(mcp_outputs::payload::PRODUCED))];
    text(&Value::Object(positions.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
}

/// Converts a 2026-07-28 Tool (JSON text) into `{tool, legacy?, warnings?}` (JSON text): the
/// 2026-12-01 declaration and the legacy options that keep its established behaviour.
#[wasm_bindgen(js_name = migrateTool)]
pub fn migrate_tool(legacy_tool: String, options: Option<String>, library: Option<String>) -> JsResult<String> {
    lift(|| {
        let config = config_from(library)?;
        let tool = config.limits.parse_text(&legacy_tool, "legacyTool")?;
        let options = parse_opt(&config, options, "options")?;
        let options = mcp_outputs::migration::MigrateOptions::from_json(options.as_ref())?;
        Ok(text(&mcp_outputs::migration::migrate(&tool, options, &config.limits)?.to_json()))
    })
}

/// Runs one operation of the conformance contract (`ops::run`) on its input (JSON text).
#[wasm_bindgen(js_name = runOperation)]
pub fn run_operation(op: String, input: String) -> JsResult<String> {
    lift(|| {
        // The input wraps the op's arguments: the core checks each argument's limits, with the
        // JSON-RPC code of the op's side, so the envelope is only held to the ceiling depth
        // (which every walk fits) and no byte cap of its own.
        let wrapper = mcp_outputs::Limits {
            max_depth: mcp_outputs::MAX_DEPTH_CEILING,
            max_bytes: usize::MAX,
            ..mcp_outputs::Limits::default()
        };
        let input = wrapper.parse_text(&input, "input")?;
        // The result or produced outputs of check, route and respond are read through a tape,
        // as every call of this package: its wasm links one per-call path (P-JS-4).
        let calls = &mcp_outputs::ops::ThroughTape;
        Ok(text(&mcp_outputs::ops::run_with(&op, &input, mcp_outputs::Limits::default(), calls)?))
    })
}

/// The operations of the conformance contract with the input fields each accepts, and the
/// fields every operation accepts: `{"operations": {op: [field, …]}, "commonFields": […]}`
/// (the corpus runner's linter uses the core's own table).
#[wasm_bindgen(js_name = contractOperations)]
pub fn contract_operations() -> String {
    let operations: serde_json::Map<String, Value> = mcp_outputs::ops::OPERATIONS
        .iter()
        .map(|(op, fields)| ((*op).to_owned(), Value::from(fields.to_vec())))
        .collect();
    let contract = [
        ("operations", Value::Object(operations)),
        ("commonFields", Value::from(mcp_outputs::ops::COMMON_FIELDS.to_vec())),
    ];
    text(&Value::Object(contract.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
}

/// A bare JSON Schema compiled once by the core (same dialects, `$ref` rules and limits as a
/// declared tool's schemas), then used for any number of validations.
#[wasm_bindgen]
#[derive(Debug)]
pub struct RawSchema {
    inner: mcp_outputs::schema::CompiledSchema,
    config: Arc<Config>,
}

#[wasm_bindgen]
impl RawSchema {
    /// Compiles `schema` (JSON text); `options`: `{extensions?, limits?}` (JSON text).
    #[wasm_bindgen(constructor)]
    pub fn new(schema: String, options: Option<String>) -> JsResult<RawSchema> {
        lift(|| {
            let config = config_from(options)?;
            let value = config.limits.parse_text(&schema, "schema")?;
            Ok(RawSchema { inner: mcp_outputs::schema::CompiledSchema::compile(&value, "")?, config })
        })
    }

    /// Validates an instance (JSON text): `schema-violation` whose path is the JSON Pointer of
    /// the first failing location in the instance.
    pub fn validate(&self, instance: String) -> JsResult<()> {
        lift(|| {
            let value = self.config.limits.parse_text(&instance, "instance")?;
            self.inner.validate(&value, "", "instance")
        })
    }
}

/// The tape a JavaScript call writes its result into (docs/boundary.md): three areas of the
/// wasm memory, grown on request, that npm/api.js views as typed arrays and fills in one pass;
/// the core reads them where they lie (`mcp_outputs::tape`), after checking them.
mod tape {
    use mcp_outputs::tape::Tape;
    use std::cell::RefCell;

    #[derive(Default)]
    struct Areas {
        words: Vec<u32>,
        numbers: Vec<f64>,
        bytes: Vec<u8>,
    }

    thread_local! {
        static AREAS: RefCell<Areas> = RefCell::new(Areas::default());
        /// Tapes read since the instance started, for the tests that prove a call took the tape.
        static READS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
        /// Snapshots read since the instance started (the same tests).
        static SNAPSHOTS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }

    /// How many tapes of plain data were read.
    pub fn reads() -> u32 {
        READS.with(std::cell::Cell::get)
    }

    /// How many snapshots were read.
    pub fn snapshots() -> u32 {
        SNAPSHOTS.with(std::cell::Cell::get)
    }

    /// The address of area `which` (0 words, 1 numbers, 2 bytes), at least `len` long (grown to
    /// twice that, so that a writer asks rarely; what it holds is kept).
    pub fn area(which: u32, len: u32) -> u32 {
        AREAS.with(|areas| {
            let mut areas = areas.borrow_mut();
            let len = usize::try_from(len).unwrap_or(usize::MAX);
            fn grow<T: Copy + Default>(area: &mut Vec<T>, len: usize) -> u32 {
                if area.len() < len {
                    area.resize(len.saturating_mul(2), T::default());
                }
                // wasm32: an address is 32 bits.
                u32::try_from(area.as_ptr() as usize).unwrap_or(0)
            }
            match which {
                0 => grow(&mut areas.words, len),
                1 => grow(&mut areas.numbers, len),
                _ => grow(&mut areas.bytes, len),
            }
        })
    }

    /// The extents of a tape in the areas: words, numbers, bytes.
    pub type Extents = [u32; 3];

    /// The requested outputs of plain data, as a tape the JavaScript layer wrote, with its
    /// streams (what the selection cache compares).
    pub struct Request<'a> {
        pub tape: Tape<'a>,
        pub words: &'a [u32],
        pub numbers: &'a [f64],
        pub bytes: &'a [u8],
    }

    /// Runs `f` over what the JavaScript layer wrote, each tape checked (`Tape::new`): the
    /// requested outputs' tape at the start of the areas when `request` has words (`None` when
    /// it has none: no request, or one that crossed as text), then the result's (`result`). The
    /// caller decides which fault comes first. `snapshot`: the result is a snapshot's tape (a
    /// value JavaScript read once with `JSON.stringify`'s semantics, nothing held: npm/api.js),
    /// counted apart from the tapes of plain data.
    pub fn read(
        snapshot: bool,
        request: Extents,
        result: Extents,
        f: impl FnOnce(mcp_outputs::Result<Option<Request<'_>>>, mcp_outputs::Result<Tape<'_>>) -> mcp_outputs::Result<u32>,
    ) -> mcp_outputs::Result<u32> {
        let count = if snapshot { &SNAPSHOTS } else { &READS };
        count.with(|reads| reads.set(reads.get().wrapping_add(1)));
        // One copy of the areas' reading for every entry (P-JS-4): `f` behind a `dyn`, which
        // `read_areas` calls exactly once.
        let mut f = Some(f);
        read_areas(snapshot, request, result, &mut |request, result| match f.take() {
            Some(f) => f(request, result),
            None => Err(mcp_outputs::Error::new(mcp_outputs::ErrorCode::Malformed, "", "a tape read twice")),
        })
    }

    type Reader<'f> = dyn FnMut(mcp_outputs::Result<Option<Request<'_>>>, mcp_outputs::Result<Tape<'_>>) -> mcp_outputs::Result<u32>
        + 'f;

    fn read_areas(snapshot: bool, request: Extents, result: Extents, f: &mut Reader<'_>) -> mcp_outputs::Result<u32> {
        AREAS.with(|areas| {
            let areas = areas.borrow();
            // A stream's part from `start`, `len` long, when the area holds it.
            fn part<E>(area: &[E], start: u32, len: u32) -> Option<&[E]> {
                let start = usize::try_from(start).ok()?;
                area.get(start..start.checked_add(usize::try_from(len).ok()?)?)
            }
            let streams = |start: Extents, len: Extents| match (
                part(&areas.words, start[0], len[0]),
                part(&areas.numbers, start[1], len[1]),
                part(&areas.bytes, start[2], len[2]),
            ) {
                (Some(w), Some(n), Some(b)) => Ok((w, n, b)),
                _ => Err(mcp_outputs::Error::new(
                    mcp_outputs::ErrorCode::Malformed,
                    "",
                    "result: a tape longer than its areas",
                )),
            };
            // A snapshot's tape may name a member twice, for `tape::snapshot` to answer as its
            // text does (`Tape::new_snapshot`); the request's never.
            let checked = |(w, n, b), snapshot: bool| {
                let tape = if snapshot { Tape::new_snapshot(w, n, b) } else { Tape::new(w, n, b) };
                #[cfg(feature = "full")]
                let tape = tape.and_then(written);
                tape
            };
            let (request, start) = if request[0] == 0 {
                (Ok(None), [0; 3])
            } else {
                let read = streams([0; 3], request).and_then(|(words, numbers, bytes)| {
                    let tape = checked((words, numbers, bytes), false)?;
                    // The writer holds no payload of a request (it has none).
                    if tape.held_count() != 0 {
                        return Err(mcp_outputs::Error::new(
                            mcp_outputs::ErrorCode::Malformed,
                            "",
                            "requestedOutputs: a held node in its tape",
                        ));
                    }
                    Ok(Request { tape, words, numbers, bytes })
                });
                (read.map(Some), request)
            };
            f(request, streams(start, result).and_then(|streams| checked(streams, snapshot)))
        })
    }

    /// A tape as the full build's writer writes it: no payload held (a held node, which reads
    /// as `null`, would be validated as one: mcp_outputs::tape, "Held nodes").
    #[cfg(feature = "full")]
    fn written(tape: Tape<'_>) -> mcp_outputs::Result<Tape<'_>> {
        if tape.held_count() != 0 {
            return Err(mcp_outputs::Error::new(
                mcp_outputs::ErrorCode::Malformed,
                "",
                "result: a held node in a tape of a build that holds no payload",
            ));
        }
        Ok(tape)
    }
}

/// The answer of a tape call (`mcp_outputs::answer`: a tape with held and index nodes), kept in
/// this module's memory for the JavaScript layer to read through its views (npm/api.js,
/// `answerReader`) instead of crossing as JSON text.
mod answer {
    use mcp_outputs::answer::AnswerTape;
    use std::cell::RefCell;

    thread_local! {
        static ANSWER: RefCell<AnswerTape> = RefCell::new(AnswerTape::default());
        /// Where the answer's streams lie: words' address and length, numbers', bytes'.
        static HEADER: RefCell<[u32; 6]> = const { RefCell::new([0; 6]) };
    }

    /// Writes the answer with `write`; the address of its header (wasm32: an address is 32
    /// bits; the streams' buffers are kept from call to call).
    pub fn give(write: impl FnOnce(&mut AnswerTape)) -> u32 {
        ANSWER.with(|answer| {
            let mut answer = answer.borrow_mut();
            write(&mut answer);
            let (words, numbers, bytes) = answer.streams();
            let word = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
            HEADER.with(|header| {
                *header.borrow_mut() = [
                    word(words.as_ptr() as usize),
                    word(words.len()),
                    word(numbers.as_ptr() as usize),
                    word(numbers.len()),
                    word(bytes.as_ptr() as usize),
                    word(bytes.len()),
                ];
                word(header.as_ptr() as usize)
            })
        })
    }
}

/// The strings of the answers' name nodes (`mcp_outputs::answer::NAMES`), as a JSON array: the
/// JavaScript layer decodes them once.
#[wasm_bindgen(js_name = answerNames)]
pub fn answer_names() -> String {
    text(&Value::from(mcp_outputs::answer::NAMES.to_vec()))
}

/// The address of tape area `which` (0 words, 1 numbers, 2 bytes), at least `len` long: see
/// `mod tape`.
#[wasm_bindgen(js_name = tapeArea)]
pub fn tape_area(which: u32, len: u32) -> u32 {
    tape::area(which, len)
}

/// How many tapes this instance read (tests only: which path a call took).
#[wasm_bindgen(js_name = __tapeReadsForTest)]
pub fn tape_reads_for_test() -> u32 {
    tape::reads()
}

/// How many snapshots this instance read (tests only: which path a call took).
#[wasm_bindgen(js_name = __snapshotReadsForTest)]
pub fn snapshot_reads_for_test() -> u32 {
    tape::snapshots()
}

/// The wasm memory, which npm/api.js views to write a tape.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}
