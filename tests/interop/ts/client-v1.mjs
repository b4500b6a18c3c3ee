// Interop client on the Client of `@modelcontextprotocol/sdk` 1.x through `mcp-outputs/sdk`.
// Usage: client-v1.mjs --revision R [--apps] (-- <server command...> | --url URL)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { runClient } from "./client-common.mjs";

await runClient({
  sdkName: "@modelcontextprotocol/sdk 1.x",
  makeClient: (options) => new Client({ name: "mcp-outputs-interop-v1", version: "1.0.0" }, options),
  stdioTransport: ([command, ...args]) => new StdioClientTransport({ command, args, stderr: "inherit" }),
  httpTransport: (url) => new StreamableHTTPClientTransport(url),
});
