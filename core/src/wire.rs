//! Wire helpers, so that no SDK writes protocol logic of its own: the protocol version and
//! client capabilities of a request, the negotiated extension set (EXT-2), a whole tools/list
//! projected for one connection, and JSON-RPC error responses.

use crate::audience::{is_extension_id, APPS_EXTENSION};
use crate::connection::{Config, Connection};
use crate::error::{jsonrpc, pointer_index, Error, Result, ServerArgument};
use crate::planning::Plan;
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
/// JSON Pointer of the per-request protocol version inside `params`.
const META_PROTOCOL_VERSION_PATH: &str = "/_meta/io.modelcontextprotocol~1protocolVersion";

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
        RequestContext::from_params_for(params, &Config::default())
    }

    /// [`RequestContext::from_params`] for a side that supports only
    /// `config.supported_versions` (VER-4): any other revision is -32022, with that list.
    pub fn from_params_for(params: &Value, config: &Config) -> Result<Self> {
        RequestContext::read_params(params, config).map_err(|e| ServerArgument::Request.fault(e))
    }

    fn read_params(params: &Value, config: &Config) -> Result<Self> {
        let meta = params
            .get("_meta")
            .and_then(Value::as_object)
            .ok_or_else(|| Error::malformed("/_meta", "the request has no params._meta with its protocol version"))?;
        let version = match meta.get(META_PROTOCOL_VERSION) {
            // The parse error names the version string itself; the caller gave the params.
            Some(Value::String(v)) => config.parse_version(v).map_err(|e| e.under(META_PROTOCOL_VERSION_PATH))?,
            Some(_) => {
                return Err(Error::malformed(META_PROTOCOL_VERSION_PATH, "the protocol version must be a string"))
            }
            None => return Err(Error::malformed("/_meta", format!("params._meta lacks {META_PROTOCOL_VERSION}"))),
        };
        let client_capabilities = match meta.get(META_CLIENT_CAPABILITIES) {
            Some(caps @ Value::Object(_)) => caps.clone(),
            Some(_) => {
                return Err(Error::malformed(
                    "/_meta/io.modelcontextprotocol~1clientCapabilities",
                    "client capabilities must be an object",
                ))
            }
            None => return Err(Error::malformed("/_meta", format!("params._meta lacks {META_CLIENT_CAPABILITIES}"))),
        };
        Ok(RequestContext { version, client_capabilities })
    }

    /// The facts agreed in `initialize` (revisions up to 2025-11-25): the negotiated
    /// `protocolVersion` and the client's `capabilities`.
    pub fn from_initialize(protocol_version: &str, client_capabilities: &Value) -> Result<Self> {
        let version = ProtocolVersion::parse(protocol_version).map_err(|e| ServerArgument::Request.fault(e))?;
        if !client_capabilities.is_object() {
            return Err(ServerArgument::Request
                .fault(Error::malformed("/capabilities", "client capabilities must be an object")));
        }
        Ok(RequestContext { version, client_capabilities: client_capabilities.clone() })
    }

    /// The connection for this request, given the server's capabilities. More negotiated
    /// extensions than `max_extensions` is `limit-exceeded` (JSON-RPC -32602), as for a
    /// `Connection` built from a list.
    pub fn connection(&self, server_capabilities: &Value, config: Arc<Config>) -> Result<Connection> {
        let negotiated = negotiate(&self.client_capabilities, server_capabilities);
        config
            .limits
            .check_count(negotiated.len(), config.limits.max_extensions, "", "negotiated extensions")
            .map_err(|e| ServerArgument::Request.fault(e))?;
        Ok(Connection::new(self.version, negotiated, config))
    }
}

