// Browser entry of the `full` flavour (`mcp-outputs/full`): jsonschema inside the wasm, for
// pages whose Content-Security-Policy forbids `unsafe-eval` (Ajv generates code). Fetches the
// wasm next to this file; the same file as the Node entry of this flavour.
import { createModule } from "./wasm/full/mcp_outputs_js.js";
import { bind, McpOutputsError } from "./api.js";

const first = createModule();
const exports = await first.default({ module_or_path: new URL("./wasm/full/mcp_outputs_js_bg.wasm", import.meta.url) });
const compiled = first.__wbg_module();
let fresh = { raw: first, memory: exports.memory };
const api = bind(() => {
  if (fresh !== null) {
    const once = fresh;
    fresh = null;
    return once;
  }
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
