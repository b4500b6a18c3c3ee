// The JSON Schema validators the default build is tested with: the package's own adapters
// (mcp-outputs/validators, npm/validators.js), so that every suite tests what users are given.
// Each answers in the TypeScript SDK's `jsonSchemaValidator` shape and reads schemas as the core
// does: the dialect a schema names in `$schema` (2020-12 when absent), formats not asserted (an
// annotation in 2020-12), unknown keywords annotations, nothing fetched.
// test/corpus.mjs runs every case with each; test/flavour.mjs picks one for the other suites.
import Ajv from "ajv";
import Ajv2019 from "ajv/dist/2019.js";
import Ajv2020 from "ajv/dist/2020.js";
import draft6 from "ajv/dist/refs/json-schema-draft-06.json" with { type: "json" };
import { Validator } from "@cfworker/json-schema";
import { AJV_OPTIONS, dialectOf, fromAjv, fromCfworker } from "../npm/validators.js";

export { dialectOf };

/** Ajv 8 for 2020-12, 2019-09, draft 7 and draft 6 (one instance for both: draft 6's
 * meta-schema added), through `fromAjv`. */
export function ajvProvider() {
  const draft7 = new Ajv({ ...AJV_OPTIONS });
  draft7.addMetaSchema(draft6);
  return fromAjv({ "2020-12": Ajv2020, "2019-09": Ajv2019, "draft-07": draft7, "draft-06": draft7 });
}

/** @cfworker/json-schema (edge runtimes: no code generation), through `fromCfworker`. */
export function cfworkerProvider() {
  return fromCfworker(Validator);
}
