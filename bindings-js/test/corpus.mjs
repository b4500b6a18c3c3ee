// The JS corpus runner (node:test): every case of tests/corpus/, then every *.json below
// MCP_OUTPUTS_EXTRA_CORPUS when set, through the package's public API. Lints cases like the
// Rust runner (tests/conformance/src/lib.rs) and compares like it: object key order ignored,
// numbers by value, `warnings` / route `dropped` / `diagnostics` as sets.
// Every case runs in each flavour of the package (test/providers.mjs): the default build with
// Ajv, the default build with @cfworker/json-schema, and the full build, each given as the
// objects' `validator` option. Prints each flavour's tally (`corpus js default + ajv: …`), then
// `corpus js: N passed, M failed`, a case passing when it passes in every flavour (and
// `corpus js extra: …`).
//
// Each op maps onto the public API: declare/advertise/select/respond on `declareTool`,
// accept/plan/check/route on `acceptTool`, migrate on `migrateTool`, list on `declareTools` +
// `Connection.toolsListResult`, discover on `discoverTools`, scenario as
// advertise → accept → plan → respond → route. `check`, `route` and `respond` also run
// through the JSON-text path (`checkText`, `routeText`, `respondText`), which must give the
// same answer. A request whose protocolVersion cannot make a `Connection` (the public API
// builds connections once, at initialize) is the per-request wire check of `runOperation`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import * as core from "../npm/node.js";
import * as full from "../npm/full-node.js";
import { parseStrict } from "./strict-json.mjs";
import { ajvProvider, cfworkerProvider } from "./providers.mjs";

/** The configurations every case runs in: the package entry and the validator it is given. */
export const FLAVOURS = [
  { name: "default + ajv", mcp: core, validator: ajvProvider() },
  { name: "default + cfworker", mcp: core, validator: cfworkerProvider() },
  { name: "full", mcp: full, validator: undefined },
];
const mcp = core;

const here = dirname(fileURLToPath(import.meta.url));
const corpusDir = resolve(here, "../../tests/corpus");
const CASE_KEYS = ["id", "requirements", "description", "op", "input", "expect"];
const { operations, commonFields } = mcp.contractOperations();

export function jsonFiles(dir, skipTop) {
  const out = [];
  const walk = (current, depth) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path, depth + 1);
      else if (name.endsWith(".json") && !(skipTop && depth === 0)) out.push(path);
    }
  };
  walk(dir, 0);
  return out.sort();
}

