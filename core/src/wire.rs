//! Wire helpers, so that no SDK writes protocol logic of its own: the protocol version and
//! client capabilities of a request, the negotiated extension set (EXT-2), a whole tools/list
//! projected for one connection, and JSON-RPC error responses.

use crate::audience::APPS_EXTENSION;
use crate::connection::{Config, Connection};
use crate::error::{jsonrpc, Error, ErrorCode, Result};
use crate::server::ServerTool;
use crate::version::ProtocolVersion;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// `params._meta` key of the per-request protocol version (from 2026-07-28 on).
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `params._meta` key of the per-request client capabilities (from 2026-07-28 on).
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The MIME type an Apps client must list in its `mimeTypes` setting.
pub const APPS_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The protocol facts a request carries.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestContext {
    /// The request's protocol version.
    pub version: ProtocolVersion,
    /// The client's capabilities object.
    pub client_capabilities: Value,
}

impl RequestContext {
    /// Reads `params._meta["io.modelcontextprotocol/protocolVersion"]` and
    /// `…/clientCapabilities` (both required from 2026-07-28 on: a missing one is `malformed`,
    /// JSON-RPC -32602; a bad version is -32602 or -32022).
    pub fn from_params(params: &Value) -> Result<Self> {
        RequestContext::read_params(params).map_err(|e| e.on_wire(jsonrpc::INVALID_PARAMS))
    }

    fn read_params(params: &Value) -> Result<Self> {
        let meta = params
            .get("_meta")
            .and_then(Value::as_object)
            .ok_or_else(|| {
                Error::malformed(
                    "/_meta",
                    "the request has no params._meta with its protocol version",
                )
            })?;
        let version = match meta.get(META_PROTOCOL_VERSION) {
            Some(Value::String(v)) => ProtocolVersion::parse(v)?,
            Some(_) => {
                return Err(Error::malformed(
                    "/_meta/io.modelcontextprotocol~1protocolVersion",
                    "the protocol version must be a string",
                ))
            }
            None => {
                return Err(Error::malformed(
                    "/_meta",
                    format!("params._meta lacks {META_PROTOCOL_VERSION}"),
                ))
            }
        };
        let client_capabilities = match meta.get(META_CLIENT_CAPABILITIES) {
            Some(caps @ Value::Object(_)) => caps.clone(),
            Some(_) => {
                return Err(Error::malformed(
                    "/_meta/io.modelcontextprotocol~1clientCapabilities",
                    "client capabilities must be an object",
                ))
            }
            None => {
                return Err(Error::malformed(
                    "/_meta",
                    format!("params._meta lacks {META_CLIENT_CAPABILITIES}"),
                ))
            }
        };
        Ok(RequestContext {
            version,
            client_capabilities,
        })
    }

    /// The facts agreed in `initialize` (revisions up to 2025-11-25): the negotiated
    /// `protocolVersion` and the client's `capabilities`.
    pub fn from_initialize(protocol_version: &str, client_capabilities: &Value) -> Result<Self> {
        let version = ProtocolVersion::parse(protocol_version)
            .map_err(|e| e.on_wire(jsonrpc::INVALID_PARAMS))?;
        if !client_capabilities.is_object() {
            return Err(
                Error::malformed("/capabilities", "client capabilities must be an object")
                    .on_wire(jsonrpc::INVALID_PARAMS),
            );
        }
        Ok(RequestContext {
            version,
            client_capabilities: client_capabilities.clone(),
        })
    }

    /// The connection for this request, given the server's capabilities.
    pub fn connection(&self, server_capabilities: &Value, config: Arc<Config>) -> Connection {
        let negotiated = negotiate(&self.client_capabilities, server_capabilities);
        Connection::new(self.version, negotiated, config)
    }
}

/// The extension identifiers both sides list in `capabilities.extensions` (EXT-2), in the
/// server's order. Apps counts only when the client's settings list the Apps MIME type.
pub fn negotiate(client_capabilities: &Value, server_capabilities: &Value) -> Vec<String> {
    let extensions = |caps: &Value| {
        caps.get("extensions")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let client: Map<String, Value> = extensions(client_capabilities);
    let server: Map<String, Value> = extensions(server_capabilities);
    server
        .keys()
        .filter(|id| match client.get(id.as_str()) {
            None => false,
            Some(settings) if id.as_str() == APPS_EXTENSION => settings
                .get("mimeTypes")
                .and_then(Value::as_array)
                .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(APPS_MIME_TYPE))),
            Some(settings) => settings.is_object(),
        })
        .cloned()
        .collect()
}

/// The tools/list result for one connection: each tool advertised for its version and
/// negotiated extensions.
pub fn project_tools_list(tools: &[ServerTool], conn: &Connection) -> Result<Value> {
    conn.limits()
        .check_count(tools.len(), conn.limits().max_tools, "/tools", "tools")?;
    let projected: Vec<Value> = tools.iter().map(|t| t.advertise(conn)).collect();
    let mut result = Map::new();
    if conn.version().has_result_type() {
        result.insert("resultType".into(), Value::from("complete"));
    }
    result.insert("tools".into(), Value::Array(projected));
    Ok(Value::Object(result))
}

/// The JSON-RPC error response for a failed server-side operation (`id` as in the request).
/// A client-side error has no wire form and is sent as an internal error.
pub fn error_response(id: &Value, error: &Error) -> Value {
    let rpc = error.to_jsonrpc_error().unwrap_or_else(|| {
        json!({ "code": jsonrpc::INTERNAL_ERROR, "message": error.message(), "data": { "mcpOutputsCode": error.code().as_str() } })
    });
    json!({ "jsonrpc": "2.0", "id": id, "error": rpc })
}

/// Whether an error is one the server sends on the wire as invalid params.
pub fn is_invalid_params(error: &Error) -> bool {
    error.jsonrpc_code() == Some(jsonrpc::INVALID_PARAMS)
        || error.code() == ErrorCode::InvalidProtocolVersion
}
