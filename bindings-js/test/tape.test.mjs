// The tape (issue 21, "one reader"; docs/boundary.md): a result made of plain data crosses into
// the wasm as a tape written in one pass, and the core's answer names the caller's own outputs.
// The default build holds the payloads here (its answer names the caller's own payloads too);
// the full build writes them into the tape, and validates them there. Anything else is read once
// into a snapshot (a tape that holds nothing: snapshot.test.mjs). Each test checks which path a
// call took (the engine counts the tapes of plain data it reads, and the snapshots apart) and
// that the paths answer alike.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FLAVOUR, mcp, providers } from "./flavour.mjs";

const tapeReads = mcp.Connection[Symbol.for("mcp-outputs.tapeReadsForTest")];
const snapshotReads = mcp.Connection[Symbol.for("mcp-outputs.snapshotReadsForTest")];
const APPS = "io.modelcontextprotocol/ui";
const schema = {
  type: "object",
  properties: { items: { type: "array", items: { type: "object", properties: { id: { type: "string", pattern: "^c[0-9]+$" } } } } },
  required: ["items"],
};
const tool = {
  name: "t",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    { audience: "programmatic", format: "structured", schema },
    { audience: APPS, format: "structured", schema: { type: "object" } },
  ],
  _meta: { ui: { resourceUri: "ui://t/view.html" } },
};
const requested = [
  { audience: "assistant", format: "content" },
  { audience: "programmatic", format: "structured" },
];
const text = (t) => ({ audience: "assistant", format: "content", content: [{ type: "text", text: t }] });
const structured = (payload, audience = "programmatic") => ({ audience, format: "structured", structuredContent: payload });
const host = (version = "2026-12-01", negotiated = [APPS]) =>
  mcp.ReceivedTool.accept(tool, new mcp.Connection({ protocolVersion: version, negotiated }));

/** The calls `fn` made that read a tape. */
function tapesRead(fn) {
  const before = tapeReads();
  const answer = fn();
  return [tapeReads() - before, answer];
}

/** A payload in an answer: the caller's own (default build), or a copy of it read from the
 * tape, which holds it (full build). */
function handedBack(actual, payload, message) {
  if (FLAVOUR === "full") {
    assert.notEqual(actual, payload, message);
    assert.deepEqual(actual, payload, message);
  } else assert.equal(actual, payload, message);
}

const outcome = (fn) => {
  try {
    return { ok: fn() };
  } catch (e) {
    return { code: e.code, path: e.path, message: e.message };
  }
};

test("a plain result crosses as a tape, and the route hands back the caller's own objects", () => {
  const h = host();
  const payload = { items: [{ id: "c1" }, { id: "c2", note: "é😀\u2028" }] };
  const result = { resultType: "complete", outputs: [structured(payload), text("hi")] };
  const [reads, route] = tapesRead(() => h.route(requested, result));
  assert.equal(reads, 1);
  assert.equal(route.programmatic[0], result.outputs[0]);
  assert.equal(route.programmatic[0].structuredContent, payload);
  assert.equal(route.model[0], result.outputs[1]);
  assert.deepEqual(route, h.routeText(JSON.stringify(requested), JSON.stringify(result)));
  const [checks, checked] = tapesRead(() => h.check(requested, result));
  assert.equal(checks, 1);
  assert.deepEqual(checked, {});
});

test("the View carries the caller's payload; the legacy Apps View the caller's result", () => {
  const ui = { openDialog: true };
  const request = [...requested, { audience: APPS, format: "structured" }];
  const result = {
    outputs: [text("hi"), structured({ items: [] }), structured(ui, APPS)],
    _meta: { [APPS]: { frame: 1 }, trace: "x" },
  };
  const [reads, route] = tapesRead(() => host("2026-12-01", [APPS]).route(request, result));
  assert.equal(reads, 1);
  handedBack(route.view.structuredContent, ui);
  assert.deepEqual(route.view._meta, { [APPS]: { frame: 1 } });
  assert.deepEqual(route.dropped, [{ meta: "trace" }]);
  const legacyTool = { name: "t", inputSchema: { type: "object" }, outputSchema: schema, _meta: tool._meta };
  const legacyHost = mcp.ReceivedTool.accept(legacyTool, new mcp.Connection({ protocolVersion: "2025-06-18", negotiated: [APPS] }));
  const payload = { items: [{ id: "c3" }] };
  const legacy = { content: [{ type: "text", text: "x" }], structuredContent: payload };
  const [legacyReads, legacyRoute] = tapesRead(() => legacyHost.route(undefined, legacy));
  assert.equal(legacyReads, 1);
  handedBack(legacyRoute.view.structuredContent, payload);
  assert.deepEqual(legacyRoute.view, legacy);
});