/// The extension identifiers both sides list in `capabilities.extensions` (EXT-2), in the
/// server's order. Apps counts only when the client's settings list the Apps MIME type. A key
/// that is not a well-formed extension identifier (`"__proto__"`, `"x"`) names no extension:
/// it is never negotiated.
pub fn negotiate(client_capabilities: &Value, server_capabilities: &Value) -> Vec<String> {
    let extensions = |caps: &Value| caps.get("extensions").and_then(Value::as_object).cloned().unwrap_or_default();
    let client: Map<String, Value> = extensions(client_capabilities);
    let server: Map<String, Value> = extensions(server_capabilities);
    server
        .keys()
        .filter(|id| is_extension_id(id))
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

/// The `params` of a tools/call request (client side). `requestedOutputs` comes from the plan
/// only, never from the model-generated `arguments` (SEL-6), and is absent whenever the plan
/// omits it, which it always does under an earlier revision (SEL-2). From 2026-07-28 on the
/// request carries its protocol version and client capabilities in `_meta`.
pub fn tools_call_params(
    name: &str,
    arguments: Option<&Value>,
    plan: &Plan,
    version: ProtocolVersion,
    client_capabilities: &Value,
) -> Value {
    let mut params = Map::new();
    params.insert("name".into(), Value::from(name));
    if let Some(arguments) = arguments {
        params.insert("arguments".into(), arguments.clone());
    }
    if let Some(requested) = plan.requested_outputs().filter(|_| !version.is_legacy()) {
        params.insert("requestedOutputs".into(), requested);
    }
    request_params(params, version, client_capabilities)
}

/// The `params` of any request on a connection (client side): from 2026-07-28 on, `_meta`
/// gains the protocol version and the client capabilities, next to what it already holds;
/// before, the params are unchanged (`initialize` agreed on both). A `_meta` that is not an
/// object is replaced: the request would be invalid with it.
pub fn request_params(mut params: Map<String, Value>, version: ProtocolVersion, client_capabilities: &Value) -> Value {
    if version >= ProtocolVersion::V2026_07_28 {
        let mut meta = match params.remove("_meta") {
            Some(Value::Object(meta)) => meta,
            _ => Map::new(),
        };
        meta.insert(META_PROTOCOL_VERSION.into(), Value::from(version.as_str()));
        meta.insert(META_CLIENT_CAPABILITIES.into(), client_capabilities.clone());
        params.insert("_meta".into(), Value::Object(meta));
    }
    Value::Object(params)
}

/// The SEP-2549 cache fields of a tools/list result (from 2026-07-28 on): how long the client
/// may treat the list as fresh, and who may share it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListCache {
    /// `ttlMs`: milliseconds the list stays fresh (`0`: immediately stale).
    pub ttl_ms: u64,
    /// `cacheScope`.
    pub scope: CacheScope,
}

/// `cacheScope`: who may be served a cached result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CacheScope {
    /// Any user, from a shared cache.
    Public,
    /// Only within the authorization context that produced it (the default of the official
    /// Python SDK when a handler sets nothing).
    #[default]
    Private,
}

impl CacheScope {
    /// The wire form.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

impl ListCache {
    /// Reads `{ "ttlMs": <integer >= 0>, "cacheScope": "public" | "private" }` (both required;
    /// anything else, null included, `malformed`, as every optional input of the contract);
    /// absent is the default, `0` / `"private"`.
    pub fn from_json(value: Option<&Value>) -> Result<Self> {
        let Some(value) = value else {
            return Ok(ListCache::default());
        };
        let obj = value.as_object().ok_or_else(|| Error::malformed("/cache", "cache must be an object"))?;
        ListCache::read(obj, "/cache")
    }

    /// The two fields of an object (a cache option, or a received result).
    fn read(obj: &Map<String, Value>, base: &str) -> Result<Self> {
        let ttl_ms = match obj.get("ttlMs") {
            Some(ttl) => crate::fields::whole_number(ttl)
                .ok_or_else(|| Error::malformed(format!("{base}/ttlMs"), "ttlMs must be an integer >= 0 (SEP-2549)"))?,
            None => return Err(Error::malformed(base, "ttlMs is required (SEP-2549)")),
        };
        let scope = match obj.get("cacheScope").map(Value::as_str) {
            Some(Some("public")) => CacheScope::Public,
            Some(Some("private")) => CacheScope::Private,
            Some(_) => {
                return Err(Error::malformed(
                    format!("{base}/cacheScope"),
                    "cacheScope must be \"public\" or \"private\"",
                ))
            }
            None => return Err(Error::malformed(base, "cacheScope is required (SEP-2549)")),
        };
        Ok(ListCache { ttl_ms, scope })
    }

