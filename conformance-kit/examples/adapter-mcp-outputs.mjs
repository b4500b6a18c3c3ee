// An adapter for examples/runner.mjs over one implementation: the npm package mcp-outputs
// (its `full` entry, whose validator is inside the wasm), through its `runOperation`, which
// takes the contract's inputs as they are. An implementation with its own API maps each op
// onto it here instead: `declare` onto its tool declaration, `route` onto its client's router,
// and so on, and reports its errors by the contract's codes.
import { runOperation, McpOutputsError } from "mcp-outputs/full";

export function run(op, input) {
  try {
    return { ok: runOperation(op, input) };
  } catch (e) {
    if (!(e instanceof McpOutputsError)) throw e;
    const error = { code: e.code };
    if (e.jsonrpcCode !== undefined && e.jsonrpcCode !== null) error.jsonrpc = e.jsonrpcCode;
    return { error };
  }
}
