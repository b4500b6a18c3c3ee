// `check-server`: judges any MCP server on the wire against SEP-3279, as a client of 2026-12-01
// and of every earlier revision, with and without the Apps extension. It uses no MCP library and
// not the reference implementation: only a JSON Schema validator (Ajv) for structured outputs.
import Ajv2020 from "ajv/dist/2020.js";
import AjvDraft07 from "ajv";
import { CHECKS, CHECK_BY_ID } from "./checks.mjs";
import { RpcError, TransportError, connector } from "./transport.mjs";

export const NEW_REVISION = "2026-12-01";
export const LEGACY_REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
export const REVISIONS = [...LEGACY_REVISIONS, NEW_REVISION];
const HANDSHAKE = new Set(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]);
const UI = "io.modelcontextprotocol/ui";
const PROBE_EXTENSION = "com.example.conformance/probe";
const APPS_CLIENT = { extensions: { [UI]: { mimeTypes: ["text/html;profile=mcp-app"] } } };
const CORE = ["assistant/content", "assistant/structured", "user/content", "user/structured", "programmatic/structured"];
const EXTENSION_ID = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const BLOCKS_FROM = { text: "2024-11-05", image: "2024-11-05", resource: "2024-11-05", audio: "2025-03-26", resource_link: "2025-06-18" };

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const key = (s) => `${s?.audience}/${s?.format}`;
const revAtLeast = (rev, min) => REVISIONS.indexOf(rev) >= REVISIONS.indexOf(min);

function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}

/** Compiles a JSON Schema with the dialect it names (2020-12 by default); never fetches a $ref. */
function compiler() {
  const a2020 = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  const a07 = new AjvDraft07({ strict: false, allErrors: false, validateFormats: false });
  const cache = new Map();
  return (schema) => {
    const k = JSON.stringify(schema);
    if (cache.has(k)) return cache.get(k);
    let out;
    try {
      if (!isObject(schema) && typeof schema !== "boolean") throw new Error("a schema is an object or a boolean");
      const dialect = isObject(schema) && typeof schema.$schema === "string" ? schema.$schema : "";
      const ajv = /draft-07/.test(dialect) ? a07 : a2020;
      if (dialect && !/draft-07|draft\/2020-12/.test(dialect)) throw new Error(`unsupported dialect ${dialect}`);
      const validate = ajv.compile(isObject(schema) ? { ...schema, $id: undefined } : schema);
      out = { validate: (v) => (validate(v) ? null : ajv.errorsText(validate.errors)) };
    } catch (e) {
      out = { error: e.message };
    }
    cache.set(k, out);
    return out;
  };
}

/** A content block check: null when well-formed for `rev`, else why not. */
function blockProblem(block, rev) {
  if (!isObject(block)) return "a block is not an object";
  const since = BLOCKS_FROM[block.type];
  if (!since) return `unknown block type ${JSON.stringify(block.type)}`;
  if (!revAtLeast(rev, since)) return `block type ${block.type} does not exist in ${rev}`;
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? null : "text block without a string text";
    case "image":
    case "audio":
      return typeof block.data === "string" && typeof block.mimeType === "string" ? null : `${block.type} block without data/mimeType`;
    case "resource_link":
      return typeof block.uri === "string" && typeof block.name === "string" ? null : "resource_link block without uri/name";
    case "resource":
      return isObject(block.resource) && typeof block.resource.uri === "string" && (typeof block.resource.text === "string" || typeof block.resource.blob === "string")
        ? null
        : "resource block without resource {uri, text|blob}";
  }
  return null;
}

function validVariantPair(audience, format) {
  if (format !== "content" && format !== "structured") return `format ${JSON.stringify(format)}`;
  if (["assistant", "user", "programmatic"].includes(audience)) return CORE.includes(`${audience}/${format}`) ? null : `${audience}/${format} is not a core combination`;
  if (typeof audience !== "string" || !EXTENSION_ID.test(audience)) return `audience ${JSON.stringify(audience)} is neither core nor an extension identifier`;
  if (audience === UI && format !== "structured") return "the Apps audience allows the structured format only";
  return null;
}

