// The demo's host role: it connects to the server over JSON-RPC text, lists the tools, accepts
// the whole tools/list result (discoverTools: one rejected Tool makes the response invalid,
// LIST-2), plans `requestedOutputs` for an execution mode (ReceivedTool.plan), sends the call
// and routes the result by audience (ReceivedTool.route, with the plan's local rule for legacy
// structuredContent, LEG-8).
// It records every step in a trace that the page renders; the host never interprets the
// protocol itself.
import { Connection, McpOutputsError, discoverTools, protocolVersions } from "mcp-outputs";

export const APPS_EXTENSION = "io.modelcontextprotocol/ui";
export const APPS_MIME_TYPE = "text/html;profile=mcp-app";
const CLIENT_INFO = { name: "mcp-outputs-demo-host", version: "0.1.0" };
// Up to 2025-11-25 a connection starts with `initialize`; from 2026-07-28 there is no
// handshake (`server/discover` tells the server's capabilities, each request carries `_meta`).
const FIRST_STATELESS_REVISION = "2026-07-28";

export function usesInitialize(protocolVersion) {
  // The package lists the revisions oldest first; compare positions, never the strings.
  return protocolVersions.indexOf(protocolVersion) < protocolVersions.indexOf(FIRST_STATELESS_REVISION);
}

export function clientCapabilities(apps) {
  return apps ? { extensions: { [APPS_EXTENSION]: { mimeTypes: [APPS_MIME_TYPE] } } } : {};
}

export class DemoHost {
  /** @param send JSON-RPC request text → response text (the wire to the server) */
  constructor(send) {
    this.send = send;
    this.nextId = 1;
  }

  /** One JSON-RPC exchange; both sides of it as the wire carried them. */
  exchange(method, params) {
    return this.exchangeText(JSON.stringify({ jsonrpc: "2.0", id: this.nextId++, method, params }));
  }

  exchangeText(requestText) {
    const responseText = this.send(requestText);
    return { requestText, responseText, response: JSON.parse(responseText) };
  }

  /**
   * Plays one call. `requestedOutputsText`: the JSON text to send as `requestedOutputs`
   * (blank: omit the field), or `null` to send what the plan says. `readView` (default true):
   * also read the View's `ui://` resource when the route has a View payload.
   */
  run(options) {
    const { protocolVersion, apps, mode, toolName } = options;
    const trace = { protocolVersion, apps, mode, toolName };
    const capabilities = clientCapabilities(apps);

    // 1. Connection.
    const handshake = usesInitialize(protocolVersion)
      ? this.exchange("initialize", { protocolVersion, capabilities, clientInfo: CLIENT_INFO })
      : this.exchange("server/discover", {});
    trace.handshake = handshake;
    const serverHello = handshake.response.result;
    if (!serverHello) return { ...trace, stop: "handshake" };
    const conn = Connection.negotiate({
      protocolVersion: serverHello.protocolVersion ?? protocolVersion,
      clientCapabilities: capabilities,
      serverCapabilities: serverHello.capabilities ?? {},
    });
    try {
      trace.connection = { protocolVersion: conn.protocolVersion, negotiated: conn.negotiated };
      return this.callOn(conn, capabilities, trace, options);
    } finally {
      conn.free();
    }
  }

  callOn(conn, capabilities, trace, options) {
    // 2. tools/list, read for this connection: a Tool without outputVariants on 2026-12-01 makes
    // the whole response invalid (PLAN-14, LIST-2); any other Tool the host rejects is excluded
    // on its own (LIST-3).
    trace.toolsList = this.exchange("tools/list", conn.requestParams({}, capabilities));
    const listResult = trace.toolsList.response.result;
    if (!listResult) return { ...trace, stop: "not-listed" };
    // The SEP-2549 cache hints (from 2026-07-28 on; discoverTools requires them there).
    const cached = "ttlMs" in listResult || "cacheScope" in listResult;
    trace.listCache = cached ? { ttlMs: listResult.ttlMs, cacheScope: listResult.cacheScope } : null;
    let discovered;
    try {
      discovered = discoverTools(listResult, conn);
    } catch (error) {
      return { ...trace, listError: errorJson(error), stop: "rejected-list" };
    }
    // LIST-3: a bad entry is excluded on its own, with its reason; the other tools stay usable.
    trace.excluded = discovered.excluded;
    let received = null;
    for (const tool of discovered.tools) {
      if (!received && tool.name === trace.toolName) received = tool;
      else tool.free();
    }
    // The Tool as the wire carried it, for the page (discoverTools checked every entry).
    trace.entry = listResult.tools.find((t) => t.name === trace.toolName) ?? null;
    if (!received) return { ...trace, stop: "not-listed" };
    try {
      trace.warnings = received.warnings;
      return this.callTool(conn, capabilities, received, trace, options);
    } finally {
      received.free();
    }
  }

