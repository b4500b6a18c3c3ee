// Issue 21, item 3, measured: how the core should read a JavaScript envelope. For the bench
// payloads (fixtures.mjs: records and many-leaf records, 0.5/4/64 KB), the cost of the core
// reading the envelope `{outputs: [{audience, format, structuredContent}], resultType}` and
// walking every payload node once (the limits walk of core/src/limits.rs), by:
//   (A) js-sys: the wasm walks the caller's JsValues itself (src/lib.rs `walk_js`), every node
//       (by Reflect::get, or by descriptor as the payload guarantee reads), or the envelope
//       only with the payload measured in JS (the default build's option, issue 21 item 5);
//   (B) tape: one JS pass writes the envelope into wasm memory (Int32 words, Float64 numbers,
//       UTF-8 bytes), the payload either held (a slot, and the cost the same pass measured) or
//       written node by node (string lengths only, or with their text); the wasm walks it;
//   (C) today's baseline: JSON.stringify, the text into wasm, serde_json::Value, a walk;
//   (D) the floor: JSON.parse of the same text and a plain JS walk; Ajv on the payload alone.
// Every variant runs once per round, rounds interleaved; the figure is the median of the
// rounds (each round's figure the best of 3 timed batches of ~PROTO_MS ms, as bench.mjs);
// ns/node divides by every node of the envelope (payload included), whatever the variant reads.
// Usage: run.sh (builds, then `node bench.mjs <pkg dir>`); PROTO_ROUNDS, PROTO_MS, PROTO_ONLY
// (comma-separated substrings of the variant names) tune it.
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { types } from "node:util";
import Ajv from "../../node_modules/ajv/dist/2020.js";
import { LEAF_RESULT_SCHEMA, RESULT_SCHEMA, leafPayload, payload } from "../fixtures.mjs";

const require = createRequire(import.meta.url);
const pkg = resolve(process.argv[2] ?? new URL("./pkg-3", import.meta.url).pathname);
const wasm = require(`${pkg}/reader_proto.js`);

const ROUNDS = Number(process.env.PROTO_ROUNDS ?? 7);
const MS = Number(process.env.PROTO_MS ?? 30);
const ONLY = process.env.PROTO_ONLY?.split(",");

// ---- JS walks ---------------------------------------------------------------------------------

const ownData = Object.getOwnPropertyDescriptor;
const isProxy = types.isProxy;
let nodes = 0;

/** The limits walk over a JS value by plain reads (`v[k]`): the core's costs, -1 over a limit. */
function plainWalk(v, depth) {
  nodes++;
  switch (typeof v) {
    case "string":
      return v.length + 2;
    case "number":
    case "boolean":
      return 8;
    case "object": {
      if (v === null) return 8;
      if (depth > 128) return -1;
      let cost;
      if (Array.isArray(v)) {
        const n = v.length;
        cost = n + 2;
        for (let i = 0; i < n; i++) {
          const c = plainWalk(v[i], depth + 1);
          if (c < 0) return -1;
          cost += c;
        }
      } else {
        const keys = Object.keys(v);
        const n = keys.length;
        cost = n * 4 + 2;
        for (let i = 0; i < n; i++) {
          const key = keys[i];
          const c = plainWalk(v[key], depth + 1);
          if (c < 0) return -1;
          cost += key.length + c;
        }
      }
      return cost;
    }
    default:
      return -1;
  }
}

/** The payload guarantee's read (npm/api.js `measure`): no Proxy, plain prototypes, own data
 * properties only, each read by descriptor; the core's costs, -1 when not plain data. */
function descMeasure(v, depth) {
  nodes++;
  switch (typeof v) {
    case "string":
      return v.length + 2;
    case "number":
      return Number.isFinite(v) ? 8 : -1;
    case "boolean":
      return 8;
    case "object": {
      if (v === null) return 8;
      if (depth > 128 || isProxy(v)) return -1;
      let cost;
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== Array.prototype) return -1;
        const n = v.length;
        cost = n + 2;
        for (let i = 0; i < n; i++) {
          const own = ownData(v, i);
          if (own === undefined || own.writable === undefined) return -1;
          const c = descMeasure(own.value, depth + 1);
          if (c < 0) return -1;
          cost += c;
        }
      } else {
        const proto = Object.getPrototypeOf(v);
        if ((proto !== Object.prototype && proto !== null) || typeof v.toJSON === "function") return -1;
        const keys = Object.keys(v);
        const n = keys.length;
        cost = n * 4 + 2;
        for (let i = 0; i < n; i++) {
          const key = keys[i];
          const own = ownData(v, key);
          if (own === undefined || own.writable === undefined) return -1;
          const c = descMeasure(own.value, depth + 1);
          if (c < 0) return -1;
          cost += key.length + c;
        }
      }
      return cost;
    }
    default:
      return -1;
  }
}

