// Compiled with `tsc --noEmit --strict` in `make test`: typed usage of the whole API, and
// `@ts-expect-error` lines that fail the build if the types become too loose.
import {
  Connection,
  McpOutputsError,
  ReceivedTool,
  ServerTool,
  acceptTool,
  declareTool,
  declareTools,
  discoverTools,
  errorCodes,
  migrateTool,
  protocolVersions,
  runOperation,
  type CallToolResult,
  type CheckAnswer,
  type DiscoveredTools,
  type InputRequiredRoute,
  type OtherResultRoute,
  type ToolsListResult,
  type JsonObject,
  type ErrorCode,
  type LegacyOptions,
  type MigrateResult,
  type Plan,
  type ProtocolVersion,
  type Route,
  type Selector,
  type ToolDeclaration,
} from "mcp-outputs";

const declaration: ToolDeclaration = {
  name: "search",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    { audience: "programmatic", format: "structured", schema: { type: "object" } },
  ],
};

const conn = new Connection({ protocolVersion: "2026-12-01", negotiated: ["io.modelcontextprotocol/ui"] });
const server: ServerTool = declareTool(declaration, { legacy: { mirror: false }, limits: { maxDepth: 64 } });
const host: ReceivedTool = acceptTool(server.advertise(conn), conn);
const plan: Plan = host.plan({ mode: "code", schemas: true });
const requested: Selector[] | undefined = plan.requestedOutputs;
const selection: Selector[] = server.select(conn, requested);
const result: CallToolResult = server.respond(conn, requested, {
  outputs: [{ audience: "programmatic", format: "structured", structuredContent: { n: 1 } }],
});
const answer: CheckAnswer = host.check(requested, result);
const retry: boolean = answer.resultType === "input_required";
const routedAny: Route | InputRequiredRoute | OtherResultRoute = host.route(requested, result);
if ("resultType" in routedAny) throw new Error("a complete result was expected");
const route: Route = routedAny;
const wire: string = server.respondText(conn, JSON.stringify(requested), "{}");
const routedText = host.routeText(null, wire);
const routed: Route = "resultType" in routedText ? route : routedText;
const firstModel: string = route.model[0]?.audience ?? "none";
const view = route.view?.structuredContent;
const dropped = route.dropped.length + routed.diagnostics.length + selection.length;
const migrated: MigrateResult = migrateTool({ name: "old", inputSchema: { type: "object" } }, { apps: true });
const migratedTool: ToolDeclaration = migrated.tool;
const keptSchema: LegacyOptions | undefined = migrated.legacy;
const legacyPlan: Plan = host.plan({ mode: "code" });
const legacyRouted = host.route(undefined, result, { legacyStructured: legacyPlan.legacyStructured });
const legacyRoute: Route | undefined = "resultType" in legacyRouted ? undefined : legacyRouted;
host.check(undefined, result, { legacyStructured: "programmatic" });
const raw = runOperation("declare", { tool: { name: "x", inputSchema: {}, outputVariants: [] } });

try {
  host.checkText(undefined, "{}");
} catch (e) {
  if (e instanceof McpOutputsError) {
    const code: ErrorCode = e.code;
    const path: string = e.path;
    const rpc = e.toJsonRpcError();
    const rpcCode: number | undefined = rpc?.code;
    const known: readonly ErrorCode[] = errorCodes;
    console.log(code, path, rpcCode, known.includes("schema-violation"));
    switch (code) {
      case "schema-violation":
      case "limit-exceeded":
        break;
      default:
        break;
    }
  }
}
// The wire helpers: negotiation, per-request connections, tools/call params, tools/list.
const newest: ProtocolVersion | undefined = protocolVersions.at(-1);
const clientCapabilities: JsonObject = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } };
const negotiated: Connection = Connection.negotiate(
  { protocolVersion: newest ?? "2026-12-01", clientCapabilities, serverCapabilities: { extensions: {} } },
  { limits: { maxTools: 100 } },
);
const params: JsonObject = negotiated.toolsCallParams("search", { q: "x" }, plan, clientCapabilities);
const perRequest: Connection = Connection.fromRequest(params, { extensions: {} });
const list: ToolsListResult = perRequest.toolsListResult([server], { cache: { ttlMs: 0, cacheScope: "private" } });
const servers: ServerTool[] = declareTools([declaration], { legacyByTool: { search: { mirror: false } }, supportedVersions: ["2026-12-01"] });
const discovered: DiscoveredTools = discoverTools(list, perRequest);
const names: string[] = discovered.tools.map((t) => t.name);
console.log(servers.length, names, discovered.warnings, retry);
negotiated.toolsCallParams("search", undefined, {}, {});
const listParams: JsonObject = negotiated.requestParams({ cursor: "c" }, clientCapabilities);
console.log(list, perRequest.protocolVersion);

server.free();
host.free();
conn.free();
console.log(firstModel, view, dropped, migratedTool.name, keptSchema, migrated.warnings, legacyRoute?.isError, raw);

// @ts-expect-error: not an error code
const wrong: ErrorCode = "schema-violations";
// @ts-expect-error: an unknown mode
host.plan({ mode: "chatty" });
// @ts-expect-error: mode and consumers are exclusive
host.plan({ mode: "code", consumers: [] });
// @ts-expect-error: a selector needs a format
const badSelector: Selector = { audience: "assistant" };
// @ts-expect-error: the constructor is private; use declareTool
new ServerTool();
// @ts-expect-error: route answers a Route, not a string
const notText: string = host.route(undefined, result);
// @ts-expect-error: a route may be an input_required answer, which has no lists
const unchecked: Route = host.route(undefined, result);
// @ts-expect-error: cacheScope is public or private
perRequest.toolsListResult([], { cache: { ttlMs: 0, cacheScope: "shared" } });
// @ts-expect-error: supportedVersions names revisions
new Connection({}, { supportedVersions: ["latest"] });
// @ts-expect-error: unknown op
runOperation("explode", {});
// @ts-expect-error: negotiate needs both capabilities
Connection.negotiate({ protocolVersion: "2026-12-01", clientCapabilities: {} });
// @ts-expect-error: a plan, not its selectors
negotiated.toolsCallParams("search", undefined, [{ audience: "assistant", format: "content" }], {});
// @ts-expect-error: the list is read-only
protocolVersions.push("2026-12-01");
console.log(wrong, badSelector, notText, unchecked);

// The two flavours: a validator in the SDKs' shape for the default entry; the full entry's own.
import * as fullEntry from "mcp-outputs/full";
import { setValidator, hasValidator, Connection as DefaultConnection, type JsonSchemaValidator } from "mcp-outputs";
const sdkShaped: JsonSchemaValidator = {
  getValidator: () => (input: unknown) => ({ valid: true, data: input, errorMessage: undefined }),
};
if (!hasValidator) setValidator(sdkShaped);
setValidator(null);
const withValidator = new DefaultConnection({}, { validator: sdkShaped });
const ownValidator: JsonSchemaValidator = fullEntry.jsonSchemaValidator();
const flavourFlag: boolean = fullEntry.hasValidator;
void withValidator;
void ownValidator;
void flavourFlag;
