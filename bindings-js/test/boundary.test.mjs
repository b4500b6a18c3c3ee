// The payload guarantee (issue 21; docs/boundary.md): a route or a respond never hands back, nor
// writes, something that was not checked. A value that is plain data throughout (what JSON.parse
// makes: plain prototypes, own data properties, no toJSON, not a Proxy) has its payloads handed
// back as the caller's own objects; any other value is read once, whole, into a snapshot, and the
// snapshot is what is checked, written and handed back. Each hostile value below answers correctly for its first
// `reads` reads and differently after: before this guarantee, a payload read correctly by the
// validator was handed back live, and `respond` wrote `"items":42` where the schema asks for an
// array (a hostile sweep of the default entry).
import { test } from "node:test";
import assert from "node:assert/strict";
import { FLAVOUR, mcp } from "./flavour.mjs";

const tool = {
  name: "t",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    {
      audience: "programmatic",
      format: "structured",
      schema: { type: "object", properties: { items: { type: "array", items: { type: "integer" } } }, required: ["items"] },
    },
  ],
};
const requested = [
  { audience: "assistant", format: "content" },
  { audience: "programmatic", format: "structured" },
];
const GOOD = [1];
const BAD = 42;

// Values that read GOOD `reads` times, then BAD.
const hostile = {
  getter: (reads) => {
    let n = 0;
    return Object.defineProperty({}, "items", { enumerable: true, get: () => (n++ < reads ? GOOD : BAD) });
  },
  "getter in an array": (reads) => {
    let n = 0;
    const items = [];
    Object.defineProperty(items, 0, { enumerable: true, get: () => (n++ < reads ? 1 : "x") });
    return { items };
  },
  toJSON: () => ({ items: GOOD, toJSON: () => ({ items: BAD }) }),
  "Proxy (get)": (reads) => {
    let n = 0;
    return new Proxy({ items: GOOD }, { get: (t, k, r) => (k === "items" ? (n++ < reads ? GOOD : BAD) : Reflect.get(t, k, r)) });
  },
  "Proxy (descriptor and get)": (reads) => {
    let n = 0;
    const next = () => (n++ < reads ? GOOD : BAD);
    return new Proxy(
      { items: GOOD },
      {
        get: (t, k, r) => (k === "items" ? next() : Reflect.get(t, k, r)),
        getOwnPropertyDescriptor: (t, k) => {
          const d = Reflect.getOwnPropertyDescriptor(t, k);
          return k === "items" && d ? { ...d, value: next() } : d;
        },
      },
    );
  },
};

const produced = (payload) => ({
  outputs: [
    { audience: "assistant", format: "content", content: [{ type: "text", text: "hi" }] },
    { audience: "programmatic", format: "structured", structuredContent: payload },
  ],
});

// What an answer says now and says again later: JSON text twice, equal, and without BAD.
function settled(answer, label) {
  const first = JSON.stringify(answer);
  const again = JSON.stringify(answer);
  assert.equal(first, again, `${label}: the answer changed after the call (a live payload was handed back)`);
  assert.ok(!first.includes("42") && !first.includes('"x"'), `${label}: the answer holds what was not checked: ${first}`);
}

const modern = new mcp.Connection({ protocolVersion: "2026-12-01" });
const legacy = new mcp.Connection({ protocolVersion: "2025-11-25" });
const served = mcp.declareTool(tool, { legacy: { structuredFrom: "programmatic/structured" } });
const received = mcp.acceptTool(tool, modern);

for (const [kind, make] of Object.entries(hostile)) {
  test(`${FLAVOUR}: a ${kind} payload: respond and route hand back only what was checked`, () => {
    for (let reads = 0; reads <= 6; reads++) {
      for (const [label, run] of [
        ["respond 2026-12-01", () => served.respond(modern, requested, produced(make(reads)))],
        ["respond 2025-11-25 (legacy mirror)", () => served.respond(legacy, undefined, produced(make(reads)))],
        ["route", () => received.route(requested, produced(make(reads)))],
        ["check", () => received.check(requested, produced(make(reads)))],
      ]) {
        let answer;
        try {
          answer = run();
        } catch (e) {
          // A refusal is an answer about what was read: typed, never a thrown string.
          assert.ok(e instanceof mcp.McpOutputsError, `${kind}, ${label}, ${reads} reads: ${e}`);
          continue;
        }
        settled(answer, `${kind}, ${label}, ${reads} good reads`);
      }
    }
  });
}

test(`${FLAVOUR}: an output of plain data whose payload is not is handed back as a snapshot, whole`, () => {
  for (const make of [hostile.getter, hostile["Proxy (get)"]]) {
    const result = produced(make(2));
    let answer;
    try {
      answer = received.route(requested, result);
    } catch (e) {
      assert.ok(e instanceof mcp.McpOutputsError);
      continue;
    }
    assert.notEqual(answer.programmatic[0], result.outputs[1]);
    settled(answer, "an output around a hostile payload");
  }
});

test(`${FLAVOUR}: plain data (as JSON.parse makes it) is handed back as the caller's own object`, () => {
  // (The full build reads every value as text: it hands back equal copies, never the objects.)
  const same = FLAVOUR === "full" ? (a, b) => assert.deepEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b))) : assert.equal;
  const payload = JSON.parse('{"items":[1,2,3]}');
  const result = produced(payload);
  const route = received.route(requested, result);
  same(route.programmatic[0].structuredContent, payload);
  same(route.programmatic[0], result.outputs[1]);
  const nullProto = Object.assign(Object.create(null), { items: [] });
  same(received.route(requested, produced(nullProto)).programmatic[0].structuredContent, nullProto);
  const sent = served.respond(modern, requested, produced(payload));
  same(sent.outputs[1].structuredContent, payload);
});

// Issue 22, item 6: a lone surrogate in a payload was valid on the default entry's object API
// (the JavaScript validator alone judged it) and `malformed` everywhere else.
test(`${FLAVOUR}: a lone surrogate in a payload is malformed on the object API, as everywhere`, () => {
  const anyObject = mcp.acceptTool(
    { ...tool, outputVariants: [tool.outputVariants[0], { audience: "programmatic", format: "structured", schema: { type: "object" } }] },
    modern,
  );
  for (const payload of [{ a: "\ud800" }, { ["\udc00"]: 1 }, { a: ["x", "y\udbff"] }]) {
    for (const run of [
      () => anyObject.route(requested, produced(payload)),
      () => anyObject.check(requested, produced(payload)),
      () => mcp.declareTool(anyObject.tool ?? { ...tool, outputVariants: [tool.outputVariants[0], { audience: "programmatic", format: "structured", schema: { type: "object" } }] }).respond(modern, requested, produced(payload)),
    ]) {
      assert.throws(run, (e) => e instanceof mcp.McpOutputsError && e.code === "malformed", JSON.stringify(payload));
    }
  }
  // A pair is one character, not a surrogate.
  assert.ok(anyObject.route(requested, produced({ a: "\ud83d\ude00" })).programmatic.length === 1);
});
