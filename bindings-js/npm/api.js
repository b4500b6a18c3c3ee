// The JavaScript face of the wasm module: converts values to JSON text on the way in, JSON
// text to plain objects on the way out, and core errors to `McpOutputsError`. No protocol
// logic lives here; every decision is the Rust core's.

/** The error every operation throws: a stable `code`, the JSON Pointer `path` of the
 * offending value, and for server-side errors the JSON-RPC error object. */
export class McpOutputsError extends Error {
  constructor(code, message, path = "", jsonrpc = null, options = undefined) {
    super(message, options);
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

// `wrapped` in its wire form, keeping the cause the serialiser recorded (a throwing getter's).
function withCause(onWire, wrapped) {
  if ("cause" in wrapped) Object.defineProperty(onWire, "cause", { value: wrapped.cause, configurable: true, writable: true });
  return onWire;
}

// A core error as the wasm throws it: `mcpOutputs` is the address of an answer tape holding
// `{code, message, path, jsonrpc?}` (read by `bind`'s `fromCore`).
const isCoreError = (e) => e !== null && typeof e === "object" && typeof e.mcpOutputs === "number";

// Messages built here quote what the caller gave (an exception's message, a type): a few
// hundred characters of it, as the core cuts its own messages.
function cut(text) {
  const s = String(text);
  return s.length <= 300 ? s : `${s.slice(0, 300)}…[${s.length - 300} characters cut]`;
}

const malformed = (message, path = "", cause = undefined) =>
  new McpOutputsError("malformed", message, path, null, cause === undefined ? undefined : { cause });

// ---- Values to JSON text, under the limits ---------------------------------------------------
//
// One pass over the value that writes its JSON text and stops at the first cap passed
// (`limits` come from the core: `limitsOf` / a connection's `limits`), so a 10^8-item array
// or a deep value costs nothing before it is refused. It follows JSON.stringify (toJSON,
// boxed primitives, members whose value is undefined/a function/a symbol left out, `null` in
// arrays) except that NaN and ±Infinity are `malformed` (JSON.stringify would write `null`,
// a value nobody sent). Each property is read exactly once, so a getter, a Proxy or a toJSON
// cannot show the limits one value and the core another. The walk keeps its own stack, so
// no nesting the limits allow can overflow the engine's stack; any exception it meets comes
// from the caller's own code (a getter, a trap, a toJSON) and is `malformed`, with the
// original as `cause`. A cycle is `malformed` too (found where it passes maxDepth).
//
// The byte count is the text's length in UTF-16 code units, never more than its UTF-8 size,
// so this only refuses what the core would refuse too; the core then checks the exact size.

// The longest string V8 can build (2^29 - 24 code units); other engines allow more.
const MAX_JS_STRING = 2 ** 29 - 24;
// core::limits::MAX_DEPTH_CEILING: the deepest nesting any setting allows.
const MAX_DEPTH_CEILING = 1000;
const quote = JSON.stringify;

function pointerOf(stack) {
  let path = "";
  for (const f of stack) {
    if (f.i === 0) break; // just entered: no member is being written yet
    const k = f.keys === null ? f.i - 1 : f.keys[f.i - 1];
    path += "/" + String(k).replaceAll("~", "~0").replaceAll("/", "~1");
  }
  return path;
}

const PLAIN_PROTOTYPES = new Set([Object.prototype, Array.prototype, null]);

// The payload guarantee (docs/boundary.md): only plain data is handed back as the caller's own
// object; anything else is read once into text, and that snapshot is what is checked, written
// and handed back. JavaScript cannot tell a Proxy from an object; Node, Deno and Bun can, through
// node:util. Where nothing can (a browser), no value counts as plain: every payload is snapshotted.
const isProxy = (() => {
  try {
    const util = globalThis.process?.getBuiltinModule?.("node:util");
    return typeof util?.types?.isProxy === "function" ? util.types.isProxy : null;
  } catch {
    return null;
  }
})();
// Plain data is own data properties only, told apart without running any code of the value's
// and without a descriptor object per property (what `Object.getOwnPropertyDescriptor` costs:
// an allocation each, about a third of the walk): `__lookupGetter__` (kept from load time, so a
// later change to Object.prototype cannot swap it) answers an own accessor's getter and
// `undefined` for an own data property; an accessor without a getter reads `undefined`, which is
// not JSON data either. Both ask only [[GetOwnProperty]] of a value `isProxy` has cleared, and
// look no further than the value itself for a property it owns.
const hasOwn = Object.hasOwn ?? ((v, key) => Object.prototype.hasOwnProperty.call(v, key));
const lookupGetter = Object.prototype.__lookupGetter__;
// A lone surrogate is not JSON text (the core's parser refuses it as `malformed`): a string
// holding one is never held, so that every flavour gives it one answer. `isWellFormed` from
// Node 20; a Unicode regex before (in `u` mode, only a lone surrogate is a `Cs` code point).
const wellFormed =
  typeof String.prototype.isWellFormed === "function" ? (s) => s.isWellFormed() : (s) => !/\p{Cs}/u.test(s);

function resolve(value, key) {
  if (value !== null && (typeof value === "object" || typeof value === "bigint")) {
    const toJSON = value.toJSON;
    if (typeof toJSON === "function") value = toJSON.call(value, key);
  }
  // Boxed primitives: only an object whose prototype is not the plain one can be one.
  if (value !== null && typeof value === "object" && !PLAIN_PROTOTYPES.has(Object.getPrototypeOf(value))) {
    if (value instanceof Number) value = Number(value);
    else if (value instanceof String) value = String(value);
    else if (value instanceof Boolean || value instanceof BigInt) value = value.valueOf();
  }
  return value;
}

// ---- Payloads held in JavaScript (default build) ----------------------------------------------
//
// On the tape (below) a structured payload stays the caller's object: the writer measures it
// under the same limits as if it were written (`measure`) and writes a held node in its place;
// the core asks this layer to validate it (the host's `validatePayload`) and for its text (the
// legacy mirror). A payload that is not plain JSON data (a toJSON, a boxed primitive, a member
// JSON would drop, a non-plain prototype, a number JSON cannot hold, anything over a limit)
// leaves the whole call on the text path, so that its faults are reported exactly as there.

/**
 * An upper bound of the length of `root`'s JSON text (a code unit escapes to at most 6; a number
 * writes at most 24) and whether it has a string or a member name, when it is plain JSON data
 * within `limits` (`depth`: the number of containers around it) and the bound within `budget`;
 * `null` otherwise. A bound, not the length: cheap, and exact where it matters, because a value
 * whose bound comes within reach of maxBytes is written out and counted exactly instead.
 */
function measure(root, depth, limits, budget) {
  if (isProxy === null || typeof lookupGetter !== "function") return null;
  if (root === null || typeof root !== "object") {
    const cost = leafCost(root);
    return cost < 0 || cost > budget ? null : { size: cost, subjects: typeof root === "string" };
  }
  const { maxDepth, maxArrayLen, maxObjectLen } = limits;
  let size = 0;
  let subjects = false;
  // The containers still to read, and how many containers are around each.
  const values = [root];
  const depths = [depth + 1];
  // Leaves are paid for where they are read (inline: a call, or a push and a pop, per leaf would
  // cost as much as the rest of the walk).
  while (values.length > 0) {
    const v = values.pop();
    const d = depths.pop();
    // A Proxy, or a getter, may answer the validator one thing and the caller another: only
    // own data properties are read (`lookupGetter`: no code of the value's runs).
    if (d > maxDepth || isProxy(v)) return null;
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype) return null;
      const n = v.length;
      if (n > maxArrayLen) return null;
      size += n > 0 ? n + 1 : 2;
      for (let i = 0; i < n; i++) {
        // A hole is not plain data (and its lookup would walk the prototypes).
        if (!hasOwn(v, i) || lookupGetter.call(v, i) !== undefined) return null;
        const item = v[i];
        if (typeof item === "object" && item !== null) {
          values.push(item);
          depths.push(d + 1);
        } else if (typeof item === "string") {
          if (!wellFormed(item)) return null;
          subjects = true;
          size += 6 * item.length + 2;
        } else if (typeof item === "number") {
          if (!Number.isFinite(item)) return null;
          size += 24;
        } else if (typeof item === "boolean") size += item ? 4 : 5;
        else if (item === null) size += 4;
        else return null;
      }
    } else {
      const proto = Object.getPrototypeOf(v);
      if ((proto !== Object.prototype && proto !== null) || typeof v.toJSON === "function") return null;
      const keys = Object.keys(v);
      const n = keys.length;
      if (n > maxObjectLen) return null;
      size += n > 0 ? n + 1 : 2;
      if (n > 0) subjects = true;
      for (let i = 0; i < n; i++) {
        const key = keys[i];
        if (!wellFormed(key)) return null;
        size += 6 * key.length + 3;
        // An own property (from Object.keys): the lookup finds it without walking the prototypes.
        if (lookupGetter.call(v, key) !== undefined) return null;
        const item = v[key];
        if (typeof item === "object" && item !== null) {
          values.push(item);
          depths.push(d + 1);
        } else if (typeof item === "string") {
          if (!wellFormed(item)) return null;
          size += 6 * item.length + 2;
        } else if (typeof item === "number") {
          if (!Number.isFinite(item)) return null;
          size += 24;
        } else if (typeof item === "boolean") size += item ? 4 : 5;
        else if (item === null) size += 4;
        else return null;
      }
    }
    if (size > budget) return null;
  }
  return { size, subjects };
}

