// A small JSON-RPC client for MCP, with no dependency: stdio (newline-delimited JSON on a child
// process) or Streamable HTTP (POST, answered with JSON or an SSE stream). One `Connection` is one
// session: a fresh child process, or a fresh HTTP session. Requests from the server to the client
// are answered (`ping` with `{}`, anything else with -32601); notifications are kept, not judged.
import { spawn } from "node:child_process";

export class RpcError extends Error {
  constructor(error) {
    super(`JSON-RPC error ${error?.code}: ${error?.message}`);
    this.rpc = error;
  }
}

export class TransportError extends Error {}

function answerServerRequest(message) {
  if (message.method === "ping") return { jsonrpc: "2.0", id: message.id, result: {} };
  return { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `client does not implement ${message.method}` } };
}

/** A connection to a server started as a command (stdio). */
class StdioConnection {
  constructor(command, { timeoutMs, env }) {
    this.timeoutMs = timeoutMs;
    this.nextId = 1;
    this.pending = new Map();
    this.stderr = "";
    this.closed = false;
    this.child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } });
    this.child.stderr.on("data", (d) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    let buffer = "";
    this.child.stdout.on("data", (d) => {
      buffer += d;
      let nl;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (line) this.onLine(line);
      }
    });
    const fail = (why) => {
      this.closed = true;
      for (const { reject } of this.pending.values()) reject(new TransportError(`${why}${this.stderr ? `; stderr: ${this.stderr.slice(-500)}` : ""}`));
      this.pending.clear();
    };
    this.child.on("error", (e) => fail(`cannot start ${command[0]}: ${e.message}`));
    this.child.on("exit", (code, signal) => fail(`server exited (${signal ?? code})`));
    this.child.stdin.on("error", () => {});
  }

  onLine(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return; // not a JSON-RPC line (a log line on stdout): ignored
    }
    if (message.method !== undefined && message.id !== undefined) {
      this.write(answerServerRequest(message));
      return;
    }
    if (message.id === undefined) return; // a notification
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    waiter.resolve(message);
  }

  write(message) {
    if (!this.closed) this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a request; resolves with the whole response message ({result} or {error}). */
  send(method, params) {
    if (this.closed) return Promise.reject(new TransportError(`server is not running${this.stderr ? `; stderr: ${this.stderr.slice(-500)}` : ""}`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new TransportError(`no answer to ${method} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, {
        resolve: (m) => (clearTimeout(timer), resolve(m)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.write({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    });
  }

  notify(method, params) {
    this.write({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  async close() {
    if (this.closed) return;
    this.closed = true;
    this.child.stdin.end();
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    const timer = setTimeout(() => this.child.kill("SIGTERM"), 500);
    await exited;
    clearTimeout(timer);
  }
}

/** A connection to a Streamable HTTP endpoint: one session (an `Mcp-Session-Id` once given). */
class HttpConnection {
  constructor(url, { timeoutMs }) {
    this.url = url;
    this.timeoutMs = timeoutMs;
    this.nextId = 1;
    this.sessionId = undefined;
    this.protocolVersion = undefined;
  }

  headers(message) {
    const h = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (this.sessionId) h["mcp-session-id"] = this.sessionId;
    if (this.protocolVersion) h["mcp-protocol-version"] = this.protocolVersion;
    // From 2026-07-28 the transport repeats the method (and a tool's name) in headers.
    if (this.perRequest && message?.method) {
      h["mcp-method"] = message.method;
      const name = message.params?.name;
      if (typeof name === "string" && /^[\x21-\x7e]*$/.test(name)) h["mcp-name"] = name;
    }
    return h;
  }

  /** POSTs one message. A JSON body is read whole; an SSE stream is read event by event: a
   * request from the server on it is answered (by another POST), and reading stops at the message
   * `until(message)` accepts. Resolves `{response, body, messages}`. */
  async post(message, until = () => false) {
    let response;
    const abort = AbortSignal.timeout(this.timeoutMs);
    try {
      response = await fetch(this.url, { method: "POST", headers: this.headers(message), body: JSON.stringify(message), signal: abort });
    } catch (e) {
      throw new TransportError(`POST ${this.url}: ${e.cause?.message ?? e.message}`);
    }
    const sid = response.headers.get("mcp-session-id");
    if (sid) this.sessionId = sid;
    const type = response.headers.get("content-type") ?? "";
    const messages = [];
    if (!type.includes("text/event-stream") || !response.body) {
      let body;
      try {
        body = await response.text();
      } catch (e) {
        throw new TransportError(`POST ${this.url}: ${e.cause?.message ?? e.message}`);
      }
      if (body.trim()) {
        try {
          const parsed = JSON.parse(body);
          messages.push(...(Array.isArray(parsed) ? parsed : [parsed]));
        } catch {
          if (message.id !== undefined) throw new TransportError(`POST ${this.url}: HTTP ${response.status}, body is not JSON: ${body.slice(0, 200)}`);
        }
      }
      return { response, body, messages };
    }
    let buffer = "";
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut;
        while ((cut = buffer.search(/\r?\n\r?\n/)) !== -1) {
          const event = buffer.slice(0, cut);
          buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
          const data = event
            .split(/\r?\n/)
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5).replace(/^ /, ""))
            .join("\n");
          let m;
          try {
            m = data ? JSON.parse(data) : undefined;
          } catch {
            m = undefined;
          }
          if (!m) continue;
          messages.push(m);
          if (m.method !== undefined && m.id !== undefined) this.post(answerServerRequest(m)).catch(() => {});
          if (until(m)) {
            response.body.cancel().catch(() => {});
            return { response, body: "", messages };
          }
        }
      }
    } catch (e) {
      throw new TransportError(`POST ${this.url}: ${e.cause?.message ?? e.message}`);
    }
    return { response, body: buffer, messages };
  }

  async send(method, params) {
    const id = this.nextId++;
    const isAnswer = (m) => m && m.id === id && (m.result !== undefined || m.error !== undefined);
    const { response, body, messages } = await this.post({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }, isAnswer);
    const answer = messages.find(isAnswer);
    if (answer) return answer;
    throw new TransportError(`POST ${this.url} (${method}): HTTP ${response.status} without a JSON-RPC answer${body ? `: ${body.slice(0, 200)}` : ""}`);
  }

  notify(method, params) {
    return this.post({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) }).catch(() => {});
  }

  async close() {
    if (!this.sessionId) return;
    try {
      await fetch(this.url, { method: "DELETE", headers: this.headers(), signal: AbortSignal.timeout(2000) });
    } catch {
      /* the session ends anyway */
    }
  }
}

/** A target: `{ command: [...] }` or `{ url }`. Returns a function that opens a fresh connection. */
export function connector(target, { timeoutMs = 15000, env = {} } = {}) {
  if (target.url) return () => new HttpConnection(target.url, { timeoutMs });
  return () => new StdioConnection(target.command, { timeoutMs, env });
}
