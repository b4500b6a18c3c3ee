// The package flavour a test file runs against, from MCP_OUTPUTS_FLAVOUR: `ajv` (the default
// build, Ajv as its validator; the default), `cfworker` (the default build, @cfworker/json-schema)
// or `full` (jsonschema inside the wasm). `make test` runs the suites once per flavour. The
// validator is the package's default one (`setValidator`), so that every object the tests make
// without `options.validator` uses it.
import * as core from "../npm/node.js";
import * as full from "../npm/full-node.js";
import { ajvProvider, cfworkerProvider } from "./providers.mjs";

export const FLAVOUR = process.env.MCP_OUTPUTS_FLAVOUR || "ajv";
/** The validator of each default-build flavour, by name. */
export const providers = { ajv: ajvProvider, cfworker: cfworkerProvider };
if (FLAVOUR !== "full" && !(FLAVOUR in providers)) throw new Error(`MCP_OUTPUTS_FLAVOUR=${FLAVOUR}: ajv, cfworker or full`);
if (FLAVOUR !== "full") core.setValidator(providers[FLAVOUR]());

/** The package entry of this flavour (a module namespace, as `import * as mcp` gives). */
export const mcp = FLAVOUR === "full" ? full : core;
