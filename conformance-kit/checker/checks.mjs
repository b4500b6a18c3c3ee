// The checks of `check-server`: one id each, the requirement IDs it cites (requirements.json of
// this package) and its severity, the strongest level among them: a `must` check fails the run, a
// `should` check warns (`--strict` makes warnings fail). The test asserts the severities against
// requirements.json.
export const CHECKS = [
  // Connecting and versions.
  { id: "connect", requirements: ["VER-1"], severity: "must", title: "the server answers at least one revision the checker speaks" },
  { id: "version.unsupported-error", requirements: ["VER-1"], severity: "must", title: "an unsupported revision (from 2026-07-28 on) is answered with -32022 and data {supported, requested}" },
  // tools/list, every revision.
  { id: "list.result-shape", requirements: ["LIST-1", "LIST-4"], severity: "must", title: "tools/list result: a tools array, a string nextCursor when present; from 2026-07-28 resultType \"complete\", integer ttlMs >= 0, cacheScope public/private" },
  { id: "list.unique-names", requirements: ["LIST-1", "LIST-3"], severity: "must", title: "every Tool in a tools/list page has a string name, unique in the page" },
  // tools/list, 2026-12-01.
  { id: "list.output-variants", requirements: ["LIST-1", "VER-1", "PLAN-14"], severity: "must", title: "under 2026-12-01 every Tool carries an outputVariants array (no legacy Tool)" },
  { id: "list.no-output-schema", requirements: ["VER-1", "DECL-6"], severity: "must", title: "under 2026-12-01 no Tool carries the legacy top-level outputSchema" },
  { id: "list.variants-valid", requirements: ["DECL-1", "DECL-2", "FMT-2", "AUD-1", "AUD-3", "PLAN-7"], severity: "must", title: "outputVariants: valid audience/format pairs, none twice, assistant/content declared" },
  { id: "list.variant-schema-valid", requirements: ["DECL-4", "RES-4"], severity: "must", title: "a declared variant schema is a valid JSON Schema (2020-12 by default)" },
  { id: "list.structured-schema-declared", requirements: ["DECL-4"], severity: "should", title: "a structured variant declares a schema" },
  { id: "list.extension-negotiated", requirements: ["DECL-5", "APP-3", "SEL-4"], severity: "must", title: "an extension audience is declared only when both sides advertised the extension" },
  // tools/call, 2026-12-01.
  { id: "call.result-type", requirements: ["LIST-1", "VER-1"], severity: "must", title: "a 2026-12-01 tools/call result carries resultType" },
  { id: "call.fallback", requirements: ["SEL-8", "PLAN-1", "PLAN-9"], severity: "must", title: "without requestedOutputs the result is exactly assistant/content" },
  { id: "call.exact-outputs", requirements: ["RES-1", "RES-2", "RES-3", "PLAN-2", "PLAN-3", "PLAN-4", "PLAN-5", "PLAN-6", "PLAN-8"], severity: "must", title: "a successful result has exactly one output per requested selector, nothing else, each with its own payload field" },
  { id: "call.no-mirror", requirements: ["RES-5", "VER-1"], severity: "must", title: "a 2026-12-01 result carries no top-level content or structuredContent (no unrequested mirror)" },
  { id: "call.assistant-content-usable", requirements: ["DECL-3"], severity: "must", title: "a successful assistant/content output has at least one block" },
  { id: "call.structured-valid", requirements: ["RES-4", "DECL-8", "PLAN-11"], severity: "must", title: "each successful structured output is valid against its own variant's schema" },
  { id: "call.content-blocks", requirements: ["FMT-1"], severity: "must", title: "content outputs are arrays of well-formed content blocks" },
  { id: "call.error-outputs-requested", requirements: ["RES-2", "ERR-1"], severity: "must", title: "an isError result carries only requested outputs, each at most once" },
  { id: "call.error-not-empty", requirements: ["ERR-4"], severity: "should", title: "an isError result is not an empty outputs array (a protocol error instead)" },
  { id: "meta.minimal", requirements: ["META-2"], severity: "should", title: "result _meta[\"io.modelcontextprotocol/ui\"] only when Apps is negotiated (and, under 2026-12-01, a ui output is in the result)" },
  // Selection errors.
  { id: "select.undeclared", requirements: ["SEL-9", "SEL-3", "PLAN-10"], severity: "must", title: "an undeclared selector is rejected with -32602" },
  { id: "select.unnegotiated", requirements: ["SEL-9", "SEL-4", "PLAN-10"], severity: "must", title: "an unnegotiated extension selector is rejected with -32602" },
  { id: "select.duplicate", requirements: ["SEL-5"], severity: "must", title: "a duplicated selector is rejected with -32602" },
  { id: "select.empty", requirements: ["SEL-8"], severity: "must", title: "requestedOutputs: [] is rejected with -32602" },
  { id: "select.invalid", requirements: ["AUD-1", "FMT-2"], severity: "must", title: "a selector outside the vocabulary (audience \"host\", programmatic/content) is rejected with -32602" },
  { id: "select.legacy-revision", requirements: ["SEL-2", "PLAN-12"], severity: "must", title: "requestedOutputs under 2026-07-28 or earlier is rejected with -32602" },
  // Legacy projection, 2024-11-05 ... 2026-07-28.
  { id: "legacy.list-shape", requirements: ["LEG-1", "LEG-9", "PLAN-13"], severity: "must", title: "under 2026-07-28 or earlier no Tool carries outputVariants" },
  { id: "legacy.output-schema", requirements: ["LEG-6", "LEG-1"], severity: "must", title: "outputSchema only from 2025-06-18; root type \"object\" in 2025-06-18 / 2025-11-25; a valid JSON Schema" },
  { id: "legacy.result-shape", requirements: ["LEG-2", "VER-1", "PLAN-13"], severity: "must", title: "a legacy result has a content array and no outputs; resultType from 2026-07-28" },
  { id: "legacy.structured-content", requirements: ["LEG-6"], severity: "must", title: "no structuredContent before 2025-06-18; an object in 2025-06-18 / 2025-11-25 (a non-object wrapped)" },
  { id: "legacy.blocks", requirements: ["LEG-6", "FMT-1"], severity: "must", title: "content blocks are well-formed and of a type the revision defines (audio from 2025-03-26, resource_link from 2025-06-18)" },
  { id: "legacy.consistency", requirements: ["LEG-7", "LEG-2"], severity: "must", title: "a Tool with outputSchema: every successful result carries a conforming structuredContent" },
  { id: "legacy.json-mirror", requirements: ["LEG-6"], severity: "must", title: "a non-object structuredContent comes with a text block holding its JSON (SEP-2106)" },
  { id: "legacy.mirror", requirements: ["LEG-4"], severity: "should", title: "an object structuredContent of a non-Apps tool comes with its JSON text mirror" },
];

export const CHECK_BY_ID = new Map(CHECKS.map((c) => [c.id, c]));
