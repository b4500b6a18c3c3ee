// Browser and bundler entry of the default flavour: fetches and compiles the wasm next to this
// file (top-level await), e.g. from `<script type="module">` or a bundler that understands
// `new URL(..., import.meta.url)`. An instance made after a trap (see api.js) reuses the
// compiled module, synchronously.
import { createModule } from "./wasm/core/mcp_outputs_js.js";
import { bind, McpOutputsError } from "./api.js";

const first = createModule();
const exports = await first.default({ module_or_path: new URL("./wasm/core/mcp_outputs_js_bg.wasm", import.meta.url) });
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
