// The corpus runner itself: it fails on a wrong expectation, on lint problems of extra cases
// (unknown fields, id collisions, an empty directory, duplicate keys), and counts exactly the
// Rust runner's cases.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, mkdirSync, rmSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main, compare, jsonFiles } from "./corpus.mjs";
import { parseStrict } from "./strict-json.mjs";

const TOOL = {
  name: "t",
  inputSchema: { type: "object" },
  outputVariants: [{ audience: "assistant", format: "content" }],
};
const good = {
  id: "extra-select-fallback",
  requirements: ["SEL-1"],
  description: "the fallback",
  op: "select",
  input: { tool: TOOL },
  expect: { ok: { selection: [{ audience: "assistant", format: "content" }] } },
};

function withExtra(files, fn) {
  const dir = mkdtempSync(join(tmpdir(), "mcp-outputs-extra-"));
  try {
    for (const [name, value] of Object.entries(files)) {
      const path = join(dir, name);
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
    }
    const lines = [];
    const result = main(dir, (l) => lines.push(l));
    return fn(result, lines.join("\n"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("the repository corpus passes, with the tally line", () => {
  const lines = [];
  const { ok, count } = main(undefined, (l) => lines.push(l));
  assert.ok(ok, lines.join("\n"));
  assert.ok(count > 300);
  assert.equal(lines.at(-1), `corpus js: ${count} passed, 0 failed`);
});

test("extra cases run, in nested folders", () => {
  withExtra({ "a/b/case.json": [good, { ...good, id: "extra-two" }] }, ({ ok }, out) => {
    assert.ok(ok, out);
    assert.match(out, /^corpus js extra: 2 passed, 0 failed$/m);
  });
});

test("a wrong expectation fails, printed with its id and the difference", () => {
  const wrong = { ...good, expect: { ok: { selection: [{ audience: "user", format: "content" }] } } };
  withExtra({ "x.json": wrong }, ({ ok }, out) => {
    assert.equal(ok, false);
    assert.match(out, /FAIL extra-select-fallback/);
    assert.match(out, /expected "user", got "assistant"/);
    assert.match(out, /^corpus js extra: 0 passed, 1 failed$/m);
  });
  const wrongError = { ...good, expect: { error: { code: "empty-selection" } } };
  withExtra({ "x.json": wrongError }, ({ ok }) => assert.equal(ok, false));
  const wrongRpc = { ...good, input: { tool: TOOL, requestedOutputs: [] }, expect: { error: { code: "empty-selection", jsonrpc: -32603 } } };
  withExtra({ "x.json": wrongRpc }, ({ ok }, out) => {
    assert.equal(ok, false);
    assert.match(out, /expected JSON-RPC -32603, got -32602/);
  });
});

test("lint: unknown fields, id collisions, empty dir, bad files fail the run", () => {
  const bad = [
    { "x.json": { ...good, extra: 1 } },
    { "x.json": [good, good] },
    { "x.json": { ...good, input: { tool: TOOL, mode: "code" } } },
    { "x.json": { ...good, requirements: ["NOPE-1"] } },
    { "x.json": { ...good, expect: { error: { code: "no-such-code" } } } },
    { "x.json": { ...good, id: "Not-Kebab" } },
    { "x.json": '{"id": "a", "id": "b"}' },
    { "x.json": "{" },
    { "readme.txt": "no json here" },
  ];
  bad.forEach((files, i) => {
    withExtra(files, ({ ok }, out) => {
      assert.equal(ok, false, `bad extra ${i} passed:\n${out}`);
      assert.match(out, /^corpus js extra: 0 passed, \d+ failed$/m);
    });
  });
});

test("lint: an extra id that collides with a repository id fails", () => {
  const repoId = firstRepoId();
  withExtra({ "x.json": { ...good, id: repoId } }, ({ ok }, out) => {
    assert.equal(ok, false);
    assert.match(out, new RegExp(`duplicate id ${repoId}`));
  });
});

function firstRepoId() {
  const file = jsonFiles(fileURLToPath(new URL("../../tests/corpus", import.meta.url)), true)[0];
  const value = parseStrict(readFileSync(file, "utf8"));
  return (Array.isArray(value) ? value[0] : value).id;
}

test("strict JSON: duplicate keys and lone surrogates are refused, nesting is unlimited", () => {
  assert.throws(() => parseStrict('{"a": 1, "b": {"c": 1, "c": 2}}'), /duplicate key "c"/);
  assert.throws(() => parseStrict('["\\ud800"]'), /lone surrogate/);
  assert.deepEqual(parseStrict('{"a": {"a": [{"a": 1}, {"a": "\\"a\\""}]}, "b": "\\ud83d\\ude00"}'), {
    a: { a: [{ a: 1 }, { a: '"a"' }] },
    b: "😀",
  });
  assert.equal(parseStrict("[".repeat(5000) + "]".repeat(5000)).length, 1);
});

test("comparison: key order ignored, numbers by value, sets where the op says", () => {
  const diffs = (a, b, sets = []) => {
    const d = [];
    compare(a, b, "", sets, d);
    return d;
  };
  assert.deepEqual(diffs({ a: 1, b: [1, 2] }, { b: [1, 2.0], a: 1.0 }), []);
  assert.equal(diffs({ a: [1, 2] }, { a: [2, 1] }).length, 2);
  assert.deepEqual(diffs({ d: [{ meta: "x" }, { meta: "y" }] }, { d: [{ meta: "y" }, { meta: "x" }] }, ["/d"]), []);
  assert.equal(diffs({ d: ["x"] }, { d: ["x", "y"] }, ["/d"]).length, 1);
  assert.equal(diffs({ a: null }, { a: 0 }).length, 1);
  assert.equal(diffs({ a: "1" }, { a: 1 }).length, 1);
  assert.equal(diffs({}, { extra: true }).length, 1);
});
