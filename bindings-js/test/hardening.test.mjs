// Regression tests of issue 12 (the hostile-input sweep), JavaScript side: each test names the
// defect it pins and goes through the public API only (inputs → typed error code), so it
// stays valid when the paths behind it are rewritten. Early exits are proven by counting the
// reads a Proxy or a getter sees, never by timing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mcp } from "./flavour.mjs";
import { errorPaths } from "./error-paths.mjs";
import { thrown, PROGRAMMATIC, output, resultOf } from "./support.mjs";

const APPS = "io.modelcontextprotocol/ui";
const TOOL = {
  name: "t",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    {
      audience: "programmatic",
      format: "structured",
      schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    },
    { audience: APPS, format: "structured", schema: { type: "object" } },
  ],
};

function setup(options) {
  const conn = new mcp.Connection({ protocolVersion: "2026-12-01", negotiated: [APPS] }, options);
  const server = mcp.declareTool(TOOL, options);
  const host = mcp.acceptTool(server.advertise(conn), conn);
  return { conn, server, host };
}


/** The error of `fn`, which must be a McpOutputsError with `code`. */
function typed(fn, code, label = "") {
  const e = thrown(fn);
  assert.ok(e instanceof mcp.McpOutputsError, `${label}: ${e?.stack ?? e}`);
  assert.equal(e.code, code, `${label}: ${e.message}`);
  return e;
}

/** An array-like Proxy of `length` items that counts the element reads. */
function countingArray(length, item) {
  const counter = { reads: 0 };
  const proxy = new Proxy([], {
    get(target, key) {
      if (key === "length") return length;
      if (typeof key === "string" && /^[0-9]+$/.test(key)) {
        counter.reads++;
        return item(Number(key));
      }
      return Reflect.get(target, key);
    },
  });
  return { proxy, counter };
}

test("defect 3: the tool name of toolsCallParams is capped, before it enters the wasm memory", () => {
  const tight = new mcp.Connection({}, { limits: { maxBytes: 64 } });
  assert.equal(tight.toolsCallParams("n".repeat(64), undefined, {}, {}).name.length, 64);
  const e = typed(() => tight.toolsCallParams("n".repeat(65), undefined, {}, {}), "limit-exceeded");
  assert.equal(e.path, "/name");
  // Default limits (16 MiB): a 20 MB name is refused and the wasm memory does not grow.
  const conn = new mcp.Connection();
  const before = mcp.wasmMemoryBytes();
  typed(() => conn.toolsCallParams("n".repeat(20_000_000), undefined, {}, {}), "limit-exceeded");
  assert.equal(mcp.wasmMemoryBytes(), before);
});