class Recorder {
  constructor() {
    this.results = new Map(CHECKS.map((c) => [c.id, { pass: 0, failures: [] }]));
    this.notes = [];
  }
  record(id, ok, where, message) {
    const r = this.results.get(id);
    if (!r) throw new Error(`unknown check ${id}`);
    if (ok) r.pass += 1;
    else if (r.failures.length < 20) r.failures.push(`${where}: ${message}`);
    else r.failures.length === 20 && r.failures.push("…");
  }
}

/** Arguments for a tool: the config's, else the inputSchema's first example, else `{}` when
 * nothing is required; `undefined` when the tool must not be called. */
function argumentsFor(tool, config) {
  const c = config.tools?.[tool.name];
  if (c === false || c?.skip) return undefined;
  if (c && c.arguments !== undefined) return c.arguments;
  const examples = tool.inputSchema?.examples;
  if (Array.isArray(examples) && isObject(examples[0])) return examples[0];
  const required = tool.inputSchema?.required;
  if (Array.isArray(required) && required.length > 0) return undefined;
  return {};
}

/** Opens a session at `rev`: a handshake up to 2025-11-25, server/discover from 2026-07-28. */
async function openSession(open, rev, apps, rec) {
  const conn = open();
  const caps = apps ? structuredClone(APPS_CLIENT) : {};
  const where = `${rev}${apps ? " (apps)" : ""}`;
  const session = { conn, rev, apps, where, serverCaps: {} };
  session.request = (method, params = {}) => {
    const p = HANDSHAKE.has(rev)
      ? params
      : { ...params, _meta: { ...(params._meta ?? {}), "io.modelcontextprotocol/protocolVersion": rev, "io.modelcontextprotocol/clientCapabilities": caps } };
    return conn.send(method, p);
  };
  try {
    if (HANDSHAKE.has(rev)) {
      const m = await conn.send("initialize", { protocolVersion: rev, capabilities: caps, clientInfo: { name: "mcp-outputs-conformance", version: "1" } });
      if (m.error) return { ...session, unsupported: `initialize answered ${m.error.code} ${m.error.message}` };
      if (m.result?.protocolVersion !== rev) return { ...session, unsupported: `initialize answered protocolVersion ${m.result?.protocolVersion}` };
      session.serverCaps = m.result.capabilities ?? {};
      // Over HTTP the MCP-Protocol-Version header exists from 2025-06-18 on.
      if ("sessionId" in conn && revAtLeast(rev, "2025-06-18")) conn.protocolVersion = rev;
      await conn.notify("notifications/initialized");
    } else {
      if ("sessionId" in conn) {
        conn.protocolVersion = rev;
        conn.perRequest = true;
      }
      const m = await session.request("server/discover");
      if (m.error) {
        if (m.error.code === -32022) judgeUnsupportedError(m.error, rev, rec, where);
        return { ...session, unsupported: `server/discover answered ${m.error.code} ${m.error.message}` };
      }
      const supported = m.result?.supportedVersions;
      if (Array.isArray(supported) && !supported.includes(rev)) return { ...session, unsupported: `server/discover offers ${supported.join(", ")}` };
      session.serverCaps = m.result?.capabilities ?? {};
    }
  } catch (e) {
    await conn.close().catch(() => {});
    return { ...session, unsupported: e.message, transportFailure: true };
  }
  session.appsNegotiated = apps && isObject(session.serverCaps.extensions) && session.serverCaps.extensions[UI] !== undefined;
  return session;
}

function judgeUnsupportedError(error, requested, rec, where) {
  const d = error.data;
  const ok = error.code === -32022 && isObject(d) && Array.isArray(d.supported) && d.supported.every((s) => typeof s === "string") && d.requested === requested;
  rec.record("version.unsupported-error", ok, where, `answered ${JSON.stringify(error).slice(0, 300)}`);
}

