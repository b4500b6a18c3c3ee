// mcp-outputs/validators: the Ajv and cfworker adapters read schemas as the contract does
// (formats are annotations, unknown keywords too, the dialect from `$schema`, each schema's
// `$id` its own), through the default entry's compileSchema and declareTool.
// (The whole JSON-Schema-Test-Suite runs through them in tests/schema-suite.)
import { test } from "node:test";
import assert from "node:assert/strict";
import Ajv from "ajv";
import Ajv2019 from "ajv/dist/2019.js";
import Ajv2020 from "ajv/dist/2020.js";
import { Validator } from "@cfworker/json-schema";
import { compileSchema, declareTool } from "../npm/node.js";
import { AJV_OPTIONS, dialectOf, fromAjv, fromCfworker, withEmptyNamesRequired, withoutFormat } from "../npm/validators.js";

const adapters = {
  ajv: () => fromAjv({ "2020-12": Ajv2020, "2019-09": Ajv2019, "draft-07": Ajv }),
  cfworker: () => fromCfworker(Validator),
};
const check = (validator, schema, instance) => compileSchema(schema, { validator }).validate(instance)?.code ?? "valid";

for (const [name, make] of Object.entries(adapters)) {
  test(`${name}: format is an annotation, in every dialect the adapter is given`, () => {
    const validator = make();
    for (const $schema of [undefined, "https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema", "http://json-schema.org/draft-07/schema#"]) {
      const schema = { ...($schema ? { $schema } : {}), type: "object", properties: { at: { type: "string", format: "date-time" }, mail: { format: "email" } } };
      assert.equal(check(validator, schema, { at: "not a date", mail: "nobody" }), "valid", `${name} ${$schema}`);
      assert.equal(check(validator, schema, { at: 7 }), "schema-violation", `${name} ${$schema}`);
    }
  });

  test(`${name}: unknown keywords are annotations; violations say where`, () => {
    const validator = make();
    assert.equal(check(validator, { type: "object", "x-unknown": { anything: 1 } }, {}), "valid");
    const e = compileSchema({ type: "object", properties: { a: { type: "array", items: { type: "integer" } } } }, { validator }).validate({ a: [1, "two"] });
    assert.equal(e.code, "schema-violation");
    assert.equal(e.path, "/a/1");
  });

  test(`${name}: two tools declaring one $id do not collide`, () => {
    const validator = make();
    const tool = (n, type) => ({
      name: `t${n}`,
      inputSchema: { type: "object" },
      outputVariants: [
        { audience: "assistant", format: "content" },
        { audience: "programmatic", format: "structured", schema: { $id: "https://example.com/result", type: "object", properties: { v: { type } } } },
      ],
    });
    declareTool(tool(1, "string"), { validator });
    declareTool(tool(2, "integer"), { validator });
    assert.equal(check(validator, { $id: "https://example.com/result", properties: { v: { type: "integer" } } }, { v: 1 }), "valid");
    assert.equal(check(validator, { $id: "https://example.com/result", properties: { v: { type: "string" } } }, { v: 1 }), "schema-violation");
  });

  // Finding 10 (docs/fuzzing.md): Ajv 8 let a value without a required member named "" pass.
  test(`${name}: a member named "" is required like any other`, () => {
    const validator = make();
    const cases = [
      [{ type: "object", required: [""] }, {}, "schema-violation"],
      [{ type: "object", required: [""] }, { "": 1 }, "valid"],
      [{ required: [""] }, "not an object", "valid"],
      [{ required: ["", "a"] }, { "": 1 }, "schema-violation"],
      [{ required: ["", "a"] }, { "": 1, a: 2 }, "valid"],
      [{ properties: { x: { required: [""] } } }, { x: {} }, "schema-violation"],
      [{ properties: { x: { required: [""] } } }, { x: { "": null } }, "valid"],
      [{ dependentRequired: { a: [""] } }, { a: 1 }, "schema-violation"],
      [{ dependentRequired: { a: [""] } }, { a: 1, "": 2 }, "valid"],
      [{ dependentRequired: { a: [""] } }, {}, "valid"],
      [{ dependentRequired: { "": [""] } }, { "": 1 }, "valid"],
      [{ $schema: "http://json-schema.org/draft-07/schema#", dependencies: { a: [""] } }, { a: 1 }, "schema-violation"],
      [{ $schema: "http://json-schema.org/draft-07/schema#", dependencies: { a: [""] } }, { a: 1, "": 0 }, "valid"],
    ];
    for (const [schema, instance, want] of cases) {
      assert.equal(check(validator, schema, instance), want, `${name}: ${JSON.stringify(schema)} on ${JSON.stringify(instance)}`);
    }
  });
}

