// Types of the npm package `mcp-outputs`: MCP SEP-3279, audience-directed tool result
// variants, the Rust reference core compiled to WebAssembly.

/** JSON values, as they cross the boundary (plain objects and arrays only). */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Stable error codes, the same in Rust, JavaScript and Python (`ErrorCode::ALL`, in order). */
export type ErrorCode =
  | "malformed"
  | "limit-exceeded"
  | "invalid-protocol-version"
  | "unsupported-protocol-version"
  | "invalid-audience"
  | "invalid-combination"
  | "duplicate-variant"
  | "missing-assistant-content"
  | "invalid-schema"
  | "external-ref"
  | "unnegotiated-extension"
  | "missing-output-variants"
  | "requested-outputs-on-legacy-version"
  | "duplicate-selector"
  | "empty-selection"
  | "undeclared-variant"
  | "missing-output"
  | "unrequested-output"
  | "output-shape-mismatch"
  | "schema-violation"
  | "empty-assistant-content"
  | "empty-error-outputs"
  | "missing-schema";

/** Warning codes (never errors). */
export type WarningCode = "missing-schema";
/** Diagnostics `route` reports. */
export type DiagnosticCode = "annotation-audience-conflict";

/** Every error code, in the core's order. */
export declare const errorCodes: readonly ErrorCode[];
/** The version of the Rust core inside. */
export declare const coreVersion: string;

/** The supported protocol revisions (any `YYYY-MM-DD` string is accepted as input; others are errors). */
export type ProtocolVersion = "2024-11-05" | "2025-03-26" | "2025-06-18" | "2025-11-25" | "2026-07-28" | "2026-12-01";

/** The supported protocol revisions, oldest first (the core's list, in the order of `ProtocolVersion`). */
export declare const protocolVersions: readonly ProtocolVersion[];

export type CoreAudience = "assistant" | "user" | "programmatic";
/** A core audience or an extension identifier such as `io.modelcontextprotocol/ui`. */
export type Audience = CoreAudience | (string & {});
export type OutputFormat = "content" | "structured";

/** One entry of `requestedOutputs`. */
export interface Selector {
  audience: Audience;
  format: OutputFormat;
}

