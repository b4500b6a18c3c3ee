// `mcp-outputs/sdk` against the real SDKs (pinned in ../package.json), in process over their
// in-memory transports: both server adapters, both client adapters, errors, bad input, the
// 2026-12-01 limitation, and the jsonSchemaValidator provider.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { McpServer as McpServerV2, Server as ServerV2, InMemoryTransport as MemV2 } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { Client as ClientV2, ProtocolError } from "@modelcontextprotocol/client";
import { Server as ServerV1 } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer as McpServerV1 } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport as MemV1 } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { Connection, McpOutputsError, declareTool } from "mcp-outputs";
import { McpOutputsRpcError, connectTools, serveTools } from "mcp-outputs/sdk";
// The package's own validator for SDKs: the full build's, jsonschema inside the wasm (no code
// generation: fit for a strict Content-Security-Policy).
import { jsonSchemaValidator } from "mcp-outputs/full";
import { APPS, BROKEN_TOOL, clientCapabilities, servedTools, serverCapabilities, toolArguments } from "./fixtures.mjs";

const info = { name: "adapter-test", version: "1.0.0" };
const LEGACY = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const toolsFixture = JSON.parse(readFileSync(new URL("../../../core/examples/fixtures/tools.json", import.meta.url), "utf8"));

// A v2 server (one instance per connection, as serveStdio pins it) and a v2 client, linked in memory.
async function v2Pair({ apps = false, revision = "2025-11-25", tools = servedTools, client } = {}) {
  const [serverSide, clientSide] = MemV2.createLinkedPair();
  serveStdio(
    () => {
      const server = new ServerV2(info, { capabilities: serverCapabilities(apps) });
      serveTools(server, tools);
      return server;
    },
    { transport: serverSide },
  );
  const sdk = client ?? new ClientV2(info, { capabilities: clientCapabilities(apps) });
  return { sdk, tools: await connectTools(sdk, clientSide, { protocolVersion: revision }) };
}

async function v1Pair({ apps = false, revision = "2025-11-25", tools = servedTools } = {}) {
  const [serverSide, clientSide] = MemV1.createLinkedPair();
  const server = new ServerV1(info, { capabilities: serverCapabilities(apps) });
  serveTools(server, tools);
  await server.connect(serverSide);
  const sdk = new ClientV1(info, { capabilities: clientCapabilities(apps) });
  return { sdk, tools: await connectTools(sdk, clientSide, { protocolVersion: revision }) };
}

const pairs = { "v1 server + v1 client": v1Pair, "v2 server + v2 client": v2Pair };

