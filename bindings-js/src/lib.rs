//! WebAssembly binding of `mcp-outputs` (work in progress: see bindings-js/README).
