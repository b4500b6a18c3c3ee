// The demo's MCP server role: a small catalogue of tools, answered over JSON-RPC text (the
// "wire" between the two roles of the page). Every protocol decision is the package's:
// the connection (Connection.negotiate at initialize, Connection.fromRequest per request from
// 2026-07-28), what tools/list advertises (ServerTool.advertise via toolsListResult, with the
// SEP-2549 cache fields from 2026-07-28 on), and what a
// tools/call returns (ServerTool.respond) or which JSON-RPC error it fails with.
import { Connection, McpOutputsError, declareTool, protocolVersions } from "mcp-outputs";

export const SERVER_INFO = { name: "mcp-outputs-demo-server", version: "0.1.0" };

// The first revision with outputVariants: no legacy-shaped Tool may be listed from it on (LIST-1).
const FIRST_VARIANTS_REVISION = "2026-12-01";
const hasVariants = (protocolVersion) =>
  protocolVersions.indexOf(protocolVersion) >= protocolVersions.indexOf(FIRST_VARIANTS_REVISION);

const JSONRPC_PARSE_ERROR = -32700;
const JSONRPC_INVALID_REQUEST = -32600;
const JSONRPC_METHOD_NOT_FOUND = -32601;
const JSONRPC_INVALID_PARAMS = -32602;

/** How the server answers tools/call: the package's `respond`, or a deliberate fault. */
export const SERVER_BEHAVIOURS = {
  conforming: {
    label: "conforming (ServerTool.respond)",
    hint: "Sends exactly the outputs requested, each validated against its schema.",
  },
  "lists-legacy": {
    label: "non-conforming: lists an un-migrated Tool on 2026-12-01",
    hint: "Sends its legacy tools as given in every revision, 2026-12-01 too: the host must treat the whole tools/list response as invalid (LIST-2).",
  },
  "lists-broken": {
    label: "non-conforming: lists a malformed Tool and two Tools with one name",
    hint: "Splices a Tool that declares assistant/content twice and two Tools named alike into tools/list: the host excludes just those entries, each with its reason, and uses the others (LIST-3).",
  },
  "send-all": {
    label: "non-conforming: sends everything",
    hint: "Ignores requestedOutputs and sends every output the tool computed, unvalidated, in the 2026-12-01 shape: the host must refuse it.",
  },
};

export class DemoServer {
  /**
   * @param capabilities the server's capabilities (Apps among its extensions)
   * @param resources `ui://` URI → HTML text of the View
   */
  constructor(capabilities, resources) {
    this.capabilities = capabilities;
    this.resources = resources;
    /** name → {kind: "declared", tool: ServerTool} | {kind: "legacy", tool, result} */
    this.tools = new Map();
    /** name → McpOutputsError: declarations `declareTool` refused (never listed). */
    this.rejected = new Map();
    this.produced = new Map();
    this.behaviour = "conforming";
    /** The SEP-2549 cache hints of tools/list (sent from 2026-07-28 on). The catalogue is the same
     * for every user, but the list varies with the extensions each request carries (the ui variant
     * is advertised only when Apps is negotiated): a shared cache keyed without them would serve
     * one client's projection to another, so the scope is private. */
    this.listCache = { ttlMs: 300_000, cacheScope: "private" };
    this.session = null;
  }

  /** Declares a tool from its JSON (validated and compiled once by the package); `name` keys it. */
  declare(name, declaration, produced) {
    this.forget(name);
    try {
      this.tools.set(name, { kind: "declared", tool: declareTool(declaration) });
      this.produced.set(name, produced);
    } catch (error) {
      if (!(error instanceof McpOutputsError)) throw error;
      this.rejected.set(name, error);
    }
  }

  /** Serves a Tool in the pre-SEP shape as is, answering every call with `result`. */
  serveLegacy(name, tool, result) {
    this.forget(name);
    this.tools.set(name, { kind: "legacy", tool, result });
  }

  forget(name) {
    const old = this.tools.get(name);
    if (old?.kind === "declared") old.tool.free();
    this.tools.delete(name);
    this.rejected.delete(name);
    this.produced.delete(name);
  }

  /** Forgets the `initialize` session: the next request starts a new connection. */
  reset() {
    this.session?.free();
    this.session = null;
  }