for (const [label, pair] of Object.entries(pairs)) {
  for (const revision of [...LEGACY, ...(label.startsWith("v2") ? ["2026-07-28"] : [])]) {
    test(`${label} at ${revision}: the connection agrees the revision; every tool round-trips`, async () => {
      const { sdk, tools } = await pair({ revision });
      assert.equal(tools.protocolVersion, revision);
      for (const name of tools.entries.map((t) => t.name)) {
        if (name === BROKEN_TOOL) continue;
        const { result, route } = await tools.call(name, toolArguments[name]);
        assert.ok(Array.isArray(result.content) && result.content.length > 0, `${name}: legacy content`);
        assert.deepEqual(route.model.map((o) => o.audience), ["assistant"]);
      }
      await sdk.close();
    });
  }

  // Issue 20: the adapter passes the plan's local rule (LEG-8) to route. Before, an older
  // server's structuredContent in `code` mode landed in `dropped`.
  test(`${label}: code mode under older revisions routes legacy structuredContent by the plan's rule`, async () => {
    let routed = 0;
    for (const revision of ["2025-06-18", "2025-11-25"]) {
      const { sdk, tools } = await pair({ revision });
      for (const name of tools.entries.map((t) => t.name)) {
        if (name === BROKEN_TOOL) continue;
        const plan = tools.tool(name).plan({ mode: "code" });
        if (plan.legacyStructured === undefined) continue;
        const { result, route } = await tools.call(name, toolArguments[name], { mode: "code" });
        if (result.structuredContent === undefined) continue;
        assert.equal(plan.legacyStructured, "programmatic", name);
        assert.deepEqual(route.programmatic.map((o) => o.structuredContent), [result.structuredContent], `${name} at ${revision}`);
        assert.ok(!JSON.stringify(route.dropped).includes("structuredContent"), `${name}: ${JSON.stringify(route.dropped)}`);
        routed++;
      }
      await sdk.close();
    }
    assert.ok(routed > 0, "no tool sent legacy structuredContent in code mode");
  });

  test(`${label}: Apps is negotiated from what both sides sent (View payload only then)`, async () => {
    for (const apps of [false, true]) {
      const { sdk, tools } = await pair({ apps, revision: "2025-11-25" });
      assert.deepEqual(tools.connection.negotiated, apps ? [APPS] : []);
      const { route } = await tools.call("search_customers", toolArguments.search_customers);
      assert.equal(route.view !== null, apps);
      await sdk.close();
    }
  });

  test(`${label}: the loose params schema keeps requestedOutputs; a bad request is the SDK's error with data.mcpOutputsCode, the message once; the server keeps serving`, async () => {
    const { sdk, tools } = await pair({ revision: "2025-11-25" });
    const requestedOutputs = [{ audience: "assistant", format: "content" }];
    // What the package itself says for the same request.
    const conn = new Connection({ protocolVersion: "2025-11-25" });
    const own = (() => {
      try {
        declareTool(toolsFixture.tools[0]).select(conn, requestedOutputs);
      } catch (e) {
        return e;
      }
    })();
    assert.ok(own instanceof McpOutputsError);
    const call = (params) => (label.startsWith("v1") ? sdk.callTool(params) : sdk.callTool(params));
    const errorOf = (params) => call(params).then(() => assert.fail("expected a JSON-RPC error"), (e) => e);
    const e = await errorOf({ name: "search_customers", arguments: { query: "x" }, requestedOutputs });
    assert.ok(label.startsWith("v1") ? e instanceof McpError : e instanceof ProtocolError, e?.constructor?.name);
    assert.equal(e.code, own.toJsonRpcError().code);
    assert.equal(e.data.mcpOutputsCode, own.code);
    assert.equal(e.data.mcpOutputsCode, "requested-outputs-on-legacy-version");
    const message = own.toJsonRpcError().message;
    assert.equal(e.message, label.startsWith("v1") ? `MCP error ${e.code}: ${message}` : message);
    // More bad input: malformed requestedOutputs, an unknown tool, a broken produced output.
    const bad = await errorOf({ name: "search_customers", arguments: {}, requestedOutputs: "all" });
    assert.equal(bad.data.mcpOutputsCode, "malformed");
    const unknown = await errorOf({ name: "no_such_tool", arguments: {} });
    assert.equal(unknown.code, -32602);
    const broken = await errorOf({ name: BROKEN_TOOL, arguments: {} });
    assert.equal(broken.data.mcpOutputsCode, "schema-violation");
    // Still serving.
    const { route } = await tools.call("list_regions", {});
    assert.equal(route.model.length, 1);
    await sdk.close();
  });

  test(`${label}: a tool whose call throws, or produces garbage, is the SDK's error; the server keeps serving`, async () => {
    const failing = {
      tool: { ...toolsFixture.tools[3], name: "failing" },
      call: async () => {
        throw new Error("backend down");
      },
    };
    const garbage = { tool: { ...toolsFixture.tools[3], name: "garbage" }, call: async () => ({ outputs: 5 }) };
    const { sdk, tools } = await pair({ tools: [...servedTools, failing, garbage] });
    await assert.rejects(tools.call("failing", {}), /backend down/);
    // What a tool produced is untrusted too: the package's typed code reaches the client.
    await assert.rejects(tools.call("garbage", {}), (e) => e.code === -32603 && e.data?.mcpOutputsCode === "malformed");
    const { route } = await tools.call("list_regions", {});
    assert.equal(route.model.length, 1);
    await sdk.close();
  });
}

test("serveTools: a bad declaration gets the package's own typed error, before anything is served", () => {
  for (const { tool } of toolsFixture.invalidDeclarations) {
    const own = (() => {
      try {
        declareTool(tool);
      } catch (e) {
        return e;
      }
    })();
    assert.ok(own instanceof McpOutputsError);
    for (const server of [new ServerV2(info, { capabilities: { tools: {} } }), new ServerV1(info, { capabilities: { tools: {} } })]) {
      assert.throws(
        () => serveTools(server, [{ tool, call: () => ({ outputs: [] }) }]),
        (e) => e instanceof McpOutputsError && e.code === own.code && e.message === own.message,
      );
    }
  }
  const server = new ServerV2(info, { capabilities: { tools: {} } });
  for (const bad of [null, {}, [null], [{ tool: toolsFixture.tools[0] }]]) {
    assert.throws(() => serveTools(server, bad), (e) => e instanceof McpOutputsError && e.code === "malformed");
  }
  assert.throws(() => serveTools({}, []), (e) => e instanceof McpOutputsError && e.code === "malformed");
});

