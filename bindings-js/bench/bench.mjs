// `make bench` (bench-js): P-JS-1..4, each side measured in the same run, printed as
// `bench <ID> <size>: <ratio>x`, then the memory-flatness benches (1,000,000 check calls; then
// 1,000,000 calls through every error path, issue 12). BENCH_ONLY=P-JS-3 (a comma-separated
// list of ids, `memory` for the memory benches) runs only those.
// Format checking is off on both sides (the core treats `format` as an annotation; ajv gets
// `validateFormats: false`).
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import Ajv from "ajv";
import * as mcp from "../npm/node.js";
import { BENCH_TOOL, REQUESTED, RESULT_SCHEMA, payload, toolsList } from "./fixtures.mjs";
import { errorPaths } from "../test/error-paths.mjs";

const SIZES = [
  ["0.5KB", 512],
  ["4KB", 4096],
  ["64KB", 65536],
];
const quick = process.env.BENCH_QUICK === "1";
const only = process.env.BENCH_ONLY?.split(",");
/** Whether the bench `id` runs (all of them unless BENCH_ONLY names some). */
const runs = (id) => only === undefined || only.includes(id);

/** Nanoseconds per call of `fn`: the best of several rounds of ~`ms` each. */
function perCall(fn, ms = quick ? 40 : 150, rounds = quick ? 3 : 5) {
  let n = 1;
  for (;;) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    const took = Number(process.hrtime.bigint() - t) / 1e6;
    if (took > ms / 4) break;
    n *= 2;
  }
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t) / n);
  }
  return best;
}

/** Both sides, interleaved, so machine noise hits both alike. */
function ratio(ours, theirs) {
  const a = [];
  const b = [];
  for (let i = 0; i < 3; i++) {
    a.push(perCall(ours));
    b.push(perCall(theirs));
  }
  return { ours: Math.min(...a), theirs: Math.min(...b) };
}

const fmt = (r) => `${(r.ours / r.theirs).toFixed(2)}x (${(r.ours / 1000).toFixed(1)} µs vs ${(r.theirs / 1000).toFixed(1)} µs)`;

const conn = new mcp.Connection();
const server = mcp.declareTool(BENCH_TOOL);
const host = mcp.acceptTool(server.advertise(conn), conn);
const requestedText = JSON.stringify(REQUESTED);
const ajv = new Ajv({ validateFormats: false, strict: false, allErrors: false });
const ajvValidate = ajv.compile(RESULT_SCHEMA);

function attempt(fn) {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof mcp.McpOutputsError)) throw e;
  }
}

// P-JS-1: raw-text check + route (`routeText` checks, then routes) vs JSON.parse of the text.
for (const [label, bytes] of runs("P-JS-1") ? SIZES : []) {
  for (const valid of [true, false]) {
    const text = JSON.stringify(payload(bytes, valid));
    const r = ratio(
      () => attempt(() => host.routeText(requestedText, text)),
      () => JSON.parse(text),
    );
    console.log(`bench P-JS-1 ${label}-${valid ? "valid" : "invalid"}: ${fmt(r)}`);
  }
}

// P-JS-2: JS-object check + route vs ajv validate alone (schema compiled once).
for (const [label, bytes] of runs("P-JS-2") ? SIZES : []) {
  for (const valid of [true, false]) {
    const result = payload(bytes, valid);
    const value = result.outputs[0].structuredContent;
    if (ajvValidate(value) !== valid) throw new Error("ajv disagrees with the payload's validity");
    const r = ratio(
      () => attempt(() => host.route(REQUESTED, result)),
      () => ajvValidate(value),
    );
    console.log(`bench P-JS-2 ${label}-${valid ? "valid" : "invalid"}: ${fmt(r)}`);
  }
}