/** What a scalar root costs of `measure`'s bound; -1 when it is not JSON data. */
function leafCost(item) {
  switch (typeof item) {
    case "string":
      return wellFormed(item) ? 6 * item.length + 2 : -1;
    case "number":
      return Number.isFinite(item) ? 24 : -1;
    case "boolean":
      return item ? 4 : 5;
    default:
      return item === null ? 4 : -1;
  }
}

/**
 * The one walk of a value with `JSON.stringify`'s semantics under `limits` (`{maxBytes,
 * maxDepth, maxArrayLen, maxObjectLen}`), written into `sink`: as JSON text (`serialize`, the
 * cold paths) or as a tape (the snapshot of a call's value, `tapeWriter`). The checks, their
 * order, errors and paths are the same whatever the sink: `len` is the length, in UTF-16 code
 * units, of the text the walk writes (each sink answers what it adds to it), so a snapshot is
 * refused exactly where its text would have been.
 *
 * A sink has `string(s, len)`, `number(v)`, `literal(kind)` (0 null, 1 false, 2 true),
 * `key(k, comma, len)` (`len`: the text's length before it), `comma()`, `open(kind)` (5 array,
 * 6 object; answers a mark, handed to its `close`) and `close(mark, isArray, n)` (`n`: the items
 * or members written); each but `open` answers what it added to the text's length (the walk
 * counts the bracket `open` writes).
 */
function walkJson(root, what, limits, sink) {
  const maxBytes = Math.min(limits.maxBytes, MAX_JS_STRING);
  const { maxDepth, maxArrayLen, maxObjectLen } = limits;
  const stack = [];
  let len = 0;
  // The path of the value being written; with `container`, of the array or object around it.
  const fail = (code, message, container = false) => {
    throw new McpOutputsError(code, `${what}: ${message}`, pointerOf(container ? stack.slice(0, -1) : stack));
  };
  const overBytes = () => fail("limit-exceeded", `larger than the limit of ${limits.maxBytes} bytes`);

  // Writes one resolved value; false for what JSON leaves out (undefined, a function, a symbol).
  const write = (value) => {
    switch (typeof value) {
      case "string":
        if (len + value.length + 2 > maxBytes) overBytes();
        len += sink.string(value, len);
        break;
      case "number":
        if (!Number.isFinite(value)) fail("malformed", `${value} is not a JSON number`);
        len += sink.number(value);
        break;
      case "boolean":
        len += sink.literal(value ? 2 : 1);
        break;
      case "bigint":
        fail("malformed", "a BigInt is not representable as JSON");
        break;
      case "object": {
        if (value === null) {
          len += sink.literal(0);
          break;
        }
        if (stack.length + 1 > maxDepth) {
          // A cycle nests without end, so it always ends here, with a value twice among the
          // open containers (when it closes within maxDepth levels): told apart only on this
          // path, which keeps the walk free of bookkeeping for it.
          const open = new Set(stack.map((f) => f.v));
          if (open.size < stack.length || open.has(value)) fail("malformed", "a cyclic value is not representable as JSON");
          fail("limit-exceeded", `nesting deeper than ${maxDepth} levels`);
        }
        if (Array.isArray(value)) {
          // LengthOfArrayLike, as JSON.stringify reads it (a Proxy may answer anything).
          const length = Number(value.length);
          const n = length > 0 ? Math.min(Math.floor(length), Number.MAX_SAFE_INTEGER) : 0;
          if (n > maxArrayLen) fail("limit-exceeded", `array of ${n} items exceeds the limit of ${maxArrayLen}`);
          stack.push({ v: value, keys: null, i: 0, n, count: 0, mark: sink.open(5) });
        } else {
          const keys = Object.keys(value);
          stack.push({ v: value, keys, i: 0, n: keys.length, count: 0, mark: sink.open(6) });
        }
        len += 1;
        break;
      }
      default:
        return false;
    }
    if (len > maxBytes) overBytes();
    return true;
  };

  try {
    const top = resolve(root, "");
    if (!write(top)) throw malformed(`${what}: ${typeof top} is not representable as JSON`);
    while (stack.length > 0) {
      const f = stack[stack.length - 1];
      if (f.i < f.n) {
        if (f.keys === null) {
          const i = f.i++;
          const value = resolve(f.v[i], String(i));
          if (i > 0) len += sink.comma();
          if (!write(value)) len += sink.literal(0);
        } else {
          const key = f.keys[f.i++];
          const value = resolve(f.v[key], key);
          if (value === undefined || typeof value === "function" || typeof value === "symbol") continue;
          if (++f.count > maxObjectLen) fail("limit-exceeded", `object of more than ${maxObjectLen} members`, true);
          if (len + key.length + 3 > maxBytes) overBytes();
          len += sink.key(key, f.count > 1, len);
          write(value);
        }
      } else {
        stack.pop();
        len += sink.close(f.mark, f.keys === null, f.keys === null ? f.n : f.count);
      }
    }
  } catch (e) {
    if (e instanceof McpOutputsError) throw e;
    const message = e instanceof Error ? e.message : String(e);
    throw malformed(`${what}: not representable as JSON: ${cut(message)}`, pointerOf(stack), e);
  }
  return len;
}

/** `value` as JSON text under `limits` (`walkJson`): the cold paths' arguments. */
function serialize(root, what, limits) {
  let out = "";
  const add = (text) => {
    out += text;
    return text.length;
  };
  walkJson(root, what, limits, {
    string: (s) => add(quote(s)),
    number: (v) => add(String(v)),
    literal: (kind) => add(kind === 0 ? "null" : kind === 2 ? "true" : "false"),
    key: (k, comma) => add((comma ? "," : "") + quote(k) + ":"),
    comma: () => add(","),
    open: (kind) => {
      out += kind === 5 ? "[" : "{"; // the walk counts the bracket; no mark needed
      return 0;
    },
    close: (mark, isArray) => add(isArray ? "]" : "}"),
  });
  return out;
}

// How many payloads one call may hold (each a slot of the call's held nodes); past that, the
// call takes the text path.
const MAX_HELD = 2 ** 20;

// ---- The tape ----------------------------------------------------------------------------------
//
// A result made of plain data only (what `JSON.parse` makes: own data properties read by
// descriptor, plain prototypes, no toJSON, no Proxy, well-formed strings, finite numbers) crosses
// into the wasm as a tape, written by one pass into three areas of the wasm memory (words,
// numbers, UTF-8 bytes; the format is core/src/tape.rs's). In the default build each structured
// payload is held here (measured by `measure`, written as a held node), for the caller's
// validator; the full build validates inside the wasm, so its payloads are written into the tape
// like the rest. The core reads the tape where it lies, and its answer names the caller's own
// outputs and (default build) payloads. Anything else, or a value within a factor of 3 of
// maxBytes (whose exact size is counted on its text), is not written by that pass: the call
// takes the snapshot (`snapshot` below), which reads the value once, with JSON.stringify's
// semantics (`walkJson`), and writes it into the same areas as a tape that holds nothing.
// Nothing in the first pass runs code of the caller's (no getter, trap or toJSON), so a value
// it gives up on is read exactly once, by the snapshot.

const NOT_PLAIN = Symbol("not plain");
const textEncoder = new TextEncoder();
// What JSON.stringify escapes in a string (a lone surrogate aside): `"`, `\` and the controls.
const ESCAPED = /["\\\u0000-\u001f]/;

/** How many code units JSON.stringify's escapes add to a well-formed string `s`. */
function escapes(s) {
  if (!ESCAPED.test(s)) return 0;
  let extra = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x0c || c === 0x0a || c === 0x0d || c === 0x09) extra += 1;
    else if (c < 0x20) extra += 5; // \u00XX
  }
  return extra;
}

/** The tape writer of one wasm instance (`raw`); `holds`: whether payloads are held here (the
 * default build) or written into the tape. `write` writes plain data (`null` when it cannot:
 * then `snapshot`); `snapshot` any value. */
