// `make bench` (bench-js): P-JS-1..6, each side measured in the same run, printed as
// `bench <ID> <case>: <ratio>x`, then the memory-flatness benches of each flavour (1,000,000
// check calls; then 1,000,000 calls through every error path, issue 12). BENCH_ONLY=P-JS-3 (a
// comma-separated list of ids, `memory` for the memory benches) runs only those.
// The default build (`mcp-outputs`) validates with Ajv here, the very Ajv instance the
// comparison runs alone; `-full` lines are the full build (`mcp-outputs/full`). Format checking
// is off on both sides (the core treats `format` as an annotation).
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import Ajv from "ajv/dist/2020.js";
import * as core from "../npm/node.js";
import * as full from "../npm/full-node.js";
import { BENCH_TOOL, LEAF_RESULT_SCHEMA, LEAF_TOOL, REQUESTED, RESULT_SCHEMA, leafPayload, payload, toolsList } from "./fixtures.mjs";
import { plainHandler } from "./plain-handler.mjs";
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

const ajvOptions = { validateFormats: false, strict: false, allErrors: false };
const ajv = new Ajv(ajvOptions);
const ajvValidate = ajv.compile(RESULT_SCHEMA);
const ajvLeafValidate = ajv.compile(LEAF_RESULT_SCHEMA);
/** The TypeScript SDKs' validator shape over an Ajv instance (what an SDK passes in). */
const ajvProvider = (instance) => ({
  getValidator(schema) {
    const validate = instance.compile(schema);
    return (input) =>
      validate(input)
        ? { valid: true, data: input, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: instance.errorsText(validate.errors) };
  },
});
core.setValidator(ajvProvider(ajv));

/** A host and a server of the bench tool (or `tool`), on one flavour's entry. */
function roles(mcp, tool = BENCH_TOOL) {
  const conn = new mcp.Connection();
  const server = mcp.declareTool(tool);
  return { conn, server, host: mcp.acceptTool(server.advertise(conn), conn) };
}
const flavours = [
  ["", core, roles(core)],
  ["-full", full, roles(full)],
];
/** The payload shapes of P-JS-2 and P-JS-6: today's records (lines without a prefix), and the
 * many-leaf records whose schema checks types only (`leaves-` lines). */
const shapes = [
  { prefix: "", tool: BENCH_TOOL, make: payload, validate: ajvValidate },
  { prefix: "leaves-", tool: LEAF_TOOL, make: leafPayload, validate: ajvLeafValidate },
];
const requestedText = JSON.stringify(REQUESTED);

function attempt(fn) {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof core.McpOutputsError)) throw e;
  }
}

// P-JS-1: raw-text check + route (`routeText` checks, then routes) vs JSON.parse of the text.
for (const [flavour, , { host }] of flavours) {
  for (const [label, bytes] of runs("P-JS-1") ? SIZES : []) {
    for (const valid of [true, false]) {
      const text = JSON.stringify(payload(bytes, valid));
      const r = ratio(
        () => attempt(() => host.routeText(requestedText, text)),
        () => JSON.parse(text),
      );
      console.log(`bench P-JS-1${flavour} ${label}-${valid ? "valid" : "invalid"}: ${fmt(r)}`);
    }
  }
}

// P-JS-2: JS-object check + route vs Ajv validate alone (schema compiled once), for both
// payload shapes (`leaves-`: the many-leaf records, on a tool declaring their schema).
for (const [flavour, mcp] of flavours) {
  for (const { prefix, tool, make, validate } of runs("P-JS-2") ? shapes : []) {
    const { host } = roles(mcp, tool);
    for (const [label, bytes] of SIZES) {
      for (const valid of [true, false]) {
        const result = make(bytes, valid);
        const value = result.outputs[0].structuredContent;
        if (validate(value) !== valid) throw new Error("ajv disagrees with the payload's validity");
        const r = ratio(
          () => attempt(() => host.route(REQUESTED, result)),
          () => validate(value),
        );
        console.log(`bench P-JS-2${flavour} ${prefix}${label}-${valid ? "valid" : "invalid"}: ${fmt(r)}`);
      }
    }
  }
}

