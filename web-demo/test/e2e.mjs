// End-to-end scenarios of the web demo in a real browser (Debian's chromium, driven by
// playwright-core): one test per PLAN-1..15 of the SEP's testing plan at least, each driving the
// page's controls as a reviewer would and asserting what the panes show, which is the JSON the
// package produced. For the App View scenarios it reads what the sandboxed View itself reports
// it received. Prints `demo e2e: N passed, M failed`; a screenshot of the Apps scenario goes to
// tests/artifacts/web-demo-apps.png.
//
//   node test/e2e.mjs <built site dir>
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { chromiumLaunchOptions } from "../../tests/browser/chromium.mjs";
import { startServer } from "../serve.mjs";

const site = resolve(process.argv[2] ?? fileURLToPath(new URL("../../target/web-demo", import.meta.url)));
const repo = fileURLToPath(new URL("../../", import.meta.url));
const artifacts = join(repo, "tests/artifacts");
const fixtures = JSON.parse(readFileSync(join(repo, "core/examples/fixtures/produced.json"), "utf8"));
const APPS = "io.modelcontextprotocol/ui";
const MIN_SCENARIOS = 15;

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

// ---------------------------------------------------------------------------------------------
// Driving the page.

let page;

const runs = () => page.evaluate(() => Number(document.body.dataset.runs));

/** Does `action`, then waits until the page has finished one more call than before. */
async function act(action) {
  const before = await runs();
  await action();
  await page.waitForFunction((n) => Number(document.body.dataset.runs) > n, before, { timeout: 10_000 });
}

/** Sets the controls (each change replans and calls, as for a reviewer). */
async function setup({ tool, version, apps, mode, behaviour } = {}) {
  const select = async (id, value) => {
    if (value !== undefined && (await page.inputValue(id)) !== value) await act(() => page.selectOption(id, value));
  };
  await select("#tool", tool);
  await select("#version", version);
  if (apps !== undefined && (await page.isChecked("#apps")) !== apps) await act(() => page.setChecked("#apps", apps));
  await select("#mode", mode);
  await select("#behaviour", behaviour);
}