function requirementIds() {
  const value = parseStrict(readFileSync(join(corpusDir, "requirements.json"), "utf8"));
  return new Set(value.requirements.map((r) => r.id));
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function lintCase(value, known) {
  if (!isObject(value)) throw new Error("a case must be an object");
  const unknown = Object.keys(value).filter((k) => !CASE_KEYS.includes(k));
  if (unknown.length) throw new Error(`unknown case fields ${JSON.stringify(unknown)}`);
  for (const key of CASE_KEYS) if (!(key in value)) throw new Error(`missing case field ${key}`);
  const { id, requirements, description, op, input, expect } = value;
  if (typeof id !== "string" || !/^[a-z0-9-]+$/.test(id) || id.startsWith("-") || id.endsWith("-"))
    throw new Error(`id ${JSON.stringify(id)} is not kebab-case`);
  if (!Array.isArray(requirements) || requirements.length === 0) throw new Error(`${id}: requirements must be a non-empty array`);
  for (const r of requirements) {
    if (typeof r !== "string") throw new Error(`${id}: requirement ids are strings`);
    if (!known.has(r)) throw new Error(`${id}: cites unknown requirement ${r}`);
  }
  if (typeof description !== "string" || description.trim() === "") throw new Error(`${id}: description must be a non-empty string`);
  if (typeof op !== "string") throw new Error(`${id}: op must be a string`);
  const fields = operations[op];
  if (!fields) throw new Error(`${id}: unknown op ${JSON.stringify(op)}`);
  if (!isObject(input)) throw new Error(`${id}: input must be an object`);
  const bad = Object.keys(input).find((k) => !fields.includes(k) && !commonFields.includes(k));
  if (bad !== undefined) throw new Error(`${id}: input field ${JSON.stringify(bad)} is not one of op ${op}`);
  const keys = isObject(expect) ? Object.keys(expect) : [];
  if (keys.length === 1 && keys[0] === "ok") {
    if (!isObject(expect.ok)) throw new Error(`${id}: expect.ok must be an object`);
  } else if (keys.length === 1 && keys[0] === "error") {
    const err = expect.error;
    if (!isObject(err)) throw new Error(`${id}: expect.error must be an object`);
    const badKey = Object.keys(err).find((k) => k !== "code" && k !== "jsonrpc");
    if (badKey !== undefined) throw new Error(`${id}: unknown field ${JSON.stringify(badKey)} in expect.error`);
    if (typeof err.code !== "string") throw new Error(`${id}: expect.error.code must be a string`);
    if (!mcp.errorCodes.includes(err.code)) throw new Error(`${id}: unknown error code ${JSON.stringify(err.code)}`);
    if ("jsonrpc" in err && !Number.isInteger(err.jsonrpc)) throw new Error(`${id}: expect.error.jsonrpc must be an integer`);
  } else {
    throw new Error(`${id}: expect must be exactly {"ok": …} or {"error": …}`);
  }
  return value;
}

/** Loads and lints the files' cases; ids must be unique across `seen`. */
export function loadCases(files, known, seen) {
  const cases = [];
  const problems = [];
  for (const file of files) {
    let value;
    try {
      value = parseStrict(readFileSync(file, "utf8"));
    } catch (e) {
      problems.push(`${file}: ${e.message}`);
      continue;
    }
    const items = Array.isArray(value) ? value : [value];
    items.forEach((item, i) => {
      try {
        const c = lintCase(item, known);
        if (seen.has(c.id)) problems.push(`${file}[${i}]: duplicate id ${c.id}`);
        else {
          seen.add(c.id);
          cases.push({ ...c, file });
        }
      } catch (e) {
        problems.push(`${file}[${i}]: ${e.message}`);
      }
    });
  }
  return { cases, problems };
}

/** JSON comparison: object key order ignored, numbers by value, lists at `sets` as sets. */
export function compare(expected, got, path, sets, diffs) {
  if (typeof expected === "number" && typeof got === "number") {
    if (expected !== got) diffs.push(`  at ${JSON.stringify(path)}: expected ${expected}, got ${got}`);
  } else if (isObject(expected) && isObject(got)) {
    for (const [key, value] of Object.entries(expected)) {
      const sub = `${path}/${key}`;
      if (Object.hasOwn(got, key)) compare(value, got[key], sub, sets, diffs);
      else diffs.push(`  at ${JSON.stringify(sub)}: missing`);
    }
    for (const key of Object.keys(got)) {
      if (!Object.hasOwn(expected, key)) diffs.push(`  at ${JSON.stringify(`${path}/${key}`)}: unexpected`);
    }
  } else if (Array.isArray(expected) && Array.isArray(got) && sets.includes(path)) {
    const contains = (list, item) => list.some((x) => { const d = []; compare(item, x, "", [], d); return d.length === 0; });
    if (!(expected.every((x) => contains(got, x)) && got.every((x) => contains(expected, x))))
      diffs.push(`  at ${JSON.stringify(path)} (a set): expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`);
  } else if (Array.isArray(expected) && Array.isArray(got)) {
    if (expected.length !== got.length) diffs.push(`  at ${JSON.stringify(path)}: expected ${expected.length} items, got ${got.length}`);
    const n = Math.min(expected.length, got.length);
    for (let i = 0; i < n; i++) compare(expected[i], got[i], `${path}/${i}`, sets, diffs);
  } else if (JSON.stringify(expected) !== JSON.stringify(got) || typeof expected !== typeof got) {
    diffs.push(`  at ${JSON.stringify(path)}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`);
  }
}

const setPaths = (op) =>
  op === "route" ? ["/dropped", "/diagnostics"] : op === "scenario" ? ["/route/dropped", "/route/diagnostics"] : ["/warnings"];

const pick = (obj, keys) => Object.fromEntries(keys.filter((k) => k in obj).map((k) => [k, obj[k]]));
// The APIs report warnings and diagnostics as `{code, path}`; the contract compares codes only.
const codes = (findings) => [...new Set(findings.map((f) => f.code))];
const withWarnings = (warnings) => (warnings.length ? { warnings: codes(warnings) } : {});
const contractCheck = (answer) => (answer.warnings ? { ...answer, warnings: codes(answer.warnings) } : answer);
const contractRoute = (route) => (route.diagnostics ? { ...route, diagnostics: codes(route.diagnostics) } : route);
const contractMigrate = (answer) => (answer.warnings ? { ...answer, warnings: codes(answer.warnings) } : answer);
const text = (value) => (value === undefined ? undefined : JSON.stringify(value));

/** Runs one case through the public API of every flavour; returns every path's outcome (`{ok}`
 * or `{error}`), labelled with its flavour. */
export function runCase(c) {
  return FLAVOURS.flatMap((flavour) =>
    runCaseIn(c, flavour).map((o) => ({ ...o, flavour: flavour.name, label: `${flavour.name}: ${o.label}` })),
  );
}

function runCaseIn(c, { mcp, validator }) {
  const input = c.input;
  const options = { extensions: input.extensions, supportedVersions: input.supportedVersions, validator };
  const connInit = pick(input, ["protocolVersion", "negotiated"]);
  const requested = input.requestedOutputs;
  const planRequest = pick(input, ["mode", "consumers", "requireSchema", "schemas"]);
  const routeOptions = pick(input, ["legacyStructured"]);
  const outcomes = [];
  const attempt = (label, fn) => {
    try {
      outcomes.push({ label, ok: fn() });
    } catch (e) {
      if (!(e instanceof mcp.McpOutputsError)) throw e;
      outcomes.push({ label, error: e });
    }
  };
  // The connection: when the request's version cannot make one, the request is the
  // per-request wire check of `runOperation` (a Connection is made once, at initialize).
  const withConnection = (label, fn) => {
    let conn;
    try {
      conn = new mcp.Connection(connInit, options);
    } catch (e) {
      if (!(e instanceof mcp.McpOutputsError)) throw e;
      attempt(`${label} (runOperation: per-request version check)`, () => mcp.runOperation(c.op, input, { validator }));
      return;
    }
    attempt(label, () => fn(conn));
  };
  const serverOp = (label, fn) =>
    withConnection(label, (conn) => fn(mcp.declareTool(input.tool, { legacy: input.legacy, ...options }), conn));
  const clientOp = (label, fn) => withConnection(label, (conn) => fn(mcp.acceptTool(input.tool, conn), conn));
  switch (c.op) {
    case "declare":
      attempt("declareTool", () =>
        withWarnings(mcp.declareTool(input.tool, { legacy: input.legacy, ...options }).warnings),
      );
      break;
    case "advertise":
      serverOp("advertise", (tool, conn) => ({ tool: tool.advertise(conn) }));
      break;
    case "select":
      serverOp("select", (tool, conn) => ({ selection: tool.select(conn, requested) }));
      serverOp("selectText", (tool, conn) => ({ selection: tool.selectText(conn, text(requested)) }));
      break;
    case "respond":
      serverOp("respond", (tool, conn) => ({ result: tool.respond(conn, requested, input.produced) }));
      serverOp("respondText", (tool, conn) => ({
        result: JSON.parse(tool.respondText(conn, text(requested), JSON.stringify(input.produced))),
      }));
      break;
    case "accept":
      clientOp("acceptTool", (tool) => withWarnings(tool.warnings));
      break;
    case "plan":
      clientOp("plan", (tool) => tool.plan(planRequest));
      break;
    case "check":
      clientOp("check", (tool) => contractCheck(tool.check(requested, input.result, routeOptions)));
      clientOp("checkText", (tool) => contractCheck(tool.checkText(text(requested), JSON.stringify(input.result), routeOptions)));
      break;
    case "route":
      clientOp("route", (tool) => contractRoute(tool.route(requested, input.result, routeOptions)));
      clientOp("routeText", (tool) => contractRoute(tool.routeText(text(requested), JSON.stringify(input.result), routeOptions)));
      break;
    case "migrate":
      attempt("migrateTool", () => contractMigrate(mcp.migrateTool(input.legacyTool, input.options, options)));
      break;
    case "list":
      // The server's own tools are declared before the request's version is read, as in `ops`.
      attempt("declareTools + toolsListResult", () => {
        const tools = mcp.declareTools(input.tools, { legacyByTool: input.legacyByTool, ...options });
        let conn;
        try {
          conn = new mcp.Connection(connInit, options);
        } catch (e) {
          if (!(e instanceof mcp.McpOutputsError)) throw e;
          return mcp.runOperation(c.op, input, { validator });
        }
        return { result: conn.toolsListResult(tools, { cache: input.cache, nextCursor: input.nextCursor }) };
      });
      break;
    case "discover":
      withConnection("discoverTools", (conn) => {
        const { tools, excluded, warnings, ...page } = mcp.discoverTools(input.result, conn);
        return {
          tools: tools.map((t) => t.name),
          excluded: excluded.map(({ index, name, code }) => ({ index, name, code })),
          ...page,
          ...withWarnings(warnings),
        };
      });
      break;
    case "scenario":
      serverOp("scenario", (server, conn) => {
        const advertised = server.advertise(conn);
        const host = mcp.acceptTool(advertised, conn);
        const plan = host.plan(planRequest);
        const result = server.respond(conn, plan.requestedOutputs, input.produced);
        const route = contractRoute(host.route(plan.requestedOutputs, result, pick(plan, ["legacyStructured"])));
        return { tool: advertised, ...pick(plan, ["requestedOutputs", "legacyStructured"]), result, route };
      });
      break;
    default:
      throw new Error(`unknown op ${c.op}`);
  }
  return outcomes;
}

/** `null` when the case passes, else the difference (expected vs got) for every failing path. */
export function checkCase(c) {
  return judge(c, runCase(c));
}

/** `null` when every outcome of `runCase(c)` meets `c.expect`, else the difference per path. */
export function judge(c, outcomes) {
  const problems = [];
  for (const outcome of outcomes) {
    const { label, ok: got } = outcome;
    if ("ok" in c.expect) {
      if (outcome.error) {
        problems.push(`[${label}] expected ok ${JSON.stringify(c.expect.ok)}\n  got error ${outcome.error.code}: ${outcome.error.message}`);
        continue;
      }
      const diffs = [];
      compare(c.expect.ok, got, "", setPaths(c.op), diffs);
      if (diffs.length)
        problems.push(`[${label}]\n${diffs.join("\n")}\n  expected: ${JSON.stringify(c.expect.ok)}\n  got:      ${JSON.stringify(got)}`);
    } else {
      const { code, jsonrpc } = c.expect.error;
      if (!outcome.error) {
        problems.push(`[${label}] expected error ${code}\n  got ok ${JSON.stringify(got)}`);
        continue;
      }
      if (outcome.error.code !== code) problems.push(`[${label}] expected error ${code}, got ${outcome.error.code}: ${outcome.error.message}`);
      else if (jsonrpc !== undefined && outcome.error.jsonrpcCode !== jsonrpc)
        problems.push(`[${label}] expected JSON-RPC ${jsonrpc}, got ${outcome.error.jsonrpcCode} (${outcome.error.code})`);
    }
  }
  return problems.length ? problems.join("\n") : null;
}

/** Runs cases, prints failures, each flavour's tally and the tally line; true when all passed
 * in every flavour and at least one ran. */
export function runAll(label, cases, log = console.log) {
  let failed = 0;
  const failedIn = new Map(FLAVOURS.map((f) => [f.name, 0]));
  for (const c of cases) {
    const outcomes = runCase(c);
    for (const { name } of FLAVOURS) {
      if (judge(c, outcomes.filter((o) => o.flavour === name)) !== null) failedIn.set(name, failedIn.get(name) + 1);
    }
    const diff = judge(c, outcomes);
    if (diff !== null) {
      failed++;
      log(`FAIL ${c.id} (${c.file})\n${diff}\n`);
    }
  }
  for (const [name, n] of failedIn) log(`corpus ${label} ${name}: ${cases.length - n} passed, ${n} failed`);
  log(`corpus ${label}: ${cases.length - failed} passed, ${failed} failed`);
  return failed === 0 && cases.length > 0;
}

let repoRun = null;

/** The whole run: the repository corpus, then the extra corpus when `extraDir` is set. */
export function main(extraDir, log = console.log) {
  const known = requirementIds();
  const seen = new Set();
  const repo = loadCases(jsonFiles(corpusDir, true), known, seen);
  if (repo.problems.length) {
    repo.problems.forEach((p) => log(`LINT ${p}`));
    log(`corpus js: 0 passed, ${repo.problems.length} failed`);
    return { ok: false, count: 0 };
  }
  // The repository's cases do not change within a process: run once, the lines replayed.
  if (repoRun === null) {
    const lines = [];
    repoRun = { ok: runAll("js", repo.cases, (l) => lines.push(l)), lines };
  }
  repoRun.lines.forEach((l) => log(l));
  let ok = repoRun.ok;
  if (extraDir) {
    let extra;
    try {
      extra = loadCases(jsonFiles(extraDir, false), known, seen);
    } catch (e) {
      extra = { cases: [], problems: [e.message] };
    }
    if (extra.problems.length) {
      extra.problems.forEach((p) => log(`LINT (extra) ${p}`));
      log(`corpus js extra: 0 passed, ${extra.problems.length} failed`);
      ok = false;
    } else if (extra.cases.length === 0) {
      log(`corpus js extra: 0 passed, 0 failed\nno case found below ${extraDir}`);
      ok = false;
    } else {
      ok = runAll("js extra", extra.cases, log) && ok;
    }
  }
  return { ok, count: repo.cases.length };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  test("the shared conformance corpus", () => {
    const { ok } = main(process.env.MCP_OUTPUTS_EXTRA_CORPUS || undefined);
    assert.ok(ok, "corpus failures, lint problems or no case (see above)");
  });
}
