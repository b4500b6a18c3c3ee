// Why this file exists (issue 21, item 6): the peer of the P-JS-6 bench. It is the host handler
// an SDK maintainer would write for one tool instead of using this package, kept small on
// purpose because it is the baseline a user would compare the package with. It checks that the
// outputs answer the requested selectors exactly (none missing, none extra, none twice), that
// content blocks are objects with a string `type` and text blocks carry a string `text`,
// validates each structured payload with Ajv (compiled once, here, outside any timed loop), and
// routes by audience. No limits, no `_meta` rules, no legacy fields: it does less than the
// package, and the bench checks it against the package before timing it (bench.mjs, P-JS-6).

/** A handler for `tool`'s results; `ajv` compiles each structured variant's schema once. The
 * handler returns `{ model, user, programmatic }` (the outputs as received) or throws. */
export function plainHandler(tool, ajv) {
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
        if (!validate(out.structuredContent)) throw new Error(`structuredContent: ${ajv.errorsText(validate.errors)}`);
      }
      route[lists[out.audience]].push(out);
    }
    if (seen.size !== wanted.size) throw new Error("outputs: a requested output is missing");
    return route;
  };
}
