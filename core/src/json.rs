//! The JSON facade the language bindings call: every argument and answer is a JSON value (or
//! JSON text, for hosts that hold the wire bytes), so a binding only converts values and
//! errors and never needs protocol logic of its own.
//!
//! Shapes:
//! - library options: `{ "extensions"?: [definition, …], "supportedVersions"?: [revision, …], "limits"?: { "maxDepth"?, "maxBytes"?,
//!   "maxArrayLen"?, "maxObjectLen"?, "maxVariants"?, "maxTools"?, "maxExtensions"? } }`
//! - a connection: `{ "protocolVersion"?: "2026-12-01", "negotiated"?: ["io.modelcontextprotocol/ui"] }`
//! - a plan request: `{ "mode": "apps" }` or `{ "consumers": [selector, …] }`, plus optional
//!   `"requireSchema"` and `"schemas"` booleans; a plan: `{ "requestedOutputs"?, "schemas"? }`.
//! - what `initialize` (up to 2025-11-25) or `server/discover` (from 2026-07-28 on) agreed:
//!   `{ "protocolVersion": "…", "clientCapabilities": {…}, "serverCapabilities": {…} }`.

use crate::client::ReceivedTool;
use crate::connection::{Config, Connection};
use crate::declaration::Warning;
use crate::error::{Error, Result, ServerArgument};
use crate::jsontext::compact;
use crate::limits::{Limits, MAX_DEPTH_CEILING};
use crate::planning::{Mode, Plan, PlanOptions};
use crate::routing::{Route, Routed};
use crate::server::{Produced, ServerTool};
use crate::version::ProtocolVersion;
use crate::wire::{self, RequestContext};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Builds the library configuration from its JSON options.
pub fn config(options: Option<&Value>) -> Result<Arc<Config>> {
    let Some(options) = options.filter(|o| !o.is_null()) else {
        return Ok(Config::new());
    };
    let obj = options.as_object().ok_or_else(|| Error::malformed("", "options must be an object"))?;
    let limits = limits(obj.get("limits"))?;
    Config::with_options(obj.get("extensions"), obj.get("supportedVersions"), limits)
}

/// Reads `limits` options: each a non-negative integer, absent ones at their defaults.
pub fn limits(value: Option<&Value>) -> Result<Limits> {
    let mut limits = Limits::default();
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(limits);
    };
    let obj = value.as_object().ok_or_else(|| Error::malformed("/limits", "limits must be an object"))?;
    for (key, item) in obj {
        // The name first: a misspelt limit is named as such, with the valid names.
        let names: Vec<&'static str> = limit_slots(&mut limits).into_iter().map(|(name, _)| name).collect();
        if !names.contains(&key.as_str()) {
            return Err(Error::malformed(
                format!("/limits/{key}"),
                format!("unknown limit {key:?} (limits: {})", names.join(", ")),
            ));
        }
        let number = crate::fields::whole_number(item).and_then(|n| usize::try_from(n).ok()).ok_or_else(|| {
            Error::malformed(format!("/limits/{key}"), format!("{key} must be a non-negative integer"))
        })?;
        if let Some(slot) =
            limit_slots(&mut limits).into_iter().find_map(|(name, slot)| (name == key.as_str()).then_some(slot))
        {
            *slot = number;
        }
    }
    // Deeper nesting than the ceiling would overflow the stack of some walk: refused rather than
    // held silently to the ceiling, so that a caller never believes it has a limit it lacks.
    if limits.max_depth > MAX_DEPTH_CEILING {
        return Err(Error::malformed(
            "/limits/maxDepth",
            format!("maxDepth must be at most {MAX_DEPTH_CEILING}, the deepest nesting the library can walk"),
        ));
    }
    Ok(limits)
}

/// The limits in force as the `limits` option writes them (every key present): bindings that
/// must stop work before the core sees an input (a JavaScript value being serialised) read
/// the numbers from here rather than repeating them.
pub fn limits_json(limits: &Limits) -> Value {
    let mut limits = limits.clone();
    Value::Object(
        limit_slots(&mut limits).into_iter().map(|(name, slot)| (name.to_owned(), Value::from(*slot))).collect(),
    )
}

/// The option name of every limit with its field: the one table `limits` and `limits_json` read.
fn limit_slots(limits: &mut Limits) -> [(&'static str, &mut usize); 7] {
    [
        ("maxDepth", &mut limits.max_depth),
        ("maxBytes", &mut limits.max_bytes),
        ("maxArrayLen", &mut limits.max_array_len),
        ("maxObjectLen", &mut limits.max_object_len),
        ("maxVariants", &mut limits.max_variants),
        ("maxTools", &mut limits.max_tools),
        ("maxExtensions", &mut limits.max_extensions),
    ]
}

/// Builds a connection from `{ "protocolVersion"?, "negotiated"? }`.
pub fn connection(config: &Arc<Config>, value: Option<&Value>) -> Result<Connection> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Connection::from_json(None, None, Arc::clone(config));
    };
    let obj = value.as_object().ok_or_else(|| Error::malformed("", "a connection must be an object"))?;
    let version = match obj.get("protocolVersion") {
        None => None,
        Some(Value::String(v)) => Some(v.as_str()),
        Some(_) => return Err(Error::malformed("/protocolVersion", "protocolVersion must be a string")),
    };
    Connection::from_json(version, obj.get("negotiated"), Arc::clone(config))
}

/// [`connection`] for a caller's own connection object, which holds nothing else: a member other
/// than `protocolVersion` and `negotiated` is `malformed` (a misspelt `protocol_version` would
/// otherwise fall back to the latest revision without a word).
pub fn connection_init(config: &Arc<Config>, value: Option<&Value>) -> Result<Connection> {
    if let Some(Value::Object(obj)) = value {
        if let Some(key) = obj.keys().find(|k| !matches!(k.as_str(), "protocolVersion" | "negotiated")) {
            return Err(Error::malformed(
                crate::error::pointer_push("", key),
                format!("unknown connection field {key:?} (fields: protocolVersion, negotiated)"),
            ));
        }
    }
    connection(config, value)
}