// P-JS-3: a host accepting a 117-tool tools/list (`discoverTools`) vs ajv compiling the same
// schemas; then the server declaring the same tools. "cold" is the first time each schema is
// seen in this process (the host goes first: declaring compiles, and compiled validators are
// cached by schema text); "repeat" accepts or declares the same list again (a new session, or
// a host accepting the same tools/list again). Accepting checks each schema and leaves its
// compilation to the first check that needs it.
if (runs("P-JS-3")) {
  const tools = toolsList();
  const schemas = tools.flatMap((t) => t.outputVariants.filter((v) => v.schema).map((v) => v.schema));
  const kb = schemas.map((s) => JSON.stringify(s).length / 1024);
  const list = { tools, ttlMs: 60000, cacheScope: "public" };
  const acceptAll = () => mcp.discoverTools(list, conn).tools.forEach((t) => t.free());
  const declareAll = () => tools.forEach((t) => mcp.declareTool(t).free());
  const ajvAll = () => {
    const fresh = new Ajv({ validateFormats: false, strict: false, allErrors: false });
    schemas.forEach((s) => fresh.compile(s));
  };
  const time = (fn) => {
    const t = process.hrtime.bigint();
    fn();
    return Number(process.hrtime.bigint() - t);
  };
  const acceptCold = time(acceptAll);
  const ajvCold = time(ajvAll);
  const acceptRepeat = ratio(acceptAll, ajvAll);
  const declareCold = time(declareAll);
  const declareRepeat = ratio(declareAll, ajvAll);
  const cold = (ours) => `${(ours / ajvCold).toFixed(2)}x (${(ours / 1e6).toFixed(1)} ms vs ${(ajvCold / 1e6).toFixed(1)} ms`;
  console.log(
    `bench P-JS-3 117-tools-cold: ${cold(acceptCold)}; ${schemas.length} schemas of ` +
      `${Math.min(...kb).toFixed(1)}-${Math.max(...kb).toFixed(1)} KB)\n` +
      `bench P-JS-3 117-tools-repeat: ${fmt(acceptRepeat)}\n` +
      `bench P-JS-3 117-tools-declare-cold: ${cold(declareCold)})\n` +
      `bench P-JS-3 117-tools-declare-repeat: ${fmt(declareRepeat)}`,
  );
}

// P-JS-4: .wasm gzip size.
for (const entry of runs("P-JS-4") ? ["web", "node"] : []) {
  const bytes = readFileSync(new URL(`../npm/wasm/${entry}/mcp_outputs_js_bg.wasm`, import.meta.url));
  const gz = gzipSync(bytes, { level: 9 }).length;
  console.log(`bench P-JS-4 ${entry}.wasm: ${(gz / 1024).toFixed(0)} KB gzip (${(bytes.length / 1024).toFixed(0)} KB raw)`);
}

// Memory: 1,000,000 check calls keep WebAssembly.Memory flat once warm.
if (runs("memory")) {
  const good = payload(512, true);
  const bad = payload(512, false);
  const goodText = JSON.stringify(good);
  const calls = quick ? 100_000 : 1_000_000;
  const round = (n) => {
    for (let i = 0; i < n; i++) {
      if (i % 4 === 0) attempt(() => host.check(REQUESTED, bad));
      else if (i % 4 === 1) host.checkText(requestedText, goodText);
      else host.check(REQUESTED, good);
    }
  };
  round(20_000);
  globalThis.gc?.();
  const warm = mcp.wasmMemoryBytes();
  round(calls);
  const after = mcp.wasmMemoryBytes();
  console.log(
    `bench memory ${calls} checks: ${(warm / 1048576).toFixed(1)} MiB warm -> ${(after / 1048576).toFixed(1)} MiB after (${after === warm ? "flat" : "GREW"})`,
  );
  if (after !== warm) process.exitCode = 1;
}

// Memory over the error paths (issue 12): 1,000,000 calls cycling through every kind of error
// (malformed text, limit errors in the core and in the JS walk, schema violations, thrown
// getters, NaN, misuse), a successful check after each, keep WebAssembly.Memory flat.
if (runs("memory")) {
  const { paths, run } = errorPaths(mcp);
  const calls = quick ? 100_000 : 1_000_000;
  run(paths.length * 500);
  globalThis.gc?.();
  const warm = mcp.wasmMemoryBytes();
  const t = process.hrtime.bigint();
  run(calls);
  const took = Number(process.hrtime.bigint() - t) / 1e9;
  const after = mcp.wasmMemoryBytes();
  console.log(
    `bench memory ${calls} error-path calls (${paths.length} paths, ${took.toFixed(1)} s): ` +
      `${(warm / 1048576).toFixed(1)} MiB warm -> ${(after / 1048576).toFixed(1)} MiB after (${after === warm ? "flat" : "GREW"})`,
  );
  if (after !== warm) process.exitCode = 1;
}