  /** One JSON-RPC request as text in, its response as text out. */
  handle(requestText) {
    let request;
    try {
      request = JSON.parse(requestText);
    } catch (error) {
      return reply(null, { error: { code: JSONRPC_PARSE_ERROR, message: `Parse error: ${error.message}` } });
    }
    const id = request?.id ?? null;
    if (typeof request?.method !== "string") {
      return reply(id, { error: { code: JSONRPC_INVALID_REQUEST, message: "Invalid request: no method" } });
    }
    try {
      return reply(id, { result: this.dispatch(request.method, request.params ?? {}) });
    } catch (error) {
      if (error instanceof McpOutputsError) {
        return reply(id, { error: error.toJsonRpcError() ?? { code: -32603, message: error.message } });
      }
      if (error instanceof RpcError) return reply(id, { error: error.rpc });
      throw error;
    }
  }

  dispatch(method, params) {
    switch (method) {
      case "initialize": {
        // Revisions up to 2025-11-25: the version and capabilities are agreed once.
        this.reset();
        this.session = Connection.negotiate({
          protocolVersion: params.protocolVersion,
          clientCapabilities: params.capabilities ?? {},
          serverCapabilities: this.capabilities,
        });
        return {
          protocolVersion: this.session.protocolVersion,
          capabilities: this.capabilities,
          serverInfo: SERVER_INFO,
        };
      }
      case "server/discover":
        // From 2026-07-28 there is no handshake: each request carries its version in `_meta`.
        this.reset();
        return {
          resultType: "complete",
          supportedVersions: [...protocolVersions],
          capabilities: this.capabilities,
          serverInfo: SERVER_INFO,
        };
      case "tools/list":
        return this.withConnection(params, (conn) => this.toolsList(conn));
      case "tools/call":
        return this.withConnection(params, (conn) => this.call(conn, params));
      case "resources/read": {
        const text = this.resources[params.uri];
        if (text === undefined) throw new RpcError(JSONRPC_INVALID_PARAMS, `Unknown resource ${params.uri}`);
        return { contents: [{ uri: params.uri, mimeType: "text/html;profile=mcp-app", text }] };
      }
      default:
        throw new RpcError(JSONRPC_METHOD_NOT_FOUND, `Method not found: ${method}`);
    }
  }

  /** The request's connection: the `initialize` session, else the request's own `_meta`. */
  withConnection(params, use) {
    if (this.session) return use(this.session);
    const conn = Connection.fromRequest(params, this.capabilities);
    try {
      return use(conn);
    } finally {
      conn.free();
    }
  }

  /**
   * The tools/list result. A legacy Tool cannot be sent on 2026-12-01 (the package refuses the
   * whole list with missing-output-variants, LIST-1), so a conforming server leaves its
   * un-migrated tools out there; the "lists-legacy" fault splices them in as given.
   */
  toolsList(conn) {
    const entries = [...this.tools.values()];
    const variants = hasVariants(conn.protocolVersion);
    const listed = variants ? entries.filter((e) => e.kind !== "legacy") : entries;
    const result = conn.toolsListResult(listed.map((entry) => entry.tool), { cache: this.listCache });
    if (variants && this.behaviour === "lists-legacy") {
      result.tools.push(...entries.filter((e) => e.kind === "legacy").map((e) => e.tool));
    }
    if (this.behaviour === "lists-broken") {
      const content = { audience: "assistant", format: "content" };
      const entry = (name, description, outputVariants) => ({
        name,
        description,
        inputSchema: { type: "object" },
        ...(variants ? { outputVariants } : {}),
      });
      result.tools.push(
        entry("twice_declared", "Declares assistant/content twice.", [content, content]),
        entry("lookup", "One of two tools named lookup.", [content]),
        entry("lookup", "The other tool named lookup.", [content]),
      );
      // Before 2026-12-01 the fault is an outputSchema that is not an object.
      if (!variants) result.tools[result.tools.length - 3].outputSchema = true;
    }
    return result;
  }

  /** Names of tools this server does not list on this revision (un-migrated tools on 2026-12-01). */
  unlistedOn(protocolVersion) {
    if (!hasVariants(protocolVersion)) return [];
    return [...this.tools.entries()].filter(([, e]) => e.kind === "legacy").map(([name]) => name);
  }

  call(conn, params) {
    const entry = this.tools.get(params.name);
    if (!entry) throw new RpcError(JSONRPC_INVALID_PARAMS, `Unknown tool: ${params.name}`);
    if (entry.kind === "legacy") return entry.result;
    const produced = this.produced.get(params.name);
    if (this.behaviour === "send-all") {
      // The fault the host must catch (PLAN-15): every computed output, whatever was asked.
      return { resultType: "complete", ...produced };
    }
    return entry.tool.respond(conn, params.requestedOutputs, produced);
  }
}

class RpcError extends Error {
  constructor(code, message) {
    super(message);
    this.rpc = { code, message };
  }
}

function reply(id, body) {
  return JSON.stringify({ jsonrpc: "2.0", id, ...body });
}