test("defect 4: limits stop the serialisation of a JS value early (reads counted)", () => {
  const { conn, host, server } = setup();
  // A 10^8-item array: refused on its length, no item read.
  const huge = countingArray(100_000_000, () => 1);
  typed(() => host.route(PROGRAMMATIC, resultOf(output(1), huge.proxy)), "limit-exceeded", "route");
  typed(() => host.check(PROGRAMMATIC, { outputs: huge.proxy }), "limit-exceeded", "check");
  typed(() => server.respond(conn, PROGRAMMATIC, { outputs: huge.proxy }), "limit-exceeded", "respond");
  assert.equal(huge.counter.reads, 0);
  const sparse = [];
  sparse.length = 100_000_000;
  const e = typed(() => host.route(PROGRAMMATIC, { resultType: "complete", outputs: [output(1)], x: sparse }), "limit-exceeded");
  assert.equal(e.path, "/x");

  // toolsListResult of 10^6 tools: refused on the count, no tool read or advertised.
  const tools = countingArray(1_000_000, () => ({ name: "t" }));
  const list = typed(() => conn.toolsListResult(tools.proxy), "limit-exceeded", "toolsListResult");
  assert.equal(list.path, "/tools");
  assert.equal(tools.counter.reads, 0);

  // Bytes: the walk stops as soon as the text passes maxBytes, not at the end of the value.
  const small = setup({ limits: { maxBytes: 1000 } });
  const big = countingArray(50_000, () => "x".repeat(100));
  typed(() => small.host.check(PROGRAMMATIC, { outputs: big.proxy }), "limit-exceeded", "bytes");
  assert.ok(big.counter.reads <= 11, `${big.counter.reads} items read`);

  // Depth: refused at the first level past maxDepth, however deep the value goes.
  let reads = 0;
  const deep = (level) => ({
    get inner() {
      reads++;
      return level === 0 ? 1 : deep(level - 1);
    },
  });
  typed(() => host.check(PROGRAMMATIC, { outputs: [deep(100_000)] }), "limit-exceeded", "depth");
  assert.ok(reads <= 130, `${reads} levels read`);
  // Object members: refused at the first member past maxObjectLen.
  const wide = setup({ limits: { maxObjectLen: 10 } });
  let memberReads = 0;
  const members = new Proxy(
    {},
    {
      ownKeys: () => Array.from({ length: 100_000 }, (_, i) => `k${i}`),
      getOwnPropertyDescriptor: () => ({ value: 1, enumerable: true, configurable: true }),
      get: () => {
        memberReads++;
        return 1;
      },
    },
  );
  typed(() => wide.host.check(PROGRAMMATIC, { outputs: [members] }), "limit-exceeded", "members");
  // Ten members written, the eleventh read and refused (plus the one read of `toJSON`).
  assert.ok(memberReads <= 12, `${memberReads} members read`);
  // The error names where the cap was passed.
  const tooWide = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i]));
  assert.equal(typed(() => wide.host.check(PROGRAMMATIC, resultOf({ a: tooWide })), "limit-exceeded").path, "/outputs/0/a");
  const arrays = setup({ limits: { maxArrayLen: 3 } });
  assert.equal(typed(() => arrays.host.check(PROGRAMMATIC, resultOf({ a: [1, 2, 3, 4] })), "limit-exceeded").path, "/outputs/0/a");
});

test("defect 5: a huge JSON-text argument is a typed limit-exceeded, checked before it is copied", () => {
  const { conn, server, host } = setup();
  const text = "[" + " ".repeat(40_000_000) + "]";
  const before = mcp.wasmMemoryBytes();
  typed(() => host.checkText(undefined, text), "limit-exceeded", "checkText");
  typed(() => host.routeText(undefined, text), "limit-exceeded", "routeText");
  typed(() => host.checkText(text, "{}"), "limit-exceeded", "requestedOutputs");
  typed(() => server.respondText(conn, undefined, text), "limit-exceeded", "respondText");
  typed(() => server.selectText(conn, text), "limit-exceeded", "selectText");
  assert.equal(mcp.wasmMemoryBytes(), before, "nothing was copied into the wasm memory");
  // A huge string inside a value is refused by the walk, before any copy.
  typed(() => host.check(PROGRAMMATIC, resultOf(output("x".repeat(20_000_000)))), "limit-exceeded", "value");
  assert.equal(mcp.wasmMemoryBytes(), before);
});

test("defect 6: NaN and ±Infinity are malformed, never silently null", () => {
  const { conn, server, host } = setup();
  for (const bad of [NaN, Infinity, -Infinity]) {
    const r = typed(() => host.route(PROGRAMMATIC, resultOf(output(bad))), "malformed", `route ${bad}`);
    assert.equal(r.path, "/outputs/0/structuredContent/n");
    typed(() => host.check(PROGRAMMATIC, resultOf(output(bad))), "malformed", `check ${bad}`);
    typed(() => server.respond(conn, PROGRAMMATIC, { outputs: [output(bad)] }), "malformed", `respond ${bad}`);
    const p = typed(() => conn.toolsCallParams("t", { limit: bad }, {}, {}), "malformed", `toolsCallParams ${bad}`);
    assert.equal(p.path, "/limit");
    typed(() => new mcp.Connection({ negotiated: [bad] }), "malformed", `connection ${bad}`);
    typed(() => mcp.runOperation("declare", { tool: { ...TOOL, x: bad } }), "malformed", `runOperation ${bad}`);
    typed(() => host.check(PROGRAMMATIC, resultOf(output(new Number(bad)))), "malformed", `boxed ${bad}`);
  }
  // Finite numbers, -0 and boxed primitives serialise as JSON.stringify writes them.
  const route = host.route(PROGRAMMATIC, resultOf({ ...output(new Number(-0)), extra: [new String("s"), new Boolean(false)] }));
  assert.deepEqual(route.programmatic[0], { ...output(0), extra: ["s", false] });
});

