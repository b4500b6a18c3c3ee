// Node's http server in front of a fetch-shaped handler (Request → Response), on 127.0.0.1 only.
import { createServer } from "node:http";

export function listenFetch(port, fetchHandler) {
  const server = createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const headers = new Headers();
      for (const [key, value] of Object.entries(req.headers)) {
        if (Array.isArray(value)) value.forEach((v) => headers.append(key, v));
        else if (value !== undefined) headers.set(key, value);
      }
      const request = new Request(`http://127.0.0.1:${port}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
      });
      const response = await fetchHandler(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) {
        for await (const chunk of response.body) res.write(chunk);
      }
      res.end();
    } catch (e) {
      process.stderr.write(`http: ${e?.stack ?? e}\n`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  keepIdleSockets(server);
  server.listen(port, "127.0.0.1");
  return server;
}

/** Keeps idle keep-alive sockets open longer than a slow client's pause: with Node's 5 s default
 * the server may close a socket just as the client's fetch reuses it ("fetch failed"). */
export function keepIdleSockets(server) {
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 121_000;
  return server;
}

/** `--flag` and `--key value` options of an endpoint script. */
export function parseArgs(argv) {
  const dashdash = argv.indexOf("--");
  const own = dashdash === -1 ? argv : argv.slice(0, dashdash);
  const rest = dashdash === -1 ? [] : argv.slice(dashdash + 1);
  const opts = { apps: own.includes("--apps"), command: rest };
  for (const key of ["--http", "--revision", "--url"]) {
    const i = own.indexOf(key);
    if (i !== -1) opts[key.slice(2)] = own[i + 1];
  }
  return opts;
}
