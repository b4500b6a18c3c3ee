//! The JSON-in / JSON-out layer: every operation of the conformance contract as one function
//! over JSON values, so that bindings and corpus runners in every language call the same code
//! and need no protocol logic of their own.

use crate::client::ReceivedTool;
use crate::connection::{Config, Connection};
use crate::declaration::Warning;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::migration::{migrate, MigrateOptions};
use crate::server::{Produced, ServerTool};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The operations of the contract, with the input fields each accepts besides the common ones.
pub const OPERATIONS: &[(&str, &[&str])] = &[
    ("declare", &["tool", "legacy"]),
    ("advertise", &["tool", "legacy"]),
    ("select", &["tool", "requestedOutputs"]),
    ("respond", &["tool", "legacy", "requestedOutputs", "produced"]),
    ("accept", &["tool"]),
    ("plan", &["tool", "consumers", "mode", "requireSchema", "schemas"]),
    ("check", &["tool", "requestedOutputs", "result", "legacyStructured"]),
    ("route", &["tool", "requestedOutputs", "result", "legacyStructured"]),
    ("migrate", &["legacyTool", "options"]),
    ("list", &["tools", "legacyByTool", "cache"]),
    ("discover", &["result"]),
    ("scenario", &["tool", "legacy", "mode", "consumers", "produced", "requireSchema", "schemas"]),
];

/// Input fields every operation accepts.
pub const COMMON_FIELDS: &[&str] = &["protocolVersion", "negotiated", "extensions", "supportedVersions"];

/// Runs one operation of the contract on its `input` object and returns its `ok` value.
pub fn run(op: &str, input: &Value) -> Result<Value> {
    run_with_limits(op, input, Limits::default())
}

/// [`run`] with explicit limits.
pub fn run_with_limits(op: &str, input: &Value, limits: Limits) -> Result<Value> {
    let input = Input::new(input)?;
    let config = Config::with_options(input.get("extensions"), input.get("supportedVersions"), limits)?;
    match op {
        "declare" => {
            let tool = ServerTool::declare(input.server_own("tool")?, input.get("legacy"), &config)?;
            Ok(with_warnings(Map::new(), tool.warnings()))
        }
        "advertise" => {
            let (tool, conn) = server_side(&input, &config)?;
            Ok(object([("tool", tool.advertise(&conn))]))
        }
        "select" => {
            let (tool, conn) = server_side(&input, &config)?;
            let selectors = tool.select(&conn, input.get("requestedOutputs"))?;
            Ok(object([("selection", crate::selection::to_json(&selectors))]))
        }
        "respond" => {
            // Every fault of the request (-32602) before anything the server produced (-32603).
            let (tool, conn) = server_side(&input, &config)?;
            let selectors = tool.select(&conn, input.get("requestedOutputs"))?;
            let produced = Produced::new(input.server_own("produced")?);
            let result = tool
                .assemble(&conn, &selectors, produced)
                .map_err(|e| e.on_wire(crate::error::jsonrpc::INTERNAL_ERROR))?;
            Ok(object([("result", result)]))
        }
        "accept" => {
            let tool = client_side(&input, &config)?;
            Ok(with_warnings(Map::new(), tool.warnings()))
        }
        "plan" => {
            let tool = client_side(&input, &config)?;
            tool.plan_json(input.value)
        }
        "check" => {
            let tool = client_side(&input, &config)?;
            legacy_rule(&input, &tool)?;
            tool.check_json(input.get("requestedOutputs"), input.required("result")?)
        }
        "route" => {
            let tool = client_side(&input, &config)?;
            let rule = legacy_rule(&input, &tool)?;
            let route = tool.route_with(input.get("requestedOutputs"), rule.as_ref(), input.required("result")?)?;
            Ok(route.to_json())
        }
        "migrate" => {
            let options = MigrateOptions::from_json(input.get("options"))?;
            migrate(input.required("legacyTool")?, options, &config.limits).map(|migrated| migrated.to_json())
        }
        "list" => {
            // The server's own tools first (-32603), then its cache option, then the request.
            let tools = crate::wire::declare_tools(input.server_own("tools")?, input.get("legacyByTool"), &config)?;
            let cache = crate::wire::ListCache::from_json(input.get("cache"))
                .map_err(|e| e.on_wire(crate::error::jsonrpc::INTERNAL_ERROR))?;
            let conn = connection(&input, &config).map_err(|e| e.on_wire(crate::error::jsonrpc::INVALID_PARAMS))?;
            Ok(object([("result", crate::wire::project_tools_list(&tools, &conn, cache)?)]))
        }
        "discover" => {
            let conn = connection(&input, &config)?;
            Ok(ReceivedTool::discover(input.required("result")?, &conn)?.to_json())
        }
        "scenario" => scenario(&input, &config),
        other => Err(Error::malformed("/op", format!("unknown operation {other:?}"))),
    }
}

