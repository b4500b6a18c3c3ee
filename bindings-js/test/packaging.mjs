// Packaging test: `npm pack` the package, install the tarball into a fresh temp project,
// import both flavours from Node ESM by name (`mcp-outputs`, `mcp-outputs/full`) and run a call;
// then load the browser entries of the installed package in headless Chromium (Debian's, driven
// by playwright-core) over a 127.0.0.1 server and run the call there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, rmSync, existsSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, extname, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { chromiumLaunchOptions } from "../../tests/browser/chromium.mjs";

const pkgDir = fileURLToPath(new URL("../npm/", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "mcp-outputs-pack-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

// A host and a server in a few lines: what the README shows. The default flavour is given a
// validator in the SDK's shape (a minimal one: this test is about packaging; real validators are
// tested in test/flavours.test.mjs and the corpus runner).
const CALL = `
if (!m.hasValidator) m.setValidator({ getValidator: (schema) => (input) =>
  (schema.required ?? []).every((k) => input !== null && typeof input === "object" && k in input)
    ? { valid: true, data: input } : { valid: false, errorMessage: "required" } });
const conn = new m.Connection({ negotiated: ["io.modelcontextprotocol/ui"] });
const server = m.declareTool({ name: "t", inputSchema: { type: "object" }, outputVariants: [
  { audience: "assistant", format: "content" },
  { audience: "programmatic", format: "structured", schema: { type: "object", required: ["n"] } } ] });
const host = m.acceptTool(server.advertise(conn), conn);
const { requestedOutputs } = host.plan({ mode: "code" });
const result = server.respond(conn, requestedOutputs, { outputs: [
  { audience: "assistant", format: "content", content: [{ type: "text", text: "one" }] },
  { audience: "programmatic", format: "structured", structuredContent: { n: 1 } } ] });
const route = host.route(requestedOutputs, result);
let code = null;
try { host.check(requestedOutputs, { resultType: "complete", outputs: [
  { audience: "programmatic", format: "structured", structuredContent: {} }] }); }
catch (e) { code = (e instanceof m.McpOutputsError && e instanceof Error) ? e.code : "wrong error type"; }
const answer = { programmatic: route.programmatic, model: route.model.length, code, codes: m.errorCodes.length,
  exports: Object.keys(m).sort() };
`;
const EXPECTED = {
  programmatic: [{ audience: "programmatic", format: "structured", structuredContent: { n: 1 } }],
  model: 0,
  code: "schema-violation",
};

// The two entries list their exports separately: what Node sees, the browser must see too.
let nodeExports;
let tarball;
let project;

test("npm pack: the tarball holds exactly the package files", () => {
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: pkgDir, encoding: "utf8" });
  const [info] = JSON.parse(out);
  tarball = join(work, info.filename);
  const files = info.files.map((f) => f.path).sort();
  assert.deepEqual(files, [
    "README.md",
    "api.js",
    "browser.js",
    "docs/sdk-typescript.md",
    "full-browser.js",
    "full-manual.js",
    "full-node-bundled.js",
    "full-node.js",
    "full-workerd.js",
    "index.d.ts",
    "manual.d.ts",
    "manual.js",
    "node-bundled.js",
    "node.js",
    "package.json",
    "sdk.d.ts",
    "sdk.js",
    "validators.d.ts",
    "validators.js",
    "wasm/core/inline.js",
    "wasm/core/mcp_outputs_js.js",
    "wasm/core/mcp_outputs_js_bg.wasm",
    "wasm/full/inline.js",
    "wasm/full/mcp_outputs_js.js",
    "wasm/full/mcp_outputs_js_bg.wasm",
    "workerd.js",
  ]);
});

