// The snapshot (issue 21, "one reader"; docs/boundary.md): a value that is not plain data is read
// once, with JSON.stringify's semantics, and written into the wasm memory as a tape that holds
// nothing, not as JSON text. Each test checks what crossed (the characters of every string given
// to the wasm, the test-only counter `flavours.test.mjs` uses too, and the snapshots the engine
// read), that everything handed back is a copy of what was checked, and that a snapshot answers
// exactly as the value's JSON text does, near maxBytes included.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FLAVOUR, mcp } from "./flavour.mjs";

const snapshots = mcp.Connection[Symbol.for("mcp-outputs.snapshotReadsForTest")];
const tapeReads = mcp.Connection[Symbol.for("mcp-outputs.tapeReadsForTest")];
const tool = {
  name: "t",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    {
      audience: "programmatic",
      format: "structured",
      schema: { type: "object", properties: { items: { type: "array" } }, required: ["items"] },
    },
  ],
};
const requested = [
  { audience: "assistant", format: "content" },
  { audience: "programmatic", format: "structured" },
];
const text = (t) => ({ audience: "assistant", format: "content", content: [{ type: "text", text: t }] });
const structured = (payload) => ({ audience: "programmatic", format: "structured", structuredContent: payload });
const withGetter = (value, key, got) => Object.defineProperty(value, key, { enumerable: true, get: () => got });

const outcome = (fn) => {
  try {
    return { ok: fn() };
  } catch (e) {
    assert.ok(e instanceof mcp.McpOutputsError, String(e));
    return { code: e.code, path: e.path, message: e.message };
  }
};

// The characters and byte arrays given to the wasm by `fn`, the plain tapes and the snapshots it read.
function crossing(fn) {
  const counter = mcp.Connection[Symbol.for("mcp-outputs.countCrossingForTest")]();
  const [tapes, snaps] = [tapeReads(), snapshots()];
  const answer = outcome(fn);
  return { chars: counter.chars, tapes: tapeReads() - tapes, snapshots: snapshots() - snaps, answer };
}

const modern = new mcp.Connection({ protocolVersion: "2026-12-01" });
const legacy = new mcp.Connection({ protocolVersion: "2025-11-25" });
const received = mcp.acceptTool(tool, modern);
const served = mcp.declareTool(tool, { legacy: { structuredFrom: "programmatic/structured" } });

// Values that are not plain data, each a different reason.
const notPlain = () => [
  withGetter({ items: [1] }, "note", "got"),
  { items: [1], when: new Date(0) },
  { items: [1], skip: undefined, f: () => 1 },
  { items: [new Number(2), new String("s"), new Boolean(false)] },
  { items: new Proxy([1, 2], {}) },
  { items: [1], toJSON: () => ({ items: [3], via: "toJSON" }) },
];

test(`${FLAVOUR}: a value that is not plain data crosses as a snapshot tape, no JSON text`, () => {
  for (const payload of notPlain()) {
    const label = JSON.stringify(payload);
    const result = { outputs: [text("hi"), structured(payload)] };
    for (const [call, run] of [
      ["route", () => received.route(requested, result)],
      ["check", () => received.check(requested, result)],
      ["respond", () => served.respond(modern, requested, result)],
      ["respond (legacy mirror)", () => served.respond(legacy, undefined, result)],
    ]) {
      const seen = crossing(run);
      assert.ok("ok" in seen.answer, `${call} ${label}: ${JSON.stringify(seen.answer)}`);
      assert.equal(seen.chars, 0, `${call} ${label}: ${seen.chars} characters of text crossed`);
      assert.equal(seen.tapes, 0, `${call} ${label}: not plain data, yet read as a plain tape`);
      assert.equal(seen.snapshots, 1, `${call} ${label}`);
    }
  }
  // Requested outputs that are not plain data still cross as their JSON text (docs/boundary.md).
  const result = { outputs: [text("hi"), structured(notPlain()[0])] };
  const request = [requested[0], withGetter({ audience: "programmatic" }, "format", "structured")];
  const seen = crossing(() => received.route(request, result));
  assert.ok("ok" in seen.answer);
  assert.equal(seen.chars, JSON.stringify(request).length);
});

test(`${FLAVOUR}: a snapshot's route and respond hand back copies of what was checked`, () => {
  const payload = withGetter({ items: [1, 2] }, "note", "got");
  const output = structured(payload);
  const plainText = text("hi");
  const result = { outputs: [plainText, output] };
  const expected = { items: [1, 2], note: "got" };

  const route = received.route(requested, result);
  assert.notEqual(route.programmatic[0], output);
  assert.notEqual(route.programmatic[0].structuredContent, payload);
  assert.deepEqual(route.programmatic[0].structuredContent, expected);
  // A plain sibling is a copy too: the snapshot is read whole.
  assert.notEqual(route.model[0], plainText);
  assert.deepEqual(route.model[0], plainText);
  assert.deepEqual(route, received.routeText(JSON.stringify(requested), JSON.stringify(result)));

  const sent = served.respond(modern, requested, result);
  assert.notEqual(sent.outputs[1].structuredContent, payload);
  assert.deepEqual(sent.outputs[1].structuredContent, expected);
  assert.notEqual(sent.outputs[0], plainText);
  assert.deepEqual(sent, JSON.parse(served.respondText(modern, JSON.stringify(requested), JSON.stringify(result))));
  const mirrored = served.respond(legacy, undefined, result);
  assert.deepEqual(mirrored.structuredContent, expected);
  assert.notEqual(mirrored.structuredContent, payload);
  assert.deepEqual(mirrored, JSON.parse(served.respondText(legacy, undefined, JSON.stringify(result))));
});