test("defect 7: route returns exactly the outputs it checked (toJSON, getters, Proxies)", () => {
  const { host } = setup();
  const checked = output(1);
  const swapped = output("not an integer");

  // A toJSON that serialises one value while `outputs` holds another.
  const viaToJSON = { outputs: [swapped], toJSON: () => resultOf(checked) };
  assert.deepEqual(host.route(PROGRAMMATIC, viaToJSON).programmatic, [checked]);
  // A toJSON whose value has no `outputs` property at all (was a raw TypeError).
  const bare = { toJSON: () => resultOf(checked) };
  assert.deepEqual(host.route(PROGRAMMATIC, bare).programmatic, [checked]);
  // A getter that answers the valid outputs once, then others.
  let reads = 0;
  const viaGetter = {
    resultType: "complete",
    get outputs() {
      reads++;
      return reads === 1 ? [checked] : [swapped];
    },
  };
  assert.deepEqual(host.route(PROGRAMMATIC, viaGetter).programmatic, [checked]);
  assert.equal(reads, 1, "outputs is read once");
  // A Proxy that swaps the output element after its first read.
  let elementReads = 0;
  const outputs = new Proxy([checked], {
    get(target, key) {
      if (key === "0") return elementReads++ === 0 ? checked : swapped;
      return Reflect.get(target, key);
    },
  });
  const route = host.route(PROGRAMMATIC, { resultType: "complete", outputs });
  assert.deepEqual(route.programmatic, [checked]);
  assert.equal(elementReads, 1);
  // A getter inside an output: the route holds the value that was checked.
  let inner = 0;
  const shifty = {
    audience: "programmatic",
    format: "structured",
    get structuredContent() {
      return inner++ === 0 ? { n: 1 } : { n: "swapped" };
    },
  };
  const shiftyRoute = host.route(PROGRAMMATIC, resultOf(shifty));
  assert.deepEqual(shiftyRoute.programmatic[0].structuredContent, { n: 1 });
  assert.equal(inner, 1);
  // The same output in two lists is one object.
  const twice = host.route(undefined, resultOf({ audience: "assistant", format: "content", content: [{ type: "text", text: "x" }] }));
  assert.deepEqual(twice.model[0].content, [{ type: "text", text: "x" }]);
});