  callTool(conn, capabilities, received, trace, { arguments: args, requestedOutputsText, readView = true }) {
    // 4. Plan the request for the execution mode. A mode this connection cannot serve is
    // refused by the planner; the host then calls with the fallback (field omitted).
    let plan = {};
    try {
      // With the schemas of what it will request: the only ones a model planning code sees (SEL-7).
      plan = received.plan({ mode: trace.mode, schemas: true });
    } catch (error) {
      trace.planError = errorJson(error);
    }
    trace.plan = plan;
    const params = conn.toolsCallParams(trace.toolName, args, plan, capabilities);
    trace.plannedText = "requestedOutputs" in params ? JSON.stringify(params.requestedOutputs) : "";

    // 5. The request: what the plan says, or exactly what the reviewer typed (even if invalid,
    // so that the server's JSON-RPC error shows).
    let sentText = trace.plannedText;
    if (requestedOutputsText !== null && requestedOutputsText !== undefined) {
      sentText = requestedOutputsText.trim();
      delete params.requestedOutputs;
      trace.edited = sentText !== trace.plannedText;
    }
    trace.sentText = sentText;
    trace.call = this.exchangeText(requestText(this.nextId++, params, sentText));
    const { result, error } = trace.call.response;
    if (error) return { ...trace, stop: "server-error" };

    // 6. Check the result against the request and route each output by its audience.
    // Under an earlier revision the plan may name the local consumer of a legacy
    // structuredContent (LEG-8): the code mode gives it to program logic.
    const routeOptions = plan.legacyStructured ? { legacyStructured: plan.legacyStructured } : {};
    try {
      trace.route = received.route(sentText === "" ? undefined : JSON.parse(sentText), result, routeOptions);
    } catch (error) {
      return { ...trace, routeError: errorJson(error), stop: "rejected-result" };
    }
    // A multi-round-trip answer routes nothing (MRTR-1): the host would fulfil its requests and
    // retry the call with the same requestedOutputs; the demo shows it and stops.
    if (trace.route.resultType === "input_required") {
      return { ...trace, inputRequired: trace.route, route: null, stop: "input-required" };
    }

    // 7. The View's HTML, when there is a payload to give it: its `ui://` resource, read on the
    // same connection (resources/read, with the request `_meta` this revision needs).
    const uri = trace.entry._meta?.ui?.resourceUri;
    if (readView && trace.route.view && typeof uri === "string") {
      trace.viewResource = this.exchange("resources/read", conn.requestParams({ uri }, capabilities));
      const text = trace.viewResource.response.result?.contents?.[0]?.text;
      trace.viewHtml = typeof text === "string" ? text : null;
    }
    return trace;
  }
}

// The tools/call request with `requestedOutputs` spliced in as raw text: the reviewer may
// type anything, and the server must answer whatever arrives.
function requestText(id, params, requestedOutputsText) {
  const fields = Object.entries(params).map(([key, value]) => [key, JSON.stringify(value)]);
  if (requestedOutputsText !== "") fields.splice(2, 0, ["requestedOutputs", requestedOutputsText]);
  const paramsText = `{${fields.map(([key, text]) => `${JSON.stringify(key)}:${text}`).join(",")}}`;
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${paramsText}}`;
}

export function errorJson(error) {
  if (error instanceof McpOutputsError) return error.toJSON();
  return { code: "unexpected", message: String(error?.message ?? error), path: "" };
}
