// What crosses on the tape path besides the result (issue 21, "one reader"; docs/boundary.md):
// the requested outputs of plain data cross as a tape of their own (no JSON text per call), and
// the core's answer comes back as a tape in the wasm memory (index nodes for the caller's own
// outputs, held nodes for its payloads) that npm/api.js reads into objects. Each test compares
// the tape path with the text entry points, whose answers cross as the same answer tape (their
// outputs parsed from the text the core checked, every other node a copy read from the tape).
import { test } from "node:test";
import assert from "node:assert/strict";
import { FLAVOUR, mcp } from "./flavour.mjs";

const tapeReads = mcp.Connection[Symbol.for("mcp-outputs.tapeReadsForTest")];
const APPS = "io.modelcontextprotocol/ui";
const schema = { type: "object", properties: { n: { type: "number" } } };
const tool = {
  name: "t",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    { audience: "assistant", format: "structured", schema },
    { audience: "user", format: "content" },
    { audience: "programmatic", format: "structured", schema },
    { audience: APPS, format: "structured", schema: { type: "object" } },
  ],
  _meta: { ui: { resourceUri: "ui://t/view.html" } },
};
const text = (audience, t) => ({ audience, format: "content", content: [{ type: "text", text: t }] });
const structured = (audience, payload) => ({ audience, format: "structured", structuredContent: payload });
const host = (version = "2026-12-01") => mcp.ReceivedTool.accept(tool, new mcp.Connection({ protocolVersion: version, negotiated: [APPS] }));
const reqText = (request) => (request === undefined ? undefined : JSON.stringify(request));

/** The calls `fn` made that read a tape, and its answer. */
function tapesRead(fn) {
  const before = tapeReads();
  const answer = fn();
  return [tapeReads() - before, answer];
}

const outcome = (fn) => {
  try {
    return { ok: fn() };
  } catch (e) {
    return { code: e.code, path: e.path, message: e.message };
  }
};

/** A payload in an answer: the caller's own (default build), or a copy read from the tape. */
function handedBack(actual, payload, message) {
  if (FLAVOUR === "full") assert.deepEqual(actual, payload, message);
  else assert.equal(actual, payload, message);
}

test("a route of several outputs of each audience names each as the caller's own output", () => {
  const h = host();
  const p1 = { n: 1 };
  const p2 = { n: 2 };
  const ui = { open: true };
  const result = {
    outputs: [
      text("assistant", "a"),
      structured("programmatic", p1),
      text("user", "u1"),
      structured("assistant", p2),
      structured(APPS, ui),
    ],
    _meta: { [APPS]: { frame: 1 }, other: "x" },
  };
  const request = [
    { audience: "assistant", format: "content" },
    { audience: "assistant", format: "structured" },
    { audience: "user", format: "content" },
    { audience: "programmatic", format: "structured" },
    { audience: APPS, format: "structured" },
  ];
  const [reads, route] = tapesRead(() => h.route(request, result));
  assert.equal(reads, 1);
  assert.deepEqual(route, h.routeText(reqText(request), JSON.stringify(result)));
  const own = (list, indices) => {
    assert.equal(list.length, indices.length);
    indices.forEach((i, k) => assert.equal(list[k], result.outputs[i], `output ${i}`));
  };
  own(route.model, [0, 3]);
  own(route.user, [2]);
  own(route.programmatic, [1]);
  own(route.extensions[APPS], [4]);
  handedBack(route.view.structuredContent, ui);
  assert.deepEqual(route.view._meta, { [APPS]: { frame: 1 } });
  assert.equal(Object.getPrototypeOf(route), Object.prototype);
  assert.deepEqual(outcome(() => h.check(request, result)), outcome(() => h.checkText(reqText(request), JSON.stringify(result))));
});

test("a legacy structured result: its routed output carries the caller's payload", () => {
  const legacyTool = { name: "t", inputSchema: { type: "object" }, outputSchema: schema };
  const old = mcp.ReceivedTool.accept(legacyTool, new mcp.Connection({ protocolVersion: "2025-06-18" }));
  const payload = { n: 7 };
  const result = { content: [{ type: "text", text: "{}" }], structuredContent: payload };
  for (const rule of [undefined, { legacyStructured: "programmatic" }, { legacyStructured: "assistant" }]) {
    const [reads, route] = tapesRead(() => old.route(undefined, result, rule));
    assert.equal(reads, 1);
    assert.deepEqual(route, old.routeText(undefined, JSON.stringify(result), rule));
    const list = rule === undefined ? [] : route[rule.legacyStructured === "assistant" ? "model" : "programmatic"].filter((o) => o.format === "structured");
    if (rule !== undefined) handedBack(list[0].structuredContent, payload);
    assert.deepEqual(outcome(() => old.check(undefined, result, rule)), outcome(() => old.checkText(undefined, JSON.stringify(result), rule)));
  }
});