    /// Reads the cache fields of a received tools/list result from 2026-07-28 on, as the
    /// Caching page asks of clients (CACHE-1): `ttlMs` absent or negative is `0`, `cacheScope`
    /// absent or unknown is `"private"` (the safer scope), each repair a warning; a `ttlMs` that
    /// is not an integer by value, or a `cacheScope` that is not a string, is `malformed`.
    /// Not read before 2026-07-28.
    pub(crate) fn from_received(
        result: &Map<String, Value>,
        version: ProtocolVersion,
        warnings: &mut Vec<crate::declaration::Warning>,
    ) -> Result<Option<Self>> {
        use crate::declaration::{Warning, WarningCode};
        if !version.has_result_type() {
            return Ok(None);
        }
        let mut warn = |code, path: &str| warnings.push(Warning { code, path: path.into() });
        let ttl_ms = match result.get("ttlMs") {
            None => {
                warn(WarningCode::TtlMissing, "");
                0
            }
            Some(ttl) => match crate::fields::integer_by_value(ttl) {
                Some(n) if n < 0 => {
                    warn(WarningCode::TtlNegative, "/ttlMs");
                    0
                }
                Some(n) => u64::try_from(n).unwrap_or(u64::MAX),
                None => return Err(Error::malformed("/ttlMs", "ttlMs must be an integer (SEP-2549)")),
            },
        };
        let scope = match result.get("cacheScope") {
            None => {
                warn(WarningCode::CacheScopeMissing, "");
                CacheScope::Private
            }
            Some(Value::String(s)) if s == "public" => CacheScope::Public,
            Some(Value::String(s)) if s == "private" => CacheScope::Private,
            Some(Value::String(_)) => {
                warn(WarningCode::CacheScopeUnknown, "/cacheScope");
                CacheScope::Private
            }
            Some(_) => return Err(Error::malformed("/cacheScope", "cacheScope must be a string (SEP-2549)")),
        };
        Ok(Some(ListCache { ttl_ms, scope }))
    }
}

/// The tools/list result for one connection: each tool advertised for its version and
/// negotiated extensions (LIST-1).
pub fn project_tools_list(tools: &[ServerTool], conn: &Connection, cache: ListCache) -> Result<Value> {
    project_tools_page(tools, conn, cache, None)
}

/// [`project_tools_list`] for one page of a paginated list: `next_cursor` is sent as given
/// (LIST-4).
pub fn project_tools_page(
    tools: &[ServerTool],
    conn: &Connection,
    cache: ListCache,
    next_cursor: Option<&str>,
) -> Result<Value> {
    // Counted before any tool is advertised, so an oversized list costs nothing.
    check_tool_count(tools.len(), conn)?;
    tools_list_page(tools.iter().map(|t| t.advertise(conn)).collect(), conn, cache, next_cursor)
}

/// Reads the `nextCursor` option of a tools/list page: a string, or absent (LIST-4).
pub fn next_cursor_option(value: Option<&Value>) -> Result<Option<&str>> {
    match value {
        None => Ok(None),
        Some(Value::String(cursor)) => Ok(Some(cursor)),
        Some(_) => Err(Error::malformed("/nextCursor", "nextCursor must be a string")),
    }
}

/// Declares every tool of a server's tools/list (the `list` operation's input): each entry is
/// validated as [`ServerTool::declare`] validates it, in every revision, with its legacy
/// options from `legacy_by_tool` (an object keyed by tool name). The first failing tool in
/// array order is the error; a `legacy_by_tool` key naming no tool is `malformed`. Every
/// error is the server's own fault (-32603). Two tools with one name are refused when the list
/// is built ([`tools_list_result`]).
pub fn declare_tools(tools: &Value, legacy_by_tool: Option<&Value>, config: &Arc<Config>) -> Result<Vec<ServerTool>> {
    declare_tools_inner(tools, legacy_by_tool, config).map_err(|e| ServerArgument::Tool.fault(e))
}

fn declare_tools_inner(tools: &Value, legacy_by_tool: Option<&Value>, config: &Arc<Config>) -> Result<Vec<ServerTool>> {
    let list = tools.as_array().ok_or_else(|| Error::malformed("/tools", "tools must be an array of declarations"))?;
    config.limits.check_count(list.len(), config.limits.max_tools, "/tools", "tools")?;
    let legacy_by_tool = match legacy_by_tool {
        None => None,
        Some(Value::Object(map)) => Some(map),
        Some(_) => return Err(Error::malformed("/legacyByTool", "legacyByTool must be an object keyed by tool name")),
    };
    let mut declared: Vec<ServerTool> = Vec::with_capacity(list.len());
    for (i, tool) in list.iter().enumerate() {
        let path = pointer_index("/tools", i);
        let name = tool.get("name").and_then(Value::as_str);
        let legacy = name.and_then(|n| legacy_by_tool.and_then(|m| m.get(n)));
        declared.push(ServerTool::declare(tool, legacy, config).map_err(|e| e.under(&path))?);
    }
    if let Some(key) = legacy_by_tool.and_then(|m| m.keys().find(|k| !declared.iter().any(|d| d.name() == k.as_str())))
    {
        return Err(Error::malformed(
            crate::error::pointer_push("/legacyByTool", key),
            format!("legacyByTool names {key:?}, which is not one of the tools"),
        ));
    }
    Ok(declared)
}

/// The tools/list result for one connection from Tool objects as they are to be sent
/// (LIST-1): `resultType: "complete"`, `ttlMs` and `cacheScope` are added from 2026-07-28 on.
/// At most `max_tools` tools; each must be an object with a name no other tool has
/// (`malformed` at `/tools/<i>`), and under
/// 2026-12-01 each must carry `outputVariants`: a legacy-shaped Tool is never sent on the new
/// revision (`missing-output-variants`). A server's not-yet-migrated legacy Tools go out as
/// given under earlier revisions. Every error is the server's own fault (-32603).
pub fn tools_list_result(tools: Vec<Value>, conn: &Connection, cache: ListCache) -> Result<Value> {
    tools_list_page(tools, conn, cache, None)
}

/// [`tools_list_result`] for one page of a paginated list, with its `nextCursor` (LIST-4).
pub fn tools_list_page(
    tools: Vec<Value>,
    conn: &Connection,
    cache: ListCache,
    next_cursor: Option<&str>,
) -> Result<Value> {
    tools_list_result_inner(tools, conn, cache, next_cursor).map_err(|e| ServerArgument::Tool.fault(e))
}

fn tools_list_result_inner(
    mut tools: Vec<Value>,
    conn: &Connection,
    cache: ListCache,
    next_cursor: Option<&str>,
) -> Result<Value> {
    check_tool_count(tools.len(), conn)?;
    if let Some(i) = tools.iter().position(|t| !t.is_object()) {
        return Err(Error::malformed(pointer_index("/tools", i), "a Tool must be an object"));
    }
    // A map of owned names (the type the schema analysis uses already: one instantiation fewer
    // in the wasm); a name met before is one already in it.
    let mut names: std::collections::HashMap<String, usize> = std::collections::HashMap::with_capacity(tools.len());
    for (i, tool) in tools.iter().enumerate() {
        if tool.get("name").and_then(Value::as_str).is_some_and(|name| names.insert(name.to_owned(), i).is_some()) {
            return Err(Error::malformed(
                pointer_index("/tools", i),
                "two tools share one name: a client could not tell them apart",
            ));
        }
    }
    if !conn.version().is_legacy() {
        if let Some(i) = tools.iter().position(|t| t.get("outputVariants").is_none()) {
            return Err(Error::new(
                crate::error::ErrorCode::MissingOutputVariants,
                pointer_index("/tools", i),
                "a 2026-12-01 tools/list never carries a legacy-shaped Tool: migrate it or declare outputVariants",
            ));
        }
    }
    if conn.version().is_legacy() {
        // LEG-9: the SEP's "MUST omit outputVariants" holds for a Tool passed through as given.
        for tool in &mut tools {
            if let Some(tool) = tool.as_object_mut() {
                tool.remove("outputVariants");
            }
        }
    }
    let mut result = Map::new();
    if conn.version().has_result_type() {
        result.insert("resultType".into(), Value::from("complete"));
        result.insert("ttlMs".into(), Value::from(cache.ttl_ms));
        result.insert("cacheScope".into(), Value::from(cache.scope.as_str()));
    }
    result.insert("tools".into(), Value::Array(tools));
    if let Some(cursor) = next_cursor {
        result.insert("nextCursor".into(), Value::from(cursor));
    }
    Ok(Value::Object(result))
}

fn check_tool_count(count: usize, conn: &Connection) -> Result<()> {
    conn.limits().check_count(count, conn.limits().max_tools, "/tools", "tools")
}

/// The JSON-RPC error response for a failed server-side operation (`id` as in the request).
/// A client-side error has no wire form and is sent as an internal error.
pub fn error_response(id: &Value, error: &Error) -> Value {
    let rpc = error.to_jsonrpc_error().unwrap_or_else(|| {
        json!({ "code": jsonrpc::INTERNAL_ERROR, "message": error.message(), "data": { "mcpOutputsCode": error.code().as_str() } })
    });
    crate::fields::object(vec![("jsonrpc", Value::from("2.0")), ("id", id.clone()), ("error", rpc)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audience::APPS_EXTENSION;
    use crate::error::ErrorCode;
    use serde_json::json;

    fn apps_client() -> Value {
        json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}, "com.example/audit": {}}})
    }

    #[test]
    fn negotiation_needs_both_sides_and_the_apps_mime_type() {
        let server =
            json!({"extensions": {"io.modelcontextprotocol/ui": {}, "com.example/audit": {}, "com.example/other": {}}});
        assert_eq!(negotiate(&apps_client(), &server), vec!["io.modelcontextprotocol/ui", "com.example/audit"]);
        let no_mime = json!({"extensions": {"io.modelcontextprotocol/ui": {}}});
        assert!(negotiate(&no_mime, &server).is_empty());
        let wrong_mime = json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}});
        assert!(negotiate(&wrong_mime, &server).is_empty());
        assert!(negotiate(&apps_client(), &json!({})).is_empty());
        assert!(negotiate(&json!({"extensions": "nope"}), &server).is_empty());
    }

    #[test]
    fn request_meta_is_read_and_checked() {
        let params = json!({"name": "t", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-12-01",
            "io.modelcontextprotocol/clientCapabilities": apps_client()
        }});
        let ctx = RequestContext::from_params(&params).expect("valid params");
        assert_eq!(ctx.version, ProtocolVersion::V2026_12_01);
        let server = json!({"extensions": {"io.modelcontextprotocol/ui": {}}});
        let conn = ctx.connection(&server, Config::new()).expect("one extension");
        assert_eq!(conn.negotiated(), [APPS_EXTENSION]);

        let missing = RequestContext::from_params(&json!({"name": "t"})).expect_err("no _meta");
        assert_eq!((missing.code(), missing.jsonrpc_code()), (ErrorCode::Malformed, Some(-32602)));
        let no_caps = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-12-01"}});
        assert_eq!(RequestContext::from_params(&no_caps).expect_err("no caps").jsonrpc_code(), Some(-32602));
        let unsupported = json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2025-01-01",
            "io.modelcontextprotocol/clientCapabilities": {}
        }});
        let err = RequestContext::from_params(&unsupported).expect_err("unsupported");
        assert_eq!(err.code(), ErrorCode::UnsupportedProtocolVersion);
        assert_eq!(err.path(), "/_meta/io.modelcontextprotocol~1protocolVersion");
        let rpc = err.to_jsonrpc_error().expect("a wire error");
        assert_eq!(rpc["code"], json!(-32022));
        assert_eq!(rpc["data"]["requested"], json!("2025-01-01"));
        assert_eq!(rpc["data"]["supported"][5], json!("2026-12-01"));
        let invalid = RequestContext::from_initialize("latest", &json!({})).expect_err("invalid");
        assert_eq!((invalid.code(), invalid.jsonrpc_code()), (ErrorCode::InvalidProtocolVersion, Some(-32602)));
        assert!(RequestContext::from_initialize("2025-06-18", &json!({})).is_ok());
    }

    #[test]
    fn tools_list_is_projected_per_connection() {
        let config = Config::new();
        let tool = ServerTool::declare(
            &json!({"name": "t", "inputSchema": {"type": "object"}, "outputVariants": [
                {"audience": "assistant", "format": "content"},
                {"audience": "io.modelcontextprotocol/ui", "format": "structured", "schema": {"type": "object"}}
            ]}),
            None,
            &config,
        )
        .expect("valid tool");
        let tools = [tool];
        let count = |list: &Value| list["tools"][0]["outputVariants"].as_array().map(Vec::len);
        let plain = Connection::new(ProtocolVersion::V2026_12_01, vec![], Arc::clone(&config));
        let list = project_tools_list(&tools, &plain, ListCache::default()).expect("listed");
        assert_eq!(count(&list), Some(1));
        assert_eq!(list["resultType"], json!("complete"));
        let apps = Connection::new(ProtocolVersion::V2026_12_01, vec![APPS_EXTENSION.into()], Arc::clone(&config));
        assert_eq!(count(&project_tools_list(&tools, &apps, ListCache::default()).expect("listed")), Some(2));
        let old = Connection::new(ProtocolVersion::V2025_06_18, vec![APPS_EXTENSION.into()], config);
        let legacy = project_tools_list(&tools, &old, ListCache::default()).expect("listed");
        assert!(legacy.get("resultType").is_none());
        assert!(legacy["tools"][0].get("outputVariants").is_none());
        assert_eq!(legacy["tools"][0]["outputSchema"], json!({"type": "object"}));
    }

    #[test]
    fn tools_list_results_pass_legacy_tools_through_only_on_earlier_revisions() {
        let legacy = json!({"name": "old", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}});
        let config = Config::new();
        let conn = Connection::new(ProtocolVersion::V2026_07_28, vec![], Arc::clone(&config));
        let list = tools_list_result(vec![legacy.clone()], &conn, ListCache::default()).expect("listed");
        assert_eq!(list, json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": [legacy]}));
        let public = ListCache { ttl_ms: 60_000, scope: CacheScope::Public };
        let list = tools_list_result(vec![], &conn, public).expect("listed");
        assert_eq!(list, json!({"resultType": "complete", "ttlMs": 60_000, "cacheScope": "public", "tools": []}));
        let old = Connection::new(ProtocolVersion::V2025_11_25, vec![], Arc::clone(&config));
        assert_eq!(tools_list_result(vec![], &old, public).expect("listed"), json!({"tools": []}));
        let err = tools_list_result(vec![legacy.clone(), json!("t")], &conn, public).expect_err("not an object");
        assert_eq!((err.code(), err.path(), err.jsonrpc_code()), (ErrorCode::Malformed, "/tools/1", Some(-32603)));
        let new = Connection::new(ProtocolVersion::V2026_12_01, vec![], Arc::clone(&config));
        let err = tools_list_result(vec![legacy.clone()], &new, public).expect_err("legacy Tool on 2026-12-01");
        assert_eq!(
            (err.code(), err.path(), err.jsonrpc_code()),
            (ErrorCode::MissingOutputVariants, "/tools/0", Some(-32603))
        );
        // LEG-9: a Tool passed through as given under an earlier revision loses outputVariants
        // (the SEP's "MUST omit"); on 2026-12-01 it keeps them. The page's nextCursor is sent.
        let mixed = json!({"name": "mixed", "inputSchema": {"type": "object"},
                           "outputVariants": [{"audience": "assistant", "format": "content"}]});
        for version in [ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_06_18, ProtocolVersion::V2026_07_28] {
            let conn = Connection::new(version, vec![], Arc::clone(&config));
            let list = tools_list_page(vec![mixed.clone()], &conn, public, Some("c2")).expect("listed");
            assert_eq!(list["tools"], json!([{"name": "mixed", "inputSchema": {"type": "object"}}]), "{version}");
            assert_eq!(list["nextCursor"], json!("c2"));
        }
        assert_eq!(tools_list_result(vec![mixed.clone()], &new, public).expect("listed")["tools"], json!([mixed]));
        let limits = crate::Limits { max_tools: 1, ..crate::Limits::default() };
        let tight = Connection::new(
            ProtocolVersion::V2026_12_01,
            vec![],
            Arc::new(Config { registry: config.registry.clone(), limits, ..Config::default() }),
        );
        let err = tools_list_result(vec![json!({}), json!({})], &tight, public).expect_err("too many");
        assert_eq!((err.code(), err.path()), (ErrorCode::LimitExceeded, "/tools"));
    }

    #[test]
    fn cache_options_are_read_strictly() {
        assert_eq!(ListCache::from_json(None), Ok(ListCache::default()));
        let read = ListCache::from_json(Some(&json!({"ttlMs": 5, "cacheScope": "public"})));
        assert_eq!(read, Ok(ListCache { ttl_ms: 5, scope: CacheScope::Public }));
        for bad in [
            Value::Null,
            json!([]),
            json!({"ttlMs": 5}),
            json!({"cacheScope": "public"}),
            json!({"ttlMs": -1, "cacheScope": "public"}),
            json!({"ttlMs": 1.5, "cacheScope": "public"}),
            json!({"ttlMs": 1, "cacheScope": "shared"}),
            json!({"ttlMs": 1, "cacheScope": null}),
        ] {
            assert_eq!(ListCache::from_json(Some(&bad)).map_err(|e| e.code()), Err(ErrorCode::Malformed), "{bad}");
        }
    }

    #[test]
    fn call_params_follow_the_version() {
        let config = Config::new();
        let tool = json!({"name": "t", "inputSchema": {"type": "object"}, "outputVariants": [
            {"audience": "assistant", "format": "content"},
            {"audience": "programmatic", "format": "structured"}
        ]});
        let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], Arc::clone(&config));
        let host = crate::ReceivedTool::accept(&tool, &conn).expect("accepted");
        let plan = host.plan_mode(crate::Mode::Code, &crate::PlanOptions::default()).expect("planned");
        let args = json!({"requestedOutputs": "from the model, ignored"});
        let params = tools_call_params("t", Some(&args), &plan, ProtocolVersion::V2026_12_01, &json!({}));
        assert_eq!(params["requestedOutputs"], json!([{"audience": "programmatic", "format": "structured"}]));
        assert_eq!(params["arguments"], args);
        assert_eq!(params["_meta"][META_PROTOCOL_VERSION], json!("2026-12-01"));
        let ctx = RequestContext::from_params(&params).expect("the server reads what the client wrote");
        assert_eq!(ctx.version, ProtocolVersion::V2026_12_01);
        let old = tools_call_params("t", None, &plan, ProtocolVersion::V2025_06_18, &json!({}));
        assert_eq!(old, json!({"name": "t"}));
    }

    #[test]
    fn error_responses() {
        let err =
            Error::new(ErrorCode::UndeclaredVariant, "/requestedOutputs/0", "nope").on_wire(jsonrpc::INVALID_PARAMS);
        let response = error_response(&json!(7), &err);
        assert_eq!(response["id"], json!(7));
        assert_eq!(response["error"]["code"], json!(-32602));
        assert_eq!(response["error"]["data"]["mcpOutputsCode"], json!("undeclared-variant"));
        assert_eq!(response["error"]["data"]["path"], json!("/requestedOutputs/0"));
        let local = Error::new(ErrorCode::SchemaViolation, "", "bad");
        assert_eq!(error_response(&json!("a"), &local)["error"]["code"], json!(-32603));
    }
}
