// check-server, the wire-level checker: its checks cite real requirements at the right severity;
// it passes the adapters' example servers (TS over Streamable HTTP, Python over stdio) and the
// broken-server fixture in its correct mode; every mode of the broken server trips the check it
// was written to trip; the options (baseline, strict, config, usage errors) behave; and CLI.md's
// commands run as written in a fresh project. Prints
// `conformance kit: N checks passed on the example server; M of M negative checks fired on the broken server`.
// Run by `make test` (the example servers need `make -C ../tests/interop deps` and the Python
// venv with mcp_outputs developed, which the Makefile's `examples` target provides).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHECKS } from "../checker/checks.mjs";
import { CLIENT_CHECKS } from "../checker/check-client.mjs";
import { createHandler, serveHttp } from "../checker/scripted-server.mjs";
import { build } from "../tools/build.mjs";

const kitDir = dirname(dirname(fileURLToPath(import.meta.url)));
const root = dirname(kitDir);
const cli = join(kitDir, "bin", "mcp-outputs-conformance.mjs");
const broken = join(kitDir, "test", "fixtures", "broken-server.mjs");
const brokenClient = join(kitDir, "test", "fixtures", "broken-client.mjs");
const interop = join(root, "tests", "interop");
const python = process.env.MCP_OUTPUTS_PYTHON ?? join(root, ".venv", "bin", "python");
const work = mkdtempSync(join(tmpdir(), "kit-checker-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

/** Runs the CLI; resolves {status, stdout, stderr, report (with --json)}. */
function runCli(args, { cwd = kitDir, env = {} } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (status) => {
      let report;
      if (args.includes("--json")) {
        try {
          report = JSON.parse(stdout);
        } catch {
          /* left undefined: the assertion says why */
        }
      }
      resolve({ status, stdout, stderr, report });
    });
  });
}

const statusOf = (report, id) => report.checks.find((c) => c.id === id)?.status;
const modes = execFileSync(process.execPath, [broken, "--list-modes"], { encoding: "utf8" })
  .trim()
  .split("\n")
  .map((l) => l.split("\t"))
  .map(([mode, checks]) => ({ mode, checks: checks.split(",") }));
const shouldModes = new Set(["error-empty", "leak-ui-meta", "legacy-no-mirror", "no-schema"]);

// The tally's parts.
const passedOnExamples = [];
let fired = 0;

test("every check cites known requirements, at the severity of the strongest", () => {
  const requirements = JSON.parse(readFileSync(join(root, "tests", "corpus", "requirements.json"), "utf8")).requirements;
  const level = new Map(requirements.map((r) => [r.id, r.level]));
  const ids = new Set();
  for (const c of [...CHECKS, ...CLIENT_CHECKS]) {
    assert.ok(!ids.has(c.id), `${c.id} twice`);
    ids.add(c.id);
    for (const r of c.requirements) assert.ok(level.has(r), `${c.id} cites unknown ${r}`);
    const strongest = c.requirements.some((r) => level.get(r) === "MUST") ? "must" : "should";
    assert.equal(c.severity, strongest, c.id);
  }
  // CLI.md lists every check.
  const doc = readFileSync(join(kitDir, "CLI.md"), "utf8");
  for (const c of [...CHECKS, ...CLIENT_CHECKS]) assert.ok(doc.includes(`| \`${c.id}\` | ${c.severity} | ${c.requirements.join(", ")} |`), `CLI.md does not list ${c.id} as it is`);
  // Every check is tripped by some mode of the broken server, except `connect` (no server at all).
  const tripped = new Set(modes.flatMap((m) => m.checks));
  for (const c of CHECKS) if (c.id !== "connect") assert.ok(tripped.has(c.id), `no broken-server mode trips ${c.id}`);
});