/** `descMeasure` without the isProxy call (to see what it costs; not a guarantee). */
function descMeasureNoProxy(v, depth) {
  nodes++;
  switch (typeof v) {
    case "string":
      return v.length + 2;
    case "number":
      return Number.isFinite(v) ? 8 : -1;
    case "boolean":
      return 8;
    case "object": {
      if (v === null) return 8;
      if (depth > 128) return -1;
      let cost;
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== Array.prototype) return -1;
        const n = v.length;
        cost = n + 2;
        for (let i = 0; i < n; i++) {
          const own = ownData(v, i);
          if (own === undefined || own.writable === undefined) return -1;
          const c = descMeasureNoProxy(own.value, depth + 1);
          if (c < 0) return -1;
          cost += c;
        }
      } else {
        const proto = Object.getPrototypeOf(v);
        if ((proto !== Object.prototype && proto !== null) || typeof v.toJSON === "function") return -1;
        const keys = Object.keys(v);
        const n = keys.length;
        cost = n * 4 + 2;
        for (let i = 0; i < n; i++) {
          const key = keys[i];
          const own = ownData(v, key);
          if (own === undefined || own.writable === undefined) return -1;
          const c = descMeasureNoProxy(own.value, depth + 1);
          if (c < 0) return -1;
          cost += key.length + c;
        }
      }
      return cost;
    }
    default:
      return -1;
  }
}

/** `descMeasure` reading each object's descriptors at once (Object.getOwnPropertyDescriptors). */
function descsMeasure(v, depth) {
  nodes++;
  switch (typeof v) {
    case "string":
      return v.length + 2;
    case "number":
      return Number.isFinite(v) ? 8 : -1;
    case "boolean":
      return 8;
    case "object": {
      if (v === null) return 8;
      if (depth > 128 || isProxy(v)) return -1;
      let cost;
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== Array.prototype) return -1;
        const n = v.length;
        cost = n + 2;
        for (let i = 0; i < n; i++) {
          const own = ownData(v, i);
          if (own === undefined || own.writable === undefined) return -1;
          const c = descsMeasure(own.value, depth + 1);
          if (c < 0) return -1;
          cost += c;
        }
      } else {
        const proto = Object.getPrototypeOf(v);
        if ((proto !== Object.prototype && proto !== null) || typeof v.toJSON === "function") return -1;
        const all = Object.getOwnPropertyDescriptors(v);
        const keys = Object.keys(v);
        const n = keys.length;
        cost = n * 4 + 2;
        for (let i = 0; i < n; i++) {
          const key = keys[i];
          const own = all[key];
          if (own.writable === undefined) return -1;
          const c = descsMeasure(own.value, depth + 1);
          if (c < 0) return -1;
          cost += key.length + c;
        }
      }
      return cost;
    }
    default:
      return -1;
  }
}

// ---- (B) the tape writer ------------------------------------------------------------------------

const [wPtr, wLen, nPtr, nLen, bPtr, bLen] = wasm.tape_areas();
const memory = wasm.wasm_memory();
let W, F, B;
const views = () => {
  if (W === undefined || W.buffer !== memory.buffer) {
    W = new Int32Array(memory.buffer, wPtr, wLen);
    F = new Float64Array(memory.buffer, nPtr, nLen);
    B = new Uint8Array(memory.buffer, bPtr, bLen);
  }
};
const NULL = 0, FALSE = 1, TRUE = 2, NUMBER = 3, STRING = 4, ARRAY = 5, OBJECT = 6, HELD = 7, NAME = 8, TEXT = 9;
const NAMES = new Map([
  ["outputs", 0],
  ["audience", 1],
  ["format", 2],
  ["structuredContent", 3],
]);
const encoder = new TextEncoder();
let at = 0, num = 0, byte = 0;
let held = [];

class NotPlain extends Error {}
const notPlain = new NotPlain();