test("withEmptyNamesRequired: leaves a schema without a demand for \"\" as it is, and the caller's schema unchanged", () => {
  const plain = { type: "object", required: ["a"] };
  assert.equal(withEmptyNamesRequired(plain), plain);
  const named = { type: "object", required: ["a"], properties: { "": { type: "string" } } };
  assert.deepEqual(withEmptyNamesRequired(named), named);
  const schema = { type: "object", required: [""], allOf: [{ minProperties: 1 }], dependentRequired: { a: ["", "b"] } };
  const before = JSON.stringify(schema);
  const fixed = withEmptyNamesRequired(schema);
  assert.equal(JSON.stringify(schema), before);
  assert.equal(fixed.required, undefined);
  assert.deepEqual(fixed.dependentRequired, { a: ["b"] });
  assert.equal(fixed.allOf.length, 3);
  assert.deepEqual(fixed.allOf[0], { minProperties: 1 });
});

test("fromAjv: a class alone is 2020-12; the contract's options win over the caller's", () => {
  const validator = fromAjv(Ajv2020, { strict: true, validateFormats: true });
  assert.equal(check(validator, { type: "string", format: "email", "x-note": 1 }, "nobody"), "valid");
  // A dialect it was not given is the package's invalid-schema, naming it.
  assert.throws(
    () => compileSchema({ $schema: "http://json-schema.org/draft-07/schema#", type: "string" }, { validator }),
    (e) => e.code === "invalid-schema" && /draft-07/.test(e.message),
  );
  assert.deepEqual({ ...AJV_OPTIONS }, { strict: false, validateFormats: false });
  assert.throws(() => fromAjv(null), TypeError);
});

test("fromAjv: an instance is used as given", () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const validator = fromAjv({ "2020-12": ajv });
  assert.equal(check(validator, { $id: "https://example.com/x", type: "integer" }, 1), "valid");
  assert.ok(ajv.getSchema("https://example.com/x"), "compiled by the instance given");
});

test("fromCfworker: refuses anything but the class", () => {
  assert.throws(() => fromCfworker({}), TypeError);
});

test("dialectOf: $schema with or without the empty fragment, 2020-12 otherwise", () => {
  assert.equal(dialectOf({}), "2020-12");
  assert.equal(dialectOf(true), "2020-12");
  assert.equal(dialectOf({ $schema: "http://json-schema.org/draft-07/schema#" }), "draft-07");
  assert.equal(dialectOf({ $schema: "https://json-schema.org/draft/2019-09/schema" }), "2019-09");
  assert.equal(dialectOf({ $schema: "http://json-schema.org/draft-04/schema" }), "draft-04");
});

test("withoutFormat: only the keyword, in schema positions; data and property names named format stay", () => {
  const schema = JSON.parse(`{
    "format": "uri", "const": {"format": 1}, "enum": [{"format": 2}], "default": {"format": 3},
    "properties": {"format": {"format": "date", "type": "string"}, "__proto__": {"format": "uuid"}},
    "items": {"format": "email"}, "prefixItems": [{"format": "ipv4"}], "$defs": {"d": {"anyOf": [{"format": "ipv6"}]}},
    "x-unknown": {"format": "kept"}
  }`);
  const out = withoutFormat(schema);
  assert.deepEqual(
    JSON.parse(JSON.stringify(out)),
    JSON.parse(`{
      "const": {"format": 1}, "enum": [{"format": 2}], "default": {"format": 3},
      "properties": {"format": {"type": "string"}, "__proto__": {}},
      "items": {}, "prefixItems": [{}], "$defs": {"d": {"anyOf": [{}]}},
      "x-unknown": {"format": "kept"}
    }`),
  );
  assert.equal(Object.getPrototypeOf(out.properties), Object.prototype, "a __proto__ member stays a member");
  assert.equal(schema.format, "uri", "the caller's schema is not changed");
});
