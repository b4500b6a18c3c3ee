// Rewrites wasm-bindgen's JavaScript glue (one module-level instance) into a factory,
// `createModule()`, whose every call gives an independent copy of the glue with its own wasm
// instance, memory views and finalization registries. The package needs a second instance
// when the first one traps (R-3, see npm/api.js): a trapped instance cannot be trusted again,
// and handles made on it must never be freed on its successor.
//
// Usage: node tools/factory.mjs <glue.js>   (rewritten in place; fails on any shape it does not know)
import { readFileSync, writeFileSync } from "node:fs";

const path = process.argv[2];
const source = readFileSync(path, "utf8");
if (source.includes("export function createModule()")) throw new Error(`${path}: already a factory`);
const names = new Map(); // exported name -> local name
let body = source.replace(/^export (function|class|const|let) ([A-Za-z_$][\w$]*)/gm, (_, kind, name) => {
  names.set(name, name);
  return `${kind} ${name}`;
});
body = body.replace(/^export \{([^}]*)\};?[ \t]*$/gm, (_, list) => {
  for (const item of list.split(",").map((s) => s.trim()).filter(Boolean)) {
    const [local, exported = local] = item.split(/\s+as\s+/);
    names.set(exported.trim(), local.trim());
  }
  return "";
});
body = body.replace(/^export default ([A-Za-z_$][\w$]*);?[ \t]*$/gm, (_, local) => {
  names.set("default", local);
  return "";
});
const leftover = body.match(/^(export|import)\b.*$/m);
if (leftover) throw new Error(`${path}: unexpected module syntax the factory cannot move: ${leftover[0]}`);
for (const required of ["initSync", "default"]) {
  if (!names.has(required)) throw new Error(`${path}: the glue exports no ${required}`);
}
// The compiled module, for the synchronous re-instantiation a browser needs after the first,
// streaming one (`initSync({module})` with a WebAssembly.Module compiles nothing).
if (!/^\s*wasmModule = module;/m.test(body)) throw new Error(`${path}: the glue keeps no wasmModule`);
names.set("__wbg_module", "() => wasmModule");
const entries = [...names].map(([exported, local]) => (exported === local ? local : `${JSON.stringify(exported)}: ${local}`));
writeFileSync(
  path,
  "// Generated from wasm-bindgen's glue by bindings-js/tools/factory.mjs: each createModule() call is an\n" +
    "// independent copy of the glue (its own instance once initialised).\n" +
    "export function createModule() {\n" +
    body +
    "\nreturn { " +
    entries.join(", ") +
    " };\n}\n",
);