/** tools/list with pagination (up to 20 pages); judges each page's shape. */
async function listTools(session, rec) {
  const tools = [];
  let cursor;
  for (let page = 0; page < 20; page++) {
    const m = await session.request("tools/list", cursor === undefined ? {} : { cursor });
    if (m.error) {
      rec.record("list.result-shape", false, session.where, `tools/list answered an error ${m.error.code} ${m.error.message}`);
      return tools;
    }
    const r = m.result;
    const problems = [];
    if (!isObject(r) || !Array.isArray(r.tools)) problems.push("no tools array");
    if (r?.nextCursor !== undefined && typeof r.nextCursor !== "string") problems.push("nextCursor is not a string");
    if (revAtLeast(session.rev, "2026-07-28")) {
      if (r?.resultType !== "complete") problems.push(`resultType ${JSON.stringify(r?.resultType)}`);
      if (!Number.isInteger(r?.ttlMs) || r.ttlMs < 0) problems.push(`ttlMs ${JSON.stringify(r?.ttlMs)}`);
      if (r?.cacheScope !== "public" && r?.cacheScope !== "private") problems.push(`cacheScope ${JSON.stringify(r?.cacheScope)}`);
    }
    rec.record("list.result-shape", problems.length === 0, session.where, problems.join("; "));
    if (!Array.isArray(r?.tools)) return tools;
    const names = r.tools.map((t) => t?.name);
    const dup = names.filter((n, i) => typeof n !== "string" || names.indexOf(n) !== i);
    rec.record("list.unique-names", dup.length === 0, session.where, `names not unique or not strings: ${JSON.stringify(dup)}`);
    tools.push(...r.tools.filter(isObject));
    if (typeof r.nextCursor !== "string") break;
    cursor = r.nextCursor;
  }
  return tools;
}

function judgeNewList(session, tools, rec, compile) {
  for (const tool of tools) {
    const where = `${session.where} tool ${tool.name}`;
    rec.record("list.output-variants", Array.isArray(tool.outputVariants), where, "no outputVariants array (a legacy Tool under 2026-12-01)");
    rec.record("list.no-output-schema", !("outputSchema" in tool), where, "carries a top-level outputSchema");
    if (!Array.isArray(tool.outputVariants)) continue;
    const problems = [];
    const seen = new Set();
    for (const v of tool.outputVariants) {
      if (!isObject(v)) {
        problems.push("a variant is not an object");
        continue;
      }
      const bad = validVariantPair(v.audience, v.format);
      if (bad) problems.push(bad);
      if (seen.has(key(v))) problems.push(`${key(v)} declared twice`);
      seen.add(key(v));
      if (v.format === "content" && "schema" in v) problems.push(`${key(v)}: a content variant has no schema`);
      if (v.format === "structured") {
        if ("schema" in v) {
          const c = compile(v.schema);
          rec.record("list.variant-schema-valid", !c.error, `${where} ${key(v)}`, `schema does not compile: ${c.error}`);
          rec.record("list.structured-schema-declared", true, where, "");
        } else {
          rec.record("list.structured-schema-declared", false, `${where} ${key(v)}`, "no schema");
        }
      }
      if (typeof v.audience === "string" && !["assistant", "user", "programmatic"].includes(v.audience)) {
        const negotiated = session.apps && v.audience === UI ? session.appsNegotiated : false;
        rec.record("list.extension-negotiated", negotiated, `${where} ${key(v)}`, "an extension audience the client did not advertise (or the server did not)");
      }
    }
    if (!seen.has("assistant/content")) problems.push("no assistant/content variant");
    rec.record("list.variants-valid", problems.length === 0, where, problems.join("; "));
  }
}

function judgeLegacyList(session, tools, rec, compile) {
  for (const tool of tools) {
    const where = `${session.where} tool ${tool.name}`;
    rec.record("legacy.list-shape", !("outputVariants" in tool), where, "a legacy Tool carries outputVariants");
    if ("outputSchema" in tool) {
      let problem = null;
      if (!revAtLeast(session.rev, "2025-06-18")) problem = `outputSchema does not exist in ${session.rev}`;
      else if (session.rev !== "2026-07-28" && tool.outputSchema?.type !== "object") problem = `outputSchema root is ${JSON.stringify(tool.outputSchema?.type)}, not "object"`;
      else if (compile(tool.outputSchema).error) problem = `outputSchema does not compile: ${compile(tool.outputSchema).error}`;
      rec.record("legacy.output-schema", problem === null, where, problem);
    } else rec.record("legacy.output-schema", true, where, "");
  }
}

const jsonText = (block) => {
  if (block?.type !== "text") return undefined;
  try {
    return { value: JSON.parse(block.text) };
  } catch {
    return undefined;
  }
};

