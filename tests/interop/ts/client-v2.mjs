// Interop client on `@modelcontextprotocol/client` 2.x through `mcp-outputs/sdk`.
// Usage: client-v2.mjs --revision R [--apps] (-- <server command...> | --url URL)
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { runClient } from "./client-common.mjs";

await runClient({
  sdkName: "@modelcontextprotocol/client 2.x",
  makeClient: (options) => new Client({ name: "mcp-outputs-interop-v2", version: "1.0.0" }, options),
  stdioTransport: ([command, ...args]) => new StdioClientTransport({ command, args, stderr: "inherit" }),
  httpTransport: (url) => new StreamableHTTPClientTransport(url),
});
