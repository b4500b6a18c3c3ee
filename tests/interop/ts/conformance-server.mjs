// The example server the official conformance harness tests: the demo's catalogue
// (core/examples/fixtures) plus the tools the harness's `tools-*` and `json-schema-*` scenarios
// call, every one declared with outputVariants and served by `mcp-outputs/sdk` on
// `@modelcontextprotocol/server` 2.x over Streamable HTTP on 127.0.0.1. 2025-era traffic is served
// sessionfully (the scenarios that sample or elicit need the session); 2026-07-28 traffic by the
// SDK's per-request entry. Usage: conformance-server.mjs --http PORT
import { randomUUID } from "node:crypto";
import {
  Server,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
} from "@modelcontextprotocol/server";
import { serveTools } from "mcp-outputs/sdk";
import { servedTools, serverCapabilities, uiResources } from "./fixtures.mjs";
import { listenFetch, parseArgs } from "./http.mjs";

const opts = parseArgs(process.argv.slice(2));
const RED_PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
// A WAV header with no samples: a valid, minimal audio/wav document.
const SILENT_WAV = Buffer.from(
  "524946462400000057415645666d7420100000000100010044ac000088580100020010006461746100000000",
  "hex",
).toString("base64");
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A tool whose only variant is assistant content.
const contentTool = (name, description, call, inputSchema = { type: "object" }) => ({
  tool: { name, description, inputSchema, outputVariants: [{ audience: "assistant", format: "content" }] },
  call: async (args, ctx) => {
    const produced = await call(args, ctx);
    return { ...produced, outputs: [{ audience: "assistant", format: "content", content: produced.content }], content: undefined };
  },
});
const text = (t) => ({ type: "text", text: t });

const harnessTools = [
  contentTool("test_simple_text", "Returns simple text.", () => ({ content: [text("This is a simple text response for testing.")] })),
  contentTool("test_image_content", "Returns an image.", () => ({
    content: [{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }],
  })),
  contentTool("test_audio_content", "Returns audio.", () => ({
    content: [{ type: "audio", data: SILENT_WAV, mimeType: "audio/wav" }],
  })),
  contentTool("test_embedded_resource", "Returns an embedded resource.", () => ({
    content: [
      {
        type: "resource",
        resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
      },
    ],
  })),
  contentTool("test_multiple_content_types", "Returns text, an image and a resource.", () => ({
    content: [
      text("Multiple content types test:"),
      { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' },
      },
    ],
  })),
  contentTool("test_tool_with_logging", "Logs while it runs.", async (_args, ctx) => {
    await ctx.mcpReq.log("info", "Tool execution started");
    await pause(50);
    await ctx.mcpReq.log("info", "Tool processing data");
    await pause(50);
    await ctx.mcpReq.log("info", "Tool execution completed");
    return { content: [text("Tool with logging executed successfully")] };
  }),
  contentTool("test_error_handling", "Always fails (isError).", () => ({
    isError: true,
    content: [text("This tool intentionally returns an error for testing")],
  })),
  contentTool("test_tool_with_progress", "Reports progress.", async (_args, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (progressToken !== undefined) {
        await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress, total: 100 } });
      }
      if (progress < 100) await pause(50);
    }
    return { content: [text("Tool with progress executed successfully")] };
  }),
  contentTool(
    "test_sampling",
    "Asks the client's model.",
    async ({ prompt }, ctx) => {
      const answer = await ctx.mcpReq.requestSampling({
        messages: [{ role: "user", content: { type: "text", text: prompt } }],
        maxTokens: 100,
      });
      const reply = Array.isArray(answer.content) ? answer.content[0] : answer.content;
      return { content: [text(`LLM response: ${reply?.text ?? JSON.stringify(reply)}`)] };
    },
    { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
  ),
  contentTool(
    "test_elicitation",
    "Asks the user.",
    async ({ message }, ctx) => {
      const answer = await ctx.mcpReq.elicitInput({
        message,
        requestedSchema: {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          required: ["username", "email"],
        },
      });
      return { content: [text(`User response: ${JSON.stringify(answer)}`)] };
    },
    { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
  ),
  contentTool(
    "json_schema_2020_12_tool",
    "Tool with JSON Schema 2020-12 features",
    () => ({ content: [text("ok")] }),
    {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
      properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
      additionalProperties: false,
    },
  ),
];

function factory() {
  const server = new Server(
    { name: "mcp-outputs-conformance", version: "1.0.0" },
    { capabilities: { ...serverCapabilities(true), logging: {}, resources: {} } },
  );
  serveTools(server, [...servedTools, ...harnessTools]);
  // The Views the catalogue's tools name: plain SDK resources.
  server.setRequestHandler("resources/list", () => ({
    resources: uiResources.map(({ uri, name, mimeType }) => ({ uri, name, mimeType })),
  }));
  server.setRequestHandler("resources/read", (request) => ({
    contents: uiResources.filter((r) => r.uri === request.params.uri).map(({ uri, mimeType, text }) => ({ uri, mimeType, text })),
  }));
  return server;
}

const modern = createMcpHandler(factory, { legacy: "reject" });
const sessions = new Map();

async function legacy(request) {
  const id = request.headers.get("mcp-session-id");
  let transport = id ? sessions.get(id) : undefined;
  if (!transport) {
    if (id) return new Response("unknown session", { status: 404 });
    transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => sessions.set(sid, transport),
    });
    await factory().connect(transport);
  }
  return transport.handleRequest(request);
}

const http = listenFetch(Number(opts.http), async (request) =>
  (await isLegacyRequest(request.clone())) ? legacy(request) : modern.fetch(request),
);
http.on("listening", () => process.stderr.write(`listening on http://127.0.0.1:${http.address().port}/mcp\n`));