/** A string as TEXT: ASCII copied by a loop (short strings), else TextEncoder.encodeInto. */
function writeText(s) {
  W[at++] = TEXT;
  const n = s.length;
  if (n < 64) {
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      B[byte + i] = c;
    }
    if (i === n) {
      W[at++] = n;
      byte += n;
      return;
    }
  }
  const { written } = encoder.encodeInto(s, B.subarray(byte));
  W[at++] = written;
  byte += written;
}

/**
 * Writes `v` (at `depth`, `level`: 0 the envelope, 1 its outputs array, 2 an output, 3 inside
 * a payload or another member). `mode`: "held" (a payload is measured here and written as a
 * slot and its cost), "len" (payload strings as lengths), "text" (with their UTF-8 bytes);
 * `desc`: members read by descriptor (the payload guarantee), else by `v[k]`.
 */
function writeValue(v, depth, level, mode, desc) {
  switch (typeof v) {
    case "string":
      if (level < 3 || mode === "text") writeText(v);
      else {
        W[at++] = STRING;
        W[at++] = v.length;
      }
      return;
    case "number":
      if (!Number.isFinite(v)) throw notPlain;
      W[at++] = NUMBER;
      F[num++] = v;
      return;
    case "boolean":
      W[at++] = v ? TRUE : FALSE;
      return;
    case "object": {
      if (v === null) {
        W[at++] = NULL;
        return;
      }
      if (depth > 128) throw notPlain;
      if (desc && isProxy(v)) throw notPlain;
      const inner = level === 0 ? 1 : level === 1 ? 2 : 3;
      if (Array.isArray(v)) {
        if (desc && Object.getPrototypeOf(v) !== Array.prototype) throw notPlain;
        const n = v.length;
        W[at++] = ARRAY;
        W[at++] = n;
        for (let i = 0; i < n; i++) {
          let item;
          if (desc) {
            const own = ownData(v, i);
            if (own === undefined || own.writable === undefined) throw notPlain;
            item = own.value;
          } else item = v[i];
          writeValue(item, depth + 1, inner, mode, desc);
        }
      } else {
        if (desc) {
          const proto = Object.getPrototypeOf(v);
          if ((proto !== Object.prototype && proto !== null) || typeof v.toJSON === "function") throw notPlain;
        }
        const keys = Object.keys(v);
        const n = keys.length;
        W[at++] = OBJECT;
        W[at++] = n;
        for (let i = 0; i < n; i++) {
          const key = keys[i];
          let item;
          if (desc) {
            const own = ownData(v, key);
            if (own === undefined || own.writable === undefined) throw notPlain;
            item = own.value;
          } else item = v[key];
          const id = level < 3 ? NAMES.get(key) : undefined;
          if (id !== undefined) {
            W[at++] = NAME;
            W[at++] = id;
            W[at++] = key.length;
          } else if (level < 3 || mode === "text") writeText(key);
          else {
            W[at++] = STRING;
            W[at++] = key.length;
          }
          if (id === 3 && level === 2 && (mode === "held" || mode === "ref")) {
            const cost = mode === "ref" ? 0 : descMeasure(item, depth + 1);
            if (cost < 0) throw notPlain;
            W[at++] = HELD;
            W[at++] = held.length;
            W[at++] = cost;
            held.push(item);
          } else writeValue(item, depth + 1, id === 0 ? 1 : inner, mode, desc);
        }
      }
      return;
    }
    default:
      throw notPlain;
  }
}

/** One JS pass writing `root`'s tape; false when it is not plain data (the caller would then
 * take the snapshot path). The held payloads are in `held` afterwards. */
function writeTape(root, mode, desc) {
  views();
  at = 0;
  num = 0;
  byte = 0;
  held = [];
  try {
    writeValue(root, 1, 0, mode, desc);
    return true;
  } catch (e) {
    if (e === notPlain) return false;
    throw e;
  }
}

// ---- timing -------------------------------------------------------------------------------------

/** Nanoseconds per call of `fn`: the best of 3 timed batches of ~MS ms. */
function perCall(fn) {
  let n = 1;
  for (;;) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    if (Number(process.hrtime.bigint() - t) / 1e6 > MS / 4) break;
    n *= 2;
  }
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t) / n);
  }
  return best;
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// ---- the cases ----------------------------------------------------------------------------------

const ajv = new Ajv({ validateFormats: false, strict: false, allErrors: false });
const shapes = [
  { prefix: "", make: payload, validate: ajv.compile(RESULT_SCHEMA) },
  { prefix: "leaves-", make: leafPayload, validate: ajv.compile(LEAF_RESULT_SCHEMA) },
];
const SIZES = [
  ["0.5KB", 512],
  ["4KB", 4096],
  ["64KB", 65536],
];