test("the broken server's correct mode passes every check at every revision", async () => {
  const { status, report, stdout } = await runCli(["check-server", "--json", "--strict", "--", process.execPath, broken]);
  assert.equal(status, 0, stdout.slice(-3000));
  for (const c of report.checks) assert.equal(c.status, "pass", `${c.id}: ${c.failures.join("; ")}`);
  assert.ok(Object.values(report.sessions).every((s) => s === "checked"));
  console.log(`conformance kit: all ${report.checks.length} checks pass on the reference fixture (test/fixtures/broken-server.mjs, correct mode) at every revision`);
});

test("every negative mode of the broken server trips its check", async () => {
  const queue = [...modes];
  const missed = [];
  async function worker() {
    while (queue.length) {
      const { mode, checks } = queue.shift();
      const should = shouldModes.has(mode);
      const { status, report } = await runCli(["check-server", "--json", "--", process.execPath, broken, "--mode", mode]);
      let ok = report !== undefined && checks.every((id) => statusOf(report, id) === (should ? "warn" : "fail"));
      ok &&= status === (should ? 0 : 1);
      if (ok && should) {
        // A SHOULD only warns; --strict fails it.
        const strict = await runCli(["check-server", "--json", "--strict", "--", process.execPath, broken, "--mode", mode]);
        ok = strict.status === 1 && checks.every((id) => statusOf(strict.report, id) === "fail");
      }
      if (ok) fired += 1;
      else missed.push(`${mode} (${checks.join(", ")}): exit ${status}, ${checks.map((id) => `${id} ${report && statusOf(report, id)}`).join(", ")}`);
    }
  }
  await Promise.all([worker(), worker()]);
  assert.deepEqual(missed, []);
  assert.equal(fired, modes.length);
});

test("over Streamable HTTP: the scripted server, correct and broken", async () => {
  for (const [mode, expect] of [["none", null], ["mirror", "call.no-mirror"], ["legacy-tool", "list.output-variants"]]) {
    const server = await serveHttp(createHandler({ mode }));
    try {
      const { status, report, stdout } = await runCli(["check-server", "--json", "--url", server.url]);
      if (expect === null) {
        assert.equal(status, 0, stdout.slice(-2000));
        for (const c of report.checks) assert.equal(c.status, "pass", `${c.id}: ${c.failures.join("; ")}`);
      } else {
        assert.equal(status, 1);
        assert.equal(statusOf(report, expect), "fail");
      }
    } finally {
      await server.close();
    }
  }
});

test("baseline, config and usage errors", async () => {
  // A baseline turns the mode's failures into expected failures (exit 0) ...
  // The baseline CLI.md shows.
  const shown = /```json baseline\.json\n([\s\S]*?)```/.exec(readFileSync(join(kitDir, "CLI.md"), "utf8"));
  assert.ok(shown, "CLI.md shows baseline.json");
  const baseline = join(work, "baseline.json");
  writeFileSync(baseline, shown[1]);
  let r = await runCli(["check-server", "--json", "--baseline", baseline, "--", process.execPath, broken, "--mode", "schema-violation"]);
  assert.equal(r.status, 0, r.stdout.slice(-2000));
  assert.equal(statusOf(r.report, "call.structured-valid"), "expected-fail");
  // ... and an entry for a check that passes is stale: the run fails until it is removed.
  r = await runCli(["check-server", "--json", "--baseline", baseline, "--", process.execPath, broken]);
  assert.equal(r.status, 1);
  assert.equal(statusOf(r.report, "call.structured-valid"), "stale-baseline");
  // The config: a tool set to false is never called.
  const config = join(work, "config.json");
  writeFileSync(config, JSON.stringify({ tools: { lookup: false } }));
  r = await runCli(["check-server", "--json", "--config", config, "--revisions", "2026-12-01", "--", process.execPath, broken]);
  assert.equal(r.status, 0, r.stdout.slice(-2000));
  assert.ok(r.report.notes.some((n) => /tool lookup: not called/.test(n)));
  // Usage errors exit 2.
  for (const args of [[], ["check-server"], ["check-server", "--url", "ftp://x"], ["check-server", "--revisions", "2099-01-01", "--", "x"], ["nope"]]) {
    r = await runCli(args);
    assert.equal(r.status, 2, `${args.join(" ")}: exit ${r.status}`);
  }
  // A server answering nonsense fails the run with reasons, and the checker does not crash.
  const hostile = join(work, "hostile.mjs");
  writeFileSync(hostile, `let n = 0;
process.stdin.on("data", (d) => {
  for (const line of String(d).split("\\n").filter(Boolean)) {
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    n++;
    const weird = [null, 42, "x", [], { tools: [null, 5, { name: 7, outputVariants: [null, { audience: 1 }] }, { name: "t", inputSchema: 5, outputVariants: "no" }], nextCursor: 9 }, { outputs: [null, { format: "structured" }], content: 3 }];
    const result = m.method === "initialize" ? { protocolVersion: m.params.protocolVersion, capabilities: null } : weird[n % weird.length];
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }) + "\\n");
  }
});
`);
  r = await runCli(["check-server", "--json", "--timeout", "2000", "--", process.execPath, hostile]);
  assert.equal(r.status, 1, r.stderr);
  assert.equal(statusOf(r.report, "list.result-shape"), "fail");
  // A command that is no server fails the run (exit 1), it does not crash.
  r = await runCli(["check-server", "--timeout", "500", "--revisions", "2025-11-25,2026-12-01", "--json", "--", process.execPath, "-e", "process.stdin.resume()"]);
  assert.equal(r.status, 1);
  assert.equal(statusOf(r.report, "connect"), "fail");
});