function judgeNewResult(session, tool, requested, m, rec, compile, label) {
  const where = `${session.where} tool ${tool.name} ${label}`;
  if (m.error) {
    rec.notes.push(`${where}: answered JSON-RPC error ${m.error.code} ${m.error.message} (not judged)`);
    return;
  }
  const r = m.result;
  if (isObject(r) && r.resultType !== undefined && r.resultType !== "complete") {
    rec.notes.push(`${where}: resultType ${JSON.stringify(r.resultType)} (not judged)`);
    return;
  }
  rec.record("call.result-type", r?.resultType === "complete", where, `resultType ${JSON.stringify(r?.resultType)}`);
  const mirrored = ["content", "structuredContent"].filter((f) => isObject(r) && f in r);
  rec.record("call.no-mirror", mirrored.length === 0, where, `top-level ${mirrored.join(" and ")} beside outputs`);
  const outputs = Array.isArray(r?.outputs) ? r.outputs : null;
  const expected = requested ?? [{ audience: "assistant", format: "content" }];
  const expectedKeys = expected.map(key);
  const got = (outputs ?? []).map(key);
  const uiMeta = isObject(r?._meta) && r._meta[UI] !== undefined;
  rec.record("meta.minimal", !uiMeta || (session.appsNegotiated && got.includes(`${UI}/structured`)), where, `_meta["${UI}"] sent without ${session.appsNegotiated ? "a ui output" : "Apps negotiated"}`);
  // Payload fields and blocks, for every output.
  const shape = [];
  for (const o of outputs ?? []) {
    if (!isObject(o)) {
      shape.push("an output is not an object");
      continue;
    }
    if (o.format === "content") {
      if (!Array.isArray(o.content)) shape.push(`${key(o)}: no content array`);
      if ("structuredContent" in o) shape.push(`${key(o)}: a content output carries structuredContent`);
      if (Array.isArray(o.content)) {
        const bad = o.content.map((b) => blockProblem(b, NEW_REVISION)).filter(Boolean);
        rec.record("call.content-blocks", bad.length === 0, `${where} ${key(o)}`, bad.join("; "));
      }
    } else if (o.format === "structured") {
      if (!("structuredContent" in o)) shape.push(`${key(o)}: no structuredContent`);
      if ("content" in o) shape.push(`${key(o)}: a structured output carries content`);
    } else shape.push(`an output of format ${JSON.stringify(o.format)}`);
  }
  if (r?.isError === true) {
    const dup = got.filter((k, i) => got.indexOf(k) !== i);
    const extra = got.filter((k) => !expectedKeys.includes(k));
    const ok = outputs !== null && dup.length === 0 && extra.length === 0 && shape.length === 0;
    rec.record("call.error-outputs-requested", ok, where, outputs === null ? "no outputs array" : [...shape, ...extra.map((k) => `unrequested ${k}`), ...dup.map((k) => `${k} twice`)].join("; "));
    rec.record("call.error-not-empty", outputs !== null && outputs.length > 0, where, "isError with an empty outputs array");
    return;
  }
  const missing = expectedKeys.filter((k) => got.filter((g) => g === k).length !== 1);
  const extra = got.filter((k) => !expectedKeys.includes(k));
  const problems = [...shape, ...missing.map((k) => `${k}: expected exactly once`), ...extra.map((k) => `unrequested ${k}`)];
  if (outputs === null) problems.unshift("no outputs array");
  rec.record(requested === undefined ? "call.fallback" : "call.exact-outputs", problems.length === 0, where, `requested ${JSON.stringify(expectedKeys)}, got ${JSON.stringify(got)}: ${problems.join("; ")}`);
  for (const o of outputs ?? []) {
    if (key(o) === "assistant/content" && Array.isArray(o.content)) rec.record("call.assistant-content-usable", o.content.length > 0, where, "assistant/content with no block");
    if (o?.format === "structured" && "structuredContent" in o) {
      const variant = tool.outputVariants?.find((v) => key(v) === key(o));
      if (!variant || !("schema" in variant)) continue;
      const c = compile(variant.schema);
      if (c.error) continue; // judged by list.variant-schema-valid
      const err = c.validate(o.structuredContent);
      rec.record("call.structured-valid", err === null, `${where} ${key(o)}`, err);
    }
  }
}

