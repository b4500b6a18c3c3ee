// The two flavours of the package (issue 11): the default build validates payloads with the
// caller's validator (the TypeScript SDK's `jsonSchemaValidator` shape), the full build inside
// the wasm. These tests use both entries directly, whatever MCP_OUTPUTS_FLAVOUR says.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as core from "../npm/node.js";
import * as full from "../npm/full-node.js";
import { Validator as CfworkerValidator } from "@cfworker/json-schema";
import { fromCfworker } from "../npm/validators.js";
import { ajvProvider } from "./providers.mjs";
import { thrown } from "./support.mjs";

const SCHEMA = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
const TOOL = {
  name: "t",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    { audience: "programmatic", format: "structured", schema: SCHEMA },
  ],
};
const REQ = [{ audience: "programmatic", format: "structured" }];
const result = (structuredContent) => ({
  resultType: "complete",
  outputs: [{ audience: "programmatic", format: "structured", structuredContent }],
});

/** Ajv, counting what the package asks of it. */
function counting() {
  const inner = ajvProvider();
  const counts = { getValidator: 0, validate: 0 };
  return {
    counts,
    getValidator(schema) {
      counts.getValidator++;
      const validate = inner.getValidator(schema);
      return (input) => {
        counts.validate++;
        return validate(input);
      };
    },
  };
}

test("each entry says which flavour it is", () => {
  assert.equal(core.hasValidator, false);
  assert.equal(full.hasValidator, true);
});

test("default build: the caller's validator builds each schema once and validates every payload", () => {
  const provider = counting();
  const hostSide = counting();
  const conn = new core.Connection({}, { validator: hostSide });
  // A server compiles at declare (authors want errors early).
  const server = core.declareTool(TOOL, { validator: provider });
  assert.equal(provider.counts.getValidator, 1);
  // A host accepts without building (lazy), and builds on the first check that needs it.
  const host = core.acceptTool(server.advertise(conn), conn);
  assert.equal(hostSide.counts.getValidator, 0);
  assert.deepEqual(host.check(REQ, result({ n: 1 })), {});
  assert.equal(hostSide.counts.getValidator, 1);
  const e = thrown(() => host.check(REQ, result({ n: "1" })));
  assert.equal(e.code, "schema-violation");
  assert.equal(e.path, "/outputs/0/structuredContent/n");
  assert.match(e.message, /must be integer/);
  assert.equal(host.route(REQ, result({ n: 2 })).programmatic[0].structuredContent.n, 2);
  assert.equal(hostSide.counts.getValidator, 1, "built once per schema");
  assert.equal(hostSide.counts.validate, 3);
  // The server validates what it produced.
  const sent = server.respond(conn, REQ, { outputs: [result({ n: 3 }).outputs[0]] });
  assert.equal(sent.outputs[0].structuredContent.n, 3);
  assert.equal(provider.counts.validate, 1);
  assert.equal(provider.counts.getValidator, 1);
});

test("default build: a schema declared or accepted again is built once per validator (a server that declares per session)", () => {
  const provider = counting();
  const other = counting();
  const conn = new core.Connection({}, { validator: provider });
  for (let session = 0; session < 5; session++) {
    const server = core.declareTool(TOOL, { validator: provider });
    const host = core.acceptTool(server.advertise(conn), conn);
    assert.deepEqual(host.check(REQ, result({ n: session })), {});
    assert.equal(thrown(() => host.check(REQ, result({ n: "x" }))).code, "schema-violation");
    server.free();
    host.free();
  }
  assert.equal(provider.counts.getValidator, 1, "one build of the one schema, shared by every tool");
  assert.equal(provider.counts.validate, 10);
  // Another schema is another build; another validator builds its own.
  const wider = { ...TOOL, outputVariants: [TOOL.outputVariants[0], { ...TOOL.outputVariants[1], schema: { type: "object" } }] };
  core.declareTool(wider, { validator: provider }).free();
  assert.equal(provider.counts.getValidator, 2);
  core.declareTool(TOOL, { validator: other }).free();
  assert.equal(other.counts.getValidator, 1);
  // A refusal is not kept: the next declare asks again.
  let asked = 0;
  const flaky = { getValidator: (schema) => (++asked === 1 ? (() => { throw new Error("not yet"); })() : ajvProvider().getValidator(schema)) };
  assert.equal(thrown(() => core.declareTool(TOOL, { validator: flaky })).code, "invalid-schema");
  assert.equal(core.declareTool(TOOL, { validator: flaky }).name, "t");
  assert.equal(asked, 2);
});