function tapeWriter(raw, positions, holds) {
  // The core's payload positions, as this writer finds them (a result's: each output's and the
  // top-level `structuredContent`; a produced value's: each output's): another layout is not
  // this writer's to guess, and leaves every call to the snapshot; so does a host where nothing
  // tells a Proxy apart, or where own data properties cannot be told apart without running code.
  const expected = {
    result: '[["outputs","*","structuredContent"],["structuredContent"]]',
    produced: '[["outputs","*","structuredContent"]]',
  };
  const plainable =
    isProxy !== null &&
    typeof lookupGetter === "function" &&
    JSON.stringify(positions.result) === expected.result &&
    JSON.stringify(positions.produced) === expected.produced;
  const memory = raw.wasmMemory();
  const caps = [0, 0, 0];
  const ptrs = [0, 0, 0];
  let W = null;
  let F = null;
  let B = null;
  const view = () => {
    W = new Uint32Array(memory.buffer, ptrs[0], caps[0]);
    F = new Float64Array(memory.buffer, ptrs[1], caps[1]);
    B = new Uint8Array(memory.buffer, ptrs[2], caps[2]);
  };
  // Grows area `which` to hold `need`: the wasm keeps what was written and may move it.
  const grow = (which, need) => {
    ptrs[which] = raw.tapeArea(which, need);
    caps[which] = need;
    view();
  };
  grow(0, 4096);
  grow(1, 1024);
  grow(2, 16384);

  let at = 0;
  let num = 0;
  let byte = 0;
  let bound = 0;
  let limit = 0;
  let limits = null;
  let payloads = null;
  let outputs = null;
  // Whether the top-level `structuredContent` is a payload position (a result) or not (what a
  // tool produced).
  let topHeld = false;

  // ---- What both writers write: nodes of the tape format.
  const words = (n) => {
    if (at + n > caps[0]) grow(0, 2 * (at + n));
  };
  // A string node; the number of UTF-8 bytes it wrote.
  const emitString = (s) => {
    const n = s.length;
    words(2);
    W[at] = 4;
    if (byte + 3 * n > caps[2]) grow(2, 2 * (byte + 3 * n));
    // ASCII is copied by a loop (short strings); anything else by TextEncoder.encodeInto.
    if (n < 64) {
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        B[byte + i] = c;
      }
      if (i === n) {
        W[at + 1] = n;
        at += 2;
        byte += n;
        return n;
      }
    }
    const { written } = textEncoder.encodeInto(s, B.subarray(byte));
    W[at + 1] = written;
    at += 2;
    byte += written;
    return written;
  };
  const emitNumber = (v) => {
    words(1);
    W[at++] = 3;
    if (num + 1 > caps[1]) grow(1, 2 * (num + 1));
    F[num++] = v;
  };
  // null (0), false (1), true (2).
  const emitWord = (k) => {
    words(1);
    W[at++] = k;
  };
  // A container's header (kind 5 array, 6 object), completed by `closeAt` once its content is
  // written: its length and its extents in the three streams.
  const openAt = (kind) => {
    words(5);
    const header = at;
    W[header] = kind;
    at += 5;
    return header;
  };
  const closeAt = (header, n, num0, byte0) => {
    W[header + 1] = n;
    W[header + 2] = at - header - 5;
    W[header + 3] = num - num0;
    W[header + 4] = byte - byte0;
  };

  // ---- Plain data (runs no code of the caller's).
  const string = (s) => {
    if (!wellFormed(s)) throw NOT_PLAIN;
    bound += 6 * s.length + 2;
    // Before the copy: a string past the bound must not grow the wasm memory (which never
    // shrinks) on its way to the snapshot.
    if (bound > limit) throw NOT_PLAIN;
    emitString(s);
  };
  // `level`: 0 the result, 1 its outputs, 2 an output, 3 anything else; `depth`: the
  // containers around `v`, itself included when it is one.
  const value = (v, depth, level) => {
    switch (typeof v) {
      case "string":
        string(v);
        return;
      case "number":
        if (!Number.isFinite(v)) throw NOT_PLAIN;
        emitNumber(v);
        bound += 24;
        return;
      case "boolean":
        emitWord(v ? 2 : 1);
        bound += 5;
        return;
      case "object":
        if (v === null) {
          emitWord(0);
          bound += 4;
          return;
        }
        break;
      default:
        throw NOT_PLAIN; // undefined, a function, a symbol, a BigInt
    }
    if (depth > limits.maxDepth || isProxy(v)) throw NOT_PLAIN;
    const num0 = num;
    const byte0 = byte;
    let header;
    let n;
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype) throw NOT_PLAIN;
      n = v.length;
      if (n > limits.maxArrayLen) throw NOT_PLAIN;
      header = openAt(5);
      const inner = level === 1 ? 2 : 3;
      for (let i = 0; i < n; i++) {
        // Own data only, as `measure` reads (a hole is not plain data).
        if (!hasOwn(v, i) || lookupGetter.call(v, i) !== undefined) throw NOT_PLAIN;
        const item = v[i];
        if (inner === 2) outputs.push(item);
        value(item, depth + 1, inner);
      }
    } else {
      const proto = Object.getPrototypeOf(v);
      if ((proto !== Object.prototype && proto !== null) || typeof v.toJSON === "function") throw NOT_PLAIN;
      const keys = Object.keys(v);
      n = keys.length;
      if (n > limits.maxObjectLen) throw NOT_PLAIN;
      header = openAt(6);
      for (let i = 0; i < n; i++) {
        const key = keys[i];
        if (lookupGetter.call(v, key) !== undefined) throw NOT_PLAIN;
        const item = v[key];
        string(key);
        if (holds && ((level === 0 && topHeld) || level === 2) && key === "structuredContent") hold(item, depth);
        else value(item, depth + 1, level === 0 && key === "outputs" ? 1 : 3);
      }
    }
    bound += n + 2;
    if (bound > limit) throw NOT_PLAIN;
    closeAt(header, n, num0, byte0);
  };
  // A payload, inside `depth` containers: held when plain, as a node the core's limits walk
  // charges as a number (8); its own size is added to the bound here. Its flags (core/src/tape.rs:
  // HELD_IS_OBJECT, HELD_HAS_SUBJECTS) answer what the core cannot read of it: whether it is an
  // object, and whether it has a string or a member name (the regex budget's question).
  const hold = (payload, depth) => {
    const plain = measure(payload, depth, limits, limit - bound);
    if (plain === null || payloads.length >= MAX_HELD) throw NOT_PLAIN;
    const isObject = payload !== null && typeof payload === "object" && !Array.isArray(payload);
    words(4);
    W[at] = 7;
    W[at + 1] = payloads.length;
    W[at + 2] = 8;
    W[at + 3] = (isObject ? 1 : 0) | (plain.subjects ? 2 : 0);
    at += 4;
    payloads.push(payload);
    bound += plain.size;
    if (bound > limit) throw NOT_PLAIN;
  };

  // A grown memory detaches the buffer the views were made on, and a detached view's length
  // is 0 (the areas never are): cheaper than asking the memory for its buffer on every call.
  const fresh = () => {
    if (W.length === 0) view();
    at = 0;
    num = 0;
    byte = 0;
  };

  /** `result` (`which`: "result" or "produced") written as a tape under `lim`, after the tape of
   * `request` (the requested outputs, when given and plain data): `{request, words, numbers,
   * bytes, payloads, outputs}`, `request` the request tape's `[words, numbers, bytes]`
   * at the start of the areas (the result's follows it) or `null` when it was not written (the
   * caller sends it as text); or `null` when the result is not plain data (the snapshot's then). */
  function write(result, lim, which, request = undefined) {
    lastRequest = null;
    if (!plainable) return null;
    topHeld = which === "result";
    fresh();
    // UTF-8 takes at most 3 bytes per code unit: within a third of maxBytes (and of what a JS
    // string can hold), the text is surely within maxBytes.
    limit = Math.floor(Math.min(lim.maxBytes, MAX_JS_STRING) / 3);
    limits = lim;
    payloads = [];
    outputs = [];
    let written = null;
    if (request !== undefined) {
      // Nothing of a request is held (level 3: no payload position); its bound is its own.
      bound = 0;
      try {
        value(request, 1, 3);
        written = [at, num, byte];
      } catch (e) {
        if (e !== NOT_PLAIN) throw e;
        at = 0;
        num = 0;
        byte = 0;
      }
    }
    const [at0, num0, byte0] = [at, num, byte];
    bound = 0;
    try {
      value(result, 1, 0);
    } catch (e) {
      // The request's tape stays, for the snapshot of the result to follow it.
      if (e === NOT_PLAIN) {
        lastRequest = written;
        return null;
      }
      throw e;
    }
    return {
      request: written,
      words: at - at0,
      numbers: num - num0,
      bytes: byte - byte0,
      payloads,
      outputs,
    };
  }

  // ---- The snapshot: any value, read once by `walkJson` (JSON.stringify's semantics, the text
  // path's checks and errors), each node written out as a copy (nothing held). Beside the tape it
  // counts what the core's size check needs of the text the walk stands for (the check is on the
  // text: core/src/tape.rs, `snapshot`): its UTF-8 length, and the first string that text cannot
  // hold (a lone surrogate, which JSON.stringify escapes and the core's parser refuses).
  // The request tape the last `write` left at the start of the areas when it gave up on the
  // result (`[words, numbers, bytes]`), or null.
  let lastRequest = null;
  let utf8 = 0; // the text's UTF-8 bytes beyond its UTF-16 length (the walk counts that)
  let lone = null;
  let marks = [];
  const snapshotSink = {
    // `len`: the text's UTF-16 length before the string's opening quote.
    string(s, len) {
      if (wellFormed(s)) {
        utf8 += emitString(s) - s.length;
        return s.length + 2 + escapes(s);
      }
      // JSON.stringify escapes each lone surrogate (`\udXXX`); the tape holds U+FFFD there,
      // never read: the core refuses the snapshot at this string first.
      const text = quote(s);
      if (lone === null) lone = { at: len + utf8, text };
      utf8 += textEncoder.encode(text).length - text.length;
      emitString(s);
      return text.length;
    },
    number(v) {
      emitNumber(v);
      return String(v).length;
    },
    literal(kind) {
      emitWord(kind);
      return kind === 1 ? 5 : 4;
    },
    key(k, comma, len) {
      return comma ? 2 + this.string(k, len + 1) : 1 + this.string(k, len);
    },
    comma: () => 1,
    open(kind) {
      marks.push(num, byte);
      return openAt(kind);
    },
    close(header, isArray, n) {
      const byte0 = marks.pop();
      const num0 = marks.pop();
      closeAt(header, n, num0, byte0);
      return 1;
    },
  };

  /** `value` (`what`: "result" or "produced") as a snapshot tape under `lim`, after the tape
   * of the requested outputs the last `write` left (`request`, as `write` answers it; else at the
   * start of the areas): `{request, words, numbers, bytes, textBytes, loneAt, lone}` (the text's
   * UTF-8 length, and the first lone surrogate's offset in it and its string as JSON.stringify
   * writes it, or 0 and `undefined`); throws the text path's errors (`walkJson`). */
  function snapshot(v, what, lim) {
    const request = lastRequest;
    lastRequest = null;
    fresh();
    if (request !== null) [at, num, byte] = request;
    const [at0, num0, byte0] = [at, num, byte];
    utf8 = 0;
    lone = null;
    marks = [];
    const len = walkJson(v, what, lim, snapshotSink);
    return {
      request,
      words: at - at0,
      numbers: num - num0,
      bytes: byte - byte0,
      textBytes: len + utf8,
      loneAt: lone === null ? 0 : lone.at,
      lone: lone === null ? undefined : lone.text,
    };
  }

  return { write, snapshot, request: () => lastRequest };
}

