// The runtime matrix's one scenario (run.mjs wraps it for each runtime): a server declares a
// tool and advertises it, a host accepts it and plans a code-mode call, the server responds,
// the host checks and routes the result, and one refusal gives its error code. Plain JavaScript
// that is also strict TypeScript. In scope: `m`, a namespace of the package (`mcp-outputs` or
// `mcp-outputs/full`), and `validator`, a JSON Schema validator in the SDKs' shape
// (@cfworker/json-schema's, for the default entry).
if (!m.hasValidator) m.setValidator(validator);
const conn = new m.Connection({ protocolVersion: "2026-12-01", negotiated: [] });
const server = m.declareTool({
  name: "search",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    {
      audience: "programmatic",
      format: "structured",
      schema: { type: "object", properties: { items: { type: "array", items: { type: "string" } } }, required: ["items"] },
    },
  ],
});
const host = m.acceptTool(server.advertise(conn), conn);
const { requestedOutputs } = host.plan({ mode: "code" });
const result = server.respond(conn, requestedOutputs, {
  outputs: [
    { audience: "assistant", format: "content", content: [{ type: "text", text: "2 items" }] },
    { audience: "programmatic", format: "structured", structuredContent: { items: ["c1", "c2"] } },
  ],
});
host.check(requestedOutputs, result);
const route = host.route(requestedOutputs, result);
let refusal = "no refusal";
try {
  host.check(requestedOutputs, {
    resultType: "complete",
    outputs: [{ audience: "programmatic", format: "structured", structuredContent: { items: [1] } }],
  });
} catch (e) {
  refusal = e instanceof m.McpOutputsError && e instanceof Error ? e.code : `not an McpOutputsError: ${e}`;
}
const answer = {
  requested: requestedOutputs,
  data: "programmatic" in route ? route.programmatic.map((o) => ("structuredContent" in o ? o.structuredContent : null)) : null,
  model: "model" in route ? route.model.length : null,
  refusal,
};