// The adapters' example servers: the tools that need arguments get the walkthrough's.
function exampleConfig() {
  const produced = JSON.parse(readFileSync(join(root, "core", "examples", "fixtures", "produced.json"), "utf8"));
  const file = join(work, "example-config.json");
  writeFileSync(file, JSON.stringify({ tools: Object.fromEntries(Object.entries(produced.arguments).map(([name, args]) => [name, { arguments: args }])) }));
  return file;
}
const exampleBaseline = join(kitDir, "test", "fixtures", "example-baseline.json");

function judgeExample(name, { status, report, stdout }) {
  assert.equal(status, 0, `${name}: ${stdout.slice(-3000)}`);
  for (const c of report.checks) assert.ok(["pass", "skip", "expected-fail"].includes(c.status), `${name} ${c.id}: ${c.status} ${c.failures.join("; ")}`);
  const passed = report.checks.filter((c) => c.status === "pass").map((c) => c.id);
  const offered = Object.entries(report.sessions).filter(([, s]) => s === "checked").map(([w]) => w);
  console.log(`${name}: ${passed.length} checks passed; sessions checked: ${offered.join(", ")}`);
  passedOnExamples.push(new Set(passed));
}

test("the TypeScript example server (tests/interop/ts/conformance-server.mjs, Streamable HTTP)", async () => {
  assert.ok(existsSync(join(interop, "node_modules", "@modelcontextprotocol", "server")), "run `make -C tests/interop deps` first");
  const server = spawn(process.execPath, [join(interop, "ts", "conformance-server.mjs"), "--http", "0"], { cwd: interop, stdio: ["ignore", "ignore", "pipe"] });
  try {
    const url = await new Promise((resolve, reject) => {
      let err = "";
      server.stderr.on("data", (d) => {
        err += d;
        const m = /listening on (\S+)/.exec(err);
        if (m) resolve(m[1]);
      });
      server.on("exit", (code) => reject(new Error(`server exited ${code}: ${err}`)));
    });
    const args = ["check-server", "--json", "--config", exampleConfig(), "--url", url];
    judgeExample("TS example server", await runCli(existsSync(exampleBaseline) ? [...args, "--baseline", exampleBaseline] : args));
  } finally {
    server.kill();
  }
});

test("the Python example server (tests/interop/py/server.py --apps, stdio)", async () => {
  assert.ok(existsSync(python), `no Python venv at ${python}: run \`make -C bindings-py develop interop-venv\``);
  const args = ["check-server", "--json", "--config", exampleConfig(), "--", python, join(interop, "py", "server.py"), "--apps"];
  judgeExample("Python example server", await runCli(existsSync(exampleBaseline) ? [...args.slice(0, 4), "--baseline", exampleBaseline, ...args.slice(4)] : args));
});