// The text the snapshot stands for is JSON.stringify's; its size was measured on that text in
// UTF-16 code units by the JavaScript walk, then in UTF-8 bytes by the core. Around both
// thresholds, and for strings with escapes, a lone surrogate and non-ASCII text, the snapshot
// answers what the same text answers (`routeText`, `checkText`, `respondText`), or, past the
// UTF-16 length, the walk's own refusal.
test(`${FLAVOUR}: near maxBytes, a snapshot answers as its text`, () => {
  const strings = ["plain ascii", 'quote " and \\ and \n\t\u0001', "éàü — 日本語 😀", "lone \ud800 here", "\udc00", "end \ud83d"];
  for (const s of strings) {
    // Larger than the tool's declaration, which is read under the same limits.
    const long = s.repeat(40);
    const result = { outputs: [text(long), structured(withGetter({ items: [1.5, -0, 1e21, 2 ** 60] }, "k\u00e9y\n", long))] };
    const json = JSON.stringify(result);
    const utf16 = json.length;
    const utf8 = new TextEncoder().encode(json).length;
    const sizes = new Set();
    for (const around of [utf16, utf8]) for (let d = -3; d <= 3; d++) sizes.add(around + d);
    for (const maxBytes of sizes) {
      const limits = { limits: { maxBytes } };
      const conn = new mcp.Connection({ protocolVersion: "2026-12-01" }, limits);
      const h = mcp.acceptTool(tool, conn);
      const server = mcp.declareTool(tool, limits);
      const label = `${JSON.stringify(s)} at maxBytes ${maxBytes} (text ${utf16} units, ${utf8} bytes)`;
      const calls = [
        ["route", () => h.route(requested, result), () => h.routeText(JSON.stringify(requested), json)],
        ["check", () => h.check(requested, result), () => h.checkText(JSON.stringify(requested), json)],
        ["respond", () => server.respond(conn, requested, result), () => JSON.parse(server.respondText(conn, JSON.stringify(requested), json))],
      ];
      for (const [call, onObjects, onText] of calls) {
        const got = outcome(onObjects);
        if (utf16 > maxBytes) {
          // The walk's own refusal (the text path's before, word for word: it checks the length
          // after each value, so a text over by its closing brackets alone passes it), else the
          // core's, on the text's UTF-8 size.
          assert.equal(got.code, "limit-exceeded", `${call} ${label}`);
          const what = call === "respond" ? "produced" : "result";
          assert.ok(
            got.message === `${what}: larger than the limit of ${maxBytes} bytes` ||
              (got.message === `${what}: ${utf8} bytes exceeds the limit of ${maxBytes}` && got.path === ""),
            `${call} ${label}: ${JSON.stringify(got)}`,
          );
        } else {
          assert.deepEqual(got, outcome(onText), `${call} ${label}`);
        }
      }
    }
  }
});

test(`${FLAVOUR}: a snapshot's faults are the text path's, in its order`, () => {
  const h = received;
  const getter = (v) => withGetter(v, "extra", 1);
  for (const result of [
    getter({ outputs: [structured({ items: "no" }), text("hi")] }),
    getter({ outputs: [structured({ items: [] })] }),
    getter({ outputs: "no" }),
    getter({ outputs: [text("hi"), structured({ items: [] })], isError: "yes" }),
    getter({ resultType: "input_required", inputRequests: {} }),
    getter({ outputs: [text("\ud800")] }),
    // Two keys that differ in a lone surrogate only: one name on the snapshot's tape (U+FFFD),
    // where the text is refused for the surrogate.
    getter({ outputs: [structured({ items: [], "a\ud800": 1, "a\ufffd": 2 })] }),
    getter({ outputs: [structured({ items: [], "\udc00": 1, "\ud800": 2 })] }),
    getter({ outputs: [structured({ items: [] })], _meta: { "k\ud800": 1, "k\ufffd": 1 } }),
  ]) {
    for (const request of [requested, undefined, [{ audience: "nope", format: "content" }], "not an array"]) {
      const reqText = request === undefined ? undefined : JSON.stringify(request);
      const label = JSON.stringify([request, result]);
      assert.deepEqual(outcome(() => h.route(request, result)), outcome(() => h.routeText(reqText, JSON.stringify(result))), label);
      assert.deepEqual(outcome(() => h.check(request, result)), outcome(() => h.checkText(reqText, JSON.stringify(result))), label);
      for (const conn of [modern, legacy]) {
        assert.deepEqual(
          outcome(() => served.respond(conn, request, result)),
          outcome(() => JSON.parse(served.respondText(conn, reqText, JSON.stringify(result)))),
          label,
        );
      }
    }
  }
});
