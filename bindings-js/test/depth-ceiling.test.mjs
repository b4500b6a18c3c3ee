// Issue 12, defect 1 (SEC-1): a raised `limits.maxDepth` crashed the wasm instance
// ("memory access out of bounds" at ~4,000 levels with maxDepth 100000, and every later call
// failed). The core caps maxDepth at 1000: a larger setting is refused, and at the ceiling
// every path (text and values, declaration, respond, check, route, with a schema that walks the
// whole value) answers, and the same instance keeps answering afterwards.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FLAVOUR, mcp } from "./flavour.mjs";
import { thrown } from "./support.mjs";

const CEILING = 1000; // core::limits::MAX_DEPTH_CEILING
const REQ = [{ audience: "programmatic", format: "structured" }];

function nested(levels) {
  let value = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

const output = (value) => ({ audience: "programmatic", format: "structured", structuredContent: value });

test("maxDepth over the ceiling is refused as an option", () => {
  for (const maxDepth of [CEILING + 1, 4_000, 100_000]) {
    const e = thrown(() => new mcp.Connection({}, { limits: { maxDepth } }));
    assert.ok(e instanceof mcp.McpOutputsError, String(e));
    assert.equal(e.code, "malformed");
    assert.equal(e.path, "/limits/maxDepth");
  }
});

test("at the ceiling every path answers, deeper is limit-exceeded, and the instance lives on", () => {
  const options = { limits: { maxDepth: CEILING } };
  const conn = new mcp.Connection({}, options);
  const tool = {
    name: "deep",
    inputSchema: { type: "object" },
    outputVariants: [
      { audience: "assistant", format: "content" },
      { audience: "programmatic", format: "structured", schema: { type: "object", properties: { a: { $ref: "#" } } } },
    ],
  };
  const server = mcp.declareTool(tool, options);
  const host = mcp.acceptTool(server.advertise(conn), conn);
  // result (1), outputs (2), output (3), then the payload.
  const payload = nested(CEILING - 3);
  const produced = { outputs: [output(payload)] };
  let result;
  if (FLAVOUR === "full") {
    // The full entry validates in the wasm, on the engine's stack, which nothing can grow: a
    // validation deeper than core::stack::WASM_SCHEMA_LEVELS (1,200) schema levels is
    // refused before it starts. This schema spends 2 per level of value.
    assert.equal(thrown(() => server.respond(conn, REQ, produced)).code, "limit-exceeded");
    assert.equal(thrown(() => host.check(REQ, { outputs: produced.outputs })).code, "limit-exceeded");
    result = server.respond(conn, REQ, { outputs: [output(nested(600))] });
    host.check(REQ, result);
    assert.equal(host.route(REQ, result).programmatic.length, 1);
    assert.equal(thrown(() => server.respond(conn, REQ, { outputs: [output(nested(601))] })).code, "limit-exceeded");
  } else if (FLAVOUR === "cfworker") {
    // Finding: @cfworker/json-schema validates recursively and overflows the JavaScript stack
    // on this value (about 1,000 levels through a `$ref`), where Ajv and jsonschema answer.
    // The package reports it as limit-exceeded, and lives on.
    assert.equal(thrown(() => server.respond(conn, REQ, produced)).code, "limit-exceeded");
    result = { outputs: produced.outputs };
    assert.equal(thrown(() => host.check(REQ, result)).code, "limit-exceeded");
  } else {
    result = server.respond(conn, REQ, produced);
    host.check(REQ, result);
    assert.equal(host.route(REQ, result).programmatic.length, 1);
    host.checkText(JSON.stringify(REQ), JSON.stringify(result));
  }
  const tooDeep = { outputs: [output(nested(CEILING - 2))] };
  for (const call of [
    () => host.check(REQ, tooDeep),
    () => host.routeText(JSON.stringify(REQ), JSON.stringify(tooDeep)),
    () => server.respond(conn, REQ, tooDeep),
  ]) {
    assert.equal(thrown(call).code, "limit-exceeded");
  }
  // The sweep's input: thousands of levels, as text and as values.
  const deepText = "[".repeat(30_000) + "]".repeat(30_000);
  assert.equal(thrown(() => host.checkText(JSON.stringify(REQ), deepText)).code, "limit-exceeded");
  assert.equal(thrown(() => host.check(REQ, { outputs: [output(nested(4_000))] })).code, "limit-exceeded");
  // The same instance keeps answering.
  if (FLAVOUR !== "cfworker") host.check(REQ, result);
  host.check(REQ, server.respond(conn, REQ, { outputs: [output(nested(10))] }));
  const fresh = new mcp.Connection({ protocolVersion: "2026-12-01" });
  const small = mcp.declareTool(tool);
  assert.equal(small.advertise(fresh).name, "deep");
});

// Issue 19, item 5: a schema that nests applicators at every level recurses through all of them.
// The sweep's case: 997 levels, 4 nested allOf each. The default entry's validators run on the
// JavaScript stack (Ajv answers; cfworker overflows, reported as limit-exceeded); the full entry
// refuses what its stack cannot prove to hold and validates up to that margin, for nestings of
// 1 to 128 per level, without an engine error.
test("nested applicators per level: answered, or limit-exceeded, never an engine error", () => {
  const options = { limits: { maxDepth: CEILING } };
  const conn = new mcp.Connection({}, options);
  const toolFor = (nesting) => {
    let inner = { type: "object", properties: { a: { $ref: "#/$defs/n" } } };
    for (let i = 0; i < nesting; i++) inner = { allOf: [inner, { type: "object" }] };
    return {
      name: "deep",
      inputSchema: { type: "object" },
      outputVariants: [
        { audience: "assistant", format: "content" },
        { audience: "programmatic", format: "structured", schema: { $defs: { n: inner }, $ref: "#/$defs/n" } },
      ],
    };
  };
  const sweep = { outputs: [output(nested(CEILING - 3))] };
  const host4 = mcp.acceptTool(mcp.declareTool(toolFor(4), options).advertise(conn), conn);
  if (FLAVOUR === "ajv") {
    host4.check(REQ, sweep);
  } else {
    const e = thrown(() => host4.check(REQ, sweep));
    assert.equal(e.code, "limit-exceeded", String(e));
  }
  if (FLAVOUR !== "full") return;
  const WASM_SCHEMA_LEVELS = 1200; // core::stack::WASM_SCHEMA_LEVELS
  for (const nesting of [1, 4, 16, 64, 128]) {
    const perLevel = nesting + 2; // the descent, the schema, its allOf chain (the $ref is free)
    const deepest = Math.floor(WASM_SCHEMA_LEVELS / perLevel);
    const server = mcp.declareTool(toolFor(nesting), options);
    const host = mcp.acceptTool(server.advertise(conn), conn);
    const result = server.respond(conn, REQ, { outputs: [output(nested(deepest))] });
    host.check(REQ, result);
    const over = thrown(() => host.check(REQ, { outputs: [output(nested(deepest + 1))] }));
    assert.equal(over.code, "limit-exceeded", `${nesting}: ${over}`);
    assert.match(over.message, /stack/);
  }
});
