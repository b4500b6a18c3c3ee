// The data package checks itself: it holds every case of tests/corpus, its manifest covers
// each one with the right severity, its schema accepts every case file and refuses broken ones,
// the packed tarball holds exactly the data, and the README's commands run as written in a
// fresh project (the two packed tarballs installed in place of the registry).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "../tools/build.mjs";

const kitDir = dirname(dirname(fileURLToPath(import.meta.url)));
const root = join(kitDir, "..");
const corpus = join(root, "tests", "corpus");
// Ajv from the npm package's development tools (bindings-js), installed by its `make test`.
const Ajv2020 = createRequire(join(root, "bindings-js", "package.json"))("ajv/dist/2020.js");

const work = mkdtempSync(join(tmpdir(), "mcp-outputs-kit-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const built = join(work, "built");
const manifest = build(built);
const read = (path) => JSON.parse(readFileSync(path, "utf8"));

function files(dir, top = dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return files(path, top);
      return name.endsWith(".json") && dir !== top ? [relative(top, path)] : [];
    });
}
const casesOf = (value) => (Array.isArray(value) ? value : [value]);

test("every corpus case is in the package, byte for byte, and in the manifest once", () => {
  const corpusFiles = files(corpus);
  assert.deepEqual(files(join(built, "cases")), corpusFiles);
  const ids = [];
  for (const file of corpusFiles) {
    assert.equal(readFileSync(join(built, "cases", file), "utf8"), readFileSync(join(corpus, file), "utf8"));
    ids.push(...casesOf(read(join(corpus, file))).map((c) => c.id));
  }
  assert.deepEqual(manifest.cases.map((c) => c.id).sort(), ids.sort());
  assert.equal(new Set(ids).size, ids.length, "case ids are unique");
  assert.deepEqual(read(join(built, "manifest.json")), manifest);
});

test("a case's severity is the strongest level among its requirements", () => {
  const level = new Map(read(join(corpus, "requirements.json")).requirements.map((r) => [r.id, r.level]));
  for (const c of manifest.cases) {
    const levels = c.requirements.map((id) => level.get(id));
    const expected = levels.includes("MUST") ? "must" : levels.includes("SHOULD") ? "should" : "decision";
    assert.equal(c.severity, expected, c.id);
  }
  // All three occur, so a runner's tally is exercised.
  assert.deepEqual(new Set(manifest.cases.map((c) => c.severity)), new Set(["must", "should", "decision"]));
  assert.ok(manifest.errorCodes.includes("limit-exceeded") && manifest.operations.route.setPaths.includes("/dropped"));
});

test("the schema accepts every case file and refuses broken ones", () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  const validate = ajv.compile(read(join(built, "schema", "case.schema.json")));
  for (const file of files(join(built, "cases"))) {
    assert.ok(validate(read(join(built, "cases", file))), `${file}: ${ajv.errorsText(validate.errors)}`);
  }
  const good = casesOf(read(join(built, "cases", "route", "core.json")))[0];
  const broken = {
    "no requirements": { ...good, requirements: [] },
    "an unknown requirement": { ...good, requirements: ["NOPE-1"] },
    "an unknown op": { ...good, op: "teleport" },
    "an unknown error code": { ...good, expect: { error: { code: "oops" } } },
    "ok and error together": { ...good, expect: { ok: {}, error: { code: "malformed" } } },
    "a stray field": { ...good, note: "x" },
    "an id that is not kebab-case": { ...good, id: "Route Core" },
  };
  for (const [what, value] of Object.entries(broken)) assert.ok(!validate(value), `accepted ${what}`);
});

// The packed tarballs: this package's and the implementation's.
let kitTarball;
let implTarball;

