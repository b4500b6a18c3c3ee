// The static server behind `make demo` and the e2e tests: loopback only, the right types (the
// wasm must be application/wasm for streaming compilation), nothing outside the site folder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "../serve.mjs";

const root = mkdtempSync(join(tmpdir(), "mcp-outputs-serve-"));
const site = join(root, "site");
mkdirSync(join(site, "pkg"), { recursive: true });
writeFileSync(join(site, "index.html"), "<!doctype html><title>t</title>");
writeFileSync(join(site, "pkg", "m.wasm"), Buffer.from([0, 97, 115, 109]));
writeFileSync(join(root, "secret.txt"), "outside the site");

// A raw GET: the path goes out exactly as written (fetch would normalise the dots away).
function get(port, path) {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET" }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode, type: res.headers["content-type"], body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("serves the site on 127.0.0.1 only, with the types browsers need", async (t) => {
  const { server, url } = await startServer(site, 0);
  t.after(() => {
    server.close();
    rmSync(root, { recursive: true, force: true });
  });
  assert.equal(server.address().address, "127.0.0.1");
  const { port } = server.address();
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const index = await get(port, "/");
  assert.deepEqual([index.status, index.type], [200, "text/html; charset=utf-8"]);
  assert.equal((await get(port, "/pkg/m.wasm")).type, "application/wasm");
  assert.equal((await get(port, "/missing.js")).status, 404);
  for (const path of ["/../secret.txt", "/..%2fsecret.txt", "/pkg/..%2f..%2fsecret.txt", "/%2e%2e/secret.txt"]) {
    const answer = await get(port, path);
    assert.notEqual(answer.status, 200, path);
    assert.doesNotMatch(answer.body, /outside the site/, path);
  }
  assert.equal((await get(port, "/%E0%A4%A")).status, 400, "a broken escape is a bad request, not a crash");
  assert.equal((await get(port, "/")).status, 200, "and the server still answers");
});