/** Types into an editor (requestedOutputs, produced, declaration) and clicks Call tool. */
async function edit(fields) {
  for (const [id, value] of Object.entries(fields)) {
    await page.fill(`#${id}`, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  }
  await act(() => page.click("#call"));
}

/** Everything the panes show, parsed back from their JSON. */
function snapshot() {
  return page.evaluate(() => {
    const q = (selector) => document.querySelector(selector);
    const parse = (selector) => {
      const node = q(selector);
      if (!node) return undefined;
      try {
        return JSON.parse(node.textContent);
      } catch {
        return node.textContent;
      }
    };
    const code = (selector) => q(selector)?.dataset.code;
    const count = (name) => q(`[data-pane="${name}"] .count`).textContent;
    return {
      outcome: q("#verdict").dataset.outcome,
      verdict: q("#verdict").textContent,
      version: q('[data-role="version"]')?.textContent,
      negotiated: q('[data-role="negotiated"]')?.textContent,
      handshake: parse('[data-role="handshake-request"]'),
      entry: parse('[data-role="entry"]'),
      declareError: code('[data-role="declare-error"]'),
      planError: code('[data-role="plan-error"]'),
      planLegacy: q('[data-role="plan-legacy"]')?.textContent,
      listError: code('[data-role="list-error"]'),
      listCache: q('[data-role="list-cache"]')?.textContent,
      excluded: [...document.querySelectorAll('[data-role="excluded"] li')].map((li) => ({
        index: Number(li.dataset.index),
        code: li.dataset.code,
        text: li.textContent,
      })),
      listResponse: parse('[data-role="list-response"]'),
      unlisted: q('[data-role="unlisted"]')?.textContent,
      legacyRule: q('[data-pane="program"] [data-role="legacy-rule"]')?.textContent,
      isError: q("#verdict").dataset.isError,
      planSchemas: parse('[data-role="plan-schemas"]'),
      request: parse('[data-role="request"]'),
      response: parse('[data-role="response"]'),
      rpcError: q('[data-role="rpc-error"]') && {
        code: code('[data-role="rpc-error"]'),
        rpc: Number(q('[data-role="rpc-error"]').dataset.rpc),
      },
      model: parse('[data-pane="model"] [data-role="outputs"]') ?? [],
      modelText: [...document.querySelectorAll('[data-pane="model"] .model-text')].map((p) => p.textContent),
      user: parse('[data-pane="user"] [data-role="outputs"]') ?? [],
      userImages: document.querySelectorAll('[data-pane="user"] img').length,
      userTableRows: document.querySelectorAll('[data-pane="user"] table tbody tr').length,
      program: parse('[data-pane="program"] [data-role="outputs"]') ?? [],
      counts: { model: count("model"), user: count("user"), program: count("program"), view: count("view") },
      viewPayload: parse('[data-role="payload"]'),
      viewState: q('[data-pane="view"]').dataset.viewState,
      frames: document.querySelectorAll('[data-pane="view"] iframe').length,
      frameSandbox: q('[data-pane="view"] iframe')?.getAttribute("sandbox"),
      dropped: parse('[data-pane="dropped"] [data-role="dropped"]'),
      droppedKinds: [...document.querySelectorAll('[data-pane="dropped"] li')].map((li) => li.dataset.kind),
      droppedText: q('[data-pane="dropped"] .body').textContent,
      editorError: q("#editor-error").textContent,
      requestedEditor: q("#requested").value,
    };
  });
}

/** Waits for the View's own report of what it received, and returns it. */
async function viewReport() {
  await page.waitForSelector('[data-pane="view"][data-view-state="reported"]', { timeout: 10_000 });
  return page.evaluate(() => JSON.parse(document.querySelector('[data-role="report"]').textContent));
}

const names = (outputs) => outputs.map((o) => `${o.audience}/${o.format}`);
const produced = (tool, selector) =>
  fixtures.produced[tool].outputs.find((o) => `${o.audience}/${o.format}` === selector);

/** The View got: the init result, the tool input, the tool result = the payload; nothing else. */
function assertViewGotOnly(report, payload, toolArguments) {
  const methods = report.received.map((m) => m.method ?? (m.result ? "result" : "?"));
  assert.deepEqual(methods, ["result", "ui/notifications/tool-input", "ui/notifications/tool-result"]);
  assert.deepEqual(report.received[1].params, { arguments: toolArguments });
  assert.deepEqual(report.received[2].params, payload);
}

// ---------------------------------------------------------------------------------------------
// The SEP's testing plan.

test("PLAN-1 conversational call: assistant/content only, to the model", async () => {
  await setup({ mode: "conversational" });
  let s = await snapshot();
  assert.equal(s.outcome, "routed");
  assert.equal("requestedOutputs" in s.request.params, false, "the fallback omits requestedOutputs");
  assert.deepEqual(names(s.response.result.outputs), ["assistant/content"]);
  assert.deepEqual(names(s.model), ["assistant/content"]);
  assert.match(s.modelText[0], /I found 37 Globex customer records/);
  assert.deepEqual([s.user, s.program, s.counts.view], [[], [], "0"]);
  assert.equal(s.frames, 0);
  assert.deepEqual(s.dropped.withheld.sort(), [
    "assistant/structured",
    `${APPS}/structured`,
    "programmatic/structured",
    "user/structured",
  ]);
  // Asking for it explicitly gives the same routing.
  await edit({ requested: [{ audience: "assistant", format: "content" }] });
  s = await snapshot();
  assert.deepEqual(s.request.params.requestedOutputs, [{ audience: "assistant", format: "content" }]);
  assert.deepEqual(names(s.model), ["assistant/content"]);
  assert.deepEqual(names(s.response.result.outputs), ["assistant/content"]);
});

test("PLAN-2 code mode: programmatic/structured goes to the program, never the model", async () => {
  await setup({ mode: "code" });
  const s = await snapshot();
  assert.deepEqual(s.request.params.requestedOutputs, [{ audience: "programmatic", format: "structured" }]);
  // The model writing code is shown the programmatic schema alone (SEL-7).
  const declared = JSON.parse(await page.inputValue("#declaration")).outputVariants;
  const programmatic = declared.find((v) => v.audience === "programmatic");
  assert.deepEqual(s.planSchemas, [{ audience: "programmatic", format: "structured", schema: programmatic.schema }]);
  assert.deepEqual(names(s.response.result.outputs), ["programmatic/structured"]);
  assert.deepEqual(
    s.program[0].structuredContent,
    produced("search_customers", "programmatic/structured").structuredContent,
  );
  assert.deepEqual([s.model, s.user, s.counts.model], [[], [], "0"]);
});

test("PLAN-3 structured-model call: assistant/structured enters model context", async () => {
  await setup({ mode: "structured-model" });
  const s = await snapshot();
  assert.deepEqual(s.request.params.requestedOutputs, [{ audience: "assistant", format: "structured" }]);
  assert.deepEqual(names(s.model), ["assistant/structured"]);
  assert.deepEqual(s.model[0].structuredContent, {
    totalMatches: 37,
    topAccounts: ["Globex Retail", "Globex Energy", "Globex Labs"],
  });
  assert.deepEqual([s.user, s.program], [[], []]);
});

test("PLAN-4 user-media call: the images render for the user, not the model", async () => {
  await setup({ tool: "generate_images", mode: "user-media" });
  const s = await snapshot();
  assert.deepEqual(s.request.params.requestedOutputs, [{ audience: "user", format: "content" }]);
  assert.deepEqual(names(s.user), ["user/content"]);
  assert.equal(s.userImages, 2);
  assert.deepEqual(s.model, []);
  // The block annotated for the assistant is reported, not obeyed (AUD-2).
  assert.ok(s.droppedKinds.includes("diagnostic"));
  assert.deepEqual(s.dropped.diagnostics, [{ code: "annotation-audience-conflict", path: "/outputs/0/content/1" }]);
});

test("PLAN-5 host-table call: user/structured renders as a table", async () => {
  await setup({ mode: "host-table" });
  const s = await snapshot();
  assert.deepEqual(s.request.params.requestedOutputs, [{ audience: "user", format: "structured" }]);
  assert.deepEqual(names(s.user), ["user/structured"]);
  assert.equal(s.userTableRows, 3);
  assert.deepEqual([s.model, s.program], [[], []]);
});

test("PLAN-6 Apps call: the model gets assistant/content, the sandboxed View only the ui output", async () => {
  await setup({ mode: "conversational" });
  await setup({ mode: "apps" });
  const s = await snapshot();
  assert.equal(s.negotiated, APPS);
  assert.deepEqual(s.request.params.requestedOutputs, [
    { audience: "assistant", format: "content" },
    { audience: APPS, format: "structured" },
  ]);
  assert.deepEqual(names(s.model), ["assistant/content"]);
  assert.deepEqual([s.user, s.program], [[], []]);
  assert.equal(s.frameSandbox, "allow-scripts");
  const ui = produced("search_customers", `${APPS}/structured`);
  assert.deepEqual(s.viewPayload.structuredContent, ui.structuredContent);
  assert.deepEqual(Object.keys(s.viewPayload._meta), [APPS]);
  const report = await viewReport();
  assertViewGotOnly(report, s.viewPayload, { query: "Globex" });
  // The host read the View's HTML on the same connection, with this revision's request `_meta`.
  const read = await page.evaluate(() =>
    JSON.parse(document.querySelector('[data-role="view-resource-request"]').textContent),
  );
  assert.equal(read.params.uri, "ui://crm/customer-table.html");
  assert.equal(read.params._meta["io.modelcontextprotocol/protocolVersion"], "2026-12-01");
  // The View rendered the table it was given (read inside the sandboxed frame).
  const frame = page.frameLocator('[data-pane="view"] iframe');
  assert.equal(await frame.locator("tbody tr").count(), ui.structuredContent.rows.length);
  assert.equal(await frame.locator("th").first().textContent(), "displayName");
  // The sandbox holds: the View's script cannot reach the host page.
  const reach = await page.frames()[1].evaluate(() => {
    try {
      return String(window.parent.document.title);
    } catch (error) {
      return `blocked: ${error.name}`;
    }
  });
  assert.match(reach, /^blocked/);
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, "web-demo-apps.png"), fullPage: true });
});

