// The public API of the npm package in Node: values and JSON-text paths, errors, plain
// values out, handles, and robustness (SEC-1): after every kind of thrown error the same
// module instance keeps answering correctly.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { FLAVOUR, mcp } from "./flavour.mjs";
import { thrown } from "./support.mjs";

const dts = readFileSync(new URL("../npm/index.d.ts", import.meta.url), "utf8");

const TOOL = {
  name: "search_customers",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    {
      audience: "programmatic",
      format: "structured",
      schema: {
        type: "object",
        properties: { items: { type: "array", items: { type: "string", pattern: "^c[0-9]+$" } } },
        required: ["items"],
      },
    },
    { audience: "io.modelcontextprotocol/ui", format: "structured", schema: { type: "object" } },
  ],
};
const APPS = "io.modelcontextprotocol/ui";
const PRODUCED = {
  outputs: [
    { audience: "assistant", format: "content", content: [{ type: "text", text: "2 customers" }] },
    { audience: "programmatic", format: "structured", structuredContent: { items: ["c1", "c2"] } },
    { audience: APPS, format: "structured", structuredContent: { rows: 2 } },
  ],
  _meta: { [APPS]: { theme: "dark" }, "com.example/trace": "t-1" },
};

function setup() {
  const conn = new mcp.Connection({ protocolVersion: "2026-12-01", negotiated: [APPS] });
  const server = mcp.declareTool(TOOL);
  const host = mcp.acceptTool(server.advertise(conn), conn);
  return { conn, server, host };
}

/** Every value reachable is a plain object, an array or a JSON primitive. */
function assertPlain(value, path = "") {
  if (value === null || ["string", "number", "boolean"].includes(typeof value)) return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => assertPlain(v, `${path}/${i}`));
    return;
  }
  assert.equal(typeof value, "object", `${path} is ${typeof value}`);
  assert.equal(Object.getPrototypeOf(value), Object.prototype, `${path} is not a plain object`);
  for (const [k, v] of Object.entries(value)) assertPlain(v, `${path}/${k}`);
}

test("error codes: runtime list (from ErrorCode::ALL) equals the .d.ts union, in order", () => {
  const union = dts.match(/export type ErrorCode =([^;]*);/)[1];
  const declared = [...union.matchAll(/"([a-z-]+)"/g)].map((m) => m[1]);
  assert.deepEqual(declared, [...mcp.errorCodes]);
  assert.ok(mcp.errorCodes.length >= 20);
  assert.ok(Object.isFrozen(mcp.errorCodes));
});

test("protocol versions: the core's list, oldest first, equals the .d.ts union in order", () => {
  const union = dts.match(/export type ProtocolVersion =([^;]*);/)[1];
  const declared = [...union.matchAll(/"([0-9-]+)"/g)].map((m) => m[1]);
  assert.deepEqual(declared, [...mcp.protocolVersions]);
  assert.equal(mcp.protocolVersions.at(-1), new mcp.Connection().protocolVersion);
  assert.ok(Object.isFrozen(mcp.protocolVersions));
});