/** The variants of one envelope: name, what one call does, and the node count it reports
 * (the guard: every reader must have read the same nodes). */
function variants(env, text, validate) {
  const pl = env.outputs[0].structuredContent;
  const measured = () => {
    nodes = 0;
    const cost = descMeasure(pl, 4);
    return { cost, nodes };
  };
  return [
    ["ajv payload", () => validate(pl), null],
    ["js-sys all get", () => wasm.walk_js(env, true, false, 0)],
    ["js-sys all desc", () => wasm.walk_js(env, true, true, 0)],
    ["js-sys env only (desc), payload not read", () => wasm.walk_js(env, false, true, 0)],
    ["js-sys env only (get), payload not read", () => wasm.walk_js(env, false, false, 0)],
    ["tape env only (desc), payload not read", () => (writeTape(env, "ref", true), wasm.walk_tape())],
    [
      "js-sys env + JS measure",
      () => {
        const m = measured();
        return wasm.walk_js(env, false, true, m.cost) + m.nodes;
      },
    ],
    [
      "tape held",
      () => {
        nodes = 0;
        writeTape(env, "held", true);
        return wasm.walk_tape() + nodes - 1;
      },
    ],
    ["tape all len desc", () => (writeTape(env, "len", true), wasm.walk_tape())],
    ["tape all len get", () => (writeTape(env, "len", false), wasm.walk_tape())],
    ["tape all text desc", () => (writeTape(env, "text", true), wasm.walk_tape())],
    ["tape write only (len desc)", () => (writeTape(env, "len", true), at)],
    ["tape walk only (len)", () => wasm.walk_tape(), null, () => writeTape(env, "len", true)],
    ["text serde (C)", () => wasm.walk_text(JSON.stringify(env))],
    ["text serde, walk_text only", () => wasm.walk_text(text)],
    ["JSON.parse+walk (D)", () => ((nodes = 0), plainWalk(JSON.parse(text), 1), nodes)],
    ["JS walk get", () => ((nodes = 0), plainWalk(env, 1), nodes)],
    ["JS measure desc (payload)", () => measured().nodes],
    ["JS measure desc, no isProxy (payload)", () => ((nodes = 0), descMeasureNoProxy(pl, 4), nodes)],
    ["JS measure descriptors-at-once (payload)", () => ((nodes = 0), descsMeasure(pl, 4), nodes)],
    ["JS walk get (payload)", () => ((nodes = 0), plainWalk(pl, 4), nodes)],
  ].filter(([name]) => ONLY === undefined || name === "ajv payload" || ONLY.some((o) => name.includes(o)));
}

console.log(`reader-proto: ${pkg.split("/").pop()}, node ${process.version}, ${ROUNDS} rounds, ${MS} ms batches`);
for (const { prefix, make, validate } of shapes) {
  for (const [label, bytes] of SIZES) {
    const env = make(bytes, true);
    const text = JSON.stringify(env);
    const vs = variants(env, text, validate);
    // The guard: every reader read every node (C counts them all).
    const all = wasm.walk_text(text);
    for (const [name, fn, guard, setup] of vs) {
      if (guard === null || name.includes("only") || name.includes("JS ")) continue;
      setup?.();
      const got = fn();
      if (got !== all) throw new Error(`${name} ${prefix}${label}: read ${got} nodes, the text walk ${all}`);
    }
    const times = vs.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      vs.forEach(([, fn, , setup], i) => {
        setup?.();
        times[i].push(perCall(fn));
      });
    }
    console.log(`-- ${prefix}${label}: ${text.length} bytes of text, ${all} nodes`);
    vs.forEach(([name], i) => {
      // The ratio to Ajv is the median of each round's ratio (both sides timed in that round,
      // so load that shifts between rounds hits both); the best round is printed beside it.
      const ns = median(times[i]);
      const ratio = median(times[i].map((t, r) => t / times[0][r]));
      const best = Math.min(...times[i]);
      console.log(
        `proto ${name} ${prefix}${label}: ${(ns / 1000).toFixed(1)} µs` +
          ` (${ratio.toFixed(2)}x Ajv; ${(ns / all).toFixed(1)} ns/node; best round ${(best / 1000).toFixed(1)} µs, ${(best / all).toFixed(1)} ns/node)`,
      );
    });
  }
}