test("an input_required answer, and the check's answers, read from the answer tape", () => {
  const h = host();
  const request = [{ audience: "assistant", format: "content" }];
  const inputRequired = { resultType: "input_required", inputRequests: { a: { method: "elicitation/create", params: {} } } };
  for (const result of [inputRequired, { outputs: [text("assistant", "a")] }, { outputs: [], isError: true }]) {
    for (const call of ["route", "check"]) {
      const [reads, onTape] = tapesRead(() => outcome(() => h[call](request, result)));
      assert.equal(reads, 1);
      assert.deepEqual(onTape, outcome(() => h[`${call}Text`](reqText(request), JSON.stringify(result))), `${call} ${JSON.stringify(result)}`);
    }
  }
  assert.deepEqual(h.route(request, inputRequired), { resultType: "input_required" });
});

test("respond with several held payloads hands back the caller's own", () => {
  const server = mcp.ServerTool.declare(tool);
  const conn = new mcp.Connection({ negotiated: [APPS] });
  const p1 = { n: 1 };
  const p2 = { n: 2 };
  const ui = { open: true };
  // An own "__proto__" member (as JSON.parse makes one) stays an own member of the answer.
  const block = JSON.parse('{"type": "text", "text": "hé😀", "__proto__": {"x": 1}}');
  const produced = {
    outputs: [
      { audience: "assistant", format: "content", content: [block] },
      structured("assistant", p2),
      structured("programmatic", p1),
      structured(APPS, ui),
    ],
  };
  const request = [
    { audience: "assistant", format: "content" },
    { audience: "assistant", format: "structured" },
    { audience: "programmatic", format: "structured" },
    { audience: APPS, format: "structured" },
  ];
  const [reads, result] = tapesRead(() => server.respond(conn, request, produced));
  assert.equal(reads, 1);
  assert.deepEqual(result, JSON.parse(server.respondText(conn, reqText(request), JSON.stringify(produced))));
  const payloadOf = (audience) => result.outputs.find((o) => o.audience === audience && o.format === "structured").structuredContent;
  handedBack(payloadOf("assistant"), p2);
  handedBack(payloadOf("programmatic"), p1);
  handedBack(payloadOf(APPS), ui);
  const sent = result.outputs.find((o) => o.format === "content").content[0];
  assert.ok(Object.hasOwn(sent, "__proto__"));
  assert.equal(Object.getPrototypeOf(sent), Object.prototype);
  assert.deepEqual(sent.__proto__, { x: 1 });
  // The request's faults, read from its tape, are the text path's (their code and path).
  for (const bad of [[], [{ audience: "nope", format: "content" }], [request[0], request[0]], [{ audience: "user", format: "structured" }], "no", null, [1]]) {
    const [tapes, onTape] = tapesRead(() => outcome(() => server.respond(conn, bad, produced)));
    assert.equal(tapes, 1);
    assert.deepEqual(onTape, outcome(() => JSON.parse(server.respondText(conn, reqText(bad), JSON.stringify(produced)))), JSON.stringify(bad));
  }
});

test("a request array changed between two calls is read again", () => {
  const h = host();
  // The result each request asks for (one output per selector, in its order).
  const resultFor = (request) => ({
    outputs: request.map((s) => (s.format === "content" ? text(s.audience, "x") : structured(s.audience, { n: 1 }))),
  });
  const lengths = (route) => [route.model.length, route.programmatic.length, route.user.length];
  const request = [{ audience: "assistant", format: "content" }];
  const r1 = resultFor(request);
  assert.deepEqual(lengths(h.route(request, r1)), [1, 0, 0]);
  request.push({ audience: "programmatic", format: "structured" });
  // The first result now lacks what the same (changed) array asks for.
  assert.equal(outcome(() => h.route(request, r1)).code, outcome(() => h.routeText(reqText(request), JSON.stringify(r1))).code);
  assert.ok(outcome(() => h.route(request, r1)).code);
  const r2 = resultFor(request);
  const second = h.route(request, r2);
  assert.deepEqual(lengths(second), [1, 1, 0]);
  assert.equal(second.programmatic[0], r2.outputs[1]);
  request[1].audience = "user";
  request[1].format = "content";
  assert.ok(outcome(() => h.route(request, r2)).code, "the changed selector is read again");
  const r3 = resultFor(request);
  assert.deepEqual(lengths(h.route(request, r3)), [1, 0, 1]);
  request[0].audience = "nope";
  const bad = outcome(() => h.route(request, r3));
  assert.ok(bad.code, "an invalid request after valid ones is refused");
  assert.deepEqual(bad, outcome(() => h.routeText(reqText(request), JSON.stringify(r3))));
  request[0].audience = "assistant";
  assert.deepEqual(h.check(request, r3), {});
  assert.deepEqual(outcome(() => h.check(request, r2)), outcome(() => h.checkText(reqText(request), JSON.stringify(r2))));
});

