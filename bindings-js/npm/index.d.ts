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
  | "missing-schema"
  | "duplicate-tool-name"
  | "missing-validator"
  | "invalid-validator";

/** Warning codes (never errors). */
export type WarningCode =
  | "missing-schema"
  | "ignored-output-schema"
  | "empty-error-outputs"
  | "legacy-output-schema-dropped"
  | "ttl-missing"
  | "ttl-negative"
  | "cache-scope-missing"
  | "cache-scope-unknown"
  | "unrecognized-result-type"
  | "legacy-fields-ignored";
/** Diagnostics `route` reports. */
export type DiagnosticCode = "annotation-audience-conflict" | "empty-error-outputs" | "legacy-fields-ignored";
/** A warning, with the JSON Pointer of the place it concerns in the input (`""`: the whole input). */
export interface Warning {
  code: WarningCode;
  path: string;
}
/** A route's finding, with the JSON Pointer of the place it concerns in the result (`""`: the whole result). */
export interface Diagnostic {
  code: DiagnosticCode;
  path: string;
}

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
/** The SEP's names for the three types above. */
export type CoreToolResultAudience = CoreAudience;
export type ToolResultAudience = Audience;
export type ToolResultFormat = OutputFormat;

/** One entry of `requestedOutputs` (the SEP's `ToolResultOutputSelector`). */
export interface Selector {
  audience: Audience;
  format: OutputFormat;
}
/** The SEP's name for `Selector`. */
export type ToolResultOutputSelector = Selector;