test("PLAN-7 declarations without assistant/content are rejected by the server", async () => {
  await setup({ tool: "customer_table" });
  let s = await snapshot();
  assert.equal(s.outcome, "not-listed");
  assert.equal(s.declareError, "missing-assistant-content");
  assert.equal(s.entry, undefined);
  await setup({ tool: "customer_stats" });
  s = await snapshot();
  assert.equal(s.declareError, "missing-assistant-content");
  // Editing a valid declaration down to its structured variants is refused the same way.
  await setup({ tool: "search_customers" });
  const declaration = JSON.parse(await page.inputValue("#declaration"));
  declaration.outputVariants = declaration.outputVariants.filter(
    (v) => v.audience !== "assistant" || v.format !== "content",
  );
  await edit({ declaration });
  s = await snapshot();
  assert.equal(s.declareError, "missing-assistant-content");
  assert.equal(s.outcome, "not-listed");
});

test("PLAN-8 App-only call requesting the ui output: only the View gets data", async () => {
  await setup({ tool: "refresh_dashboard", mode: "app-only" });
  const s = await snapshot();
  assert.match(s.verdict, /routed/);
  assert.deepEqual(s.request.params.requestedOutputs, [{ audience: APPS, format: "structured" }]);
  assert.deepEqual(names(s.response.result.outputs), [`${APPS}/structured`]);
  assert.deepEqual([s.model, s.user, s.program], [[], [], []]);
  assert.deepEqual(
    s.viewPayload.structuredContent,
    produced("refresh_dashboard", `${APPS}/structured`).structuredContent,
  );
  assert.deepEqual(s.viewPayload._meta, { [APPS]: { continuationToken: "dash_opaque_token" } });
  assertViewGotOnly(await viewReport(), s.viewPayload, {});
  assert.match(s.droppedText, /com\.example\/trace/);
});

