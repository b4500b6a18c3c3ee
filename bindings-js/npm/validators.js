// mcp-outputs/validators: Ajv and @cfworker/json-schema set up the way the contract reads a
// schema, for the default entry (`setValidator`, `options.validator`). The package imports
// neither: you pass in the classes you already depend on.
//
// The contract's reading (the same in the `full` entry and in Python, whose validator is
// jsonschema inside the core):
//   - the dialect is the one `$schema` names (2020-12 when it names none);
//   - `format` is an annotation, never asserted (the 2020-12 default);
//   - unknown keywords are annotations (no "strict mode" refusals);
//   - nothing is fetched (the core refuses a `$ref` that leaves the schema before a validator
//     sees it);
//   - a schema's `$id` belongs to that schema only: two tools declaring one `$id` do not collide.

/** The dialects the core knows, by the meta-schema URI `$schema` names (without `#`). */
const DIALECTS = {
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "http://json-schema.org/draft-07/schema": "draft-07",
  "http://json-schema.org/draft-06/schema": "draft-06",
  "http://json-schema.org/draft-04/schema": "draft-04",
};

/** The dialect `schema` names: "2020-12" (also when it names none), "2019-09", "draft-07",
 * "draft-06" or "draft-04". (The core has already refused any other `$schema`.) */
