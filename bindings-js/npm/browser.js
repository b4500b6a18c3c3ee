// Browser and bundler entry: fetches the size-optimised wasm next to this file (top-level
// await), e.g. from `<script type="module">` or a bundler that understands
// `new URL(..., import.meta.url)`.
import init, * as raw from "./wasm/web/mcp_outputs_js.js";
import { bind, McpOutputsError } from "./api.js";

const exports = await init({ module_or_path: new URL("./wasm/web/mcp_outputs_js_bg.wasm", import.meta.url) });
const api = bind(raw);

export { McpOutputsError };
export const {
  errorCodes,
  protocolVersions,
  coreVersion,
  Connection,
  ServerTool,
  ReceivedTool,
  declareTool,
  acceptTool,
  migrateTool,
  compileSchema,
  runOperation,
  contractOperations,
} = api;
/** Bytes of linear memory the wasm instance holds now (grows, never shrinks). */
export const wasmMemoryBytes = () => exports.memory.buffer.byteLength;
