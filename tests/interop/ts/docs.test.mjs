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
