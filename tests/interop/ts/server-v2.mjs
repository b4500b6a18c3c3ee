// The interop catalogue served by `@modelcontextprotocol/server` 2.x through `mcp-outputs/sdk`.
// Usage: server-v2.mjs [--apps] [--http PORT]   (stdio by default)
import { Server, createMcpHandler } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { serveTools } from "mcp-outputs/sdk";
import { servedTools, serverCapabilities, uiResources } from "./fixtures.mjs";
import { listenFetch, parseArgs } from "./http.mjs";

const opts = parseArgs(process.argv.slice(2));

function factory() {
  const capabilities = { ...serverCapabilities(opts.apps), ...(opts.apps ? { resources: {} } : {}) };
  const server = new Server({ name: "mcp-outputs-interop-v2", version: "1.0.0" }, { capabilities });
  serveTools(server, servedTools);
  if (opts.apps) {
    // The Views the tools name: plain SDK resources.
    server.setRequestHandler("resources/list", () => ({
      resources: uiResources.map(({ uri, name, mimeType }) => ({ uri, name, mimeType })),
    }));
    server.setRequestHandler("resources/read", (request) => ({
      contents: uiResources.filter((r) => r.uri === request.params.uri).map(({ uri, mimeType, text }) => ({ uri, mimeType, text })),
    }));
  }
  return server;
}

if (opts.http) {
  const handler = createMcpHandler(factory);
  const http = listenFetch(Number(opts.http), (request) => handler.fetch(request));
  http.on("listening", () => process.stderr.write(`listening on http://127.0.0.1:${http.address().port}/mcp\n`));
} else {
  serveStdio(factory);
}