test("PLAN-8 the App's own tools/call: the host asks for the ui output alone and answers with the View payload", async () => {
  await setup({ tool: "refresh_dashboard", mode: "app-only" });
  const first = await snapshot();
  await viewReport();
  const frame = page.frameLocator('[data-pane="view"] iframe');
  await frame.locator("#refresh").click();
  await page.waitForSelector('[data-pane="view"][data-view-reports="2"]', { timeout: 10_000 });
  const report = await page.evaluate(() => JSON.parse(document.querySelector('[data-role="report"]').textContent));
  const answer = report.received.at(-1);
  assert.equal(answer.id, 2);
  assert.deepEqual(answer.result, first.viewPayload, "the View gets the View payload again, nothing more");
  const calls = await page.evaluate(() => JSON.parse(document.querySelector('[data-role="view-calls"]').textContent));
  assert.deepEqual(calls, [
    {
      name: "refresh_dashboard",
      requestedOutputs: [{ audience: APPS, format: "structured" }],
      outcome: "view payload",
    },
  ]);
});

test("PLAN-9 App-only tool called without requestedOutputs: the assistant/content fallback", async () => {
  await setup({ tool: "refresh_dashboard", mode: "conversational" });
  const s = await snapshot();
  assert.equal("requestedOutputs" in s.request.params, false);
  assert.deepEqual(names(s.response.result.outputs), ["assistant/content"]);
  assert.match(s.modelText[0], /sales dashboard was refreshed/);
  assert.equal(s.viewPayload, undefined);
  assert.equal(s.frames, 0);
  assert.ok(s.droppedKinds.includes("meta"), "the ui _meta has no View to go to");
});

test("PLAN-10 undeclared and unnegotiated selectors: JSON-RPC -32602 with the exact code", async () => {
  await setup({ tool: "generate_images" });
  await edit({ requested: [{ audience: "programmatic", format: "structured" }] });
  let s = await snapshot();
  assert.equal(s.outcome, "server-error");
  assert.deepEqual(s.rpcError, { code: "undeclared-variant", rpc: -32602 });
  assert.equal(s.response.error.data.mcpOutputsCode, "undeclared-variant");
  assert.equal(s.frames + s.model.length, 0);

  await setup({ tool: "search_customers", apps: false, mode: "conversational" });
  await edit({ requested: [{ audience: APPS, format: "structured" }] });
  s = await snapshot();
  assert.deepEqual(s.rpcError, { code: "unnegotiated-extension", rpc: -32602 });

  await edit({ requested: "[]" });
  assert.deepEqual((await snapshot()).rpcError, { code: "empty-selection", rpc: -32602 });
  const twice = { audience: "assistant", format: "content" };
  await edit({ requested: [twice, twice] });
  assert.deepEqual((await snapshot()).rpcError, { code: "duplicate-selector", rpc: -32602 });
  await edit({ requested: '[{"audience": "host", "format": "content"}]' });
  assert.deepEqual((await snapshot()).rpcError, { code: "invalid-audience", rpc: -32602 });
  await edit({ requested: "[{oops" });
  s = await snapshot();
  assert.equal(s.response.error.code, -32700, "text that is not JSON is a parse error");
});

test("PLAN-11 programmatic and App schemas are validated independently, by server and host", async () => {
  // Server side: the programmatic output no longer fits its schema.
  await setup({ mode: "code" });
  const computed = JSON.parse(await page.inputValue("#produced"));
  delete computed.outputs.find((o) => o.audience === "programmatic").structuredContent.items;
  await edit({ produced: computed });
  let s = await snapshot();
  assert.equal(s.outcome, "server-error");
  assert.equal(s.rpcError.code, "schema-violation");

  // Host side: a server that does not validate sends an App output holding the code-mode
  // payload: valid for the programmatic schema, not for the App's; the host refuses it.
  await setup({ behaviour: "send-all" });
  await edit({
    produced: fixtures.produced["search_customers/ui-holds-programmatic-data"],
    requested: [
      { audience: "programmatic", format: "structured" },
      { audience: APPS, format: "structured" },
    ],
  });
  s = await snapshot();
  assert.equal(s.outcome, "result-rejected");
  assert.match(s.verdict, /schema-violation at \/outputs\/1\/structuredContent/);
  assert.deepEqual([s.program, s.frames], [[], 0]);
});

