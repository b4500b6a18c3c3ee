//! The JSON facade the language bindings call: every argument and answer is a JSON value (or
//! JSON text, for hosts that hold the wire bytes), so a binding only converts values and
//! errors and never needs protocol logic of its own.
//!
//! Shapes:
//! - library options: `{ "extensions"?: [definition, …], "limits"?: { "maxDepth"?, "maxBytes"?,
//!   "maxArrayLen"?, "maxObjectLen"?, "maxVariants"?, "maxTools"?, "maxExtensions"? } }`
//! - a connection: `{ "protocolVersion"?: "2026-12-01", "negotiated"?: ["io.modelcontextprotocol/ui"] }`
//! - a plan request: `{ "mode": "apps" }` or `{ "consumers": [selector, …] }`, plus optional
//!   `"requireSchema"` and `"schemas"` booleans.

use crate::client::ReceivedTool;
use crate::connection::{Config, Connection};
use crate::declaration::Warning;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::planning::{Mode, PlanOptions};
use crate::routing::Route;
use crate::server::{Produced, ServerTool};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Builds the library configuration from its JSON options.
pub fn config(options: Option<&Value>) -> Result<Arc<Config>> {
    let Some(options) = options.filter(|o| !o.is_null()) else {
        return Ok(Config::new());
    };
    let obj = options.as_object().ok_or_else(|| Error::malformed("", "options must be an object"))?;
    let limits = limits(obj.get("limits"))?;
    Config::with_extensions(obj.get("extensions"), limits)
}

/// Reads `limits` options: each a non-negative integer, absent ones at their defaults.
pub fn limits(value: Option<&Value>) -> Result<Limits> {
    let mut limits = Limits::default();
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(limits);
    };
    let obj = value.as_object().ok_or_else(|| Error::malformed("/limits", "limits must be an object"))?;
    for (key, item) in obj {
        let number = item.as_u64().and_then(|n| usize::try_from(n).ok()).ok_or_else(|| {
            Error::malformed(format!("/limits/{key}"), format!("{key} must be a non-negative integer"))
        })?;
        let slot = match key.as_str() {
            "maxDepth" => &mut limits.max_depth,
            "maxBytes" => &mut limits.max_bytes,
            "maxArrayLen" => &mut limits.max_array_len,
            "maxObjectLen" => &mut limits.max_object_len,
            "maxVariants" => &mut limits.max_variants,
            "maxTools" => &mut limits.max_tools,
            "maxExtensions" => &mut limits.max_extensions,
            other => return Err(Error::malformed(format!("/limits/{other}"), format!("unknown limit {other:?}"))),
        };
        *slot = number;
    }
    Ok(limits)
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

/// Warning codes as a JSON array, each once.
pub fn warnings(warnings: &[Warning]) -> Value {
    let mut codes: Vec<Value> = Vec::new();
    for w in warnings {
        let code = Value::from(w.code.as_str());
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
            .map_err(|e| e.on_wire(crate::error::jsonrpc::INVALID_PARAMS))?;
        self.select_json(conn, requested.as_ref()).map(|v| v.to_string())
    }

    /// [`ServerTool::respond`] over JSON text: the produced outputs in, the wire result out.
    pub fn respond_text(&self, conn: &Connection, requested: Option<&str>, produced: &str) -> Result<String> {
        let limits = conn.limits();
        let requested = requested
            .map(|t| limits.parse_text(t, "requestedOutputs"))
            .transpose()
            .map_err(|e| e.on_wire(crate::error::jsonrpc::INVALID_PARAMS))?;
        let produced =
            limits.parse_text(produced, "produced").map_err(|e| e.on_wire(crate::error::jsonrpc::INTERNAL_ERROR))?;
        let result = self.respond(conn, requested.as_ref(), Produced::new(&produced))?;
        Ok(result.to_string())
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
        if flag("schemas")? {
            out.insert("schemas".into(), plan.schemas_json());
        }
        Ok(Value::Object(out))
    }

    /// [`ReceivedTool::route`] with the route as JSON.
    pub fn route_json(&self, requested: Option<&Value>, result: &Value) -> Result<Value> {
        self.route(requested, result).map(|r| r.to_json())
    }

    /// [`ReceivedTool::check`] over JSON text (for hosts that hold the wire bytes).
    pub fn check_text(&self, requested: Option<&str>, result: &str) -> Result<()> {
        let limits = self.connection().limits();
        let requested = requested.map(|t| limits.parse_text(t, "requestedOutputs")).transpose()?;
        let result = limits.parse_text(result, "result")?;
        self.check(requested.as_ref(), &result).map(|_| ())
    }

    /// [`ReceivedTool::route`] over JSON text, answering JSON text.
    pub fn route_text(&self, requested: Option<&str>, result: &str) -> Result<String> {
        let limits = self.connection().limits();
        let requested = requested.map(|t| limits.parse_text(t, "requestedOutputs")).transpose()?;
        let result = limits.parse_text(result, "result")?;
        Ok(self.route_json(requested.as_ref(), &result)?.to_string())
    }
}

impl Route<'_> {
    /// [`Route::to_json`] with every routed output that is an element of `result.outputs`
    /// written as its index there (a number) instead of a copy. A binding whose caller already
    /// holds the result, or can parse the bytes itself, swaps the indices back for the
    /// caller's own output objects and so never sends the outputs back across the boundary.
    /// Outputs the route synthesizes (the legacy `content` in `model`) stay literal.
    pub fn to_json_indexed(&self, result: &Value) -> Value {
        let outputs: &[Value] = result.get("outputs").and_then(Value::as_array).map_or(&[], Vec::as_slice);
        let item = |v: &Value| match outputs.iter().position(|o| std::ptr::eq(o, v)) {
            Some(index) => Value::from(index),
            None => v.clone(),
        };
        self.render(item)
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
        Ok(self.route(requested.as_ref(), &result)?.to_json_indexed(&result).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let conn = connection(&config, Some(&json!({"protocolVersion": "2025-06-18"}))).expect("conn");
        assert_eq!(conn.version().as_str(), "2025-06-18");
        assert_eq!(connection(&config, None).expect("default").version().as_str(), "2026-12-01");
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
