// mcp-outputs/validators: Ajv and @cfworker/json-schema set up the way the contract reads a
// schema (dialect from `$schema`, 2020-12 by default; `format` an annotation; unknown keywords
// annotations; each schema's `$id` its own). The package imports neither: pass your own.
import type { JsonSchemaValidator } from "./index.js";

/** A JSON Schema dialect the core knows. */
export type Dialect = "2020-12" | "2019-09" | "draft-07" | "draft-06" | "draft-04";

/** The dialect `schema` names in `$schema`; "2020-12" when it names none. */
export declare function dialectOf(schema: unknown): Dialect;

/** An Ajv 8 class (`ajv/dist/2020.js`, `ajv/dist/2019.js`, `ajv`), structurally. */
export interface AjvClass {
  new (options?: Record<string, unknown>): AjvInstance;
}
/** An Ajv 8 instance, structurally. */
export interface AjvInstance {
  compile(schema: unknown): ((data: unknown) => boolean | Promise<unknown>) & { errors?: Array<{ instancePath?: string }> | null };
  removeSchema(schemaKeyRef?: unknown): unknown;
  errorsText(errors?: unknown): string;
}

/** The options `fromAjv` sets on every Ajv it constructs: `{strict: false, validateFormats: false}`. */
export declare const AJV_OPTIONS: Readonly<{ strict: false; validateFormats: false }>;

/**
 * A validator for the default entry backed by Ajv 8. `dialects`: the Ajv class for 2020-12
 * (`import Ajv2020 from "ajv/dist/2020.js"`), or an object of Ajv classes (constructed here with
 * `{...options, ...AJV_OPTIONS}`) or instances (used as given: make them with `strict: false,
 * validateFormats: false`) by dialect. A schema of a dialect without an Ajv is `invalid-schema`.
 */
export declare function fromAjv(
  dialects: AjvClass | Partial<Record<Dialect, AjvClass | AjvInstance>>,
  options?: Record<string, unknown>,
): JsonSchemaValidator;

/** The `Validator` class of @cfworker/json-schema, structurally. */
export interface CfworkerValidatorClass {
  new (schema: any, draft?: any, shortCircuit?: boolean): {
    validate(instance: any): { valid: boolean; errors: Array<{ instanceLocation: string; error: string }> };
  };
}

/**
 * A validator for the default entry backed by @cfworker/json-schema (no code generation: strict
 * CSP, Workers). `format` keywords are taken out of a copy of each schema (cfworker asserts
 * them; the contract does not). `shortCircuit` (default true): stop at the first error.
 */
export declare function fromCfworker(Validator: CfworkerValidatorClass, options?: { shortCircuit?: boolean }): JsonSchemaValidator;

/** A copy of `schema` without its `format` keywords (in schema positions only). */
export declare function withoutFormat<T>(schema: T): T;

/** `schema`, or a copy of it in which every demand for a member named "" (`required`,
 * `dependentRequired`, draft 7's array `dependencies`) is restated in keywords Ajv 8 reads right:
 * Ajv lets a value without such a member pass. `fromAjv` applies it to every schema it compiles. */
export declare function withEmptyNamesRequired<T>(schema: T): T;
