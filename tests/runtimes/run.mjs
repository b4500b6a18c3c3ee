// The runtime matrix (issue 22, item 2): the packed npm package installed into a fresh project
// for each runtime, bundler and type checker users reach it from, each running one scenario
// (scenario.js) and answering the same thing. Prints one line per runtime, then
// `runtime matrix: N passed, M failed`; exits 1 on any failure.
//
// Usage: node run.mjs [name-filter]   (after `make -C bindings-js build`; tools from ./node_modules,
// pinned by package-lock.json; `make -C tests/runtimes test` installs them and builds first)
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync, rmSync, existsSync, cpSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, extname, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { chromium } from "playwright-core";
import { chromiumLaunchOptions } from "../browser/chromium.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const bin = (name) => join(here, "node_modules/.bin", name);
const nodeBin = (major) => join(here, `node_modules/node${major}/bin/node`);
// MCP_OUTPUTS_PKG_DIR: another build of the package (e.g. an older one, to see the matrix fail).
const pkgDir = process.env.MCP_OUTPUTS_PKG_DIR ?? fileURLToPath(new URL("../../bindings-js/npm/", import.meta.url));
const filter = process.argv[2] ?? "";
const work = mkdtempSync(join(tmpdir(), "mcp-outputs-runtimes-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

// ---- what every runtime must answer ------------------------------------------------------------
const BODY = readFileSync(join(here, "scenario.js"), "utf8");
const ONE = {
  requested: [{ audience: "programmatic", format: "structured" }],
  data: [{ items: ["c1", "c2"] }],
  model: 0,
  refusal: "schema-violation",
};
// Both entries, the default one (with @cfworker/json-schema) then `full`, unless a runtime says.
const BOTH = [ONE, ONE];

// The validator of the default entry, in the SDKs' shape, over @cfworker/json-schema.
const VALIDATOR_JS = `const validator = { getValidator(schema) {
  const v = new Validator(schema, "2020-12", true);
  return (input) => { const r = v.validate(input);
    return r.valid ? { valid: true, data: input, errorMessage: undefined }
      : { valid: false, data: undefined, errorMessage: r.errors.map((e) => e.error).join("; ") }; };
} };`;
const VALIDATOR_TS = `const validator: JsonSchemaValidator = { getValidator(schema) {
  const v = new Validator(schema as Schema, "2020-12", true);
  return (input: unknown) => { const r = v.validate(input);
    return r.valid ? { valid: true, data: input, errorMessage: undefined }
      : { valid: false, data: undefined, errorMessage: r.errors.map((e) => e.error).join("; ") }; };
} };`;
const loop = (namespaces, print = "console.log") => `const answers = [];
for (const m of [${namespaces}]) {
${BODY}
answers.push(answer);
}
${print}("ANSWER " + JSON.stringify(answers));`;
const ESM = (entries = ["mcp-outputs", "mcp-outputs/full"]) =>
  `${entries.map((e, i) => `import * as m${i} from "${e}";`).join("\n")}
import { Validator } from "@cfworker/json-schema";
${VALIDATOR_JS}
${loop(entries.map((_, i) => `m${i}`).join(", "))}
`;
const CJS = `const m0 = require("mcp-outputs");
const m1 = require("mcp-outputs/full");
const { Validator } = require("@cfworker/json-schema");
${VALIDATOR_JS}
${loop("m0, m1")}
`;

// ---- the package and fresh projects -------------------------------------------------------------
const pack = (dir) => {
  const [info] = JSON.parse(execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work, dir], { encoding: "utf8" }));
  return join(work, info.filename);
};
const tarball = pack(pkgDir);
const cfworker = pack(join(here, "node_modules/@cfworker/json-schema"));

function project(name, files, type = "module") {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `matrix-${name}`, private: true, type }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--no-package-lock", tarball, cfworker], { cwd: dir, stdio: "pipe" });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