test("a request that is not plain data crosses as text, its getter read once", () => {
  const h = host();
  const result = { outputs: [text("assistant", "a"), structured("programmatic", { n: 1 })] };
  let reads = 0;
  const selector = { format: "structured" };
  Object.defineProperty(selector, "audience", { enumerable: true, get: () => (reads++ === 0 ? "programmatic" : "user") });
  const request = [{ audience: "assistant", format: "content" }, selector];
  const [tapes, route] = tapesRead(() => h.route(request, result));
  assert.equal(tapes, 1, "the result is plain: read as a tape");
  assert.equal(reads, 1, "the getter ran once: the request was read as text");
  assert.equal(route.programmatic[0], result.outputs[1]);
  assert.equal(route.model[0], result.outputs[0]);
  // A toJSON and a Proxy: text too, and their answers are their text's.
  for (const odd of [{ toJSON: () => [{ audience: "assistant", format: "content" }] }, new Proxy([{ audience: "assistant", format: "content" }], {})]) {
    assert.deepEqual(outcome(() => h.route(odd, result)), outcome(() => h.routeText(JSON.stringify(odd), JSON.stringify(result))));
  }
});

test("plain requested outputs do not cross as JSON text", () => {
  const h = host();
  const result = { outputs: [text("assistant", "a"), structured("programmatic", { n: 1 })] };
  const request = [{ audience: "assistant", format: "content" }, { audience: "programmatic", format: "structured" }];
  h.route(request, result);
  const counter = mcp.Connection[Symbol.for("mcp-outputs.countCrossingForTest")]();
  h.route(request, result);
  h.check(request, result);
  // What still crosses as arguments: the held payloads' flags (one byte a payload, default build).
  assert.ok(counter.chars <= 2, `${counter.chars} characters crossed`);
  const text_ = [{ audience: "assistant", format: "content" }, { audience: "programmatic", format: "structured" }];
  Object.defineProperty(text_[0], "format", { enumerable: true, get: () => "content" });
  const before = counter.chars;
  h.route(text_, result);
  assert.ok(counter.chars - before >= JSON.stringify(text_).length, "a request with a getter crosses as text");
});

test("the text entries and the snapshot answer through the answer tape: their outputs parsed from the checked text, or copies", () => {
  const h = host();
  // A View payload with what a copy must keep: non-ASCII and long strings, a large number, an
  // own `__proto__` member (as JSON.parse makes it), nesting.
  const ui = JSON.parse('{"s":"h\\u00e9llo \\ud83d\\ude00","long":"' + "x".repeat(40) + '","big":1e300,"__proto__":{"a":[1,[2]]}}');
  const result = {
    outputs: [text("assistant", "a"), structured("programmatic", { n: 1 }), structured(APPS, ui)],
    _meta: { [APPS]: { frame: 1 } },
  };
  const request = [
    { audience: "assistant", format: "content" },
    { audience: "programmatic", format: "structured" },
    { audience: APPS, format: "structured" },
  ];
  const onTape = h.route(request, result);
  // The snapshot of `route`: a getter makes the result not plain data; every node of its answer
  // is a copy the core wrote.
  const withGetter = { ...result, outputs: result.outputs.slice() };
  Object.defineProperty(withGetter, "_meta", { get: () => result._meta, enumerable: true });
  const [reads, fallback] = tapesRead(() => h.route(request, withGetter));
  assert.equal(reads, 0, "the snapshot is no tape of plain data");
  const fromText = h.routeText(reqText(request), JSON.stringify(result));
  for (const route of [fallback, fromText]) {
    assert.deepEqual(route, onTape);
    assert.notEqual(route.model[0], result.outputs[0], "an output parsed from the text, or copied, not the caller's");
    assert.deepEqual(route.extensions[APPS][0], result.outputs[2]);
    const view = route.view.structuredContent;
    assert.notEqual(view, ui, "the View a copy");
    assert.equal(view.big, 1e300);
    assert.equal(view.s, ui.s);
    assert.equal(Object.hasOwn(view, "__proto__"), true);
    assert.equal(Object.getPrototypeOf(view), Object.prototype);
    assert.deepEqual(view.__proto__, { a: [1, [2]] });
  }
  // A number as the text wrote it: `-0.0` is -0 in the View's copy, as JSON.parse made it of
  // the JSON text answer before.
  const negZero = JSON.stringify(result).replace('"big":1e+300', '"big":-0.0');
  assert.equal(Object.is(h.routeText(reqText(request), negZero).view.structuredContent.big, -0), true);
  assert.deepEqual(h.check(request, withGetter), h.check(request, result));
  assert.deepEqual(h.checkText(reqText(request), JSON.stringify(result)), {});
});
