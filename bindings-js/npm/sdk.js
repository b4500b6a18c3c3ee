// `mcp-outputs/sdk`: adapters for the official MCP TypeScript SDKs (`@modelcontextprotocol/server`
// and `/client` 2.x, the low-level `Server` / `Client` of `@modelcontextprotocol/sdk` 1.x). They
// only translate between the SDK objects and this package's API: which revision a request is on,
// which capabilities were on the wire, and how an error travels. Every protocol decision
// (projection, selection, validation, routing) is the core's. The SDKs are optional peer
// dependencies: nothing here imports them; the adapters work on the instances they are given.
import { Connection, McpOutputsError, ServerTool, discoverTools } from "mcp-outputs";

const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";

// A params schema that keeps every field: the SDKs' own `tools/call` schema strips
// `requestedOutputs` before the handler sees it. v2 takes a Standard Schema (its public
// `~standard` interface); v1 reads a schema through Zod's public surface (`shape.method.value`,
// a literal's `.value`, and `safeParse`), which its zod-compat layer accepts.
const keepAll = { "~standard": { version: 1, vendor: "mcp-outputs", validate: (value) => ({ value }) } };
const keepAllV1 = (method) => ({
  shape: { method: { value: method } },
  safeParse: (data) => ({ success: true, data }),
  parse: (data) => data,
});

/** The error an adapter throws for the SDK to send: a numeric JSON-RPC `code`, the message once
 * (the SDK error classes prefix theirs; the client's SDK builds its own error type from the wire),
 * and `data.mcpOutputsCode`. */
export class McpOutputsRpcError extends Error {
  constructor(rpc, cause) {
    super(rpc.message, { cause });
    this.name = "McpOutputsRpcError";
    this.code = rpc.code;
    this.data = rpc.data;
  }
}

/** A package error as the JSON-RPC error the SDK sends: the core's JSON-RPC error where it
 * classifies one (a bad request, an invalid output); otherwise -32603 (the server's own inputs,
 * such as what a tool produced, were malformed), with `data.mcpOutputsCode` either way. Anything
 * that is not a package error is returned unchanged. */
export function toRpcError(error) {
  if (!(error instanceof McpOutputsError)) return error;
  const rpc = error.toJsonRpcError() ?? {
    code: -32603,
    message: error.message,
    data: { mcpOutputsCode: error.code, ...(error.path ? { path: error.path } : {}) },
  };
  return new McpOutputsRpcError(rpc, error);
}

// A request header as the SDK exposes it: v2 `ctx.http.req` (a fetch Request), v1 `extra.requestInfo.headers`.
function headerOf(ctx, name) {
  const value = ctx?.http?.req?.headers?.get?.(name) ?? ctx?.requestInfo?.headers?.[name];
  return typeof value === "string" ? value : undefined;
}

function sdkServerOf(server) {
  // McpServer (v1 and v2) wraps the low-level Server as `.server`.
  const inner = server && typeof server.setRequestHandler !== "function" && server.server ? server.server : server;
  if (!inner || typeof inner.setRequestHandler !== "function") {
    throw new McpOutputsError("malformed", "serveTools: expected an MCP SDK Server or McpServer");
  }
  return inner;
}

// v2 dispatches on method strings and exposes the per-request context; v1 dispatches on Zod schemas.
const isV2 = (server) => typeof server.getNegotiatedProtocolVersion === "function";

function asServerTool(entry, index, options) {
  if (entry === null || typeof entry !== "object") {
    throw new McpOutputsError("malformed", `tools/${index}: expected {tool, call}`, `/${index}`);
  }
  if (typeof entry.call !== "function") {
    throw new McpOutputsError("malformed", `tools/${index}: call must be a function`, `/${index}/call`);
  }
  const tool =
    entry.tool instanceof ServerTool
      ? entry.tool
      : ServerTool.declare(entry.tool, { ...options, ...(entry.legacy ? { legacy: entry.legacy } : {}) });
  return { tool, call: entry.call };
}

/**
 * Serves `tools/list` and `tools/call` on an SDK server for tools declared with `outputVariants`.
 * `tools`: `[{ tool: declaration | ServerTool, legacy?, call(args, ctx) → ProducedOutputs }]`.
 * Declarations are validated and compiled here, once; a bad one throws `McpOutputsError`.
 */
