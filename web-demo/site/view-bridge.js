// The host side of an App View: a sandboxed iframe (scripts only, no same-origin, so an opaque
// origin with no access to this page), spoken to only by postMessage JSON-RPC, as MCP Apps do.
// The View starts with `ui/initialize`; once it reports `ui/notifications/initialized` the host
// sends `ui/notifications/tool-input` and then `ui/notifications/tool-result` carrying the View
// payload that ReceivedTool.route built (APP-5): nothing else crosses the boundary.

const UI_PROTOCOL_VERSION = "2026-01-26";
const HOST_INFO = { name: "mcp-outputs-demo-host", version: "0.1.0" };

/**
 * Mounts the View in `container` and plays the call to it.
 * @param html the `ui://` resource's HTML
 * @param call `{toolName, arguments, payload}`: the tool, its arguments and the route's `view` payload
 * @param hooks `{onMessage(direction, message), onReport(data), onToolCall(params)}`; onToolCall
 *   answers a View's own tools/call with `{result}` (a View payload) or `{error}` (JSON-RPC)
 * @returns a function that unmounts the View
 */
export function mountView(container, html, call, hooks) {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.setAttribute("title", "App View (sandboxed)");
  iframe.setAttribute("referrerpolicy", "no-referrer");
  iframe.srcdoc = html;

  const post = (message) => {
    hooks.onMessage("host→view", message);
    // The frame's origin is opaque ("null"), which postMessage cannot name: "*" is the only
    // target; what may be sent is restricted instead (only the View payload, below).
    iframe.contentWindow?.postMessage(message, "*");
  };

  const listener = (event) => {
    // Only this frame's messages; any other window's are not the View's.
    if (event.source !== iframe.contentWindow) return;
    const message = event.data;
    if (!message || typeof message !== "object" || message.jsonrpc !== "2.0") return;
    hooks.onMessage("view→host", message);
    if (message.method === "ui/initialize" && message.id !== undefined) {
      post({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: UI_PROTOCOL_VERSION,
          hostInfo: HOST_INFO,
          hostCapabilities: {},
          hostContext: { theme: "light", displayMode: "inline", toolInfo: { tool: { name: call.toolName } } },
        },
      });
    } else if (message.method === "ui/notifications/initialized") {
      post({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: call.arguments ?? {} } });
      post({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: call.payload });
    } else if (message.method === "notifications/message" && message.params?.logger === "app-view") {
      hooks.onReport(message.params.data);
    } else if (message.method === "tools/call" && message.id !== undefined) {
      post({ jsonrpc: "2.0", id: message.id, ...hooks.onToolCall(message.params ?? {}) });
    } else if (message.id !== undefined && message.method !== undefined) {
      post({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
    }
  };
  window.addEventListener("message", listener);
  container.replaceChildren(iframe);
  return () => {
    window.removeEventListener("message", listener);
    iframe.remove();
  };
}
