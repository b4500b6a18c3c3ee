// docs/sdk-typescript.md's two programs, run as written: the client spawns the server over stdio
// (files written next to this package's node_modules, so the SDKs and mcp-outputs resolve).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const doc = readFileSync(new URL("../../../docs/sdk-typescript.md", import.meta.url), "utf8");
const programs = Object.fromEntries(
  [...doc.matchAll(/```js\n\/\/ (\S+\.mjs)\n([\s\S]*?)```/g)].map((m) => [m[1], m[2]]),
);

test("docs/sdk-typescript.md: the server and client programs run as written", () => {
  assert.deepEqual(Object.keys(programs).sort(), ["client.mjs", "server.mjs"]);
  const dir = mkdtempSync(join(fileURLToPath(new URL("..", import.meta.url)), ".docs-"));
  try {
    for (const [name, text] of Object.entries(programs)) writeFileSync(join(dir, name), text);
    const out = execFileSync(process.execPath, ["client.mjs"], { cwd: dir, encoding: "utf8", timeout: 60_000 });
    assert.equal(out.trim(), JSON.stringify(["2 customers match Globex"]));
    assert.match(doc, /Prints `\["2 customers match Globex"\]`/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("bindings-js/npm/README.md: the mcp-outputs/sdk snippet runs as written (its free names bound to real SDK objects)", async () => {
  const readme = readFileSync(new URL("../../../bindings-js/npm/README.md", import.meta.url), "utf8");
  const snippet = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes("mcp-outputs/sdk"));
  assert.ok(snippet, "the README has the SDK snippet");
  const body = snippet
    .split("\n")
    .filter((line) => !line.startsWith("import "))
    .join("\n");
  const { Server, InMemoryTransport } = await import("@modelcontextprotocol/server");
  const { Client } = await import("@modelcontextprotocol/client");
  const sdk = await import("mcp-outputs/sdk");
  const { servedTools, toolArguments } = await import("./fixtures.mjs");
  const search = servedTools.find((s) => s.tool.name === "search_customers");
  const server = new Server({ name: "s", version: "1" }, { capabilities: { tools: {} } });
  const client = new Client({ name: "c", version: "1" });
  const [serverSide, transport] = InMemoryTransport.createLinkedPair();
  const run = new Function(
    "serveTools", "connectTools", "jsonSchemaValidator", "server", "client", "transport", "declaration", "produced",
    `return (async () => { ${body}; return route; })();`,
  );
  // The server must be listening before the client connects: connect it once serveTools ran.
  const serveAndConnect = (s, tools) => {
    const out = sdk.serveTools(s, tools);
    void s.connect(serverSide);
    return out;
  };
  const route = await run(serveAndConnect, sdk.connectTools, sdk.jsonSchemaValidator, server, client, transport, search.tool, await search.call(toolArguments.search_customers));
  assert.deepEqual(route.model.map((o) => o.audience), ["assistant"]);
  await client.close();
});