export function serveTools(server, tools, options = {}) {
  const sdk = sdkServerOf(server);
  if (!Array.isArray(tools)) throw new McpOutputsError("malformed", "serveTools: tools must be an array");
  const libraryOptions = { extensions: options.extensions, limits: options.limits, validator: options.validator };
  const served = tools.map((entry, i) => asServerTool(entry, i, libraryOptions));
  const byName = new Map(served.map((s) => [s.tool.name, s]));
  if (byName.size !== served.length) throw new McpOutputsError("malformed", "serveTools: two tools share a name");
  const cache = options.cache ?? { ttlMs: 0, cacheScope: "private" };

  // v1 has no getter for the version its `initialize` answered (v2 has
  // getNegotiatedProtocolVersion): for v1 only, the adapter wraps the SDK's `initialize` handler
  // (a private member, `_requestHandlers`) to read the version from the result it sends.
  let v1Version;
  if (!isV2(sdk)) {
    const handlers = sdk._requestHandlers;
    const initialize = handlers instanceof Map ? handlers.get("initialize") : undefined;
    if (initialize) {
      handlers.set("initialize", async (request, extra) => {
        const result = await initialize(request, extra);
        v1Version = result?.protocolVersion;
        return result;
      });
    }
  }

  function connectionFor(ctx) {
    const envelope = ctx?.mcpReq?.envelope;
    // Public getters of both SDKs: the capabilities the server declared (what its `initialize`
    // result carries) and the client's from its `initialize` request.
    const serverCapabilities = sdk.getCapabilities?.() ?? {};
    if (envelope && envelope[PROTOCOL_VERSION_KEY] !== undefined) {
      // 2026-07-28 on: the request carries its revision and the client's capabilities.
      const _meta = { [PROTOCOL_VERSION_KEY]: envelope[PROTOCOL_VERSION_KEY] };
      if (envelope[CLIENT_CAPABILITIES_KEY] !== undefined) _meta[CLIENT_CAPABILITIES_KEY] = envelope[CLIENT_CAPABILITIES_KEY];
      return Connection.fromRequest({ _meta }, serverCapabilities, libraryOptions);
    }
    // A stateless HTTP request never saw `initialize` on this instance: its version is the
    // MCP-Protocol-Version header the client sent, and no client capabilities were sent (see
    // docs/sdk-typescript.md, "Stateless HTTP at 2025 revisions").
    const init = {
      protocolVersion: (isV2(sdk) ? sdk.getNegotiatedProtocolVersion() : v1Version) ?? headerOf(ctx, "mcp-protocol-version"),
      serverCapabilities,
      clientCapabilities: sdk.getClientCapabilities?.() ?? {},
    };
    if (typeof init.protocolVersion !== "string") {
      throw new McpOutputsError("malformed", "no protocol version negotiated on this connection yet");
    }
    return Connection.negotiate(init, libraryOptions);
  }

  async function listTools(ctx) {
    try {
      const conn = connectionFor(ctx);
      try {
        // `cache` reaches the core's toolsListResult (contract v2: ttlMs / cacheScope from
        // 2026-07-28; the core's default is 0 / "private").
        return conn.toolsListResult(
          served.map((s) => s.tool),
          cache === undefined ? undefined : { cache },
        );
      } finally {
        conn.free();
      }
    } catch (e) {
      throw toRpcError(e);
    }
  }

  async function callTool(params, ctx) {
    try {
      const name = params?.name;
      const entry = typeof name === "string" ? byName.get(name) : undefined;
      if (!entry) {
        throw new McpOutputsRpcError({ code: -32602, message: `Unknown tool: ${String(name)}`, data: {} });
      }
      const conn = connectionFor(ctx);
      try {
        const requested = params.requestedOutputs;
        entry.tool.select(conn, requested); // a bad request fails before the tool runs
        const produced = await entry.call(params.arguments ?? {}, ctx);
        return entry.tool.respond(conn, requested, produced);
      } finally {
        conn.free();
      }
    } catch (e) {
      throw toRpcError(e);
    }
  }

  // A server made without `capabilities.tools` (a bare `new McpServer({name, version})`) gets it
  // here: both SDKs refuse a tools/* handler on a server that does not declare tools, and their
  // public registerCapabilities merges into what the server declared (McpServer's registerTool
  // does the same). Only before connect: the capabilities were sent in `initialize` by then.
  if (!sdk.getCapabilities?.()?.tools) {
    if (sdk.transport) {
      throw new McpOutputsError(
        "malformed",
        "serveTools: the server is already connected without the tools capability; call serveTools before server.connect(), or declare capabilities.tools",
      );
    }
    sdk.registerCapabilities({ tools: {} });
  }
  if (isV2(sdk)) {
    sdk.setRequestHandler("tools/list", (_request, ctx) => listTools(ctx));
    sdk.setRequestHandler("tools/call", { params: keepAll }, (params, ctx) => callTool(params, ctx));
  } else {
    sdk.setRequestHandler(keepAllV1("tools/list"), (_request, extra) => listTools(extra));
    sdk.setRequestHandler(keepAllV1("tools/call"), (request, extra) => callTool(request.params, extra));
  }
  return { tools: served.map((s) => s.tool) };
}

