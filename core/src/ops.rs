//! The JSON-in / JSON-out layer: every operation of the conformance contract as one function
//! over JSON values, so that bindings and corpus runners in every language call the same code
//! and need no protocol logic of their own.

use crate::client::ReceivedTool;
use crate::connection::{Config, Connection};
use crate::declaration::Warning;
use crate::error::{Error, Result, ServerArgument};
use crate::limits::Limits;
use crate::migration::{migrate, MigrateOptions};
use crate::payload::{InPlace, PayloadsIn};
use crate::server::{Produced, ServerTool};
use crate::tape::TapeJson;
use crate::{Audience, Selector};
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
    ("list", &["tools", "legacyByTool", "cache", "nextCursor"]),
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
    run_with(op, input, limits, &AsValues)
}

/// [`run_with_limits`] with check, route and respond reading their result or produced outputs
/// by `calls`.
pub fn run_with(op: &str, input: &Value, limits: Limits, calls: &dyn Calls) -> Result<Value> {
    let input = Input::new(input)?;
    let mut ok = if CLIENT_OPS.contains(&op) {
        run_client(op, &input, limits, calls)?
    } else {
        run_server(op, &input, limits, calls)?
    };
    contract_form(op, &mut ok);
    Ok(ok)
}

/// How [`run_with`] reads the value check and route take (a result) and respond takes (what the
/// tool produced), the selection already made: as the `serde_json` values they are
/// ([`AsValues`], [`run`]'s), or through a tape of each ([`ThroughTape`]). The same checks, in
/// the same order, with the same errors and answers.
pub trait Calls {
    /// [`ReceivedTool::check_selected`], answered as JSON.
    fn check(&self, tool: &ReceivedTool, selectors: &[Selector], result: &Value) -> Result<Value>;
    /// [`ReceivedTool::route_selected`] with a local rule for legacy `structuredContent`,
    /// answered as JSON.
    fn route(
        &self,
        tool: &ReceivedTool,
        selectors: &[Selector],
        rule: Option<&Audience>,
        result: &Value,
    ) -> Result<Value>;
    /// [`ServerTool::assemble`].
    fn assemble(&self, tool: &ServerTool, conn: &Connection, selectors: &[Selector], produced: &Value)
        -> Result<Value>;
}

/// The values as they are: the Rust API's path.
#[derive(Clone, Copy, Debug, Default)]
pub struct AsValues;

impl Calls for AsValues {
    fn check(&self, tool: &ReceivedTool, selectors: &[Selector], result: &Value) -> Result<Value> {
        tool.check_selected(selectors, result).map(|checked| checked.to_json())
    }

    fn route(
        &self,
        tool: &ReceivedTool,
        selectors: &[Selector],
        rule: Option<&Audience>,
        result: &Value,
    ) -> Result<Value> {
        let route = tool.route_selected_with(selectors, rule, result)?;
        Ok(route.to_json())
    }

    fn assemble(
        &self,
        tool: &ServerTool,
        conn: &Connection,
        selectors: &[Selector],
        produced: &Value,
    ) -> Result<Value> {
        tool.assemble(conn, selectors, Produced::new(produced))
    }
}

/// The payloads of a tape read where they are, as a trait object: a binding that also reads
/// tapes whose payloads it holds itself passes its reader the same way, so that the per-call
/// path, generic over the payload reader, is linked once.
const IN_PLACE: &dyn PayloadsIn<TapeJson> = &InPlace;

/// Each value written as a tape (`crate::tape::encode_exact`: its numbers as the value holds
/// them) and read there: the path of a build whose every call is read from a tape (the
/// JavaScript binding's default build), which then links the per-call path of one
/// representation only (docs/performance.md, P-JS-4).
#[derive(Clone, Copy, Debug, Default)]
pub struct ThroughTape;

impl Calls for ThroughTape {
    fn check(&self, tool: &ReceivedTool, selectors: &[Selector], result: &Value) -> Result<Value> {
        let buf = crate::tape::encode_exact(result);
        let tape = buf.tape();
        tool.check_node::<TapeJson, _>(selectors, tape.root(), IN_PLACE).map(|checked| checked.to_json())
    }

