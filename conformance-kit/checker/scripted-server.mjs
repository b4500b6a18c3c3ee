// A scripted SEP-3279 server, written from the SEP alone with no dependency: correct by default,
// and broken on purpose in one way per mode (MODES), so that `check-server` can be shown to catch
// each violation, and so that `check-client` can serve a client both a correct server and the
// broken ones a client must refuse. It speaks every revision: 2024-11-05 ... 2025-11-25 through
// `initialize`, 2026-07-28 and 2026-12-01 through the per-request `_meta` envelope and
// `server/discover`; it supports the Apps extension (io.modelcontextprotocol/ui), negotiated when
// the client declares it too. Served on stdio (`serveStdio`) or Streamable HTTP (`serveHttp`).
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";

/** mode -> the checks it must trip (`should`: it only warns), and what it does. */
export const MODES = {
  "unrequested-output": { checks: ["call.exact-outputs"], what: "adds an unrequested output to every selected 2026-12-01 result" },
  "ignore-requested": { checks: ["call.exact-outputs"], what: "ignores requestedOutputs and always answers the fallback" },
  "no-fallback": { checks: ["call.fallback"], what: "without requestedOutputs answers every declared variant" },
  mirror: { checks: ["call.no-mirror"], what: "mirrors the outputs into top-level content on 2026-12-01" },
  "legacy-tool": { checks: ["list.output-variants"], what: "sends a legacy Tool (outputSchema, no outputVariants) on 2026-12-01" },
  "output-schema-on-new": { checks: ["list.no-output-schema"], what: "a 2026-12-01 Tool also carries the legacy outputSchema" },
  "no-assistant-content": { checks: ["list.variants-valid"], what: "a Tool declares no assistant/content" },
  "bad-variant-schema": { checks: ["list.variant-schema-valid"], what: "a variant's schema is not a JSON Schema" },
  "ui-without-apps": { checks: ["list.extension-negotiated"], what: "lists the Apps variant to a client without Apps" },
  "duplicate-tool-name": { checks: ["list.unique-names"], what: "lists a tool twice" },
  "bad-cursor": { checks: ["list.result-shape"], what: "a tools/list nextCursor that is not a string" },
  "missing-cache-fields": { checks: ["list.result-shape"], what: "a 2026 tools/list without ttlMs / cacheScope" },
  "accept-undeclared": { checks: ["select.undeclared"], what: "answers an undeclared selector (with the fallback)" },
  "accept-unnegotiated": { checks: ["select.unnegotiated"], what: "answers the Apps selector without Apps negotiated" },
  "accept-duplicate": { checks: ["select.duplicate"], what: "answers a duplicated selector" },
  "accept-empty": { checks: ["select.empty"], what: "answers requestedOutputs: [] with the fallback" },
  "accept-invalid": { checks: ["select.invalid"], what: "answers selectors outside the vocabulary with the fallback" },
  "legacy-requested-outputs": { checks: ["select.legacy-revision"], what: "accepts requestedOutputs under an earlier revision" },
  "schema-violation": { checks: ["call.structured-valid"], what: "an assistant/structured output breaks its schema" },
  "empty-assistant-content": { checks: ["call.assistant-content-usable"], what: "an assistant/content output with no block" },
  "bad-block": { checks: ["call.content-blocks"], what: "a text block without text" },
  "no-result-type": { checks: ["call.result-type"], what: "a 2026-12-01 tools/call result without resultType" },
  "error-unrequested": { checks: ["call.error-outputs-requested"], what: "an isError result carries unrequested outputs" },
  "wrong-version-error": { checks: ["version.unsupported-error"], what: "an unknown revision is answered with -32602, not -32022" },
  "variants-on-legacy": { checks: ["legacy.list-shape"], what: "a legacy Tool keeps outputVariants" },
  "legacy-outputs": { checks: ["legacy.result-shape"], what: "a legacy result carries outputs instead of content" },
  "legacy-unwrapped": { checks: ["legacy.output-schema", "legacy.structured-content"], what: "a 2025 projection of an array sends it unwrapped, with an array-root outputSchema" },
  "legacy-block": { checks: ["legacy.blocks"], what: "an audio block under 2024-11-05" },
  "legacy-inconsistent": { checks: ["legacy.consistency"], what: "advertises outputSchema but sends no structuredContent" },
  "legacy-no-json-mirror": { checks: ["legacy.json-mirror"], what: "a non-object structuredContent (2026-07-28) without its JSON text" },
  // SHOULD violations: they warn (and fail under --strict).
  "error-empty": { checks: ["call.error-not-empty"], should: true, what: "an isError result with an empty outputs array" },
  "leak-ui-meta": { checks: ["meta.minimal"], should: true, what: "sends the Apps result _meta whatever was requested" },
  "legacy-no-mirror": { checks: ["legacy.mirror"], should: true, what: "an object structuredContent without its JSON text mirror" },
  "no-schema": { checks: ["list.structured-schema-declared"], should: true, what: "a structured variant without a schema" },
};