// ---- Answers ------------------------------------------------------------------------------------
//
// The answer of a tape call is a tape too, written by the core into the wasm memory
// (core/src/answer.rs: the tape format plus an index node, `[8, i]`, for the caller's own output
// `i`, and a name node, `[9, id]`, for a string of the core's table; a held node stands for the
// caller's payload of its slot). The call answers the address of
// a header, `[words, wordCount, numbers, numberCount, bytes, byteCount]`; this reader builds the
// answer's objects from views over the memory and puts the caller's own outputs and payloads at
// the index and held nodes. The core decides what each position is; this only adapts.

const INDEX_NODE = 8;
// `[9, id]`: a string of the core's table (`answerNames`: the protocol's member names and words),
// decoded once per instance.
const NAME_NODE = 9;
// ASCII strings up to this many bytes are built by a loop, longer ones by TextDecoder (its call
// and view cost about 100 ns whatever the length; the loop 25-35 ns at 4 bytes, about 100 at 10,
// 240 at 32: Node 20, CPU time).
const SHORT_TEXT = 8;

function answerReader(raw) {
  const memory = raw.wasmMemory();
  const decoder = new TextDecoder();
  const NAMES = JSON.parse(raw.answerNames());
  let buffer = null;
  let U32 = null;
  let F64 = null;
  let U8 = null;
  let w = 0;
  let f = 0;
  let b = 0;
  let held = null;
  let outs = null;
  const text = (n) => {
    const start = b;
    const end = (b += n);
    if (n <= SHORT_TEXT) {
      let s = "";
      let i = start;
      for (; i < end; i++) {
        const c = U8[i];
        if (c >= 0x80) break;
        s += String.fromCharCode(c);
      }
      if (i === end) return s;
    }
    return decoder.decode(U8.subarray(start, end));
  };
  // Recursive, as deep as the answer nests (within the limits' depth, as the core's writer).
  const node = () => {
    switch (U32[w]) {
      case 0:
        w += 1;
        return null;
      case 1:
        w += 1;
        return false;
      case 2:
        w += 1;
        return true;
      case 3:
        w += 1;
        return F64[f++];
      case 4: {
        const n = U32[w + 1];
        w += 2;
        return text(n);
      }
      case NAME_NODE: {
        const id = U32[w + 1];
        w += 2;
        return NAMES[id];
      }
      case 5: {
        const n = U32[w + 1];
        w += 5;
        const items = [];
        for (let i = 0; i < n; i++) items.push(node());
        return items;
      }
      case 6: {
        const n = U32[w + 1];
        w += 5;
        const members = {};
        for (let i = 0; i < n; i++) {
          const key = U32[w] === NAME_NODE ? NAMES[U32[w + 1]] : text(U32[w + 1]);
          w += 2;
          const item = node();
          // As JSON.parse makes it: an own member, never the prototype.
          if (key === "__proto__") Object.defineProperty(members, key, { value: item, writable: true, enumerable: true, configurable: true });
          else members[key] = item;
        }
        return members;
      }
      case 7: {
        const slot = U32[w + 1];
        w += 4;
        return held[slot];
      }
      case INDEX_NODE: {
        const i = U32[w + 1];
        w += 2;
        // A text call's outputs come from a function (parsed from the text on demand).
        return typeof outs === "function" ? outs(i) : outs[i];
      }
      default:
        throw new Error(`corrupt answer tape: kind ${U32[w]} at word ${w}`);
    }
  };
  /** The answer whose header is at `header`, `payloads` and `outputs` the call's. */
  return function read(header, payloads, outputs) {
    // The views over the whole memory, made again once a grown memory detached them (a
    // detached view's length is 0).
    if (U32 === null || U32.length === 0) {
      buffer = memory.buffer;
      U32 = new Uint32Array(buffer);
      F64 = new Float64Array(buffer);
      U8 = new Uint8Array(buffer);
    }
    const h = header >>> 2;
    w = U32[h] >>> 2;
    f = U32[h + 2] >>> 3;
    b = U32[h + 4];
    held = payloads;
    outs = outputs;
    try {
      return node();
    } finally {
      held = null;
      outs = null;
    }
  };
}

// JSON text given as such: refused in JavaScript when even its UTF-16 length is over the
// limit, so that a huge string is never copied into the wasm memory (which never shrinks).
function textArg(value, what, limits) {
  if (typeof value !== "string") throw malformed(`${what} must be JSON text (a string)`);
  if (value.length > limits.maxBytes) {
    throw new McpOutputsError("limit-exceeded", `${what}: ${value.length} characters exceeds the limit of ${limits.maxBytes} bytes`);
  }
  return value;
}

const optTextArg = (value, what, limits) =>
  value === undefined || value === null ? undefined : textArg(value, what, limits);

// Library options: an object (or nothing); `extensions` and `limits` go to the core, which
// rules on them. Anything else (a string, an array) is a mistake, never silently ignored.
function optionsObject(options, allowed) {
  if (options === undefined || options === null) return null;
  if (typeof options !== "object" || Array.isArray(options)) {
    throw malformed(`options must be an object, not ${Array.isArray(options) ? "an array" : typeof options}`);
  }
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) throw malformed(`unknown option ${cut(JSON.stringify(key))}`, `/${key}`);
  }
  return options;
}

const parse = (text) => JSON.parse(text);

// ---- The module and its recovery (R-3) ---------------------------------------------------------
//
// `load()` gives a fresh, initialised instance of the wasm-bindgen module. A trap inside the
// wasm (a Rust panic, an out-of-bounds access, a stack overflow) leaves that instance in an
// unknown state (its shadow stack, a borrowed handle), so the package replaces it at once: the
// call that trapped throws `McpOutputsError` (code `malformed`, the trap as `cause`), and
// every handle rebuilds itself on the new instance from the inputs it was made from the
// next time it is used.

// ---- The validator of the default build -----------------------------------------------------
//
// The default build has no JSON Schema validator inside: the core rules on every schema
// itself, and asks this host object (given to each instance) what a validator must answer:
// whether a pattern is a regular expression (JSON Schema patterns are ECMA-262 ones, the `u`
// flag, as Ajv and @cfworker/json-schema read them), to build the validator of a schema, and
// to validate. The validator is the caller's, in the TypeScript SDK's `jsonSchemaValidator`
// shape: `getValidator(schema)` answers `(input) => ({valid, data, errorMessage})`.

const isProvider = (v) => v !== null && typeof v === "object" && typeof v.getValidator === "function";

// Built validators per provider, by the core's schema id. Bounded: when full, emptied; the core
// then sends a schema again when it next needs it.
const MAX_BUILT = 4096;
// The same validators per provider by the schema's text, so that a schema the core sends again
// under a new id (each declareTool and acceptTool checks its schemas anew: a server that declares
// its tools per session) is built once: the SDKs' providers compile on every getValidator
// (Ajv generates code: 3-5 ms a schema of the bench, P-JS-3), where the full build's compile is
// cheap. Bounded in entries and in the characters of the texts it keeps (a host's schemas come
// from servers): when either is full, emptied.
const MAX_BUILT_TEXT = 16 * 1024 * 1024;