/// The supported protocol revisions, oldest first: the order of `ProtocolVersion::ALL`, of the
/// `supported` list a -32022 error carries, and of Python's `PROTOCOL_VERSIONS`.
pub fn protocol_versions() -> Value {
    Value::Array(ProtocolVersion::ALL.iter().map(|v| Value::from(v.as_str())).collect())
}

/// The connection both sides agree on after `initialize` (revisions up to 2025-11-25) or
/// `server/discover` (from 2026-07-28 on), from `{protocolVersion, clientCapabilities,
/// serverCapabilities}`: the version, and the extensions both capabilities list
/// ([`wire::negotiate`]). Errors of the version or the client's capabilities are the request's
/// (-32602, or -32022 for an unsupported version); server capabilities that are not an object
/// are the server's own fault (-32603).
pub fn negotiate(config: &Arc<Config>, init: &Value) -> Result<Connection> {
    config.limits.check_value(init, "").map_err(|e| ServerArgument::Request.fault(e))?;
    negotiate_checked(config, init)
}

/// [`negotiate`] over JSON text (text over a limit, or not JSON, is -32602).
pub fn negotiate_text(config: &Arc<Config>, init: &str) -> Result<Connection> {
    let init = config.limits.parse_text(init, "init").map_err(|e| ServerArgument::Request.fault(e))?;
    negotiate_checked(config, &init)
}

fn negotiate_checked(config: &Arc<Config>, init: &Value) -> Result<Connection> {
    let request_side = |e: Error| ServerArgument::Request.fault(e);
    let obj = init.as_object().ok_or_else(|| request_side(Error::malformed("", "init must be an object")))?;
    const FIELDS: &[&str] = &["protocolVersion", "clientCapabilities", "serverCapabilities"];
    if let Some(key) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(request_side(Error::malformed(
            crate::error::pointer_push("", key),
            format!("unknown init field {key:?} (fields: {})", FIELDS.join(", ")),
        )));
    }
    let version = match obj.get("protocolVersion") {
        Some(Value::String(v)) => v,
        Some(_) => return Err(request_side(Error::malformed("/protocolVersion", "protocolVersion must be a string"))),
        None => return Err(request_side(Error::malformed("", "init lacks protocolVersion"))),
    };
    // The version first, as `from_params` reads it; the capabilities are checked here rather
    // than by `from_initialize`, whose paths name the fields of initialize.
    config.parse_version(version).map_err(|e| request_side(e.under("/protocolVersion")))?;
    let client = object_field(obj, "clientCapabilities").map_err(request_side)?;
    let server = object_field(obj, "serverCapabilities").map_err(|e| ServerArgument::Tool.fault(e))?;
    RequestContext::from_initialize(version, client)?.connection(server, Arc::clone(config))
}

fn object_field<'v>(obj: &'v Map<String, Value>, key: &str) -> Result<&'v Value> {
    match obj.get(key) {
        Some(value @ Value::Object(_)) => Ok(value),
        Some(_) => Err(Error::malformed(format!("/{key}"), format!("{key} must be an object"))),
        None => Err(Error::malformed("", format!("init lacks {key}"))),
    }
}

/// The connection of one request from 2026-07-28 on, read from its `params._meta`
/// ([`RequestContext::from_params`]) and negotiated against the server's capabilities. Errors
/// of the params are the request's (-32602, or -32022 for an unsupported version, paths under
/// `params`); server capabilities that are not an object are the server's own fault (-32603).
pub fn connection_from_request(
    config: &Arc<Config>,
    params: &Value,
    server_capabilities: &Value,
) -> Result<Connection> {
    config.limits.check_value(params, "").map_err(|e| ServerArgument::Request.fault(e))?;
    config.limits.check_value(server_capabilities, "").map_err(|e| ServerArgument::Capabilities.fault(e))?;
    connection_from_checked(config, params, server_capabilities)
}

/// The answer of [`connection_from_request`] when a binding could not read the server's
/// capabilities (`fault`: not JSON data, over a limit): the params' own fault when they have one
/// (-32602, -32022), as the core reports them first; else `fault`, the server's (-32603).
pub fn connection_from_request_unread(config: &Arc<Config>, params: &Value, fault: Error) -> Error {
    // With no capabilities to read, every fault left is the params'.
    match connection_from_request(config, params, &Value::Object(Map::new())) {
        Err(request_fault) => request_fault,
        Ok(_) => ServerArgument::Capabilities.fault(fault),
    }
}

/// [`connection_from_request`] over JSON text: `params` text over a limit or not JSON is
/// -32602, the server capabilities' -32603.
pub fn connection_from_request_text(
    config: &Arc<Config>,
    params: &str,
    server_capabilities: &str,
) -> Result<Connection> {
    let params = config.limits.parse_text(params, "params").map_err(|e| ServerArgument::Request.fault(e))?;
    let server = config
        .limits
        .parse_text(server_capabilities, "serverCapabilities")
        .map_err(|e| ServerArgument::Capabilities.fault(e))?;
    connection_from_checked(config, &params, &server)
}

fn connection_from_checked(config: &Arc<Config>, params: &Value, server_capabilities: &Value) -> Result<Connection> {
    if !server_capabilities.is_object() {
        return Err(ServerArgument::Capabilities.fault(Error::malformed("", "server capabilities must be an object")));
    }
    RequestContext::from_params_for(params, config)?.connection(server_capabilities, Arc::clone(config))
}