const UI = "io.modelcontextprotocol/ui";
const REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2026-12-01"];
const HANDSHAKE = REVISIONS.slice(0, 4);
const CORE = ["assistant/content", "assistant/structured", "user/content", "user/structured", "programmatic/structured"];
const EXTENSION_ID = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const at = (rev, min) => REVISIONS.indexOf(rev) >= REVISIONS.indexOf(min);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const key = (s) => `${s.audience}/${s.format}`;
const CAPABILITIES = { tools: {}, extensions: { [UI]: {} } };
const PAGE = 3;
const text = (t) => ({ type: "text", text: t });


/** A server: `handle(method, params, session)` with `session` the handshake state of one
 * connection ({revision, capabilities}, filled by initialize). `tools`: a catalogue (below, or
 * `catalogueFromFiles`); `mode`: one of MODES or "none". */
export function createHandler({ mode = "none", tools, name = "scripted-server" } = {}) {
  if (mode !== "none" && !MODES[mode]) throw new Error(`unknown mode ${mode}`);
  const is = (m) => mode === m;
  const TOOLS = tools ?? defaultTools(is);
  // The tool the `legacy-tool` mode sends in the legacy shape: one with a legacy outputSchema.
  const legacyToolName = (TOOLS.find((t) => t.legacySource && !t.legacySource.startsWith(UI)) ?? TOOLS[TOOLS.length - 1]).name;

  function context(params, session) {
    const meta = params?._meta ?? {};
    const rev = meta["io.modelcontextprotocol/protocolVersion"];
    if (rev !== undefined) {
      if (!REVISIONS.includes(rev) || HANDSHAKE.includes(rev)) {
        if (is("wrong-version-error")) throw rpcError(-32602, `bad protocol version ${rev}`);
        throw rpcError(-32022, `Unsupported protocol version: ${rev}`, { supported: REVISIONS.slice(4), requested: rev });
      }
      const caps = meta["io.modelcontextprotocol/clientCapabilities"];
      if (!isObject(caps)) throw rpcError(-32602, "missing clientCapabilities");
      return { rev, apps: isObject(caps.extensions) && caps.extensions[UI] !== undefined };
    }
    if (!session.revision) throw rpcError(-32600, "not initialized, and no protocol version in _meta");
    return { rev: session.revision, apps: isObject(session.capabilities?.extensions) && session.capabilities.extensions[UI] !== undefined };
  }

  // The variants a connection may see: the Apps one only with Apps negotiated.
  const visible = (tool, ctx) => tool.variants.filter((v) => v.audience !== UI || ctx.apps || is("ui-without-apps"));

  function legacySource(tool, ctx) {
    if (!tool.legacySource) return null;
    if (tool.legacySource === `${UI}/structured` && !ctx.apps) return null;
    return tool.variants.find((v) => key(v) === tool.legacySource) ?? null;
  }

  const wrapSchema = (s) => ({ type: "object", properties: { result: s }, required: ["result"] });
  const needsWrap = (rev) => rev === "2025-06-18" || rev === "2025-11-25";

  function advertise(tool, ctx) {
    const base = { name: tool.name, description: `The ${tool.name} tool.`, inputSchema: tool.inputSchema, ...(tool._meta ? { _meta: tool._meta } : {}) };
    if (ctx.rev === "2026-12-01" && !(is("legacy-tool") && tool.name === legacyToolName)) {
      let variants = visible(tool, ctx).map((v) => ({ ...v }));
      if (is("no-assistant-content") && tool.name === "lookup") variants = variants.filter((v) => key(v) !== "assistant/content");
      if (is("bad-variant-schema") && tool.name === "lookup") variants[1].schema = { type: 12 };
      if (is("no-schema") && tool.name === "lookup") delete variants[2].schema;
      return { ...base, outputVariants: variants, ...(is("output-schema-on-new") && tool.name === "lookup" ? { outputSchema: { type: "object" } } : {}) };
    }
    const legacy = { ...base };
    const source = legacySource(tool, ctx);
    if (source && at(ctx.rev, "2025-06-18")) {
      const root = source.schema.type === "object";
      legacy.outputSchema = needsWrap(ctx.rev) && !root && !is("legacy-unwrapped") ? wrapSchema(source.schema) : source.schema;
    }
    if (is("variants-on-legacy")) legacy.outputVariants = tool.variants;
    return legacy;
  }

  function blocksFor(blocks, rev) {
    return blocks.map((b) => {
      if (b.type === "audio" && !at(rev, "2025-03-26") && !is("legacy-block")) return text(`[audio ${b.mimeType}]`);
      if (b.type === "resource_link" && !at(rev, "2025-06-18")) return text(`${b.name}: ${b.uri}`);
      return b;
    });
  }

  function validSelector(s) {
    if (!isObject(s) || typeof s.audience !== "string" || typeof s.format !== "string") return false;
    if (["assistant", "user", "programmatic"].includes(s.audience)) return CORE.includes(key(s));
    return EXTENSION_ID.test(s.audience) && (s.format === "structured" || s.format === "content");
  }

  function call(params, session) {
    const ctx = context(params, session);
    const tool = TOOLS.find((t) => t.name === params?.name);
    if (!tool) throw rpcError(-32602, `Unknown tool: ${params?.name}`);
    const requested = params.requestedOutputs;
    const newRev = ctx.rev === "2026-12-01";
    if (requested !== undefined && !newRev && !is("legacy-requested-outputs")) throw rpcError(-32602, "requestedOutputs is not allowed before 2026-12-01");
    const values = tool.produce(params.arguments ?? {});
    const resultType = at(ctx.rev, "2026-07-28") ? { resultType: "complete" } : {};
    let meta = tool.resultMeta;

    if (!newRev) {
      const result = { ...resultType, content: blocksFor(values["assistant/content"], ctx.rev) };
      const source = legacySource(tool, ctx);
      if (source && at(ctx.rev, "2025-06-18") && !tool.isError && !is("legacy-inconsistent")) {
        let value = values[key(source)];
        if (needsWrap(ctx.rev) && !isObject(value) && !is("legacy-unwrapped")) value = { result: value };
        result.structuredContent = value;
        const mirror = source.audience !== UI && !(is("legacy-no-mirror") && isObject(value)) && !(is("legacy-no-json-mirror") && !isObject(value));
        if (mirror) result.content.push(text(JSON.stringify(value)));
      }
      if (tool.isError) result.isError = true;
      if (is("legacy-outputs")) {
        delete result.content;
        result.outputs = [{ audience: "assistant", format: "content", content: values["assistant/content"] }];
      }
      if (meta && (ctx.apps || is("leak-ui-meta"))) result._meta = meta;
      return result;
    }

    let selectors;
    if (requested === undefined || is("ignore-requested")) selectors = [{ audience: "assistant", format: "content" }];
    else {
      if (!Array.isArray(requested)) throw rpcError(-32602, "requestedOutputs must be an array");
      if (requested.length === 0) {
        if (!is("accept-empty")) throw rpcError(-32602, "requestedOutputs must not be empty");
        selectors = [{ audience: "assistant", format: "content" }];
      } else {
        selectors = [];
        for (const s of requested) {
          if (!validSelector(s)) {
            if (is("accept-invalid")) continue;
            throw rpcError(-32602, `invalid selector ${JSON.stringify(s)}`);
          }
          if (selectors.some((t) => key(t) === key(s))) {
            if (is("accept-duplicate")) continue;
            throw rpcError(-32602, `duplicate selector ${key(s)}`);
          }
          const core = ["assistant", "user", "programmatic"].includes(s.audience);
          if (!core && !(s.audience === UI && ctx.apps) && !(is("accept-unnegotiated") && s.audience === UI)) throw rpcError(-32602, `extension audience ${s.audience} is not negotiated`);
          if (!tool.variants.some((v) => key(v) === key(s))) {
            if (is("accept-undeclared")) continue;
            throw rpcError(-32602, `${tool.name} does not declare ${key(s)}`);
          }
          selectors.push({ audience: s.audience, format: s.format });
        }
        if (selectors.length === 0) selectors = [{ audience: "assistant", format: "content" }];
      }
    }
    if (requested === undefined && is("no-fallback")) selectors = visible(tool, ctx).map((v) => ({ audience: v.audience, format: v.format }));
    if (requested !== undefined && is("unrequested-output")) {
      const extra = visible(tool, ctx).find((v) => !selectors.some((s) => key(s) === key(v)));
      if (extra) selectors.push({ audience: extra.audience, format: extra.format });
    }
    if (tool.isError && is("error-unrequested")) selectors = tool.variants.map((v) => ({ audience: v.audience, format: v.format }));
    const outputs = selectors.map((s) => {
      const value = values[key(s)];
      if (s.format === "content") {
        let content = value;
        if (is("empty-assistant-content") && key(s) === "assistant/content") content = [];
        if (is("bad-block") && key(s) === "assistant/content") content = [{ type: "text" }];
        return { ...s, content };
      }
      return { ...s, structuredContent: value };
    });
    const result = { ...(is("no-result-type") ? {} : resultType), outputs: tool.isError && is("error-empty") ? [] : outputs };
    if (tool.isError) result.isError = true;
    if (is("mirror")) result.content = outputs.flatMap((o) => (o.format === "content" ? o.content : [text(JSON.stringify(o.structuredContent))]));
    if (meta && !(ctx.apps && selectors.some((s) => s.audience === UI)) && !is("leak-ui-meta")) meta = undefined;
    if (meta) result._meta = meta;
    return result;
  }

  function list(params, session) {
    const ctx = context(params, session);
    let tools = TOOLS.map((t) => advertise(t, ctx));
    if (is("duplicate-tool-name")) tools = [tools[0], ...tools];
    const cache = at(ctx.rev, "2026-07-28") && !is("missing-cache-fields") ? { resultType: "complete", ttlMs: 0, cacheScope: "private" } : at(ctx.rev, "2026-07-28") ? { resultType: "complete" } : {};
    // Pages of PAGE tools (LIST-4: the cursor passes through; names are unique per page).
    const start = params?.cursor === undefined ? 0 : Number(/^page-(\d+)$/.exec(String(params.cursor))?.[1] ?? NaN);
    if (!Number.isInteger(start) || start < 0 || start > tools.length) throw rpcError(-32602, `invalid cursor ${JSON.stringify(params.cursor)}`);
    const page = tools.slice(start, start + PAGE);
    const next = start + PAGE < tools.length ? { nextCursor: is("bad-cursor") ? start + PAGE : `page-${start + PAGE}` } : {};
    return { ...cache, tools: page, ...next };
  }

  

  function handle(method, params, session) {
    switch (method) {
      case "initialize": {
        const asked = params?.protocolVersion;
        session.revision = HANDSHAKE.includes(asked) ? asked : "2025-11-25";
        session.capabilities = isObject(params?.capabilities) ? params.capabilities : {};
        return { protocolVersion: session.revision, capabilities: CAPABILITIES, serverInfo: { name, version: "1" } };
      }
      case "server/discover":
        context(params, session);
        return { resultType: "complete", supportedVersions: REVISIONS.slice(4), capabilities: CAPABILITIES, serverInfo: { name, version: "1" } };
      case "ping":
        return {};
      case "tools/list":
        return list(params, session);
      case "tools/call":
        return call(params, session);
      default:
        throw rpcError(-32601, `Method not found: ${method}`);
    }
  }
  return { handle, context: (params, session) => context(params, session), tools: TOOLS };
}

