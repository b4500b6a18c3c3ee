// Node entry of the `full` flavour (`mcp-outputs/full`): jsonschema inside the wasm, for hosts
// that want no JavaScript validator. The same wasm file as the browser entry of this flavour.
import { readFileSync } from "node:fs";
import { createModule } from "./wasm/full/mcp_outputs_js.js";
import { bind, McpOutputsError } from "./api.js";

const compiled = new WebAssembly.Module(readFileSync(new URL("./wasm/full/mcp_outputs_js_bg.wasm", import.meta.url)));
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