// Issue 22: the README linked ../../docs/sdk-typescript.md, a file outside the package.
test("npm pack: every relative link of the packed README names a file in the tarball", () => {
  const listed = new Set(JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: pkgDir, encoding: "utf8" }))[0].files.map((f) => f.path));
  const readme = readFileSync(join(pkgDir, "README.md"), "utf8");
  const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((l) => !/^(https?:|mailto:|#)/.test(l));
  assert.ok(links.length > 0, "the README links at least one file of its own");
  for (const link of links) {
    const path = link.replace(/^\.\//, "").replace(/#.*$/, "");
    assert.ok(!path.startsWith("../") && listed.has(path), `README link ${link}: not a file of the package`);
  }
});

test("installed into a fresh project, Node ESM imports it by name and runs a call", () => {
  project = join(work, "project");
  execFileSync("mkdir", ["-p", project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", tarball], { cwd: project, stdio: "pipe" });
  for (const entry of ["mcp-outputs", "mcp-outputs/full"]) {
    writeFileSync(join(project, "main.mjs"), `import * as m from "${entry}";\n${CALL}\nconsole.log(JSON.stringify(answer));\n`);
    const answer = JSON.parse(execFileSync("node", ["main.mjs"], { cwd: project, encoding: "utf8" }));
    assert.deepEqual({ ...answer, codes: undefined, exports: undefined }, { ...EXPECTED, codes: undefined, exports: undefined }, entry);
    assert.ok(answer.codes >= 20);
    if (nodeExports !== undefined) assert.deepEqual(answer.exports, nodeExports, "both flavours export one API");
    nodeExports = answer.exports;
  }
  assert.ok(nodeExports.includes("protocolVersions") && nodeExports.includes("McpOutputsError"));
  // The types resolve from the installed package (exports "types" condition).
  const pkg = JSON.parse(readFileSync(join(project, "node_modules/mcp-outputs/package.json"), "utf8"));
  assert.equal(pkg.exports["."].types, "./index.d.ts");
  assert.equal(pkg.exports["./full"].types, "./index.d.ts");
  // The SDK adapters' subpath loads without any SDK installed (they are optional peers).
  writeFileSync(join(project, "sdk.mjs"), `import * as s from "mcp-outputs/sdk";\nconsole.log(JSON.stringify(Object.keys(s).sort()));\n`);
  const sdkExports = JSON.parse(execFileSync("node", ["sdk.mjs"], { cwd: project, encoding: "utf8" }));
  assert.deepEqual(sdkExports, ["McpOutputsClient", "McpOutputsRpcError", "connectTools", "jsonSchemaValidator", "serveTools", "toRpcError"]);
  assert.equal(pkg.exports["./sdk"].types, "./sdk.d.ts");
  // The validator adapters' subpath loads without Ajv or cfworker installed (the caller passes them in).
  writeFileSync(join(project, "validators.mjs"), `import * as v from "mcp-outputs/validators";\nconsole.log(JSON.stringify(Object.keys(v).sort()));\n`);
  const validatorExports = JSON.parse(execFileSync("node", ["validators.mjs"], { cwd: project, encoding: "utf8" }));
  assert.deepEqual(validatorExports, ["AJV_OPTIONS", "dialectOf", "fromAjv", "fromCfworker", "withEmptyNamesRequired", "withoutFormat"]);
  assert.equal(pkg.exports["./validators"].types, "./validators.d.ts");
  // Only the loaders have side effects (they initialise the wasm): a bundler must keep them.
  assert.deepEqual(pkg.sideEffects.slice().sort(), pkg.files.filter((f) => /(node|node-bundled|browser|workerd)\.js$/.test(f)).map((f) => `./${f}`).sort());
});

test("the browser entries run in headless Chromium", { timeout: 120_000 }, async () => {
  assert.ok(existsSync("/usr/bin/chromium"), "Debian's chromium is installed by make test");
  const root = project;
  const types = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
  const page = (entry) => `<!doctype html><meta charset="utf-8">
<script type="importmap">{"imports": {"mcp-outputs": "/node_modules/mcp-outputs/browser.js",
  "mcp-outputs/full": "/node_modules/mcp-outputs/full-browser.js"}}</script>
<script type="module">
import * as m from "${entry}";
try { ${CALL}
  window.answer = answer; } catch (e) { window.answer = { failed: String(e && e.stack || e) }; }
</script>`;
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    if (url.pathname === "/" || url.pathname === "/full") {
      res.writeHead(200, { "content-type": "text/html" }).end(page(url.pathname === "/" ? "mcp-outputs" : "mcp-outputs/full"));
      return;
    }
    const file = normalize(join(root, decodeURIComponent(url.pathname)));
    if (!file.startsWith(root) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const profile = mkdtempSync(join(tmpdir(), "mcp-outputs-chromium-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, chromiumLaunchOptions);
    for (const path of ["/", "/full"]) {
      const tab = await context.newPage();
      const errors = [];
      tab.on("pageerror", (e) => errors.push(String(e)));
      await tab.goto(`http://127.0.0.1:${server.address().port}${path}`);
      await tab.waitForFunction(() => window.answer !== undefined, null, { timeout: 60_000 });
      const answer = await tab.evaluate(() => window.answer);
      assert.deepEqual(errors, [], path);
      assert.deepEqual({ ...answer, codes: undefined, exports: undefined }, { ...EXPECTED, codes: undefined, exports: undefined }, path);
      assert.ok(answer.codes >= 20);
      assert.deepEqual(answer.exports, nodeExports, `the browser entry ${path} exports what the Node entries do`);
    }
  } finally {
    await context?.close();
    server.closeAllConnections();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