// ---------------------------------------------------------------------------------------------
// Client side

function sdkClientOf(client) {
  if (!client || typeof client.request !== "function" || typeof client.callTool !== "function") {
    throw new McpOutputsError("malformed", "expected an MCP SDK Client");
  }
  return client;
}

const clientIsV2 = (client) => typeof client.getDiscoverResult === "function";

// v1's `request` needs a result schema (a Zod-3-like object; the result is kept whole).
const keepAllResultV1 = { safeParse: (data) => ({ success: true, data }), parse: (data) => data };

const MODERN = new Set(["2026-07-28", "2026-12-01"]);

// Watches the opening exchange on the transport: what the client sent (`initialize` params, or the
// per-request `_meta` of `server/discover`) and what the server answered. Neither SDK exposes the
// wire values (v1 has no getter for the negotiated version; both parse the capabilities), and a
// legacy pin must reach the wire in the `initialize` request (v1 always asks for its latest).
// The SDK is handed a view of the caller's transport through the public Transport interface
// (`send`, `onmessage`); the caller's object itself is not modified, and every other member
// (`start`, `close`, `onclose`, `sessionId`, `setProtocolVersion`, …) is the transport's own.
function watchOpening(transport, legacyPin) {
  const seen = { clientCapabilities: undefined, result: undefined, method: undefined };
  const pending = new Map();
  const send = (message, options) => {
    if (message && (message.method === "initialize" || message.method === "server/discover") && "id" in message) {
      if (message.method === "initialize") {
        if (legacyPin !== undefined) message = { ...message, params: { ...message.params, protocolVersion: legacyPin } };
        seen.clientCapabilities = message.params?.capabilities;
      } else {
        seen.clientCapabilities = message.params?._meta?.[CLIENT_CAPABILITIES_KEY];
      }
      pending.set(message.id, message.method);
    }
    return transport.send(message, options);
  };
  let onmessage;
  const view = new Proxy(transport, {
    get(target, prop) {
      if (prop === "send") return send;
      if (prop === "onmessage") return onmessage;
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    set(target, prop, value) {
      if (prop !== "onmessage") return Reflect.set(target, prop, value, target);
      onmessage = value;
      target.onmessage =
        typeof value === "function"
          ? (message, extra) => {
              if (message && "id" in message && pending.has(message.id) && message.result) {
                seen.method = pending.get(message.id);
                seen.result = message.result;
                pending.delete(message.id);
              }
              return value(message, extra);
            }
          : value;
      return true;
    },
  });
  return { seen, view };
}

/**
 * Connects an SDK client over `transport` at `options.protocolVersion` (the SDK's own choice when
 * absent), lists the server's tools with their raw tools/list entries kept (the SDKs' typed
 * `listTools` drops `outputVariants`) and accepts each for the connection. The version and both
 * sides' capabilities are read from what was on the wire. Returns an `McpOutputsClient`.
 */
export async function connectTools(client, transport, options = {}) {
  const sdk = sdkClientOf(client);
  if (!transport || typeof transport.send !== "function") {
    throw new McpOutputsError("malformed", "connectTools: expected an SDK transport");
  }
  const { protocolVersion, extensions, limits, validator } = options;
  const libraryOptions = { extensions, limits, validator };
  const modern = typeof protocolVersion === "string" && MODERN.has(protocolVersion);
  if (modern) {
    if (!clientIsV2(sdk)) {
      throw new McpOutputsError(
        "unsupported-protocol-version",
        `this SDK client negotiates through initialize only; ${protocolVersion} needs server/discover`,
      );
    }
    sdk.setVersionNegotiation({ mode: { pin: protocolVersion } });
  }
  const { seen, view } = watchOpening(transport, modern ? undefined : protocolVersion);
  await sdk.connect(view);
  let opening = seen.result && { ...seen, protocolVersion: seen.method === "initialize" ? seen.result.protocolVersion : protocolVersion };
  if (!opening && clientIsV2(sdk) && sdk.getDiscoverResult()) {
    // v2 runs its `server/discover` probe on a transport of its own, where the view does not see
    // what the client sent: ask again through the public `discover()`, on this connection.
    await sdk.discover();
    if (seen.result) opening = { ...seen, protocolVersion: sdk.getNegotiatedProtocolVersion() ?? protocolVersion };
  }
  if (!opening) throw new McpOutputsError("malformed", "no initialize or server/discover result seen");
  const clientCapabilities = opening.clientCapabilities ?? {};
  const conn = Connection.negotiate(
    {
      protocolVersion: opening.protocolVersion,
      clientCapabilities,
      serverCapabilities: opening.result.capabilities ?? {},
    },
    libraryOptions,
  );
  const entries = [];
  const pages = [];
  let cursor;
  do {
    const params = conn.requestParams(cursor === undefined ? {} : { cursor }, clientCapabilities);
    const page = clientIsV2(sdk)
      ? await sdk.request({ method: "tools/list", params }, keepAll)
      : await sdk.request({ method: "tools/list", params }, keepAllResultV1);
    if (!page || !Array.isArray(page.tools)) {
      throw new McpOutputsError("malformed", "tools/list result: tools must be an array", "/tools");
    }
    entries.push(...page.tools);
    pages.push(page);
    cursor = typeof page.nextCursor === "string" && page.nextCursor !== "" ? page.nextCursor : undefined;
  } while (cursor !== undefined);
  // Server output is untrusted: each page is read by the package (every entry validated, schemas
  // compiled); a bad entry is excluded on its own (LIST-3), a page the SEP calls invalid throws.
  const tools = new McpOutputsClient(sdk, conn, entries, clientCapabilities, pages);
  // The SDK's callTool validates structured results against the output schemas it learnt from
  // its own typed listTools: let it learn them, so its validation runs.
  await sdk.listTools();
  return tools;
}

/** The tools of one connection by name; `call` plans, calls through the SDK, checks and routes. */
export class McpOutputsClient {
  constructor(client, connection, entries, clientCapabilities, pages = [{ tools: entries }]) {
    this.client = client;
    this.connection = connection;
    /** The raw tools/list entries, as the server sent them. */
    this.entries = entries;
    /** The entries the package excluded (`{index, name, code, path, message}`, index into `entries`). */
    this.excluded = [];
    this._clientCapabilities = clientCapabilities;
    this._tools = new Map();
    let offset = 0;
    for (const page of pages) {
      const { tools, excluded } = discoverTools(page, connection);
      this.excluded.push(...excluded.map((e) => ({ ...e, index: e.index + offset })));
      for (const tool of tools) {
        const earlier = this.excluded.some((e) => e.name === tool.name);
        if (this._tools.has(tool.name) || earlier) {
          // Decision (LIST-4): a host that merges pages judges names across them.
          this._tools.delete(tool.name);
          this.excluded.push({
            index: offset + page.tools.findIndex((t) => t?.name === tool.name),
            name: tool.name,
            code: "duplicate-tool-name",
            path: "",
            message: `two pages of tools/list name ${JSON.stringify(tool.name)}`,
          });
        } else this._tools.set(tool.name, tool);
      }
      offset += page.tools.length;
    }
  }
  /** The negotiated protocol revision. */
  get protocolVersion() {
    return this.connection.protocolVersion;
  }
  /** The `ReceivedTool` of a listed tool. */
  tool(name) {
    const tool = this._tools.get(name);
    if (!tool) throw new McpOutputsError("malformed", `tool not listed by the server: ${String(name)}`);
    return tool;
  }
  /**
   * Plans the call for `request` (`{mode}` or `{consumers}`), calls it through the SDK's
   * `callTool` (the SDK's own result validation included), then checks and routes the result.
   * Returns `{ plan, result, route }`. An invalid result throws `McpOutputsError`; a JSON-RPC
   * error is the SDK's own error type (`ProtocolError` in v2, `McpError` in v1).
   */
  async call(name, args, request = { mode: "conversational" }, options) {
    const tool = this.tool(name);
    const plan = tool.plan(request);
    const params = this.connection.toolsCallParams(name, args, plan, this._clientCapabilities);
    const result = clientIsV2(this.client)
      ? await this.client.callTool(params, options)
      : await this.client.callTool(params, undefined, options);
    // The plan's local rule for a legacy `structuredContent` (LEG-8): without it, an older
    // server's structured data would land in `dropped` in `code` mode.
    const rule = plan.legacyStructured === undefined ? undefined : { legacyStructured: plan.legacyStructured };
    const route = tool.route(plan.requestedOutputs, result, rule);
    return { plan, result, route };
  }
}

// ---------------------------------------------------------------------------------------------
// The TS SDKs' `jsonSchemaValidator`, backed by the package's compiled schemas: the entry's own
// (`mcp-outputs`: the validator it was given; `mcp-outputs/full`: jsonschema inside the wasm).
export { jsonSchemaValidator } from "mcp-outputs";