test("faults read from a tape are the text path's", () => {
  const h = host();
  for (const result of [
    { outputs: [structured({ items: [{ id: "x" }] }), text("hi")] },
    { outputs: [structured({ items: "no" }), text("hi")] },
    { outputs: [structured({ items: [] })] },
    { outputs: [structured({ items: [] }), text("a"), text("b")] },
    { outputs: [{ audience: "programmatic", format: "content", content: [] }, text("hi")] },
    { outputs: "no" },
    { outputs: [text("hi"), structured({ items: [] })], isError: "yes" },
    [1, 2],
    "a string",
    { resultType: "input_required", inputRequests: {} },
    { resultType: "task", task: {} },
  ]) {
    for (const request of [requested, undefined, [{ audience: "nope", format: "content" }]]) {
      const [reads, onTape] = tapesRead(() => outcome(() => h.route(request, result)));
      assert.equal(reads, 1, JSON.stringify(result));
      const onText = outcome(() => h.routeText(request === undefined ? undefined : JSON.stringify(request), JSON.stringify(result)));
      assert.deepEqual(onTape, onText, JSON.stringify([request, result]));
      assert.deepEqual(
        outcome(() => h.check(request, result)),
        outcome(() => h.checkText(request === undefined ? undefined : JSON.stringify(request), JSON.stringify(result))),
      );
    }
  }
});

test("a result that is not plain data is read once, into a snapshot", () => {
  const h = host();
  let reads = 0;
  const output = text("hi");
  Object.defineProperty(output, "format", { enumerable: true, get: () => (reads++, "content") });
  for (const result of [
    { outputs: [structured({ items: [] }), output] },
    { outputs: [structured({ items: [], when: new Date(0) }), text("hi")] },
    { outputs: [structured({ items: [], n: 1n }), text("hi")] },
    { outputs: [structured({ items: [] }), text("lone \ud800")] },
    { outputs: [structured({ items: [], skip: undefined }), text("hi")] },
    { outputs: new Proxy([structured({ items: [] }), text("hi")], {}) },
  ]) {
    const snapshots = snapshotReads();
    const [tapes] = tapesRead(() => outcome(() => h.route(requested, result)));
    assert.equal(tapes, 0);
    // (A BigInt is refused by the walk, before anything crosses.)
    assert.equal(snapshotReads() - snapshots, result.outputs[0]?.structuredContent?.n === 1n ? 0 : 1);
  }
  assert.equal(reads, 1, "the getter ran once: the tape reads by descriptor, the snapshot read it");
});