function rpcError(code, message, data) {
  const e = new Error(message);
  e.rpc = { code, message, ...(data === undefined ? {} : { data }) };
  return e;
}

const REGIONS = [{ code: "NA", accounts: 182 }, { code: "EMEA", accounts: 131 }];
/** The built-in catalogue: each tool with its variants, its legacy source, and what it produces. */
export function defaultTools(is = () => false) {
  return [
  {
    name: "lookup",
    inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"], examples: [{ id: "a1" }] },
    variants: [
      { audience: "assistant", format: "content" },
      { audience: "assistant", format: "structured", schema: { type: "object", properties: { id: { type: "string" }, name: { type: "string" } }, required: ["id", "name"] } },
      { audience: "programmatic", format: "structured", schema: { type: "object", properties: { id: { type: "string" }, score: { type: "number" } }, required: ["id", "score"] } },
      { audience: "user", format: "content" },
    ],
    legacySource: "assistant/structured",
    produce: ({ id }) => ({
      "assistant/content": [text(`Account ${id} is Globex Retail.`)],
      "assistant/structured": is("schema-violation") ? { id, name: 42 } : { id, name: "Globex Retail" },
      "programmatic/structured": { id, score: 0.93 },
      "user/content": [text(`Globex Retail (${id})`), { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }],
    }),
  },
  {
    name: "regions",
    inputSchema: { type: "object" },
    variants: [
      { audience: "assistant", format: "content" },
      { audience: "assistant", format: "structured", schema: { type: "array", items: { type: "object", required: ["code"] } } },
    ],
    legacySource: "assistant/structured",
    produce: () => ({ "assistant/content": [text("2 regions: NA (182 accounts), EMEA (131).")], "assistant/structured": REGIONS }),
  },
  {
    name: "dashboard",
    inputSchema: { type: "object" },
    _meta: { ui: { resourceUri: "ui://dashboard/index.html" } },
    variants: [
      { audience: "assistant", format: "content" },
      { audience: UI, format: "structured", schema: { type: "object", properties: { datasetVersion: { type: "string" } }, required: ["datasetVersion"] } },
    ],
    legacySource: `${UI}/structured`,
    resultMeta: { [UI]: { datasetVersion: "v18" } },
    produce: () => ({ "assistant/content": [text("The dashboard shows dataset v18.")], [`${UI}/structured`]: { datasetVersion: "v18" } }),
  },
  {
    name: "media",
    inputSchema: { type: "object" },
    variants: [
      { audience: "assistant", format: "content" },
      { audience: "user", format: "content" },
    ],
    produce: () => ({
      "assistant/content": [
        text("A clip and its transcript."),
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///clip.txt", name: "clip.txt" },
      ],
      "user/content": [{ type: "audio", data: "UklGRg==", mimeType: "audio/wav" }],
    }),
  },
  {
    name: "fail",
    inputSchema: { type: "object" },
    variants: [
      { audience: "assistant", format: "content" },
      { audience: "programmatic", format: "structured", schema: { type: "object", required: ["ok"] } },
    ],
    isError: true,
    produce: () => ({ "assistant/content": [text("The backend is down.")], "programmatic/structured": { error: "backend-down" } }),
  },
];
}

