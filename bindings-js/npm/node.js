// Node entry: loads the speed-optimised wasm synchronously at import.
import { readFileSync } from "node:fs";
import * as raw from "./wasm/node/mcp_outputs_js.js";
import { bind, McpOutputsError } from "./api.js";

const exports = raw.initSync({ module: readFileSync(new URL("./wasm/node/mcp_outputs_js_bg.wasm", import.meta.url)) });
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
