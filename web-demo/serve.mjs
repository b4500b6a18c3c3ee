// Serves the built demo (a static folder) on 127.0.0.1. `node serve.mjs <dir> [port]`; the port
// defaults to $PORT, else 8765, else any free one. Used by `make demo` and by the e2e tests.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  // instantiateStreaming needs this exact type.
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** Starts the server; resolves to `{server, url}` once it listens. */
export function startServer(root, port = 0) {
  const base = resolve(root);
  const server = createServer(async (request, response) => {
    let relative;
    try {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      relative = normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, "");
    } catch {
      response.writeHead(400).end();
      return;
    }
    const file = join(base, relative === "" || relative.endsWith(sep) ? join(relative, "index.html") : relative);
    // Nothing outside the served folder, whatever the path says.
    if (file !== base && !file.startsWith(base + sep)) {
      response.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      response.writeHead(200, {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      });
      response.end(body);
    } catch {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolvePromise({ server, url: `http://127.0.0.1:${server.address().port}/` });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const root = process.argv[2];
  if (!root) {
    console.error("usage: node serve.mjs <dir> [port]");
    process.exit(2);
  }
  const wanted = Number(process.argv[3] ?? process.env.PORT ?? 8765);
  let started;
  try {
    started = await startServer(root, wanted);
  } catch (error) {
    if (error.code !== "EADDRINUSE") throw error;
    console.error(`port ${wanted} is busy; taking a free one`);
    started = await startServer(root, 0);
  }
  console.log(`web demo: ${started.url}  (Ctrl-C stops it)`);
}
