// The JavaScript face of the wasm module: converts values to JSON text on the way in, JSON
// text to plain objects on the way out, and core errors to `McpOutputsError`. No protocol
// logic lives here; every decision is the Rust core's.

/** The error every operation throws: a stable `code`, the JSON Pointer `path` of the
 * offending value, and for server-side errors the JSON-RPC error object. */
export class McpOutputsError extends Error {
  constructor(code, message, path = "", jsonrpc = null) {
    super(message);
    this.name = "McpOutputsError";
    this.code = code;
    this.path = path;
    this.jsonrpcCode = jsonrpc ? jsonrpc.code : null;
    Object.defineProperty(this, "_jsonrpc", { value: jsonrpc, enumerable: false });
  }

  /** `{code, message, data}` for a server-side error; `null` for a client-side one. */
  toJsonRpcError() {
    return this._jsonrpc ? structuredClone(this._jsonrpc) : null;
  }

  /** `{code, message, path}` plus `jsonrpc` when present: the error shape of every binding. */
  toJSON() {
    const out = { code: this.code, message: this.message, path: this.path };
    if (this._jsonrpc) out.jsonrpc = this.toJsonRpcError();
    return out;
  }
}

function fromCore(e) {
  if (e !== null && typeof e === "object" && typeof e.mcpOutputs === "string") {
    const p = JSON.parse(e.mcpOutputs);
    return new McpOutputsError(p.code, p.message, p.path, p.jsonrpc ?? null);
  }
  return e;
}

// A JS value as JSON text. What JSON cannot hold (a BigInt, a cycle, a function at the top
// level) is `malformed`; nesting too deep for the engine's own serializer is
// `limit-exceeded`, as the core would rule on the same value.
function toText(value, what) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    if (e instanceof RangeError) {
      throw new McpOutputsError("limit-exceeded", `${what}: nested too deeply to serialize`);
    }
    throw new McpOutputsError("malformed", `${what}: not representable as JSON: ${e.message}`);
  }
  if (typeof text !== "string") {
    throw new McpOutputsError("malformed", `${what}: not representable as JSON`);
  }
  return text;
}

const optText = (value, what) => (value === undefined ? undefined : toText(value, what));

function textArg(value, what) {
  if (typeof value !== "string") {
    throw new McpOutputsError("malformed", `${what} must be JSON text (a string)`);
  }
  return value;
}

const optTextArg = (value, what) => (value === undefined || value === null ? undefined : textArg(value, what));

function call(fn) {
  try {
    return fn();
  } catch (e) {
    throw fromCore(e);
  }
}

const parse = (text) => JSON.parse(text);

// Puts the outputs back where the core's indexed route names them by their index in
// `result.outputs` (a number never stands for an output otherwise: outputs are objects).
function withOutputs(route, getOutputs) {
  let outputs;
  const swap = (list) => list.map((item) => (typeof item === "number" ? (outputs ??= getOutputs())[item] : item));
  route.model = swap(route.model);
  route.user = swap(route.user);
  route.programmatic = swap(route.programmatic);
  for (const id of Object.keys(route.extensions)) route.extensions[id] = swap(route.extensions[id]);
  return route;
}

