// Runs the draft 2020-12 suite through the npm package's flavours (node run.mjs <suite dir>
// <out dir> [flavour…]): `full` (jsonschema inside the wasm), `ajv` and `cfworker` (the default
// entry with the adapters of mcp-outputs/validators). Each test goes the way a declared schema
// goes: compileSchema (the core reads the schema: dialect, meta-schema, `$ref`s), then validate.
// Writes <out dir>/<flavour>.json: {runnable, failures: {id: what happened}}, and
// <out dir>/runnable-groups.json for run.py.
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadSuite } from "./suite.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const NPM = join(ROOT, "bindings-js/npm");
// Ajv and cfworker are the caller's dependencies: here, bindings-js's dev dependencies.
const requireDev = createRequire(join(ROOT, "bindings-js/package.json"));
const load = (specifier) => import(pathToFileURL(requireDev.resolve(specifier)).href);

const [suiteDir, outDir, ...wanted] = process.argv.slice(2);
const flavours = wanted.length ? wanted : ["full", "ajv", "cfworker"];

async function entry(flavour) {
  if (flavour === "full") return { ...(await import(pathToFileURL(join(NPM, "full-node.js")).href)), options: undefined };
  const mcp = await import(pathToFileURL(join(NPM, "node.js")).href);
  const adapters = await import(pathToFileURL(join(NPM, "validators.js")).href);
  let validator;
  if (flavour === "ajv") validator = adapters.fromAjv((await load("ajv/dist/2020.js")).default);
  else if (flavour === "cfworker") validator = adapters.fromCfworker((await load("@cfworker/json-schema")).Validator);
  else throw new Error(`unknown flavour ${flavour}`);
  return { ...mcp, options: { validator } };
}

/** "valid", "invalid" (schema-violation), or what else happened (an error code and message). */
function verdict(e) {
  if (e === null) return "valid";
  if (e.code === "schema-violation") return "invalid";
  return `${e.code}: ${e.message}`;
}

mkdirSync(outDir, { recursive: true });
const groups = loadSuite(suiteDir);
// The runnable groups, for run.py.
writeFileSync(join(outDir, "runnable-groups.json"), JSON.stringify(groups.filter((g) => g.runnable).map((g) => `${g.file} / ${g.group}`), null, 1) + "\n");
for (const flavour of flavours) {
  const { compileSchema, options } = await entry(flavour);
  const failures = {};
  let runnable = 0;
  for (const group of groups) {
    if (!group.runnable) continue;
    runnable += group.tests.length;
    let compiled;
    try {
      compiled = compileSchema(group.schema, options);
    } catch (e) {
      for (const t of group.tests) failures[t.id] = `schema refused: ${e.code ?? "thrown"}: ${e.message}`;
      continue;
    }
    for (const t of group.tests) {
      let got;
      try {
        got = verdict(compiled.validate(t.data));
      } catch (e) {
        got = `threw: ${e.code ?? ""} ${e.message}`;
      }
      const want = t.valid ? "valid" : "invalid";
      if (got !== want) failures[t.id] = `expected ${want}, got ${got}`;
    }
    compiled.free();
  }
  writeFileSync(join(outDir, `${flavour}.json`), JSON.stringify({ runnable, failures }, null, 1) + "\n");
}