test("npm pack holds exactly the data, the guide and the examples", () => {
  // Pack a copy of the package with the data built into it.
  const stage = join(work, "stage");
  execFileSync("cp", ["-r", kitDir, stage]);
  rmSync(join(stage, "test"), { recursive: true, force: true });
  build(stage);
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: stage, encoding: "utf8" }));
  kitTarball = join(work, packed.filename);
  const inside = packed.files.map((f) => f.path).sort();
  const expected = [
    "CLI.md",
    "GUIDE.md",
    "README.md",
    "bin/mcp-outputs-conformance.mjs",
    "checker/check-client.mjs",
    "checker/check-server.mjs",
    "checker/checks.mjs",
    "checker/scripted-server.mjs",
    "checker/transport.mjs",
    "examples/adapter-mcp-outputs.mjs",
    "examples/runner.mjs",
    "manifest.json",
    "package.json",
    "requirements.json",
    "schema/case.schema.json",
    ...files(corpus).map((f) => `cases/${f}`),
  ].sort();
  assert.deepEqual(inside, expected);
  const [impl] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: join(root, "bindings-js", "npm"), encoding: "utf8" }),
  );
  implTarball = join(work, impl.filename);
});

test("the README's commands run as written in a fresh project", () => {
  const readme = readFileSync(join(kitDir, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trim());
  assert.equal(blocks.length, 1, "one shell block");
  const project = join(work, "project");
  execFileSync("mkdir", ["-p", project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "kit-user", private: true, type: "module" }));
  let ran = 0;
  for (const line of blocks[0].split("\n")) {
    if (line === "npm install mcp-outputs-conformance mcp-outputs") {
      execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", kitTarball, implTarball], { cwd: project, stdio: "pipe" });
    } else {
      const [command, ...args] = line.split(" ");
      const output = execFileSync(command, args, { cwd: project, encoding: "utf8" });
      assert.match(output, /^must: \d+ passed, 0 failed$/m);
      const tally = output.match(/^conformance kit runner: (\d+) passed, (\d+) failed$/m);
      assert.ok(tally, output.slice(-500));
      assert.equal(Number(tally[1]), manifest.cases.length);
      assert.equal(Number(tally[2]), 0);
      console.log(tally[0]);
    }
    ran++;
  }
  assert.equal(ran, 2);
});

test("the runner fails a must case it gets wrong, and only warns on a should case", () => {
  const project = join(work, "project");
  const kit = join(project, "node_modules", "mcp-outputs-conformance");
  // An adapter that answers the case whose input is WRONG_INPUT wrongly, the others rightly.
  const mustCase = manifest.cases.find((c) => c.severity === "must");
  const shouldCase = manifest.cases.find((c) => c.severity === "should");
  writeFileSync(
    join(project, "wrong.mjs"),
    `import { run as real } from "${join(kit, "examples", "adapter-mcp-outputs.mjs")}";
     export function run(op, input) {
       return JSON.stringify(input) === process.env.WRONG_INPUT ? { error: { code: "nope" } } : real(op, input);
     }`,
  );
  const mustInput = casesOf(read(join(built, mustCase.file))).find((c) => c.id === mustCase.id).input;
  let failed;
  try {
    execFileSync("node", [join(kit, "examples", "runner.mjs"), "wrong.mjs"], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, WRONG_INPUT: JSON.stringify(mustInput) },
    });
  } catch (e) {
    failed = e;
  }
  assert.ok(failed, "a failing must case fails the run");
  assert.equal(failed.status, 1);
  assert.match(failed.stdout, new RegExp(`^MUST ${mustCase.id} `, "m"));
  const shouldInput = casesOf(read(join(built, shouldCase.file))).find((c) => c.id === shouldCase.id).input;
  const output = execFileSync("node", [join(kit, "examples", "runner.mjs"), "wrong.mjs"], {
    cwd: project,
    encoding: "utf8",
    env: { ...process.env, WRONG_INPUT: JSON.stringify(shouldInput) },
  });
  assert.match(output, /^should: \d+ passed, [1-9]\d* failed$/m);
});