function run(cmd, args, cwd, env = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 120_000, env: { ...process.env, ...env } });
  const out = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}: ${tail(out)}`);
  return out;
}
const tail = (text) => text.trim().split("\n").slice(-6).join(" | ").slice(0, 800);
function answerIn(out, expected) {
  const line = out.split("\n").find((l) => l.includes("ANSWER "));
  if (line === undefined) throw new Error(`no answer: ${tail(out)}`);
  const got = JSON.parse(line.slice(line.indexOf("ANSWER ") + 7));
  if (!isDeepStrictEqual(got, expected)) throw new Error(`answered ${JSON.stringify(got)}`);
}
// A copy of a bundler's output folder elsewhere: the bundle runs there without the package (or
// its node_modules) beside it, with only what the bundler emitted.
function bare(name, outDir) {
  const dir = join(work, name);
  cpSync(outDir, dir, { recursive: true });
  return dir;
}

// ---- Chromium, strict CSP -----------------------------------------------------------------------
const CSP = "script-src 'self' 'wasm-unsafe-eval'";
let browser;
async function inChromium(root, path, expected) {
  const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    const file = normalize(join(root, decodeURIComponent(url.pathname === "/" ? "/index.html" : url.pathname)));
    if (!file.startsWith(root) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream", "content-security-policy": CSP });
    res.end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  try {
    browser ??= await chromium.launchPersistentContext(mkdtempSync(join(work, "profile-")), chromiumLaunchOptions);
    const tab = await browser.newPage();
    const errors = [];
    tab.on("pageerror", (e) => errors.push(String(e)));
    tab.on("console", (msg) => msg.type() === "error" && errors.push(msg.text()));
    await tab.goto(`http://127.0.0.1:${server.address().port}${path}`);
    await tab.waitForFunction(() => window.answer !== undefined || window.failed !== undefined, null, { timeout: 15_000 }).catch(() => {});
    const { answer, failed } = await tab.evaluate(() => ({ answer: window.answer, failed: window.failed }));
    await tab.close();
    if (failed !== undefined || answer === undefined) throw new Error(`${failed ?? "no answer"} ${errors.join(" | ")}`.slice(0, 800));
    answerIn(`ANSWER ${JSON.stringify(answer)}`, expected);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
const PAGE = (script) => `<!doctype html><meta charset="utf-8"><title>matrix</title><script type="module" src="${script}"></script>`;
// A browser module: reports on window instead of the console.
const browserModule = (imports) => `${imports}
${VALIDATOR_JS}
try {
${loop("m0", "window.answer = ").replace('window.answer = ("ANSWER " + JSON.stringify(answers))', "window.answer = answers")}
} catch (e) { window.failed = String(e && e.stack || e); }
`;

// ---- the runtimes -------------------------------------------------------------------------------
const RUNTIMES = [];
const runtime = (name, what, fn) => RUNTIMES.push({ name, what, fn });

