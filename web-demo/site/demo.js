// The page: loads the fixtures, sets up the server and host roles, and renders every step of a
// call into the panes. All JSON shown comes from the package (through the two roles); this file
// only lays it out.
import { coreVersion, protocolVersions, setValidator } from "mcp-outputs";
import { DemoServer, SERVER_BEHAVIOURS } from "./server.js";
import { APPS_EXTENSION, DemoHost } from "./host.js";
import { mountView } from "./view-bridge.js";
import { validator } from "./validator.js";

// The package's default build: structured payloads are validated by the page's own validator.
setValidator(validator);

const $ = (selector) => document.querySelector(selector);
const pane = (name) => $(`[data-pane="${name}"]`);
const pretty = (value) => JSON.stringify(value, null, 2);

// ---------------------------------------------------------------------------------------------
// DOM helpers: text only (server output is untrusted; nothing goes through innerHTML).

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null) continue;
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const json = (value, role) => el("pre", { class: "json", "data-role": role }, pretty(value));
const label = (text) => el("div", { class: "label" }, text);
const note = (...children) => el("p", { class: "note" }, ...children);
const empty = (text) => el("p", { class: "empty" }, text);
const selectorName = (o) => `${o.audience}/${o.format}`;

function errorBox(role, error, lead) {
  return el(
    "div",
    { class: "error-box", "data-role": role, "data-code": error.code },
    lead ? [lead, " "] : null,
    el("span", { class: "code" }, error.code),
    error.path ? [" at ", el("code", {}, error.path)] : null,
    ": ",
    error.message,
  );
}

/** A text that may or may not be JSON: pretty when it parses, verbatim when not. */
function wireText(text, role) {
  try {
    return json(JSON.parse(text), role);
  } catch {
    return el("pre", { class: "raw", "data-role": role }, text);
  }
}

/** A structured value as a table when it is one (array of objects, or an object), else JSON. */
function dataTable(value) {
  const rows = Array.isArray(value) ? value : null;
  if (rows && rows.length && rows.every((r) => r && typeof r === "object" && !Array.isArray(r))) {
    const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    return el(
      "table",
      { class: "data" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          keys.map((k) => el("th", {}, k)),
        ),
      ),
      el(
        "tbody",
        {},
        rows.map((r) =>
          el(
            "tr",
            {},
            keys.map((k) => el("td", {}, cellText(r[k]))),
          ),
        ),
      ),
    );
  }
  if (value && typeof value === "object" && !Array.isArray(value)) {
    return el(
      "table",
      { class: "data" },
      el(
        "tbody",
        {},
        Object.entries(value).map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, cellText(v)))),
      ),
    );
  }
  return json(value);
}

const cellText = (v) => (v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v));

/** Content blocks as a user sees them: text, images, audio; other blocks as JSON. */
function contentBlocks(blocks, textClass) {
  const images = el("div", { class: "images" });
  const nodes = [];
  for (const block of blocks ?? []) {
    if (block?.type === "text") nodes.push(el("p", { class: textClass }, block.text));
    else if (block?.type === "image" && /^image\/[\w.+-]+$/.test(block.mimeType ?? "")) {
      images.append(
        el("img", { src: `data:${block.mimeType};base64,${block.data}`, alt: `image (${block.mimeType})` }),
      );
    } else if (block?.type === "audio" && /^audio\/[\w.+-]+$/.test(block.mimeType ?? "")) {
      nodes.push(el("audio", { controls: "", src: `data:${block.mimeType};base64,${block.data}` }));
    } else nodes.push(json(block));
  }
  if (images.childElementCount) nodes.push(images);
  return nodes;
}

// ---------------------------------------------------------------------------------------------
// Fixtures: the terminal walkthrough's tools (core/examples/fixtures) plus a legacy server tool.