test("PLAN-12 under 2026-07-28 the host never sends requestedOutputs", async () => {
  await setup({ version: "2026-07-28", mode: "conversational" });
  let s = await snapshot();
  assert.equal(s.handshake.method, "server/discover");
  assert.equal("requestedOutputs" in s.request.params, false);
  assert.equal(s.request.params._meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  assert.equal(s.outcome, "routed");
  assert.ok("content" in s.response.result && !("outputs" in s.response.result));
  // The code mode plans no requestedOutputs here either: only a local rule for a legacy
  // structuredContent (LEG-8).
  await setup({ mode: "code" });
  s = await snapshot();
  assert.equal(s.planError, undefined);
  assert.equal(s.planLegacy, "programmatic");
  assert.equal("requestedOutputs" in s.request.params, false);
  assert.equal(s.requestedEditor, "");
  // A mode no legacy field can serve cannot be planned on this revision.
  await setup({ mode: "user-media" });
  s = await snapshot();
  assert.equal(s.planError, "requested-outputs-on-legacy-version");
  assert.equal("requestedOutputs" in s.request.params, false);
  // And a server refuses one sent anyway (SEL-2).
  await edit({ requested: [{ audience: "assistant", format: "content" }] });
  assert.deepEqual((await snapshot()).rpcError, { code: "requested-outputs-on-legacy-version", rpc: -32602 });
});

test("PLAN-13 the legacy projection: 2025-06-18 tools/list and result shapes", async () => {
  await setup({ version: "2025-06-18", apps: false, mode: "conversational" });
  const s = await snapshot();
  assert.equal(s.handshake.method, "initialize");
  assert.equal(s.version, "2025-06-18");
  assert.equal("outputVariants" in s.entry, false);
  assert.deepEqual(s.entry.outputSchema.required, ["totalMatches", "topAccounts"]);
  const result = s.response.result;
  assert.deepEqual(result.structuredContent, produced("search_customers", "assistant/structured").structuredContent);
  // The revision's mirroring: structuredContent serialised into a text block (LEG-4).
  const mirrored = result.content
    .filter((b) => b.type === "text" && b.text.startsWith("{"))
    .map((b) => JSON.parse(b.text));
  assert.deepEqual(mirrored, [result.structuredContent]);
  assert.equal("resultType" in result, false);
  assert.ok(s.droppedKinds.includes("not-advertised"));
});

test("PLAN-14 a Tool without outputVariants is rejected under 2026-12-01, accepted before", async () => {
  // A conforming server cannot list its un-migrated tool on 2026-12-01 (LIST-1).
  await setup({ tool: "get_forecast" });
  let s = await snapshot();
  assert.equal(s.outcome, "not-listed");
  assert.match(s.unlisted, /get_forecast is not in tools\/list/);
  assert.ok(!s.listResponse.result.tools.some((t) => t.name === "get_forecast"));
  assert.equal(s.request, undefined, "no call is made");
  // A server that lists it anyway: the host refuses the whole response, not just that Tool (LIST-2).
  await setup({ behaviour: "lists-legacy" });
  s = await snapshot();
  assert.equal(s.outcome, "list-rejected");
  assert.equal(s.listError, "missing-output-variants");
  assert.equal(s.request, undefined, "no call is made");
  await setup({ version: "2026-07-28" });
  s = await snapshot();
  assert.equal(s.outcome, "routed");
  assert.deepEqual(names(s.model), ["assistant/content"]);
  assert.ok(s.droppedKinds.includes("legacy"), "legacy structuredContent has no assumed audience (LEG-5)");
});

test("PLAN-15 unrequested outputs and metadata reach neither the model nor the View", async () => {
  // A conforming server: the View gets the ui output and ui _meta only; the trace _meta is dropped.
  let s = await snapshot();
  assert.equal(s.outcome, "routed");
  assert.deepEqual(Object.keys(s.viewPayload).sort(), ["_meta", "content", "structuredContent"]);
  assert.deepEqual(s.viewPayload.content, []);
  assert.deepEqual(Object.keys(s.viewPayload._meta), [APPS]);
  assert.deepEqual(s.dropped.dropped, [{ meta: "com.example/trace" }]);
  assertViewGotOnly(await viewReport(), s.viewPayload, { query: "Globex" });
  // A server that sends every output: the host refuses the result; nothing is routed anywhere.
  await setup({ behaviour: "send-all" });
  s = await snapshot();
  assert.equal(s.response.result.outputs.length, 5);
  assert.equal(s.outcome, "result-rejected");
  assert.match(s.verdict, /unrequested-output/);
  assert.deepEqual([s.model, s.user, s.program, s.frames], [[], [], [], 0]);
});

// ---------------------------------------------------------------------------------------------
// Contract version 2.

test("LIST-2 a 2026-12-01 tools/list holding a legacy Tool is refused as a whole, and the page says why", async () => {
  await setup({ behaviour: "lists-legacy" });
  let s = await snapshot();
  // The server did send every other tool in the new shape: only the whole list is at fault.
  const listed = s.listResponse.result.tools;
  assert.ok(listed.some((t) => t.name === "search_customers" && Array.isArray(t.outputVariants)));
  const legacy = listed.find((t) => t.name === "get_forecast");
  assert.ok(legacy && !("outputVariants" in legacy) && "outputSchema" in legacy);
  assert.equal(s.outcome, "list-rejected");
  assert.equal(s.listError, "missing-output-variants");
  assert.match(s.verdict, /whole tools\/list response as invalid \(missing-output-variants/);
  assert.equal(s.entry, undefined);
  assert.equal(s.request, undefined, "a valid tool of an invalid list is not called either");
  assert.deepEqual([s.model, s.user, s.program, s.frames], [[], [], [], 0]);
  // The same server on 2026-07-28: the legacy shape is that revision's, and the list is accepted.
  await setup({ version: "2026-07-28", mode: "conversational" });
  s = await snapshot();
  assert.equal(s.listError, undefined);
  assert.equal(s.outcome, "routed");
  // And a conforming server on 2026-12-01 leaves the un-migrated tool out.
  await setup({ version: "2026-12-01", behaviour: "conforming" });
  s = await snapshot();
  assert.equal(s.outcome, "routed");
  assert.ok(!s.listResponse.result.tools.some((t) => t.name === "get_forecast"));
});

test("LIST-3 a malformed Tool and a duplicated name are excluded on their own; the other tools stay usable", async () => {
  await setup({ version: "2026-12-01", mode: "conversational", behaviour: "lists-broken" });
  let s = await snapshot();
  const names = s.listResponse.result.tools.map((t) => t.name);
  assert.ok(names.includes("twice_declared") && names.filter((n) => n === "lookup").length === 2);
  assert.equal(s.outcome, "routed", "the chosen tool is still called");
  assert.equal(s.listError, undefined);
  const byCode = s.excluded.map(({ index, code }) => [names[index], code]);
  assert.deepEqual(byCode, [
    ["twice_declared", "duplicate-variant"],
    ["lookup", "duplicate-tool-name"],
    ["lookup", "duplicate-tool-name"],
  ]);
  assert.match(s.excluded[0].text, /twice_declared — tools\[\d+\]: duplicate-variant at \/tools\/\d+\/outputVariants\/1/);
  // Under 2025-06-18 the broken entry is a legacy Tool whose outputSchema is not an object.
  await setup({ version: "2025-06-18" });
  s = await snapshot();
  assert.equal(s.outcome, "routed");
  assert.deepEqual(s.excluded.map((e) => e.code), ["malformed", "duplicate-tool-name", "duplicate-tool-name"]);
  // A conforming server: nothing excluded, and the page lists no exclusion.
  await setup({ version: "2026-12-01", behaviour: "conforming" });
  s = await snapshot();
  assert.deepEqual(s.excluded, []);
});

test("SEP-2549 a 2026-07-28 tools/list carries the server's cache fields, shown in the pane", async () => {
  await setup({ version: "2026-07-28", mode: "conversational" });
  let s = await snapshot();
  const result = s.listResponse.result;
  assert.equal(result.resultType, "complete");
  // The list varies with each request's extensions (Apps), so it is never for a shared cache.
  assert.deepEqual([result.ttlMs, result.cacheScope], [300000, "private"]);
  assert.equal(s.listCache, "ttlMs 300000 · cacheScope private");
  assert.equal(s.outcome, "routed", "the host accepts the list (discoverTools requires the fields)");
  await setup({ version: "2026-12-01" });
  s = await snapshot();
  assert.deepEqual([s.listResponse.result.ttlMs, s.listResponse.result.cacheScope], [300000, "private"]);
  // Before 2026-07-28 there are no cache fields, and the pane shows none.
  await setup({ version: "2025-11-25" });
  s = await snapshot();
  assert.equal("ttlMs" in s.listResponse.result || "cacheScope" in s.listResponse.result, false);
  assert.equal(s.listCache, undefined);
});

test("LEG-8 code mode against a legacy server: structuredContent goes to program logic by the host's rule", async () => {
  const forecast = JSON.parse(readFileSync(join(repo, "web-demo/site/fixtures/legacy-server.json"), "utf8"));
  await setup({ tool: "get_forecast", version: "2026-07-28", mode: "code" });
  let s = await snapshot();
  assert.equal(s.outcome, "routed");
  assert.equal(s.planLegacy, "programmatic");
  assert.equal("requestedOutputs" in s.request.params, false);
  assert.deepEqual(s.program, [
    {
      audience: "programmatic",
      format: "structured",
      structuredContent: forecast.results.get_forecast.structuredContent,
    },
  ]);
  assert.equal(s.counts.program, "1");
  assert.equal(s.legacyRule, "legacyStructured: programmatic");
  assert.deepEqual(names(s.model), ["assistant/content"]);
  assert.ok(!s.droppedKinds.includes("legacy"), "not dropped: the rule gave it a consumer");
  // It is still validated against the Tool's outputSchema.
  const bad = structuredClone(forecast.results.get_forecast);
  delete bad.structuredContent.days;
  await edit({ produced: bad });
  s = await snapshot();
  assert.equal(s.outcome, "result-rejected");
  assert.deepEqual(s.program, []);
  // Without a rule (conversational) it has no consumer: dropped (LEG-5).
  await edit({ produced: forecast.results.get_forecast });
  await setup({ mode: "conversational" });
  s = await snapshot();
  assert.equal(s.planLegacy, undefined);
  assert.deepEqual([s.program, s.legacyRule], [[], undefined]);
  assert.ok(s.droppedKinds.includes("legacy"));
  // A migrated tool projected for 2025-06-18: its structuredContent goes to the program too.
  await setup({ tool: "search_customers", version: "2025-06-18", apps: false, mode: "code" });
  s = await snapshot();
  assert.equal(s.handshake.method, "initialize");
  assert.deepEqual(names(s.program), ["programmatic/structured"]);
  assert.deepEqual(s.program[0].structuredContent, s.response.result.structuredContent);
  // With Apps, an Apps tool's legacy result is the View's (the legacy Apps rule): not the program's.
  await setup({ version: "2026-07-28", apps: true });
  s = await snapshot();
  assert.equal(s.planLegacy, "programmatic");
  assert.deepEqual(s.program, []);
  assert.deepEqual(s.viewPayload, s.response.result);
});

test("ERR-5 the route says whether the tool failed, even with nothing to route", async () => {
  await setup({ mode: "conversational" });
  let s = await snapshot();
  assert.equal(s.isError, "false");
  const computed = JSON.parse(await page.inputValue("#produced"));
  await edit({ produced: { ...computed, isError: true } });
  s = await snapshot();
  assert.equal(s.outcome, "routed");
  assert.equal(s.response.result.isError, true);
  assert.equal(s.isError, "true");
  assert.match(s.verdict, /the tool reported an error \(isError\)/);
  assert.deepEqual(names(s.model), ["assistant/content"]);
  // A legacy error result with no content: not a malformed result, a failure with nothing to route.
  await setup({ tool: "get_forecast", version: "2026-07-28" });
  await edit({ produced: { content: [], isError: true } });
  s = await snapshot();
  assert.equal(s.outcome, "routed");
  assert.equal(s.isError, "true");
  assert.deepEqual([s.model, s.user, s.program], [[], [], []]);
  assert.deepEqual(s.dropped.diagnostics, [{ code: "empty-error-outputs", path: "" }]);
  assert.match(s.droppedText, /ERR-5/);
});

test("MRTR-1 an input_required answer routes nothing and does not break the page", async () => {
  await setup({ tool: "get_forecast", version: "2026-07-28", mode: "code" });
  const answer = {
    resultType: "input_required",
    inputRequests: {
      confirm: {
        method: "elicitation/create",
        params: { message: "Forecast for Seattle?", requestedSchema: { type: "object", properties: {} } },
      },
    },
    requestState: "forecast-step-2",
  };
  await edit({ produced: answer });
  let s = await snapshot();
  assert.equal(s.outcome, "input-required");
  assert.deepEqual(s.response.result, answer);
  assert.match(s.verdict, /input_required/);
  assert.deepEqual([s.model, s.user, s.program, s.frames], [[], [], [], 0]);
  assert.deepEqual([s.counts.model, s.counts.program], ["", ""]);
  // Before 2026-07-28 there are no multi-round-trip answers: the host refuses it as malformed.
  await setup({ version: "2025-11-25" });
  s = await snapshot();
  assert.equal(s.outcome, "result-rejected");
  assert.match(s.verdict, /malformed/);
});

// ---------------------------------------------------------------------------------------------
// Around the plan.

test("APP-3 without Apps the ui variant is not advertised and the apps mode falls back", async () => {
  await setup({ apps: false, mode: "apps" });
  const s = await snapshot();
  assert.equal(s.negotiated, "none");
  assert.ok(!s.entry.outputVariants.some((v) => v.audience === APPS));
  assert.match(s.droppedText, /not advertised/);
  assert.equal(s.planError, "unnegotiated-extension");
  assert.deepEqual(names(s.response.result.outputs), ["assistant/content"]);
  assert.equal(s.frames, 0);
});

test("APP-6/APP-7 under 2025-11-25 with Apps the View gets the legacy result", async () => {
  await setup({ tool: "refresh_dashboard", version: "2025-11-25", mode: "conversational" });
  const s = await snapshot();
  assert.equal(s.negotiated, APPS);
  assert.deepEqual(s.viewPayload, s.response.result);
  assert.deepEqual(
    s.viewPayload.structuredContent,
    produced("refresh_dashboard", `${APPS}/structured`).structuredContent,
  );
  assertViewGotOnly(await viewReport(), s.viewPayload, {});
});

test("the revisions offered are the package's, newest first", async () => {
  const versions = await page.$$eval("#version option", (options) => options.map((o) => o.value));
  assert.deepEqual(versions, ["2026-12-01", "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]);
  await setup({ version: "2024-11-05", mode: "conversational" });
  const s = await snapshot();
  assert.equal(s.version, "2024-11-05");
  assert.equal(s.outcome, "routed");
  assert.equal("structuredContent" in s.response.result, false, "2024-11-05 has no structuredContent");
});

test("malformed declarations and tool outputs get typed errors, never a broken page", async () => {
  await edit({ declaration: "[]" });
  let s = await snapshot();
  assert.equal(s.outcome, "not-listed");
  assert.equal(s.declareError, "malformed");
  await setup({ tool: "generate_images" });
  await edit({ produced: { outputs: 5 } });
  s = await snapshot();
  assert.equal(s.outcome, "server-error");
  assert.deepEqual(s.rpcError, { code: "malformed", rpc: -32603 }, "the tool's own output is the server's fault");
  await edit({ produced: { outputs: [{ audience: "assistant", format: "content", content: [] }] } });
  s = await snapshot();
  assert.equal(s.rpcError.code, "empty-assistant-content");
});

test("the page runs the package's default build, payloads validated by its own validator (@cfworker/json-schema)", async () => {
  const loaded = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname));
  assert.ok(loaded.includes("/pkg/wasm/core/mcp_outputs_js_bg.wasm"), `the default wasm: ${loaded.join(" ")}`);
  assert.ok(!loaded.some((path) => path.includes("/wasm/full/")), "not the full build");
  assert.ok(loaded.includes("/vendor/cfworker-json-schema/index.js"), "the page's validator");
  // A structured output that breaks its schema is the server's own fault: the validator ran.
  await setup({ tool: "refresh_dashboard", apps: true, mode: "apps" });
  await edit({ produced: { outputs: [
    { audience: "assistant", format: "content", content: [{ type: "text", text: "refreshed" }] },
    { audience: "io.modelcontextprotocol/ui", format: "structured", structuredContent: { datasetVersion: 7 } },
  ] } });
  const s = await snapshot();
  assert.deepEqual(s.rpcError, { code: "schema-violation", rpc: -32603 });
  const message = await page.evaluate(() => document.querySelector('[data-role="rpc-error"]').textContent);
  assert.match(message, /Instance type "number" is invalid/, "cfworker's own words");
});

test("an editor holding text that is not JSON is reported, and nothing is sent", async () => {
  const before = await runs();
  await page.fill("#produced", "{ not json");
  await page.click("#call");
  await page.waitForFunction(() => document.querySelector("#editor-error").textContent !== "");
  const s = await snapshot();
  assert.match(s.editorError, /not JSON/);
  assert.equal(await runs(), before);
});

// ---------------------------------------------------------------------------------------------
// Runner.

const { server, url } = await startServer(site, 0);
const profile = mkdtempSync(join(tmpdir(), "mcp-outputs-demo-chromium-"));
// A persistent context on a fresh profile folder: the machine's chromium gets its own
// --user-data-dir, as DEVELOPERS.md asks; each test then opens its own page in it.
const browser = await chromium.launchPersistentContext(profile, {
  ...chromiumLaunchOptions,
  viewport: { width: 1680, height: 1050 },
});
let passed = 0;
let failed = 0;
try {
  for (const { name, fn } of tests) {
    page = await browser.newPage();
    const pageErrors = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("console", (message) => message.type() === "error" && pageErrors.push(message.text()));
    try {
      await page.goto(url);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
      await fn();
      assert.deepEqual(pageErrors, [], "the page logged no errors");
      // A list put where a node belongs renders as "[object …]": never on a rendered pane.
      const text = await page.evaluate(() => document.body.innerText);
      assert.doesNotMatch(text, /\[object \w+\]/, "no pane shows an unrendered object");
      passed += 1;
      console.log(`ok   ${name}`);
    } catch (error) {
      failed += 1;
      console.log(
        `FAIL ${name}\n     ${String(error.stack ?? error)
          .split("\n")
          .slice(0, 8)
          .join("\n     ")}`,
      );
      if (pageErrors.length) console.log(`     page errors: ${pageErrors.join(" | ")}`);
    } finally {
      await page.close();
    }
  }
} finally {
  await browser.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(`demo e2e: ${passed} passed, ${failed} failed`);
if (failed > 0 || passed < MIN_SCENARIOS) process.exit(1);