/** Builds the public API over one initialised wasm-bindgen module. */
export function bind(raw) {
  const codes = Object.freeze(parse(raw.errorCodes()));

  function optionsText(options) {
    if (options === undefined || options === null) return undefined;
    const { extensions, limits } = options;
    return toText({ extensions, limits }, "options");
  }

  // A Connection over a handle the core built (negotiate, fromRequest): no constructor run.
  const wrapConnection = (rawConn) => Object.assign(Object.create(Connection.prototype), { _raw: rawConn });

  class Connection {
    /**
     * @param init `{protocolVersion?, negotiated?}`: the version and extensions of this connection.
     * @param options `{extensions?, limits?}`: the library options.
     */
    constructor(init, options) {
      this._raw = call(() => new raw.RawConnection(optText(init ?? undefined, "connection"), optionsText(options)));
    }
    /** The connection agreed after `initialize` or `server/discover`:
     * `{protocolVersion, clientCapabilities, serverCapabilities}` → version and negotiated extensions. */
    static negotiate(init, options) {
      return wrapConnection(call(() => raw.RawConnection.negotiate(toText(init, "init"), optionsText(options))));
    }
    /** The connection of one request (2026-07-28 on), from its `params._meta` and the server's capabilities. */
    static fromRequest(params, serverCapabilities, options) {
      return wrapConnection(
        call(() =>
          raw.RawConnection.fromRequest(
            toText(params, "params"),
            toText(serverCapabilities, "serverCapabilities"),
            optionsText(options),
          ),
        ),
      );
    }
    /** The `params` of a tools/call: `requestedOutputs` from the plan only, `_meta` from 2026-07-28 on. */
    toolsCallParams(name, args, plan, clientCapabilities) {
      const nameText = textArg(name, "name");
      return parse(
        call(() =>
          this._raw.toolsCallParams(
            nameText,
            optText(args ?? undefined, "arguments"),
            toText(plan, "plan"),
            toText(clientCapabilities, "clientCapabilities"),
          ),
        ),
      );
    }
    /** The `params` of any request (tools/list, resources/read, …): `_meta` from 2026-07-28 on. */
    requestParams(params, clientCapabilities) {
      return parse(
        call(() => this._raw.requestParams(toText(params, "params"), toText(clientCapabilities, "clientCapabilities"))),
      );
    }
    /** The tools/list result: `ServerTool`s advertised for this connection, plain Tool objects as given. */
    toolsListResult(tools) {
      if (!Array.isArray(tools)) throw new McpOutputsError("malformed", "tools must be an array");
      return parse(
        call(() =>
          this._raw.toolsListResult(
            tools.map((t, i) => (t instanceof ServerTool ? t._raw.advertise(this._raw) : toText(t, `tools/${i}`))),
          ),
        ),
      );
    }
    get protocolVersion() {
      return this._raw.protocolVersion;
    }
    get negotiated() {
      return parse(this._raw.negotiated);
    }
    /** Releases the wasm memory now (it is otherwise released when garbage-collected). */
    free() {
      this._raw.free();
    }
  }

  class ServerTool {
    constructor(rawTool) {
      this._raw = rawTool;
    }
    /** Declares a tool: validates it and compiles its schemas once. */
    static declare(tool, options = {}) {
      const legacy = options?.legacy;
      return new ServerTool(
        call(() => new raw.RawServerTool(toText(tool, "tool"), optText(legacy, "legacy"), optionsText(options))),
      );
    }
    get name() {
      return this._raw.name;
    }
    get warnings() {
      return parse(this._raw.warnings);
    }
    /** The Tool object for tools/list on this connection. */
    advertise(connection) {
      return parse(call(() => this._raw.advertise(connection._raw)));
    }
    /** The selectors a request's `requestedOutputs` resolves to (the fallback when omitted). */
    select(connection, requestedOutputs) {
      return parse(call(() => this._raw.select(connection._raw, optText(requestedOutputs, "requestedOutputs"))));
    }
    /** The CallToolResult to send for the request, from every output the tool computed. */
    respond(connection, requestedOutputs, produced) {
      return parse(
        call(() =>
          this._raw.respond(connection._raw, optText(requestedOutputs, "requestedOutputs"), toText(produced, "produced")),
        ),
      );
    }
    /** `respond` over JSON text, answering the wire result as JSON text. */
    respondText(connection, requestedOutputsText, producedText) {
      return call(() =>
        this._raw.respond(
          connection._raw,
          optTextArg(requestedOutputsText, "requestedOutputs"),
          textArg(producedText, "produced"),
        ),
      );
    }
    /** `select` over JSON text. */
    selectText(connection, requestedOutputsText) {
      return parse(call(() => this._raw.select(connection._raw, optTextArg(requestedOutputsText, "requestedOutputs"))));
    }
    free() {
      this._raw.free();
    }
  }

  class ReceivedTool {
    constructor(rawTool) {
      this._raw = rawTool;
    }
    /** Accepts a tool as received in tools/list, for one connection. */
    static accept(tool, connection) {
      return new ReceivedTool(call(() => new raw.RawReceivedTool(toText(tool, "tool"), connection._raw)));
    }
    get warnings() {
      return parse(this._raw.warnings);
    }
    /** `{mode}` or `{consumers}`, plus `requireSchema?`, `schemas?` → `{requestedOutputs?, schemas?}`. */
    plan(request) {
      return parse(call(() => this._raw.plan(toText(request, "plan request"))));
    }
    /** Checks a result; throws `McpOutputsError` when it is invalid. */
    check(requestedOutputs, result) {
      call(() => this._raw.check(optText(requestedOutputs, "requestedOutputs"), toText(result, "result")));
    }
    /** `check` over the wire bytes (JSON text). */
    checkText(requestedOutputsText, resultText) {
      call(() =>
        this._raw.check(optTextArg(requestedOutputsText, "requestedOutputs"), textArg(resultText, "result")),
      );
    }
    /** Checks a result and routes every output by its audience. The route's lists hold the
     * result's own output objects (not copies). */
    route(requestedOutputs, result) {
      const indexed = parse(
        call(() => this._raw.route(optText(requestedOutputs, "requestedOutputs"), toText(result, "result"))),
      );
      return withOutputs(indexed, () => result.outputs);
    }
    /** `route` over the wire bytes (JSON text); the route as a plain object. */
    routeText(requestedOutputsText, resultText) {
      const indexed = parse(
        call(() =>
          this._raw.route(optTextArg(requestedOutputsText, "requestedOutputs"), textArg(resultText, "result")),
        ),
      );
      // The core accepted the bytes, so JSON.parse accepts them too; parsed only when needed.
      return withOutputs(indexed, () => JSON.parse(resultText).outputs);
    }
    free() {
      this._raw.free();
    }
  }

  /** A bare JSON Schema compiled once by the core; `validate` as many instances as needed. */
  class CompiledSchema {
    constructor(rawSchema) {
      this._raw = rawSchema;
    }
    /** The error of the first violation (`schema-violation`, `path` = its JSON Pointer in the
     * instance), or `null` when the instance is valid. Never throws for an invalid instance. */
    validate(instance) {
      try {
        this._raw.validate(toText(instance, "instance"));
        return null;
      } catch (e) {
        const error = fromCore(e);
        if (error instanceof McpOutputsError) return error;
        throw error;
      }
    }
    free() {
      this._raw.free();
    }
  }

  return {
    errorCodes: codes,
    protocolVersions: Object.freeze(parse(raw.protocolVersions())),
    coreVersion: raw.coreVersion(),
    Connection,
    ServerTool,
    ReceivedTool,
    declareTool: (tool, options) => ServerTool.declare(tool, options),
    acceptTool: (tool, connection) => ReceivedTool.accept(tool, connection),
    migrateTool: (legacyTool, options, libraryOptions) =>
      parse(
        call(() =>
          raw.migrateTool(toText(legacyTool, "legacyTool"), optText(options, "options"), optionsText(libraryOptions)),
        ),
      ),
    compileSchema: (schema, options) =>
      new CompiledSchema(call(() => new raw.RawSchema(toText(schema, "schema"), optionsText(options)))),
    runOperation: (op, input) => parse(call(() => raw.runOperation(textArg(op, "op"), toText(input, "input")))),
    contractOperations: () => parse(raw.contractOperations()),
  };
}