test("default build: without a validator, schemas cannot be applied; tools without schemas work", () => {
  core.setValidator(null);
  const plain = { ...TOOL, outputVariants: [TOOL.outputVariants[0]] };
  const conn = new core.Connection({});
  assert.equal(core.declareTool(plain).name, "t");
  // Said where the schema is read, with its own code (issue 22: it was invalid-schema at first use).
  const e = thrown(() => core.declareTool(TOOL));
  assert.deepEqual([e.code, e.path], ["missing-validator", "/outputVariants/1/schema"]);
  assert.match(e.message, /none was given/);
  assert.equal(thrown(() => core.acceptTool(TOOL, conn)).code, "missing-validator");
  // The direct reading still rules on schemas without any validator.
  assert.equal(thrown(() => core.declareTool({ ...TOOL, outputVariants: [TOOL.outputVariants[0], { ...TOOL.outputVariants[1], schema: { type: "objekt" } }] })).code, "invalid-schema");
  assert.equal(thrown(() => core.declareTool({ ...TOOL, outputVariants: [TOOL.outputVariants[0], { ...TOOL.outputVariants[1], schema: { $ref: "https://example.com/s" } }] })).code, "external-ref");
  // setValidator gives every object without options.validator its validator.
  core.setValidator(ajvProvider());
  const host = core.acceptTool(core.declareTool(TOOL).advertise(conn), conn);
  assert.deepEqual(host.check(REQ, result({ n: 1 })), {});
});

test("default build: a validator given later builds the schemas it has not seen, and each keeps its own", () => {
  const first = counting();
  const rejecting = { getValidator: () => () => ({ valid: false, data: undefined, errorMessage: "rejected by the second" }) };
  core.setValidator(first);
  try {
    const conn = new core.Connection({});
    const host = core.acceptTool(core.declareTool(TOOL).advertise(conn), conn);
    assert.deepEqual(host.check(REQ, result({ n: 1 })), {});
    const built = first.counts.getValidator;
    // The same compiled schema under another validator: unknown to it, so built, then asked.
    core.setValidator(rejecting);
    const e = thrown(() => host.check(REQ, result({ n: 1 })));
    assert.equal(e.code, "schema-violation");
    assert.match(e.message, /rejected by the second/);
    // Back to the first: its validator is still built, and answers.
    core.setValidator(first);
    assert.deepEqual(host.check(REQ, result({ n: 1 })), {});
    assert.equal(thrown(() => host.check(REQ, result({ n: "x" }))).code, "schema-violation");
    assert.equal(first.counts.getValidator, built);
  } finally {
    // As the test before left it.
    core.setValidator(ajvProvider());
  }
});

test("default build: requested outputs that change between calls are read again (the last selection is kept)", () => {
  const conn = new core.Connection({}, { validator: ajvProvider() });
  const host = core.acceptTool(core.declareTool(TOOL, { validator: ajvProvider() }).advertise(conn), conn);
  const both = {
    resultType: "complete",
    outputs: [
      { audience: "assistant", format: "content", content: [{ type: "text", text: "hi" }] },
      { audience: "programmatic", format: "structured", structuredContent: { n: 1 } },
    ],
  };
  const assistant = [{ audience: "assistant", format: "content" }];
  for (let round = 0; round < 2; round++) {
    assert.equal(host.route(REQ, result({ n: 1 })).programmatic.length, 1);
    assert.equal(host.route([...REQ, ...assistant], both).model.length, 1);
    // Not what was requested: the selection of this call, not the last one's, decides.
    assert.equal(thrown(() => host.route(assistant, result({ n: 1 }))).code, "unrequested-output");
    assert.equal(thrown(() => host.check([], result({ n: 1 }))).code, "empty-selection");
    assert.equal(thrown(() => host.check([{ audience: "nobody", format: "content" }], result({ n: 1 }))).code, "invalid-audience");
    assert.deepEqual(host.check(REQ, result({ n: 1 })), {});
    // No requested outputs: the default selection (assistant/content only).
    assert.deepEqual(host.check(undefined, { ...both, outputs: both.outputs.slice(0, 1) }), {});
    assert.equal(thrown(() => host.check(undefined, both)).code, "unrequested-output");
  }
});

