// Types of `mcp-outputs/sdk`: adapters for the official MCP TypeScript SDKs. The SDK types are not
// imported (the SDKs are optional peer dependencies): the adapters take the SDK instances
// structurally.
import type {
  CallToolResult,
  Connection,
  DeclareOptions,
  ExcludedTool,
  InputRequiredRoute,
  JsonObject,
  JsonSchemaValidator,
  LegacyOptions,
  LibraryOptions,
  McpOutputsError,
  OtherResultRoute,
  Plan,
  PlanRequest,
  ProducedOutputs,
  ProtocolVersion,
  ReceivedTool,
  Route,
  ServerTool,
  Tool,
  ToolDeclaration,
} from "mcp-outputs";

/** One tool to serve: its declaration (or an already declared `ServerTool`) and what computes its outputs. */
export interface ServedTool<Ctx = unknown> {
  tool: ToolDeclaration | ServerTool;
  /** Per-tool legacy options (LEG-1..4), for a declaration. */
  legacy?: LegacyOptions;
  /** Every output the tool can produce for these arguments; the adapter sends what was requested. */
  call(args: JsonObject, ctx: Ctx): ProducedOutputs | Promise<ProducedOutputs>;
}

export interface ServeOptions extends LibraryOptions {
  /** Cache fields of tools/list results from 2026-07-28 (default `{ttlMs: 0, cacheScope: "private"}`). */
  cache?: { ttlMs: number; cacheScope: "public" | "private" };
}

/** An SDK server: `Server` or `McpServer` of `@modelcontextprotocol/server` 2.x, or of `@modelcontextprotocol/sdk` 1.x. */
export type SdkServer = { setRequestHandler: (...args: any[]) => unknown } | { server: { setRequestHandler: (...args: any[]) => unknown } };

/** Registers `tools/list` and `tools/call` on the server for these tools (declared once, here). */
export declare function serveTools<Ctx = unknown>(
  server: SdkServer,
  tools: ServedTool<Ctx>[],
  options?: ServeOptions,
): { tools: ServerTool[] };

/** What an adapter throws for the SDK to send: the JSON-RPC `code`, the message once, `data.mcpOutputsCode`. */
export declare class McpOutputsRpcError extends Error {
  readonly name: "McpOutputsRpcError";
  readonly code: number;
  readonly data: { mcpOutputsCode?: string; path?: string; [key: string]: unknown };
  constructor(rpc: { code: number; message: string; data: JsonObject }, cause?: unknown);
}
/** A package error as the error the SDK sends; anything else unchanged. */
export declare function toRpcError(error: unknown): unknown;

/** An SDK client (`Client` of `@modelcontextprotocol/client` 2.x or `@modelcontextprotocol/sdk` 1.x), connected. */
export interface SdkClient {
  request(request: { method: string; params?: JsonObject }, schema?: unknown, options?: unknown): Promise<any>;
  callTool(params: any, schema?: unknown, options?: unknown): Promise<any>;
  getServerCapabilities(): object | undefined;
  [key: string]: any;
}

/** An SDK transport (stdio, Streamable HTTP, in-memory), not yet started. */
export interface SdkTransport {
  send(message: unknown, options?: unknown): Promise<void>;
  [key: string]: any;
}

export interface ConnectOptions extends LibraryOptions {
  /** Pin this revision: through `initialize` up to 2025-11-25, through v2's `server/discover` pin for 2026-07-28. */
  protocolVersion?: ProtocolVersion | (string & {});
}

/** Connects over `transport` and lists the tools with their raw entries kept (typed `listTools` drops `outputVariants`). */
export declare function connectTools(client: SdkClient, transport: SdkTransport, options?: ConnectOptions): Promise<McpOutputsClient>;

export declare class McpOutputsClient {
  private constructor();
  readonly client: SdkClient;
  readonly connection: Connection;
  /** The raw tools/list entries, as the server sent them. */
  readonly entries: Tool[];
  /** The entries the package excluded on their own (LIST-3), `index` into `entries`; a name listed twice, in one page or across pages, is excluded every time. */
  readonly excluded: ExcludedTool[];
  /** The negotiated protocol revision. */
  readonly protocolVersion: ProtocolVersion;
  tool(name: string): ReceivedTool;
  /** plan → the SDK's callTool with `requestedOutputs` → check → route. */
  call(
    name: string,
    args: JsonObject | undefined,
    request?: PlanRequest,
    options?: unknown,
  ): Promise<{ plan: Plan; result: CallToolResult; route: Route | InputRequiredRoute | OtherResultRoute }>;
}

/** A `jsonSchemaValidator` backed by the package's compiled schemas (compile once, validate many):
 * the default entry's (the validator the package was given); `mcp-outputs/full` has one inside the wasm. */
export declare function jsonSchemaValidator(options?: LibraryOptions): JsonSchemaValidator;

export type { DeclareOptions, JsonSchemaValidator, McpOutputsError };
