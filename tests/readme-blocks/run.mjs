// READMEs that work as written (issue 22, item 3): every code block of the package README
// (bindings-js/npm/README.md), of docs/sdk-typescript.md and of the Python README
// (bindings-py/README.md), copied into a fresh project that has only what the document tells the
// user to install (the packed npm tarball in place of `mcp-outputs`, the built wheel in place of
// the pip package), and run as is. JS blocks are type-checked first (`tsc --strict --checkJs`,
// nodenext), TS blocks too. Prints one line per block (file:line ok / FAIL / skip, with the reason
// of a skip) and `readme blocks: N passed, M failed`; exits 1 on any failure.
//
// How a block is taken, by language:
//   sh      an `npm install …` / `pip install …` line is what the document's project installs
//           (`mcp-outputs` → the packed tarball or the wheel, every other name at the version pinned
//           in tests/runtimes or tests/interop); it counts as passed when that install succeeds.
//           Any other shell block needs a skip marker.
//   js, ts  written as its own file and run with node (after the type check). A block whose first
//           line is a comment naming a file (`// server.mjs`) is written under that name, and every
//           such named block of the document is written before any block runs, so one block may
//           import another (`import "./validator.mjs"`).
//   python  run with the fresh venv's python.
// A block followed by a line "Prints `…`" must print exactly that (stdout and stderr, trimmed).
// Markers, an HTML comment on the line just before the opening fence:
//   <!-- readme-blocks: skip (reason) -->   not run; printed as skipped with the reason.
//   <!-- readme-blocks: file (reason) -->   a named file that is not run alone (e.g. a stdio server
//                                            the next block spawns); it is type-checked, and passes
//                                            or fails with the next block that runs.
// A block of any other language, or a shell block that installs nothing, without a marker fails.
//
// Usage: node run.mjs   (after `make -C bindings-js build` and the Python wheel; the Makefile does
// both). MCP_OUTPUTS_WHEEL: the wheel to install (default: the newest in $WHEEL_DIR).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const here = fileURLToPath(new URL(".", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "mcp-outputs-readme-blocks-"));
// README_BLOCKS_KEEP=1 keeps the projects (their path printed) to look into a failure.
process.on("exit", () => (process.env.README_BLOCKS_KEEP ? console.log(`kept ${work}`) : rmSync(work, { recursive: true, force: true })));
const started = Date.now();

const DOCS = [
  { file: "bindings-js/npm/README.md", kind: "js" },
  { file: "docs/sdk-typescript.md", kind: "js" },
  { file: "bindings-py/README.md", kind: "py" },
];

// ---- pinned versions (the tools' own lock files) ------------------------------------------------
const pinned = {};
for (const dir of ["tests/runtimes", "tests/interop"]) {
  const lock = JSON.parse(readFileSync(join(root, dir, "package-lock.json"), "utf8"));
  for (const [path, info] of Object.entries(lock.packages ?? {})) {
    const m = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path);
    if (m && info.version && !info.link && !(m[1] in pinned)) pinned[m[1]] = info.version;
  }
}
const pyPins = Object.fromEntries(
  readFileSync(join(root, "tests/interop/requirements.txt"), "utf8")
    .split("\n")
    .map((l) => /^([A-Za-z0-9_.-]+)==(\S+)/.exec(l.trim()))
    .filter(Boolean)
    .map((m) => [m[1].toLowerCase(), m[2]]),
);

// ---- the Markdown --------------------------------------------------------------------------------
function blocksOf(text) {
  const lines = text.split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    const marker = /^<!--\s*readme-blocks:\s*(skip|file)\s*(?:\((.*)\))?\s*-->\s*$/.exec(lines[start - 1] ?? "");
    const body = lines.slice(start + 1, end).join("\n") + "\n";
    let next = end + 1;
    while (next < lines.length && lines[next].trim() === "") next++;
    const prints = /^Prints `([^`]+)`/.exec(lines[next] ?? "")?.[1];
    const named = /^(?:\/\/|#)\s*([\w.-]+\.(?:mjs|js|mts|ts|py))\b/.exec(body);
    blocks.push({ line: start + 1, lang: open[1], body, marker: marker?.[1], reason: marker?.[2], name: named?.[1], prints });
    i = end;
  }
  return blocks;
}

// ---- running -------------------------------------------------------------------------------------
function run(cmd, args, cwd, timeout = 120_000) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout, stdio: ["ignore", "pipe", "pipe"] });
  const out = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${[cmd, ...args].map((a) => (a.startsWith(cwd) ? relative(cwd, a) : a)).join(" ")} exited ${r.status}: ${tail(out)}`);
  return out;
}
const tail = (text) => text.trim().split("\n").slice(-12).join("\n    ").slice(0, 2000);