    fn route(
        &self,
        tool: &ReceivedTool,
        selectors: &[Selector],
        rule: Option<&Audience>,
        result: &Value,
    ) -> Result<Value> {
        let buf = crate::tape::encode_exact(result);
        let tape = buf.tape();
        let checked = tool.check_node::<TapeJson, _>(selectors, tape.root(), IN_PLACE)?;
        Ok(tool.route_node(&checked, rule).to_json())
    }

    fn assemble(
        &self,
        tool: &ServerTool,
        conn: &Connection,
        selectors: &[Selector],
        produced: &Value,
    ) -> Result<Value> {
        let buf = crate::tape::encode_exact(produced);
        let tape = buf.tape();
        Ok(tool.assemble_node::<TapeJson, _>(conn, selectors, tape.root(), IN_PLACE)?.into_value())
    }
}

/// The client-side operations, whose errors rank by input in one order (ERR-6).
const CLIENT_OPS: &[&str] = &["accept", "plan", "check", "route", "discover"];

/// The library's APIs report warnings and diagnostics as `{code, path}`; the contract compares
/// codes only, each once.
fn contract_form(op: &str, ok: &mut Value) {
    let codes = |value: &mut Value, key: &str| {
        if let Some(list) = value.get_mut(key) {
            *list = crate::json::finding_codes(list);
        }
    };
    codes(ok, "warnings");
    match op {
        "route" => codes(ok, "diagnostics"),
        "discover" => {
            // The contract's excluded entry is `{index, name, code}`; the APIs add path and message.
            if let Some(Value::Array(excluded)) = ok.get_mut("excluded") {
                for entry in excluded.iter_mut().filter_map(Value::as_object_mut) {
                    entry.retain(|key, _| matches!(key.as_str(), "index" | "name" | "code"));
                }
            }
        }
        "scenario" => {
            if let Some(route) = ok.get_mut("route") {
                codes(route, "diagnostics");
            }
        }
        _ => {}
    }
}

/// A client-side operation, its inputs judged in ERR-6's order: the common fields
/// (`protocolVersion`, then `negotiated`, `extensions`, `supportedVersions`), the tool, the
/// host's own options (`legacyStructured`, the plan's), `requestedOutputs`, the result.
fn run_client(op: &str, input: &Input<'_>, limits: Limits, calls: &dyn Calls) -> Result<Value> {
    let (config, conn) = client_connection(input, limits)?;
    if op == "discover" {
        return Ok(ReceivedTool::discover(input.required("result")?, &conn)?.to_json());
    }
    let tool = ReceivedTool::accept(input.required("tool")?, &conn)?;
    match op {
        "accept" => Ok(with_warnings(Map::new(), tool.warnings())),
        "plan" => tool.plan_json(input.value),
        "check" => {
            legacy_rule(input, &tool)?;
            request_shape(input, &config)?;
            let selectors = tool.selection(input.get("requestedOutputs"))?;
            calls.check(&tool, &selectors, input.required("result")?)
        }
        _ => {
            let rule = legacy_rule(input, &tool)?;
            request_shape(input, &config)?;
            let selectors = tool.selection(input.get("requestedOutputs"))?;
            calls.route(&tool, &selectors, rule.as_ref(), input.required("result")?)
        }
    }
}

/// The configuration and connection of a client-side operation, in ERR-6's order: the version
/// (judged against `supportedVersions` when that reads, else against every revision), then
/// `negotiated`, `extensions` and `supportedVersions` themselves.
fn client_connection(input: &Input<'_>, limits: Limits) -> Result<(Arc<Config>, Connection)> {
    let supported = crate::connection::read_supported_versions(input.get("supportedVersions"));
    let mut probe = Arc::unwrap_or_clone(Config::with_extensions(None, limits.clone())?);
    if let Ok(supported) = &supported {
        probe.supported_versions.clone_from(supported);
    }
    connection(input, &Arc::new(probe))?;
    let mut config = Arc::unwrap_or_clone(Config::with_extensions(input.get("extensions"), limits)?);
    config.supported_versions = supported?;
    let config = Arc::new(config);
    let conn = connection(input, &config)?;
    Ok((config, conn))
}

