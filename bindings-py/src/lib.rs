//! Python binding of `mcp-outputs` (work in progress).