function schemaHost(activeProvider, heldPayloads) {
  // What each provider built: by the core's schema id, and by the schema's text.
  const built = new WeakMap();
  const builtBy = (provider) => {
    let own = built.get(provider);
    if (own === undefined) built.set(provider, (own = { byId: new Map(), byText: new Map(), chars: 0 }));
    return own;
  };
  const messageOf = (e) => cut(e instanceof Error ? e.message : String(e));
  return {
    hasValidator() {
      return activeProvider() !== null;
    },
    patternIsValid(pattern) {
      try {
        new RegExp(pattern, "u");
        return true;
      } catch {
        return false;
      }
    },
    build(id, schemaText) {
      const provider = activeProvider();
      if (provider === null) return "no JSON Schema validator was given (options.validator, or setValidator())";
      const own = builtBy(provider);
      let validate = own.byText.get(schemaText);
      if (validate === undefined) {
        try {
          validate = provider.getValidator(JSON.parse(schemaText));
        } catch (e) {
          return `the validator refused it: ${messageOf(e)}`;
        }
        if (typeof validate !== "function") return "the validator's getValidator did not answer a function";
        if (own.byText.size >= MAX_BUILT || own.chars + schemaText.length > MAX_BUILT_TEXT) {
          own.byText.clear();
          own.chars = 0;
        }
        own.byText.set(schemaText, validate);
        own.chars += schemaText.length;
      }
      if (own.byId.size >= MAX_BUILT) own.byId.clear();
      own.byId.set(id, validate);
      return undefined;
    },
    validate(id, instanceText) {
      return this.validateValue(id, () => JSON.parse(instanceText));
    },
    validatePayload(id, slot) {
      return this.validateValue(id, () => heldPayloads()[slot]);
    },
    payloadText(slot) {
      return JSON.stringify(heldPayloads()[slot]);
    },
    validateValue(id, instance) {
      const provider = activeProvider();
      const validate = provider === null ? undefined : builtBy(provider).byId.get(id);
      // Answers as the wasm reads them (src/lib.rs, `answered`): true, null, or an object.
      if (validate === undefined) return null;
      let answer;
      try {
        answer = validate(instance());
      } catch (e) {
        // A validator that recurses per level (cfworker) runs out of stack on deep values that
        // the limits allow: a resource limit, not a fault of the value.
        const stack = e instanceof RangeError && /call stack/i.test(e.message);
        return { error: [stack ? "limit-exceeded" : "malformed", `the JSON Schema validator threw: ${messageOf(e)}`] };
      }
      if (answer !== null && typeof answer === "object" && answer.valid === true) return true;
      // A validator of another shape is the caller's mistake, not a verdict on the value: Ajv's
      // own compiled function answers a boolean, an async one a Promise.
      if (answer === null || typeof answer !== "object" || typeof answer.then === "function" || answer.valid !== false) {
        const got =
          answer === null || typeof answer !== "object"
            ? String(answer === null ? "null" : typeof answer)
            : typeof answer.then === "function"
              ? "a Promise"
              : `{valid: ${cut(JSON.stringify(answer.valid) ?? "undefined")}}`;
        return {
          error: [
            "invalid-validator",
            `the validator's function must answer {valid: boolean, errorMessage?: string} synchronously (the MCP SDKs' jsonSchemaValidator shape), not ${got}: wrap a compiled Ajv function as (v) => ({valid: fn(v), errorMessage: ajv.errorsText(fn.errors)})`,
          ],
        };
      }
      const why = answer !== null && typeof answer === "object" ? answer.errorMessage : undefined;
      // Where it fails, when the validator says (Ajv's `instancePath`; not in the SDK's shape).
      const at = answer !== null && typeof answer === "object" ? answer.instancePath : undefined;
      return {
        detail: why === undefined || why === null ? "invalid" : cut(String(why)),
        at: typeof at === "string" && (at === "" || at.startsWith("/")) ? at : "",
      };
    },
  };
}