// The writer and `measure` tell an accessor apart without a descriptor object (`__lookupGetter__`,
// and `Object.hasOwn` for an array's index): an accessor with no getter, a hole (whose lookup
// would walk the prototypes) and an index getter of `outputs` are not plain data either. Each
// is read into a snapshot, runs no code of the value's on the way, and answers as its text does.
test("a setter without a getter, a hole, an index getter of outputs: not plain, a snapshot's", () => {
  const h = host();
  let sets = 0;
  let gets = 0;
  const setterOnly = (v) => Object.defineProperty(v, "extra", { enumerable: true, set: () => sets++ });
  const indexGetter = [structured({ items: [] })];
  Object.defineProperty(indexGetter, 1, { enumerable: true, get: () => (gets++, text("hi")) });
  const cases = [
    { outputs: [structured(setterOnly({ items: [{ id: "c1" }] })), text("hi")] },
    { outputs: [setterOnly(structured({ items: [] })), text("hi")] },
    // eslint-disable-next-line no-sparse-arrays
    { outputs: [structured({ items: [{ id: "c1" }, , { id: "c2" }] }), text("hi")] },
    // eslint-disable-next-line no-sparse-arrays
    { outputs: [structured({ items: [], tags: ["a", , "b"] }), text("hi")] },
    // eslint-disable-next-line no-sparse-arrays
    { outputs: [structured({ items: [] }), , text("hi")] },
    { outputs: indexGetter },
  ];
  for (const [i, result] of cases.entries()) {
    for (const call of ["route", "check"]) {
      const before = gets;
      const [tapes, got] = tapesRead(() => outcome(() => h[call](requested, result)));
      assert.equal(tapes, 0, `case ${i} ${call}: not plain data, yet read as a tape`);
      // The snapshot reads each value once: the index getter once per call, the setter never.
      assert.equal(gets - before, i === 5 ? 1 : 0, `case ${i} ${call}`);
      const expected = outcome(() => h[`${call}Text`](JSON.stringify(requested), JSON.stringify(result)));
      assert.deepEqual(got, expected, `case ${i} ${call}: answers as its text`);
    }
  }
  assert.equal(sets, 0, "no setter ran");
});

// A snapshot's route is copies of what was checked, written by the core; a value another script
// put on Array.prototype at an output's index is never handed back instead.
test("a snapshot's routed outputs are copies of what was checked, whatever Array.prototype holds", () => {
  const h = host();
  const output = text("hi");
  Object.defineProperty(output, "format", { enumerable: true, get: () => "content" });
  const result = { outputs: [structured({ items: [{ id: "c1" }] }), output] };
  const planted = { planted: true };
  Object.defineProperty(Array.prototype, 0, { value: planted, writable: true, configurable: true });
  Object.defineProperty(Array.prototype, 1, { value: planted, writable: true, configurable: true });
  let route;
  try {
    const [tapes, got] = tapesRead(() => h.route(requested, result));
    assert.equal(tapes, 0, "not plain data: a snapshot");
    route = got;
  } finally {
    delete Array.prototype[0];
    delete Array.prototype[1];
  }
  assert.deepEqual(route.programmatic, [{ audience: "programmatic", format: "structured", structuredContent: { items: [{ id: "c1" }] } }]);
  assert.deepEqual(route.model, [text("hi")]);
});

test("a large result grows the tape's areas and answers as its text", () => {
  const h = host();
  const many = (n) => ({ items: Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: "n".repeat(i % 40) + "é" })) });
  for (const n of [1, 100, 2000, 8000]) {
    const result = { outputs: [structured(many(n)), text("x".repeat(n))], _meta: { nums: Array.from({ length: n }, (_, i) => i + 0.5) } };
    const [reads, route] = tapesRead(() => h.route(requested, result));
    assert.equal(reads, 1);
    assert.equal(route.programmatic[0], result.outputs[0]);
    assert.deepEqual(route, h.routeText(JSON.stringify(requested), JSON.stringify(result)));
  }
  // Near maxBytes, the exact size is counted on the text the snapshot stands for.
  const tight = mcp.ReceivedTool.accept(tool, new mcp.Connection({ negotiated: [APPS] }, { limits: { maxBytes: 3000 } }));
  const result = { outputs: [structured(many(20)), text("hi")] };
  const [reads] = tapesRead(() => outcome(() => tight.route(requested, result)));
  assert.equal(reads, 0);
  assert.deepEqual(outcome(() => tight.route(requested, result)), outcome(() => tight.routeText(JSON.stringify(requested), JSON.stringify(result))));
});

