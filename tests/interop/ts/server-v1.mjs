// The interop catalogue served by the low-level Server of `@modelcontextprotocol/sdk` 1.x through
// `mcp-outputs/sdk`. Usage: server-v1.mjs [--apps] [--http PORT]   (stdio by default)
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ListResourcesRequestSchema, ReadResourceRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { serveTools } from "mcp-outputs/sdk";
import { servedTools, serverCapabilities, uiResources } from "./fixtures.mjs";
import { keepIdleSockets, parseArgs } from "./http.mjs";

const opts = parseArgs(process.argv.slice(2));

function makeServer() {
  const capabilities = { ...serverCapabilities(opts.apps), ...(opts.apps ? { resources: {} } : {}) };
  const server = new Server({ name: "mcp-outputs-interop-v1", version: "1.0.0" }, { capabilities });
  serveTools(server, servedTools);
  if (opts.apps) {
    // The Views the tools name: plain SDK resources.
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: uiResources.map(({ uri, name, mimeType }) => ({ uri, name, mimeType })),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, (request) => ({
      contents: uiResources.filter((r) => r.uri === request.params.uri).map(({ uri, mimeType, text }) => ({ uri, mimeType, text })),
    }));
  }
  return server;
}

if (opts.http) {
  // One Server per session, as the SDK's sessionful Streamable HTTP examples do.
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    try {
      const id = req.headers["mcp-session-id"];
      let transport = typeof id === "string" ? sessions.get(id) : undefined;
      if (!transport) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => sessions.set(sid, transport),
        });
        await makeServer().connect(transport);
      }
      await transport.handleRequest(req, res);
    } catch (e) {
      process.stderr.write(`http: ${e?.stack ?? e}\n`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  keepIdleSockets(http).listen(Number(opts.http), "127.0.0.1", () => {
    process.stderr.write(`listening on http://127.0.0.1:${http.address().port}/mcp\n`);
  });
} else {
  await makeServer().connect(new StdioServerTransport());
}
