// A minimal runner of the conformance cases, the way an implementation in any language would
// write one (GUIDE.md): load the manifest, run each case's op through an adapter over the
// implementation's own API, compare, and tally by severity.
//
//   node examples/runner.mjs <adapter module> [kit folder]
//
// The adapter module exports `run(op, input)`, returning `{ ok: <value> }` or
// `{ error: { code, jsonrpc? } }`. A `must` case that fails is a failure; a `should` case that
// fails is a warning; a `decision` case that fails is reported. Exit code 1 on any failure.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [adapterPath, kitArg] = process.argv.slice(2);
if (!adapterPath) {
  console.error("usage: node examples/runner.mjs <adapter module> [kit folder]");
  process.exit(2);
}
const kit = kitArg ?? join(dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(join(kit, "manifest.json"), "utf8"));
const { run } = await import(pathToFileURL(resolve(adapterPath)).href);

// JSON equality: key order ignored, numbers by value, the op's set paths as sets.
export function same(expected, got, path, sets) {
  if (typeof expected === "number" || typeof got === "number") return expected === got;
  if (Array.isArray(expected) && Array.isArray(got)) {
    if (sets.includes(path)) {
      const has = (list, item) => list.some((x) => same(item, x, "", []));
      return expected.every((x) => has(got, x)) && got.every((x) => has(expected, x));
    }
    return expected.length === got.length && expected.every((x, i) => same(x, got[i], `${path}/${i}`, sets));
  }
  if (expected && got && typeof expected === "object" && typeof got === "object" && !Array.isArray(expected) && !Array.isArray(got)) {
    const keys = Object.keys(expected);
    return keys.length === Object.keys(got).length && keys.every((k) => k in got && same(expected[k], got[k], `${path}/${k}`, sets));
  }
  return expected === got;
}

const files = new Map();
const tally = { must: [0, 0], should: [0, 0], decision: [0, 0] };
const failures = [];
for (const entry of manifest.cases) {
  if (!files.has(entry.file)) {
    const parsed = JSON.parse(readFileSync(join(kit, entry.file), "utf8"));
    files.set(entry.file, new Map((Array.isArray(parsed) ? parsed : [parsed]).map((c) => [c.id, c])));
  }
  const c = files.get(entry.file).get(entry.id);
  const got = await run(c.op, c.input);
  let passed;
  if ("ok" in c.expect) {
    passed = "ok" in got && same(c.expect.ok, got.ok, "", manifest.operations[c.op].setPaths);
  } else {
    passed =
      "error" in got &&
      got.error.code === c.expect.error.code &&
      (c.expect.error.jsonrpc === undefined || got.error.jsonrpc === c.expect.error.jsonrpc);
  }
  tally[entry.severity][passed ? 0 : 1]++;
  if (!passed) failures.push(`${entry.severity.toUpperCase()} ${c.id} (${entry.file}): expected ${JSON.stringify(c.expect).slice(0, 200)}, got ${JSON.stringify(got).slice(0, 200)}`);
}
for (const line of failures) console.log(line);
for (const [severity, [passed, failed]] of Object.entries(tally)) {
  console.log(`${severity}: ${passed} passed, ${failed} failed`);
}
const total = tally.must[0] + tally.should[0] + tally.decision[0];
const failed = tally.must[1] + tally.should[1] + tally.decision[1];
console.log(`conformance kit runner: ${total} passed, ${failed} failed`);
process.exit(tally.must[1] > 0 ? 1 : 0);