// Issue 22: on a server made without capabilities (`new McpServer({name, version})`, the SDKs'
// first example), serveTools failed with the SDK's "Server does not support tools".
test("serveTools on a bare McpServer / Server (no capabilities given): tools/list and tools/call work", async () => {
  const bare = [
    ["v2 McpServer", () => new McpServerV2(info), MemV2, (o) => new ClientV2(info, o)],
    ["v2 Server", () => new ServerV2(info), MemV2, (o) => new ClientV2(info, o)],
    ["v1 McpServer", () => new McpServerV1(info), MemV1, (o) => new ClientV1(info, o)],
    ["v1 Server", () => new ServerV1(info), MemV1, (o) => new ClientV1(info, o)],
  ];
  for (const [label, makeServer, Mem, makeClient] of bare) {
    const server = makeServer();
    serveTools(server, servedTools);
    const [serverSide, clientSide] = Mem.createLinkedPair();
    await server.connect(serverSide);
    const tools = await connectTools(makeClient({ capabilities: {} }), clientSide, { protocolVersion: "2025-11-25" });
    const name = tools.entries[0].name;
    const { result } = await tools.call(name, toolArguments[name]);
    assert.ok(Array.isArray(result.content) && result.content.length > 0, `${label}: a result`);
    // Once connected, the capabilities were sent: a second serveTools on a server that never
    // declared tools says what to do instead of the SDK's error.
    const late = makeServer();
    const [lateSide] = Mem.createLinkedPair();
    await late.connect(lateSide);
    assert.throws(
      () => serveTools(late, servedTools),
      (e) => e instanceof McpOutputsError && e.code === "malformed" && /before server\.connect/.test(e.message),
      label,
    );
  }
});

test("errors thrown for the SDK carry a numeric code and data.mcpOutputsCode", () => {
  const e = new McpOutputsRpcError({ code: -32602, message: "m", data: { mcpOutputsCode: "malformed" } });
  assert.equal(e.code, -32602);
  assert.equal(e.message, "m");
  assert.equal(e.data.mcpOutputsCode, "malformed");
});

test("2026-12-01 (documented limitation): the v2 server refuses the revision; the v2 client takes the pin and the raw tools/list, then rejects a result without content", async () => {
  // The v2 server (serveStdio) does not offer 2026-12-01 in server/discover: -32022.
  const [serverSide, clientSide] = MemV2.createLinkedPair();
  serveStdio(
    () => {
      const server = new ServerV2(info, { capabilities: serverCapabilities(false) });
      serveTools(server, servedTools);
      return server;
    },
    { transport: serverSide },
  );
  await assert.rejects(
    connectTools(new ClientV2(info, {}), clientSide, { protocolVersion: "2026-12-01" }),
    (e) => e.code === -32022 && /Unsupported protocol version: 2026-12-01/.test(e.message),
  );
  // A peer that does speak 2026-12-01: the package's core answering each request itself.
  const [peer, clientEnd] = MemV2.createLinkedPair();
  const conn = new Connection({ protocolVersion: "2026-12-01" });
  const entry = servedTools.find((s) => s.tool.name === "list_regions");
  const tool = declareTool(entry.tool);
  const cacheable = { ttlMs: 0, cacheScope: "private" };
  peer.onmessage = async (message) => {
    if (!("id" in message) || !message.method) return;
    const result =
      message.method === "server/discover"
        ? { resultType: "complete", supportedVersions: ["2026-12-01"], capabilities: { tools: {} }, serverInfo: info, ...cacheable }
        : message.method === "tools/list"
          ? { ...conn.toolsListResult([tool]), ...cacheable }
          : tool.respond(conn, message.params.requestedOutputs, await entry.call());
    await peer.send({ jsonrpc: "2.0", id: message.id, result });
  };
  await peer.start();
  const client = new ClientV2(info, {});
  const tools = await connectTools(client, clientEnd, { protocolVersion: "2026-12-01" });
  assert.equal(tools.protocolVersion, "2026-12-01");
  assert.deepEqual(tools.entries[0].outputVariants, entry.tool.outputVariants, "the raw entry keeps outputVariants");
  await assert.rejects(tools.call("list_regions", {}), /Invalid result for tools\/call[\s\S]*"content"/);
  await client.close();
  // v1 cannot leave initialize at all.
  const [, v1Side] = MemV1.createLinkedPair();
  await assert.rejects(
    connectTools(new ClientV1(info, {}), v1Side, { protocolVersion: "2026-07-28" }),
    (e) => e instanceof McpOutputsError && e.code === "unsupported-protocol-version",
  );
});

test("jsonSchemaValidator (full build): the package's compiled schemas behind the SDK's interface; errors name the JSON Pointer", () => {
  const provider = jsonSchemaValidator();
  const schema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
  const validate = provider.getValidator(schema);
  assert.deepEqual(validate({ n: 1 }), { valid: true, data: { n: 1 }, errorMessage: undefined });
  const bad = validate({ n: "one" });
  assert.equal(bad.valid, false);
  assert.match(bad.errorMessage, /^\/n: /);
  assert.throws(() => provider.getValidator({ type: 3 }), (e) => e.name === "McpOutputsError" && e.code === "invalid-schema");
});

