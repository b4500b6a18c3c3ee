// Why this file exists (issue 21, item 6): the peer of the P-JS-6 bench. It is the host handler
// an SDK maintainer would write for one tool instead of using this package, kept small on
// purpose because it is the baseline a user would compare the package with. It checks that the
// outputs answer the requested selectors exactly (none missing, none extra, none twice), that
// content blocks are objects with a string `type` and text blocks carry a string `text`,
// validates each structured payload with Ajv (compiled once, here, outside any timed loop), and
// routes by audience. No limits, no `_meta` rules, no legacy fields: it does less than the
// package, and the bench checks it against the package before timing it (bench.mjs, P-JS-6).
// `guarded` adds the payload guarantee the package gives (P-JS-6g; `assertPlain` below).

import { types } from "node:util";

/** A handler for `tool`'s results; `ajv` compiles each structured variant's schema once. The
 * handler returns `{ model, user, programmatic }` (the outputs as received) or throws. With
 * `guarded`, each payload must be plain data before it is validated (`assertPlain`). */
export function plainHandler(tool, ajv, { guarded = false } = {}) {
  const validators = new Map();
  for (const v of tool.outputVariants) if (v.format === "structured") validators.set(v.audience, ajv.compile(v.schema));
  const key = (s) => `${s.audience}\u0000${s.format}`;
  const lists = { assistant: "model", user: "user", programmatic: "programmatic" };
  return (requested, result) => {
    const outputs = result?.outputs;
    if (!Array.isArray(outputs)) throw new Error("outputs: not an array");
    const wanted = new Set(requested.map(key));
    const seen = new Set();
    const route = { model: [], user: [], programmatic: [] };
    for (const out of outputs) {
      if (typeof out !== "object" || out === null) throw new Error("output: not an object");
      if (typeof out.format !== "string" || !Object.hasOwn(lists, out.audience)) throw new Error("output: unknown audience or no format");
      const k = key(out);
      if (!wanted.has(k)) throw new Error(`output ${out.audience}/${out.format}: not requested`);
      if (seen.has(k)) throw new Error(`output ${out.audience}/${out.format}: twice`);
      seen.add(k);
      if (out.format === "content") {
        if (!Array.isArray(out.content)) throw new Error("content: not an array");
        for (const b of out.content) {
          if (typeof b !== "object" || b === null || typeof b.type !== "string") throw new Error("content block: no type");
          if (b.type === "text" && typeof b.text !== "string") throw new Error("text block: no text");
        }
      } else {
        const validate = validators.get(out.audience);
        if (out.format !== "structured" || validate === undefined) throw new Error(`output ${out.audience}/${out.format}: not declared`);
        if (guarded) assertPlain(out.structuredContent);
        if (!validate(out.structuredContent)) throw new Error(`structuredContent: ${ajv.errorsText(validate.errors)}`);
      }
      route[lists[out.audience]].push(out);
    }
    if (seen.size !== wanted.size) throw new Error("outputs: a requested output is missing");
    return route;
  };
}

// The payload guarantee of the package (docs/boundary.md: a route hands back only what was
// checked) costs a walk of its own in JavaScript. The guarded handler (the P-JS-6g bench) is the
// plain one plus the least a maintainer would write for the same guarantee: refuse a payload
// that is not plain data (a Proxy, an accessor, a `toJSON`, another prototype, an array hole),
// so that what Ajv read is what the caller gets back. It refuses where the package snapshots:
// cheaper, so never in the package's favour. No limits, no string checks.
const { isProxy } = types;
const lookupGetter = Object.prototype.__lookupGetter__;

/** Throws unless `root` is plain JSON data, as `JSON.parse` makes it. Only containers are
 * stacked: a leaf is done where it is read. */
export function assertPlain(root) {
  if (typeof root !== "object" || root === null) return;
  const stack = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (isProxy(v)) throw new Error("payload: a Proxy");
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype) throw new Error("payload: not a plain array");
      for (let i = 0; i < v.length; i++) {
        if (!Object.hasOwn(v, i) || lookupGetter.call(v, i) !== undefined) throw new Error("payload: a hole or an accessor");
        const item = v[i];
        if (typeof item === "object" && item !== null) stack.push(item);
      }
    } else {
      const proto = Object.getPrototypeOf(v);
      if ((proto !== Object.prototype && proto !== null) || typeof v.toJSON === "function") throw new Error("payload: not a plain object");
      const keys = Object.keys(v);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        if (lookupGetter.call(v, key) !== undefined) throw new Error("payload: an accessor");
        const item = v[key];
        if (typeof item === "object" && item !== null) stack.push(item);
      }
    }
  }
}
