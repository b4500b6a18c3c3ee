// The repository README's two JS examples, read from README.md and run as written (only their
// import lines are replaced by the package's exports), so they cannot drift from the API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mcp } from "./flavour.mjs";

const { Connection, McpOutputsError, acceptTool, declareTool } = mcp;

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) =>
  m[1]
    .split("\n")
    .filter((line) => !line.startsWith("import "))
    .join("\n"),
);
const hostBlock = blocks.find((b) => b.includes("acceptTool("));
const serverBlock = blocks.find((b) => b.includes("declareTool("));

const declaration = {
  name: "search_customers",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    { audience: "programmatic", format: "structured", schema: { type: "object", required: ["items"] } },
  ],
};
const computeOutputs = () => ({
  outputs: [
    { audience: "assistant", format: "content", content: [{ type: "text", text: "2 customers" }] },
    { audience: "programmatic", format: "structured", structuredContent: { items: ["c1", "c2"] } },
  ],
});

test("README has exactly the two JS examples", () => {
  assert.equal(blocks.length, 2);
  assert.ok(hostBlock && serverBlock);
});

test("README server example: declare → select → respond", () => {
  const example = new Function(
    "Connection",
    "McpOutputsError",
    "declareTool",
    "declaration",
    "computeOutputs",
    `${serverBlock}\nreturn callTool;`,
  );
  const callTool = example(Connection, McpOutputsError, declareTool, declaration, computeOutputs);
  const { result } = callTool({ requestedOutputs: [{ audience: "programmatic", format: "structured" }] });
  assert.deepEqual(result.outputs, [computeOutputs().outputs[1]]);
  assert.equal(callTool({ requestedOutputs: [] }).error.code, -32602);
});

test("README host example: plan → check → route", () => {
  const server = declareTool(declaration);
  const toolsListEntry = server.advertise(new Connection());
  const callTool = (requestedOutputs) => server.respond(new Connection(), requestedOutputs, computeOutputs());
  const example = new Function(
    "Connection",
    "acceptTool",
    "toolsListEntry",
    "callTool",
    `${hostBlock}\nreturn { tool, requestedOutputs, result, route, data, forModel };`,
  );
  const { tool, requestedOutputs, result, route, data, forModel } = example(Connection, acceptTool, toolsListEntry, callTool);
  assert.deepEqual(data, { items: ["c1", "c2"] });
  assert.deepEqual(forModel, []);
  assert.deepEqual(tool.routeText(JSON.stringify(requestedOutputs), JSON.stringify(result)), route);
});