test("wire helpers: negotiate → toolsCallParams → fromRequest → toolsListResult", () => {
  const clientCapabilities = { extensions: { [APPS]: { mimeTypes: ["text/html;profile=mcp-app"] } } };
  const serverCapabilities = { extensions: { [APPS]: {}, "com.example/other": {} } };
  // initialize (≤ 2025-11-25) or server/discover (≥ 2026-07-28): the connection both agree on.
  const conn = mcp.Connection.negotiate({ protocolVersion: "2026-12-01", clientCapabilities, serverCapabilities });
  assert.ok(conn instanceof mcp.Connection);
  assert.equal(conn.protocolVersion, "2026-12-01");
  assert.deepEqual(conn.negotiated, [APPS]);
  const noMime = mcp.Connection.negotiate({
    protocolVersion: "2025-06-18",
    clientCapabilities: { extensions: { [APPS]: {} } },
    serverCapabilities,
  });
  assert.deepEqual([noMime.protocolVersion, noMime.negotiated], ["2025-06-18", []]);

  // Client: the tools/call params from the plan, never from the arguments.
  const server = mcp.declareTool(TOOL);
  const host = mcp.acceptTool(server.advertise(conn), conn);
  const plan = host.plan({ mode: "apps", schemas: true });
  const args = { query: "acme", requestedOutputs: "from the model, ignored" };
  const params = conn.toolsCallParams("search_customers", args, plan, clientCapabilities);
  assert.deepEqual(params, {
    name: "search_customers",
    arguments: args,
    requestedOutputs: plan.requestedOutputs,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-12-01",
      "io.modelcontextprotocol/clientCapabilities": clientCapabilities,
    },
  });
  assertPlain(params);
  assert.deepEqual(noMime.toolsCallParams("t", undefined, {}, {}), { name: "t" });
  const legacyPlan = { requestedOutputs: [{ audience: "programmatic", format: "structured" }] };
  assert.deepEqual(noMime.toolsCallParams("t", {}, legacyPlan, {}), { name: "t", arguments: {} }, "never before 2026-12-01");
  // Any other request: `_meta` from 2026-07-28 on, keeping what it held; unchanged before.
  const listParams = conn.requestParams({ cursor: "c", _meta: { k: 1 } }, clientCapabilities);
  assert.deepEqual(listParams, { cursor: "c", _meta: { k: 1, ...params._meta } });
  assertPlain(listParams);
  assert.deepEqual(noMime.requestParams({ cursor: "c" }, {}), { cursor: "c" });
  assert.equal(thrown(() => conn.requestParams([], {})).code, "malformed");
  assert.equal(thrown(() => conn.requestParams({}, 1)).path, "/clientCapabilities");

  // Server: the request's own connection, then the call.
  const perRequest = mcp.Connection.fromRequest(params, serverCapabilities);
  assert.deepEqual([perRequest.protocolVersion, perRequest.negotiated], ["2026-12-01", [APPS]]);
  const result = server.respond(perRequest, params.requestedOutputs, PRODUCED);
  assert.deepEqual(host.route(params.requestedOutputs, result).view.structuredContent, { rows: 2 });

  // tools/list (LIST-1): ServerTools advertised for the connection, with the SEP-2549 cache
  // fields (default 0 / private); a legacy Tool is never sent on 2026-12-01, and passes through
  // as given on an earlier revision.
  const legacyTool = { name: "old", inputSchema: { type: "object" }, outputSchema: { type: "object" } };
  const list = perRequest.toolsListResult([server]);
  assert.deepEqual(list, { resultType: "complete", ttlMs: 0, cacheScope: "private", tools: [server.advertise(perRequest)] });
  assertPlain(list);
  const cached = perRequest.toolsListResult([server], { cache: { ttlMs: 60000, cacheScope: "public" } });
  assert.deepEqual([cached.ttlMs, cached.cacheScope], [60000, "public"]);
  const legacyOnNew = thrown(() => perRequest.toolsListResult([server, legacyTool]));
  assert.deepEqual([legacyOnNew.code, legacyOnNew.path, legacyOnNew.jsonrpcCode], ["missing-output-variants", "/tools/1", -32603]);
  const july = new mcp.Connection({ protocolVersion: "2026-07-28" });
  assert.deepEqual(july.toolsListResult([legacyTool]), { resultType: "complete", ttlMs: 0, cacheScope: "private", tools: [legacyTool] });
  assert.equal(thrown(() => july.toolsListResult([legacyTool, legacyTool])).code, "malformed");
  assert.equal(thrown(() => july.toolsListResult([], { cache: { ttlMs: -1, cacheScope: "public" } })).code, "malformed");
  assert.deepEqual(noMime.toolsListResult([server]).resultType, undefined);
  assert.equal(noMime.toolsListResult([server]).tools[0].outputVariants, undefined);
});

