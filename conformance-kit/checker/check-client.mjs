// `check-client`: judges what an MCP client sends, in the form of the official harness's client
// scenarios: it serves a scripted SEP-3279 server over Streamable HTTP on 127.0.0.1, runs the
// client command with the server's URL as its last argument (and MCP_CONFORMANCE_SCENARIO set to
// the scenario's name), records every request, and judges them when the client exits.
import { spawn } from "node:child_process";
import { catalogueFromData, createHandler, serveHttp } from "./scripted-server.mjs";

const UI = "io.modelcontextprotocol/ui";
const HANDSHAKE = new Set(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]);
const REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2026-12-01"];
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const key = (s) => `${s?.audience}/${s?.format}`;

export const CLIENT_CHECKS = [
  { id: "client.legacy-no-requested-outputs", requirements: ["SEL-2", "PLAN-12", "LEG-5"], severity: "must", title: "no requestedOutputs on a request under 2026-07-28 or earlier (even when a legacy Tool carries outputVariants)" },
  { id: "client.selectors-declared", requirements: ["SEL-3"], severity: "must", title: "every requested selector is a variant the tool advertised to this client" },
  { id: "client.selectors-negotiated", requirements: ["SEL-4", "AUD-1"], severity: "must", title: "an extension audience is requested only when the client declared the extension (and the server did)" },
  { id: "client.selectors-unique", requirements: ["SEL-5"], severity: "must", title: "no selector twice in requestedOutputs" },
  { id: "client.selection-not-empty", requirements: ["SEL-1", "SEL-8"], severity: "must", title: "requestedOutputs is omitted for the fallback, never []" },
  { id: "client.refuses-legacy-tool", requirements: ["VER-2", "LIST-2", "PLAN-14"], severity: "must", title: "after a 2026-12-01 tools/list holding a Tool without outputVariants, the client calls no tool from it" },
];

/** Scenario name -> the scripted server's mode and what it tests. */
export const SCENARIOS = {
  default: { mode: "none", what: "a correct server: the client's selections are judged" },
  "legacy-tool": { mode: "legacy-tool", what: "under 2026-12-01 one Tool has no outputVariants: the client must treat the list as invalid" },
  "variants-on-legacy": { mode: "variants-on-legacy", what: "under earlier revisions the Tools carry outputVariants: no negotiation signal, no requestedOutputs" },
};

class Recorder {
  constructor() {
    this.results = new Map(CLIENT_CHECKS.map((c) => [c.id, { pass: 0, failures: [] }]));
  }
  record(id, ok, where, message) {
    const r = this.results.get(id);
    if (ok) r.pass += 1;
    else if (r.failures.length < 20) r.failures.push(`${where}: ${message}`);
  }
}

/** Runs `command` (the URL appended) against the scenario; returns the report. */
export async function checkClient(command, { scenario = "default", catalogue, timeoutMs = 60000, strict = false, baseline = {} } = {}) {
  const { mode } = SCENARIOS[scenario];
  const tools = catalogue ? catalogueFromData(catalogue.tools, catalogue.produced) : undefined;
  const handler = createHandler({ mode, tools, name: `check-client ${scenario}` });
  const seen = [];
  const server = await serveHttp(handler, {
    onMessage: (message, session, answer) => seen.push({ message, session: { ...session }, answer }),
  });
  const run = await new Promise((resolve) => {
    const child = spawn(command[0], [...command.slice(1), server.url], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, MCP_CONFORMANCE_SCENARIO: scenario },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout = (stdout + d).slice(-20000)));
    child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-20000)));
    const timer = setTimeout(() => child.kill("SIGTERM"), timeoutMs);
    child.on("error", (e) => resolve({ code: null, error: e.message, stdout, stderr }));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  await server.close();
  const rec = new Recorder();
  judge(seen, handler, scenario, rec);
  const checks = CLIENT_CHECKS.map((c) => {
    const r = rec.results.get(c.id);
    let status = r.failures.length ? (c.severity === "must" || strict ? "fail" : "warn") : r.pass ? "pass" : "skip";
    const expected = Object.hasOwn(baseline, c.id);
    if (expected) status = status === "fail" ? "expected-fail" : "stale-baseline";
    return { id: c.id, severity: c.severity, requirements: c.requirements, title: c.title, status, passed: r.pass, failures: r.failures };
  });
  const count = (s) => checks.filter((c) => c.status === s).length;
  const summary = { passed: count("pass"), failed: count("fail"), warned: count("warn"), skipped: count("skip"), expectedFailures: count("expected-fail"), staleBaseline: count("stale-baseline") };
  const requests = seen.filter((s) => s.message.method !== undefined).map((s) => s.message.method);
  return {
    ok: summary.failed === 0 && summary.staleBaseline === 0,
    scenario,
    summary,
    checks,
    client: { exit: run.code, signal: run.signal ?? null, error: run.error, requests: requests.length, stderrTail: run.stderr.slice(-1000) },
  };
}