/** Builds the public API over a loader of initialised wasm-bindgen modules. */
export function bind(load) {
  // The provider of the call in progress (default build), and the one `setValidator` gave.
  let active = null;
  let defaultProvider = null;
  // The payloads the call in progress holds (default build).
  let held = null;
  const host = schemaHost(() => active, () => held);
  const start = () => {
    const fresh = load();
    if (typeof fresh.raw.setSchemaHost === "function") fresh.raw.setSchemaHost(host);
    return fresh;
  };
  let engine = start();
  let generation = 0;
  const codes = Object.freeze(parse(engine.raw.errorCodes()));
  const defaultLimits = Object.freeze(parse(engine.raw.limitsOf(undefined)));
  const hasValidator = engine.raw.hasValidator();
  // Where the core says payloads sit.
  const positions = parse(engine.raw.payloadPositions());
  // The tape writer and the answer reader of the instance in use (rebuilt with it: each has its
  // own memory).
  let tape = null;
  let answer = null;
  let tapeOf = null;
  // Made together: both need only the instance's memory.
  const current = () => {
    if (tapeOf !== engine) {
      tapeOf = engine;
      tape = tapeWriter(engine.raw, positions, !hasValidator);
      answer = answerReader(engine.raw);
    }
  };
  const writeTape = (value, limits, which, request) => {
    current();
    return tape.write(value, limits, which, request);
  };
  // A value that is not plain data, read once into a snapshot tape (`tapeWriter`), after a
  // `writeTape` that gave up on it.
  const snapshotOf = (value, what, limits) => {
    current();
    return tape.snapshot(value, what, limits);
  };
  // The answer of a tape call (its header's address), with the call's own outputs and payloads;
  // read inside `call`, where a corrupt answer is the engine's fault (restarted, `malformed`), as
  // a trap is.
  const readAnswer = (header, t) => answer(header, t.payloads, t.outputs);
  // The answer of a text call (`check`, `route`): nothing is held; `outputAt(i)` gives output
  // `i` of `result.outputs`, parsed from the text the core checked, for its index nodes. Read
  // right after the call, before another call can write over it.
  const readTextAnswer = (header, outputAt = null) => {
    current();
    return answer(header, null, outputAt);
  };
  // A core error (`isCoreError`), read from its answer tape right after the call that made it.
  const fromCore = (e) => {
    const p = readTextAnswer(e.mcpOutputs);
    return new McpOutputsError(p.code, p.message, p.path, p.jsonrpc ?? null);
  };
  // The requested outputs as text, unless they crossed as a tape (`t.request`).
  const requestText = (t, requestedOutputs, limits) =>
    t !== null && t.request !== null ? undefined : optValue(requestedOutputs, "requestedOutputs", limits);
  // After a `writeTape` that gave up on the result: whether it left the requested outputs'
  // tape for the snapshot to follow (plain data), and their text when not.
  const snapshotRequest = (requestedOutputs, limits) => {
    const written = tape.request();
    const text = written !== null ? undefined : optValue(requestedOutputs, "requestedOutputs", limits);
    return {
      written,
      text,
      // What the core ranks a fault of the result's read against (`checkUnread`,
      // `respondUnread`): the request's text, written again from a plain request when it
      // crossed as a tape (reading plain data runs no code of the caller's).
      faultText: () => (written !== null ? optValue(requestedOutputs, "requestedOutputs", limits) : text),
    };
  };
  const requestArgs = (t) => (t.request === null ? [0, 0, 0] : t.request);

  // Runs `fn` with `hold`'s payloads answering the core's questions.
  function holding(hold, fn) {
    const outer = held;
    held = hold.payloads;
    try {
      return fn();
    } finally {
      held = outer;
    }
  }

  // A `validator` option: a provider in the default build; the full build takes none.
  function providerOption(value) {
    if (value === undefined || value === null) return null;
    if (hasValidator) throw malformed("the full build validates inside the wasm: it takes no validator", "/validator");
    if (!isProvider(value)) throw malformed("validator must have a getValidator(schema) method (the TypeScript SDK's jsonSchemaValidator)", "/validator");
    return value;
  }

  function fault(e) {
    engine = start();
    generation++;
    return malformed(
      `internal error in the engine (${cut(e instanceof Error ? `${e.name}: ${e.message}` : e)}); ` +
        "it was restarted and later calls are answered",
      "",
      e,
    );
  }

  // Runs one call into the wasm, with `provider` (or the default one) as the validator.
  function call(fn, provider = null) {
    const outer = active;
    active = provider ?? defaultProvider;
    try {
      return fn();
    } catch (e) {
      if (isCoreError(e)) throw fromCore(e);
      if (e instanceof McpOutputsError) throw e;
      // Every argument was checked before the call, so anything else is the engine's fault.
      throw fault(e);
    } finally {
      active = outer;
    }
  }

  // Reads a server's own declarations; what cannot be read (missing, not JSON, over a limit) is
  // found before the core sees it, and the core still gives it its wire form: the server's fault.
  function readDeclarations(read) {
    try {
      return read();
    } catch (e) {
      if (!(e instanceof McpOutputsError)) throw e;
      throw withCause(fromCore(call(() => engine.raw.RawServerTool.declarationError(e.code, e.message, e.path))), e);
    }
  }

  // Options as JSON text and the limits they put in force (validated by the core).
  function library(options, allowed = ["extensions", "limits", "supportedVersions"]) {
    const obj = optionsObject(options, [...allowed, "validator"]);
    const validator = providerOption(obj?.validator);
    const extensions = obj?.extensions;
    const limits = obj?.limits;
    const supportedVersions = obj?.supportedVersions;
    if (extensions === undefined && limits === undefined && supportedVersions === undefined) {
      return { text: undefined, limits: defaultLimits, validator };
    }
    const text = serialize({ extensions, limits, supportedVersions }, "options", defaultLimits);
    return { text, limits: parse(call(() => engine.raw.limitsOf(text))), validator };
  }

  const optValue = (value, what, limits) => (value === undefined ? undefined : serialize(value, what, limits));

  // `options.legacyStructured` of check/route as JSON text for the core, which validates it (LEG-8).
  function legacyRule(options, limits) {
    const obj = optionsObject(options, ["legacyStructured"]);
    return obj === null ? undefined : optValue(obj.legacyStructured, "legacyStructured", limits);
  }

  // A wrapper of one wasm handle: `make()` builds the handle on the current instance from the
  // inputs the wrapper was made from.
  class Handle {
    // One call into the wasm with this handle's validator.
    _call(fn) {
      return call(fn, this._validator);
    }
    _init(make, first) {
      this._make = make;
      this._raw = first;
      this._gen = generation;
      return this;
    }
    _handle() {
      if (typeof this._make !== "function") {
        throw malformed(`this ${this.constructor.name} was not made by the package (use its factory functions)`);
      }
      if (this._raw === null) throw malformed(`this ${this.constructor.name} was freed`);
      if (this._gen !== generation) {
        // Built on an instance that trapped: rebuild here (the old one is left to the GC).
        this._raw = call(this._make, this._validator);
        this._gen = generation;
      }
      return this._raw;
    }
    /** Releases the wasm memory now (it is otherwise released when garbage-collected).
     * Later calls on the handle throw `malformed`; a second `free` does nothing. */
    free() {
      own(this, Handle, "handle");
      if (this._raw && this._gen === generation) this._raw.free();
      this._raw = null;
    }
  }

  function own(value, Class, what) {
    if (!(value instanceof Class)) {
      throw malformed(`expected a ${what}, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`);
    }
    return value;
  }
  const connOf = (connection) => own(connection, Connection, "Connection");

  function makeConnection(make, validator) {
    const conn = Object.create(Connection.prototype);
    conn._validator = validator;
    return conn._init(make);
  }

  class Connection extends Handle {
    /**
     * @param init `{protocolVersion?, negotiated?}`: the version and extensions of this connection.
     * @param options `{extensions?, limits?}`: the library options.
     */
    constructor(init, options) {
      super();
      const lib = library(options);
      const initText = init === undefined || init === null ? undefined : serialize(init, "connection", lib.limits);
      this._validator = lib.validator;
      this._init(() => new engine.raw.RawConnection(initText, lib.text));
    }
    /** The connection agreed after `initialize` or `server/discover`:
     * `{protocolVersion, clientCapabilities, serverCapabilities}` → version and negotiated extensions. */
    static negotiate(init, options) {
      const lib = library(options);
      const initText = serialize(init, "init", lib.limits);
      const make = () => engine.raw.RawConnection.negotiate(initText, lib.text);
      return makeConnection(make, lib.validator);
    }
    /** The connection of one request (2026-07-28 on), from its `params._meta` and the server's capabilities. */
    static fromRequest(params, serverCapabilities, options) {
      const lib = library(options);
      const paramsText = serialize(params, "params", lib.limits);
      const capsText = serialize(serverCapabilities, "serverCapabilities", lib.limits);
      const make = () => engine.raw.RawConnection.fromRequest(paramsText, capsText, lib.text);
      return makeConnection(make, lib.validator);
    }
    _init(make, first) {
      super._init(make, first === undefined ? call(make, this._validator) : first);
      this._limits = parse(this._raw.limits);
      return this;
    }
    /** The `params` of a tools/call: `requestedOutputs` from the plan only, `_meta` from 2026-07-28 on. */
    toolsCallParams(name, args, plan, clientCapabilities) {
      own(this, Connection, "Connection");
      const limits = this._limits;
      if (typeof name !== "string") throw malformed("name must be a string", "/name");
      // The core caps the name too; refused here first, so that it never enters the wasm memory.
      if (name.length > limits.maxBytes) {
        throw new McpOutputsError("limit-exceeded", `name: ${name.length} characters exceeds the limit of ${limits.maxBytes} bytes`, "/name");
      }
      const argsText = optValue(args ?? undefined, "arguments", limits);
      const planText = serialize(plan, "plan", limits);
      const capsText = serialize(clientCapabilities, "clientCapabilities", limits);
      return parse(this._call(() => this._handle().toolsCallParams(name, argsText, planText, capsText)));
    }
    /** The `params` of any request (tools/list, resources/read, …): `_meta` from 2026-07-28 on. */
    requestParams(params, clientCapabilities) {
      own(this, Connection, "Connection");
      const paramsText = serialize(params, "params", this._limits);
      const capsText = serialize(clientCapabilities, "clientCapabilities", this._limits);
      return parse(this._call(() => this._handle().requestParams(paramsText, capsText)));
    }
    /** The tools/list result: `ServerTool`s advertised for this connection, plain Tool objects as
     * given (legacy Tools only before 2026-12-01); `options.cache` is `{ttlMs, cacheScope}`
     * (default `0` / `"private"`, sent from 2026-07-28 on). */
    toolsListResult(tools, options) {
      own(this, Connection, "Connection");
      const listOptions = optionsObject(options, ["cache", "nextCursor"]);
      const cacheText = optValue(listOptions?.cache, "cache", this._limits);
      const cursorText = optValue(listOptions?.nextCursor, "nextCursor", this._limits);
      if (!Array.isArray(tools)) throw malformed("tools must be an array");
      // Counted before any tool is serialised or advertised, so an oversized list costs nothing.
      const { maxTools } = this._limits;
      if (tools.length > maxTools) {
        throw new McpOutputsError("limit-exceeded", `${tools.length} tools exceed the limit of ${maxTools}`, "/tools");
      }
      const conn = this._handle();
      const texts = [];
      for (let i = 0; i < tools.length; i++) {
        const t = tools[i];
        texts.push(t instanceof ServerTool ? this._call(() => t._handle().advertise(conn)) : serialize(t, `tools/${i}`, this._limits));
      }
      return parse(this._call(() => this._handle().toolsListResult(texts, cacheText, cursorText)));
    }
    get protocolVersion() {
      return own(this, Connection, "Connection")._handle().protocolVersion;
    }
    get negotiated() {
      return parse(own(this, Connection, "Connection")._handle().negotiated);
    }
  }

  class ServerTool extends Handle {
    /** Declares a tool: validates it and compiles its schemas once. */
    static declare(tool, options = {}) {
      const lib = library(options, ["extensions", "limits", "supportedVersions", "legacy"]);
      const [legacyText, toolText] = readDeclarations(() => [
        optValue(options?.legacy, "legacy", lib.limits),
        serialize(tool, "tool", lib.limits),
      ]);
      const make = () => new engine.raw.RawServerTool(toolText, legacyText, lib.text);
      const declared = new ServerTool();
      declared._validator = lib.validator;
      return declared._init(make, call(make, lib.validator));
    }
    get name() {
      return own(this, ServerTool, "ServerTool")._handle().name;
    }
    get warnings() {
      return parse(own(this, ServerTool, "ServerTool")._handle().warnings);
    }
    /** The Tool object for tools/list on this connection. */
    advertise(connection) {
      own(this, ServerTool, "ServerTool");
      const conn = connOf(connection)._handle();
      return parse(this._call(() => this._handle().advertise(conn)));
    }
    /** The selectors a request's `requestedOutputs` resolves to (the fallback when omitted). */
    select(connection, requestedOutputs) {
      own(this, ServerTool, "ServerTool");
      const c = connOf(connection);
      const reqText = optValue(requestedOutputs, "requestedOutputs", c._limits);
      return parse(this._call(() => this._handle().select(c._handle(), reqText)));
    }
    /** The CallToolResult to send for the request, from every output the tool computed. */
    respond(connection, requestedOutputs, produced) {
      own(this, ServerTool, "ServerTool");
      const c = connOf(connection);
      // The requested outputs cross as a tape when they are plain data, else as text (read
      // first, as before: writing the tapes runs no code of the caller's).
      const t = writeTape(produced, c._limits, "produced", requestedOutputs);
      if (t !== null) {
        // Plain data throughout: the result carries the caller's own payload objects.
        const reqText = requestText(t, requestedOutputs, c._limits);
        const [rw, rn, rb] = requestArgs(t);
        return this._call(() =>
          readAnswer(
            holding(t, () => this._handle().respondTape(c._handle(), reqText, rw, rn, rb, t.words, t.numbers, t.bytes, undefined, 0, undefined)),
            t,
          ),
        );
      }
      // Anything else read once into a snapshot tape (nothing held), after the requested
      // outputs' tape when they are plain data: the wasm checks it as the text it stands for,
      // and the answer is a tape of copies.
      const req = snapshotRequest(requestedOutputs, c._limits);
      const snap = this._produced(c, req.faultText, () => snapshotOf(produced, "produced", c._limits));
      const [rw, rn, rb] = req.written ?? [0, 0, 0];
      const { words, numbers, bytes, textBytes, loneAt, lone } = snap;
      return this._call(() =>
        readTextAnswer(
          this._handle().respondTape(c._handle(), req.text, rw, rn, rb, words, numbers, bytes, textBytes, loneAt, lone),
        ),
      );
    }
    // The produced outputs as text; when they cannot be read (missing, not JSON, over a limit)
    // the core decides what comes first: the request's fault, or this one as the server's.
    // (`reqText`: the requested outputs' text, or a function that writes it.)
    _produced(c, reqText, read) {
      try {
        return read();
      } catch (e) {
        if (!(e instanceof McpOutputsError)) throw e;
        if (typeof reqText === "function") reqText = reqText();
        throw withCause(fromCore(this._call(() => this._handle().respondUnread(c._handle(), reqText, e.code, e.message, e.path))), e);
      }
    }
    /** `respond` over JSON text, answering the wire result as JSON text. */
    respondText(connection, requestedOutputsText, producedText) {
      own(this, ServerTool, "ServerTool");
      const c = connOf(connection);
      const req = optTextArg(requestedOutputsText, "requestedOutputs", c._limits);
      const produced = this._produced(c, req, () => textArg(producedText, "produced", c._limits));
      return this._call(() => this._handle().respond(c._handle(), req, produced));
    }
    /** `select` over JSON text. */
    selectText(connection, requestedOutputsText) {
      own(this, ServerTool, "ServerTool");
      const c = connOf(connection);
      const req = optTextArg(requestedOutputsText, "requestedOutputs", c._limits);
      return parse(this._call(() => this._handle().select(c._handle(), req)));
    }
  }

  class ReceivedTool extends Handle {
    /** Accepts a tool as received in tools/list, for one connection. */
    static accept(tool, connection) {
      const c = connOf(connection);
      const toolText = serialize(tool, "tool", c._limits);
      const rawConn = c._handle();
      // Rebuilt on a new instance from the connection's own inputs (the connection may be freed by then).
      const connMake = c._make;
      const make = () => {
        const temp = connMake();
        try {
          return new engine.raw.RawReceivedTool(toolText, temp);
        } finally {
          temp.free();
        }
      };
      const tool_ = new ReceivedTool();
      tool_._validator = c._validator;
      tool_._init(make, call(() => new engine.raw.RawReceivedTool(toolText, rawConn), c._validator));
      tool_._limits = c._limits;
      return tool_;
    }
    get warnings() {
      return parse(own(this, ReceivedTool, "ReceivedTool")._handle().warnings);
    }
    /** `{mode}` or `{consumers}`, plus `requireSchema?`, `schemas?` → `{requestedOutputs?, schemas?}`. */
    plan(request) {
      own(this, ReceivedTool, "ReceivedTool");
      const text = serialize(request, "plan request", this._limits);
      return parse(this._call(() => this._handle().plan(text)));
    }
    /** The tool's name. */
    get name() {
      return own(this, ReceivedTool, "ReceivedTool")._handle().name;
    }
    /** Checks a result; throws `McpOutputsError` when it is invalid. Answers `{}`,
     * `{warnings: ["empty-error-outputs"]}` or `{resultType: "input_required"}`.
     * `options.legacyStructured` (a local rule for an older server, LEG-8) is only validated. */
    check(requestedOutputs, result, options) {
      own(this, ReceivedTool, "ReceivedTool");
      // The requested outputs cross as a tape when they are plain data, else as text (read
      // first, as before: writing the tapes runs no code of the caller's).
      const t = writeTape(result, this._limits, "result", requestedOutputs);
      if (t !== null) {
        const reqText = requestText(t, requestedOutputs, this._limits);
        const rule = legacyRule(options, this._limits);
        const [rw, rn, rb] = requestArgs(t);
        return this._call(() =>
          readAnswer(holding(t, () => this._handle().checkTape(false, reqText, rw, rn, rb, t.words, t.numbers, t.bytes, undefined, 0, undefined, rule)), t),
        );
      }
      // Anything else read once into a snapshot tape (nothing held), after the requested
      // outputs' tape when they are plain data; checked as the text it stands for.
      const req = snapshotRequest(requestedOutputs, this._limits);
      const snap = this._result(req.faultText, options, () => snapshotOf(result, "result", this._limits));
      const rule = legacyRule(options, this._limits);
      const [rw, rn, rb] = req.written ?? [0, 0, 0];
      const { words, numbers, bytes, textBytes, loneAt, lone } = snap;
      return this._call(() =>
        readTextAnswer(this._handle().checkTape(false, req.text, rw, rn, rb, words, numbers, bytes, textBytes, loneAt, lone, rule)),
      );
    }
    // The result as this layer reads it; when it cannot be read (missing, not JSON, not text)
    // the core decides what comes first: the local rule's or the request's fault (ERR-6), or
    // this one.
    // (`reqText`: the requested outputs' text, or a function that writes it.)
    _result(reqText, options, read) {
      try {
        return read();
      } catch (e) {
        if (!(e instanceof McpOutputsError)) throw e;
        if (typeof reqText === "function") reqText = reqText();
        const rule = legacyRule(options, this._limits);
        throw withCause(fromCore(this._call(() => this._handle().checkUnread(reqText, rule, e.code, e.message, e.path))), e);
      }
    }
    /** `check` over the wire bytes (JSON text). */
    checkText(requestedOutputsText, resultText, options) {
      own(this, ReceivedTool, "ReceivedTool");
      const req = optTextArg(requestedOutputsText, "requestedOutputs", this._limits);
      const text = this._result(req, options, () => textArg(resultText, "result", this._limits));
      const rule = legacyRule(options, this._limits);
      return this._call(() => readTextAnswer(this._handle().check(req, text, rule)));
    }
    /** Checks a result and routes every output by its audience. The route's lists hold the
     * outputs exactly as they were checked: each parsed from the text the core checked, so
     * nothing (a getter, a Proxy, a toJSON, a later change) can put another value in their place.
     * An `input_required` answer routes nothing and is `{resultType: "input_required"}`.
     * `options.legacyStructured` names the consumer of a legacy `structuredContent` (LEG-8). */
    route(requestedOutputs, result, options) {
      own(this, ReceivedTool, "ReceivedTool");
      // The requested outputs cross as a tape when they are plain data, else as text (read
      // first, as before: writing the tapes runs no code of the caller's).
      const t = writeTape(result, this._limits, "result", requestedOutputs);
      if (t !== null) {
        // Plain data throughout: each routed output is the caller's own object, as read for the
        // tape, and each payload the route names the caller's own payload.
        const reqText = requestText(t, requestedOutputs, this._limits);
        const rule = legacyRule(options, this._limits);
        const [rw, rn, rb] = requestArgs(t);
        return this._call(() =>
          readAnswer(holding(t, () => this._handle().checkTape(true, reqText, rw, rn, rb, t.words, t.numbers, t.bytes, undefined, 0, undefined, rule)), t),
        );
      }
      // Anything else read once into a snapshot tape (nothing held), checked as its text: the
      // core writes every node of the route as a copy of what it checked (no index node), so
      // nothing (a getter, a Proxy, a toJSON, a later change) can put another value in its place.
      const req = snapshotRequest(requestedOutputs, this._limits);
      const snap = this._result(req.faultText, options, () => snapshotOf(result, "result", this._limits));
      const rule = legacyRule(options, this._limits);
      const [rw, rn, rb] = req.written ?? [0, 0, 0];
      const { words, numbers, bytes, textBytes, loneAt, lone } = snap;
      return this._call(() =>
        readTextAnswer(this._handle().checkTape(true, req.text, rw, rn, rb, words, numbers, bytes, textBytes, loneAt, lone, rule)),
      );
    }
    /** `route` over the wire bytes (JSON text); the route as a plain object. */
    routeText(requestedOutputsText, resultText, options) {
      own(this, ReceivedTool, "ReceivedTool");
      const req = optTextArg(requestedOutputsText, "requestedOutputs", this._limits);
      const text = this._result(req, options, () => textArg(resultText, "result", this._limits));
      const rule = legacyRule(options, this._limits);
      // The core accepted the bytes, so JSON.parse accepts them too; parsed only when needed.
      let outputs;
      return this._call(() =>
        readTextAnswer(this._handle().route(req, text, rule), (i) => (outputs ??= JSON.parse(text).outputs)[i]),
      );
    }
  }

  /** A bare JSON Schema compiled once by the core; `validate` as many instances as needed. */
  class CompiledSchema extends Handle {
    /** The error of the first violation (`schema-violation`, `path` = its JSON Pointer in the
     * instance), or `null` when the instance is valid. Never throws for an instance: one that
     * is not JSON (`malformed`) or is over a limit (`limit-exceeded`) is returned the same way,
     * because an SDK's validator hook reports, it does not throw. */
    validate(instance) {
      own(this, CompiledSchema, "CompiledSchema");
      try {
        const text = serialize(instance, "instance", this._limits);
        this._call(() => this._handle().validate(text));
        return null;
      } catch (e) {
        if (e instanceof McpOutputsError) return e;
        throw e;
      }
    }
  }

  function compileSchemaWith(schema, options) {
    const lib = library(options);
    const schemaText = serialize(schema, "schema", lib.limits);
    const make = () => new engine.raw.RawSchema(schemaText, lib.text);
    const compiled = new CompiledSchema();
    compiled._validator = lib.validator;
    compiled._init(make, call(make, lib.validator));
    compiled._limits = lib.limits;
    return compiled;
  }

  // A hidden hook for the tests of issue 11: from now on, counts what the current instance is
  // given by every method of its handles and every module function (string lengths, byte
  // arrays), and the payload text it asks back (the legacy mirror). Symbol-keyed, like the next.
  Object.defineProperty(Connection, Symbol.for("mcp-outputs.countCrossingForTest"), {
    value: () => {
      const counter = { chars: 0 };
      const count = (args) => {
        for (const a of args) {
          if (typeof a === "string") counter.chars += a.length;
          else if (a instanceof Uint8Array) counter.chars += a.length;
        }
      };
      const wrap = (target, name) => {
        // Methods only (a getter read on a prototype would call into the wasm without a handle).
        const fn = Object.getOwnPropertyDescriptor(target, name)?.value;
        if (typeof fn !== "function" || name === "constructor" || name === "free") return;
        target[name] = function (...args) {
          count(args);
          return fn.apply(this, args);
        };
      };
      const raw = engine.raw;
      for (const key of Object.keys(raw)) {
        const value = raw[key];
        if (typeof value !== "function") continue;
        if (/^Raw/.test(key)) {
          for (const name of Object.getOwnPropertyNames(value.prototype)) wrap(value.prototype, name);
          for (const name of Object.getOwnPropertyNames(value)) if (!["length", "name", "prototype"].includes(name)) wrap(value, name);
        } else if (!["createModule", "initSync", "default", "__wbg_module"].includes(key)) {
          wrap(raw, key);
        }
      }
      const payloadText = host.payloadText;
      host.payloadText = (slot) => {
        const text = payloadText(slot);
        counter.chars += text.length;
        return text;
      };
      return counter;
    },
  });

  // A hidden hook for the tests of R-3: makes the engine trap (a Rust panic) through the same
  // path every call takes. Symbol-keyed: in no export list and no typing.
  Object.defineProperty(Connection, Symbol.for("mcp-outputs.forceTrapForTest"), {
    value: () => call(() => engine.raw.__panicForTest()),
  });
  // And for the tests of the tape: how many results this instance read as tapes of plain data
  // (-1: none can), and as snapshots.
  Object.defineProperty(Connection, Symbol.for("mcp-outputs.tapeReadsForTest"), {
    value: () => (typeof engine.raw.__tapeReadsForTest === "function" ? engine.raw.__tapeReadsForTest() : -1),
  });
  Object.defineProperty(Connection, Symbol.for("mcp-outputs.snapshotReadsForTest"), {
    value: () => (typeof engine.raw.__snapshotReadsForTest === "function" ? engine.raw.__snapshotReadsForTest() : -1),
  });

  return {
    errorCodes: codes,
    protocolVersions: Object.freeze(parse(engine.raw.protocolVersions())),
    coreVersion: engine.raw.coreVersion(),
    Connection,
    ServerTool,
    ReceivedTool,
    declareTool: (tool, options) => ServerTool.declare(tool, options),
    /** Compiles a bare JSON Schema once (the core's rules: 2020-12 default, no external $ref). */
    compileSchema: (schema, options) => compileSchemaWith(schema, options),
    /** Declares every tool of a tools/list; `options.legacyByTool` maps a tool name to its legacy options. */
    declareTools: (tools, options) => {
      const obj = optionsObject(options, ["extensions", "limits", "supportedVersions", "legacyByTool", "validator"]);
      const lib = library(
        obj === null
          ? undefined
          : { extensions: obj.extensions, limits: obj.limits, supportedVersions: obj.supportedVersions, validator: obj.validator },
      );
      const [toolsText, byToolText] = readDeclarations(() => [
        serialize(tools, "tools", lib.limits),
        optValue(obj?.legacyByTool, "legacyByTool", lib.limits),
      ]);
      const raws = call(() => engine.raw.declareTools(toolsText, byToolText, lib.text), lib.validator);
      return raws.map((first, i) => {
        // Rebuilt on a new instance from its own declaration (R-3).
        const make = () => {
          const tool = parse(toolsText)[i];
          const legacy = byToolText === undefined ? undefined : parse(byToolText)[tool.name];
          return new engine.raw.RawServerTool(JSON.stringify(tool), legacy === undefined ? undefined : JSON.stringify(legacy), lib.text);
        };
        const declared = new ServerTool();
        declared._validator = lib.validator;
        return declared._init(make, first);
      });
    },
    acceptTool: (tool, connection) => ReceivedTool.accept(tool, connection),
    /** Reads a whole tools/list result: `{tools: ReceivedTool[], excluded, cache?, nextCursor?, warnings}`.
     * Only a Tool without `outputVariants` under 2026-12-01 throws (the whole response is invalid);
     * any other bad entry is excluded on its own, with its index, name, code, path and message (LIST-3). */
    discoverTools: (result, connection) => {
      const c = connOf(connection);
      const resultText = serialize(result, "result", c._limits);
      const discovered = call(() => new engine.raw.RawDiscovered(resultText, c._handle()), c._validator);
      const connMake = c._make;
      try {
        const accepted = discovered.accepted;
        const tools = discovered.takeTools().map((first, n) => {
          const i = accepted[n];
          const make = () => {
            const temp = connMake();
            try {
              return new engine.raw.RawReceivedTool(JSON.stringify(parse(resultText).tools[i]), temp);
            } finally {
              temp.free();
            }
          };
          const received = new ReceivedTool();
          received._validator = c._validator;
          received._init(make, first);
          received._limits = c._limits;
          return received;
        });
        const { excluded, cache, nextCursor } = parse(discovered.summary);
        return {
          tools,
          excluded,
          ...(cache === undefined ? {} : { cache }),
          ...(nextCursor === undefined ? {} : { nextCursor }),
          warnings: parse(discovered.warnings),
        };
      } finally {
        discovered.free();
      }
    },
    migrateTool: (legacyTool, options, libraryOptions) => {
      const lib = library(libraryOptions);
      const toolText = serialize(legacyTool, "legacyTool", lib.limits);
      const optionsText = optValue(options, "options", lib.limits);
      return parse(call(() => engine.raw.migrateTool(toolText, optionsText, lib.text), lib.validator));
    },
    /** Runs one operation of the conformance contract; `options.validator` as everywhere. */
    runOperation: (op, input, options) => {
      if (typeof op !== "string") throw malformed("op must be a string");
      const validator = providerOption(optionsObject(options, ["validator"])?.validator);
      // The input wraps the op's arguments: the core checks each argument's limits, with the
      // JSON-RPC code of the op's side, so the envelope is only held to the ceiling depth.
      const wrapper = { ...defaultLimits, maxDepth: MAX_DEPTH_CEILING, maxBytes: Infinity };
      const inputText = serialize(input, "input", wrapper);
      return parse(call(() => engine.raw.runOperation(op, inputText), validator));
    },
    /**
     * A `jsonSchemaValidator` for the TS SDKs (`new Client(info, { jsonSchemaValidator })`): each
     * schema compiled once by the package (same dialect rules and limits), validated many times;
     * `errorMessage` names the JSON Pointer of the first violation. In the full build the
     * validation runs inside the wasm (no code generation: fit for a strict CSP); in the default
     * build it is the validator this package was given.
     */
    jsonSchemaValidator: (options = {}) => {
      const cache = new WeakMap();
      return {
        getValidator(schema) {
          let compiled = schema !== null && typeof schema === "object" ? cache.get(schema) : undefined;
          if (!compiled) {
            compiled = compileSchemaWith(schema, options);
            if (schema !== null && typeof schema === "object") cache.set(schema, compiled);
          }
          return (input) => {
            const error = compiled.validate(input);
            if (error === null) return { valid: true, data: input, errorMessage: undefined };
            return { valid: false, data: undefined, errorMessage: `${error.path || "/"}: ${error.message}` };
          };
        },
      };
    },
    /** Whether this build validates inside the wasm (`mcp-outputs/full`) rather than with the
     * caller's validator (the default build). */
    hasValidator,
    /** The validator of every object made without `options.validator` (default build only). */
    setValidator: (provider) => {
      if (provider !== null) {
        const checked = providerOption(provider);
        if (checked === null) throw malformed("setValidator needs a validator (or null to clear it)");
      }
      defaultProvider = provider;
    },
    contractOperations: () => parse(engine.raw.contractOperations()),
    /** Bytes of linear memory the current wasm instance holds. */
    wasmMemoryBytes: () => engine.memory.buffer.byteLength,
  };
}

