#!/usr/bin/env node
// mcp-outputs-conformance check-server [options] (--url URL | -- command args...)
// Exit code: 0 every MUST check passed, 1 a check failed (or a stale baseline), 2 usage error.
import { readFileSync } from "node:fs";
import { REVISIONS, checkServer, formatReport } from "../checker/check-server.mjs";
import { CHECKS } from "../checker/checks.mjs";
import { CLIENT_CHECKS, SCENARIOS, checkClient, formatClientReport } from "../checker/check-client.mjs";

const USAGE = `usage: mcp-outputs-conformance check-server [options] (--url URL | -- COMMAND [ARGS...])
       mcp-outputs-conformance check-client [--scenario NAME] [--catalogue FILE] [--json] -- COMMAND [ARGS...]
       mcp-outputs-conformance list-checks [--json]

Checks an MCP server's side of SEP-3279 on the wire, as a client of every revision.
  --url URL             a Streamable HTTP endpoint (else the server is the command after --, on stdio)
  --config FILE         JSON: {"tools": {"<name>": {"arguments": {...}} | false}}; without it a tool is
                        called with its inputSchema's first example, or {} when nothing is required
  --baseline FILE       JSON: {"expectedFailures": {"<check id>": "<why>"}}
  --revisions LIST      comma-separated revisions to check (default: ${REVISIONS.join(",")})
  --strict              SHOULD checks fail instead of warning
  --timeout MS          per-request timeout (default 15000)
  --json                the report as JSON on stdout
  --verbose             the sessions and the notes (calls not judged, tools not called)

check-client serves a scripted server over Streamable HTTP, runs COMMAND ARGS... URL (with
MCP_CONFORMANCE_SCENARIO=NAME) and judges what the client sent.
  --scenario NAME       ${Object.keys(SCENARIOS).join(", ")} (default: default)
  --catalogue FILE      JSON {"tools": [Tool with outputVariants], "produced": {"<name>": {"outputs": [...]}}}
                        (default: the scripted server's own tools)
  --baseline, --strict, --timeout MS (default 60000), --json as for check-server`;

function usage(message) {
  if (message) process.stderr.write(`mcp-outputs-conformance: ${message}\n`);
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

function readJson(file, what) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    usage(`cannot read the ${what} ${file}: ${e.message}`);
  }
}

const argv = process.argv.slice(2);
const sub = argv.shift();
if (sub === "--help" || sub === "-h") {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (sub === "list-checks") {
  const all = [...CHECKS, ...CLIENT_CHECKS];
  if (argv.includes("--json")) process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
  else for (const c of all) process.stdout.write(`${c.id} [${c.severity}; ${c.requirements.join(", ")}] ${c.title}\n`);
  process.exit(0);
}
if (sub !== "check-server" && sub !== "check-client") usage(sub ? `unknown command ${sub}` : "no command");

const opts = { json: false, strict: false, verbose: false };
let command;
while (argv.length) {
  const a = argv.shift();
  const value = () => (argv.length ? argv.shift() : usage(`${a} needs a value`));
  if (a === "--") {
    command = argv.splice(0);
    break;
  } else if (a === "--url") opts.url = value();
  else if (a === "--config") opts.config = readJson(value(), "config");
  else if (a === "--baseline") opts.baseline = readJson(value(), "baseline");
  else if (a === "--revisions") opts.revisions = value().split(",").filter(Boolean);
  else if (a === "--timeout") opts.timeoutMs = Number(value());
  else if (a === "--strict") opts.strict = true;
  else if (a === "--scenario" && sub === "check-client") opts.scenario = value();
  else if (a === "--catalogue" && sub === "check-client") opts.catalogue = readJson(value(), "catalogue");
  else if (a === "--json") opts.json = true;
  else if (a === "--verbose") opts.verbose = true;
  else usage(`unknown option ${a}`);
}
if (sub === "check-client") {
  if (opts.url || !(command && command.length)) usage("check-client runs a client: -- COMMAND [ARGS...]");
  if (opts.revisions || opts.config) usage("--revisions and --config are check-server options");
  if (opts.scenario !== undefined && !Object.hasOwn(SCENARIOS, opts.scenario)) usage(`unknown scenario ${opts.scenario} (known: ${Object.keys(SCENARIOS).join(", ")})`);
  if (opts.catalogue !== undefined && !(Array.isArray(opts.catalogue?.tools) && typeof opts.catalogue?.produced === "object")) usage('the catalogue must be {"tools": [...], "produced": {...}}');
}
if (sub === "check-server" && !opts.url === !(command && command.length)) usage("give exactly one of --url URL or -- COMMAND");
if (opts.url && !/^https?:\/\//.test(opts.url)) usage(`--url must be http(s): ${opts.url}`);
for (const r of opts.revisions ?? []) if (!REVISIONS.includes(r)) usage(`unknown revision ${r} (known: ${REVISIONS.join(", ")})`);
if (opts.timeoutMs !== undefined && !(opts.timeoutMs > 0)) usage("--timeout must be a positive number of milliseconds");
if (opts.config !== undefined && (typeof opts.config !== "object" || opts.config === null || Array.isArray(opts.config))) usage("the config must be a JSON object");
let baseline = {};
if (opts.baseline !== undefined) {
  const b = opts.baseline.expectedFailures;
  if (typeof b !== "object" || b === null) usage('the baseline must be {"expectedFailures": {"<check id>": "<why>"}}');
  baseline = Array.isArray(b) ? Object.fromEntries(b.map((id) => [id, ""])) : b;
}

if (sub === "check-client") {
  const rep = await checkClient(command, { scenario: opts.scenario, catalogue: opts.catalogue, timeoutMs: opts.timeoutMs, strict: opts.strict, baseline });
  process.stdout.write(opts.json ? `${JSON.stringify(rep, null, 2)}\n` : `${formatClientReport(rep)}\n`);
  process.exit(rep.ok ? 0 : 1);
}
const rep = await checkServer(opts.url ? { url: opts.url } : { command }, {
  config: opts.config,
  baseline,
  revisions: opts.revisions,
  strict: opts.strict,
  timeoutMs: opts.timeoutMs,
  log: opts.verbose && !opts.json ? (l) => process.stderr.write(`${l}\n`) : undefined,
});
if (opts.json) process.stdout.write(`${JSON.stringify(rep, null, 2)}\n`);
else {
  process.stdout.write(`${formatReport(rep)}\n`);
  if (opts.verbose) for (const n of rep.notes) process.stdout.write(`note: ${n}\n`);
}
process.exit(rep.ok ? 0 : 1);