test("wire helpers: errors carry the core's JSON-RPC error", () => {
  const caps = { extensions: {} };
  const meta = (version) => ({
    name: "t",
    _meta: { "io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {} },
  });
  const unsupported = thrown(() => mcp.Connection.fromRequest(meta("2031-01-01"), caps));
  assert.ok(unsupported instanceof mcp.McpOutputsError);
  assert.equal(unsupported.code, "unsupported-protocol-version");
  const rpc = unsupported.toJsonRpcError();
  assert.equal(rpc.code, -32022);
  assert.equal(rpc.data.requested, "2031-01-01");
  assert.deepEqual(rpc.data.supported, [...mcp.protocolVersions]);
  const missing = thrown(() => mcp.Connection.fromRequest({ name: "t" }, caps));
  assert.deepEqual([missing.code, missing.toJsonRpcError().code], ["malformed", -32602]);
  assert.equal(thrown(() => mcp.Connection.fromRequest(meta("2026-12-01"), [])).toJsonRpcError().code, -32603);

  const init = { protocolVersion: "latest", clientCapabilities: {}, serverCapabilities: caps };
  const invalid = thrown(() => mcp.Connection.negotiate(init));
  assert.deepEqual([invalid.code, invalid.path, invalid.jsonrpcCode], ["invalid-protocol-version", "/protocolVersion", -32602]);
  const noCaps = thrown(() => mcp.Connection.negotiate({ ...init, protocolVersion: "2025-11-25", clientCapabilities: null }));
  assert.deepEqual([noCaps.code, noCaps.path, noCaps.jsonrpcCode], ["malformed", "/clientCapabilities", -32602]);
  const tooOld = thrown(() => mcp.Connection.negotiate({ ...init, protocolVersion: "2024-01-01" }));
  assert.equal(tooOld.toJsonRpcError().code, -32022);

  // Client side: local errors, no JSON-RPC code.
  const conn = new mcp.Connection();
  const badPlan = thrown(() => conn.toolsCallParams("t", {}, { requestedOutputs: [{ audience: "user" }] }, {}));
  assert.deepEqual([badPlan.code, badPlan.path, badPlan.toJsonRpcError()], ["malformed", "/requestedOutputs/0", null]);
  assert.equal(thrown(() => conn.toolsCallParams("t", [1], {}, {})).path, "/arguments");
  assert.equal(thrown(() => conn.toolsCallParams(7, {}, {}, {})).code, "malformed");
  assert.equal(thrown(() => conn.toolsListResult([{ name: "a" }, "b"])).path, "/tools/1");
  assert.equal(thrown(() => conn.toolsListResult({})).code, "malformed");
  const tight = new mcp.Connection({}, { limits: { maxTools: 1 } });
  assert.equal(thrown(() => tight.toolsListResult([{}, {}])).code, "limit-exceeded");
});

test("host: plan → check → route over JS values", () => {
  const { conn, server, host } = setup();
  const plan = host.plan({ mode: "apps" });
  assert.deepEqual(plan, {
    requestedOutputs: [
      { audience: "assistant", format: "content" },
      { audience: APPS, format: "structured" },
    ],
  });
  const result = server.respond(conn, plan.requestedOutputs, PRODUCED);
  assert.equal(result.resultType, "complete");
  assert.deepEqual(
    result.outputs.map((o) => o.audience),
    ["assistant", APPS],
  );
  host.check(plan.requestedOutputs, result);
  const route = host.route(plan.requestedOutputs, result);
  assert.equal(route.model.length, 1);
  assert.deepEqual(route.view.structuredContent, { rows: 2 });
  assert.deepEqual(route.view._meta, { [APPS]: { theme: "dark" } });
  assert.deepEqual(route.dropped, [{ meta: "com.example/trace" }]);
  for (const v of [plan, result, route, server.advertise(conn), server.select(conn, undefined)]) assertPlain(v);
  // The route's lists hold the outputs as they were checked. Both builds hand back the caller's
  // own output objects when they are plain data (issue 11: nothing rebuilt); a getter or a
  // toJSON gets a copy of what was checked instead (issue 12, defect 7: hardening tests).
  assert.equal(route.model[0], result.outputs[0]);
  assert.equal(route.extensions[APPS][0], result.outputs[1]);
});

test("the JSON-text paths answer exactly what the value paths answer", () => {
  const { conn, server, host } = setup();
  for (const mode of ["conversational", "code", "apps", "app-only"]) {
    const { requestedOutputs } = host.plan({ mode });
    const reqText = requestedOutputs === undefined ? undefined : JSON.stringify(requestedOutputs);
    assert.deepEqual(server.selectText(conn, reqText), server.select(conn, requestedOutputs));
    const wire = server.respondText(conn, reqText, JSON.stringify(PRODUCED));
    assert.equal(typeof wire, "string");
    const result = server.respond(conn, requestedOutputs, PRODUCED);
    assert.deepEqual(JSON.parse(wire), result);
    host.checkText(reqText, wire);
    assert.deepEqual(host.routeText(reqText, wire), host.route(requestedOutputs, result));
    assertPlain(host.routeText(reqText, wire));
  }
  // `null` and `undefined` both mean the field was omitted on the text paths.
  assert.deepEqual(server.selectText(conn, null), [{ audience: "assistant", format: "content" }]);
  // Text the parser refuses is malformed; on a server it is the request's fault (-32602).
  const e = thrown(() => server.selectText(conn, "[{"));
  assert.equal(e.code, "malformed");
  assert.equal(e.toJsonRpcError().code, -32602);
  const c = thrown(() => host.checkText(undefined, "{not json"));
  assert.equal(c.code, "malformed");
  assert.equal(c.toJsonRpcError(), null);
  assert.equal(thrown(() => host.checkText(undefined, { outputs: [] })).code, "malformed");
});

test("McpOutputsError: a real Error with code, path and toJsonRpcError", () => {
  const { conn, server, host } = setup();
  const client = thrown(() =>
    host.check([{ audience: "programmatic", format: "structured" }], {
      resultType: "complete",
      outputs: [{ audience: "programmatic", format: "structured", structuredContent: { items: ["x"] } }],
    }),
  );
  assert.ok(client instanceof mcp.McpOutputsError);
  assert.ok(client instanceof Error);
  assert.equal(client.name, "McpOutputsError");
  assert.equal(client.code, "schema-violation");
  assert.equal(client.path, "/outputs/0/structuredContent/items/0");
  assert.equal(client.toJsonRpcError(), null);
  assert.equal(client.jsonrpcCode, null);
  assert.match(client.stack, /McpOutputsError/);

  const selection = thrown(() => server.select(conn, [{ audience: "user", format: "content" }]));
  assert.equal(selection.code, "undeclared-variant");
  assert.equal(selection.path, "/requestedOutputs/0");
  const rpc = selection.toJsonRpcError();
  assert.equal(rpc.code, -32602);
  assert.equal(rpc.data.mcpOutputsCode, "undeclared-variant");
  assert.deepEqual(JSON.parse(JSON.stringify(selection)).jsonrpc, rpc);

  const fault = thrown(() =>
    server.respond(conn, [{ audience: "programmatic", format: "structured" }], { outputs: [] }),
  );
  assert.equal(fault.code, "missing-output");
  assert.equal(fault.toJsonRpcError().code, -32603);

  const version = thrown(() =>
    mcp.runOperation("select", { protocolVersion: "2031-01-01", tool: TOOL, requestedOutputs: [] }),
  );
  assert.equal(version.code, "unsupported-protocol-version");
  assert.equal(version.toJsonRpcError().code, -32022);
  assert.equal(version.toJsonRpcError().data.requested, "2031-01-01");
  assert.ok(Array.isArray(version.toJsonRpcError().data.supported));

  assert.equal(thrown(() => new mcp.Connection({ protocolVersion: "latest" })).code, "invalid-protocol-version");
  assert.equal(thrown(() => mcp.declareTool({ name: "t" })).code, "malformed");
});

test("values JSON cannot hold are malformed, never a raw TypeError", () => {
  const { host } = setup();
  const cyclic = { resultType: "complete", outputs: [] };
  cyclic.self = cyclic;
  for (const bad of [cyclic, { n: 10n }, undefined, () => 1, Symbol("s")]) {
    const e = thrown(() => host.check(undefined, bad));
    assert.ok(e instanceof mcp.McpOutputsError, String(e));
    assert.equal(e.code, "malformed");
  }
  assert.equal(thrown(() => host.routeText(undefined, 42)).code, "malformed");
  assert.equal(thrown(() => mcp.runOperation(7, {})).code, "malformed");
  assert.equal(thrown(() => mcp.runOperation("nope", {})).code, "malformed");
});

test("declare warnings, advertise per connection, migrate, runOperation", () => {
  const tool = mcp.declareTool({
    name: "t",
    inputSchema: { type: "object" },
    outputVariants: [
      { audience: "assistant", format: "content" },
      { audience: "programmatic", format: "structured" },
    ],
  });
  assert.deepEqual(tool.warnings, [{ code: "missing-schema", path: "/outputVariants/1" }]);
  assert.equal(tool.name, "t");
  const server = mcp.declareTool(TOOL);
  const plain = new mcp.Connection();
  assert.equal(plain.protocolVersion, "2026-12-01");
  assert.deepEqual(plain.negotiated, []);
  assert.equal(server.advertise(plain).outputVariants.length, 2);
  const legacy = new mcp.Connection({ protocolVersion: "2025-06-18", negotiated: [APPS] });
  assert.equal(legacy.protocolVersion, "2025-06-18");
  assert.equal(server.advertise(legacy).outputVariants, undefined);
  const oldTool = { name: "old", inputSchema: { type: "object" }, outputSchema: { type: "object" } };
  const migrated = mcp.migrateTool(oldTool, { programmaticFromOutputSchema: true });
  assert.deepEqual(
    migrated.tool.outputVariants.map((v) => `${v.audience}/${v.format}`),
    ["assistant/content", "programmatic/structured"],
  );
  assert.deepEqual(migrated.legacy, { outputSchema: { type: "object" }, structuredFrom: "programmatic/structured" });
  assert.equal(migrated.warnings, undefined);
  // MIG-2: declared with its legacy options, the migrated tool is the legacy Tool again under 2026-07-28.
  const served = mcp.declareTool(migrated.tool, { legacy: migrated.legacy });
  assert.deepEqual(served.advertise(new mcp.Connection({ protocolVersion: "2026-07-28" })), oldTool);
  assert.deepEqual(mcp.migrateTool(oldTool).warnings, [{ code: "legacy-output-schema-dropped", path: "/outputSchema" }]);
  // LEG-8: a code-mode plan under an earlier revision names the consumer of structuredContent.
  const v2025 = new mcp.Connection({ protocolVersion: "2025-06-18" });
  const oldHost = mcp.acceptTool(oldTool, v2025);
  const plan = oldHost.plan({ mode: "code" });
  assert.deepEqual(plan, { legacyStructured: "programmatic" });
  const legacyResult = { content: [{ type: "text", text: "{}" }], structuredContent: { n: 1 } };
  const routed = oldHost.route(undefined, legacyResult, plan);
  assert.deepEqual(routed.programmatic, [{ audience: "programmatic", format: "structured", structuredContent: { n: 1 } }]);
  assert.deepEqual(oldHost.routeText(null, JSON.stringify(legacyResult), plan).programmatic, routed.programmatic);
  assert.deepEqual(oldHost.route(undefined, legacyResult).dropped, [{ legacy: "structuredContent" }]);
  assert.equal(thrown(() => oldHost.check(undefined, legacyResult, { legacyStructured: "host" })).code, "malformed");
  assert.equal(thrown(() => oldHost.route(undefined, legacyResult, "programmatic")).code, "malformed");
  assert.deepEqual(mcp.runOperation("declare", { tool: TOOL }), {});
  const { operations } = mcp.contractOperations();
  assert.ok(operations.scenario.includes("produced"));
});

test("extensions and limits options reach the core", () => {
  const ext = { id: "com.example/audit", formats: ["structured"], modelContext: false, metaKey: null, legacyProjection: false };
  const decl = {
    name: "a",
    inputSchema: { type: "object" },
    outputVariants: [
      { audience: "assistant", format: "content" },
      { audience: "com.example/audit", format: "structured", schema: { type: "object" } },
    ],
  };
  assert.equal(thrown(() => mcp.declareTool(decl)).code, "invalid-audience");
  const server = mcp.declareTool(decl, { extensions: [ext] });
  const conn = new mcp.Connection({ negotiated: ["com.example/audit"] }, { extensions: [ext] });
  assert.equal(server.advertise(conn).outputVariants.length, 2);
  const tight = new mcp.Connection({}, { limits: { maxDepth: 3 } });
  const host = mcp.acceptTool({ name: "x", inputSchema: { type: "object" }, outputVariants: [{ audience: "assistant", format: "content" }] }, tight);
  assert.equal(thrown(() => host.check(undefined, { outputs: [[[[1]]]] })).code, "limit-exceeded");
  assert.equal(thrown(() => new mcp.Connection({}, { limits: { maxDepth: -1 } })).code, "malformed");
});

test("handles: free() releases, a freed handle throws McpOutputsError", () => {
  const { conn, server, host } = setup();
  host.free();
  server.free();
  const e = thrown(() => host.plan({ mode: "code" }));
  assert.ok(e instanceof mcp.McpOutputsError);
  assert.equal(e.code, "malformed");
  conn.free();
  // The module keeps working with fresh handles.
  const again = setup();
  assert.ok(again.host.plan({ mode: "code" }).requestedOutputs);
});

test("robustness (SEC-1): after every kind of thrown error the same module keeps answering", () => {
  const { conn, server, host } = setup();
  const requested = [{ audience: "programmatic", format: "structured" }];
  const good = server.respond(conn, requested, PRODUCED);
  const goodText = JSON.stringify(good);
  const baseline = host.route(requested, good);
  const hostile = mcp.declareTool({
    name: "hostile",
    inputSchema: { type: "object" },
    outputVariants: [
      { audience: "assistant", format: "content" },
      // A catastrophic pattern (nested quantifier) and one that needs backtracking (a backreference).
      {
        audience: "programmatic",
        format: "structured",
        schema: {
          type: "object",
          properties: { a: { type: "string", pattern: "^(a+)+$" }, b: { type: "string", pattern: "^(x+)\\1+y$" } },
        },
      },
    ],
  });
  const hostileHost = mcp.acceptTool(hostile.advertise(conn), conn);
  const deepValue = (n) => {
    let v = [];
    for (let i = 0; i < n; i++) v = [v];
    return v;
  };
  const cases = {
    "limit-exceeded (deep JS value)": () => host.check(requested, { resultType: "complete", outputs: deepValue(500) }),
    "limit-exceeded (very deep JS value)": () => host.route(requested, deepValue(200000)),
    "limit-exceeded (deep text)": () => host.checkText(undefined, "[".repeat(1_000_000)),
    "limit-exceeded (bytes)": () => mcp.acceptTool(TOOL, new mcp.Connection({}, { limits: { maxBytes: 10 } })),
    "malformed (text)": () => host.routeText(undefined, '{"outputs": [1, 2,'),
    "malformed (shape)": () => host.route(requested, { resultType: "complete", outputs: "x" }),
    "malformed (lone surrogate)": () => host.checkText(undefined, '"\\ud800"'),
    "schema-violation": () =>
      host.check(requested, {
        resultType: "complete",
        outputs: [{ audience: "programmatic", format: "structured", structuredContent: { items: [1] } }],
      }),
    "hostile pattern (nested quantifier)": () =>
      hostileHost.check(requested, {
        resultType: "complete",
        outputs: [{ audience: "programmatic", format: "structured", structuredContent: { a: "a".repeat(50_000) + "!" } }],
      }),
    "hostile pattern (backtracking engine)": () =>
      hostileHost.check(requested, {
        resultType: "complete",
        outputs: [{ audience: "programmatic", format: "structured", structuredContent: { b: "x".repeat(20_000) + "z" } }],
      }),
    "invalid-schema": () => mcp.declareTool({ ...TOOL, outputVariants: [TOOL.outputVariants[0], { audience: "programmatic", format: "structured", schema: { type: 12 } }] }),
    "invalid pattern": () => mcp.declareTool({ ...TOOL, outputVariants: [TOOL.outputVariants[0], { audience: "programmatic", format: "structured", schema: { pattern: "(" } }] }),
    "external-ref": () => mcp.declareTool({ ...TOOL, outputVariants: [TOOL.outputVariants[0], { audience: "programmatic", format: "structured", schema: { $ref: "https://example.com/s.json" } }] }),
    "invalid-protocol-version": () => new mcp.Connection({ protocolVersion: "2026-13-45" }),
    "selection error": () => server.select(conn, [{ audience: "user", format: "content" }, { audience: "user", format: "content" }]),
    "respond fault": () => server.respondText(conn, JSON.stringify(requested), '{"outputs": []}'),
  };
  const expectedCode = {
    "limit-exceeded (deep JS value)": "limit-exceeded",
    "limit-exceeded (very deep JS value)": "limit-exceeded",
    "limit-exceeded (deep text)": "limit-exceeded",
    "limit-exceeded (bytes)": "limit-exceeded",
    "malformed (text)": "malformed",
    "malformed (shape)": "malformed",
    "malformed (lone surrogate)": "malformed",
    "schema-violation": "schema-violation",
    // The default build's validator (JavaScript regular expressions) cannot bound the work of a
    // pattern that backtracks without bound: such a validation is refused before it runs.
    "hostile pattern (nested quantifier)": FLAVOUR === "full" ? "schema-violation" : "limit-exceeded",
    "hostile pattern (backtracking engine)": "limit-exceeded", // a match that does not finish decides nothing (issue 12, defect 9)
    "invalid-schema": "invalid-schema",
    "invalid pattern": "invalid-schema",
    "external-ref": "external-ref",
    "invalid-protocol-version": "invalid-protocol-version",
    "selection error": "duplicate-selector",
    "respond fault": "missing-output",
  };
  assert.deepEqual(Object.keys(expectedCode).sort(), Object.keys(cases).sort());
  for (const [kind, fn] of Object.entries(cases)) {
    const e = thrown(fn);
    assert.ok(e instanceof mcp.McpOutputsError, `${kind}: ${e}`);
    assert.ok(mcp.errorCodes.includes(e.code), kind);
    assert.equal(e.code, expectedCode[kind], kind);
    // The same instance still answers, and answers the same.
    assert.deepEqual(host.route(requested, good), baseline, `after ${kind}`);
    assert.deepEqual(host.routeText(JSON.stringify(requested), goodText), baseline, `after ${kind} (text)`);
    assert.deepEqual(server.respond(conn, requested, PRODUCED), good, `after ${kind} (server)`);
  }
  // The hostile tool itself still validates correctly (default build: a value with strings is
  // refused as above; one without any has nothing for the patterns to run on).
  const benign = (structuredContent) => () =>
    hostileHost.check(requested, { resultType: "complete", outputs: [{ audience: "programmatic", format: "structured", structuredContent }] });
  if (FLAVOUR === "full") benign({ a: "aaa", b: "xxxxy" })();
  else assert.equal(thrown(benign({ a: "aaa", b: "xxxxy" })).code, "limit-exceeded");
  assert.deepEqual(benign({})(), {});
});

test("declareTools, discoverTools: whole tools/list results on both sides (LIST-1, LIST-2)", () => {
  const tools = [
    { name: "a", inputSchema: { type: "object" }, outputVariants: [{ audience: "assistant", format: "content" }] },
    {
      name: "b",
      inputSchema: { type: "object" },
      outputVariants: [
        { audience: "assistant", format: "content" },
        { audience: "programmatic", format: "structured" },
      ],
    },
  ];
  const declared = mcp.declareTools(tools, { legacyByTool: { a: { mirror: false } } });
  assert.deepEqual(declared.map((t) => t.name), ["a", "b"]);
  assert.ok(declared.every((t) => t instanceof mcp.ServerTool));
  const unknown = thrown(() => mcp.declareTools(tools, { legacyByTool: { c: {} } }));
  assert.deepEqual([unknown.code, unknown.jsonrpcCode], ["malformed", -32603]);
  // null is a value, judged by the core as `run` judges it; only undefined means "not given".
  const nullByTool = thrown(() => mcp.declareTools(tools, { legacyByTool: null }));
  assert.deepEqual([nullByTool.code, nullByTool.path, nullByTool.jsonrpcCode], ["malformed", "/legacyByTool", -32603]);
  assert.equal(mcp.declareTools(tools, { legacyByTool: undefined }).length, 2);
  const nullCache = thrown(() => new mcp.Connection({ protocolVersion: "2026-07-28" }).toolsListResult(declared, { cache: null }));
  assert.deepEqual([nullCache.code, nullCache.path], ["malformed", "/cache"]);
  // A missing or null declaration is the server's fault, as in `run`.
  const noTool = thrown(() => mcp.ServerTool.declare(undefined));
  assert.deepEqual([noTool.code, noTool.jsonrpcCode], ["malformed", -32603]);
  const noTools = thrown(() => mcp.declareTools(undefined));
  assert.deepEqual([noTools.code, noTools.jsonrpcCode], ["malformed", -32603]);
  // Produced outputs that cannot be read rank after the request's faults, as in the core.
  const server = mcp.ServerTool.declare(tools[0]);
  const conn0 = new mcp.Connection();
  const badBoth = thrown(() => server.respond(conn0, 0, undefined));
  assert.deepEqual([badBoth.code, badBoth.jsonrpcCode], ["malformed", -32602]);
  const badBothText = thrown(() => server.respondText(conn0, "0", undefined));
  assert.deepEqual([badBothText.code, badBothText.jsonrpcCode], ["malformed", -32602]);
  const undeclared = thrown(() => server.respond(conn0, [{ audience: "user", format: "content" }], { outputs: [NaN] }));
  assert.deepEqual([undeclared.code, undeclared.jsonrpcCode], ["undeclared-variant", -32602]);
  const badProduced = thrown(() => server.respond(conn0, undefined, { outputs: [NaN] }));
  assert.deepEqual([badProduced.code, badProduced.jsonrpcCode], ["malformed", -32603]);
  const nullTool = thrown(() => mcp.ServerTool.declare(null));
  assert.deepEqual([nullTool.code, nullTool.jsonrpcCode], ["malformed", -32603]);
  const second = thrown(() => mcp.declareTools([tools[0], { name: "x", inputSchema: {}, outputVariants: [] }]));
  assert.deepEqual([second.code, second.path], ["missing-assistant-content", "/tools/1/outputVariants"]);

  const conn = new mcp.Connection();
  const sent = conn.toolsListResult(declared);
  const { tools: received, warnings } = mcp.discoverTools(sent, conn);
  assert.deepEqual(received.map((t) => t.name), ["a", "b"]);
  assert.ok(received.every((t) => t instanceof mcp.ReceivedTool));
  assert.deepEqual(warnings, [{ code: "missing-schema", path: "/tools/1/outputVariants/1" }]);
  assert.deepEqual(received[1].plan({ mode: "code" }), { requestedOutputs: [{ audience: "programmatic", format: "structured" }] });
  const badTtl = thrown(() => mcp.discoverTools({ resultType: "complete", ttlMs: "0", cacheScope: "private", tools: [] }, conn));
  assert.deepEqual([badTtl.code, badTtl.path], ["malformed", "/ttlMs"]);
  // CACHE-1: an absent ttlMs is 0, with a warning at the result's root.
  const noTtl = mcp.discoverTools({ resultType: "complete", cacheScope: "private", tools: [] }, conn);
  assert.deepEqual([noTtl.cache, noTtl.warnings], [{ ttlMs: 0, cacheScope: "private" }, [{ code: "ttl-missing", path: "" }]]);
  // LIST-3: a Tool the host rejects is excluded on its own; each usable tool keeps its own entry
  // (the ReceivedTool after an excluded one is built from the right entry of the result).
  const twice = { name: "twice", inputSchema: {}, outputVariants: [{ audience: "assistant", format: "content" }, { audience: "assistant", format: "content" }] };
  const page = mcp.discoverTools({ ...sent, tools: [sent.tools[0], twice, sent.tools[1]], nextCursor: "p2" }, conn);
  assert.deepEqual(page.tools.map((t) => t.name), ["a", "b"]);
  assert.deepEqual(page.excluded, [
    { index: 1, name: "twice", code: "duplicate-variant", path: "/tools/1/outputVariants/1", message: page.excluded[0].message },
  ]);
  assert.match(page.excluded[0].message, /declared twice/);
  assert.equal(page.nextCursor, "p2");
  assert.deepEqual(page.tools[1].plan({ mode: "code" }), { requestedOutputs: [{ audience: "programmatic", format: "structured" }] });
  // LEG-9: a Tool passed through as given under an earlier revision loses outputVariants; LIST-4: the cursor is sent.
  const july = new mcp.Connection({ protocolVersion: "2026-07-28" });
  const passed = july.toolsListResult([twice], { nextCursor: "c" });
  assert.deepEqual([passed.tools, passed.nextCursor], [[{ name: "twice", inputSchema: {} }], "c"]);
  const legacy = thrown(() => mcp.discoverTools({ ...sent, tools: [...sent.tools, { name: "old", inputSchema: {} }] }, conn));
  assert.deepEqual([legacy.code, legacy.path, legacy.jsonrpcCode], ["missing-output-variants", "/tools/2/outputVariants", null]);
});

test("check and route answers: empty error results (ERR-5) and input_required (MRTR-1)", () => {
  const conn = new mcp.Connection();
  const host = mcp.acceptTool(mcp.declareTool(TOOL).advertise(conn), conn);
  const emptyError = { resultType: "complete", outputs: [], isError: true, _meta: { k: 1 } };
  assert.deepEqual(host.check(undefined, emptyError), { warnings: [{ code: "empty-error-outputs", path: "" }] });
  assert.deepEqual(host.checkText(undefined, JSON.stringify(emptyError)), { warnings: [{ code: "empty-error-outputs", path: "" }] });
  const routed = host.route(undefined, emptyError);
  assert.deepEqual([routed.isError, routed.model, routed.diagnostics, routed.dropped], [true, [], [{ code: "empty-error-outputs", path: "" }], [{ meta: "k" }]]);
  const inputRequired = { resultType: "input_required", requestState: "s1" };
  assert.deepEqual(host.check(undefined, inputRequired), { resultType: "input_required" });
  assert.deepEqual(host.route(undefined, inputRequired), { resultType: "input_required" });
  assert.deepEqual(host.routeText(undefined, JSON.stringify(inputRequired)), { resultType: "input_required" });
  assert.equal(thrown(() => host.check(undefined, { resultType: "input_required" })).code, "malformed");
  const ok = host.check(undefined, { resultType: "complete", outputs: [PRODUCED.outputs[0]] });
  assert.deepEqual(ok, {});
});

test("supportedVersions (VER-4): a narrower list refuses other revisions with -32022 and that list", () => {
  const options = { supportedVersions: ["2026-12-01", "2026-07-28"] };
  const refused = thrown(() => new mcp.Connection({ protocolVersion: "2025-06-18" }, options));
  assert.equal(refused.code, "unsupported-protocol-version");
  const meta = (version) => ({
    name: "t",
    _meta: { "io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {} },
  });
  const wire = thrown(() => mcp.Connection.fromRequest(meta("2025-11-25"), {}, options));
  assert.deepEqual([wire.jsonrpcCode, wire.toJsonRpcError().data.supported], [-32022, ["2026-07-28", "2026-12-01"]]);
  assert.equal(mcp.Connection.fromRequest(meta("2026-07-28"), {}, options).protocolVersion, "2026-07-28");
  const init = { protocolVersion: "2025-11-25", clientCapabilities: {}, serverCapabilities: {} };
  assert.equal(thrown(() => mcp.Connection.negotiate(init, options)).jsonrpcCode, -32022);
  assert.equal(thrown(() => new mcp.Connection({}, { supportedVersions: [] })).code, "malformed");
  assert.equal(thrown(() => mcp.declareTool(TOOL, { supportedVersions: ["latest"] })).code, "malformed");
});

// Found by the conformance kit's runner (conformance-kit/): runOperation held its whole input
// to the default depth, so a declaration too deep was refused by the envelope, without the
// server side's JSON-RPC code (-32603) that ops::run, the object API and Python's `run` give.
// The envelope is now held to the ceiling only; the core judges each argument.
test("runOperation: an argument gets the depth it would get alone, and its side's JSON-RPC code", () => {
  const cases = JSON.parse(readFileSync(new URL("../../tests/corpus/declare/differential.json", import.meta.url), "utf8"));
  const deep = cases.find((c) => c.id === "diff-declare-deep-schema-is-a-server-error");
  const e = thrown(() => mcp.runOperation("declare", deep.input));
  assert.equal(e.code, "limit-exceeded");
  assert.equal(e.jsonrpcCode, -32603);
  // One level less fits the declaration's own limit, inside the input too.
  let schema = {};
  for (let i = 0; i < 120; i++) schema = { not: schema };
  const tool = { name: "t", inputSchema: { type: "object" }, outputVariants: [
    { audience: "assistant", format: "content" },
    { audience: "programmatic", format: "structured", schema } ] };
  assert.deepEqual(mcp.runOperation("declare", { tool }), {});
});

test("a schema whose deferred compile fails is invalid-schema at the schema's own path, not under the output", () => {
  // Issue 20: the path was spliced from two documents (/outputs/0/structuredContent/outputVariants/1/schema).
  if (FLAVOUR === "full") return; // the full build compiles with its own validator
  const failing = { getValidator: () => { throw new Error("this validator cannot compile it"); } };
  const conn = new mcp.Connection({}, { validator: failing });
  const tool = {
    name: "t",
    inputSchema: { type: "object" },
    outputVariants: [
      { audience: "assistant", format: "content" },
      { audience: "programmatic", format: "structured", schema: { type: "object" } },
    ],
  };
  const host = mcp.acceptTool(tool, conn);
  const result = { outputs: [{ audience: "programmatic", format: "structured", structuredContent: {} }] };
  const requested = [{ audience: "programmatic", format: "structured" }];
  for (let call = 0; call < 2; call++) {
    const error = thrown(() => host.route(requested, result));
    assert.deepEqual([error.code, error.path], ["invalid-schema", "/outputVariants/1/schema"], `call ${call}`);
  }
});

test("a result this layer cannot read ranks after the local rule and the request (ERR-6)", () => {
  // Found by the differential test: a check without a result, under 2025-06-18, with
  // requestedOutputs, is the request's fault in every binding.
  const oldTool = { name: "old", inputSchema: { type: "object" } };
  const host = mcp.acceptTool(oldTool, new mcp.Connection({ protocolVersion: "2025-06-18" }));
  const requested = [{ audience: "assistant", format: "content" }];
  const code = (fn) => thrown(fn).code;
  for (const fn of [
    () => host.check(requested, undefined),
    () => host.route(requested, () => {}),
    () => host.checkText(JSON.stringify(requested), 42),
    () => host.routeText(JSON.stringify(requested), undefined),
  ]) {
    assert.equal(code(fn), "requested-outputs-on-legacy-version");
  }
  // The local rule ranks before the request; without a fault of either, the result's own.
  const rule = thrown(() => host.check(requested, undefined, { legacyStructured: 42 }));
  assert.deepEqual([rule.code, rule.path], ["malformed", "/legacyStructured"]);
  assert.match(thrown(() => host.check(undefined, undefined)).message, /result/);
  assert.match(thrown(() => host.routeText(null, 42)).message, /result must be JSON text/);
});