impl Connection {
    /// The `params` of a tools/call on this connection ([`wire::tools_call_params`]):
    /// `requestedOutputs` from `plan` only (as [`ReceivedTool::plan_json`] wrote it, read by
    /// [`Plan::from_json`]) and never under an earlier revision; from 2026-07-28 on, `_meta`
    /// with the version and `client_capabilities`. `arguments`, when given, and the client
    /// capabilities must be objects (`malformed` at `/arguments`, `/clientCapabilities`).
    /// Client-side errors: no JSON-RPC code.
    pub fn tools_call_params_json(
        &self,
        name: &str,
        arguments: Option<&Value>,
        plan: &Value,
        client_capabilities: &Value,
    ) -> Result<Value> {
        // The name is an input like any other: at most `max_bytes`, the cap of the Tool text
        // that declared it (issue 12, defect 3: a 100 MB name was accepted and echoed).
        if name.len() > self.limits().max_bytes {
            return Err(Error::new(
                crate::ErrorCode::LimitExceeded,
                "/name",
                format!("name: {} bytes exceeds the limit of {}", name.len(), self.limits().max_bytes),
            ));
        }
        let arguments = arguments.filter(|a| !a.is_null());
        if arguments.is_some_and(|a| !a.is_object()) {
            return Err(Error::malformed("/arguments", "arguments must be an object"));
        }
        if !client_capabilities.is_object() {
            return Err(Error::malformed("/clientCapabilities", "client capabilities must be an object"));
        }
        let plan = Plan::from_json(plan, self.limits())?;
        Ok(wire::tools_call_params(name, arguments, &plan, self.version(), client_capabilities))
    }

    /// The `params` of any request on this connection ([`wire::request_params`]): from
    /// 2026-07-28 on, `_meta` carries the version and `client_capabilities`. Both must be
    /// objects (`malformed` at `""`, `/clientCapabilities`). Client-side errors: no JSON-RPC code.
    pub fn request_params_json(&self, params: &Value, client_capabilities: &Value) -> Result<Value> {
        let Value::Object(params) = params else {
            return Err(Error::malformed("", "request params must be an object"));
        };
        if !client_capabilities.is_object() {
            return Err(Error::malformed("/clientCapabilities", "client capabilities must be an object"));
        }
        Ok(wire::request_params(params.clone(), self.version(), client_capabilities))
    }

    /// The tools/list result for this connection from Tool objects ([`wire::tools_list_result`]:
    /// tools already advertised, and legacy Tools sent as given before 2026-12-01), with the
    /// cache option `{ "ttlMs", "cacheScope" }` (default `0` / `"private"`; sent from
    /// 2026-07-28 on) and the page's `nextCursor` (a string, sent as given: LIST-4). Errors
    /// are the server's own (-32603).
    pub fn tools_list_result_json(
        &self,
        tools: Vec<Value>,
        cache: Option<&Value>,
        next_cursor: Option<&Value>,
    ) -> Result<Value> {
        let cache = wire::ListCache::from_json(cache).map_err(|e| ServerArgument::Tool.fault(e))?;
        let next_cursor = wire::next_cursor_option(next_cursor).map_err(|e| ServerArgument::Tool.fault(e))?;
        wire::tools_list_page(tools, self, cache, next_cursor)
    }

    /// [`Connection::tools_list_result_json`] from Tool objects as JSON text, one text per tool,
    /// each parsed under the limits (errors at `/tools/<i>`); the result as JSON text. One text
    /// per tool, so that a Tool is as deep as the limits allow it alone.
    pub fn tools_list_result_text<S: AsRef<str>>(
        &self,
        tools: &[S],
        cache: Option<&str>,
        next_cursor: Option<&str>,
    ) -> Result<String> {
        let internal = |e: Error| ServerArgument::Tool.fault(e);
        let limits = self.limits();
        limits.check_count(tools.len(), limits.max_tools, "/tools", "tools").map_err(internal)?;
        let tools = tools
            .iter()
            .enumerate()
            .map(|(i, text)| {
                limits.parse_text(text.as_ref(), "tool").map_err(|e| e.under(&crate::error::pointer_index("/tools", i)))
            })
            .collect::<Result<Vec<_>>>()
            .map_err(internal)?;
        let cache = cache.map(|t| limits.parse_text(t, "cache")).transpose().map_err(internal)?;
        let next_cursor = next_cursor.map(|t| limits.parse_text(t, "nextCursor")).transpose().map_err(internal)?;
        Ok(compact(&self.tools_list_result_json(tools, cache.as_ref(), next_cursor.as_ref())?))
    }
}

/// Warning codes as a JSON array, each once.
pub fn warnings(warnings: &[Warning]) -> Value {
    Value::Array(warnings.iter().map(|w| finding(w.code.as_str(), &w.path)).collect())
}

/// One warning or diagnostic as the library's APIs report it: `{ "code", "path" }`, the path a
/// JSON Pointer into the input it concerns (`""`: the whole input).
pub fn finding(code: &str, path: &str) -> Value {
    let mut out = Map::new();
    out.insert("code".into(), Value::from(code));
    out.insert("path".into(), Value::from(path));
    Value::Object(out)
}

/// The contract's form of a list of findings: each distinct code once, in order of first
/// appearance (the corpus compares codes only).
pub fn finding_codes(findings: &Value) -> Value {
    let mut codes: Vec<Value> = Vec::new();
    for item in findings.as_array().map(Vec::as_slice).unwrap_or_default() {
        let code = item.get("code").cloned().unwrap_or_else(|| item.clone());
        if !codes.contains(&code) {
            codes.push(code);
        }
    }
    Value::Array(codes)
}

impl ServerTool {
    /// [`ServerTool::select`] with the selection as JSON.
    pub fn select_json(&self, conn: &Connection, requested: Option<&Value>) -> Result<Value> {
        self.select(conn, requested).map(|s| crate::selection::to_json(&s))
    }

    /// [`ServerTool::select`] over JSON text: `requestedOutputs` in, the selection out. Text
    /// that does not parse is, like every request-side error, -32602 invalid params.
    pub fn select_text(&self, conn: &Connection, requested: Option<&str>) -> Result<String> {
        let requested = requested
            .map(|t| conn.limits().parse_text(t, "requestedOutputs"))
            .transpose()
            .map_err(|e| ServerArgument::Request.fault(e))?;
        self.select_json(conn, requested.as_ref()).map(|v| compact(&v))
    }

