// Answers that say what went wrong (issue 22, item 4): the common mistakes of a first user get
// their own error, where they are made, with the valid values named.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FLAVOUR, mcp, providers } from "./flavour.mjs";
import { thrown } from "./support.mjs";

const TOOL = {
  name: "t",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    { audience: "programmatic", format: "structured", schema: { type: "object" } },
  ],
};
const STRUCTURED = [{ audience: "programmatic", format: "structured" }];
const RESULT = { outputs: [{ audience: "programmatic", format: "structured", structuredContent: {} }] };

test("a missing validator is missing-validator where the schema is read, not invalid-schema at first use", (t) => {
  if (FLAVOUR === "full") return t.skip("the full entry has its own validator");
  assert.equal(mcp.hasValidator, false, "the default entry has no validator of its own");
  mcp.setValidator(null);
  try {
    const conn = new mcp.Connection();
    for (const [label, fn] of [
      ["acceptTool", () => mcp.acceptTool(TOOL, conn)],
      ["declareTool", () => mcp.declareTool(TOOL)],
    ]) {
      const error = thrown(fn);
      assert.deepEqual([error.code, error.path], ["missing-validator", "/outputVariants/1/schema"], label);
      assert.match(error.message, /options\.validator .*setValidator/);
    }
    // A tool without a schema needs no validator.
    assert.equal(mcp.acceptTool({ ...TOOL, outputVariants: [TOOL.outputVariants[0]] }, conn).name, "t");
  } finally {
    mcp.setValidator(providers[FLAVOUR]());
  }
});

test("a validator of the wrong shape is invalid-validator on first use, never a schema-violation", (t) => {
  if (FLAVOUR === "full") return t.skip("the full entry has its own validator");
  const shapes = {
    "Ajv's boolean": () => true,
    "a false boolean": () => false,
    "{valid: 1}": () => ({ valid: 1 }),
    "a Promise": async () => ({ valid: true }),
    undefined: () => undefined,
  };
  for (const [label, validate] of Object.entries(shapes)) {
    const conn = new mcp.Connection({}, { validator: { getValidator: () => validate } });
    const host = mcp.acceptTool(TOOL, conn);
    const error = thrown(() => host.route(STRUCTURED, RESULT));
    assert.equal(error.code, "invalid-validator", label);
    assert.match(error.message, /\{valid: boolean, errorMessage\?: string\}/, label);
  }
  // The right shape: a verdict.
  const good = new mcp.Connection({}, { validator: { getValidator: () => () => ({ valid: false, errorMessage: "no" }) } });
  assert.equal(thrown(() => mcp.acceptTool(TOOL, good).route(STRUCTURED, RESULT)).code, "schema-violation");
});

test("unknown keys of a connection object are refused, with the valid ones named", () => {
  const error = thrown(() => new mcp.Connection({ protocol_version: "2025-06-18" }));
  assert.deepEqual([error.code, error.path], ["malformed", "/protocol_version"]);
  assert.match(error.message, /protocolVersion, negotiated/);
  const init = { protocolVersion: "2025-06-18", clientCapabilities: {}, serverCapabilities: {}, capabilities: {} };
  const negotiate = thrown(() => mcp.Connection.negotiate(init));
  assert.deepEqual([negotiate.code, negotiate.path], ["malformed", "/capabilities"]);
  assert.equal(new mcp.Connection({ protocolVersion: "2025-06-18", negotiated: [] }).protocolVersion, "2025-06-18");
});

test("an unknown mode names the valid modes", () => {
  const host = mcp.acceptTool(TOOL, new mcp.Connection());
  const error = thrown(() => host.plan({ mode: "Code" }));
  assert.deepEqual([error.code, error.path], ["malformed", "/mode"]);
  assert.match(error.message, /modes: conversational, code, structured-model, user-media, host-table, apps, app-only/);
});

test("route without requestedOutputs says the request asked for assistant/content only", () => {
  const host = mcp.acceptTool(TOOL, new mcp.Connection());
  const error = thrown(() => host.route(undefined, RESULT));
  assert.equal(error.code, "unrequested-output");
  assert.match(error.message, /without requestedOutputs asks for assistant\/content only/);
  // With an explicit request, the message lists what was asked for.
  const text = { outputs: [{ audience: "assistant", format: "content", content: [{ type: "text", text: "x" }] }] };
  const other = thrown(() => host.route(STRUCTURED, text));
  assert.equal(other.code, "unrequested-output");
  assert.match(other.message, /it asked for programmatic\/structured\)/);
});