// P-JS-6: the object route of the default build with Ajv vs the plain JS host handler of
// plain-handler.mjs (what an SDK maintainer would write instead: exact selectors, content
// blocks' `type`/`text`, Ajv on each payload, routing by audience; no limits, no `_meta`), over
// the same Ajv instance, for both payload shapes. Before anything is timed, the handler must
// agree with the package on every case below and on every bench payload (accept the valid ones,
// refuse the invalid ones, route the same outputs to the same lists); the bench aborts if not.
const routeLists = (r) => JSON.stringify([r.model, r.user, r.programmatic]);
/** The object route of `result` vs a handler's call on it (refused or not, as the package). */
const againstHandler = (host, handler, result) =>
  ratio(
    () => attempt(() => host.route(REQUESTED, result)),
    () => {
      try {
        handler(REQUESTED, result);
      } catch {
        /* refused, as the package refuses it */
      }
    },
  );
function plainGuard(fail) {
  const { host } = roles(core);
  const plain = plainHandler(BENCH_TOOL, ajv);
  const text = { audience: "assistant", format: "content", content: [{ type: "text", text: "3 customers" }] };
  const data = payload(512, true).outputs[0];
  const both = [{ audience: "assistant", format: "content" }, REQUESTED[0]];
  const ok = [
    [both, { outputs: [data, text] }],
    [both, { outputs: [text, data] }],
    [REQUESTED, { outputs: [data] }],
    [[both[0]], { outputs: [{ ...text, content: [{ type: "image", data: "AA==", mimeType: "image/png" }, text.content[0]] }] }],
  ];
  const refused = [
    ["missing output", both, { outputs: [data] }],
    ["extra output", REQUESTED, { outputs: [data, text] }],
    ["duplicate output", both, { outputs: [data, text, data] }],
    ["content block not an object", both, { outputs: [data, { ...text, content: ["hi"] }] }],
    ["content block without a type", both, { outputs: [data, { ...text, content: [{ text: "hi" }] }] }],
    ["text block without a text", both, { outputs: [data, { ...text, content: [{ type: "text", text: 3 }] }] }],
    ["invalid payload", REQUESTED, payload(512, false)],
  ];
  for (const [requested, result] of ok) {
    let theirs;
    try {
      theirs = routeLists(plain(requested, result));
    } catch (e) {
      fail(`plain handler refused a valid result: ${e.message}`);
    }
    if (theirs !== routeLists(host.route(requested, result))) fail("plain handler routes differently from the package");
  }
  for (const [what, requested, result] of refused) {
    let refusedByPackage = false;
    try {
      host.route(requested, result);
    } catch (e) {
      if (!(e instanceof core.McpOutputsError)) throw e;
      refusedByPackage = true;
    }
    if (!refusedByPackage) fail(`the package accepted the ${what} case (the guard's case is wrong)`);
    let accepted = true;
    try {
      plain(requested, result);
    } catch {
      accepted = false;
    }
    if (accepted) fail(`plain handler accepted the ${what} case`);
  }
}
if (runs("P-JS-6")) {
  const fail = (why) => {
    throw new Error(`P-JS-6 guard: ${why}; nothing timed`);
  };
  plainGuard(fail);
  for (const { prefix, tool, make } of shapes) {
    const { host } = roles(core, tool);
    const plain = plainHandler(tool, ajv);
    for (const [label, bytes] of SIZES) {
      for (const valid of [true, false]) {
        const result = make(bytes, valid);
        let ours = null;
        let theirs = null;
        try {
          ours = routeLists(host.route(REQUESTED, result));
        } catch (e) {
          if (!(e instanceof core.McpOutputsError)) throw e;
        }
        try {
          theirs = routeLists(plain(REQUESTED, result));
        } catch {
          /* refused */
        }
        if ((ours !== null) !== valid) fail(`the package's verdict on ${prefix}${label}-${valid} is wrong`);
        if (ours !== theirs) fail(`plain handler disagrees with the package on ${prefix}${label}-${valid}`);
        const r = againstHandler(host, plain, result);
        console.log(`bench P-JS-6 ${prefix}${label}-${valid ? "valid" : "invalid"}: ${fmt(r)}`);
      }
    }
  }
}