function revisionOf(entry) {
  const rev = entry.message.params?._meta?.["io.modelcontextprotocol/protocolVersion"];
  return rev ?? entry.session.revision;
}

function clientApps(entry) {
  const caps = entry.message.params?._meta?.["io.modelcontextprotocol/clientCapabilities"] ?? entry.session.capabilities;
  return isObject(caps?.extensions) && caps.extensions[UI] !== undefined;
}

function judge(seen, handler, scenario, rec) {
  let invalidListAt = null; // the index of a 2026-12-01 tools/list answer holding a legacy Tool
  seen.forEach((entry, index) => {
    const { message, answer } = entry;
    const rev = revisionOf(entry);
    if (message.method === "tools/list" && rev === "2026-12-01" && Array.isArray(answer.result?.tools)) {
      if (answer.result.tools.some((t) => !Array.isArray(t?.outputVariants)) && invalidListAt === null) invalidListAt = index;
    }
    if (message.method !== "tools/call") return;
    const params = message.params ?? {};
    const where = `${rev ?? "(no revision)"} tools/call ${params.name}`;
    const hasRequested = params.requestedOutputs !== undefined;
    if (REVISIONS.indexOf(rev) < REVISIONS.indexOf("2026-12-01")) {
      rec.record("client.legacy-no-requested-outputs", !hasRequested, where, `sent requestedOutputs ${JSON.stringify(params.requestedOutputs)}`);
      return;
    }
    if (invalidListAt !== null) rec.record("client.refuses-legacy-tool", false, where, "called a tool after a 2026-12-01 tools/list holding a legacy Tool");
    if (!hasRequested) return;
    const requested = params.requestedOutputs;
    rec.record("client.selection-not-empty", !(Array.isArray(requested) && requested.length === 0), where, "requestedOutputs: []");
    if (!Array.isArray(requested) || requested.length === 0) return;
    const keys = requested.map(key);
    const dup = keys.filter((k, i) => keys.indexOf(k) !== i);
    rec.record("client.selectors-unique", dup.length === 0, where, `${dup.join(", ")} twice`);
    const apps = clientApps(entry);
    const extensions = requested.filter((s) => !["assistant", "user", "programmatic"].includes(s?.audience));
    const unnegotiated = extensions.filter((s) => !(s?.audience === UI && apps));
    rec.record("client.selectors-negotiated", unnegotiated.length === 0, where, `requested ${unnegotiated.map(key).join(", ")} without the extension negotiated`);
    // What the tool advertised to this client at this revision: the scripted server's own answer.
    let listed;
    try {
      const session = { ...entry.session };
      let cursor;
      for (let page = 0; page < 50 && !listed; page++) {
        const r = handler.handle("tools/list", { ...(params._meta ? { _meta: params._meta } : {}), ...(cursor === undefined ? {} : { cursor }) }, session);
        listed = r.tools.find((t) => t.name === params.name);
        if (typeof r.nextCursor !== "string") break;
        cursor = r.nextCursor;
      }
    } catch {
      listed = undefined;
    }
    const declared = new Set((listed?.outputVariants ?? []).map(key));
    const undeclared = keys.filter((k) => !declared.has(k));
    rec.record("client.selectors-declared", undeclared.length === 0, where, `requested ${undeclared.join(", ")}, not advertised${listed ? "" : " (no such tool)"}`);
  });
  if (scenario === "legacy-tool" && invalidListAt !== null && rec.results.get("client.refuses-legacy-tool").failures.length === 0) {
    rec.record("client.refuses-legacy-tool", true, "", "");
  }
}

export function formatClientReport(rep) {
  const mark = { pass: "PASS", fail: "FAIL", warn: "WARN", skip: "SKIP", "expected-fail": "XFAIL", "stale-baseline": "STALE" };
  const lines = [`scenario ${rep.scenario}: the client made ${rep.client.requests} requests and exited ${rep.client.exit ?? rep.client.signal ?? rep.client.error}`];
  for (const c of rep.checks) {
    lines.push(`${mark[c.status].padEnd(5)} ${c.id} [${c.severity}; ${c.requirements.join(", ")}]${c.status === "pass" ? ` (${c.passed} instances)` : c.status === "skip" ? " (not applicable to this run)" : ""}`);
    for (const f of c.failures.slice(0, c.status === "pass" ? 0 : 5)) lines.push(`      ${f}`);
  }
  const s = rep.summary;
  lines.push(`check-client: ${s.passed} passed, ${s.failed} failed, ${s.warned} warned, ${s.skipped} not applicable${s.expectedFailures ? `, ${s.expectedFailures} expected failures` : ""}${s.staleBaseline ? `, ${s.staleBaseline} stale baseline entries` : ""}`);
  return lines.join("\n");
}
