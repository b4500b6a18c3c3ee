// Every kind of error a call can end in, for the memory-flatness checks of issue 12: the
// short form in test/hardening.test.mjs and the 1,000,000-call form in `make bench`.
// Each path must end in its code; successful calls are mixed in.

import { PROGRAMMATIC, output, resultOf } from "./support.mjs";

const TOOL = {
  name: "t",
  inputSchema: { type: "object" },
  outputVariants: [
    { audience: "assistant", format: "content" },
    {
      audience: "programmatic",
      format: "structured",
      schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    },
  ],
};

/** `{paths, run(n)}`: `paths` as [label, code, fn]; `run(n)` makes n calls cycling through
 * every path and a successful check after each, and throws on any unexpected answer. */
export function errorPaths(mcp) {
  const conn = new mcp.Connection();
  const server = mcp.declareTool(TOOL);
  const host = mcp.acceptTool(server.advertise(conn), conn);
  const tightConn = new mcp.Connection({}, { limits: { maxArrayLen: 4, maxDepth: 8 } });
  const tight = mcp.acceptTool(server.advertise(tightConn), tightConn);
  const good = server.respond(conn, PROGRAMMATIC, { outputs: [output(1)] });
  const goodText = JSON.stringify(good);
  const requestedText = JSON.stringify(PROGRAMMATIC);
  const deepText = "[".repeat(200) + "]".repeat(200);
  const paths = Object.entries({
    "malformed text": ["malformed", () => host.checkText(undefined, '{"outputs": [1,')],
    "malformed text (server)": ["malformed", () => server.respondText(conn, undefined, "{")],
    "malformed text (route)": ["malformed", () => host.routeText(undefined, goodText.slice(0, -1))],
    "limit: text depth (core)": ["limit-exceeded", () => host.checkText(undefined, deepText)],
    "limit: text array (core)": ["limit-exceeded", () => tight.checkText(undefined, '{"outputs": [1,2,3,4,5]}')],
    "limit: value array (JS walk)": ["limit-exceeded", () => tight.check(undefined, { outputs: [1, 2, 3, 4, 5] })],
    "limit: value depth (JS walk)": ["limit-exceeded", () => tight.route(undefined, { outputs: [[[[[[[[[1]]]]]]]]] })],
    "schema violation": ["schema-violation", () => host.check(PROGRAMMATIC, resultOf(output("x")))],
    "schema violation (route)": ["schema-violation", () => host.route(PROGRAMMATIC, resultOf(output(1.5)))],
    "schema violation (text)": ["schema-violation", () => host.checkText(requestedText, JSON.stringify(resultOf(output(true))))],
    "selection error": ["undeclared-variant", () => server.select(conn, [{ audience: "user", format: "content" }])],
    "respond fault": ["missing-output", () => server.respond(conn, PROGRAMMATIC, { outputs: [] })],
    "unrequested output": ["unrequested-output", () => host.check([{ audience: "assistant", format: "content" }], good)],
    "thrown getter": [
      "malformed",
      () =>
        host.check(PROGRAMMATIC, {
          get outputs() {
            throw new Error("getter");
          },
        }),
    ],
    NaN: ["malformed", () => host.check(PROGRAMMATIC, resultOf(output(NaN)))],
    misuse: ["malformed", () => server.advertise({})],
    "bad version": ["invalid-protocol-version", () => new mcp.Connection({ protocolVersion: "2026-13-45" })],
  }).map(([label, [code, fn]]) => [label, code, fn]);
  const run = (n) => {
    for (let i = 0; i < n; i++) {
      const [label, code, fn] = paths[i % paths.length];
      let error = null;
      try {
        fn();
      } catch (e) {
        error = e;
      }
      if (!(error instanceof mcp.McpOutputsError) || error.code !== code) {
        throw new Error(`${label}: expected ${code}, got ${error?.stack ?? "no error"}`);
      }
      host.checkText(requestedText, goodText);
    }
  };
  return { paths, run };
}
