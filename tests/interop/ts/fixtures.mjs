// The catalogue every interop endpoint serves and calls: the walkthrough's tools
// (core/examples/fixtures/tools.json) with their outputs (produced.json), plus the broken tool of
// interop-broken.json. Read from the fixtures, never restated.
import { readFileSync } from "node:fs";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import { setValidator } from "mcp-outputs";

// The package's default build validates payloads with the caller's validator: every endpoint
// gives it the TypeScript SDK's own (v2's Ajv provider, which reads 2020-12 schemas; v1's
// default Ajv is draft-07 and refuses a `$schema` of 2020-12).
setValidator(new AjvJsonSchemaValidator());

const fixture = (name) =>
  JSON.parse(readFileSync(new URL(`../../../core/examples/fixtures/${name}`, import.meta.url), "utf8"));

const toolsFixture = fixture("tools.json");
const producedFixture = fixture("produced.json");
const broken = fixture("interop-broken.json");

export const APPS = "io.modelcontextprotocol/ui";
export const BROKEN_TOOL = broken.tool.name;

/** The served tools, for `serveTools`. */
export const servedTools = [
  ...toolsFixture.tools.map((tool) => ({ tool, call: async () => producedFixture.produced[tool.name] })),
  { tool: broken.tool, legacy: broken.legacy, call: async () => broken.produced },
];

/** Arguments per tool name. */
export const toolArguments = { ...producedFixture.arguments, [BROKEN_TOOL]: broken.arguments };

/** The catalogue's tool names, in order. */
export const catalogue = servedTools.map((s) => s.tool.name);

/** The server's capabilities: the fixture's, without Apps unless `apps`. */
export function serverCapabilities(apps) {
  const caps = structuredClone(toolsFixture.serverCapabilities);
  if (!apps) delete caps.extensions;
  return caps;
}

/** The client's capabilities: the fixture's Apps host, or its chat host. */
export const clientCapabilities = (apps) => structuredClone(toolsFixture.clientCapabilities[apps ? "apps" : "chat"]);

/** The `ui://` resources the catalogue names, each with a small View document. */
export const uiResources = toolsFixture.tools
  .map((t) => t._meta?.ui?.resourceUri)
  .filter((uri) => typeof uri === "string")
  .map((uri) => ({
    uri,
    name: uri,
    mimeType: "text/html;profile=mcp-app",
    text: `<!doctype html><title>${uri}</title><p>View for ${uri}</p>`,
  }));