    /// [`ServerTool::respond`] over JSON text: the produced outputs in, the wire result out.
    /// The request's faults (-32602) come before the produced outputs' (-32603), as in
    /// `respond` on values: the produced text is read only once the selection stands.
    pub fn respond_text(&self, conn: &Connection, requested: Option<&str>, produced: &str) -> Result<String> {
        let selectors = self.select_from_text(conn, requested)?;
        let produced = conn.limits().parse_text(produced, "produced").map_err(|e| ServerArgument::Tool.fault(e))?;
        let result =
            self.assemble(conn, &selectors, Produced::new(&produced)).map_err(|e| ServerArgument::Tool.fault(e))?;
        Ok(compact(&result))
    }

    /// The answer of a `respond` whose produced outputs a binding could not read (not JSON, over
    /// a limit, a missing argument): the request's own fault when it has one (-32602), as every
    /// respond reports it first; else `fault`, the server's (-32603).
    pub fn respond_unread(&self, conn: &Connection, requested: Option<&str>, fault: Error) -> Error {
        match self.select_from_text(conn, requested) {
            Err(request_fault) => request_fault,
            Ok(_) => ServerArgument::Tool.fault(fault),
        }
    }

    /// [`ServerTool::respond_unread`] for a request already read as a value.
    pub fn respond_unread_json(&self, conn: &Connection, requested: Option<&Value>, fault: Error) -> Error {
        match self.select(conn, requested) {
            Err(request_fault) => request_fault,
            Ok(_) => ServerArgument::Tool.fault(fault),
        }
    }

    fn select_from_text(&self, conn: &Connection, requested: Option<&str>) -> Result<Vec<crate::Selector>> {
        let requested = requested
            .map(|t| conn.limits().parse_text(t, "requestedOutputs"))
            .transpose()
            .map_err(|e| ServerArgument::Request.fault(e))?;
        self.select(conn, requested.as_ref())
    }
}

impl ReceivedTool {
    /// Plans a call from `{ "mode" | "consumers", "requireSchema"?, "schemas"? }`; the answer is
    /// `{ "requestedOutputs"? , "schemas"? }` (`requestedOutputs` absent when the request omits
    /// the field).
    pub fn plan_json(&self, request: &Value) -> Result<Value> {
        let obj = request.as_object().ok_or_else(|| Error::malformed("", "a plan request must be an object"))?;
        let flag = |key: &str| match obj.get(key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(Error::malformed(format!("/{key}"), format!("{key} must be a boolean"))),
        };
        let options = PlanOptions { require_schema: flag("requireSchema")? };
        let plan = match (obj.get("mode"), obj.get("consumers")) {
            (Some(Value::String(mode)), None) => self.plan_mode(Mode::parse(mode)?, &options)?,
            (None, Some(consumers)) => self.plan_consumers(consumers, &options)?,
            (Some(_), None) => return Err(Error::malformed("/mode", "mode must be a string")),
            _ => return Err(Error::malformed("", "a plan needs exactly one of mode and consumers")),
        };
        let mut out = Map::new();
        if let Some(requested) = plan.requested_outputs() {
            out.insert("requestedOutputs".into(), requested);
        }
        if let Some(consumer) = plan.legacy_structured_json() {
            out.insert("legacyStructured".into(), consumer);
        }
        if flag("schemas")? {
            out.insert("schemas".into(), plan.schemas_json());
        }
        Ok(Value::Object(out))
    }

    /// A local rule for legacy `structuredContent` as JSON text (LEG-8), read by
    /// [`ReceivedTool::legacy_consumer`].
    pub fn legacy_rule_text(&self, legacy_structured: Option<&str>) -> Result<Option<crate::Audience>> {
        let limits = self.connection().limits();
        legacy_structured
            .map(|t| limits.parse_text(t, "legacyStructured").and_then(|v| self.legacy_consumer(&v)))
            .transpose()
    }

    /// The answer of a `check` or `route` whose result a binding could not read (missing, not
    /// JSON, not text): the client side's order of inputs (ERR-6) puts the local rule and the
    /// request before the result, so their own fault comes first; else `fault`. A result over a
    /// limit outranks them, as in every check (`check_node_requested`).
    pub fn check_unread(&self, requested: Option<&str>, legacy_structured: Option<&str>, fault: Error) -> Error {
        if fault.code() == crate::ErrorCode::LimitExceeded {
            return fault;
        }
        let judged = self.legacy_rule_text(legacy_structured).and_then(|_| {
            let limits = self.connection().limits();
            let requested = requested.map(|t| limits.parse_text(t, "requestedOutputs")).transpose()?;
            self.selection(requested.as_ref())
        });
        match judged {
            Err(earlier) => earlier,
            Ok(_) => fault,
        }
    }

    /// [`ReceivedTool::check_text`] with a local rule for legacy `structuredContent` (JSON
    /// text, see [`ReceivedTool::legacy_consumer`]), which is only validated.
    pub fn check_text_with(
        &self,
        requested: Option<&str>,
        legacy_structured: Option<&str>,
        result: &str,
    ) -> Result<Value> {
        self.legacy_rule_text(legacy_structured)?;
        self.check_text(requested, result)
    }

    /// [`ReceivedTool::route_text_indexed`] with a local rule for legacy `structuredContent`
    /// (JSON text, see [`ReceivedTool::route_with`]).
    pub fn route_text_indexed_with(
        &self,
        requested: Option<&str>,
        legacy_structured: Option<&str>,
        result: &str,
    ) -> Result<String> {
        let rule = self.legacy_rule_text(legacy_structured)?;
        let limits = self.connection().limits();
        let requested = requested.map(|t| limits.parse_text(t, "requestedOutputs")).transpose()?;
        let result = limits.parse_text(result, "result")?;
        Ok(compact(&self.route_with(requested.as_ref(), rule.as_ref(), &result)?.to_json_indexed(&result)))
    }

