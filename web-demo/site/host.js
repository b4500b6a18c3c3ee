// The demo's host role: it connects to the server over JSON-RPC text, lists the tools, accepts
// the one to call (ReceivedTool.accept), plans `requestedOutputs` for an execution mode
// (ReceivedTool.plan), sends the call and routes the result by audience (ReceivedTool.route).
// It records every step in a trace that the page renders; the host never interprets the
// protocol itself.
import { Connection, McpOutputsError, acceptTool, protocolVersions } from "mcp-outputs";

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
    // 2. tools/list, and the entry of the tool to call.
    trace.toolsList = this.exchange("tools/list", conn.requestParams({}, capabilities));
    const tools = trace.toolsList.response.result?.tools ?? [];
    trace.entry = tools.find((t) => t?.name === trace.toolName) ?? null;
    if (!trace.entry) return { ...trace, stop: "not-listed" };

    // 3. Accept it for this connection: a Tool without outputVariants fails here (PLAN-14).
    let received;
    try {
      received = acceptTool(trace.entry, conn);
    } catch (error) {
      return { ...trace, acceptError: errorJson(error), stop: "rejected-tool" };
    }
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
    try {
      trace.route = received.route(sentText === "" ? undefined : JSON.parse(sentText), result);
    } catch (error) {
      return { ...trace, routeError: errorJson(error), stop: "rejected-result" };
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
