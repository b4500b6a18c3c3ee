// The official conformance harness (@modelcontextprotocol/conformance, pinned; needs Node >= 22,
// so `make` runs this file with the pinned node@22 package) against ts/conformance-server.mjs, the
// adapters' example server, over Streamable HTTP on 127.0.0.1. Prints one line per scenario and
// `conformance harness: N passed, M failed`; exits non-zero when M > 0 or N < 10.
//
// In scope: every `tools-*` and `json-schema-*` scenario (what the adapters answer), plus the
// handshake ones every server must pass (server-initialize, ping). Out of scope: the scenarios of
// SDK features the adapters do not touch: logging-set-level, completion-complete, resources-*,
// prompts-*, elicitation-sep1034-defaults / elicitation-sep1330-enums (elicitation schemas),
// server-sse-polling / server-sse-multiple-streams / dns-rebinding-protection (the HTTP transport).
//
// Revisions: harness 0.1.x negotiates through `initialize` (its spec versions are 2025-03-26,
// 2025-06-18, 2025-11-25, draft, extension), so its scenarios run at 2025-11-25. The same server
// at 2026-07-28 over HTTP is exercised by the TS v2 interop client pinned to 2026-07-28 (and at
// 2025-11-25 for comparison), tallied on a line of its own.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-with-logging",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-sampling",
  "tools-call-elicitation",
  "json-schema-2020-12",
];

if (Number(process.versions.node.split(".")[0]) < 22) throw new Error(`the harness needs Node >= 22, not ${process.version}`);

// Every scenario the harness knows must be in scope or named out of scope above.
const listed = execFileSync(process.execPath, [`${here}node_modules/.bin/conformance`, "list"], { encoding: "utf8" });
const serverScenarios = listed.split("Client scenarios")[0].match(/^\s+- (\S+)/gm).map((l) => l.trim().slice(2));
const toolsLike = serverScenarios.filter((s) => s.startsWith("tools-") || s.startsWith("json-schema-"));
const missing = toolsLike.filter((s) => !SCENARIOS.includes(s));
if (missing.length) throw new Error(`harness scenarios in scope but not run: ${missing.join(", ")}`);

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port: p } = probe.address();
    probe.close(() => resolve(p));
  });
});
const server = spawn(process.execPath, [`${here}ts/conformance-server.mjs`, "--http", String(port)], {
  stdio: ["ignore", "inherit", "pipe"],
});
let serverErr = "";
await new Promise((resolve, reject) => {
  server.stderr.on("data", (d) => {
    serverErr += d;
    if (serverErr.includes("listening on")) resolve();
  });
  server.on("exit", (code) => reject(new Error(`conformance server exited ${code}: ${serverErr}`)));
});
const url = `http://127.0.0.1:${port}/mcp`;

let passed = 0;
let failed = 0;
let httpPassed = 0;
let httpFailed = 0;
const results = mkdtempSync(join(tmpdir(), "mcp-outputs-conformance-"));
try {
  for (const scenario of SCENARIOS) {
    const out = join(results, scenario);
    let text = "";
    try {
      text = execFileSync(
        process.execPath,
        [`${here}node_modules/.bin/conformance`, "server", "--url", url, "--scenario", scenario, "-o", out],
        { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 },
      );
    } catch (e) {
      text = `${e.stdout ?? ""}${e.stderr ?? ""}`;
    }
    // The checks the harness wrote: the scenario passes when it made checks and none failed.
    const checks = readdirSync(out, { recursive: true })
      .filter((f) => String(f).endsWith("checks.json"))
      .flatMap((f) => JSON.parse(readFileSync(join(out, String(f)), "utf8")));
    const bad = checks.filter((c) => c.status === "FAILURE");
    const ok = checks.length > 0 && bad.length === 0;
    ok ? passed++ : failed++;
    console.log(`${ok ? "ok  " : "FAIL"} ${scenario} (2025-11-25): ${checks.length} checks${ok ? "" : `: ${bad.map((c) => c.errorMessage).join("; ") || text.slice(-800)}`}`);
  }
  // The same server at 2026-07-28 (and 2025-11-25) over Streamable HTTP, through the v2 client adapter.
  for (const revision of ["2025-11-25", "2026-07-28"]) {
    const out = execFileSync(process.execPath, [`${here}ts/client-v2.mjs`, "--revision", revision, "--apps", "--url", url], {
      encoding: "utf8",
      timeout: 120_000,
    });
    for (const line of out.split("\n").filter((l) => l.startsWith("{"))) {
      const r = JSON.parse(line);
      r.ok ? httpPassed++ : httpFailed++;
      console.log(`${r.ok ? "ok  " : "FAIL"} http ${r.run}: ${r.detail}`);
    }
  }
} finally {
  server.kill();
  rmSync(results, { recursive: true, force: true });
}
console.log(`example server over HTTP (TS v2 client, 2025-11-25 and 2026-07-28): ${httpPassed} passed, ${httpFailed} failed`);
console.log(`conformance harness: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed < 10 || httpFailed > 0 || httpPassed === 0 ? 1 : 0);