test("validator misuse is a typed error, and a validator's own failures are too", () => {
  for (const bad of [{}, { getValidator: 1 }, "ajv", 7]) {
    const e = thrown(() => new core.Connection({}, { validator: bad }));
    assert.ok(e instanceof core.McpOutputsError, String(e));
    assert.equal(e.code, "malformed");
    assert.equal(e.path, "/validator");
    assert.equal(thrown(() => core.setValidator(bad)).code, "malformed");
  }
  assert.equal(thrown(() => new full.Connection({}, { validator: ajvProvider() })).code, "malformed");
  assert.equal(thrown(() => full.setValidator(ajvProvider())).code, "malformed");
  // A validator that refuses a schema: invalid-schema at declare.
  const refusing = { getValidator: () => { throw new Error("no, thanks"); } };
  const refused = thrown(() => core.declareTool(TOOL, { validator: refusing }));
  assert.equal(refused.code, "invalid-schema");
  assert.match(refused.message, /no, thanks/);
  // A validator that throws while validating: malformed; out of stack: limit-exceeded.
  for (const [error, code] of [[new TypeError("broken"), "malformed"], [new RangeError("Maximum call stack size exceeded"), "limit-exceeded"]]) {
    const throwing = { getValidator: () => () => { throw error; } };
    const conn = new core.Connection({}, { validator: throwing });
    const host = core.acceptTool(core.declareTool(TOOL, { validator: ajvProvider() }).advertise(conn), conn);
    const e = thrown(() => host.check(REQ, result({ n: 1 })));
    assert.equal(e.code, code, String(e));
    // The instance keeps answering.
    assert.equal(thrown(() => host.check(REQ, result({ n: 1 }))).code, code);
  }
  // An answer whose `valid` is not a boolean is the validator's wrong shape, never a verdict.
  const odd = { getValidator: () => () => ({ valid: "yes", errorMessage: "odd answer" }) };
  const conn = new core.Connection({}, { validator: odd });
  const host = core.acceptTool(core.declareTool(TOOL, { validator: ajvProvider() }).advertise(conn), conn);
  const e = thrown(() => host.check(REQ, result({ n: 1 })));
  assert.equal(e.code, "invalid-validator");
  assert.match(e.message, /not \{valid: "yes"\}/);
  // `valid: false` is a verdict; its message is the validator's.
  const no = { getValidator: () => () => ({ valid: false, errorMessage: "odd answer" }) };
  const noConn = new core.Connection({}, { validator: no });
  const noHost = core.acceptTool(core.declareTool(TOOL, { validator: ajvProvider() }).advertise(noConn), noConn);
  const violation = thrown(() => noHost.check(REQ, result({ n: 1 })));
  assert.equal(violation.code, "schema-violation");
  assert.match(violation.message, /odd answer/);
});

test("patterns are ECMA-262 regular expressions in the default build (the u flag)", () => {
  const withPattern = (pattern) => ({
    ...TOOL,
    outputVariants: [TOOL.outputVariants[0], { ...TOOL.outputVariants[1], schema: { type: "string", pattern } }],
  });
  const opts = { validator: ajvProvider() };
  for (const valid of ["^[a-z]+$", "\\p{L}+", "(?<=a)b", "^\\d{3}$"]) assert.equal(core.declareTool(withPattern(valid), opts).name, "t", valid);
  for (const invalid of ["(", "[a-", "\\p{NoSuchProperty}", "a{2,1}"]) {
    assert.equal(thrown(() => core.declareTool(withPattern(invalid), opts)).code, "invalid-schema", invalid);
  }
});

