// `mcp-outputs/manual` and `mcp-outputs/full/manual`: the API of the package's other entries,
// usable once `init` or `initSync` has been given the wasm (`mcp-outputs/core.wasm`, or
// `mcp-outputs/full.wasm` for the full entry). See "Runtimes and bundlers" in the README.
export * from "./index.js";

/**
 * What `init` takes: a WebAssembly.Module, the wasm's bytes (ArrayBuffer or a view), a Response
 * (or a promise of one), or a URL (or its string) to fetch. Typed structurally, so that the
 * types need neither the DOM library nor @types/node.
 */
export type InitInput = object | string;

/**
 * Initialises the package from the wasm, asynchronously; without an argument it fetches the wasm
 * beside the module. Once: later calls do nothing. Also takes `{ module_or_path }`.
 */
export declare function init(input?: InitInput | { module_or_path: InitInput }): Promise<void>;
export default init;

/** Initialises the package synchronously from a compiled module or the wasm's bytes. Once: later calls do nothing. */
export declare function initSync(input: object | { module: object }): void;