test("the library's own wire API served on stdio, 2026-12-01 included (test/fixtures/library-server.mjs)", async () => {
  const { status, report, stdout } = await runCli(["check-server", "--json", "--config", exampleConfig(), "--", process.execPath, join(kitDir, "test", "fixtures", "library-server.mjs")]);
  assert.equal(status, 0, stdout.slice(-3000));
  assert.equal(report.sessions["2026-12-01"], "checked");
  for (const c of report.checks) assert.equal(c.status, "pass", `${c.id}: ${c.status} ${c.failures.join("; ")}`);
  const passed = report.checks.filter((c) => c.status === "pass").length;
  console.log(`conformance kit: ${passed} checks passed on the library's wire API (mcp-outputs without an SDK) at every revision, 2026-12-01 included`);
});

test("CLI.md's commands run as written in a fresh project", () => {
  const doc = readFileSync(join(kitDir, "CLI.md"), "utf8");
  const blocks = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trim());
  assert.equal(blocks.length, 1, "one shell block");
  // The package as published: a copy with the data built in, packed.
  const stage = join(work, "stage");
  execFileSync("cp", ["-r", kitDir, stage]);
  rmSync(join(stage, "test"), { recursive: true, force: true });
  rmSync(join(stage, "node_modules"), { recursive: true, force: true });
  build(stage);
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: stage, encoding: "utf8" }));
  const project = join(work, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "server-author", private: true, type: "module" }));
  // The server under test, as a server author's own `server.mjs`: the scripted server, correct.
  const scripted = readFileSync(join(kitDir, "checker", "scripted-server.mjs"), "utf8");
  writeFileSync(join(project, "server.mjs"), `${scripted}\nserveStdio(createHandler({ name: "server-author" }));\n`);
  // The client under test: the broken client's correct mode (dependency-free), as `client.mjs`.
  writeFileSync(join(project, "client.mjs"), readFileSync(brokenClient, "utf8"));
  const configBlock = /```json tools\.json\n([\s\S]*?)```/.exec(doc);
  assert.ok(configBlock, "CLI.md shows tools.json");
  writeFileSync(join(project, "tools.json"), configBlock[1]);
  let ran = 0;
  for (const line of blocks[0].split("\n")) {
    if (line.startsWith("#") || !line.trim()) continue;
    if (line === "npm install --save-dev mcp-outputs-conformance") {
      execFileSync("npm", ["install", "--save-dev", "--no-audit", "--no-fund", "--prefer-offline", join(work, packed.filename)], { cwd: project, stdio: "pipe" });
    } else {
      const [command, ...args] = line.replace(/ > report\.json$/, "").split(" ");
      const output = execFileSync(command, args, { cwd: project, encoding: "utf8" });
      if (line.includes("--json")) assert.equal(JSON.parse(output).ok, true);
      else if (line.includes("list-checks")) assert.equal(output.trim().split("\n").length, CHECKS.length + CLIENT_CHECKS.length);
      else if (line.includes("check-client")) assert.match(output, /^check-client: [1-9]\d* passed, 0 failed, 0 warned/m);
      else assert.match(output, /^check-server: \d+ passed, 0 failed, 0 warned, 0 not applicable$/m);
    }
    ran++;
  }
  assert.equal(ran, 5);
});

// check-client: the broken client's modes, then the adapters' example clients.
const clientModes = execFileSync(process.execPath, [brokenClient, "--list-modes"], { encoding: "utf8" })
  .trim()
  .split("\n")
  .map((l) => l.split("\t"))
  .map(([mode, checks, scenario, revision]) => ({ mode, checks: checks.split(","), scenario, revision }));
let clientFired = 0;
const passedOnExampleClients = new Set();