    /// [`ReceivedTool::route`] with the route as JSON.
    pub fn route_json(&self, requested: Option<&Value>, result: &Value) -> Result<Value> {
        self.route(requested, result).map(|r| r.to_json())
    }

    /// [`ReceivedTool::check`] with its answer as JSON ([`crate::CheckedResult::to_json`]): `{}`,
    /// `{ "warnings": ["empty-error-outputs"] }` or `{ "resultType": "input_required" }`.
    pub fn check_json(&self, requested: Option<&Value>, result: &Value) -> Result<Value> {
        self.check(requested, result).map(|checked| checked.to_json())
    }

    /// [`ReceivedTool::check_json`] over JSON text (for hosts that hold the wire bytes).
    pub fn check_text(&self, requested: Option<&str>, result: &str) -> Result<Value> {
        let limits = self.connection().limits();
        let requested = requested.map(|t| limits.parse_text(t, "requestedOutputs")).transpose()?;
        let result = limits.parse_text(result, "result")?;
        self.check_json(requested.as_ref(), &result)
    }

    /// [`ReceivedTool::route`] over JSON text, answering JSON text.
    pub fn route_text(&self, requested: Option<&str>, result: &str) -> Result<String> {
        let limits = self.connection().limits();
        let requested = requested.map(|t| limits.parse_text(t, "requestedOutputs")).transpose()?;
        let result = limits.parse_text(result, "result")?;
        Ok(compact(&self.route_json(requested.as_ref(), &result)?))
    }
}

impl Route<'_> {
    /// [`Route::to_json`] with every routed output that is an element of `result.outputs`
    /// written as its index there (a number) instead of a copy. A binding whose caller already
    /// holds the result, or can parse the bytes itself, swaps the indices back for the
    /// caller's own output objects and so never sends the outputs back across the boundary.
    /// Outputs the route synthesizes (the legacy `content` in `model`) stay literal.
    pub fn to_json_indexed(&self, _result: &Value) -> Value {
        self.render(&|routed| match routed {
            Routed::Output { index, .. } => Value::from(*index),
            other => other.to_value().into_owned(),
        })
    }
}