/// advertise → plan → respond → route in one go, as a server and a host on one connection.
fn scenario(input: &Input<'_>, config: &Arc<Config>) -> Result<Value> {
    let (server, conn) = server_side(input, config)?;
    let advertised = server.advertise(&conn);
    let received = ReceivedTool::accept(&advertised, &conn)?;
    let plan = received.plan_json(input.value)?;
    let requested = plan.get("requestedOutputs").cloned();
    // LEG-8: the plan's local rule for legacy structuredContent is the route's.
    let rule = plan.get("legacyStructured").map(|consumer| received.legacy_consumer(consumer)).transpose()?;
    let result = server.respond(&conn, requested.as_ref(), Produced::new(input.server_own("produced")?))?;
    let route = received.route_with(requested.as_ref(), rule.as_ref(), &result)?.to_json();
    let mut out = Map::new();
    out.insert("tool".into(), advertised);
    if let Some(requested) = requested {
        out.insert("requestedOutputs".into(), requested);
    }
    if let Some(consumer) = plan.get("legacyStructured") {
        out.insert("legacyStructured".into(), consumer.clone());
    }
    out.insert("result".into(), result);
    out.insert("route".into(), route);
    Ok(Value::Object(out))
}

/// The declared tool and the connection, in the server's order: the tool is validated before
/// anything of the request.
fn server_side(input: &Input<'_>, config: &Arc<Config>) -> Result<(ServerTool, Connection)> {
    let tool = ServerTool::declare(input.server_own("tool")?, input.get("legacy"), config)?;
    request_shape(input, config).map_err(|e| e.on_wire(crate::error::jsonrpc::INVALID_PARAMS))?;
    let conn = connection(input, config).map_err(|e| e.on_wire(crate::error::jsonrpc::INVALID_PARAMS))?;
    Ok((tool, conn))
}

/// The contract ranks `malformed` / `limit-exceeded` before the version errors: the shape of
/// `requestedOutputs` is checked before the version is read.
fn request_shape(input: &Input<'_>, config: &Arc<Config>) -> Result<()> {
    match input.get("requestedOutputs") {
        Some(requested) => crate::selection::check_shape(requested, &config.limits),
        None => Ok(()),
    }
}

/// The connection and the received tool, in the client's order: the version decides how the
/// tool is read, and the tool is validated before anything of the request (a host accepts the
/// tool at tools/list, before any call: the public APIs cannot do otherwise). A malformed
/// `requestedOutputs` still outranks a version error. Found by the differential test: input
/// `diff-check-tool-error-before-malformed-request` in tests/corpus/check/differential.json.
fn client_side(input: &Input<'_>, config: &Arc<Config>) -> Result<ReceivedTool> {
    let conn = match connection(input, config) {
        Ok(conn) => conn,
        Err(e) => {
            request_shape(input, config)?;
            return Err(e);
        }
    };
    let tool = ReceivedTool::accept(input.required("tool")?, &conn)?;
    request_shape(input, config)?;
    Ok(tool)
}

/// The optional `legacyStructured` of `check` and `route` (LEG-8).
fn legacy_rule(input: &Input<'_>, tool: &ReceivedTool) -> Result<Option<crate::audience::Audience>> {
    input.get("legacyStructured").map(|consumer| tool.legacy_consumer(consumer)).transpose()
}

fn connection(input: &Input<'_>, config: &Arc<Config>) -> Result<Connection> {
    // The input object holds `protocolVersion` and `negotiated` beside the op's own fields,
    // which the connection reader ignores; nothing is copied before the limits are checked.
    crate::json::connection(config, Some(input.value))
}

fn with_warnings(mut out: Map<String, Value>, warnings: &[Warning]) -> Value {
    if !warnings.is_empty() {
        out.insert("warnings".into(), crate::json::warnings(warnings));
    }
    Value::Object(out)
}

fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

struct Input<'v> {
    value: &'v Value,
    fields: &'v Map<String, Value>,
}

impl<'v> Input<'v> {
    fn new(value: &'v Value) -> Result<Self> {
        value
            .as_object()
            .map(|fields| Input { value, fields })
            .ok_or_else(|| Error::malformed("", "an operation's input must be an object"))
    }

    fn get(&self, key: &str) -> Option<&'v Value> {
        self.fields.get(key)
    }

    fn required(&self, key: &str) -> Result<&'v Value> {
        self.get(key).ok_or_else(|| Error::malformed(format!("/{key}"), format!("the input needs {key}")))
    }

    /// A server's own input (its tool, its tools, what it produced): missing is the server's
    /// fault (-32603), as the public APIs report a missing declaration or produced argument.
    fn server_own(&self, key: &str) -> Result<&'v Value> {
        self.required(key).map_err(|e| e.on_wire(crate::error::jsonrpc::INTERNAL_ERROR))
    }
}
