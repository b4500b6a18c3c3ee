// The JSON Schema validators the default build is tested with, each in the TypeScript SDK's
// `jsonSchemaValidator` shape (`getValidator(schema) -> (input) => {valid, data, errorMessage}`),
// set up as the core judges: the dialect a schema names in `$schema` (2020-12 when absent),
// formats not asserted (an annotation in 2020-12), nothing fetched.
// test/corpus.mjs runs every case with each; test/flavour.mjs picks one for the other suites.
import Ajv from "ajv";
import Ajv2019 from "ajv/dist/2019.js";
import Ajv2020 from "ajv/dist/2020.js";
import draft6 from "ajv/dist/refs/json-schema-draft-06.json" with { type: "json" };
import { Validator } from "@cfworker/json-schema";

const DRAFT = {
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "http://json-schema.org/draft-07/schema": "7",
  "http://json-schema.org/draft-06/schema": "6",
  "http://json-schema.org/draft-04/schema": "4",
};

/** The dialect `schema` names (without the empty fragment); 2020-12 when it names none. */
export function dialectOf(schema) {
  const uri = schema !== null && typeof schema === "object" && typeof schema.$schema === "string" ? schema.$schema : "";
  return DRAFT[uri.replace(/#$/, "")] ?? "2020-12";
}

// The SDK's answer; a failure may also say where (`instancePath`, a JSON Pointer below the
// value), which mcp-outputs then reports as the error's path.
const answer = (valid, input, errorMessage) =>
  valid ? { valid: true, data: input, errorMessage: undefined } : { valid: false, data: undefined, errorMessage };

/** Ajv 8: one instance per dialect; `strict: false`, so that unknown keywords are annotations
 * as the specification says. A schema's `$id` is removed from Ajv's registry before it is
 * compiled, so that two tools declaring one `$id` do not collide there. */
export function ajvProvider() {
  const options = { strict: false, validateFormats: false, allErrors: false };
  const draft7 = new Ajv(options);
  draft7.addMetaSchema(draft6);
  const instances = { "2020-12": new Ajv2020(options), "2019-09": new Ajv2019(options), 7: draft7, 6: draft7 };
  return {
    getValidator(schema) {
      const dialect = dialectOf(schema);
      const ajv = instances[dialect];
      if (ajv === undefined) throw new Error(`Ajv is not set up for draft ${dialect} here`);
      if (schema !== null && typeof schema === "object" && typeof schema.$id === "string") ajv.removeSchema(schema.$id);
      const validate = ajv.compile(schema);
      return (input) => {
        if (validate(input)) return answer(true, input);
        const first = validate.errors?.[0];
        return { ...answer(false, input, ajv.errorsText(validate.errors)), instancePath: first?.instancePath ?? "" };
      };
    },
  };
}

/** @cfworker/json-schema (edge runtimes: no code generation). */
export function cfworkerProvider() {
  return {
    getValidator(schema) {
      const validator = new Validator(schema, dialectOf(schema), true);
      return (input) => {
        const result = validator.validate(input);
        if (result.valid) return answer(true, input);
        // cfworker lists the enclosing failures first: the last one is the failing location.
        const last = result.errors.at(-1);
        const at = last ? last.instanceLocation.replace(/^#/, "") : "";
        return { ...answer(false, input, result.errors.map((e) => `${e.instanceLocation}: ${e.error}`).join("; ")), instancePath: at };
      };
    },
  };
}
