// Node entry of the default flavour: the wasm without a JSON Schema validator (the caller's
// validator checks payloads: `options.validator` or `setValidator`), compiled synchronously at
// import; every instance (the first, and one after a trap: see api.js) is made from it.
import { readFileSync } from "node:fs";
import { createModule } from "./wasm/core/mcp_outputs_js.js";
import { bind, McpOutputsError } from "./api.js";

const compiled = new WebAssembly.Module(readFileSync(new URL("./wasm/core/mcp_outputs_js_bg.wasm", import.meta.url)));
const api = bind(() => {
  const raw = createModule();
  return { raw, memory: raw.initSync({ module: compiled }).memory };
});

export { McpOutputsError };
export const {
  errorCodes,
  protocolVersions,
  coreVersion,
  Connection,
  ServerTool,
  ReceivedTool,
  declareTool,
  declareTools,
  acceptTool,
  discoverTools,
  migrateTool,
  compileSchema,
  runOperation,
  contractOperations,
  hasValidator,
  setValidator,
  jsonSchemaValidator,
} = api;
/** Bytes of linear memory the wasm instance holds now (grows, never shrinks). */
export const wasmMemoryBytes = api.wasmMemoryBytes;
