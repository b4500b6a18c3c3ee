// The bare schema API: `compileSchema` compiles a JSON Schema once with the core's rules (dialects,
// no external `$ref`, limits); `validate` answers null or the schema-violation error with the JSON
// Pointer of the failing location, for any number of instances.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mcp } from "./flavour.mjs";

const { McpOutputsError, compileSchema } = mcp;

const SCHEMA = {
  type: "object",
  properties: { items: { type: "array", items: { type: "object", required: ["id"], properties: { id: { type: "string" } } } } },
  required: ["items"],
};

test("compile once, validate many: null when valid, the violation with its JSON Pointer when not", () => {
  const schema = compileSchema(SCHEMA);
  for (let i = 0; i < 100; i++) assert.equal(schema.validate({ items: [{ id: `c${i}` }] }), null);
  const e = schema.validate({ items: [{ id: "ok" }, { id: 7 }] });
  assert.ok(e instanceof McpOutputsError);
  assert.equal(e.code, "schema-violation");
  assert.equal(e.path, "/items/1/id");
  const missing = schema.validate({});
  assert.equal(missing.code, "schema-violation");
  assert.equal(missing.path, "");
  // Still answering after violations.
  assert.equal(schema.validate({ items: [] }), null);
});

test("bad schemas get the package's typed errors (invalid-schema, external-ref, limit-exceeded, malformed)", () => {
  const cases = [
    [{ type: 12 }, "invalid-schema"],
    [{ $schema: "https://example.com/dialect" }, "invalid-schema"],
    ["a string", "invalid-schema"],
    [{ $ref: "https://example.com/schema.json" }, "external-ref"],
    [{ type: "object" }, "limit-exceeded", { limits: { maxBytes: 4 } }],
    [10n, "malformed"],
  ];
  for (const [schema, code, options] of cases) {
    assert.throws(() => compileSchema(schema, options), (e) => e instanceof McpOutputsError && e.code === code, code);
  }
  // An instance that is not JSON is malformed, returned like a violation (validate never throws for it).
  const schema = compileSchema(true);
  assert.equal(schema.validate(1n).code, "malformed");
  assert.equal(schema.validate({ any: "thing" }), null);
});

test("booleans and 2020-12 keywords", () => {
  assert.equal(compileSchema(false).validate(1).code, "schema-violation");
  const s = compileSchema({ $defs: { n: { type: "integer" } }, type: "array", prefixItems: [{ $ref: "#/$defs/n" }] });
  assert.equal(s.validate([1, "x"]), null);
  assert.equal(s.validate(["x"]).path, "/0");
});
