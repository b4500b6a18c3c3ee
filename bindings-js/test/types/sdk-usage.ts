// Typed usage of `mcp-outputs/sdk` and the bare schema API (compiled with tsc --strict in make test).
import { compileSchema, McpOutputsError, type ToolDeclaration } from "mcp-outputs";
import { connectTools, jsonSchemaValidator, serveTools, type SdkClient, type SdkServer } from "mcp-outputs/sdk";

declare const server: SdkServer;
declare const client: SdkClient;
declare const transport: { send(message: unknown): Promise<void> };
declare const declaration: ToolDeclaration;

const served = serveTools(server, [
  {
    tool: declaration,
    legacy: { structuredFrom: "programmatic/structured" },
    call: async () => ({ outputs: [{ audience: "assistant", format: "content", content: [{ type: "text", text: "x" }] }] }),
  },
]);
const names: string[] = served.tools.map((t) => t.name);

async function host(): Promise<number> {
  const tools = await connectTools(client, transport, { protocolVersion: "2025-11-25" });
  const { route, plan } = await tools.call("t", {}, { mode: "conversational" });
  const requested = plan.requestedOutputs?.length ?? 0;
  if ("resultType" in route) return 0;
  const excluded = tools.excluded.map((e) => `${e.index} ${e.name ?? ""} ${e.code} ${e.path}`).length;
  return route.model.length + requested + tools.entries.length + names.length + excluded;
}
void host;

const validate = jsonSchemaValidator().getValidator({ type: "object" });
const verdict = validate({});
if (!verdict.valid) {
  const message: string = verdict.errorMessage;
  void message;
}

const schema = compileSchema({ type: "integer" });
const error: McpOutputsError | null = schema.validate(1);
void error;

// @ts-expect-error: a served tool needs its call
serveTools(server, [{ tool: declaration }]);