test("defect 11: every misuse of the API is a McpOutputsError with a code", () => {
  const { conn, server, host } = setup();
  const wrongConnections = [{}, null, undefined, "conn", 1, [], server, host];
  for (const wrong of wrongConnections) {
    typed(() => server.advertise(wrong), "malformed", `advertise(${typeof wrong})`);
    typed(() => server.select(wrong, undefined), "malformed", "select");
    typed(() => server.respond(wrong, undefined, { outputs: [] }), "malformed", "respond");
    typed(() => server.respondText(wrong, undefined, "{}"), "malformed", "respondText");
    typed(() => server.selectText(wrong, undefined), "malformed", "selectText");
    typed(() => mcp.acceptTool(TOOL, wrong), "malformed", "acceptTool");
  }
  // Methods called on something that is not the package's handle.
  typed(() => mcp.ServerTool.prototype.advertise.call({}, conn), "malformed", "this");
  typed(() => mcp.ReceivedTool.prototype.check.call(null, undefined, {}), "malformed", "this null");
  typed(() => new mcp.ServerTool().name, "malformed", "a handle not made by the package");
  typed(() => Object.getOwnPropertyDescriptor(mcp.Connection.prototype, "protocolVersion").get.call({}), "malformed", "getter");
  // Wrong element types.
  typed(() => conn.toolsListResult([server, 7]), "malformed", "a number as a tool");
  typed(() => conn.toolsListResult([Symbol("s")]), "malformed", "a symbol as a tool");
  typed(() => conn.toolsCallParams(null, {}, {}, {}), "malformed", "name");
  // Freed handles, every method; a second free does nothing.
  const freed = setup();
  freed.host.free();
  freed.server.free();
  freed.server.free();
  for (const [label, fn] of Object.entries({
    plan: () => freed.host.plan({ mode: "code" }),
    check: () => freed.host.check(undefined, resultOf()),
    checkText: () => freed.host.checkText(undefined, "{}"),
    route: () => freed.host.route(undefined, resultOf()),
    warnings: () => freed.host.warnings,
    name: () => freed.server.name,
    advertise: () => freed.server.advertise(conn),
    respond: () => freed.server.respond(conn, undefined, { outputs: [] }),
    "a freed tool in a list": () => conn.toolsListResult([freed.server]),
  })) {
    const e = typed(fn, "malformed", label);
    assert.match(e.message, /freed/, label);
  }
  freed.conn.free();
  typed(() => server.advertise(freed.conn), "malformed", "a freed connection");
  typed(() => freed.conn.protocolVersion, "malformed", "a freed connection's version");
  // The live handles still answer.
  assert.equal(host.route(PROGRAMMATIC, resultOf(output(1))).programmatic.length, 1);
});

test("defect 12: echoed values are cut, a getter's RangeError is its own, bad options are refused", () => {
  const { conn, server } = setup();
  const huge = "a".repeat(10_000_000);
  const e = typed(() => server.select(conn, [{ audience: huge, format: "content" }]), "invalid-audience");
  assert.ok(e.message.length < 1000, `${e.message.length} characters`);
  assert.ok(JSON.stringify(e.toJsonRpcError()).length < 1500);
  assert.ok(JSON.stringify(e).length < 3000);
  const version = typed(() => new mcp.Connection({ protocolVersion: huge }), "invalid-protocol-version");
  assert.ok(version.message.length < 1000);
  // A getter that throws a RangeError of its own is not "nested too deeply".
  const boom = new RangeError("the caller's own range error");
  const r = typed(
    () =>
      server.respond(conn, undefined, {
        get outputs() {
          throw boom;
        },
      }),
    "malformed",
  );
  assert.equal(r.cause, boom);
  assert.equal(r.path, "/outputs");
  assert.doesNotMatch(r.message, /nested/);
  typed(() => server.respond(conn, undefined, { toJSON: () => { throw new TypeError("t"); } }), "malformed", "toJSON throws");
  typed(() => server.respond(conn, undefined, { outputs: [], n: 1n }), "malformed", "a BigInt");
  // Options that are not an object, or name no option, are refused (were silently ignored).
  for (const bad of ["x", 7, true, [], () => 1]) {
    typed(() => new mcp.Connection({}, bad), "malformed", `Connection options ${String(bad)}`);
    typed(() => mcp.declareTool(TOOL, bad), "malformed", `declareTool options ${String(bad)}`);
    typed(() => mcp.Connection.negotiate({ protocolVersion: "2026-12-01", clientCapabilities: {}, serverCapabilities: {} }, bad), "malformed", "negotiate");
    typed(() => mcp.migrateTool({ name: "x", inputSchema: { type: "object" } }, undefined, bad), "malformed", "migrateTool");
  }
  typed(() => new mcp.Connection({}, { limit: { maxDepth: 3 } }), "malformed", "a misspelt option");
  typed(() => new mcp.Connection({}, { limits: { maxDepth: "3" } }), "malformed", "a limit that is not a number");
  assert.equal(mcp.declareTool(TOOL, { legacy: {} }).name, "t");
  assert.equal(new mcp.Connection({}, null).protocolVersion, "2026-12-01");
});

