// Prints `schema suite: <flavour> N passed, M failed` for each flavour's results (node
// compare.mjs <results dir> [flavour…]) and holds them to expected-differences.json, exactly:
// a test that fails without being listed (a regression) fails the run, and so does a listed
// test that now passes (the list must be brought up to date, and the docs with it).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const expected = JSON.parse(readFileSync(join(HERE, "expected-differences.json"), "utf8"));
const [resultsDir, ...wanted] = process.argv.slice(2);
const flavours = wanted.length ? wanted : Object.keys(expected.flavours);

let problems = 0;
const complain = (line) => {
  problems++;
  console.error(line);
};
for (const flavour of flavours) {
  const { runnable, failures } = JSON.parse(readFileSync(join(resultsDir, `${flavour}.json`), "utf8"));
  const failed = Object.keys(failures).length;
  console.log(`schema suite: ${flavour} ${runnable - failed} passed, ${failed} failed`);
  if (runnable !== expected.runnable) complain(`  ${flavour}: ${runnable} runnable tests, expected ${expected.runnable}`);
  const listed = new Map();
  for (const [reason, ids] of Object.entries(expected.flavours[flavour] ?? {})) for (const id of ids) listed.set(id, reason);
  for (const [id, what] of Object.entries(failures)) {
    if (!listed.has(id)) complain(`  ${flavour}: unexpected failure: ${id}: ${what}`);
  }
  for (const [id, reason] of listed) {
    if (!(id in failures)) complain(`  ${flavour}: now passes, remove it from expected-differences.json (${reason}): ${id}`);
  }
}
if (problems) {
  console.error(`schema suite: ${problems} difference(s) from tests/schema-suite/expected-differences.json`);
  process.exit(1);
}