impl ReceivedTool {
    /// [`ReceivedTool::route`] over JSON text, answering [`Route::to_json_indexed`] as JSON
    /// text: the bytes are parsed and checked here, and the caller maps the indices onto its
    /// own parse of the same bytes.
    pub fn route_text_indexed(&self, requested: Option<&str>, result: &str) -> Result<String> {
        let limits = self.connection().limits();
        let requested = requested.map(|t| limits.parse_text(t, "requestedOutputs")).transpose()?;
        let result = limits.parse_text(result, "result")?;
        Ok(compact(&self.route(requested.as_ref(), &result)?.to_json_indexed(&result)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::jsonrpc;
    use crate::ErrorCode;
    use serde_json::json;

    #[test]
    fn options_and_connections() {
        let config = config(Some(&json!({"limits": {"maxDepth": 5}, "extensions": [
            {"id": "com.example/audit", "formats": ["structured"]}
        ]})))
        .expect("valid options");
        assert_eq!(config.limits.max_depth, 5);
        assert!(config.registry.get("com.example/audit").is_some());
        let bad = super::config(Some(&json!({"limits": {"maxDepth": -1}}))).expect_err("negative");
        assert_eq!(bad.code(), ErrorCode::Malformed);
        let unknown = super::limits(Some(&json!({"maxWidth": 1}))).expect_err("unknown limit");
        assert_eq!(unknown.code(), ErrorCode::Malformed);
        // limits_json writes every limit under the name the option reads.
        let written = limits_json(&config.limits);
        assert_eq!(written["maxDepth"], json!(5));
        assert_eq!(written.as_object().map(serde_json::Map::len), Some(7));
        assert_eq!(super::limits(Some(&written)).expect("round trip"), config.limits);
        let conn = connection(&config, Some(&json!({"protocolVersion": "2025-06-18"}))).expect("conn");
        assert_eq!(conn.version().as_str(), "2025-06-18");
        assert_eq!(connection(&config, None).expect("default").version().as_str(), "2026-12-01");
    }

    #[test]
    fn respond_reports_the_request_before_the_produced_outputs() {
        let config = Arc::new(Config::default());
        let tool = json!({"name": "t", "inputSchema": {"type": "object"},
            "outputVariants": [{"audience": "assistant", "format": "content"}]});
        let server = ServerTool::declare(&tool, None, &config).expect("valid tool");
        let conn = connection(&config, None).expect("default connection");
        let codes = |e: Error| (e.code(), e.jsonrpc_code());
        // A well-formed text that is not an array is the request's fault, even when the produced
        // text does not parse (found by the differential test: JS read the produced argument first).
        let both = server.respond_text(&conn, Some("-0.0"), "not json").expect_err("bad request");
        assert_eq!(codes(both), (ErrorCode::Malformed, Some(jsonrpc::INVALID_PARAMS)));
        let produced = server.respond_text(&conn, None, "not json").expect_err("bad produced");
        assert_eq!(codes(produced), (ErrorCode::Malformed, Some(jsonrpc::INTERNAL_ERROR)));
        let unread = || Error::malformed("", "produced is missing");
        assert_eq!(
            codes(server.respond_unread(&conn, Some("{}"), unread())),
            (ErrorCode::Malformed, Some(jsonrpc::INVALID_PARAMS))
        );
        let fault = server.respond_unread(&conn, Some(r#"[{"audience": "assistant", "format": "content"}]"#), unread());
        assert_eq!(
            (codes(fault.clone()), fault.message()),
            ((ErrorCode::Malformed, Some(jsonrpc::INTERNAL_ERROR)), "produced is missing")
        );
    }

    #[test]
    fn an_unread_result_ranks_after_the_rule_and_the_request() {
        // Found by the differential test: a `check` without a result under 2025-06-18, with
        // requestedOutputs, is the request's fault (ERR-6: the result ranks last).
        let config = Arc::new(Config::default());
        let conn = connection(&config, Some(&json!({"protocolVersion": "2025-06-18"}))).expect("conn");
        let tool = json!({"name": "t", "inputSchema": {"type": "object"}});
        let host = ReceivedTool::accept(&tool, &conn).expect("a legacy tool");
        let missing = || Error::malformed("", "result is missing");
        let requested = Some(r#"[{"audience": "assistant", "format": "content"}]"#);
        let code = |e: Error| e.code();
        assert_eq!(code(host.check_unread(requested, None, missing())), ErrorCode::RequestedOutputsOnLegacyVersion);
        assert_eq!(code(host.check_unread(requested, Some("42"), missing())), ErrorCode::Malformed);
        assert_eq!(host.check_unread(None, None, missing()).message(), "result is missing");
        let over = Error::new(ErrorCode::LimitExceeded, "", "result: over maxBytes");
        assert_eq!(code(host.check_unread(requested, None, over)), ErrorCode::LimitExceeded);
    }

    fn apps_caps() -> Value {
        json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
    }

    fn request(version: &str) -> Value {
        json!({"name": "t", "_meta": {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": apps_caps()
        }})
    }

    #[test]
    fn protocol_versions_oldest_first() {
        let versions = protocol_versions();
        assert_eq!(versions.as_array().and_then(|v| v.last()), Some(&json!(crate::ProtocolVersion::LATEST.as_str())));
        assert_eq!(versions.as_array().map(Vec::len), Some(crate::ProtocolVersion::ALL.len()));
        assert_eq!(versions.get(0), Some(&json!("2024-11-05")));
    }

    #[test]
    fn negotiated_connections() {
        let config = Config::new();
        let server = json!({"extensions": {"io.modelcontextprotocol/ui": {}, "com.example/x": {}}});
        let init =
            json!({"protocolVersion": "2025-06-18", "clientCapabilities": apps_caps(), "serverCapabilities": server});
        let conn = negotiate(&config, &init).expect("negotiated");
        assert_eq!(
            (conn.version().as_str(), conn.negotiated()),
            ("2025-06-18", &["io.modelcontextprotocol/ui".to_owned()][..])
        );
        let text = negotiate_text(&config, &init.to_string()).expect("negotiated");
        assert_eq!(text.negotiated(), conn.negotiated());
        let no_apps = json!({"protocolVersion": "2026-12-01", "clientCapabilities": {}, "serverCapabilities": server});
        assert!(negotiate(&config, &no_apps).expect("negotiated").negotiated().is_empty());

        let error = |init: Value| negotiate(&config, &init).map(|_| ()).expect_err("refused");
        // An unknown field is the request's fault, on the wire (found by fuzzing, text_request).
        let misspelt = json!({"protocolVersion": "2025-06-18", "clientnCapabilities": {}, "serverCapabilities": {}});
        let unknown = error(misspelt);
        assert_eq!(
            (unknown.code(), unknown.path(), unknown.jsonrpc_code()),
            (crate::ErrorCode::Malformed, "/clientnCapabilities", Some(jsonrpc::INVALID_PARAMS))
        );
        let with = |key: &str, value: Value| {
            let mut bad = init.clone();
            bad[key] = value;
            bad
        };
        let cases = [
            (json!([]), ErrorCode::Malformed, "", -32602),
            (with("protocolVersion", json!(20250618)), ErrorCode::Malformed, "/protocolVersion", -32602),
            (with("protocolVersion", json!("latest")), ErrorCode::InvalidProtocolVersion, "/protocolVersion", -32602),
            (
                with("protocolVersion", json!("2025-01-01")),
                ErrorCode::UnsupportedProtocolVersion,
                "/protocolVersion",
                -32022,
            ),
            (with("clientCapabilities", json!(null)), ErrorCode::Malformed, "/clientCapabilities", -32602),
            (with("serverCapabilities", json!("all")), ErrorCode::Malformed, "/serverCapabilities", -32603),
        ];
        for (init, code, path, rpc) in cases {
            let err = error(init);
            assert_eq!((err.code(), err.path(), err.jsonrpc_code()), (code, path, Some(rpc)));
        }
        let mut missing = init.clone();
        if let Some(obj) = missing.as_object_mut() {
            obj.remove("clientCapabilities");
        }
        assert_eq!(error(missing).jsonrpc_code(), Some(-32602));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let err = negotiate_text(&config, &deep).map(|_| ()).expect_err("too deep");
        assert_eq!((err.code(), err.jsonrpc_code()), (ErrorCode::LimitExceeded, Some(-32602)));
    }

    #[test]
    fn connections_from_requests() {
        let config = Config::new();
        let server = json!({"extensions": {"io.modelcontextprotocol/ui": {}}});
        let conn = connection_from_request(&config, &request("2026-07-28"), &server).expect("read");
        assert_eq!((conn.version().as_str(), conn.negotiated().len()), ("2026-07-28", 1));
        let text = connection_from_request_text(&config, &request("2026-12-01").to_string(), &server.to_string())
            .expect("read");
        assert_eq!(text.version().as_str(), "2026-12-01");

        let err = connection_from_request(&config, &json!({"name": "t"}), &server).map(|_| ()).expect_err("no _meta");
        assert_eq!((err.code(), err.jsonrpc_code()), (ErrorCode::Malformed, Some(-32602)));
        let err =
            connection_from_request(&config, &request("2099-01-01"), &server).map(|_| ()).expect_err("unsupported");
        let rpc = err.to_jsonrpc_error().expect("on the wire");
        assert_eq!((rpc["code"].clone(), rpc["data"]["requested"].clone()), (json!(-32022), json!("2099-01-01")));
        assert_eq!(rpc["data"]["supported"].as_array().map(Vec::len), Some(crate::ProtocolVersion::ALL.len()));
        let err =
            connection_from_request(&config, &request("2026-12-01"), &json!([])).map(|_| ()).expect_err("bad caps");
        assert_eq!((err.code(), err.jsonrpc_code()), (ErrorCode::Malformed, Some(-32603)));
        let err = connection_from_request_text(&config, "{", "{}").map(|_| ()).expect_err("not JSON");
        assert_eq!((err.code(), err.jsonrpc_code()), (ErrorCode::Malformed, Some(-32602)));
        let err = connection_from_request_text(&config, "{}", "[").map(|_| ()).expect_err("not JSON");
        assert_eq!((err.code(), err.jsonrpc_code()), (ErrorCode::Malformed, Some(-32603)));
        let tight = super::config(Some(&json!({"limits": {"maxDepth": 2}}))).expect("options");
        let err = connection_from_request(&tight, &request("2026-12-01"), &server).map(|_| ()).expect_err("deep");
        assert_eq!((err.code(), err.jsonrpc_code()), (ErrorCode::LimitExceeded, Some(-32602)));
        // The server's capabilities over a limit are the server's fault, on values as on text
        // (the value path did not measure them: the Python binding did, choosing the code).
        let params = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-12-01"}});
        let deep = json!({"experimental": {"a": {"b": {}}}});
        let err = connection_from_request(&tight, &params, &deep).map(|_| ()).expect_err("deep caps");
        assert_eq!((err.code(), err.jsonrpc_code()), (ErrorCode::LimitExceeded, Some(-32603)));
        let err = connection_from_request_text(&tight, &params.to_string(), &deep.to_string())
            .map(|_| ())
            .expect_err("deep caps");
        assert_eq!((err.code(), err.jsonrpc_code()), (ErrorCode::LimitExceeded, Some(-32603)));
    }

    #[test]
    fn unreadable_server_capabilities_come_after_the_params_faults() {
        let config = Config::new();
        let unread = || Error::malformed("", "NaN is not JSON");
        let err = connection_from_request_unread(&config, &request("2026-12-01"), unread());
        assert_eq!((err.message(), err.jsonrpc_code()), ("NaN is not JSON", Some(jsonrpc::INTERNAL_ERROR)));
        let err = connection_from_request_unread(&config, &request("2099-01-01"), unread());
        assert_eq!(err.jsonrpc_code(), Some(jsonrpc::UNSUPPORTED_PROTOCOL_VERSION));
        let err = connection_from_request_unread(&config, &json!({"name": "t"}), unread());
        assert_eq!((err.code(), err.jsonrpc_code()), (ErrorCode::Malformed, Some(jsonrpc::INVALID_PARAMS)));
    }

    #[test]
    fn server_arguments_decide_the_wire_code() {
        use crate::error::ServerArgument;
        let fault = || Error::malformed("/x", "read by a binding");
        assert_eq!(ServerArgument::Request.fault(fault()).jsonrpc_code(), Some(jsonrpc::INVALID_PARAMS));
        assert_eq!(ServerArgument::Tool.fault(fault()).jsonrpc_code(), Some(jsonrpc::INTERNAL_ERROR));
        assert_eq!(ServerArgument::Capabilities.fault(fault()).jsonrpc_code(), Some(jsonrpc::INTERNAL_ERROR));
        // A version fault keeps its own code whoever reads it.
        let unsupported = ProtocolVersion::parse("2099-01-01").map(|_| ()).expect_err("unsupported");
        assert_eq!(ServerArgument::Tool.fault(unsupported).jsonrpc_code(), Some(jsonrpc::UNSUPPORTED_PROTOCOL_VERSION));
    }

    #[test]
    fn call_params_and_tools_lists() {
        let config = Config::new();
        let tool = json!({"name": "t", "inputSchema": {"type": "object"}, "outputVariants": [
            {"audience": "assistant", "format": "content"},
            {"audience": "programmatic", "format": "structured", "schema": {"type": "object"}}
        ]});
        let conn = Connection::new(crate::ProtocolVersion::V2026_12_01, vec![], Arc::clone(&config));
        let host = ReceivedTool::accept(&tool, &conn).expect("accepted");
        let plan = host.plan_json(&json!({"mode": "code", "schemas": true})).expect("planned");
        let params = conn.tools_call_params_json("t", Some(&json!({"q": 1})), &plan, &apps_caps()).expect("params");
        assert_eq!(params["requestedOutputs"], plan["requestedOutputs"]);
        assert_eq!(params["arguments"], json!({"q": 1}));
        let back = connection_from_request(&config, &params, &json!({})).expect("the server reads it back");
        assert_eq!(back.version(), conn.version());
        let old = Connection::new(crate::ProtocolVersion::V2025_06_18, vec![], Arc::clone(&config));
        assert_eq!(old.tools_call_params_json("t", None, &plan, &json!({})).expect("params"), json!({"name": "t"}));
        let err = conn.tools_call_params_json("t", Some(&json!([1])), &plan, &json!({})).expect_err("arguments");
        assert_eq!((err.code(), err.path()), (ErrorCode::Malformed, "/arguments"));
        let err = conn.tools_call_params_json("t", None, &plan, &json!(null)).expect_err("capabilities");
        assert_eq!((err.code(), err.path()), (ErrorCode::Malformed, "/clientCapabilities"));
        let bad_plan = json!({"requestedOutputs": [{"audience": "programmatic"}]});
        let err = conn.tools_call_params_json("t", None, &bad_plan, &json!({})).expect_err("plan");
        assert_eq!((err.code(), err.path(), err.jsonrpc_code()), (ErrorCode::Malformed, "/requestedOutputs/0", None));
        // The name is capped like any input (issue 12, defect 3), before any work on it.
        let small = Arc::new(Config {
            registry: config.registry.clone(),
            limits: Limits { max_bytes: 8, ..Limits::default() },
            supported_versions: config.supported_versions.clone(),
        });
        let tight = Connection::new(crate::ProtocolVersion::V2026_12_01, vec![], small);
        assert!(tight.tools_call_params_json("12345678", None, &json!({}), &json!({})).is_ok());
        let err = tight.tools_call_params_json("123456789", None, &json!({}), &json!({})).expect_err("name");
        assert_eq!((err.code(), err.path()), (ErrorCode::LimitExceeded, "/name"));

        let server = ServerTool::declare(&tool, None, &config).expect("declared");
        let legacy = json!({"name": "old", "inputSchema": {"type": "object"}});
        let july = Connection::new(crate::ProtocolVersion::V2026_07_28, vec![], Arc::clone(&config));
        let texts = [server.advertise(&july).to_string(), legacy.to_string()];
        let cache = r#"{"ttlMs": 1000, "cacheScope": "public"}"#;
        let list: Value =
            serde_json::from_str(&july.tools_list_result_text(&texts, Some(cache), None).expect("listed"))
                .expect("json");
        assert_eq!(
            list,
            json!({"resultType": "complete", "ttlMs": 1000, "cacheScope": "public",
                   "tools": [server.advertise(&july), legacy]})
        );
        assert_eq!(
            wire::project_tools_list(std::slice::from_ref(&server), &conn, wire::ListCache::default()).expect("listed"),
            json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": [server.advertise(&conn)]})
        );
        let err = conn.tools_list_result_text(&["{}", "[[["], None, None).expect_err("not JSON");
        assert_eq!((err.code(), err.path(), err.jsonrpc_code()), (ErrorCode::Malformed, "/tools/1", Some(-32603)));
        let texts = [server.advertise(&conn).to_string(), legacy.to_string()];
        let err = conn.tools_list_result_text(&texts, None, None).expect_err("a legacy Tool on 2026-12-01");
        assert_eq!((err.code(), err.path()), (ErrorCode::MissingOutputVariants, "/tools/1"));
        let err = july.tools_list_result_text(&texts, Some(r#"{"ttlMs": 1}"#), None).expect_err("no cacheScope");
        assert_eq!((err.code(), err.jsonrpc_code()), (ErrorCode::Malformed, Some(-32603)));
    }

    #[test]
    fn request_params_carry_the_version_from_2026_07_28_on() {
        let config = Config::new();
        let conn = Connection::new(crate::ProtocolVersion::V2026_07_28, vec![], Arc::clone(&config));
        let params =
            conn.request_params_json(&json!({"cursor": "c", "_meta": {"k": 1}}), &apps_caps()).expect("params");
        assert_eq!(params["cursor"], json!("c"));
        assert_eq!(params["_meta"]["k"], json!(1), "what _meta held stays");
        let back = connection_from_request(&config, &params, &json!({})).expect("the server reads it back");
        assert_eq!(back.version(), crate::ProtocolVersion::V2026_07_28);
        let old = Connection::new(crate::ProtocolVersion::V2025_11_25, vec![], Arc::clone(&config));
        assert_eq!(old.request_params_json(&json!({}), &apps_caps()).expect("params"), json!({}));
        let err = conn.request_params_json(&json!([]), &json!({})).expect_err("not an object");
        assert_eq!((err.code(), err.path(), err.jsonrpc_code()), (ErrorCode::Malformed, "", None));
        let err = conn.request_params_json(&json!({}), &json!(1)).expect_err("capabilities");
        assert_eq!((err.code(), err.path()), (ErrorCode::Malformed, "/clientCapabilities"));
    }

    #[test]
    fn text_paths_agree_with_value_paths() {
        let config = Config::new();
        let tool = json!({"name": "t", "inputSchema": {"type": "object"}, "outputVariants": [
            {"audience": "assistant", "format": "content"},
            {"audience": "programmatic", "format": "structured", "schema": {"type": "object", "required": ["n"]}}
        ]});
        let conn = Connection::new(crate::ProtocolVersion::V2026_12_01, vec![], Arc::clone(&config));
        let server = ServerTool::declare(&tool, None, &config).expect("declared");
        let host = ReceivedTool::accept(&tool, &conn).expect("accepted");
        let plan = host.plan_json(&json!({"mode": "code", "schemas": true})).expect("planned");
        assert_eq!(plan["schemas"][0]["schema"], json!({"type": "object", "required": ["n"]}));
        let requested = plan["requestedOutputs"].to_string();
        let produced =
            r#"{"outputs":[{"audience":"programmatic","format":"structured","structuredContent":{"n":1.0}}]}"#;
        let result = server.respond_text(&conn, Some(&requested), produced).expect("responded");
        let routed: Value =
            serde_json::from_str(&host.route_text(Some(&requested), &result).expect("routed")).expect("json");
        assert_eq!(routed["programmatic"][0]["structuredContent"]["n"].as_f64(), Some(1.0));
        let bad = r#"{"outputs":[{"audience":"programmatic","format":"structured","structuredContent":{}}]}"#;
        let err = host.check_text(Some(&requested), bad).expect_err("schema violation");
        assert_eq!(err.code(), ErrorCode::SchemaViolation);
        let selection = server.select_text(&conn, Some(&requested)).expect("selected");
        assert_eq!(serde_json::from_str::<Value>(&selection).expect("json"), plan["requestedOutputs"]);
        for unparsable in ["[", &format!("{}{}", "[".repeat(200), "]".repeat(200))] {
            let err = server.select_text(&conn, Some(unparsable)).expect_err("unparsable request");
            assert_eq!(err.jsonrpc_code(), Some(crate::error::jsonrpc::INVALID_PARAMS));
        }
        let indexed: Value =
            serde_json::from_str(&host.route_text_indexed(Some(&requested), &result).expect("routed")).expect("json");
        assert_eq!(indexed["programmatic"], serde_json::json!([0]), "the output as its index in result.outputs");
        let mut swapped = indexed.clone();
        swapped["programmatic"][0] = serde_json::from_str::<Value>(&result).expect("json")["outputs"][0].clone();
        assert_eq!(swapped, routed, "swapping the index back gives route_text's answer");
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(host.check_text(None, &deep).expect_err("too deep").code(), ErrorCode::LimitExceeded);
    }
}