function judgeLegacyResult(session, tool, m, rec, compile) {
  const rev = session.rev;
  const where = `${session.where} tool ${tool.name}`;
  if (m.error) {
    rec.notes.push(`${where}: answered JSON-RPC error ${m.error.code} ${m.error.message} (not judged)`);
    return;
  }
  const r = m.result;
  if (rev === "2026-07-28" && isObject(r) && r.resultType !== undefined && r.resultType !== "complete") {
    rec.notes.push(`${where}: resultType ${JSON.stringify(r.resultType)} (not judged)`);
    return;
  }
  const shape = [];
  if (!isObject(r)) shape.push("the result is not an object");
  else {
    if (!Array.isArray(r.content)) shape.push("no content array");
    if ("outputs" in r) shape.push("carries outputs");
    if (rev === "2026-07-28" && r.resultType !== "complete") shape.push(`resultType ${JSON.stringify(r.resultType)}`);
  }
  rec.record("legacy.result-shape", shape.length === 0, where, shape.join("; "));
  if (!isObject(r)) return;
  const content = Array.isArray(r.content) ? r.content : [];
  const bad = content.map((b) => blockProblem(b, rev)).filter(Boolean);
  rec.record("legacy.blocks", bad.length === 0, where, bad.join("; "));
  const hasSC = "structuredContent" in r;
  let scProblem = null;
  if (hasSC && !revAtLeast(rev, "2025-06-18")) scProblem = `structuredContent does not exist in ${rev}`;
  else if (hasSC && rev !== "2026-07-28" && !isObject(r.structuredContent)) scProblem = `structuredContent is not an object in ${rev}`;
  rec.record("legacy.structured-content", scProblem === null, where, scProblem);
  if (isObject(session.serverCaps) && r._meta !== undefined) {
    const uiMeta = isObject(r._meta) && r._meta[UI] !== undefined;
    rec.record("meta.minimal", !uiMeta || session.appsNegotiated, where, `_meta["${UI}"] sent without Apps negotiated`);
  }
  if (r.isError === true) return;
  if ("outputSchema" in tool && revAtLeast(rev, "2025-06-18")) {
    let problem = null;
    if (!hasSC) problem = "the Tool advertises outputSchema but the result has no structuredContent";
    else {
      const c = compile(tool.outputSchema);
      if (!c.error) problem = c.validate(r.structuredContent);
    }
    rec.record("legacy.consistency", problem === null, where, problem);
  }
  if (hasSC && revAtLeast(rev, "2025-06-18")) {
    const texts = content.map(jsonText).filter(Boolean);
    const mirrored = texts.some((t) => deepEqual(t.value, r.structuredContent));
    if (!isObject(r.structuredContent)) rec.record("legacy.json-mirror", mirrored, where, "a non-object structuredContent without its JSON in a text block");
    else if (!isObject(tool._meta?.ui) || !session.appsNegotiated) {
      const inner = Object.keys(r.structuredContent).length === 1 && "result" in r.structuredContent ? r.structuredContent.result : undefined;
      const ok = mirrored || (inner !== undefined && texts.some((t) => deepEqual(t.value, inner)));
      rec.record("legacy.mirror", ok, where, "structuredContent without a JSON text mirror");
    }
  }
}

const expectInvalidParams = (m, rec, id, where, what) =>
  rec.record(id, m.error?.code === -32602, where, m.error ? `${what}: answered error ${m.error.code}, not -32602` : `${what}: answered a result, not -32602`);

