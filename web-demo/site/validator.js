// The JSON Schema validator this page gives the package: its default build has none inside and
// validates structured payloads with the caller's, in the TypeScript SDKs' `jsonSchemaValidator`
// shape. @cfworker/json-schema generates no code, so the page needs no `unsafe-eval`. The dialect
// is the one a schema names in `$schema` (2020-12 when absent), as the package reads it.
import { Validator } from "@cfworker/json-schema";

const DRAFT = {
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "http://json-schema.org/draft-07/schema": "7",
  "http://json-schema.org/draft-06/schema": "7",
  "http://json-schema.org/draft-04/schema": "4",
};

const dialectOf = (schema) =>
  DRAFT[typeof schema?.$schema === "string" ? schema.$schema.replace(/#$/, "") : ""] ?? "2020-12";

export const validator = {
  getValidator(schema) {
    const compiled = new Validator(schema, dialectOf(schema), true);
    return (input) => {
      const { valid, errors } = compiled.validate(input);
      if (valid) return { valid: true, data: input, errorMessage: undefined };
      // cfworker lists the enclosing failures first: the last one is where the value fails.
      const last = errors.at(-1);
      return {
        valid: false,
        data: undefined,
        errorMessage: errors.map((e) => `${e.instanceLocation}: ${e.error}`).join("; "),
        instancePath: last ? last.instanceLocation.replace(/^#/, "") : "",
      };
    };
  },
};

export const VALIDATOR_NAME = "@cfworker/json-schema";