async function loadJson(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

async function loadCatalogue() {
  const [tools, produced, legacy, viewHtml] = await Promise.all([
    loadJson("fixtures/tools.json"),
    loadJson("fixtures/produced.json"),
    loadJson("fixtures/legacy-server.json"),
    fetch("view/app-view.html").then((r) => r.text()),
  ]);
  const declared = tools.tools.map((tool) => ({
    kind: "declared",
    tool,
    produced: produced.produced[tool.name],
    arguments: produced.arguments[tool.name] ?? {},
    note: tool.description,
  }));
  const legacyTools = legacy.tools.map((tool) => ({
    kind: "legacy",
    tool,
    produced: legacy.results[tool.name],
    arguments: legacy.arguments[tool.name] ?? {},
    note: "Not migrated: served in the 2026-07-28 shape (outputSchema, no outputVariants), answered with a legacy result. A conforming server leaves it out of a 2026-12-01 tools/list.",
  }));
  const broken = tools.invalidDeclarations.map(({ why, tool }) => ({
    kind: "declared",
    broken: true,
    tool,
    produced: { outputs: [] },
    arguments: {},
    note: `Deliberately broken: ${why}.`,
  }));
  const resources = {};
  for (const { tool } of [...declared, ...broken]) {
    const uri = tool._meta?.ui?.resourceUri;
    if (uri) resources[uri] = viewHtml;
  }
  return { entries: [...declared, ...legacyTools, ...broken], serverCapabilities: tools.serverCapabilities, resources };
}

function kindLabel(entry) {
  if (entry.kind === "legacy") return "legacy-only, not migrated";
  if (entry.broken) return "broken declaration";
  const visibility = entry.tool._meta?.ui?.visibility;
  if (Array.isArray(visibility) && !visibility.includes("model")) return "App-only";
  return `${entry.tool.outputVariants.length} variants`;
}

// ---------------------------------------------------------------------------------------------
// The page.

const { entries, serverCapabilities, resources } = await loadCatalogue();
const server = new DemoServer(serverCapabilities, resources);
const host = new DemoHost((text) => server.handle(text));
/** Per tool: the editors' texts, kept while the reviewer switches tools. */
const edits = new Map();
let requestedEdited = false;
let unmountView = () => {};

for (const entry of entries) {
  edits.set(entry.tool.name, { declaration: pretty(entry.tool), produced: pretty(entry.produced) });
  if (entry.kind === "legacy") server.serveLegacy(entry.tool.name, entry.tool, entry.produced);
  else server.declare(entry.tool.name, entry.tool, entry.produced);
}

$("#core-version").textContent = `mcp-outputs core ${coreVersion} · wasm`;
for (const entry of entries)
  $("#tool").append(el("option", { value: entry.tool.name }, `${entry.tool.name} · ${kindLabel(entry)}`));
for (const version of [...protocolVersions].reverse()) $("#version").append(el("option", { value: version }, version));
for (const [value, { label: text }] of Object.entries(SERVER_BEHAVIOURS))
  $("#behaviour").append(el("option", { value }, text));
const showBehaviourHint = () => ($("#behaviour-note").textContent = SERVER_BEHAVIOURS[$("#behaviour").value].hint);
showBehaviourHint();

const currentEntry = () => entries.find((e) => e.tool.name === $("#tool").value);

function loadEditors() {
  const entry = currentEntry();
  const saved = edits.get(entry.tool.name);
  $("#declaration").value = saved.declaration;
  $("#produced").value = saved.produced;
  $("#produced-label").textContent =
    entry.kind === "legacy" ? "The legacy result the server sends" : "What the tool computed (every output)";
  $("#tool-note").textContent = entry.note;
}

function setRequestedEdited(edited) {
  requestedEdited = edited;
  $("#requested-state").textContent = edited ? "edited: sent as typed" : "planned";
  $("#requested-state").classList.toggle("edited", edited);
}

function readEditor(id, what) {
  try {
    return JSON.parse($(id).value);
  } catch (error) {
    throw new Error(`${what} is not JSON: ${error.message}`);
  }
}

const connectionControls = () => ({ protocolVersion: $("#version").value, apps: $("#apps").checked });

function run() {
  const entry = currentEntry();
  $("#editor-error").textContent = "";
  let declaration;
  let produced;
  try {
    declaration = readEditor("#declaration", "The tool declaration");
    produced = readEditor("#produced", "What the tool computed");
  } catch (error) {
    $("#editor-error").textContent = error.message;
    return;
  }
  edits.set(entry.tool.name, { declaration: $("#declaration").value, produced: $("#produced").value });
  // An edited name is the tool's new name; the catalogue's otherwise (a declaration that is not
  // even an object still gets refused under a name the panes can show).
  const toolName = typeof declaration?.name === "string" ? declaration.name : entry.tool.name;
  if (entry.kind === "legacy") server.serveLegacy(toolName, declaration, produced);
  else server.declare(toolName, declaration, produced);
  server.behaviour = $("#behaviour").value;

  try {
    const trace = host.run({
      ...connectionControls(),
      mode: $("#mode").value,
      toolName,
      arguments: entry.arguments,
      requestedOutputsText: requestedEdited ? $("#requested").value : null,
    });
    if (!requestedEdited) $("#requested").value = trace.plannedText ? pretty(JSON.parse(trace.plannedText)) : "";
    render(trace, declaration, produced);
  } catch (error) {
    // Not an outcome of the protocol: a fault of the page itself. Say so instead of freezing.
    $("#verdict").className = "verdict bad";
    $("#verdict").dataset.outcome = "page-error";
    $("#verdict").textContent = `The demo page failed: ${error?.stack ?? error}`;
    console.error(error);
  }
  document.body.dataset.runs = String(Number(document.body.dataset.runs) + 1);
}

// ---------------------------------------------------------------------------------------------
// Rendering one trace.

function fill(name, ...children) {
  const body = pane(name).querySelector(".body");
  body.replaceChildren(...children.flat(Infinity).filter(Boolean));
}

function setCount(name, count) {
  pane(name).querySelector(".count").textContent = count === null ? "" : String(count);
}

function render(trace, declaration, produced) {
  unmountView();
  unmountView = () => {};
  renderConnection(trace);
  renderToolsList(trace, declaration);
  renderRequest(trace);
  renderResponse(trace);
  renderVerdict(trace);
  renderRouting(trace, declaration, produced);
}

function renderConnection({ handshake, connection }) {
  const negotiated = connection?.negotiated ?? [];
  fill(
    "connection",
    connection
      ? note(
          "Protocol ",
          el("b", { "data-role": "version" }, connection.protocolVersion),
          " · extensions: ",
          el("b", { "data-role": "negotiated" }, negotiated.length ? negotiated.join(", ") : "none"),
        )
      : null,
    label(`request: ${JSON.parse(handshake.requestText).method}`),
    wireText(handshake.requestText, "handshake-request"),
    label("response"),
    wireText(handshake.responseText, "handshake-response"),
  );
}

function renderToolsList(trace, declaration) {
  const name = trace.toolName;
  const parts = [];
  const refused = server.rejected.get(name);
  if (refused) {
    parts.push(
      errorBox(
        "declare-error",
        refused.toJSON(),
        "The server's declareTool refused this declaration, so tools/list does not carry it:",
      ),
    );
  } else if (trace.listError) {
    parts.push(
      errorBox(
        "list-error",
        trace.listError,
        "The host treats the whole tools/list response as invalid (LIST-2) and uses none of its tools:",
      ),
    );
  } else if (!trace.entry && trace.toolsList) {
    const unlisted = server.unlistedOn(trace.connection?.protocolVersion).includes(name);
    parts.push(
      unlisted
        ? note(
            el("b", { "data-role": "unlisted" }, `${name} is not in tools/list`),
            ": a legacy Tool (no outputVariants) cannot be sent on this revision, so the server leaves its un-migrated tool out (LIST-1).",
          )
        : empty(`${name} is not in tools/list.`),
    );
  }
  if (trace.excluded?.length) {
    parts.push(
      note(
        "Excluded from tools/list on its own (LIST-3): the host uses every other tool.",
      ),
      el(
        "ul",
        { "data-role": "excluded" },
        ...trace.excluded.map(({ index, name, code, path, message }) =>
          el(
            "li",
            { "data-code": code, "data-index": String(index) },
            el("b", {}, name ?? "(no name)"),
            ` — tools[${index}]: `,
            el("code", {}, code),
            ` at ${path}: ${message}`,
          ),
        ),
      ),
    );
  }
  if (trace.listCache) {
    parts.push(
      note(
        "tools/list cache (SEP-2549): ",
        el("span", { "data-role": "list-cache" }, `ttlMs ${trace.listCache.ttlMs} · cacheScope ${trace.listCache.cacheScope}`),
      ),
    );
  }
  if (trace.entry) {
    const visibility = trace.entry._meta?.ui?.visibility;
    if (Array.isArray(visibility) && !visibility.includes("model")) {
      parts.push(
        note(
          el("b", {}, "App-only"),
          ` (visibility ${JSON.stringify(visibility)}): the host never offers it to the model; its App calls it.`,
        ),
      );
    }
    parts.push(label("as advertised on this connection"), json(trace.entry, "entry"));
  }
  if (trace.toolsList)
    parts.push(
      el(
        "details",
        {},
        el("summary", {}, "whole tools/list exchange"),
        wireText(trace.toolsList.requestText, "list-request"),
        wireText(trace.toolsList.responseText, "list-response"),
      ),
    );
  fill("tools-list", parts);
}

function renderRequest(trace) {
  const parts = [];
  if (!trace.call) {
    fill("request", empty("Not sent: the host stopped before calling (see the verdict)."));
    return;
  }
  if (trace.planError) {
    parts.push(
      errorBox(
        "plan-error",
        trace.planError,
        `The planner refuses mode ${trace.mode} here; the host calls with the fallback:`,
      ),
    );
  } else {
    parts.push(
      note(
        `Mode ${trace.mode} plans `,
        trace.plannedText
          ? el("code", {}, trace.plannedText)
          : el("b", {}, "no requestedOutputs (the assistant/content fallback)"),
      ),
    );
  }
  if (trace.plan.legacyStructured) {
    parts.push(
      note(
        "On this revision the host's local rule gives a legacy ",
        el("code", {}, "structuredContent"),
        " to ",
        el("b", { "data-role": "plan-legacy" }, trace.plan.legacyStructured),
        " (LEG-8).",
      ),
    );
  }
  if (trace.plan.schemas?.length) {
    parts.push(
      el(
        "details",
        {},
        el("summary", {}, "schemas of the planned structured outputs, the only ones a model writing code sees (SEL-7)"),
        json(trace.plan.schemas, "plan-schemas"),
      ),
    );
  }
  if (trace.edited) parts.push(note(el("b", {}, "Edited:"), " requestedOutputs is sent exactly as typed."));
  parts.push(wireText(trace.call.requestText, "request"));
  fill("request", parts);
}

function renderResponse(trace) {
  if (!trace.call) {
    fill("response", empty("No call, no result."));
    return;
  }
  const { response, responseText } = trace.call;
  const parts = [];
  if (response.error) {
    const data = response.error.data ?? {};
    parts.push(
      el(
        "div",
        {
          class: "error-box",
          "data-role": "rpc-error",
          "data-code": data.mcpOutputsCode ?? "",
          "data-rpc": String(response.error.code),
        },
        "JSON-RPC error ",
        el("span", { class: "code" }, String(response.error.code)),
        data.mcpOutputsCode ? [" (", el("code", {}, data.mcpOutputsCode), ")"] : null,
        ": ",
        response.error.message,
      ),
    );
  } else {
    const shape = Array.isArray(response.result?.outputs)
      ? "outputs (2026-12-01 shape)"
      : "content / structuredContent (legacy shape)";
    parts.push(note("Result carries ", el("b", { "data-role": "shape" }, shape)));
  }
  parts.push(wireText(responseText, "response"));
  fill("response", parts);
}

function renderVerdict(trace) {
  const verdict = $("#verdict");
  const set = (outcome, cls, ...children) => {
    verdict.className = `verdict ${cls}`;
    verdict.dataset.outcome = outcome;
    verdict.replaceChildren(...children.flat(Infinity).filter((c) => c !== ""));
  };
  const code = (error) => el("code", {}, error.code);
  delete verdict.dataset.isError;
  if (trace.stop === "not-listed") {
    const refused = server.rejected.get(trace.toolName);
    set(
      "not-listed",
      "bad",
      `${trace.toolName} is not offered on this connection`,
      refused ? [": the server refused its declaration (", code(refused), ")."] : ".",
    );
  } else if (trace.stop === "rejected-list") {
    set(
      "list-rejected",
      "bad",
      "The host treats the whole tools/list response as invalid (",
      code(trace.listError),
      trace.listError.path ? [" at ", el("code", {}, trace.listError.path)] : "",
      "): ",
      trace.listError.message,
      ". No tool of it is offered or called.",
    );
  } else if (trace.stop === "input-required") {
    set(
      "input-required",
      "ok",
      "The server needs more input first (",
      el("code", {}, "resultType: input_required"),
      ", MRTR-1): nothing is routed; the host would fulfil the requests and retry the call with the same requestedOutputs.",
    );
  } else if (trace.stop === "server-error") {
    const error = trace.call.response.error;
    set(
      "server-error",
      "bad",
      `The server answers JSON-RPC error ${error.code}`,
      error.data?.mcpOutputsCode ? [" (", el("code", {}, error.data.mcpOutputsCode), ")"] : "",
      `: ${error.message}`,
    );
  } else if (trace.stop === "rejected-result") {
    set(
      "result-rejected",
      "bad",
      "The host rejects the server's result (",
      code(trace.routeError),
      trace.routeError.path ? [" at ", el("code", {}, trace.routeError.path)] : "",
      "): ",
      trace.routeError.message,
      ". Nothing is routed.",
    );
  } else if (trace.stop === "handshake") {
    set("handshake-failed", "bad", "The connection failed: see pane 1.");
  } else {
    const r = trace.route;
    const ext = Object.values(r.extensions).flat().length;
    verdict.dataset.isError = String(r.isError);
    set(
      "routed",
      r.isError ? "warn" : "ok",
      "The host checked the result and routed it: ",
      el(
        "b",
        {},
        `${r.model.length} to the model, ${r.user.length} to the user, ${r.programmatic.length} to the program, ${ext} to extensions`,
      ),
      r.view ? ", a View payload for the App View" : ", no View payload",
      r.isError ? [" · ", el("b", { "data-role": "is-error" }, "the tool reported an error (isError)")] : "",
      r.diagnostics.length ? ` · diagnostics: ${r.diagnostics.map((d) => d.code).join(", ")}` : "",
      ".",
    );
  }
}

function renderRouting(trace, declaration, produced) {
  const route = trace.route;
  for (const name of ["model", "user", "program", "view", "dropped"]) setCount(name, route ? 0 : null);
  pane("view").dataset.viewState = "none";
  delete pane("view").dataset.viewReports;
  if (!route) {
    for (const name of ["model", "user", "program", "dropped"]) fill(name, empty("Nothing routed."));
    pane("view").querySelector(".frame-slot").replaceChildren();
    pane("view").querySelector(".view-notes").replaceChildren(empty("Nothing routed."));
    return;
  }
  renderModel(route.model);
  renderUser(route.user);
  const legacyRule = trace.plan?.legacyStructured;
  fill(
    "program",
    legacyRule === "programmatic" && route.programmatic.some((o) => o.audience === "programmatic")
      ? note(
          "Legacy ",
          el("code", {}, "structuredContent"),
          " goes to program logic by the host's local rule ",
          el("code", { "data-role": "legacy-rule" }, `legacyStructured: ${legacyRule}`),
          " (LEG-8); it is still validated against the Tool's outputSchema.",
        )
      : null,
    route.programmatic.length
      ? route.programmatic.map((o) => [label(selectorName(o)), json(o.structuredContent)])
      : empty("Nothing for program logic."),
    label("exact outputs"),
    json(route.programmatic, "outputs"),
  );
  setCount("program", route.programmatic.length);
  renderView(trace);
  renderDropped(trace, declaration, produced);
}

function renderModel(outputs) {
  const parts = outputs.length ? [] : [empty("Nothing enters model context.")];
  for (const output of outputs) {
    parts.push(label(selectorName(output)));
    if (output.format === "content") {
      for (const block of output.content ?? []) {
        parts.push(block.type === "text" ? el("p", { class: "model-text" }, block.text) : json(block));
      }
    } else parts.push(json(output.structuredContent));
  }
  parts.push(el("details", {}, el("summary", {}, "exact outputs"), json(outputs, "outputs")));
  fill("model", parts);
  setCount("model", outputs.length);
}

function renderUser(outputs) {
  const parts = outputs.length ? [] : [empty("Nothing for the user's view.")];
  for (const output of outputs) {
    parts.push(label(selectorName(output)));
    if (output.format === "content") parts.push(...contentBlocks(output.content, "user-text"));
    else parts.push(dataTable(output.structuredContent));
  }
  parts.push(el("details", {}, el("summary", {}, "exact outputs"), json(outputs, "outputs")));
  fill("user", parts);
  setCount("user", outputs.length);
}

function renderView(trace) {
  const { route, entry, connection } = trace;
  const viewPane = pane("view");
  const slot = viewPane.querySelector(".frame-slot");
  const notes = viewPane.querySelector(".view-notes");
  slot.replaceChildren();
  if (!route.view) {
    const apps = connection.negotiated.includes(APPS_EXTENSION);
    notes.replaceChildren(
      empty(
        apps
          ? "No View payload: the request did not ask for the ui output."
          : "No View payload: Apps is not negotiated on this connection.",
      ),
    );
    return;
  }
  const uri = entry._meta?.ui?.resourceUri;
  const html = trace.viewHtml ?? null;
  const report = el("pre", { class: "json", "data-role": "report" }, "(waiting for the View)");
  const viewCalls = [];
  const viewCallsPre = el("pre", { class: "json", "data-role": "view-calls" }, "[]");
  const log = el("pre", { class: "json", "data-role": "postmessage-log" }, "");
  const messages = [];
  const readExchange = trace.viewResource
    ? [
        el(
          "details",
          {},
          el("summary", {}, "resources/read of the View's HTML"),
          wireText(trace.viewResource.requestText, "view-resource-request"),
        ),
      ]
    : [];
  notes.replaceChildren(
    label("payload of ui/notifications/tool-result"),
    json(route.view, "payload"),
    label("the View reports it received"),
    report,
    label("tools/call made by the View (its Refresh button)"),
    viewCallsPre,
    el("details", {}, el("summary", {}, "postMessage log"), log),
    ...readExchange,
  );
  setCount("view", 1);
  if (!html) {
    notes.prepend(empty(`The tool names no ui:// resource the server can read (${uri ?? "none"}).`));
    return;
  }
  viewPane.dataset.viewState = "mounted";
  const toolArguments = JSON.parse(trace.call.requestText).params.arguments ?? {};
  const call = { toolName: trace.toolName, arguments: toolArguments, payload: route.view };
  unmountView = mountView(slot, html, call, {
    onMessage(direction, message) {
      messages.push({ direction, message });
      log.textContent = pretty(messages);
    },
    onReport(data) {
      report.textContent = pretty(data);
      viewPane.dataset.viewState = "reported";
      viewPane.dataset.viewReports = String(Number(viewPane.dataset.viewReports ?? 0) + 1);
    },
    onToolCall(params) {
      const answer = callFromView(trace.toolName, params);
      viewCalls.push(answer.record);
      viewCallsPre.textContent = pretty(viewCalls);
      return answer.reply;
    },
  });
}

/**
 * A View calling its own tool: the host asks for what the View consumes (the app-only mode:
 * the ui output alone), routes the result like any other and answers with the View payload
 * only, so a View-initiated call cannot leak other audiences' outputs into the View either.
 */
function callFromView(toolName, params) {
  if (params.name !== toolName) {
    const error = { code: -32602, message: `A View may call only its own tool (${toolName})` };
    return { reply: { error }, record: { name: params.name, error } };
  }
  const viewTrace = host.run({
    ...connectionControls(),
    mode: "app-only",
    toolName,
    arguments: params.arguments ?? {},
    requestedOutputsText: null,
    readView: false,
  });
  const record = { name: toolName, requestedOutputs: viewTrace.sentText ? JSON.parse(viewTrace.sentText) : null };
  if (viewTrace.route?.view)
    return { reply: { result: viewTrace.route.view }, record: { ...record, outcome: "view payload" } };
  const error = viewTrace.call?.response.error ?? {
    code: -32603,
    message: `The host refused the result: ${(viewTrace.routeError ?? viewTrace.listError ?? { code: "no View payload" }).code}`,
  };
  return { reply: { error }, record: { ...record, error } };
}

function renderDropped(trace, declaration, produced) {
  const { route, entry } = trace;
  const items = [];
  const item = (kind, ...children) => items.push(el("li", { "data-kind": kind }, ...children));
  for (const drop of route.dropped) {
    if (typeof drop.meta === "string") {
      item(
        "meta",
        el("code", {}, `_meta["${drop.meta}"]`),
        drop.meta === APPS_EXTENSION
          ? " — the View's metadata, but this call has no View payload (META-1)."
          : " — result metadata has no audience: not model context, not sent to the View (META-1).",
      );
    } else if (drop.legacy === "structuredContent") {
      item(
        "legacy",
        el("code", {}, "structuredContent"),
        " — a legacy value with no consumer under this host's defaults; no audience is assumed for it (LEG-5, LEG-8: only a mode with a local rule, code or host-table, gives it one).",
      );
    } else item("other", el("code", {}, JSON.stringify(drop)));
  }
  const diagnosticText = {
    "annotation-audience-conflict":
      " — a block's annotations.audience disagrees with its output's audience; the output's audience decides (AUD-2).",
    "empty-error-outputs": " — the tool reported an error with no output: nothing to route, the failure is kept (ERR-5).",
    "legacy-fields-ignored":
      " — a legacy content/structuredContent mirror beside outputs: not the answer to this request, delivered to no one (RES-8).",
  };
  for (const { code, path } of route.diagnostics) {
    const where = path ? ` (at ${path})` : "";
    item("diagnostic", el("code", {}, code), (diagnosticText[code] ?? " — reported by the host's route.") + where);
  }
  // What the server computed but did not send: everything not requested (RES-1).
  const sent = trace.call.response.result?.outputs;
  const withheld =
    Array.isArray(sent) && Array.isArray(produced?.outputs)
      ? produced.outputs
          .filter((o) => !sent.some((s) => s.audience === o.audience && s.format === o.format))
          .map(selectorName)
      : [];
  for (const name of withheld)
    item("withheld", el("code", {}, name), " — computed by the tool, not requested: the server did not send it.");
  // What tools/list did not advertise on this connection.
  const declared = Array.isArray(declaration?.outputVariants) ? declaration.outputVariants.map(selectorName) : [];
  const advertised = Array.isArray(entry.outputVariants) ? entry.outputVariants.map(selectorName) : null;
  if (advertised) {
    for (const name of declared.filter((d) => !advertised.includes(d)))
      item(
        "not-advertised",
        el("code", {}, name),
        " — declared, but not advertised: its extension is not negotiated (APP-3).",
      );
  } else if (declared.length) {
    item(
      "not-advertised",
      "outputVariants — not part of this revision: the Tool is advertised in the legacy shape (LEG-1).",
    );
  }
  fill(
    "dropped",
    items.length ? el("ul", { class: "drops" }, items) : empty("Nothing dropped."),
    el(
      "details",
      {},
      el("summary", {}, "as JSON"),
      json({ dropped: route.dropped, diagnostics: route.diagnostics, withheld }, "dropped"),
    ),
  );
  setCount("dropped", items.length);
}

// ---------------------------------------------------------------------------------------------
// Controls.

function replan() {
  setRequestedEdited(false);
  run();
}

$("#tool").addEventListener("change", () => {
  loadEditors();
  replan();
});
for (const id of ["#version", "#apps", "#mode"]) $(id).addEventListener("change", replan);
$("#behaviour").addEventListener("change", () => {
  showBehaviourHint();
  run();
});
$("#requested").addEventListener("input", () => setRequestedEdited(true));
$("#reset-plan").addEventListener("click", replan);
$("#call").addEventListener("click", run);
for (const id of ["#requested", "#produced", "#declaration"]) {
  $(id).addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) run();
  });
}

// Start on the SEP's flagship case: an Apps host calling the five-variant tool.
$("#tool").value = "search_customers";
$("#mode").value = "apps";
loadEditors();
replan();
document.body.dataset.ready = "true";