/** An MCP content block (text, image, audio, resource_link, resource). */
export interface ContentBlock {
  type: "text" | "image" | "audio" | "resource_link" | "resource" | (string & {});
  annotations?: { audience?: string[]; priority?: number; lastModified?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** A declared `content` variant: it has no schema. */
export interface ContentToolResultVariant {
  audience: Audience;
  format: "content";
  /** Only a structured variant declares a schema. */
  schema?: never;
  description?: string;
  [key: string]: unknown;
}

/** A declared `structured` variant, with the JSON Schema of its payload (an object) if any. */
export interface StructuredToolResultVariant {
  audience: Audience;
  format: "structured";
  schema?: JsonObject;
  description?: string;
  [key: string]: unknown;
}

/** One declared output variant: the SEP's union, discriminated by `format`. */
export type ToolResultVariant = ContentToolResultVariant | StructuredToolResultVariant;
/** The earlier name of `ToolResultVariant`. */
export type OutputVariant = ToolResultVariant;

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

/** A `content` output: content blocks. */
export interface ContentToolResultOutput {
  audience: Audience;
  format: "content";
  content: ContentBlock[];
  /** Only a structured output carries `structuredContent`. */
  structuredContent?: never;
  [key: string]: unknown;
}

/** A `structured` output: any JSON value, `null` included. */
export interface StructuredToolResultOutput {
  audience: Audience;
  format: "structured";
  structuredContent: JsonValue;
  /** Only a content output carries `content`. */
  content?: never;
  [key: string]: unknown;
}

/** One output of a result: the SEP's union, discriminated by `format`. */
export type ToolResultOutput = ContentToolResultOutput | StructuredToolResultOutput;
/** The earlier name of `ToolResultOutput`. */
export type Output = ToolResultOutput;

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
  /** Further audience identifiers with the same prefix as `id` (EXT-5): each takes `formats` and `modelContext`. */
  audiences?: string[];
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

/** The answer of a validator in the TypeScript SDKs' `jsonSchemaValidator` shape. */
export type JsonSchemaValidatorResult<T = unknown> =
  | { valid: true; data: T; errorMessage: undefined }
  | {
      valid: false;
      data: undefined;
      errorMessage: string;
      /** Where the value fails, as a JSON Pointer below it (not in the SDKs' shape; Ajv has it):
       * when given, the error's `path` ends with it. */
      instancePath?: string;
    };

/** The TypeScript SDKs' `jsonSchemaValidator` interface (their Ajv and @cfworker/json-schema
 * providers have it): the default build validates structured payloads with one. `getValidator`
 * is asked once per distinct schema (by its JSON text) per validator object, and the function
 * it answers serves every tool with that schema: a server that declares its tools per session
 * does not compile them again. */
export interface JsonSchemaValidator {
  getValidator(schema: JsonValue | object): (input: unknown) => JsonSchemaValidatorResult;
}

/** Library options. */
export interface LibraryOptions {
  /**
   * The validator of structured payloads (default build): every object made with these options
   * validates with it; absent means the one given to `setValidator`. The full build
   * (`mcp-outputs/full`) validates inside the wasm and refuses this option (`malformed`).
   */
  validator?: JsonSchemaValidator;
  extensions?: ExtensionDefinition[];
  limits?: Limits;
  /**
   * The revisions this side supports (VER-4): a non-empty list of distinct revisions; absent means
   * all six. A connection at any other revision is refused with `unsupported-protocol-version`
   * (-32022, `data.supported` = this list, oldest first).
   */
  supportedVersions?: ProtocolVersion[];
}

/** Options of `declareTools`. */
export interface DeclareToolsOptions extends LibraryOptions {
  /** Legacy options per tool name (a name that is no tool's is `malformed`). */
  legacyByTool?: { [toolName: string]: LegacyOptions };
}

/** The SEP-2549 cache fields of a tools/list result (from 2026-07-28 on). */
export interface ListCache {
  /** Milliseconds the list stays fresh, an integer >= 0 (`0`: immediately stale). */
  ttlMs: number;
  /** `"public"`: any user, from a shared cache; `"private"`: only within the authorization context. */
  cacheScope: "public" | "private";
}

/** A tools/list result as sent or received. */
export interface ToolsListResult {
  /** From 2026-07-28 on. */
  resultType?: "complete";
  /** From 2026-07-28 on (SEP-2549). */
  ttlMs?: number;
  /** From 2026-07-28 on (SEP-2549). */
  cacheScope?: "public" | "private";
  /** The next page's cursor (LIST-4). */
  nextCursor?: string;
  tools: Tool[];
  [key: string]: unknown;
}

/** A tools/list entry the host cannot use, excluded on its own (LIST-3). */
export interface ExcludedTool {
  /** Its index in the result's `tools`. */
  index: number;
  /** Its `name`, or `null` when it has no string name. */
  name: string | null;
  /** What `acceptTool` answered, or `duplicate-tool-name`. */
  code: ErrorCode;
  /** Where, in the tools/list result. */
  path: string;
  message: string;
}

/** A whole tools/list result read by `discoverTools`. */
export interface DiscoveredTools {
  /** Every usable Tool, accepted for the connection, in the order received. */
  tools: ReceivedTool[];
  /** Every entry excluded on its own, in array order (LIST-3). */
  excluded: ExcludedTool[];
  /** The cache fields as the host should use them (from 2026-07-28 on, repaired as the Caching page says, CACHE-1). */
  cache?: ListCache;
  /** The page's `nextCursor`: call tools/list again with it for the next page (LIST-4). */
  nextCursor?: string;
  /** Cache repairs and the usable tools' `accept` warnings. */
  warnings: Warning[];
}

/** What `check` answers for a valid result. */
export type CheckAnswer =
  | { warnings?: Warning[]; resultType?: never }
  | { resultType: "input_required"; warnings?: never }
  | { resultType: string; warnings: Warning[] };

/** An answer of a kind an extension defines (`resultType` another string, e.g. Tasks' `"task"`, RT-1):
 * nothing is routed; hand it to that extension. */
export interface OtherResultRoute {
  resultType: string;
}

/** A multi-round-trip answer (MRTR-1): nothing is routed; retry the call with the same `requestedOutputs`. */
export interface InputRequiredRoute {
  resultType: "input_required";
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

/**
 * A host's local rule for legacy `structuredContent` (LEG-8): its consumer, `assistant`, `user`,
 * `programmatic`, or a negotiated extension identifier.
 */
export type LegacyConsumer = "assistant" | "user" | "programmatic" | (string & {});

/** Options of `ReceivedTool.check` / `route` (and their `Text` forms). */
export interface RouteOptions {
  /**
   * Under an earlier revision, the consumer of a present `structuredContent` (instead of `dropped`);
   * ignored under 2026-12-01 and by the legacy Apps flow. Pass the plan's `legacyStructured`.
   */
  legacyStructured?: LegacyConsumer;
}

export interface Plan {
  /** Absent when the request should omit the field (the fallback, or an earlier revision). */
  requestedOutputs?: Selector[];
  /** Under an earlier revision, the local rule for legacy `structuredContent` (`code`, `host-table`). */
  legacyStructured?: LegacyConsumer;
  /** With `schemas: true`: the schema of each requested structured variant, in request order. */
  schemas?: PlannedSchema[];
}

export type Dropped = { meta: string } | { legacy: "structuredContent" | "content" };

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
  diagnostics: Diagnostic[];
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
  constructor(code: ErrorCode, message: string, path?: string, jsonrpc?: JsonRpcError | null, options?: { cause?: unknown });
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
   * connection; a plain Tool object (a legacy tool not yet migrated) is sent as given, before
   * 2026-12-01 only (`missing-output-variants` on 2026-12-01). Two tools with one name are
   * `malformed`. `{resultType?, ttlMs?, cacheScope?, tools}`: the first three from 2026-07-28 on,
   * the cache fields from `options.cache` (default `0` / `"private"`); at most `limits.maxTools` tools.
   * Errors carry JSON-RPC -32603 (the server's own fault).
   */
  toolsListResult(tools: Array<ServerTool | Tool>, options?: { cache?: ListCache; nextCursor?: string } | null): ToolsListResult;
  /** Releases the wasm memory now (otherwise released when garbage-collected); later calls on it throw
   * `malformed`, a second `free` does nothing. */
  free(): void;
}

/** A tool a server declared, compiled once (schemas included), used for every call. */
export declare class ServerTool {
  private constructor();
  static declare(tool: ToolDeclaration, options?: DeclareOptions): ServerTool;
  readonly name: string;
  readonly warnings: Warning[];
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
  /** Releases the wasm memory now (otherwise released when garbage-collected); later calls on it throw
   * `malformed`, a second `free` does nothing. */
  free(): void;
}

/** A tool as a host received it in tools/list, accepted for one connection. */
export declare class ReceivedTool {
  private constructor();
  static accept(tool: Tool, connection: Connection): ReceivedTool;
  readonly warnings: Warning[];
  /** The Tool's name. */
  readonly name: string;
  plan(request: PlanRequest): Plan;
  /**
   * Throws `McpOutputsError` when the result is invalid for the request. Answers `{}`,
   * `{warnings: ["empty-error-outputs"]}` for an error result with no output (ERR-5), or
   * `{resultType: "input_required"}` for a multi-round-trip answer (MRTR-1).
   */
  check(requestedOutputs: Selector[] | undefined, result: CallToolResult | JsonObject, options?: RouteOptions): CheckAnswer;
  /** `check` over the wire bytes (JSON text). */
  checkText(requestedOutputsText: string | null | undefined, resultText: string, options?: RouteOptions): CheckAnswer;
  /**
   * Checks the result, then routes every output by its audience; the lists hold the outputs exactly as they were
   * checked (plain copies parsed from the checked text: no getter, Proxy or toJSON can put another value there).
   * An `input_required` answer routes nothing (MRTR-1).
   */
  route(requestedOutputs: Selector[] | undefined, result: CallToolResult | JsonObject, options?: RouteOptions): Route | InputRequiredRoute | OtherResultRoute;
  /** `route` over the wire bytes (JSON text); the route as a plain object. */
  routeText(requestedOutputsText: string | null | undefined, resultText: string, options?: RouteOptions): Route | InputRequiredRoute | OtherResultRoute;
  /** Releases the wasm memory now (otherwise released when garbage-collected); later calls on it throw
   * `malformed`, a second `free` does nothing. */
  free(): void;
}

export declare function declareTool(tool: ToolDeclaration, options?: DeclareOptions): ServerTool;
/**
 * Declares every tool of a server's tools/list, each as `declareTool` does, with its legacy options
 * from `options.legacyByTool`; the first failing tool throws (JSON-RPC -32603).
 */
export declare function declareTools(tools: ToolDeclaration[], options?: DeclareToolsOptions): ServerTool[];
export declare function acceptTool(tool: Tool, connection: Connection): ReceivedTool;
/**
 * Client side: accepts a whole tools/list result (LIST-2). `tools` must be an array; from 2026-07-28
 * on `ttlMs` and `cacheScope` are required; every Tool is accepted as `acceptTool` does, and the
 * first rejected one makes the whole response invalid (it throws).
 */
export declare function discoverTools(result: ToolsListResult | JsonObject, connection: Connection): DiscoveredTools;

export interface MigrateOptions {
  /** Declare `programmatic/structured` with the legacy `outputSchema` (MIG-1). */
  programmaticFromOutputSchema?: boolean;
  /** Declare `assistant/structured` with the legacy `outputSchema`: its data suits the model (MIG-3). */
  assistantFromOutputSchema?: boolean;
  /** An Apps tool: declare the ui variant with the legacy `outputSchema` (the other options are then ignored). */
  apps?: boolean;
}
/** What `migrateTool` answers (MIG-1, MIG-2). */
export interface MigrateResult {
  /** The 2026-12-01 declaration. */
  tool: ToolDeclaration;
  /** The legacy options that keep the tool's established `outputSchema` (declare with them); absent when none. */
  legacy?: LegacyOptions;
  /** `legacy-output-schema-dropped` when the legacy `outputSchema` could not be kept; absent when none. */
  warnings?: Warning[];
}
/** A 2026-07-28 Tool to a 2026-12-01 declaration and the legacy options that keep its behaviour. */
export declare function migrateTool(
  legacyTool: Tool,
  options?: MigrateOptions,
  libraryOptions?: LibraryOptions,
): MigrateResult;

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
  | "list"
  | "discover"
  | "scenario";
/** One operation of the conformance contract (`ops::run`): the input object in, its `ok` value out. */
export declare function runOperation(op: OperationName, input: JsonObject, options?: { validator?: JsonSchemaValidator }): JsonObject;
/** Whether this entry validates inside the wasm (`mcp-outputs/full`: true) or with the validator
 * it is given (`mcp-outputs`: false). */
export declare const hasValidator: boolean;
/** The validator of every object made without `options.validator` (default build; `null` clears
 * it). The full build refuses it (`malformed`). */
export declare function setValidator(validator: JsonSchemaValidator | null): void;
/** A `jsonSchemaValidator` for the TS SDKs backed by `compileSchema`: in `mcp-outputs/full` it
 * validates inside the wasm (no code generation); in `mcp-outputs` it runs the given validator. */
export declare function jsonSchemaValidator(options?: LibraryOptions): JsonSchemaValidator;
/** The contract's operations with their input fields, as the core defines them. */
export declare function contractOperations(): { operations: Record<OperationName, string[]>; commonFields: string[] };
/** Bytes of linear memory the wasm instance holds now (grows, never shrinks). */
export declare function wasmMemoryBytes(): number;