test("check-client: the correct client passes, and every mode of the broken client trips its check", async () => {
  const runs = [
    ["default", "2025-11-25"],
    ["default", "2026-07-28"],
    ["default", "2026-12-01"],
    ["legacy-tool", "2026-12-01"],
    ["variants-on-legacy", "2025-06-18"],
  ];
  for (const [scenario, revision] of runs) {
    const { status, report, stdout } = await runCli(["check-client", "--json", "--scenario", scenario, "--", process.execPath, brokenClient, "--revision", revision]);
    assert.equal(status, 0, `${scenario} ${revision}: ${stdout.slice(-2000)}`);
    assert.ok(report.summary.passed > 0, `${scenario} ${revision}: nothing judged`);
  }
  const missed = [];
  for (const { mode, checks, scenario, revision } of clientModes) {
    const { status, report } = await runCli(["check-client", "--json", "--scenario", scenario, "--", process.execPath, brokenClient, "--mode", mode, "--revision", revision]);
    if (status === 1 && checks.every((id) => statusOf(report, id) === "fail")) clientFired += 1;
    else missed.push(`${mode}: exit ${status}, ${checks.map((id) => `${id} ${report && statusOf(report, id)}`).join(", ")}`);
  }
  assert.deepEqual(missed, []);
  // Every client check is tripped by some mode.
  const tripped = new Set(clientModes.flatMap((m) => m.checks));
  for (const c of CLIENT_CHECKS) assert.ok(tripped.has(c.id), `no broken-client mode trips ${c.id}`);
});

test("check-client: the adapters' example clients (TS v1, TS v2, Python)", async () => {
  const fixtures = join(root, "core", "examples", "fixtures");
  const read = (f) => JSON.parse(readFileSync(join(fixtures, f), "utf8"));
  const tools = read("tools.json").tools;
  const produced = read("produced.json").produced;
  const extra = read("interop-broken.json");
  const catalogue = join(work, "catalogue.json");
  writeFileSync(catalogue, JSON.stringify({ tools: [...tools, { ...extra.tool, ...(extra.legacy ? { legacy: extra.legacy } : {}) }], produced: { ...produced, [extra.tool.name]: extra.produced } }));
  const ts = (v) => [process.execPath, join(interop, "ts", `client-${v}.mjs`)];
  const py = [python, join(interop, "py", "client.py")];
  const runs = [
    ["TS v1", ts("v1"), "2025-11-25", "default"],
    ["TS v1", ts("v1"), "2025-06-18", "variants-on-legacy"],
    ["TS v2", ts("v2"), "2026-07-28", "default"],
    ["TS v2", ts("v2"), "2026-12-01", "default"],
    ["TS v2", ts("v2"), "2026-12-01", "legacy-tool"],
    ["Python", py, "2026-07-28", "default"],
    ["Python", py, "2025-11-25", "variants-on-legacy"],
  ];
  const queue = [...runs];
  const problems = [];
  async function worker() {
    while (queue.length) {
      const [name, cmd, revision, scenario] = queue.shift();
      const { status, report, stdout } = await runCli(
        ["check-client", "--json", "--scenario", scenario, "--catalogue", catalogue, "--", ...cmd, "--revision", revision, "--apps", "--url"],
        { cwd: interop },
      );
      const passed = report?.checks.filter((c) => c.status === "pass").map((c) => c.id) ?? [];
      if (status !== 0 || passed.length === 0) problems.push(`${name} ${revision} ${scenario}: exit ${status} ${stdout.slice(-1500)}`);
      passed.forEach((id) => passedOnExampleClients.add(id));
      console.log(`${name} example client at ${revision} (${scenario}): ${passed.join(", ") || "nothing judged"}`);
    }
  }
  await Promise.all([worker(), worker()]);
  assert.deepEqual(problems, []);
});

test("tally", () => {
  assert.equal(passedOnExamples.length, 2, "both example servers ran");
  const both = [...passedOnExamples[0]].filter((id) => passedOnExamples.every((s) => s.has(id)));
  console.log(`conformance kit: ${both.length} checks passed on the example server; ${fired} of ${modes.length} negative checks fired on the broken server`);
  console.log(`conformance kit clients: ${passedOnExampleClients.size} checks passed on the example clients; ${clientFired} of ${clientModes.length} negative checks fired on the broken client`);
});