for (const major of [20, 22, 24]) {
  const node = major === Number(process.versions.node.split(".")[0]) ? process.execPath : nodeBin(major);
  runtime(`node${major}-esm`, `Node ${major}, import`, () => {
    const dir = project(`node${major}-esm`, { "main.mjs": ESM() });
    if (!run(node, ["--version"], dir).startsWith(`v${major}.`)) throw new Error(`${node} is not Node ${major}`);
    answerIn(run(node, ["main.mjs"], dir), BOTH);
  });
  runtime(`node${major}-require`, `Node ${major}, require`, () => {
    const dir = project(`node${major}-require`, { "main.cjs": CJS }, "commonjs");
    answerIn(run(node, ["main.cjs"], dir), BOTH);
  });
}
// Node 18 has no globalThis.crypto in ESM: the full entry's glue needs it (the entry supplies it).
runtime("node18-esm", "Node 18, import (both entries; full needs globalThis.crypto)", () => {
  const dir = project("node18-esm", { "main.mjs": ESM() });
  answerIn(run(nodeBin(18), ["main.mjs"], dir), BOTH);
});
runtime("manual-init", "mcp-outputs/manual: init(Response), full/manual: initSync(bytes)", () => {
  const dir = project("manual-init", {
    "main.mjs": `import * as m0 from "mcp-outputs/manual";
import * as m1 from "mcp-outputs/full/manual";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Validator } from "@cfworker/json-schema";
const require = createRequire(import.meta.url);
let early = "no error";
try { new m0.Connection({}); } catch (e) { early = /initSync/.test(e.message) ? "told to init" : e.message; }
if (early !== "told to init") throw new Error("before init: " + early);
await m0.init(new Response(readFileSync(require.resolve("mcp-outputs/core.wasm")), { headers: { "content-type": "application/wasm" } }));
m1.initSync({ module: readFileSync(require.resolve("mcp-outputs/full.wasm")) });
${VALIDATOR_JS}
${loop("m0, m1")}
`,
  });
  answerIn(run(process.execPath, ["main.mjs"], dir), BOTH);
});
runtime("typescript", "TypeScript strict (nodenext and bundler resolution), compiled and run", () => {
  const dir = project("typescript", {
    "main.mts": `import * as m0 from "mcp-outputs";
import * as m1 from "mcp-outputs/full";
import * as manual from "mcp-outputs/manual";
import { Validator, type Schema } from "@cfworker/json-schema";
import type { JsonSchemaValidator } from "mcp-outputs";
const initialised: Promise<void> = manual.init(new Uint8Array(0)).catch(() => undefined);
void initialised;
manual.initSync; // typed
${VALIDATOR_TS}
${loop("m0, m1")}
`,
    "tsconfig.json": JSON.stringify({
      compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: [], outDir: "out", skipLibCheck: false },
      files: ["main.mts"],
    }),
    "tsconfig.bundler.json": JSON.stringify({
      compilerOptions: { strict: true, module: "esnext", moduleResolution: "bundler", target: "es2022", lib: ["es2022", "dom"], types: [], noEmit: true },
      files: ["main.mts"],
    }),
  });
  // Strict under `bundler` resolution too (types only), then compiled under nodenext and run.
  run(process.execPath, [join(here, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.bundler.json"], dir);
  run(process.execPath, [join(here, "node_modules/typescript/bin/tsc"), "-p", "."], dir);
  answerIn(run(process.execPath, ["out/main.mjs"], dir), BOTH);
});
runtime("esbuild-esm", "esbuild --platform=node --format=esm, run without the package beside it", () => {
  const dir = project("esbuild-esm", { "main.mjs": ESM() });
  run(bin("esbuild"), ["main.mjs", "--bundle", "--platform=node", "--format=esm", "--log-level=error", "--outfile=out/bundle.mjs"], dir);
  answerIn(run(process.execPath, ["bundle.mjs"], bare("esbuild-esm-run", join(dir, "out"))), BOTH);
});
runtime("esbuild-cjs", "esbuild --platform=node --format=cjs, run without the package beside it", () => {
  const dir = project("esbuild-cjs", { "main.mjs": ESM() });
  run(bin("esbuild"), ["main.mjs", "--bundle", "--platform=node", "--format=cjs", "--log-level=error", "--outfile=out/bundle.cjs"], dir);
  answerIn(run(process.execPath, ["bundle.cjs"], bare("esbuild-cjs-run", join(dir, "out"))), BOTH);
});
runtime("webpack-node", "webpack 5, target node, run without the package beside it", () => {
  const dir = project("webpack-node", {
    "main.mjs": ESM(),
    "build.mjs": `import webpack from ${JSON.stringify(join(here, "node_modules/webpack/lib/index.js"))};
webpack({ mode: "production", target: "node", entry: "./main.mjs", context: process.cwd(),
  output: { path: process.cwd() + "/out", filename: "bundle.cjs" }, optimization: { minimize: false } },
  (err, stats) => { if (err || stats.hasErrors()) { console.error(err ?? stats.toString("errors-only")); process.exit(1); } });
`,
  });
  run(process.execPath, ["build.mjs"], dir);
  answerIn(run(process.execPath, ["bundle.cjs"], bare("webpack-node-run", join(dir, "out"))), BOTH);
});
runtime("webpack-web", "webpack 5, target web, run in Chromium under the strict CSP", async () => {
  const dir = project("webpack-web", {
    "main.mjs": browserModule(`import * as m0 from "mcp-outputs";\nimport { Validator } from "@cfworker/json-schema";`),
    "build.mjs": `import webpack from ${JSON.stringify(join(here, "node_modules/webpack/lib/index.js"))};
webpack({ mode: "production", target: "web", entry: "./main.mjs", context: process.cwd(),
  output: { path: process.cwd() + "/out", filename: "main.js", publicPath: "/" }, optimization: { minimize: false } },
  (err, stats) => { if (err || stats.hasErrors()) { console.error(err ?? stats.toString("errors-only")); process.exit(1); } });
`,
  });
  run(process.execPath, ["build.mjs"], dir);
  writeFileSync(join(dir, "out/index.html"), PAGE("/main.js"));
  await inChromium(join(dir, "out"), "/", [ONE]);
});
runtime("deno", "Deno (npm package from node_modules, --allow-read)", () => {
  const dir = project("deno", { "main.mjs": ESM() });
  answerIn(run(bin("deno"), ["run", "--allow-read", "main.mjs"], dir, { DENO_NO_UPDATE_CHECK: "1", DENO_DIR: join(work, "deno-cache") }), BOTH);
});
runtime("bun", "Bun", () => {
  const dir = project("bun", { "main.mjs": ESM() });
  answerIn(run(bin("bun"), ["main.mjs"], dir, { BUN_INSTALL_CACHE_DIR: join(work, "bun-cache") }), BOTH);
});
runtime("workerd", "workerd (Cloudflare Workers), bundled as wrangler does: conditions workerd/worker, .wasm as a module", () => {
  const dir = project("workerd", {
    "worker.mjs": ESM().replace(/console\.log\("ANSWER " \+ JSON\.stringify\(answers\)\);/, "")
      .replace(/^const answers = \[\];\nfor[\s\S]*$/m, (scenario) => `export default { async test() {
${scenario}
console.log("ANSWER " + JSON.stringify(answers));
} };
`),
  });
  run(bin("esbuild"), ["worker.mjs", "--bundle", "--format=esm", "--platform=neutral", "--conditions=workerd,worker,browser",
    "--loader:.wasm=copy", "--asset-names=[name]-[hash]", "--log-level=error", "--outdir=out"], dir);
  const wasm = readdirSync(join(dir, "out")).filter((f) => f.endsWith(".wasm"));
  // Two .wasm modules beside the bundle (core, full); run whatever there is, so that a package
  // that finds its wasm some other way fails as it would on Workers.
  writeFileSync(join(dir, "out/config.capnp"), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
${wasm.map((f) => `    (name = "${f}", wasm = embed "${f}"),`).join("\n")}
  ],
  compatibilityDate = "2025-01-01",
);
`);
  answerIn(run(bin("workerd"), ["test", "config.capnp", "--verbose"], join(dir, "out")), BOTH);
});
runtime("vite", "Vite (browser build, build.target esnext), run in Chromium under the strict CSP", async () => {
  const dir = project("vite", {
    "index.html": PAGE("/main.js"),
    "main.js": browserModule(`import * as m0 from "mcp-outputs";\nimport { Validator } from "@cfworker/json-schema";`),
    "vite.config.mjs": `export default { logLevel: "error", build: { target: "esnext" } };`,
  });
  run(process.execPath, [join(here, "node_modules/vite/bin/vite.js"), "build"], dir);
  await inChromium(join(dir, "dist"), "/", [ONE]);
});
runtime("chromium-csp-cfworker", "Chromium, strict CSP, default entry with @cfworker/json-schema", async () => {
  const dir = project("chromium-cfworker", {
    "index.html": PAGE("/main.js"),
    "main.js": browserModule(`import * as m0 from "/node_modules/mcp-outputs/browser.js";\nimport { Validator } from "/node_modules/@cfworker/json-schema/dist/esm/index.js";`),
  });
  await inChromium(dir, "/", [ONE]);
});
runtime("chromium-csp-full", "Chromium, strict CSP, mcp-outputs/full", async () => {
  const dir = project("chromium-full", {
    "index.html": PAGE("/main.js"),
    "main.js": browserModule(`import * as m0 from "/node_modules/mcp-outputs/full-browser.js";\nconst Validator = null;`),
  });
  await inChromium(dir, "/", [ONE]);
});

// ---- run ----------------------------------------------------------------------------------------
const started = Date.now();
let passed = 0;
let failed = 0;
for (const { name, what, fn } of RUNTIMES.filter((r) => r.name.includes(filter))) {
  const t = Date.now();
  try {
    await fn();
    passed += 1;
    console.log(`  ok   ${name.padEnd(22)} ${((Date.now() - t) / 1000).toFixed(1).padStart(5)}s  ${what}`);
  } catch (e) {
    failed += 1;
    console.log(`  FAIL ${name.padEnd(22)} ${((Date.now() - t) / 1000).toFixed(1).padStart(5)}s  ${what}\n       ${String(e.message ?? e).replaceAll("\n", " ")}`);
  }
}
await browser?.close();
console.log(`runtime matrix: ${passed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(0)}s)`);
process.exit(failed === 0 ? 0 : 1);