const tarball = (() => {
  const [info] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work, join(root, "bindings-js/npm")], { encoding: "utf8" }),
  );
  return join(work, info.filename);
})();
const wheel = (() => {
  if (process.env.MCP_OUTPUTS_WHEEL) return process.env.MCP_OUTPUTS_WHEEL;
  const dir = resolve(process.env.WHEEL_DIR ?? join(root, "target/readme-blocks-wheel"));
  const wheels = readdirSync(dir).filter((f) => f.endsWith(".whl"));
  if (wheels.length !== 1) throw new Error(`expected one wheel in ${dir}, got ${wheels.join(", ")}`);
  return join(dir, wheels[0]);
})();

// What an install line asks for: package names (options and shell comments dropped).
const installs = (body, tool) =>
  body
    .split("\n")
    .map((l) => l.replace(/\s#.*$/, "").trim())
    .filter((l) => l.startsWith(`${tool} install `))
    .flatMap((l) => l.split(/\s+/).slice(2).filter((w) => !w.startsWith("-")));

function npmProject(dir, names) {
  const specs = names.map((n) => {
    if (n === "mcp-outputs") return tarball;
    if (!(n in pinned)) throw new Error(`npm install ${n}: no pinned version (tests/runtimes or tests/interop)`);
    return `${n}@${pinned[n]}`;
  });
  // @types/node besides, for the type check only (a TS user on Node has it: `node:fs` in a block).
  specs.push(`@types/node@${pinned["@types/node"]}`);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "readme-blocks", private: true, type: "module" }));
  run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--no-package-lock", ...specs], dir);
}