export function dialectOf(schema) {
  const uri = schema !== null && typeof schema === "object" && typeof schema.$schema === "string" ? schema.$schema : "";
  return DIALECTS[uri.replace(/#$/, "")] ?? "2020-12";
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
// An own data property, even for "__proto__" (a JSON member like any other).
const put = (obj, key, value) => Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });

// The SDKs' answer shape; `instancePath` (a JSON Pointer below the value) lets mcp-outputs say
// where a violation is.
const valid = (input) => ({ valid: true, data: input, errorMessage: undefined });
const invalid = (errorMessage, instancePath) => ({ valid: false, data: undefined, errorMessage, instancePath });

/** The Ajv options the contract needs; yours are merged under them. */
export const AJV_OPTIONS = Object.freeze({ strict: false, validateFormats: false });

/**
 * A validator for the default entry backed by Ajv 8.
 *
 * `dialects` is an Ajv class for 2020-12 (`import Ajv2020 from "ajv/dist/2020.js"`), or an
 * object mapping dialects ("2020-12", "2019-09", "draft-07", "draft-06", "draft-04") to an Ajv
 * class or an Ajv instance. A class is constructed here with `{...options, ...AJV_OPTIONS}`; an
 * instance is used as given (make it with `strict: false, validateFormats: false`; for draft 6,
 * add `ajv/dist/refs/json-schema-draft-06.json` with `addMetaSchema`). A schema of a dialect with
 * no Ajv throws when it is read (the package reports `invalid-schema`).
 */
export function fromAjv(dialects, options = {}) {
  const given = typeof dialects === "function" ? { "2020-12": dialects } : dialects;
  if (!isObject(given)) throw new TypeError("fromAjv: pass an Ajv class (ajv/dist/2020.js) or an object of Ajv classes or instances by dialect");
  const instances = new Map();
  const ajvFor = (dialect) => {
    if (!instances.has(dialect)) {
      const entry = given[dialect];
      if (entry === undefined) return undefined;
      instances.set(dialect, typeof entry === "function" ? new entry({ ...options, ...AJV_OPTIONS }) : entry);
    }
    return instances.get(dialect);
  };
  return {
    getValidator(schema) {
      const dialect = dialectOf(schema);
      const ajv = ajvFor(dialect);
      if (ajv === undefined) throw new Error(`fromAjv: no Ajv given for JSON Schema ${dialect}`);
      // Ajv keeps every compiled `$id` in one registry and refuses a second schema with the same
      // one; each declared schema stands alone, so the previous one is dropped.
      if (isObject(schema) && typeof schema.$id === "string") ajv.removeSchema(schema.$id);
      const validate = ajv.compile(withEmptyNamesRequired(schema));
      return (input) => {
        if (validate(input)) return valid(input);
        return invalid(ajv.errorsText(validate.errors), validate.errors?.[0]?.instancePath ?? "");
      };
    },
  };
}

/**
 * A validator for the default entry backed by @cfworker/json-schema (no code generation: runs
 * under a strict Content-Security-Policy and on Workers).
 *
 * `Validator` is the class (`import { Validator } from "@cfworker/json-schema"`). cfworker
 * asserts `format` and has no switch for it, so every `format` keyword is taken out of a copy
 * of the schema before cfworker reads it: an annotation, as the contract reads it. `options.
 * shortCircuit` (default true) stops at the first error.
 */
export function fromCfworker(Validator, options = {}) {
  if (typeof Validator !== "function") throw new TypeError('fromCfworker: pass the Validator class of "@cfworker/json-schema"');
  const shortCircuit = options.shortCircuit ?? true;
  return {
    getValidator(schema) {
      const dialect = dialectOf(schema);
      const draft = { "2020-12": "2020-12", "2019-09": "2019-09", "draft-07": "7", "draft-06": "7", "draft-04": "4" }[dialect];
      const validator = new Validator(withoutFormat(schema), draft, shortCircuit);
      return (input) => {
        const result = validator.validate(input);
        if (result.valid) return valid(input);
        // cfworker lists the enclosing failures first: the last one is the failing location.
        const last = result.errors.at(-1);
        return invalid(
          result.errors.map((e) => `${e.instanceLocation}: ${e.error}`).join("; "),
          last ? last.instanceLocation.replace(/^#/, "") : "",
        );
      };
    },
  };
}

// Keywords whose value is a schema, an array of schemas, or an object of schemas: the places a
// `format` keyword can be (a `format` member anywhere else, e.g. under `properties` or inside
// `const`, is data or a property name and is kept).
const SCHEMA = new Set([
  "additionalItems", "additionalProperties", "contains", "contentSchema", "else", "if", "items",
  "not", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties",
]);
const SCHEMAS = new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"]);
const SCHEMA_MAP = new Set(["$defs", "definitions", "dependentSchemas", "patternProperties", "properties", "dependencies"]);

/** A copy of `schema` with `fix` applied to each schema object in it, innermost first (schema
 * positions only: what sits under `properties` or inside `const` is data or a property name). */
function rewrite(schema, fix) {
  if (!isObject(schema)) return schema;
  const out = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (SCHEMA.has(keyword) && isObject(value)) put(out, keyword, rewrite(value, fix));
    else if (SCHEMAS.has(keyword) && Array.isArray(value)) put(out, keyword, value.map((v) => rewrite(v, fix)));
    else if (SCHEMA_MAP.has(keyword) && isObject(value)) {
      const map = {};
      for (const [k, v] of Object.entries(value)) put(map, k, rewrite(v, fix));
      put(out, keyword, map);
    } else put(out, keyword, value);
  }
  return fix(out);
}

/** A copy of `schema` without its `format` keywords (schema positions only). */
export function withoutFormat(schema) {
  return rewrite(schema, (s) => {
    delete s.format;
    return s;
  });
}

// Ajv 8 (8.20) checks a required member named "" as `(data[""] === undefined) && (missing = "")`:
// the assignment is falsy, so a value without the member passes (`required`, `dependentRequired`,
// draft 7's array `dependencies`; docs/fuzzing.md, finding 10). The same demand, in keywords Ajv
// reads right: the value is not an object, or `properties: {"": {not: {}}}` fails on it (it
// fails exactly when the member is there; `{not: {}}` rather than `false`, which draft 4 lacks).
const NOT_AN_OBJECT = { not: { type: "object" } };
const HAS_EMPTY_NAME = { not: { properties: { "": { not: {} } } } };

/** `schema`, or a copy in which every demand for a member named "" is restated for Ajv. */
export function withEmptyNamesRequired(schema) {
  if (!JSON.stringify(schema).includes('""')) return schema;
  const without = (names) => names.filter((name) => name !== "");
  return rewrite(schema, (s) => {
    const demands = [];
    if (Array.isArray(s.required) && s.required.includes("")) {
      // Draft 4 wants a `required` of one name or more.
      if (without(s.required).length > 0) put(s, "required", without(s.required));
      else delete s.required;
      demands.push({ anyOf: [NOT_AN_OBJECT, HAS_EMPTY_NAME] });
    }
    for (const keyword of ["dependentRequired", "dependencies"]) {
      if (!isObject(s[keyword])) continue;
      const map = {};
      for (const [trigger, names] of Object.entries(s[keyword])) {
        const fixed = Array.isArray(names) && names.includes("");
        put(map, trigger, fixed ? without(names) : names);
        // When the trigger is "" itself, the member it demands is there.
        if (fixed && trigger !== "") demands.push({ anyOf: [NOT_AN_OBJECT, { not: { required: [trigger] } }, HAS_EMPTY_NAME] });
      }
      put(s, keyword, map);
    }
    if (demands.length > 0) put(s, "allOf", [...(Array.isArray(s.allOf) ? s.allOf : []), ...demands]);
    return s;
  });
}
