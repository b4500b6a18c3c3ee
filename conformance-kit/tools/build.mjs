// Writes the data package from the repository's corpus (tests/corpus) and the core's own lists
// (error codes, operations: read from the built npm package, so they cannot drift):
//   cases/<area>/<file>.json   the case files, byte for byte
//   requirements.json          every requirement ID with its level and summary
//   manifest.json              the contract version, operations, error codes, the lists compared
//                              as sets per op, and one entry per case with its severity
//   schema/case.schema.json    a JSON Schema (2020-12) for a case file
// Usage: node tools/build.mjs [out dir]   (default: this package's folder)
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { errorCodes, contractOperations } from "../../bindings-js/npm/full-node.js";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const corpus = join(here, "..", "tests", "corpus");
const out = process.argv[2] ?? here;

// The contract this corpus follows: version 3, every item.
const CONTRACT = { version: 3 };

// Lists an `ok` compares as sets, by op (corpus contract, "A case"); everything else is exact.
const SET_PATHS = { route: ["/dropped", "/diagnostics"], scenario: ["/route/dropped", "/route/diagnostics"] };
const DEFAULT_SET_PATHS = ["/warnings"];

// A case is as strong as the strongest requirement it cites.
const SEVERITY = { MUST: "must", SHOULD: "should", MAY: "decision", DECISION: "decision" };
const RANK = ["must", "should", "decision"];

function caseFiles(dir) {
  const files = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...caseFiles(path));
    else if (name.endsWith(".json") && dir !== corpus) files.push(path);
  }
  return files;
}

export function build(target = out) {
  const requirements = JSON.parse(readFileSync(join(corpus, "requirements.json"), "utf8")).requirements;
  const level = new Map(requirements.map((r) => [r.id, SEVERITY[r.level]]));
  for (const [id, severity] of level) if (!severity) throw new Error(`requirement ${id}: unknown level`);
  rmSync(join(target, "cases"), { recursive: true, force: true });
  mkdirSync(join(target, "schema"), { recursive: true });
  const cases = [];
  for (const file of caseFiles(corpus)) {
    const name = relative(corpus, file).split("\\").join("/");
    mkdirSync(dirname(join(target, "cases", name)), { recursive: true });
    cpSync(file, join(target, "cases", name));
    const parsed = JSON.parse(readFileSync(file, "utf8"));
    for (const c of Array.isArray(parsed) ? parsed : [parsed]) {
      const severity = RANK[Math.min(...c.requirements.map((id) => RANK.indexOf(level.get(id))))];
      if (severity === undefined) throw new Error(`${c.id}: cites an unknown requirement`);
      cases.push({ id: c.id, file: `cases/${name}`, op: c.op, requirements: c.requirements, severity });
    }
  }
  const { operations, commonFields } = contractOperations();
  const ops = Object.keys(operations);
  const manifest = {
    name: "mcp-outputs-conformance",
    contract: CONTRACT,
    operations: Object.fromEntries(
      ops.map((op) => [op, { inputFields: operations[op], setPaths: SET_PATHS[op] ?? DEFAULT_SET_PATHS }]),
    ),
    commonFields,
    errorCodes: [...errorCodes],
    severities: { must: "a failure", should: "a warning", decision: "this project's decision where the SEP is silent: report it, do not fail on it" },
    cases,
  };
  writeFileSync(join(target, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  writeFileSync(join(target, "requirements.json"), JSON.stringify({ requirements }, null, 2) + "\n");
  writeFileSync(join(target, "schema", "case.schema.json"), JSON.stringify(caseSchema(ops, [...errorCodes], [...level.keys()]), null, 2) + "\n");
  return manifest;
}

function caseSchema(ops, codes, ids) {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://example.invalid/mcp-outputs-conformance/case.schema.json",
    title: "A SEP-3279 conformance case file: one case, or an array of cases",
    oneOf: [{ $ref: "#/$defs/case" }, { type: "array", minItems: 1, items: { $ref: "#/$defs/case" } }],
    $defs: {
      case: {
        type: "object",
        additionalProperties: false,
        required: ["id", "requirements", "description", "op", "input", "expect"],
        properties: {
          id: { type: "string", pattern: "^[a-z0-9]+(-[a-z0-9]+)*$" },
          requirements: { type: "array", minItems: 1, uniqueItems: true, items: { enum: ids } },
          description: { type: "string", minLength: 1 },
          op: { enum: ops },
          input: { type: "object" },
          expect: {
            oneOf: [
              { type: "object", additionalProperties: false, required: ["ok"], properties: { ok: { type: "object" } } },
              {
                type: "object",
                additionalProperties: false,
                required: ["error"],
                properties: {
                  error: {
                    type: "object",
                    additionalProperties: false,
                    required: ["code"],
                    properties: { code: { enum: codes }, jsonrpc: { type: "integer" } },
                  },
                },
              },
            ],
          },
        },
      },
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const manifest = build();
  console.log(`conformance kit: ${manifest.cases.length} cases written to ${out}`);
}
