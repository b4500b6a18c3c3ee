// The body of both TS interop clients: connect at one revision through `mcp-outputs/sdk`, then for
// every tool of the catalogue and every mode plan → call (the SDK's callTool) → check → route,
// printing one JSON line per run. Exit 0 whatever the runs gave; non-zero only on a crash.
import { McpOutputsError } from "mcp-outputs";
import { connectTools } from "mcp-outputs/sdk";
import { APPS, BROKEN_TOOL, catalogue, clientCapabilities, toolArguments } from "./fixtures.mjs";
import { parseArgs } from "./http.mjs";

const print = (run, ok, detail) => process.stdout.write(`${JSON.stringify({ run, ok, detail })}\n`);
const key = (o) => `${o.audience}/${o.format}`;

// What a run must show: nothing on the model route that was not requested (and, with no
// `requestedOutputs` on a legacy revision, nothing that is not for the assistant).
function modelRouteProblem(plan, route) {
  const requested = plan.requestedOutputs ? new Set(plan.requestedOutputs.map(key)) : null;
  for (const output of route.model) {
    if (requested ? !requested.has(key(output)) : output.audience !== "assistant") {
      return `unrequested output on the model route: ${key(output)}`;
    }
  }
  return null;
}

// Whether the call sends structured data (the broken tool's is invalid): the plan asks for it, or,
// with no requestedOutputs, the legacy Tool as listed advertises an outputSchema.
const sendsStructured = (plan, entry) =>
  plan.requestedOutputs ? plan.requestedOutputs.some((s) => s.format === "structured") : entry?.outputSchema !== undefined;

export async function runClient({ sdkName, makeClient, stdioTransport, httpTransport }) {
  const opts = parseArgs(process.argv.slice(2));
  const revision = opts.revision;
  if (!revision) throw new Error("usage: --revision R [--apps] (-- <server command...> | --url URL)");
  const client = makeClient({ capabilities: clientCapabilities(opts.apps) });
  const transport = opts.url ? httpTransport(new URL(opts.url)) : stdioTransport(opts.command);
  const modes = ["conversational", "code", ...(opts.apps ? ["apps"] : [])];
  let tools;
  try {
    tools = await connectTools(client, transport, { protocolVersion: revision });
  } catch (e) {
    for (const name of catalogue) for (const mode of modes) print(`${name}/${mode}/${revision}`, false, `connect (${sdkName}): ${e.message}`);
    await client.close?.();
    return;
  }
  const agreed = tools.protocolVersion;
  for (const name of catalogue) {
    for (const mode of modes) {
      const run = `${name}/${mode}/${revision}`;
      if (agreed !== revision) {
        print(run, false, `the connection agreed ${agreed}, not ${revision}`);
        continue;
      }
      let plan;
      try {
        plan = tools.tool(name).plan({ mode });
      } catch (e) {
        // Before 2026-12-01 a call cannot name its outputs: only the conversational fallback is
        // plannable (the core's ruling); the other modes are not runs at this revision.
        if (e instanceof McpOutputsError && e.code === "requested-outputs-on-legacy-version" && mode !== "conversational") continue;
        print(run, false, `plan: ${e.code ?? ""} ${e.message}`);
        continue;
      }
      const expectError = name === BROKEN_TOOL && sendsStructured(plan, tools.entries.find((t) => t.name === name));
      try {
        const { route } = await tools.call(name, toolArguments[name], { mode });
        if (expectError) {
          print(run, false, "the broken tool's invalid output was not refused");
          continue;
        }
        let problem = modelRouteProblem(plan, route);
        // The Apps path: where Apps reached the wire from both sides (the Python SDK's server
        // drops `capabilities.extensions` from 2025-era initialize results), a tool that names a
        // View gets a View payload, and its ui:// resource reads through the SDK; elsewhere none.
        const uri = tools.entries.find((t) => t.name === name)?._meta?.ui?.resourceUri;
        const appsNegotiated = tools.connection.negotiated.includes(APPS);
        if (problem === null && appsNegotiated && typeof uri === "string") {
          if (!route.view) problem = `Apps negotiated but no View payload for ${uri}`;
          else {
            const read = await client.readResource({ uri });
            const html = read.contents?.find((c) => c.uri === uri);
            if (html?.mimeType !== "text/html;profile=mcp-app") problem = `resources/read ${uri}: no mcp-app document`;
          }
        } else if (problem === null && !appsNegotiated && route.view) {
          problem = "a View payload without Apps negotiated";
        }
        const routed = `apps=${appsNegotiated ? "negotiated" : "no"} model=[${route.model.map(key)}] user=[${route.user.map(key)}] programmatic=[${route.programmatic.map(key)}] view=${route.view ? "yes" : "no"}`;
        print(run, problem === null, problem ?? `requested=${plan.requestedOutputs ? plan.requestedOutputs.map(key).join(",") : "(legacy)"} ${routed}`);
      } catch (e) {
        if (e instanceof McpOutputsError) {
          print(run, false, `check/route refused the result: ${e.code} at ${e.path}: ${e.message}`);
        } else if (expectError && typeof e?.code === "number" && typeof e?.data?.mcpOutputsCode === "string") {
          print(run, true, `JSON-RPC error ${e.code} (${e.constructor.name}) data.mcpOutputsCode=${e.data.mcpOutputsCode}`);
        } else {
          print(run, false, `${e?.constructor?.name}: ${e?.message} data=${JSON.stringify(e?.data)}`);
        }
      }
    }
  }
  await client.close();
}