test("npm/README.md's flavour example runs as written (its import lines bound to the default entry)", () => {
  // tests/readme-blocks runs every README block in a fresh project; this keeps the one the
  // default entry's users copy first in the package's own suite, against the built entry.
  const readme = readFileSync(new URL("../npm/README.md", import.meta.url), "utf8");
  const block = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes("setValidator(validator)"));
  assert.ok(block, "the README has the flavour example");
  const body = block.split("\n").filter((line) => !line.startsWith("import ")).join("\n");
  const run = new Function("Validator", "Connection", "declareTool", "setValidator", "fromCfworker", `${body}\nreturn { conn, tool };`);
  try {
    const { conn, tool } = run(CfworkerValidator, core.Connection, core.declareTool, core.setValidator, fromCfworker);
    assert.equal(tool.advertise(conn).name, "echo");
  } finally {
    core.setValidator(null);
  }
});

test("default build: no payload crosses into the wasm on the object API (counted at the boundary)", () => {
  const row = (i) => ({ id: `c${i}`, name: `customer ${i}`, tags: ["a", "b"], score: i / 7 });
  const payloadOf = (rows) => ({ items: Array.from({ length: rows }, (_, i) => row(i)) });
  const tool = {
    name: "big",
    inputSchema: { type: "object" },
    outputVariants: [
      { audience: "assistant", format: "content" },
      { audience: "programmatic", format: "structured", schema: { type: "object", required: ["items"] } },
    ],
  };
  const crossing = (mcp, options) => {
    const conn = new mcp.Connection({}, options);
    const server = mcp.declareTool(tool, options);
    const host = mcp.acceptTool(server.advertise(conn), conn);
    const counter = mcp.Connection[Symbol.for("mcp-outputs.countCrossingForTest")]();
    // Characters into the wasm for one respond + check + route of a payload of `rows` rows.
    return (rows) => {
      const payload = payloadOf(rows);
      const produced = { outputs: [{ audience: "programmatic", format: "structured", structuredContent: payload }] };
      const before = counter.chars;
      const result = server.respond(conn, REQ, produced);
      host.check(REQ, result);
      const route = host.route(REQ, result);
      if (!mcp.hasValidator) assert.equal(route.programmatic[0].structuredContent, payload, "the caller's own object, handed back");
      else assert.deepEqual(route.programmatic[0].structuredContent, payload);
      return counter.chars - before;
    };
  };
  const large = JSON.stringify(payloadOf(10_000)).length;
  assert.ok(large > 500_000);
  // Default build: the envelope crosses as a tape and the payload stays in JavaScript, so no
  // text or byte array crosses at all, for 10 rows or 10,000 (the requested outputs and the
  // answers are tapes too).
  const held = crossing(core, { validator: ajvProvider() });
  const [heldSmall, heldLarge] = [held(10), held(10_000)];
  assert.equal(heldSmall, 0, `the envelopes: ${heldSmall} characters`);
  assert.equal(heldLarge, heldSmall, "no payload byte crosses");
  // The counter counts: a request that is not plain data crosses as its JSON text.
  {
    const conn = new core.Connection({}, { validator: ajvProvider() });
    const host = core.acceptTool(core.declareTool(tool, { validator: ajvProvider() }).advertise(conn), conn);
    const counter = core.Connection[Symbol.for("mcp-outputs.countCrossingForTest")]();
    const request = [{ audience: "programmatic", get format() { return "structured"; } }];
    host.check(request, { outputs: [{ audience: "programmatic", format: "structured", structuredContent: { items: [] } }] });
    assert.equal(counter.chars, JSON.stringify(request).length);
  }
  // The full build validates inside the wasm: the payload crosses written into the tape of each
  // call (respond, check, route), never as text.
  const inside = crossing(full, {});
  const tapeReads = full.Connection[Symbol.for("mcp-outputs.tapeReadsForTest")];
  const before = tapeReads();
  assert.equal(inside(10_000), inside(10), "no payload text crosses");
  assert.equal(tapeReads() - before, 6);
});

test("every entry exports exactly the values index.d.ts declares (the entries are generated: tools/entries.mjs)", () => {
  const dts = readFileSync(new URL("../npm/index.d.ts", import.meta.url), "utf8");
  const declared = [...dts.matchAll(/^export declare (?:const|function|class) (\w+)/gm)]
    .map((m) => m[1])
    .filter((name) => name !== "CompiledSchema") // a type only: made by compileSchema
    .sort();
  assert.deepEqual(Object.keys(core).sort(), [...new Set(declared)]);
  assert.deepEqual(Object.keys(full).sort(), Object.keys(core).sort());
});