test("R-3: a trap inside the wasm is recovered: the same handles keep answering", () => {
  const { conn, server, host } = setup();
  const result = server.respond(conn, PROGRAMMATIC, { outputs: [output(3)] });
  const baseline = host.route(PROGRAMMATIC, result);
  const freed = mcp.declareTool(TOOL);
  freed.free();
  const negotiated = mcp.Connection.negotiate({
    protocolVersion: "2026-12-01",
    clientCapabilities: { extensions: { [APPS]: { mimeTypes: ["text/html;profile=mcp-app"] } } },
    serverCapabilities: { extensions: { [APPS]: {} } },
  });
  const forceTrap = mcp.Connection[Symbol.for("mcp-outputs.forceTrapForTest")];
  for (let round = 0; round < 3; round++) {
    const e = typed(forceTrap, "malformed", "the trap");
    assert.ok(e.cause instanceof WebAssembly.RuntimeError, String(e.cause));
    assert.match(e.message, /internal error/);
    // Handles made before the trap answer as before, rebuilt on the new instance.
    assert.deepEqual(host.route(PROGRAMMATIC, result), baseline, `round ${round}`);
    assert.deepEqual(server.respond(conn, PROGRAMMATIC, { outputs: [output(3)] }), result);
    assert.deepEqual(negotiated.negotiated, [APPS]);
    assert.equal(conn.protocolVersion, "2026-12-01");
    typed(() => host.check(PROGRAMMATIC, resultOf(output("x"))), "schema-violation");
    typed(() => freed.name, "malformed", "a handle freed before the trap stays freed");
    // New handles too.
    const again = setup();
    assert.deepEqual(again.host.route(PROGRAMMATIC, result), baseline);
    again.host.free();
  }
  assert.ok(mcp.wasmMemoryBytes() > 0);
});

test("memory: every error path, repeated, leaves the wasm memory flat (short form of `make bench`)", () => {
  const { paths, run } = errorPaths(mcp);
  assert.ok(paths.length >= 15);
  run(paths.length * 50);
  const warm = mcp.wasmMemoryBytes();
  run(paths.length * 500);
  assert.equal(mcp.wasmMemoryBytes(), warm);
});


test("the limits walk writes what JSON.stringify writes, for every finite JSON-able value", () => {
  // requestParams on a 2025-06-18 connection gives back its params unchanged: what the walk wrote.
  const old = new mcp.Connection({ protocolVersion: "2025-06-18" });
  const dated = new Date(Date.UTC(2026, 11, 2));
  const withKey = { toJSON: (key) => `key:${key}` };
  const values = [
    null, true, false, 0, -0, 1.5e300, -2.5e-300, "", "é😀\u0000\u001f\"\\/", [], {}, [[[]]],
    [undefined, () => 1, Symbol("s"), 1], { a: undefined, b: () => 1, c: Symbol("s"), d: 1 },
    dated, { dated, nested: { toJSON: () => ({ inner: [withKey] }) } }, { withKey }, [withKey],
    new String("boxed"), [new Number(3), new Boolean(true)], Object.create(null, { x: { value: 1, enumerable: true } }),
    { [Symbol("hidden")]: 1, visible: 2 }, Object.defineProperty({}, "hidden", { value: 1, enumerable: false }),
    Array.from({ length: 50 }, (_, i) => ({ i, s: "x".repeat(i), a: [i, [i]] })),
  ];
  for (const value of values) {
    const params = { v: value };
    assert.deepEqual(old.requestParams(params, {}), JSON.parse(JSON.stringify(params)), JSON.stringify(params));
  }
  // A shared (not cyclic) value is written at each place, as JSON.stringify does.
  const shared = { s: 1 };
  assert.deepEqual(old.requestParams({ a: shared, b: [shared, shared] }, {}), { a: shared, b: [shared, shared] });
  // A cycle is malformed (not a limit), wherever it closes.
  const cyclic = { a: [{}] };
  cyclic.a[0].back = cyclic;
  typed(() => old.requestParams(cyclic, {}), "malformed", "cycle");
});