// P-JS-6g: the same object route vs the plain handler with the payload guarantee the package
// gives (plain-handler.mjs, `guarded`: a payload that is not plain data is refused before Ajv
// reads it). No goal of its own: it shows how much of P-JS-6 is the guarantee's walk, which
// JavaScript cannot do more cheaply (docs/performance.md). Guarded first: on the bench payloads
// it answers as the plain handler does, and it refuses what could answer Ajv one thing and the
// caller another, each of which the package answers from a snapshot instead.
if (runs("P-JS-6g")) {
  const fail = (why) => {
    throw new Error(`P-JS-6g guard: ${why}; nothing timed`);
  };
  const guarded = plainHandler(BENCH_TOOL, ajv, { guarded: true });
  const good = payload(512, true);
  const data = good.outputs[0].structuredContent;
  const withGetter = { ...data };
  Object.defineProperty(withGetter, "items", { enumerable: true, get: () => data.items });
  const hostile = [
    ["a getter", withGetter],
    ["a Proxy", new Proxy(data, {})],
    ["a toJSON", { ...data, toJSON: () => data }],
    ["an array hole", { ...data, items: [, ...data.items] }],
    ["a class instance", Object.assign(new (class Row {})(), data)],
  ];
  // Refused by the guard itself (its errors start "payload:"), not by Ajv: a hole or an extra
  // `toJSON` member could fail the schema too.
  for (const [what, value] of hostile) {
    let refusal = null;
    try {
      guarded(REQUESTED, { outputs: [{ ...good.outputs[0], structuredContent: value }] });
    } catch (e) {
      refusal = e.message;
    }
    if (!refusal?.startsWith("payload:")) fail(`the guarded handler did not refuse a payload with ${what} (${refusal ?? "accepted"})`);
  }
  for (const { prefix, tool, make } of shapes) {
    const { host } = roles(core, tool);
    const plain = plainHandler(tool, ajv);
    const guard = plainHandler(tool, ajv, { guarded: true });
    for (const [label, bytes] of SIZES) {
      for (const valid of [true, false]) {
        const result = make(bytes, valid);
        const lists = (handler) => {
          try {
            return routeLists(handler(REQUESTED, result));
          } catch {
            return null;
          }
        };
        if (lists(guard) !== lists(plain)) fail(`the guarded handler disagrees with the plain one on ${prefix}${label}-${valid}`);
        const r = againstHandler(host, guard, result);
        console.log(`bench P-JS-6g ${prefix}${label}-${valid ? "valid" : "invalid"}: ${fmt(r)}`);
      }
    }
  }
}

// P-JS-3: a host accepting a 117-tool tools/list (`discoverTools`) vs ajv compiling the same
// schemas; then the server declaring the same tools. "cold" is the first time each schema is
// seen in this process (the host goes first: declaring compiles, and compiled validators are
// cached by schema text); "repeat" accepts or declares the same list again (a new session, or
// a host accepting the same tools/list again). Accepting checks each schema and leaves its
// compilation to the first check that needs it.
for (const [flavour, mcp] of runs("P-JS-3") ? flavours : []) {
  const conn = new mcp.Connection();
  const tools = toolsList();
  const schemas = tools.flatMap((t) => t.outputVariants.filter((v) => v.schema).map((v) => v.schema));
  const kb = schemas.map((s) => JSON.stringify(s).length / 1024);
  const list = { tools, ttlMs: 60000, cacheScope: "public" };
  const acceptAll = () => mcp.discoverTools(list, conn).tools.forEach((t) => t.free());
  const declareAll = () => tools.forEach((t) => mcp.declareTool(t).free());
  const ajvAll = () => {
    const fresh = new Ajv(ajvOptions);
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
    `bench P-JS-3${flavour} 117-tools-cold: ${cold(acceptCold)}; ${schemas.length} schemas of ` +
      `${Math.min(...kb).toFixed(1)}-${Math.max(...kb).toFixed(1)} KB)\n` +
      `bench P-JS-3${flavour} 117-tools-repeat: ${fmt(acceptRepeat)}\n` +
      `bench P-JS-3${flavour} 117-tools-declare-cold: ${cold(declareCold)})\n` +
      `bench P-JS-3${flavour} 117-tools-declare-repeat: ${fmt(declareRepeat)}`,
  );
}