test("respond reads plain produced outputs from a tape; its faults are the text path's", () => {
  const server = mcp.ServerTool.declare(tool);
  const payload = { items: [{ id: "c1" }] };
  for (const version of ["2026-12-01", "2025-06-18", "2025-03-26"]) {
    const conn = new mcp.Connection({ protocolVersion: version, negotiated: [APPS] });
    const request = version === "2026-12-01" ? requested : undefined;
    const ui = { openDialog: true };
    const produced = { outputs: [text("hi"), structured(payload), structured(ui, APPS)], _meta: { trace: "t" } };
    const [reads, result] = tapesRead(() => server.respond(conn, request, produced));
    assert.equal(reads, 1, version);
    assert.deepEqual(result, JSON.parse(server.respondText(conn, request && JSON.stringify(request), JSON.stringify(produced))));
    if (version === "2026-12-01") handedBack(result.outputs[1].structuredContent, payload);
    else if (version === "2025-06-18") handedBack(result.structuredContent, ui, "the legacy projection carries the caller's payload");
    for (const bad of [
      { outputs: [text("hi")] },
      { outputs: [text("hi"), structured({ items: "no" }), structured({}, APPS)] },
      { outputs: [text("hi"), text("again"), structured(payload)] },
      { outputs: "no" },
      { outputs: [text("hi"), structured(payload)], isError: 1 },
      { outputs: [text("hi"), structured(payload), structured([1], APPS)] },
    ]) {
      for (const req of [request, [{ audience: "nope", format: "content" }]]) {
        const [tapes, onTape] = tapesRead(() => outcome(() => server.respond(conn, req, bad)));
        assert.equal(tapes, 1);
        const onText = outcome(() => JSON.parse(server.respondText(conn, req && JSON.stringify(req), JSON.stringify(bad))));
        assert.deepEqual(onTape, onText, JSON.stringify([version, req, bad]));
      }
    }
  }
  // Not plain: a snapshot, which reads it once.
  const [tapes] = tapesRead(() => server.respond(new mcp.Connection({ negotiated: [APPS] }), requested, { outputs: [text("hi"), structured({ items: [], when: new Date(0) })] }));
  assert.equal(tapes, 0);
});

test("the full build validates the payloads written into the tape, the caller's validator never asked", { skip: FLAVOUR !== "full" && "the default build holds them" }, () => {
  const h = host();
  const result = { outputs: [structured({ items: [{ id: "c1" }, { id: "nope" }] }), text("hi")] };
  const [reads, onTape] = tapesRead(() => outcome(() => h.route(requested, result)));
  assert.equal(reads, 1);
  assert.equal(onTape.code, "schema-violation");
  assert.equal(onTape.path, "/outputs/0/structuredContent/items/1/id");
  assert.deepEqual(onTape, outcome(() => h.routeText(JSON.stringify(requested), JSON.stringify(result))));
  // The text entries parse into a tape of their own, not one written here.
  const [textReads] = tapesRead(() => outcome(() => h.checkText(JSON.stringify(requested), JSON.stringify(result))));
  assert.equal(textReads, 0);
});

// The default build's one host seam (docs/boundary.md, "Host validator ↔ core"): a held payload
// is validated by its slot, with the caller's own object; the regex budget reads whether it has
// strings or member names from its held node; the validator's own failures answer as before.
const DEFAULT_ONLY = { skip: FLAVOUR === "full" && "the full build validates inside the wasm" };

