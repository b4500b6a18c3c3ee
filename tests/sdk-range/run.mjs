// `sdk range`: the SDK adapters' tests against the oldest and the newest release of each declared
// peer range (versions.json), not only the versions tests/interop pins. Each distinct install set
// gets a fresh directory under .work/ (installed again only when its set changes), the adapter
// tests run there, and one line is printed per (sdk, version), then `sdk range: N passed, M failed`
// (N, M: test cases over the distinct runs). Exits non-zero on any failure, on a list that no
// longer matches the declared ranges, or when an adapter reaches an SDK private member the docs
// do not list.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const work = join(here, ".work");
const versions = JSON.parse(readFileSync(join(here, "versions.json"), "utf8"));
const python = process.env.PYTHON ?? "python3";
mkdirSync(work, { recursive: true });

// The list must say what the packages declare (a range changed without the list fails here).
const peers = JSON.parse(readFileSync(join(root, "bindings-js/npm/package.json"), "utf8")).peerDependencies;
const interop = JSON.parse(readFileSync(join(root, "tests/interop/package.json"), "utf8")).devDependencies;
const pyproject = readFileSync(join(root, "bindings-py/pyproject.toml"), "utf8");
const problems = [];
for (const [pkg, r] of Object.entries(versions.npm.range)) {
  if (peers[pkg] !== r.declared) problems.push(`versions.json is stale: ${pkg}: package.json declares ${peers[pkg]}, versions.json ${r.declared}`);
  if (r.declared.startsWith("^") && r.declared.slice(1) !== r.oldest) problems.push(`versions.json is stale: ${pkg}: oldest ${r.oldest} is not the bound of ${r.declared}`);
  if (interop[pkg] !== versions.npm.pinned[pkg]) problems.push(`versions.json is stale: ${pkg}: tests/interop pins ${interop[pkg]}, versions.json ${versions.npm.pinned[pkg]}`);
}
for (const [pkg, r] of Object.entries(versions.pypi.range)) {
  if (!pyproject.includes(`"${pkg}${r.declared}"`)) problems.push(`versions.json is stale: ${pkg}: bindings-py/pyproject.toml does not declare ${pkg}${r.declared}`);
}
// The adapters reach no SDK private member but the ones the docs list (docs/sdk-typescript.md,
// "Surviving SDK releases"; bindings-py/README.md, "What the adapter relies on in `mcp`").
const allowedPrivate = { "bindings-js/npm/sdk.js": ["_requestHandlers"], "bindings-py/python/mcp_outputs/sdk.py": ["_lowlevel_server", "_stream_protocols"] };
for (const [file, allowed] of Object.entries(allowedPrivate)) {
  const code = readFileSync(join(root, file), "utf8")
    .split("\n")
    .filter((line) => !/^\s*(\/\/|#|\*)/.test(line))
    .join("\n");
  // `x._name` member reads and `mcp.…._module` imports; the adapter's own names (`this._tools`,
  // `self._server`, …) are its own state.
  // `_meta` is the protocol's own field name.
  const reads = [
    ...code.matchAll(/(?<!\bthis|\bself|\bcls)(?<=[\w)\]])\.(_[A-Za-z]\w*)/g),
    ...code.matchAll(/getattr\(\w+,\s*["'](_\w+)["']/g),
    ...code.matchAll(/\[["'](_[A-Za-z]\w*)["']\]/g),
  ];
  const found = new Set(reads.map((m) => m[1]).filter((name) => name !== "_meta"));
  for (const name of found) if (!allowed.includes(name)) problems.push(`${file} reaches the private member ${name}, which the docs do not list`);
}
if (problems.length) {
  for (const p of problems) console.log(`  ${p}`);
  console.log(`sdk range: 0 passed, ${problems.length} failed`);
  process.exit(1);
}

const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 64 << 20, ...opts });
const results = new Map(); // install-set key → {passed, failed, note}

function npmRun(set) {
  const key = "npm " + Object.entries(set).map(([p, v]) => `${p.split("/")[1]}@${v}`).join(" ");
  if (results.has(key)) return results.get(key);
  const dir = join(work, "npm-" + Object.values(set).join("-"));
  const manifest = {
    name: "sdk-range",
    private: true,
    type: "module",
    dependencies: { ...set, "mcp-outputs": `file:${join(root, "bindings-js/npm")}` },
  };
  const stamp = join(dir, ".installed");
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== JSON.stringify(manifest)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
    writeFileSync(stamp, JSON.stringify(manifest));
  }
  for (const [pkg, v] of Object.entries(set)) {
    const got = JSON.parse(readFileSync(join(dir, "node_modules", pkg, "package.json"), "utf8")).version;
    if (got !== v) throw new Error(`${dir}: ${pkg} is ${got}, not ${v}`);
  }
  // The adapter tests as tests/interop has them, with the fixture paths made absolute.
  mkdirSync(join(dir, "ts"), { recursive: true });
  for (const file of ["adapter.test.mjs", "fixtures.mjs", "server-v2.mjs", "http.mjs"]) {
    const text = readFileSync(join(root, "tests/interop/ts", file), "utf8").replaceAll("../../../core/", `${root}/core/`);
    writeFileSync(join(dir, "ts", file), text);
  }
  const out = run(process.execPath, ["--test", "--test-reporter=tap", "ts/adapter.test.mjs"], { cwd: dir });
  const count = (name) => Number((out.stdout.match(new RegExp(`^# ${name} (\\d+)`, "m")) ?? [])[1] ?? 0);
  const result = { passed: count("pass"), failed: count("fail") + count("cancelled") };
  if (result.passed + result.failed === 0) result.failed = 1;
  if (result.failed) result.log = out.stdout.split("\n").filter((l) => /^not ok|^\s+(error|message|stack):/.test(l)).slice(0, 20).join("\n") + out.stderr.slice(-2000);
  results.set(key, result);
  return result;
}

function pyRun(pkg, version) {
  const key = `pypi ${pkg}@${version}`;
  if (results.has(key)) return results.get(key);
  const dir = join(work, `py-${pkg}-${version}`);
  const reqs = [`${pkg}==${version}`, ...Object.entries(versions.pypi.tools).map(([p, v]) => `${p}==${v}`)];
  const stamp = join(dir, ".installed");
  const py = join(dir, "bin", "python");
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== reqs.join("\n")) {
    execFileSync(python, ["-m", "venv", "--clear", dir], { stdio: "inherit" });
    execFileSync(py, ["-m", "pip", "install", "-q", "--disable-pip-version-check", ...reqs], { stdio: ["ignore", "ignore", "inherit"] });
    writeFileSync(stamp, reqs.join("\n"));
  }
  const got = run(py, ["-c", `import importlib.metadata as m; print(m.version(${JSON.stringify(pkg)}))`]).stdout.trim();
  if (got !== version) throw new Error(`${dir}: ${pkg} is ${got}, not ${version}`);
  // The package from its source tree (the extension module `make -C bindings-py develop` built).
  const out = run(py, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_sdk.py"], {
    cwd: join(root, "bindings-py"),
    env: { ...process.env, PYTHONPATH: join(root, "bindings-py/python") },
  });
  const summary = out.stdout.trim().split("\n").pop() ?? "";
  const n = (name) => Number((summary.match(new RegExp(`(\\d+) ${name}`)) ?? [])[1] ?? 0);
  const result = { passed: n("passed"), failed: n("failed") + n("errors?") };
  if (result.passed + result.failed === 0) result.failed = 1;
  if (result.failed || out.status !== 0) {
    result.failed ||= 1;
    result.log = out.stdout.slice(-3000) + out.stderr.slice(-2000);
  }
  results.set(key, result);
  return result;
}

const lines = [];
for (const [pkg, r] of Object.entries(versions.npm.range)) {
  for (const which of ["oldest", "newest"]) {
    if (which === "newest" && r.newest === r.oldest) continue;
    const res = npmRun({ ...versions.npm.pinned, [pkg]: r[which] });
    const label = r.newest === r.oldest ? "oldest = newest" : which;
    lines.push([`${pkg} ${r[which]} (${label} of ${r.declared})`, res]);
  }
}
for (const [pkg, r] of Object.entries(versions.pypi.range)) {
  for (const which of ["oldest", "newest"]) {
    if (which === "newest" && r.newest === r.oldest) continue;
    const res = pyRun(pkg, r[which]);
    const label = r.newest === r.oldest ? "oldest = newest" : which;
    lines.push([`${pkg} (PyPI) ${r[which]} (${label} of ${r.declared})`, res]);
  }
}
console.log(`  private SDK members reached: ${Object.entries(allowedPrivate).map(([f, a]) => `${f.split("/").pop()} ${a.join(", ")}`).join("; ")} (as the docs list)`);
for (const [label, res] of lines) {
  console.log(`  ${label}: ${res.passed} passed, ${res.failed} failed`);
}
let passed = 0;
let failed = 0;
for (const [key, res] of results) {
  passed += res.passed;
  failed += res.failed;
  if (res.log) console.log(`--- ${key}\n${res.log}`);
}
console.log(`sdk range: ${passed} passed, ${failed} failed (${results.size} distinct installs)`);
process.exit(failed ? 1 : 0);