/** A catalogue from declarations in the 2026-12-01 shape and what each tool produces:
 * `tools`: [Tool with outputVariants, optionally `legacy: {structuredFrom}`]; `produced`:
 * { name: { outputs: [...], isError?, _meta? } }. The legacy source is `legacy.structuredFrom`,
 * else assistant/structured, else the Apps variant (projected only with Apps negotiated). */
export function catalogueFromData(tools, produced) {
  return tools.map((t) => {
    const variants = t.outputVariants;
    const has = (k) => variants.some((v) => key(v) === k);
    const p = produced[t.name] ?? { outputs: [] };
    return {
      name: t.name,
      inputSchema: t.inputSchema ?? { type: "object" },
      ...(t._meta ? { _meta: t._meta } : {}),
      variants,
      legacySource: t.legacy?.structuredFrom ?? (has("assistant/structured") ? "assistant/structured" : has(`${UI}/structured`) ? `${UI}/structured` : undefined),
      ...(p._meta ? { resultMeta: p._meta } : {}),
      ...(p.isError ? { isError: true } : {}),
      produce: () => Object.fromEntries(p.outputs.map((o) => [key(o), o.format === "content" ? o.content : o.structuredContent])),
    };
  });
}

function reply(handler, message, session, onMessage) {
  if (message?.method === undefined) return undefined; // a response or garbage: ignored
  let answer;
  try {
    answer = { result: handler.handle(message.method, message.params, session) };
  } catch (e) {
    answer = { error: e.rpc ?? { code: -32603, message: String(e?.message ?? e) } };
  }
  onMessage?.(message, session, answer);
  if (message.id === undefined) return undefined; // a notification
  return { jsonrpc: "2.0", id: message.id, ...answer };
}

