// The JSON-Schema-Test-Suite (draft 2020-12) as the runners read it: every test of every file
// in SUITE_DIR (not optional/), each with an id "<file> / <group> / <test>", and whether it is
// runnable. A group is not runnable when its schema needs a document of the suite's remotes
// (json/remotes/, served at http://localhost:1234/): nothing is ever fetched, so the package
// refuses such a schema (`external-ref`) by design, in every flavour.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const REMOTE = "http://localhost:1234/";

/** Every `$id` of `schema` and every `$ref` / `$dynamicRef` / `$schema` target (no fragment),
 * resolved against the base URI in force where it appears. */
function uris(schema, base, ids, targets) {
  if (Array.isArray(schema)) {
    for (const item of schema) uris(item, base, ids, targets);
    return;
  }
  if (schema === null || typeof schema !== "object") return;
  if (typeof schema.$id === "string") {
    base = new URL(schema.$id, base).href.replace(/#.*$/, "");
    ids.add(base);
  }
  for (const keyword of ["$ref", "$dynamicRef", "$schema"]) {
    if (typeof schema[keyword] === "string") targets.add(new URL(schema[keyword], base).href.replace(/#.*$/, ""));
  }
  for (const [key, value] of Object.entries(schema)) {
    // `const`, `enum`, `default` and `examples` hold data, not schemas.
    if (!["const", "enum", "default", "examples"].includes(key)) uris(value, base, ids, targets);
  }
}

/** Whether `schema` needs one of the suite's remote documents. */
export function needsRemote(schema) {
  const ids = new Set();
  const targets = new Set();
  uris(schema, "urn:mcp-outputs:suite-root", ids, targets);
  return [...targets].some((t) => t.startsWith(REMOTE) && !ids.has(t));
}

/** [{file, group, schema, tests: [{id, data, valid}], runnable}] of `dir`, in file order. */
export function loadSuite(dir) {
  const groups = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
    for (const group of JSON.parse(readFileSync(join(dir, file), "utf8"))) {
      groups.push({
        file,
        group: group.description,
        schema: group.schema,
        runnable: !needsRemote(group.schema),
        tests: group.tests.map((t) => ({ id: `${file} / ${group.description} / ${t.description}`, data: t.data, valid: t.valid })),
      });
    }
  }
  return groups;
}