/// A server-side operation, in version 2's order.
fn run_server(op: &str, input: &Input<'_>, limits: Limits, calls: &dyn Calls) -> Result<Value> {
    let input = *input;
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
            let produced = input.server_own("produced")?;
            let result =
                calls.assemble(&tool, &conn, &selectors, produced).map_err(|e| ServerArgument::Tool.fault(e))?;
            Ok(object([("result", result)]))
        }
        "migrate" => {
            let options = MigrateOptions::from_json(input.get("options"))?;
            migrate(input.required("legacyTool")?, options, &config.limits).map(|migrated| migrated.to_json())
        }
        "list" => {
            // The server's own tools first (-32603), then its cache option, then the request.
            let tools = crate::wire::declare_tools(input.server_own("tools")?, input.get("legacyByTool"), &config)?;
            let cache =
                crate::wire::ListCache::from_json(input.get("cache")).map_err(|e| ServerArgument::Tool.fault(e))?;
            let next_cursor =
                crate::wire::next_cursor_option(input.get("nextCursor")).map_err(|e| ServerArgument::Tool.fault(e))?;
            let conn = connection(&input, &config).map_err(|e| ServerArgument::Request.fault(e))?;
            Ok(object([("result", crate::wire::project_tools_page(&tools, &conn, cache, next_cursor)?)]))
        }
        "scenario" => scenario(&input, &config, calls),
        other => Err(Error::malformed("/op", format!("unknown operation {other:?}"))),
    }
}

/// advertise → plan → respond → route in one go, as a server and a host on one connection.
fn scenario(input: &Input<'_>, config: &Arc<Config>, calls: &dyn Calls) -> Result<Value> {
    let (server, conn) = server_side(input, config)?;
    let advertised = server.advertise(&conn);
    let received = ReceivedTool::accept(&advertised, &conn)?;
    let plan = received.plan_json(input.value)?;
    let requested = plan.get("requestedOutputs").cloned();
    // LEG-8: the plan's local rule for legacy structuredContent is the route's.
    let rule = plan.get("legacyStructured").map(|consumer| received.legacy_consumer(consumer)).transpose()?;
    // `respond` and `route`, their result or produced outputs read by `calls`.
    let selectors = server.select(&conn, requested.as_ref())?;
    let produced = input.server_own("produced")?;
    let result = calls.assemble(&server, &conn, &selectors, produced).map_err(|e| ServerArgument::Tool.fault(e))?;
    let selectors = received.selection(requested.as_ref())?;
    let route = calls.route(&received, &selectors, rule.as_ref(), &result)?;
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
    request_shape(input, config).map_err(|e| ServerArgument::Request.fault(e))?;
    let conn = connection(input, config).map_err(|e| ServerArgument::Request.fault(e))?;
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

#[derive(Clone, Copy)]
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
        self.required(key).map_err(|e| ServerArgument::Tool.fault(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every case file of the shared corpus (`tests/corpus/<area>/*.json`, a case or an array).
    fn corpus_cases() -> Vec<Value> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
        let mut cases = Vec::new();
        for area in std::fs::read_dir(&root).unwrap() {
            let area = area.unwrap().path();
            if !area.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(&area).unwrap() {
                let file = file.unwrap().path();
                if file.extension().is_none_or(|e| e != "json") {
                    continue;
                }
                let text = std::fs::read_to_string(&file).unwrap();
                let mut de = serde_json::Deserializer::from_str(&text);
                de.disable_recursion_limit();
                match <Value as serde::Deserialize>::deserialize(&mut de).unwrap() {
                    Value::Array(items) => cases.extend(items),
                    case => cases.push(case),
                }
            }
        }
        cases
    }

    /// `ThroughTape` answers every corpus case of check, route, respond and scenario as
    /// `AsValues` does: the same errors (code, path, message) and the same answers.
    #[test]
    fn through_a_tape_every_corpus_case_answers_as_with_values() {
        let mut compared = 0;
        for case in corpus_cases() {
            let op = case["op"].as_str().unwrap();
            if !["check", "route", "respond", "scenario"].contains(&op) {
                continue;
            }
            let input = &case["input"];
            let values = run_with(op, input, Limits::default(), &AsValues);
            let tape = run_with(op, input, Limits::default(), &ThroughTape);
            match (values, tape) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{}", case["id"]),
                (Err(a), Err(b)) => assert_eq!(a.to_json(), b.to_json(), "{}", case["id"]),
                (a, b) => panic!("{}: {a:?} against {b:?}", case["id"]),
            }
            compared += 1;
        }
        assert!(compared > 200, "{compared} cases compared");
    }
}