/** Serves newline-delimited JSON-RPC on stdin/stdout: one connection. */
export function serveStdio(handler, { onMessage } = {}) {
  const session = {};
  let buffer = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf("\n")) !== -1) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line) continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })}\n`);
        continue;
      }
      const out = reply(handler, message, session, onMessage);
      if (out) process.stdout.write(`${JSON.stringify(out)}\n`);
    }
  });
  process.stdin.on("end", () => process.exit(0));
}

/** Serves Streamable HTTP on 127.0.0.1:`port` (0: any): a session per `initialize`
 * (`Mcp-Session-Id`), stateless per-request traffic from 2026-07-28. Answers JSON, never SSE.
 * Resolves with `{ url, close }`. */
export function serveHttp(handler, { port = 0, onMessage } = {}) {
  const sessions = new Map();
  const server = createServer(async (req, res) => {
    if (req.method === "DELETE") {
      sessions.delete(req.headers["mcp-session-id"]);
      res.writeHead(200).end();
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    let message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }));
      return;
    }
    const sid = req.headers["mcp-session-id"];
    let session = sid ? sessions.get(sid) : {};
    if (sid && !session) {
      res.writeHead(404).end();
      return;
    }
    const headers = { "content-type": "application/json" };
    if (message?.method === "initialize") {
      const id = randomUUID();
      sessions.set(id, session);
      headers["mcp-session-id"] = id;
    }
    const out = reply(handler, message, session, onMessage);
    if (!out) res.writeHead(202).end();
    else res.writeHead(200, headers).end(JSON.stringify(out));
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${server.address().port}/mcp`;
      resolve({ url, close: () => new Promise((r) => (server.closeAllConnections?.(), server.close(r))) });
    });
  });
}