test("a held payload is validated by its slot, the caller's own object given to the validator", DEFAULT_ONLY, () => {
  const seen = [];
  const base = providers[FLAVOUR]();
  const recording = {
    getValidator(schema) {
      const validate = base.getValidator(schema);
      return (instance) => {
        seen.push(instance);
        return validate(instance);
      };
    },
  };
  const conn = new mcp.Connection({ negotiated: [APPS] }, { validator: recording });
  const h = mcp.ReceivedTool.accept(tool, conn);
  const payload = { items: [{ id: "c1" }] };
  const [reads] = tapesRead(() => h.check(requested, { outputs: [structured(payload), text("hi")] }));
  assert.equal(reads, 1);
  assert.equal(seen.length, 1);
  assert.equal(seen[0], payload, "the held payload itself");
  // Invalid, by slot: the violation's path is below the payload's.
  const bad = { items: [{ id: "c1" }, { id: "nope" }] };
  const onTape = outcome(() => h.route(requested, { outputs: [text("hi"), structured(bad)] }));
  assert.equal(onTape.code, "schema-violation");
  assert.equal(seen.at(-1), bad);
  assert.deepEqual(onTape, outcome(() => h.routeText(JSON.stringify(requested), JSON.stringify({ outputs: [text("hi"), structured(bad)] }))));
  // The text path's payload is parsed from the text it checked: a copy.
  h.checkText(JSON.stringify(requested), JSON.stringify({ outputs: [structured(payload), text("hi")] }));
  assert.notEqual(seen.at(-1), payload);
  assert.deepEqual(seen.at(-1), payload);
  // A server's respond holds each produced payload too.
  const server = mcp.ServerTool.declare(tool, { validator: recording });
  const before = seen.length;
  const answer = server.respond(conn, requested, { outputs: [text("hi"), structured(payload)] });
  assert.equal(seen.length, before + 1);
  assert.equal(seen.at(-1), payload);
  assert.equal(answer.outputs[1].structuredContent, payload);
});

test("the regex budget: a held payload with strings or member names is refused, one without is validated", DEFAULT_ONLY, () => {
  // No type: every JSON value may be valid; the pattern can backtrack without bound.
  const hostile = { properties: { a: { type: "string", pattern: "^(a+)+$" } } };
  const t = { ...tool, outputVariants: [tool.outputVariants[0], { audience: "programmatic", format: "structured", schema: hostile }] };
  const conn = new mcp.Connection({ negotiated: [APPS] });
  const h = mcp.ReceivedTool.accept(t, conn);
  const server = mcp.ServerTool.declare(t);
  const cases = [
    [{}, true],
    [[], true],
    [[1, [null, true, [{}]]], true],
    [null, true],
    [5, true],
    [{ a: "aaa" }, false],
    [{ b: 1 }, false],
    ["s", false],
    [[[{ x: 1 }]], false],
    [[1, ["x"]], false],
  ];
  for (const [payload, runs] of cases) {
    const result = { outputs: [structured(payload), text("hi")] };
    const [reads, onTape] = tapesRead(() => outcome(() => h.check(requested, result)));
    assert.equal(reads, 1, JSON.stringify(payload));
    const expected = runs
      ? { ok: {} }
      : { code: "limit-exceeded", path: "/outputs/0/structuredContent", message: onTape.message ?? "" };
    assert.deepEqual(onTape, expected, JSON.stringify(payload));
    if (!runs) assert.match(onTape.message, /regex budget/);
    assert.deepEqual(onTape, outcome(() => h.checkText(JSON.stringify(requested), JSON.stringify(result))), JSON.stringify(payload));
    const produced = { outputs: [text("hi"), structured(payload)] };
    const [respondReads, responded] = tapesRead(() => outcome(() => server.respond(conn, requested, produced)));
    assert.equal(respondReads, 1);
    assert.equal(responded.code, runs ? undefined : "limit-exceeded", JSON.stringify(payload));
  }
  // The legacy top-level structuredContent is held too.
  const legacyTool = { name: "t", inputSchema: { type: "object" }, outputSchema: { type: "object", ...hostile } };
  const legacyHost = mcp.ReceivedTool.accept(legacyTool, new mcp.Connection({ protocolVersion: "2025-06-18" }));
  for (const [payload, runs] of [[{}, true], [{ a: "aaa" }, false]]) {
    const result = { content: [], structuredContent: payload };
    const [reads, onTape] = tapesRead(() => outcome(() => legacyHost.check(undefined, result)));
    assert.equal(reads, 1);
    assert.equal(onTape.code, runs ? undefined : "limit-exceeded", JSON.stringify(payload));
    assert.deepEqual(onTape, outcome(() => legacyHost.checkText(undefined, JSON.stringify(result))));
  }
});

