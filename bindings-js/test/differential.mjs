// The JS driver of the differential test (tests/conformance/src/bin/differential.rs): runs every
// generated case (one JSON line each, its `expect` being the Rust core's answer) through the
// package exactly as the corpus runner does (`runCase`: the object and the JSON-text paths), checks
// it with the runner's own comparison (`judge`), and writes one outcome line per case:
// `{"id", "lang": "js", "outcomes": [{"label", "ok"} | {"label", "error": {"code", "jsonrpc"?}}],
// "runner": null | "<the runner's difference>"}`. An exception that is not an McpOutputsError is
// an outcome too (code `untyped: …`), so it shows up as a mismatch instead of stopping the run.
// Usage: node test/differential.mjs <cases.jsonl> <outcomes.jsonl>
import { createReadStream, createWriteStream } from "node:fs";
import { createInterface } from "node:readline";
import { runCase, judge } from "./corpus.mjs";

const [casesPath, outPath] = process.argv.slice(2);
if (!casesPath || !outPath) {
  console.error("usage: node test/differential.mjs <cases.jsonl> <outcomes.jsonl>");
  process.exit(2);
}

const out = createWriteStream(outPath);
const write = (line) => (out.write(line + "\n") ? Promise.resolve() : new Promise((r) => out.once("drain", r)));

let count = 0;
for await (const line of createInterface({ input: createReadStream(casesPath), crlfDelay: Infinity })) {
  if (!line) continue;
  const c = JSON.parse(line);
  let outcomes;
  let runner = null;
  try {
    outcomes = runCase(c);
    runner = judge(c, outcomes);
  } catch (e) {
    outcomes = [{ label: "runCase", error: { code: `untyped: ${e && e.name}: ${e && e.message}` } }];
    runner = `threw ${e && e.stack}`;
  }
  const plain = outcomes.map(({ label, ok, error }) =>
    error === undefined
      ? { label, ok }
      : { label, error: error.jsonrpcCode == null ? { code: error.code } : { code: error.code, jsonrpc: error.jsonrpcCode } },
  );
  await write(JSON.stringify({ id: c.id, lang: "js", outcomes: plain, runner }));
  count++;
}
await new Promise((resolve) => out.end(resolve));
console.log(`differential js: ${count} cases run`);