// A plain SDK server (no adapter) whose tool advertises an outputSchema and returns a bad payload
// on request: the client's own output validation runs through the provider.
for (const [label, makeClient, Mem, makeServer] of [
  ["v2 client", (o) => new ClientV2(info, o), MemV2, () => new ServerV2(info, { capabilities: { tools: {} } })],
  ["v1 client", (o) => new ClientV1(info, o), MemV1, () => new ServerV1(info, { capabilities: { tools: {} } })],
]) {
  test(`jsonSchemaValidator plugged into the ${label}: valid results pass, a violation is refused with its pointer`, async () => {
    const server = makeServer();
    const tool = {
      name: "counter",
      inputSchema: { type: "object" },
      outputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    };
    const list = () => ({ tools: [tool] });
    const call = (request) => {
      const n = request.params.arguments?.bad ? "many" : 3;
      return { content: [{ type: "text", text: String(n) }], structuredContent: { n } };
    };
    if (label.startsWith("v2")) {
      server.setRequestHandler("tools/list", list);
      server.setRequestHandler("tools/call", call);
    } else {
      const { ListToolsRequestSchema, CallToolRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
      server.setRequestHandler(ListToolsRequestSchema, list);
      server.setRequestHandler(CallToolRequestSchema, call);
    }
    const [serverSide, clientSide] = Mem.createLinkedPair();
    await server.connect(serverSide);
    const client = makeClient({ jsonSchemaValidator: jsonSchemaValidator() });
    await client.connect(clientSide);
    await client.listTools();
    const ok = await client.callTool({ name: "counter", arguments: {} });
    assert.deepEqual(ok.structuredContent, { n: 3 });
    await assert.rejects(client.callTool({ name: "counter", arguments: { bad: true } }), /\/n: /);
    await client.close();
  });
}

test("client side: a server's bad tools/list is the package's typed error; bad arguments too", async () => {
  const server = new ServerV2(info, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", () => ({
    tools: [{ name: "t", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { n: { type: 5 } } } }],
  }));
  const [serverSide, clientSide] = MemV2.createLinkedPair();
  await server.connect(serverSide);
  const client = new ClientV2(info, {});
  // LIST-3: the bad Tool is excluded on its own, with the package's code and where; it is not callable.
  const tools = await connectTools(client, clientSide, { protocolVersion: "2025-11-25" });
  assert.deepEqual(
    tools.excluded.map((e) => [e.index, e.name, e.code, e.path.startsWith("/tools/0/outputSchema")]),
    [[0, "t", "invalid-schema", true]],
  );
  assert.throws(() => tools.tool("t"), (e) => e instanceof McpOutputsError && e.code === "malformed");
  await client.close();
  await assert.rejects(connectTools({}, clientSide), (e) => e instanceof McpOutputsError && e.code === "malformed");
  await assert.rejects(connectTools(new ClientV2(info, {}), null), (e) => e instanceof McpOutputsError && e.code === "malformed");
});

// Issue 22, item 5: over stdio, a v2 client pinned at 2026-07-28 runs its server/discover probe on
// a sibling transport the adapter never sees; connectTools then asks again through the public
// discover() (before, it read the client's private `_capabilities`). The client's Apps capability
// still reaches the negotiation, and the caller's transport object is left as it was.
test("v2 client over stdio at 2026-07-28: the opening is read through discover(); Apps negotiated from what was sent; the transport is not patched", async () => {
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  const server = fileURLToPath(new URL("./server-v2.mjs", import.meta.url));
  for (const apps of [false, true]) {
    const transport = new StdioClientTransport({ command: process.execPath, args: [server, ...(apps ? ["--apps"] : [])] });
    const ownSend = transport.send;
    const sdk = new ClientV2(info, { capabilities: clientCapabilities(apps) });
    const tools = await connectTools(sdk, transport, { protocolVersion: "2026-07-28" });
    assert.equal(tools.protocolVersion, "2026-07-28");
    assert.deepEqual(tools.connection.negotiated, apps ? [APPS] : []);
    assert.equal(transport.send, ownSend);
    assert.ok(!Object.hasOwn(transport, "onmessage") || typeof Object.getOwnPropertyDescriptor(transport, "onmessage").set !== "function");
    const { route } = await tools.call("search_customers", toolArguments.search_customers, apps ? { mode: "apps" } : undefined);
    if (apps) assert.ok(route.view !== null);
    await sdk.close();
  }
});