test("a validator's own failures are placed at the payload, held or not", DEFAULT_ONLY, () => {
  // One rule for the host's faults, whichever way the payload crossed (docs/boundary.md, "Host
  // validator ↔ core"): the validator's failure at the payload's path, as its verdict would be.
  const answers = {
    malformed: () => {
      throw new TypeError("broken");
    },
    "limit-exceeded": () => {
      throw new RangeError("Maximum call stack size exceeded");
    },
    "invalid-validator": () => true,
    "schema-violation": () => ({ valid: false, errorMessage: "no", instancePath: "/items" }),
  };
  const messages = {
    malformed: "the JSON Schema validator threw: broken",
    "limit-exceeded": "the JSON Schema validator threw: Maximum call stack size exceeded",
    "invalid-validator":
      "the validator's function must answer {valid: boolean, errorMessage?: string} synchronously (the MCP SDKs' jsonSchemaValidator shape), not boolean: wrap a compiled Ajv function as (v) => ({valid: fn(v), errorMessage: ajv.errorsText(fn.errors)})",
  };
  const result = { outputs: [text("hi"), structured({ items: [] })] };
  const notPlain = { outputs: [text("hi"), structured({ items: [], when: new Date(0) })] };
  const legacyTool = { name: "t", inputSchema: { type: "object" }, outputSchema: { type: "object" } };
  const legacy = { content: [], structuredContent: { items: [] } };
  for (const [code, validate] of Object.entries(answers)) {
    const validator = { getValidator: () => validate };
    const conn = new mcp.Connection({ negotiated: [APPS] }, { validator });
    const h = mcp.ReceivedTool.accept(tool, conn);
    const server = mcp.ServerTool.declare(tool, { validator });
    const violation = code === "schema-violation";
    const expected = {
      code,
      path: violation ? "/outputs/1/structuredContent/items" : "/outputs/1/structuredContent",
      message: `the programmatic/structured output: ${violation ? "the value does not match its schema: no" : messages[code]}`,
    };
    const [reads, onTape] = tapesRead(() => outcome(() => h.check(requested, result)));
    assert.equal(reads, 1);
    assert.deepEqual(onTape, expected, code);
    assert.deepEqual(outcome(() => h.checkText(JSON.stringify(requested), JSON.stringify(result))), expected, code);
    const [respondReads, responded] = tapesRead(() => outcome(() => server.respond(conn, requested, result)));
    assert.equal(respondReads, 1);
    assert.deepEqual(responded, expected, code);
    assert.deepEqual(outcome(() => server.respond(conn, requested, notPlain)), expected, code);
    // The legacy top-level payload.
    const lh = mcp.ReceivedTool.accept(legacyTool, new mcp.Connection({ protocolVersion: "2025-06-18" }, { validator }));
    const [legacyReads, legacyOnTape] = tapesRead(() => outcome(() => lh.check(undefined, legacy)));
    assert.equal(legacyReads, 1);
    const legacyOnText = outcome(() => lh.checkText(undefined, JSON.stringify(legacy)));
    if (violation) {
      const refused = { code, path: "/structuredContent/items", message: "structuredContent does not match its schema: no" };
      assert.deepEqual([legacyOnTape, legacyOnText], [refused, refused]);
    } else {
      const failed = { code, path: "/structuredContent", message: messages[code] };
      assert.deepEqual([legacyOnTape, legacyOnText], [failed, failed], code);
    }
  }
});

test("a validator that refuses, at first use, a schema another validator built", DEFAULT_ONLY, () => {
  const h = host();
  const result = { outputs: [text("hi"), structured({ items: [] })] };
  assert.deepEqual(h.check(requested, result), {});
  mcp.setValidator({ getValidator: () => { throw new Error("no, thanks"); } });
  try {
    const [reads, onTape] = tapesRead(() => outcome(() => h.check(requested, result)));
    assert.equal(reads, 1);
    const onText = outcome(() => h.checkText(JSON.stringify(requested), JSON.stringify(result)));
    // The schema's fault, at the schema's path, whichever way the payload crossed.
    const refused = { code: "invalid-schema", path: "/outputVariants/1/schema", message: "the validator refused it: no, thanks" };
    assert.deepEqual([onTape, onText], [refused, refused]);
  } finally {
    mcp.setValidator(providers[FLAVOUR]());
  }
});