/** Runs every check. `target`: `{command: [...]}` or `{url}`. Returns the report object. */
export async function checkServer(target, options = {}) {
  const config = options.config ?? {};
  const revisions = options.revisions ?? REVISIONS;
  const open = connector(target, { timeoutMs: options.timeoutMs ?? 15000, env: options.env });
  const rec = new Recorder();
  const compile = compiler();
  const supported = {};
  const uiTools = new Map(); // tool name -> declared a ui variant on an Apps session (2026-12-01)
  const log = options.log ?? (() => {});

  // Apps first, so the plain session knows which tools declare the Apps audience.
  for (const rev of revisions) {
    for (const apps of [true, false]) {
      const session = await openSession(open, rev, apps, rec);
      log(`session ${session.where}: ${session.unsupported ? `not offered (${session.unsupported})` : "open"}`);
      if (session.unsupported) {
        supported[session.where] = `not offered: ${session.unsupported}`;
        if (!session.transportFailure) await session.conn.close().catch(() => {});
        continue;
      }
      supported[session.where] = "checked";
      try {
        await runSession(session, { rec, compile, config, uiTools });
      } catch (e) {
        if (!(e instanceof TransportError || e instanceof RpcError)) throw e;
        rec.notes.push(`${session.where}: ${e.message}`);
        rec.record("connect", false, session.where, e.message);
      } finally {
        await session.conn.close().catch(() => {});
      }
    }
  }
  const offered = Object.values(supported).some((s) => s === "checked");
  rec.record("connect", offered, "any revision", `no revision offered: ${JSON.stringify(supported)}`);
  // A revision no server offers: from 2026-07-28 on, the -32022 answer is judged.
  if (revisions.some((r) => !HANDSHAKE.has(r))) {
    const session = await openSession(open, "2026-07-28", false, rec);
    if (!session.unsupported) {
      try {
        if (session.conn.perRequest) session.conn.protocolVersion = "2031-01-01";
        const m = await session.conn.send("server/discover", { _meta: { "io.modelcontextprotocol/protocolVersion": "2031-01-01", "io.modelcontextprotocol/clientCapabilities": {} } });
        if (m.error) judgeUnsupportedError(m.error, "2031-01-01", rec, "2031-01-01");
        else rec.record("version.unsupported-error", false, "2031-01-01", "server/discover for an unknown revision answered a result");
      } catch (e) {
        rec.notes.push(`2031-01-01 probe: ${e.message}`);
      }
    }
    if (!session.transportFailure) await session.conn.close().catch(() => {});
  }
  return report(rec, supported, options);
}

async function runSession(session, { rec, compile, config, uiTools }) {
  const tools = await listTools(session, rec);
  const isNew = session.rev === NEW_REVISION;
  if (isNew) judgeNewList(session, tools, rec, compile);
  else judgeLegacyList(session, tools, rec, compile);
  let legacyProbeDone = false;
  for (const tool of tools) {
    try {
      legacyProbeDone = await runTool(session, tool, { rec, compile, config, uiTools, legacyProbeDone });
    } catch (e) {
      // A call that times out (a tool waiting for a client feature, sampling say) is not judged;
      // the session goes on with the next tool. A server that is gone ends the session.
      if (!(e instanceof TransportError) || !/no answer|timeout|aborted/i.test(e.message)) throw e;
      rec.notes.push(`${session.where} tool ${tool.name}: ${e.message} (not judged; exclude it in the config if it needs a client feature)`);
    }
  }
}

async function runTool(session, tool, { rec, compile, config, uiTools, legacyProbeDone }) {
  const isNew = session.rev === NEW_REVISION;
  {
    const args = argumentsFor(tool, config);
    if (args === undefined) {
      rec.notes.push(`${session.where} tool ${tool.name}: not called (required arguments; give them in the config)`);
      return legacyProbeDone;
    }
    const call = (extra) => session.request("tools/call", { name: tool.name, arguments: args, ...extra });
    if (!isNew) {
      judgeLegacyResult(session, tool, await call({}), rec, compile);
      if (!legacyProbeDone) {
        legacyProbeDone = true;
        const m = await call({ requestedOutputs: [{ audience: "assistant", format: "content" }] });
        expectInvalidParams(m, rec, "select.legacy-revision", `${session.where} tool ${tool.name}`, "requestedOutputs under an earlier revision");
      }
      return legacyProbeDone;
    }
    if (!Array.isArray(tool.outputVariants)) return legacyProbeDone;
    const declared = tool.outputVariants.filter(isObject).map((v) => ({ audience: v.audience, format: v.format }));
    if (session.apps && declared.some((v) => v.audience === UI)) uiTools.set(tool.name, true);
    // The fallback, each declared variant alone, and all of them together.
    judgeNewResult(session, tool, undefined, await call({}), rec, compile, "without requestedOutputs");
    for (const v of declared) judgeNewResult(session, tool, [v], await call({ requestedOutputs: [v] }), rec, compile, `requesting ${key(v)}`);
    if (declared.length > 1) judgeNewResult(session, tool, declared, await call({ requestedOutputs: declared }), rec, compile, "requesting every variant");
    // Selection errors.
    const where = `${session.where} tool ${tool.name}`;
    const undeclaredKey = CORE.find((k) => !declared.some((v) => key(v) === k));
    const undeclared = undeclaredKey ? { audience: undeclaredKey.split("/")[0], format: undeclaredKey.split("/")[1] } : { audience: PROBE_EXTENSION, format: "structured" };
    expectInvalidParams(await call({ requestedOutputs: [undeclared] }), rec, "select.undeclared", where, `undeclared ${key(undeclared)}`);
    expectInvalidParams(await call({ requestedOutputs: [{ audience: PROBE_EXTENSION, format: "structured" }] }), rec, "select.unnegotiated", where, `unnegotiated ${PROBE_EXTENSION}/structured`);
    if (!session.apps && uiTools.has(tool.name)) {
      expectInvalidParams(await call({ requestedOutputs: [{ audience: UI, format: "structured" }] }), rec, "select.unnegotiated", where, `${UI}/structured without Apps`);
    }
    const ac = { audience: "assistant", format: "content" };
    expectInvalidParams(await call({ requestedOutputs: [ac, ac] }), rec, "select.duplicate", where, "assistant/content twice");
    expectInvalidParams(await call({ requestedOutputs: [] }), rec, "select.empty", where, "requestedOutputs: []");
    expectInvalidParams(await call({ requestedOutputs: [{ audience: "host", format: "content" }] }), rec, "select.invalid", where, "audience host");
    expectInvalidParams(await call({ requestedOutputs: [{ audience: "programmatic", format: "content" }] }), rec, "select.invalid", where, "programmatic/content");
  }
  return legacyProbeDone;
}

