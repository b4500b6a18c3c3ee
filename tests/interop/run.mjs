// The interop driver: pairs every server endpoint with every client endpoint (TS v1 / v2 through
// `mcp-outputs/sdk`, Python through `mcp_outputs.sdk` when tests/interop/py/ is present), with and
// without Apps, at every revision both sides' SDKs can agree on; each client prints one JSON line
// per run. Prints `interop: N passed, M failed`; exits non-zero when M > 0 or N == 0.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = fileURLToPath(new URL("../../", import.meta.url));
const node = process.execPath;
const python = process.env.MCP_OUTPUTS_PYTHON ?? `${root}.venv/bin/python`;
const LEGACY = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const verbose = process.argv.includes("--verbose");

// Each endpoint with the revisions its SDK reaches: TS v1 negotiates through `initialize` only;
// TS v2 and Python reach 2026-07-28 through `server/discover`. No SDK accepts 2026-12-01 (see
// docs/sdk-typescript.md; the TS adapter tests assert the v2 client's refusal).
const servers = [
  { name: "ts-v1", cmd: [node, `${here}ts/server-v1.mjs`], revisions: LEGACY },
  { name: "ts-v2", cmd: [node, `${here}ts/server-v2.mjs`], revisions: [...LEGACY, "2026-07-28"] },
];
const clients = [
  { name: "ts-v1", cmd: [node, `${here}ts/client-v1.mjs`], revisions: LEGACY },
  { name: "ts-v2", cmd: [node, `${here}ts/client-v2.mjs`], revisions: [...LEGACY, "2026-07-28"] },
];
const havePython = existsSync(`${here}py/server.py`) && existsSync(`${here}py/client.py`) && existsSync(python);
if (havePython) {
  servers.push({ name: "py", cmd: [python, `${here}py/server.py`], revisions: [...LEGACY, "2026-07-28"] });
  clients.push({ name: "py", cmd: [python, `${here}py/client.py`], revisions: [...LEGACY, "2026-07-28"] });
} else {
  console.log(`interop: Python endpoints not present (${here}py/, ${python}): TS pairs only`);
}

// Same-SDK TS pairs (v1↔v1, v2↔v2) run in process in ts/adapter.test.mjs; here every other pair.
const jobs = [];
for (const server of servers) {
  for (const client of clients) {
    if (server.name === client.name && server.name.startsWith("ts-")) continue;
    for (const apps of [false, true]) {
      const common = client.revisions.filter((r) => server.revisions.includes(r));
      // Apps at every revision; without Apps at the oldest and newest (the machine is shared).
      for (const revision of apps ? common : [...new Set([common[0], common[common.length - 1]])]) {
        const args = [...client.cmd.slice(1), "--revision", revision, ...(apps ? ["--apps"] : []), "--", ...server.cmd, ...(apps ? ["--apps"] : [])];
        jobs.push({ label: `${server.name} server -> ${client.name} client${apps ? " (apps)" : ""}`, cmd: client.cmd[0], args });
      }
    }
  }
}

// Streamable HTTP on 127.0.0.1: each TS server once over HTTP, with each TS client, at the oldest
// revision with the header, the newest initialize one, and 2026-07-28 where both reach it.
for (const server of servers.filter((s) => s.name.startsWith("ts-"))) {
  for (const client of clients.filter((c) => c.name.startsWith("ts-"))) {
    for (const revision of ["2025-06-18", "2025-11-25", "2026-07-28"]) {
      if (!server.revisions.includes(revision) || !client.revisions.includes(revision)) continue;
      jobs.push({
        label: `${server.name} server -> ${client.name} client over HTTP (apps)`,
        cmd: client.cmd[0],
        args: [...client.cmd.slice(1), "--revision", revision, "--apps", "--url"],
        server: [...server.cmd, "--apps"],
      });
    }
  }
}

// Starts an HTTP server endpoint on a free port; resolves with its URL once it listens.
function startHttpServer(cmd) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd[0], [...cmd.slice(1), "--http", "0"], { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve({ child, url: m[1] });
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
}

async function runJob(job) {
  if (job.server) {
    let started;
    try {
      started = await startHttpServer(job.server);
    } catch (e) {
      return { job, code: -1, out: "", err: e.message };
    }
    const result = await runJob({ ...job, server: undefined, args: [...job.args, started.url] });
    started.child.kill();
    return result;
  }
  return new Promise((resolve) => {
    const child = spawn(job.cmd, job.args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => resolve({ job, code, out, err }));
  });
}

let passed = 0;
let failed = 0;
const queue = [...jobs];
// Two at a time: the machine is shared.
async function worker() {
  while (queue.length) {
    const { job, code, out, err } = await runJob(queue.shift());
    const lines = out.split("\n").filter((l) => l.trim().startsWith("{"));
    if (code !== 0 || lines.length === 0) {
      failed += 1;
      console.log(`FAIL ${job.label}: client exited ${code} with ${lines.length} runs\n${err.slice(-2000)}`);
      continue;
    }
    for (const line of lines) {
      let r;
      try {
        r = JSON.parse(line);
      } catch {
        failed += 1;
        console.log(`FAIL ${job.label}: unreadable line ${line}`);
        continue;
      }
      if (r.ok === true) passed += 1;
      else failed += 1;
      if (r.ok !== true || verbose) console.log(`${r.ok === true ? "ok  " : "FAIL"} ${job.label} ${r.run}: ${r.detail}`);
    }
  }
}
await Promise.all([worker(), worker()]);
console.log(`interop: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