// P-JS-4: .wasm gzip size of each flavour.
for (const entry of runs("P-JS-4") ? ["core", "full"] : []) {
  const bytes = readFileSync(new URL(`../npm/wasm/${entry}/mcp_outputs_js_bg.wasm`, import.meta.url));
  const gz = gzipSync(bytes, { level: 9 }).length;
  console.log(`bench P-JS-4 ${entry}.wasm: ${(gz / 1024).toFixed(1)} KB gzip (${(bytes.length / 1024).toFixed(0)} KB raw)`);
}

// P-JS-5: a new Node process that imports the package, declares one tool and routes one result
// (the default build, Ajv as its validator), vs a new process that imports Ajv, compiles the
// same schema and validates the same payload. Wall time per process, the best of several runs
// of each, interleaved.
if (runs("P-JS-5")) {
  const here = fileURLToPath(new URL(".", import.meta.url));
  const fixtures = JSON.stringify({ tool: BENCH_TOOL, requested: REQUESTED, result: payload(512, true) });
  const ours = `import Ajv from "ajv/dist/2020.js"; import * as m from "../npm/node.js";
const f = ${fixtures}; const ajv = new Ajv({ strict: false, validateFormats: false });
m.setValidator({ getValidator: (s) => { const v = ajv.compile(s); return (i) => v(i) ? { valid: true, data: i } : { valid: false, errorMessage: "x" }; } });
const conn = new m.Connection(); const server = m.declareTool(f.tool);
const host = m.acceptTool(server.advertise(conn), conn);
if (host.route(f.requested, f.result).programmatic.length !== 1) process.exit(1);`;
  const theirs = `import Ajv from "ajv/dist/2020.js"; const f = ${fixtures};
const ajv = new Ajv({ strict: false, validateFormats: false });
const schema = f.tool.outputVariants.find((v) => v.audience === "programmatic").schema;
if (!ajv.compile(schema)(f.result.outputs[0].structuredContent)) process.exit(1);`;
  const spawn = (source) => {
    const t = process.hrtime.bigint();
    execFileSync(process.execPath, ["--input-type=module", "-e", source], { cwd: here });
    return Number(process.hrtime.bigint() - t);
  };
  const a = [];
  const b = [];
  for (let i = 0; i < (quick ? 3 : 7); i++) {
    a.push(spawn(ours));
    b.push(spawn(theirs));
  }
  const r = { ours: Math.min(...a), theirs: Math.min(...b) };
  console.log(`bench P-JS-5 cold-start: ${(r.ours / r.theirs).toFixed(2)}x (${(r.ours / 1e6).toFixed(0)} ms vs ${(r.theirs / 1e6).toFixed(0)} ms)`);
}

// Memory: 1,000,000 check calls keep WebAssembly.Memory flat once warm (each flavour).
for (const [flavour, mcp, { host }] of runs("memory") ? flavours : []) {
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
    `bench memory${flavour} ${calls} checks: ${(warm / 1048576).toFixed(1)} MiB warm -> ${(after / 1048576).toFixed(1)} MiB after (${after === warm ? "flat" : "GREW"})`,
  );
  if (after !== warm) process.exitCode = 1;
}

// Memory over the error paths (issue 12): 1,000,000 calls cycling through every kind of error
// (malformed text, limit errors in the core and in the JS walk, schema violations, thrown
// getters, NaN, misuse), a successful check after each, keep WebAssembly.Memory flat.
for (const [flavour, mcp] of runs("memory") ? flavours : []) {
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
    `bench memory${flavour} ${calls} error-path calls (${paths.length} paths, ${took.toFixed(1)} s): ` +
      `${(warm / 1048576).toFixed(1)} MiB warm -> ${(after / 1048576).toFixed(1)} MiB after (${after === warm ? "flat" : "GREW"})`,
  );
  if (after !== warm) process.exitCode = 1;
}