function pyProject(dir, names) {
  const specs = names.map((n) => {
    const m = /^['"]?mcp-outputs(\[[\w,]+\])?['"]?$/.exec(n);
    if (m) return `${wheel}${m[1] ?? ""}`;
    throw new Error(`pip install ${n}: only the package itself is installed from a README`);
  });
  run("python3", ["-m", "venv", join(dir, "venv")], dir);
  const constraints = join(dir, "constraints.txt");
  writeFileSync(constraints, Object.entries(pyPins).map(([n, v]) => `${n}==${v}\n`).join(""));
  run(join(dir, "venv/bin/pip"), ["install", "-q", "--disable-pip-version-check", "-c", constraints, ...specs], dir, 300_000);
}

const tsc = join(root, "tests/runtimes/node_modules/typescript/bin/tsc");
const results = [];
const report = (doc, block, status, note = "") => {
  results.push(status);
  console.log(`${doc}:${block.line} ${block.lang || "(no language)"} ${status}${note ? ` ${note}` : ""}`);
};

for (const doc of DOCS) {
  const blocks = blocksOf(readFileSync(join(root, doc.file), "utf8"));
  const dir = join(work, doc.file.replace(/[/.]/g, "-"));
  mkdirSync(dir, { recursive: true });
  const tool = doc.kind === "py" ? "pip" : "npm";
  // The project: what the document's install blocks name (the py README's pip line is in prose:
  // `pip install 'mcp-outputs[mcp]'` is taken from the text when no block installs).
  const text = readFileSync(join(root, doc.file), "utf8");
  const installBlocks = blocks.filter((b) => b.lang === "sh" && !b.marker && installs(b.body, tool).length > 0);
  let names = [...new Set(installBlocks.flatMap((b) => installs(b.body, tool)))];
  if (doc.kind === "py") names = [...new Set([...names, ...[...text.matchAll(/`pip install ('[^']+'|\S+)`/g)].map((m) => m[1])])];
  let setup;
  try {
    if (doc.kind === "py") pyProject(dir, names.length ? names : ["mcp-outputs"]);
    else npmProject(dir, names);
  } catch (e) {
    setup = e;
  }
  // Named files first, so that blocks can import them.
  const fileOf = (b, i) => b.name ?? `block-${i}-line-${b.line}.${b.lang === "python" ? "py" : b.lang === "ts" ? "mts" : "mjs"}`;
  blocks.forEach((b, i) => {
    if (!b.marker?.startsWith("skip") && ["js", "ts", "python"].includes(b.lang)) writeFileSync(join(dir, fileOf(b, i)), b.body);
  });
  // One strict type check over every JS/TS block of the document.
  const scripts = blocks.map((b, i) => [b, fileOf(b, i)]).filter(([b]) => b.marker !== "skip" && ["js", "ts"].includes(b.lang));
  let typeErrors = "";
  if (!setup && scripts.length) {
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: { strict: true, allowJs: true, checkJs: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: ["node"], skipLibCheck: true },
      files: scripts.map(([, f]) => f),
    }));
    // The whole output (run() keeps only a tail): each block gets the errors in its own file.
    const r = spawnSync(process.execPath, [tsc, "-p", "."], { cwd: dir, encoding: "utf8", timeout: 120_000 });
    if (r.status !== 0) typeErrors = `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? r.error.message : ""}`.trim() || `tsc exited ${r.status}`;
  }
  const typeErrorsOf = (file) => typeErrors.split("\n").filter((l) => l.trim().startsWith(`${file}(`)).join("\n    ");
  // tsc's errors that name no block's file (its config, a package's types) fail every block.
  const files = scripts.map(([, f]) => f);
  const elsewhere = typeErrors && !files.some((f) => typeErrorsOf(f)) ? tail(typeErrors) : "";
  const pending = [];
  blocks.forEach((b, i) => {
    if (b.marker === "skip") return report(doc.file, b, "skip", `(${b.reason ?? "no reason given"})`);
    const file = fileOf(b, i);
    let failure;
    if (setup) failure = `project setup failed: ${setup.message}`;
    else if (b.lang === "sh") {
      if (!installBlocks.includes(b)) failure = "a shell block that installs nothing needs a skip marker";
    } else if (["js", "ts"].includes(b.lang)) {
      const own = typeErrorsOf(file) || elsewhere;
      if (own) failure = `tsc --strict:\n    ${own}`;
    } else if (b.lang !== "python") failure = `no runner for \`${b.lang || "(no language)"}\` blocks: add a marker`;
    if (!failure && b.marker === "file") return pending.push(b);
    if (!failure && b.lang !== "sh") {
      try {
        let out;
        if (b.lang === "python") out = run(join(dir, "venv/bin/python"), [file], dir);
        else if (b.lang === "ts") out = run(process.execPath, ["--experimental-strip-types", file], dir);
        else out = run(process.execPath, [file], dir);
        if (b.prints !== undefined && out.trim() !== b.prints) failure = `the text after it says it prints ${b.prints}; it printed ${tail(out)}`;
      } catch (e) {
        failure = e.message;
      }
    }
    for (const p of pending.splice(0)) report(doc.file, p, failure ? "FAIL" : "ok", `(${p.name ?? "file"}, run by line ${b.line})`);
    report(doc.file, b, failure ? "FAIL" : "ok", failure ? `\n    ${failure}` : b.lang === "sh" ? `(installed: ${names.join(" ")})` : "");
  });
  for (const p of pending) report(doc.file, p, "FAIL", "(a file marker with no block after it that runs)");
}

const passed = results.filter((s) => s === "ok").length;
const failed = results.filter((s) => s === "FAIL").length;
const skipped = results.filter((s) => s === "skip").length;
console.log(`(${skipped} skipped, each with its reason above; ${((Date.now() - started) / 1000).toFixed(1)} s)`);
console.log(`readme blocks: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