function report(rec, supported, options) {
  const baseline = options.baseline ?? {};
  const checks = CHECKS.map((c) => {
    const r = rec.results.get(c.id);
    let status = r.failures.length ? (c.severity === "must" || options.strict ? "fail" : "warn") : r.pass ? "pass" : "skip";
    const expected = Object.hasOwn(baseline, c.id);
    if (expected && status === "fail") status = "expected-fail";
    else if (expected) status = "stale-baseline";
    return { id: c.id, severity: c.severity, requirements: c.requirements, title: c.title, status, passed: r.pass, failures: r.failures, ...(expected ? { baseline: baseline[c.id] } : {}) };
  });
  const count = (s) => checks.filter((c) => c.status === s).length;
  const summary = { passed: count("pass"), failed: count("fail"), warned: count("warn"), skipped: count("skip"), expectedFailures: count("expected-fail"), staleBaseline: count("stale-baseline") };
  const unknownBaseline = Object.keys(baseline).filter((id) => !CHECK_BY_ID.has(id));
  return { ok: summary.failed === 0 && summary.staleBaseline === 0 && unknownBaseline.length === 0, summary, sessions: supported, checks, unknownBaseline, notes: rec.notes };
}

export function formatReport(rep) {
  const lines = [];
  const mark = { pass: "PASS", fail: "FAIL", warn: "WARN", skip: "SKIP", "expected-fail": "XFAIL", "stale-baseline": "STALE" };
  for (const [where, s] of Object.entries(rep.sessions)) lines.push(`session ${where}: ${s}`);
  for (const c of rep.checks) {
    lines.push(`${mark[c.status].padEnd(5)} ${c.id} [${c.severity}; ${c.requirements.join(", ")}]${c.status === "pass" ? ` (${c.passed} instances)` : c.status === "skip" ? " (not applicable to this server)" : ""}`);
    if (c.status === "stale-baseline") lines.push(`      in the baseline but passed: remove it (${c.baseline})`);
    if (c.status === "expected-fail") lines.push(`      expected by the baseline: ${c.baseline}`);
    for (const f of c.failures.slice(0, c.status === "pass" ? 0 : 5)) lines.push(`      ${f}`);
  }
  for (const id of rep.unknownBaseline) lines.push(`STALE baseline names an unknown check: ${id}`);
  const s = rep.summary;
  lines.push(
    `check-server: ${s.passed} passed, ${s.failed} failed, ${s.warned} warned, ${s.skipped} not applicable` +
      (s.expectedFailures ? `, ${s.expectedFailures} expected failures` : "") +
      (s.staleBaseline ? `, ${s.staleBaseline} stale baseline entries` : ""),
  );
  return lines.join("\n");
}