/** An MCP content block (text, image, audio, resource_link, resource). */
export interface ContentBlock {
  type: "text" | "image" | "audio" | "resource_link" | "resource" | (string & {});
  annotations?: { audience?: string[]; priority?: number; lastModified?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** One declared output variant. */
export type OutputVariant =
  | { audience: Audience; format: "content"; description?: string; [key: string]: unknown }
  | { audience: Audience; format: "structured"; schema?: JsonValue; description?: string; [key: string]: unknown };

/** A tool declaration in the 2026-12-01 shape. */
export interface ToolDeclaration {
  name: string;
  inputSchema: JsonObject;
  outputVariants: OutputVariant[];
  description?: string;
  title?: string;
  annotations?: JsonObject;
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** A Tool as sent in tools/list (a declaration, or a legacy Tool under earlier revisions). */
export interface Tool {
  name: string;
  inputSchema: JsonObject;
  outputVariants?: OutputVariant[];
  outputSchema?: JsonObject;
  [key: string]: unknown;
}

/** One output of a result. */
export type Output =
  | { audience: Audience; format: "content"; content: ContentBlock[]; [key: string]: unknown }
  | { audience: Audience; format: "structured"; structuredContent: JsonValue; [key: string]: unknown };

/** Every output the tool computed, for `respond`. */
export interface ProducedOutputs {
  outputs: Output[];
  isError?: boolean;
  _meta?: JsonObject;
}

/** A CallToolResult: `outputs` from 2026-12-01, `content` / `structuredContent` before. */
export interface CallToolResult {
  resultType?: "complete";
  outputs?: Output[];
  content?: ContentBlock[];
  structuredContent?: JsonValue;
  isError?: boolean;
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** Per-tool legacy options (LEG-1..4). */
export interface LegacyOptions {
  outputSchema?: JsonObject;
  /** `"<audience>/structured"` */
  structuredFrom?: string;
  mirror?: boolean;
}

/** An extension audience definition (EXT-1). */
export interface ExtensionDefinition {
  id: string;
  formats: OutputFormat[];
  modelContext?: boolean;
  metaKey?: string | null;
  legacyProjection?: boolean;
}

/** Input limits (SEC-1); absent ones keep their defaults. */
export interface Limits {
  maxDepth?: number;
  maxBytes?: number;
  maxArrayLen?: number;
  maxObjectLen?: number;
  maxVariants?: number;
  maxTools?: number;
  maxExtensions?: number;
}

/** Library options. */
export interface LibraryOptions {
  extensions?: ExtensionDefinition[];
  limits?: Limits;
}

export interface DeclareOptions extends LibraryOptions {
  legacy?: LegacyOptions;
}

export interface ConnectionInit {
  /** Absent means 2026-12-01. */
  protocolVersion?: ProtocolVersion | (string & {});
  /** Extension identifiers both sides advertised. */
  negotiated?: string[];
}

/** What `initialize` (up to 2025-11-25) or `server/discover` (from 2026-07-28 on) agreed. */
export interface NegotiateInit {
  protocolVersion: ProtocolVersion | (string & {});
  /** The client's `capabilities` (its `capabilities.extensions` lists the extensions it supports). */
  clientCapabilities: JsonObject;
  /** The server's `capabilities`. */
  serverCapabilities: JsonObject;
}

export type Mode = "conversational" | "code" | "structured-model" | "user-media" | "host-table" | "apps" | "app-only";

export type PlanRequest = ({ mode: Mode; consumers?: never } | { consumers: Selector[]; mode?: never }) & {
  requireSchema?: boolean;
  schemas?: boolean;
};

export interface PlannedSchema {
  audience: Audience;
  format: "structured";
  schema: JsonValue | null;
}

export interface Plan {
  /** Absent when the request should omit the field (the fallback, or an earlier revision). */
  requestedOutputs?: Selector[];
  /** With `schemas: true`: the schema of each requested structured variant, in request order. */
  schemas?: PlannedSchema[];
}

export type Dropped = { meta: string } | { legacy: "structuredContent" } | { [key: string]: JsonValue };

/** The Apps View payload (a reduced CallToolResult), or the whole legacy result (APP-6). */
export interface ViewPayload {
  content: ContentBlock[];
  structuredContent?: JsonValue;
  _meta?: JsonObject;
  isError?: true;
  [key: string]: unknown;
}

/** Where every output of a checked result goes. */
export interface Route {
  model: Output[];
  user: Output[];
  programmatic: Output[];
  extensions: { [extensionId: string]: Output[] };
  view: ViewPayload | null;
  dropped: Dropped[];
  diagnostics: DiagnosticCode[];
  /** Whether the tool reported a failure (ERR-5), even when nothing was routed. */
  isError: boolean;
}

/** The JSON-RPC error object of a server-side error. */
export interface JsonRpcError {
  code: number;
  message: string;
  data: { mcpOutputsCode: ErrorCode; path?: string; supported?: string[]; requested?: string; [key: string]: unknown };
}

/** The one error type: every operation throws it (never a string). */
export declare class McpOutputsError extends Error {
  readonly name: "McpOutputsError";
  readonly code: ErrorCode;
  /** JSON Pointer of the offending value, relative to the argument given. */
  readonly path: string;
  /** The JSON-RPC code for a server-side error, else `null`. */
  readonly jsonrpcCode: number | null;
  constructor(code: ErrorCode, message: string, path?: string, jsonrpc?: JsonRpcError | null);
  /** `{code, message, data}` for a server-side error; `null` for a client-side one. */
  toJsonRpcError(): JsonRpcError | null;
  toJSON(): { code: ErrorCode; message: string; path: string; jsonrpc?: JsonRpcError };
}

/** One connection: the negotiated protocol version and extensions. */
export declare class Connection {
  constructor(init?: ConnectionInit | null, options?: LibraryOptions | null);
  /**
   * The connection both sides agree on after `initialize` (up to 2025-11-25) or `server/discover`
   * (from 2026-07-28 on): the version, and the extensions both capabilities list (Apps only with its
   * MIME type). Throws `McpOutputsError` with a JSON-RPC error (-32602; -32022 for an unsupported version).
   */
  static negotiate(init: NegotiateInit, options?: LibraryOptions | null): Connection;
  /**
   * Server side, from 2026-07-28 on: the connection of one request, from its
   * `params._meta` version and client capabilities. Throws `McpOutputsError` with a JSON-RPC error
   * (-32602; -32022 with `data.supported` / `data.requested` for an unsupported version).
   */
  static fromRequest(params: JsonObject, serverCapabilities: JsonObject, options?: LibraryOptions | null): Connection;
  readonly protocolVersion: ProtocolVersion;
  readonly negotiated: string[];
  /**
   * Client side: the `params` of a tools/call. `requestedOutputs` comes from `plan` (what
   * `ReceivedTool.plan()` returned) only, never under an earlier revision; from 2026-07-28 on `_meta`
   * carries the version and `clientCapabilities`: `{name, arguments?, requestedOutputs?, _meta?}`.
   */
  toolsCallParams(name: string, args: JsonObject | undefined, plan: Plan, clientCapabilities: JsonObject): JsonObject;
  /**
   * Client side: the `params` of any request on this connection (tools/list, resources/read, …):
   * from 2026-07-28 on, `_meta` gains the version and `clientCapabilities` (what it held stays);
   * before, `params` unchanged.
   */
  requestParams(params: JsonObject, clientCapabilities: JsonObject): JsonObject;
  /**
   * Server side: the tools/list result for this connection. A `ServerTool` is advertised for the
   * connection; a plain Tool object (a legacy tool not yet migrated) is sent as given.
   * `{resultType?: "complete", tools}`: `resultType` from 2026-07-28 on; at most `limits.maxTools` tools.
   */
  toolsListResult(tools: Array<ServerTool | Tool>): JsonObject;
  /** Releases the wasm memory now (otherwise released when garbage-collected). */
  free(): void;
}

/** A tool a server declared, compiled once (schemas included), used for every call. */
export declare class ServerTool {
  private constructor();
  static declare(tool: ToolDeclaration, options?: DeclareOptions): ServerTool;
  readonly name: string;
  readonly warnings: WarningCode[];
  /** The Tool object for tools/list on this connection. */
  advertise(connection: Connection): Tool;
  /** The selectors a request resolves to (the fallback when `requestedOutputs` is omitted). */
  select(connection: Connection, requestedOutputs?: Selector[]): Selector[];
  /** `select` over the request's JSON text (`undefined`/`null`: the field was omitted). */
  selectText(connection: Connection, requestedOutputsText?: string | null): Selector[];
  /** The CallToolResult to send, from every output the tool computed. */
  respond(connection: Connection, requestedOutputs: Selector[] | undefined, produced: ProducedOutputs): CallToolResult;
  /** `respond` over JSON text, answering the wire result as JSON text. */
  respondText(connection: Connection, requestedOutputsText: string | null | undefined, producedText: string): string;
  free(): void;
}

/** A tool as a host received it in tools/list, accepted for one connection. */
export declare class ReceivedTool {
  private constructor();
  static accept(tool: Tool, connection: Connection): ReceivedTool;
  readonly warnings: WarningCode[];
  plan(request: PlanRequest): Plan;
  /** Throws `McpOutputsError` when the result is invalid for the request. */
  check(requestedOutputs: Selector[] | undefined, result: CallToolResult): void;
  /** `check` over the wire bytes (JSON text). */
  checkText(requestedOutputsText: string | null | undefined, resultText: string): void;
  /** Checks the result, then routes every output by its audience; the lists hold `result`'s own output objects. */
  route(requestedOutputs: Selector[] | undefined, result: CallToolResult): Route;
  /** `route` over the wire bytes (JSON text); the route as a plain object. */
  routeText(requestedOutputsText: string | null | undefined, resultText: string): Route;
  free(): void;
}

export declare function declareTool(tool: ToolDeclaration, options?: DeclareOptions): ServerTool;
export declare function acceptTool(tool: Tool, connection: Connection): ReceivedTool;

export interface MigrateOptions {
  programmaticFromOutputSchema?: boolean;
  apps?: boolean;
}
/** A 2026-07-28 Tool to a 2026-12-01 declaration. */
export declare function migrateTool(legacyTool: Tool, options?: MigrateOptions, libraryOptions?: LibraryOptions): ToolDeclaration;

/** A bare JSON Schema compiled once by the core (same dialects, `$ref` rules and limits as a
 * declared tool's schemas). */
export declare class CompiledSchema {
  private constructor();
  /** `null` when `instance` is valid, else the `schema-violation` error of the first violation,
   * whose `path` is its JSON Pointer in the instance (returned, not thrown). */
  validate(instance: unknown): McpOutputsError | null;
  free(): void;
}
/** Compiles a JSON Schema once (throws `McpOutputsError`: `invalid-schema`, `external-ref`,
 * `limit-exceeded`, `malformed`). */
export declare function compileSchema(schema: JsonValue, options?: LibraryOptions): CompiledSchema;

export type OperationName =
  | "declare"
  | "advertise"
  | "select"
  | "respond"
  | "accept"
  | "plan"
  | "check"
  | "route"
  | "migrate"
  | "scenario";
/** One operation of the conformance contract (`ops::run`): the input object in, its `ok` value out. */
export declare function runOperation(op: OperationName, input: JsonObject): JsonObject;
/** The contract's operations with their input fields, as the core defines them. */
export declare function contractOperations(): { operations: Record<OperationName, string[]>; commonFields: string[] };
/** Bytes of linear memory the wasm instance holds now (grows, never shrinks). */
export declare function wasmMemoryBytes(): number;
