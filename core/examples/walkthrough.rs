//! SEP-3279 walkthrough: the fifteen scenarios of the SEP's "Reference implementation and
//! testing plan" (PLAN-1..15), each played as a real exchange through the crate's typed API.
//!
//! ```text
//! cargo run -q -p mcp-outputs --example walkthrough           # all fifteen
//! cargo run -q -p mcp-outputs --example walkthrough -- 6 15   # some of them
//! ```
//!
//! One server (the crate's server side: `ServerTool`) serves the tools of
//! `fixtures/tools.json`, declared once. For each scenario a host (the crate's client side:
//! `ReceivedTool`) connects with its own capabilities, asks for tools/list, plans
//! `requestedOutputs` from an execution mode, sends tools/call, and routes the result. Every
//! connection is built from wire data: both sides' `capabilities.extensions` through
//! `wire::negotiate` on the host, the request's `params._meta` through
//! `wire::RequestContext` on the server. What each tool computes for a call is in
//! `fixtures/produced.json`; the server sends only what was requested.
//!
//! Each scenario checks its own expected outcome at run time; the process exits non-zero when
//! one does not behave as expected. Colour is used only when stdout is a terminal and
//! `NO_COLOR` is unset.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use mcp_outputs::selection;
use mcp_outputs::wire::{self, RequestContext, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use mcp_outputs::{
    Config, Connection, Diagnostic, Error, ErrorCode, Mode, Plan, PlanOptions, Produced, ProtocolVersion, ReceivedTool,
    Selector, ServerTool, APPS_EXTENSION,
};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

const TOOLS_JSON: &str = include_str!("fixtures/tools.json");
const PRODUCED_JSON: &str = include_str!("fixtures/produced.json");

/// The terminal width the output is laid out for.
const WIDTH: usize = 100;
/// Where the contents of a routing row start.
const ROUTE_COL: usize = 19;

const V2026_12_01: ProtocolVersion = ProtocolVersion::V2026_12_01;
const V2026_07_28: ProtocolVersion = ProtocolVersion::V2026_07_28;
const V2025_06_18: ProtocolVersion = ProtocolVersion::V2025_06_18;

const UI_STRUCTURED: &str = "io.modelcontextprotocol/ui/structured";
const TRACE_META: &str = "com.example/trace";

type Scenario = fn(&World, &mut Out) -> Result<Checks, Fail>;

/// The testing plan, in order: number, title, scenario.
const SCENARIOS: [(u8, &str, Scenario); 15] = [
    (1, "Conversational call: assistant/content", plan_01),
    (2, "Code-mode call: programmatic/structured", plan_02),
    (3, "Direct structured-model call: assistant/structured", plan_03),
    (4, "User-rendered media: user/content", plan_04),
    (5, "Host-native table: user/structured", plan_05),
    (6, "Apps call: assistant/content + io.modelcontextprotocol/ui/structured", plan_06),
    (7, "Rejected: a tool declaration without assistant/content", plan_07),
    (8, "App-only call requesting io.modelcontextprotocol/ui/structured", plan_08),
    (9, "App-only call without requestedOutputs: the assistant/content fallback", plan_09),
    (10, "Rejected: undeclared and unnegotiated selectors", plan_10),
    (11, "Independent validation of the programmatic and App schemas", plan_11),
    (12, "No requestedOutputs under 2026-07-28 (legacy Apps flow)", plan_12),
    (13, "Versioned projection to the legacy shapes: 2026-07-28 and 2025-06-18", plan_13),
    (14, "Rejected: a Tool without outputVariants under 2026-12-01", plan_14),
    (15, "Unrequested outputs and _meta never reach the model or the App View", plan_15),
];

fn main() -> ExitCode {
    let selected = match selected_scenarios() {
        Ok(selected) => selected,
        Err(arg) => {
            eprintln!("walkthrough: unknown argument {arg:?}");
            eprintln!("usage: walkthrough [SCENARIO-NUMBER ...]   (1..15, e.g. `6 15` or `PLAN-6`)");
            return ExitCode::from(2);
        }
    };
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut out = Out::new(color);
    let world = match World::load() {
        Ok(world) => world,
        Err(message) => {
            eprintln!("walkthrough: the fixtures do not load: {message}");
            return ExitCode::FAILURE;
        }
    };
    intro(&world, &mut out);
    let mut played = 0;
    let mut failed = Vec::new();
    for (number, title, scenario) in SCENARIOS {
        if !selected.is_empty() && !selected.contains(&number) {
            continue;
        }
        played += 1;
        out.header(number, title);
        if !play(&world, &mut out, scenario) {
            failed.push(format!("PLAN-{number}"));
        }
        out.flush();
    }
    let good = played - failed.len();
    let noun = if played == 1 { "scenario" } else { "scenarios" };
    out.blank();
    out.rule();
    let summary = format!("{played} {noun} played: {good} as expected");
    if failed.is_empty() {
        let line = out.paint(BOLD_GREEN, &summary);
        out.raw(&line);
    } else {
        let line = out.paint(BOLD_RED, &format!("{summary}; not as expected: {}", failed.join(", ")));
        out.raw(&line);
    }
    out.flush();
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Scenario numbers named on the command line (`6`, `PLAN-6`); empty means all.
fn selected_scenarios() -> Result<Vec<u8>, String> {
    std::env::args()
        .skip(1)
        .map(|arg| {
            let digits = arg.strip_prefix("PLAN-").or_else(|| arg.strip_prefix("plan-")).unwrap_or(&arg);
            match digits.parse::<u8>() {
                Ok(n) if (1..=15).contains(&n) => Ok(n),
                _ => Err(arg.clone()),
            }
        })
        .collect()
}

/// Runs one scenario and prints its checks and verdict; true when it behaved as expected.
fn play(world: &World, out: &mut Out, scenario: Scenario) -> bool {
    match scenario(world, out) {
        Ok(checks) => {
            out.step("Checks", "computed from the exchange above, at run time");
            for (ok, label) in &checks.items {
                out.check(*ok, label);
            }
            let ok = checks.all_ok();
            out.verdict(ok);
            ok
        }
        Err(fail) => {
            let message = match fail {
                Fail::Lib(e) => format!("unexpected error: {e}"),
                Fail::Setup(m) => format!("setup failed: {m}"),
            };
            out.check(false, &message);
            out.verdict(false);
            false
        }
    }
}

fn intro(world: &World, out: &mut Out) {
    let title = format!(
        "SEP-3279 walkthrough: audience-directed tool result variants (mcp-outputs {})",
        env!("CARGO_PKG_VERSION")
    );
    let line = out.paint(BOLD, &title);
    out.raw(&line);
    out.para(
        "One server and several hosts play the SEP's testing plan (PLAN-1..15) through the \
         crate's typed API. Every JSON below is what crosses the wire, or what a host hands to \
         one of its consumers. Long strings and arrays are cut where marked with \u{2026}.",
        0,
    );
    out.blank();
    let tools: Vec<String> =
        world.tools.iter().map(|t| format!("{} ({})", t.name(), t.declaration().variants().len())).collect();
    out.step(
        "Server",
        &format!("declares its tools once (ServerTool::declare), with their variant counts: {}", tools.join(", ")),
    );
    out.kv_json("capabilities", &world.server_caps);
    out.step("Hosts", "a chat host without extensions and an Apps host; their capabilities:");
    out.kv_json("chat host", &world.client_caps("chat"));
    out.kv_json("Apps host", &world.client_caps("apps"));
}

// ------------------------------------------------------------------------------------------
// The scenarios
// ------------------------------------------------------------------------------------------

fn plan_01(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "A conversational host without the Apps extension calls search_customers. It needs \
         model context only, so it omits requestedOutputs and receives the fixed fallback, \
         even though the tool computed four other outputs.",
        2,
    );
    let host = Host::connect(w, "chat host", "chat", V2026_12_01, Session::PerRequest);
    let x = exchange(w, out, &host, Call::new("search_customers", Ask::Mode(Mode::Conversational)))?;
    let produced = w.produced("search_customers")?;
    let mut c = Checks::default();
    c.check(
        !variant_names(&x.advertised).contains(&UI_STRUCTURED.to_owned()),
        "tools/list leaves out the ui variant: Apps was not negotiated (DECL-5)",
    );
    c.check(
        x.params.get("requestedOutputs").is_none(),
        "the request omits requestedOutputs: the plan is exactly the fallback (SEL-1, SEL-8)",
    );
    c.check(
        output_names(&x.result) == ["assistant/content"]
            && x.result["outputs"][0] == *find_output(produced, "assistant/content")?,
        "the result is exactly the assistant/content output, no mirror of any structured one \
         (RES-2, RES-5)",
    );
    c.check(
        names(&x.routed.model) == ["assistant/content"] && x.routed.nothing_else_than_model(),
        "model context gets it; no other consumer gets anything (ROUTE-1)",
    );
    c.check(x.routed.dropped_meta(TRACE_META), "the trace _meta entry reaches no consumer (META-1)");
    Ok(c)
}

fn plan_02(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "A code-mode host lets the model write code against search_customers. It requests \
         programmatic/structured, shows the model that variant's schema, and hands the data to \
         the code it runs. No text mirror is paid for.",
        2,
    );
    let host = Host::connect(w, "code-mode host", "chat", V2026_12_01, Session::PerRequest);
    let call = Call::new("search_customers", Ask::Mode(Mode::Code)).with_schemas();
    let x = exchange(w, out, &host, call)?;
    let produced = w.produced("search_customers")?;
    let mut c = Checks::default();
    c.check(
        requested_names(&x.params) == ["programmatic/structured"],
        "requestedOutputs is [programmatic/structured] (SEL-1)",
    );
    c.check(
        schema_shown(&x.plan, "programmatic/structured")
            == w.declared_schema("search_customers", "programmatic", "structured"),
        "the schema shown to the model is programmatic/structured's own (SEL-7)",
    );
    c.check(
        output_names(&x.result) == ["programmatic/structured"],
        "the result holds only programmatic/structured: no assistant/content, no mirror (RES-5)",
    );
    c.check(
        names(&x.routed.program) == ["programmatic/structured"]
            && x.routed.program[0]["structuredContent"]
                == find_output(produced, "programmatic/structured")?["structuredContent"],
        "program logic gets the data as produced (ROUTE-3)",
    );
    c.check(
        x.routed.model.is_empty() && x.routed.user.is_empty() && x.routed.view.is_none(),
        "nothing enters model context or the user's view (ROUTE-3)",
    );
    Ok(c)
}

fn plan_03(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "A host that gives models JSON requests assistant/structured. The output is validated \
         against the assistant/structured schema, which is not the programmatic one, and goes \
         to model context.",
        2,
    );
    let host = Host::connect(w, "chat host", "chat", V2026_12_01, Session::PerRequest);
    let call = Call::new("search_customers", Ask::Mode(Mode::StructuredModel)).with_schemas();
    let x = exchange(w, out, &host, call)?;
    let produced = w.produced("search_customers")?;
    let assistant_schema = w.declared_schema("search_customers", "assistant", "structured");
    let mut c = Checks::default();
    c.check(requested_names(&x.params) == ["assistant/structured"], "requestedOutputs is [assistant/structured]");
    c.check(
        schema_shown(&x.plan, "assistant/structured") == assistant_schema
            && assistant_schema != w.declared_schema("search_customers", "programmatic", "structured"),
        "the schema shown is assistant/structured's, not the programmatic one (SEL-7, DECL-8)",
    );
    c.check(
        output_names(&x.result) == ["assistant/structured"],
        "the result holds only assistant/structured (RES-1, RES-2)",
    );
    c.check(
        names(&x.routed.model) == ["assistant/structured"]
            && x.routed.model[0]["structuredContent"]
                == find_output(produced, "assistant/structured")?["structuredContent"],
        "model context gets the structured value (ROUTE-1)",
    );
    c.check(x.routed.nothing_else_than_model(), "no other consumer gets anything");
    Ok(c)
}

fn plan_04(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "An image generator: the host renders user/content for the user and keeps it out of \
         model context. One image carries a block annotation naming the assistant: a hint that \
         is reported, never obeyed, since the output's audience decides.",
        2,
    );
    let host = Host::connect(w, "chat host", "chat", V2026_12_01, Session::PerRequest);
    let x = exchange(w, out, &host, Call::new("generate_images", Ask::Mode(Mode::UserMedia)))?;
    let produced = w.produced("generate_images")?;
    let images = x
        .routed
        .user
        .first()
        .and_then(|o| o["content"].as_array())
        .map_or(0, |blocks| blocks.iter().filter(|b| b["type"] == json!("image")).count());
    let mut c = Checks::default();
    c.check(requested_names(&x.params) == ["user/content"], "requestedOutputs is [user/content]");
    c.check(names(&x.routed.user) == ["user/content"] && images == 2, "the user's view gets both images (ROUTE-2)");
    c.check(
        x.routed.model.is_empty(),
        "model context gets nothing, not even the assistant/content the tool computed (ROUTE-2)",
    );
    c.check(
        !contains_subtree(&x.result, &find_output(produced, "assistant/content")?["content"]),
        "the computed assistant text was never sent (RES-2)",
    );
    c.check(
        x.routed
            .diagnostics
            .iter()
            .any(|(code, path)| code == "annotation-audience-conflict" && path == "/outputs/0/content/1"),
        "the annotated image is a diagnostic (annotation-audience-conflict), and still goes to \
         the user (AUD-2)",
    );
    Ok(c)
}

fn plan_05(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "A host with a generic table renderer requests user/structured: typed rows it lays out \
         with its own UI, without adding them to model context.",
        2,
    );
    let host = Host::connect(w, "chat host", "chat", V2026_12_01, Session::PerRequest);
    let x = exchange(w, out, &host, Call::new("search_customers", Ask::Mode(Mode::HostTable)))?;
    let produced = w.produced("search_customers")?;
    let mut c = Checks::default();
    c.check(requested_names(&x.params) == ["user/structured"], "requestedOutputs is [user/structured]");
    c.check(output_names(&x.result) == ["user/structured"], "the result holds only user/structured");
    c.check(
        names(&x.routed.user) == ["user/structured"]
            && x.routed.user[0]["structuredContent"] == find_output(produced, "user/structured")?["structuredContent"],
        "the user's view gets the array, valid against the user schema (ROUTE-2, RES-4)",
    );
    c.check(
        x.routed.model.is_empty() && x.routed.program.is_empty() && x.routed.view.is_none(),
        "model context, program logic and any View get nothing (ROUTE-2, ROUTE-5)",
    );
    Ok(c)
}

fn plan_06(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "An Apps host calls search_customers for the model and for the App View at once: one \
         output per consumer. The model gets only the assistant output, the View only the ui \
         output with its ui _meta entry.",
        2,
    );
    let host = Host::connect(w, "Apps host", "apps", V2026_12_01, Session::PerRequest);
    let x = exchange(w, out, &host, Call::new("search_customers", Ask::Mode(Mode::Apps)))?;
    let produced = w.produced("search_customers")?;
    let assistant = find_output(produced, "assistant/content")?;
    let ui = find_output(produced, UI_STRUCTURED)?;
    let view = x.routed.view.clone().unwrap_or(Value::Null);
    let view_meta_keys: Vec<&str> =
        view["_meta"].as_object().map(|m| m.keys().map(String::as_str).collect()).unwrap_or_default();
    let mut c = Checks::default();
    c.check(
        x.server_negotiated == host.conn.negotiated() && host.conn.negotiated() == [APPS_EXTENSION],
        "host (wire::negotiate) and server (params._meta) agree: Apps negotiated (EXT-2)",
    );
    c.check(
        variant_names(&x.advertised).contains(&UI_STRUCTURED.to_owned()),
        "tools/list includes the ui variant on this connection (DECL-5)",
    );
    c.check(
        requested_names(&x.params) == ["assistant/content", UI_STRUCTURED],
        "requestedOutputs names both consumers",
    );
    c.check(
        output_names(&x.result) == ["assistant/content", UI_STRUCTURED],
        "the result holds exactly those two outputs (RES-1, RES-2)",
    );
    c.check(x.routed.model == [assistant.clone()], "model context gets exactly the assistant output (APP-2)");
    c.check(
        view["structuredContent"] == ui["structuredContent"]
            && view_meta_keys == [APPS_EXTENSION]
            && view["content"] == json!([]),
        "the View gets the ui value and the ui _meta entry alone (APP-5)",
    );
    c.check(
        !contains_subtree(&view, &assistant["content"]) && !contains_subtree(&view, &produced["_meta"][TRACE_META]),
        "neither the assistant text nor the trace _meta crosses the View boundary (APP-5)",
    );
    c.check(
        x.routed.dropped_meta(TRACE_META) && !x.routed.dropped_meta(APPS_EXTENSION),
        "the trace _meta is dropped; the ui entry is not (META-1)",
    );
    Ok(c)
}

fn plan_07(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "Every tool must declare assistant/content, a usable model representation. The server \
         SDK refuses to declare a tool without it, and a host receiving one from a \
         non-conforming server rejects it too.",
        2,
    );
    let invalid = w.fixture_list("invalidDeclarations")?;
    let apps_host = Host::connect(w, "Apps host", "apps", V2026_12_01, Session::PerRequest);
    let mut c = Checks::default();
    for (i, entry) in invalid.iter().enumerate() {
        let tool = &entry["tool"];
        let name = tool["name"].as_str().unwrap_or("?");
        out.step("Declaration", &format!("{name}: {}", entry["why"].as_str().unwrap_or_default()));
        out.json(&json!({ "outputVariants": tool["outputVariants"] }), 4, 3);
        out.step("Server", "ServerTool::declare(tool)");
        let declared = ServerTool::declare(tool, None, &w.config);
        let id = json!(i + 1);
        match &declared {
            Ok(_) => out.note(4, "declared: accepted (unexpected)"),
            Err(e) => out.error(e, Some(&id), "JSON-RPC error, if a tools/list request met it"),
        }
        c.check(
            declared.as_ref().err().map(Error::code) == Some(ErrorCode::MissingAssistantContent)
                && declared.as_ref().err().and_then(Error::jsonrpc_code) == Some(-32603),
            &format!("{name}: declare fails with missing-assistant-content, -32603 (DECL-2)"),
        );
        if i == 0 {
            out.step(
                "Host",
                "the same Tool arrives in tools/list from a server that does not check: \
                 ReceivedTool::accept on the Apps host's connection",
            );
            let accepted = ReceivedTool::accept(tool, &apps_host.conn);
            match &accepted {
                Ok(_) => out.note(4, "accepted (unexpected)"),
                Err(e) => out.error(e, None, ""),
            }
            c.check(
                accepted.as_ref().err().map(Error::code) == Some(ErrorCode::MissingAssistantContent),
                &format!("{name}: the host rejects it too, with Apps negotiated (DECL-2, PLAN-7)"),
            );
        }
    }
    Ok(c)
}

fn plan_08(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "refresh_dashboard is App-only (_meta.ui.visibility [\"app\"]): the Apps host never \
         shows it to the model, and the App calls it explicitly for the View's data.",
        2,
    );
    let host = Host::connect(w, "Apps host", "apps", V2026_12_01, Session::PerRequest);
    let x = exchange(w, out, &host, Call::new("refresh_dashboard", Ask::Mode(Mode::AppOnly)))?;
    let produced = w.produced("refresh_dashboard")?;
    let view = x.routed.view.clone().unwrap_or(Value::Null);
    let mut c = Checks::default();
    c.check(
        variant_names(&x.advertised) == ["assistant/content", UI_STRUCTURED],
        "the App-only tool still declares assistant/content next to its ui variant (APP-4)",
    );
    c.check(
        requested_names(&x.params) == [UI_STRUCTURED],
        "requestedOutputs is [io.modelcontextprotocol/ui/structured]",
    );
    c.check(
        output_names(&x.result) == [UI_STRUCTURED],
        "the result holds only the ui output: the computed assistant text is not sent (RES-2)",
    );
    c.check(
        view["structuredContent"] == find_output(produced, UI_STRUCTURED)?["structuredContent"]
            && view["_meta"][APPS_EXTENSION] == produced["_meta"][APPS_EXTENSION],
        "the View gets the ui value and the ui _meta entry (ROUTE-4, APP-5)",
    );
    c.check(
        x.routed.model.is_empty() && x.routed.user.is_empty() && x.routed.program.is_empty(),
        "model context gets nothing",
    );
    c.check(x.routed.dropped_meta(TRACE_META), "the trace _meta is dropped (META-1)");
    Ok(c)
}

fn plan_09(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "The same App-only tool called without requestedOutputs gets the same assistant/content \
         fallback as every other tool: no View payload is built, even on an Apps connection.",
        2,
    );
    let host = Host::connect(w, "Apps host", "apps", V2026_12_01, Session::PerRequest);
    let x = exchange(w, out, &host, Call::new("refresh_dashboard", Ask::Mode(Mode::Conversational)))?;
    out.step("Chat host", "without Apps, the same tools/list entry carries the fallback only:");
    let chat = Host::connect(w, "chat host", "chat", V2026_12_01, Session::PerRequest);
    let chat_entry = w.list_tool(&chat, "refresh_dashboard")?;
    out.json(&json!({ "outputVariants": chat_entry["outputVariants"] }), 4, 3);
    let mut c = Checks::default();
    c.check(x.params.get("requestedOutputs").is_none(), "the request omits requestedOutputs");
    c.check(
        output_names(&x.result) == ["assistant/content"],
        "the server returns the assistant/content fallback only (APP-4, SEL-8)",
    );
    c.check(
        names(&x.routed.model) == ["assistant/content"] && x.routed.view.is_none(),
        "model context gets it; no View payload is built (APP-3)",
    );
    c.check(
        x.result.get("_meta").is_some_and(|m| m.get(APPS_EXTENSION).is_none()),
        "the server keeps the ui _meta entry: it travels only with a ui output (META-2)",
    );
    c.check(x.routed.dropped_meta(TRACE_META), "the host drops the trace _meta entry (META-1)");
    c.check(
        variant_names(&chat_entry) == ["assistant/content"],
        "a host without Apps never sees the ui variant (APP-3)",
    );
    Ok(c)
}

fn plan_10(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "Only advertised variants may be requested, and an extension audience only when \
         negotiated. The host's planner refuses both before sending; a request sent anyway is \
         rejected by the server as invalid params, with nothing substituted.",
        2,
    );
    let host = Host::connect(w, "chat host", "chat", V2026_12_01, Session::PerRequest);
    out.step(
        "Connection",
        &format!("{} · {} · negotiated {}", host.label, host.version, list_or_none(host.conn.negotiated())),
    );
    let cases = [
        (
            "search_customers",
            Mode::UserMedia,
            ErrorCode::UndeclaredVariant,
            "an undeclared variant: search_customers has no user/content",
        ),
        (
            "refresh_dashboard",
            Mode::AppOnly,
            ErrorCode::UnnegotiatedExtension,
            "an unnegotiated audience: the ui output without the Apps extension",
        ),
    ];
    let mut c = Checks::default();
    for (i, (tool, mode, code, what)) in cases.into_iter().enumerate() {
        out.blank();
        out.note(2, &format!("Case {}: {what}", i + 1));
        let entry = w.list_tool(&host, tool)?;
        out.step("tools/list", &format!("{tool} advertises {}", variant_names(&entry).join(", ")));
        let received = ReceivedTool::accept(&entry, &host.conn)?;
        out.step("Host plan", &format!("mode {} → ReceivedTool::plan_mode", mode.as_str()));
        let planned = received.plan_mode(mode, &PlanOptions::default());
        match &planned {
            Ok(plan) => out.note(4, &format!("planned {} (unexpected)", plan_text(plan))),
            Err(e) => out.error(e, None, ""),
        }
        c.check(
            planned.as_ref().err().map(Error::code) == Some(code),
            &format!("{tool}: the host's plan fails with {code} before sending (SEL-3, SEL-4)"),
        );
        let requested = selection::to_json(&mode.consumers());
        let params = host.call_params(tool, &w.arguments(tool), Some(requested));
        out.step("tools/call", "sent anyway, with these params:");
        out.json(&params, 4, 6);
        let id = json!(100 + i);
        let answered = w.serve_call(&host, &params, w.produced(tool)?);
        out.step("Server", "ServerTool::respond");
        match &answered {
            Ok(result) => {
                out.note(4, "answered with a result (unexpected):");
                out.json(result, 4, 6);
            }
            Err(e) => out.error(e, Some(&id), "JSON-RPC error response"),
        }
        c.check(
            answered.as_ref().err().map(Error::code) == Some(code)
                && answered.as_ref().err().and_then(Error::jsonrpc_code) == Some(-32602),
            &format!("{tool}: the server rejects it: {code}, -32602 invalid params (SEL-9)"),
        );
    }
    Ok(c)
}

fn plan_11(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "An Apps-capable code-mode host requests programmatic/structured and the App output in \
         one call. Each output is validated against its own variant's schema only, on both \
         sides: the App data is never checked against the programmatic schema.",
        2,
    );
    let host = Host::connect(w, "Apps host", "apps", V2026_12_01, Session::PerRequest);
    let consumers = json!([
        { "audience": "programmatic", "format": "structured" },
        { "audience": APPS_EXTENSION, "format": "structured" }
    ]);
    let call = Call::new("search_customers", Ask::Consumers(consumers)).with_schemas();
    let x = exchange(w, out, &host, call)?;
    let produced = w.produced("search_customers")?;
    let mut c = Checks::default();
    let prog_schema = schema_shown(&x.plan, "programmatic/structured");
    let ui_schema = schema_shown(&x.plan, UI_STRUCTURED);
    c.check(
        prog_schema.is_some() && ui_schema.is_some() && prog_schema != ui_schema,
        "the two requested structured variants have different schemas (DECL-8)",
    );
    c.check(
        names(&x.routed.program) == ["programmatic/structured"]
            && x.routed.view.as_ref().map(|v| &v["structuredContent"])
                == Some(&find_output(produced, UI_STRUCTURED)?["structuredContent"]),
        "each valid output goes to its own consumer: program logic and the View",
    );

    out.blank();
    out.note(2, "A buggy tool puts the code-mode payload into its App output as well:");
    let buggy = w.produced("search_customers/ui-holds-programmatic-data")?;
    let bad_ui = find_output(buggy, UI_STRUCTURED)?;
    out.json(bad_ui, 4, 5);
    let fits_programmatic = x
        .received
        .declaration()
        .and_then(|d| d.get(&selector("programmatic", "structured")))
        .and_then(|v| v.schema.as_ref())
        .is_some_and(|s| s.is_valid(&bad_ui["structuredContent"]));
    out.note(
        4,
        &format!(
            "valid against the programmatic schema: {fits_programmatic} (ReceivedTool's compiled \
             programmatic/structured schema)"
        ),
    );
    out.step("Server", "ServerTool::respond validates each output against its own variant:");
    let answered = w.serve_call(&host, &x.params, buggy);
    match &answered {
        Ok(result) => {
            out.note(4, "answered with a result (unexpected):");
            out.json(result, 4, 6);
        }
        Err(e) => out.error(e, Some(&json!(2)), "JSON-RPC error response"),
    }
    c.check(fits_programmatic, "the faulty App value is valid against the programmatic schema...");
    c.check(
        answered.as_ref().err().map(Error::code) == Some(ErrorCode::SchemaViolation)
            && answered.as_ref().err().and_then(Error::jsonrpc_code) == Some(-32603),
        "...yet the server rejects its own result: schema-violation, -32603 (RES-4, SEC-2)",
    );
    out.step("Host", "a server that does not validate sends it anyway; ReceivedTool::route checks first:");
    let bad_result = w.non_conforming_result("plan-11")?;
    out.json(bad_result, 4, 4);
    let routed = x.received.route(x.params.get("requestedOutputs"), bad_result);
    match &routed {
        Ok(_) => out.note(4, "routed (unexpected)"),
        Err(e) => out.error(e, None, ""),
    }
    c.check(
        routed.as_ref().err().map(Error::code) == Some(ErrorCode::SchemaViolation),
        "the host rejects it too (schema-violation) and routes nothing (RES-4, SEC-2)",
    );
    Ok(c)
}

fn plan_12(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "Under 2026-07-28 requestedOutputs does not exist. An Apps host calling the App-only \
         refresh_dashboard cannot ask for the ui output; it omits the field, and the legacy \
         Apps flow applies unchanged: the legacy result goes to the View.",
        2,
    );
    let host = Host::connect(w, "Apps host", "apps", V2026_07_28, Session::PerRequest);
    let x = exchange(w, out, &host, Call::new("refresh_dashboard", Ask::Mode(Mode::Conversational)))?;
    out.step("Host plan", "the same host in mode apps: a legacy Apps client sends no requestedOutputs (LEG-8)");
    let apps_plan = x.received.plan_mode(Mode::Apps, &PlanOptions::default());
    match &apps_plan {
        Ok(plan) => out.note(4, &format!("planned {}", plan_text(plan))),
        Err(e) => out.error(e, None, "(unexpected)"),
    }
    let refused = x.received.plan_mode(Mode::UserMedia, &PlanOptions::default());
    out.step("tools/call", "a buggy host sends requestedOutputs anyway under 2026-07-28:");
    let requested = selection::to_json(&Mode::Apps.consumers());
    let params = host.call_params("refresh_dashboard", &w.arguments("refresh_dashboard"), Some(requested));
    out.json(&params, 4, 6);
    out.step("Server", "ServerTool::respond");
    let answered = w.serve_call(&host, &params, w.produced("refresh_dashboard")?);
    match &answered {
        Ok(_) => out.note(4, "answered with a result (unexpected)"),
        Err(e) => out.error(e, Some(&json!(3)), "JSON-RPC error response"),
    }
    let produced = w.produced("refresh_dashboard")?;
    let ui_value = &find_output(produced, UI_STRUCTURED)?["structuredContent"];
    let model = Value::Array(x.routed.model.clone());
    let mut c = Checks::default();
    c.check(
        apps_plan.as_ref().is_ok_and(|p| p.omit && p.legacy_structured.is_none()),
        "the Apps plan omits requestedOutputs and names no local rule: the View gets the whole result (LEG-8)",
    );
    c.check(
        refused.as_ref().err().map(Error::code) == Some(ErrorCode::RequestedOutputsOnLegacyVersion),
        "a user-media plan is refused: no legacy field carries user content (SEL-2, LEG-8)",
    );
    c.check(
        x.plan.omit && x.params.get("requestedOutputs").is_none(),
        "the request carries no requestedOutputs (SEL-2, LEG-5)",
    );
    c.check(
        x.advertised.get("outputVariants").is_none()
            && x.advertised.get("outputSchema")
                == w.declared_schema("refresh_dashboard", APPS_EXTENSION, "structured").as_ref(),
        "tools/list: legacy Tool, outputSchema from the ui variant (LEG-1, APP-7)",
    );
    c.check(
        x.result.get("outputs").is_none()
            && x.result.get("structuredContent") == Some(ui_value)
            && x.result["content"].as_array().map(Vec::len) == Some(1),
        "legacy result: content from assistant/content, the ui value as structuredContent, \
         no mirror (LEG-2, LEG-4)",
    );
    c.check(
        !contains_subtree(&model, ui_value) && !shares_distinctive(&model, ui_value, &x.routed.model),
        "the View data is not in model context",
    );
    c.check(x.routed.view.as_ref() == Some(&x.result), "the View gets the whole legacy result (APP-6)");
    c.check(
        answered.as_ref().err().map(Error::code) == Some(ErrorCode::RequestedOutputsOnLegacyVersion)
            && answered.as_ref().err().and_then(Error::jsonrpc_code) == Some(-32602),
        "the server rejects requestedOutputs under 2026-07-28: -32602 (SEL-2)",
    );
    Ok(c)
}

fn plan_13(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "The server projects each 2026-12-01 declaration and result to the revision the host \
         speaks. Under 2026-07-28 search_customers becomes a legacy Tool whose outputSchema is \
         the assistant/structured schema, and its result gets content, structuredContent and \
         the JSON text mirror that revision recommends.",
        2,
    );
    let host = Host::connect(w, "chat host", "chat", V2026_07_28, Session::PerRequest);
    let x = exchange(w, out, &host, Call::new("search_customers", Ask::Mode(Mode::Conversational)))?;
    let produced = w.produced("search_customers")?;
    let assistant_structured = &find_output(produced, "assistant/structured")?["structuredContent"];
    let programmatic = &find_output(produced, "programmatic/structured")?["structuredContent"];
    let mut c = Checks::default();
    c.check(
        x.advertised.get("outputVariants").is_none()
            && x.advertised.get("outputSchema")
                == w.declared_schema("search_customers", "assistant", "structured").as_ref(),
        "2026-07-28 Tool: no outputVariants; outputSchema is assistant/structured's (LEG-1)",
    );
    c.check(
        x.result.get("outputs").is_none()
            && x.result.get("resultType") == Some(&json!("complete"))
            && x.result.get("structuredContent") == Some(assistant_structured),
        "2026-07-28 result: resultType, structuredContent from assistant/structured (LEG-2, LEG-6)",
    );
    c.check(last_block_mirrors(&x.result), "the last content block is the JSON text of structuredContent (LEG-4)");
    c.check(!contains_subtree(&x.result, programmatic), "the programmatic data is not projected anywhere (LEG-1)");
    c.check(
        x.routed.dropped.iter().any(|d| d == &json!({ "legacy": "structuredContent" }))
            && names(&x.routed.model) == ["assistant/content"],
        "the host gives content to the model and structuredContent to no one (LEG-5)",
    );

    out.blank();
    out.para(
        "An older revision: 2025-06-18, negotiated once in initialize. There structuredContent \
         must be an object, so list_regions' array-rooted schema and value are wrapped as \
         {\"result\": ...}.",
        2,
    );
    let old = Host::connect(w, "chat host", "chat", V2025_06_18, Session::Initialize);
    let y = exchange(w, out, &old, Call::new("list_regions", Ask::Mode(Mode::Conversational)))?;
    let regions = &find_output(w.produced("list_regions")?, "assistant/structured")?["structuredContent"];
    let array_schema = w.declared_schema("list_regions", "assistant", "structured");
    let schema = &y.advertised["outputSchema"];
    c.check(
        y.advertised.get("outputVariants").is_none()
            && schema["type"] == json!("object")
            && array_schema.as_ref() == Some(&schema["properties"]["result"]),
        "2025-06-18 Tool: the array schema is wrapped under properties.result (LEG-6)",
    );
    c.check(
        y.result.get("structuredContent") == Some(&json!({ "result": regions })),
        "2025-06-18 result: structuredContent is {\"result\": <the array>} (LEG-6)",
    );
    c.check(
        y.result.get("resultType").is_none() && y.params.get("_meta").is_none(),
        "2025-06-18: no resultType, no per-request _meta (the version came from initialize)",
    );
    c.check(last_block_mirrors(&y.result), "the wrapped value is mirrored as JSON text (LEG-4)");
    Ok(c)
}

fn plan_14(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "A server that still lists the legacy Tool shape while the request says 2026-12-01: the \
         host treats the response as invalid and does not fall back to legacy semantics. To use \
         the old shape it repeats the request under an earlier revision.",
        2,
    );
    let host = Host::connect(w, "chat host", "chat", V2026_12_01, Session::PerRequest);
    let legacy_tools = w.fixture_list("legacyServerTools")?;
    let mut c = Checks::default();
    for (i, entry) in legacy_tools.iter().enumerate() {
        let tool = &entry["tool"];
        let name = tool["name"].as_str().unwrap_or("?");
        out.step("tools/list", &format!("entry for {name}: {}", entry["why"].as_str().unwrap_or_default()));
        out.json(tool, 4, 2);
        out.step("Host", "ReceivedTool::accept under 2026-12-01");
        let accepted = ReceivedTool::accept(tool, &host.conn);
        match &accepted {
            Ok(_) => out.note(4, "accepted (unexpected)"),
            Err(e) => out.error(e, None, ""),
        }
        if i == 0 {
            c.check(
                accepted.as_ref().err().map(Error::code) == Some(ErrorCode::MissingOutputVariants)
                    && accepted.as_ref().err().and_then(Error::jsonrpc_code).is_none(),
                &format!("{name}: rejected with missing-output-variants, a local error (VER-2)"),
            );
            out.step("Server SDK", "and this crate's server side will not declare such a tool at all:");
            let declared = ServerTool::declare(tool, None, &w.config);
            match &declared {
                Ok(_) => out.note(4, "declared (unexpected)"),
                Err(e) => out.error(e, Some(&json!(4)), "JSON-RPC error, if a tools/list met it"),
            }
            c.check(
                declared.as_ref().err().map(Error::code) == Some(ErrorCode::MissingOutputVariants)
                    && declared.as_ref().err().and_then(Error::jsonrpc_code) == Some(-32603),
                "ServerTool::declare fails with missing-output-variants, -32603",
            );
        } else {
            c.check(
                accepted.is_err(),
                &format!(
                    "{name}: a legacy outputSchema does not switch shapes either: rejected (VER-1, \
                     VER-2)"
                ),
            );
        }
    }
    out.step("Host", "repeats tools/list under 2026-07-28, where the legacy shape is the right one:");
    let older = Host::connect(w, "chat host", "chat", V2026_07_28, Session::PerRequest);
    let all_ok = legacy_tools.iter().all(|entry| ReceivedTool::accept(&entry["tool"], &older.conn).is_ok());
    out.note(
        4,
        &format!("ReceivedTool::accept under 2026-07-28: {}", if all_ok { "both accepted" } else { "rejected" }),
    );
    c.check(all_ok, "under 2026-07-28 the same Tools are accepted: the version alone picks the shape (VER-1)");
    Ok(c)
}

fn plan_15(w: &World, out: &mut Out) -> Result<Checks, Fail> {
    out.para(
        "The Apps call of PLAN-6 again, now as a proof. The tool computed five outputs and two \
         _meta entries; the host asked for two outputs. Below, every unrequested output and \
         every _meta entry is searched for in the result on the wire, in the routed \
         model-context JSON and in the App View JSON: as a whole value, and by the values and \
         keys found in it and in no requested output.",
        2,
    );
    let host = Host::connect(w, "Apps host", "apps", V2026_12_01, Session::PerRequest);
    let x = exchange(w, out, &host, Call::new("search_customers", Ask::Mode(Mode::Apps)).quiet_routing())?;
    let produced = w.produced("search_customers")?;
    let model = Value::Array(x.routed.model.clone());
    let view = x.routed.view.clone().unwrap_or(Value::Null);
    let requested = requested_names(&x.params);
    // What legitimately crossed the wire: the requested outputs and the result _meta.
    let requested_parts: Vec<Value> = produced["outputs"]
        .as_array()
        .map(|outputs| outputs.iter().filter(|o| requested.contains(&selector_name(o))).cloned().collect())
        .unwrap_or_default();
    let mut on_wire_parts = requested_parts.clone();
    on_wire_parts.push(produced["_meta"].clone());

    out.step("Proof", "searched at run time in the JSON each consumer received");
    let mut c = Checks::default();
    let places: [(&str, &Value); 3] =
        [("on the wire", &x.result), ("in model context", &model), ("in App View", &view)];
    for output in produced["outputs"].as_array().into_iter().flatten() {
        let name = selector_name(output);
        if requested.contains(&name) {
            continue;
        }
        let payload = payload_of(output);
        let tokens = distinctive_tokens(payload, &on_wire_parts);
        out.note(4, &format!("unrequested {name}  (distinctive: {})", sample(&tokens)));
        let mut marks = Vec::new();
        for (place, hay) in places {
            let absent = !contains_subtree(hay, payload) && !has_any_token(hay, &tokens);
            c.check(absent, &format!("{name}: not {place}"));
            marks.push(out.mark(absent, &format!("not {place}")));
        }
        out.raw(&format!("      {}", marks.join("   ")));
    }
    for (key, value) in produced["_meta"].as_object().into_iter().flatten() {
        let mut tokens = distinctive_tokens(value, &requested_parts);
        tokens.insert(Token::Key(key.clone()));
        out.note(4, &format!("_meta[\"{key}\"]  (distinctive: {})", sample(&tokens)));
        let in_model = contains_subtree(&model, value) || has_any_token(&model, &tokens);
        let in_view = view["_meta"].get(key) == Some(value);
        let mut marks = vec![out.mark(!in_model, "not in model context")];
        c.check(!in_model, &format!("_meta[{key}]: not in model context"));
        if key == APPS_EXTENSION {
            c.check(in_view, &format!("_meta[{key}]: in App View (APP-5)"));
            marks.push(out.mark(in_view, "in App View: the Apps extension defines it"));
        } else {
            let anywhere_in_view = contains_subtree(&view, value) || has_any_token(&view, &tokens);
            let dropped = x.routed.dropped_meta(key);
            c.check(!anywhere_in_view, &format!("_meta[{key}]: not in App View"));
            c.check(dropped, &format!("_meta[{key}]: listed as dropped"));
            marks.push(out.mark(!anywhere_in_view, "not in App View"));
            marks.push(out.mark(dropped, "listed as dropped"));
        }
        out.raw(&format!("      {}", marks.join("   ")));
    }
    let assistant = find_output(produced, "assistant/content")?;
    let ui = find_output(produced, UI_STRUCTURED)?;
    out.note(4, "requested outputs, each at its own consumer only");
    let a_ok = x.routed.model == [assistant.clone()] && !contains_subtree(&view, &assistant["content"]);
    let u_ok = view["structuredContent"] == ui["structuredContent"]
        && !contains_subtree(&model, &ui["structuredContent"])
        && !shares_distinctive(&model, &ui["structuredContent"], std::slice::from_ref(assistant));
    c.check(a_ok, "assistant/content: in model context, not in App View");
    c.check(u_ok, "ui/structured: in App View, not in model context");
    let marks = [
        out.mark(a_ok, "assistant/content: model only"),
        out.mark(u_ok, "io.modelcontextprotocol/ui/structured: App View only"),
    ];
    out.raw(&format!("      {}", marks.join("   ")));
    let total = c.items.len();
    let passed = c.items.iter().filter(|(ok, _)| *ok).count();
    let mut summary = Checks::default();
    summary
        .check(passed == total, &format!("{passed} of {total} presence checks hold (PLAN-15, META-1, RES-2, APP-5)"));
    for (ok, label) in c.items.into_iter().filter(|(ok, _)| !ok) {
        summary.check(ok, &label);
    }
    Ok(summary)
}

// ------------------------------------------------------------------------------------------
// The world: fixtures, the server's declared tools, and its request handling
// ------------------------------------------------------------------------------------------

/// A failure that is not an expected outcome.
#[derive(Debug)]
enum Fail {
    /// The library refused something the scenario expected to work.
    Lib(Error),
    /// The fixtures lack something.
    Setup(String),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Lib(e)
    }
}

struct World {
    config: Arc<Config>,
    fixtures: Value,
    calls: Value,
    server_caps: Value,
    tools: Vec<ServerTool>,
}

impl World {
    fn load() -> Result<World, String> {
        let fixtures: Value = serde_json::from_str(TOOLS_JSON).map_err(|e| format!("fixtures/tools.json: {e}"))?;
        let calls: Value = serde_json::from_str(PRODUCED_JSON).map_err(|e| format!("fixtures/produced.json: {e}"))?;
        let config = Config::new();
        let tools = fixtures["tools"]
            .as_array()
            .ok_or("fixtures/tools.json has no tools array")?
            .iter()
            .map(|tool| {
                ServerTool::declare(tool, None, &config).map_err(|e| format!("declaring {}: {e}", tool["name"]))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let server_caps = fixtures["serverCapabilities"].clone();
        Ok(World { config, fixtures, calls, server_caps, tools })
    }

    fn tool(&self, name: &str) -> Result<&ServerTool, Fail> {
        self.tools
            .iter()
            .find(|t| t.name() == name)
            .ok_or_else(|| Fail::Setup(format!("the server has no tool {name}")))
    }

    fn client_caps(&self, kind: &str) -> Value {
        self.fixtures["clientCapabilities"][kind].clone()
    }

    fn produced(&self, key: &str) -> Result<&Value, Fail> {
        self.calls["produced"].get(key).ok_or_else(|| Fail::Setup(format!("fixtures/produced.json has no {key}")))
    }

    fn non_conforming_result(&self, key: &str) -> Result<&Value, Fail> {
        self.calls["nonConformingResults"]
            .get(key)
            .ok_or_else(|| Fail::Setup(format!("fixtures/produced.json has no result {key}")))
    }

    fn arguments(&self, tool: &str) -> Value {
        self.calls["arguments"].get(tool).cloned().unwrap_or_else(|| json!({}))
    }

    fn fixture_list(&self, key: &str) -> Result<&Vec<Value>, Fail> {
        self.fixtures[key].as_array().ok_or_else(|| Fail::Setup(format!("fixtures/tools.json has no {key} list")))
    }

    /// The schema the fixture declaration gives a variant (what a check compares against).
    fn declared_schema(&self, tool: &str, audience: &str, format: &str) -> Option<Value> {
        self.fixtures["tools"].as_array()?.iter().find(|t| t["name"] == json!(tool))?["outputVariants"]
            .as_array()?
            .iter()
            .find(|v| v["audience"] == json!(audience) && v["format"] == json!(format))?
            .get("schema")
            .cloned()
    }

    /// The server's view of a request: the protocol version and client capabilities it
    /// carries in `params._meta` (2026-07-28 on), or those the session agreed in initialize.
    fn server_connection(&self, host: &Host, params: &Value) -> Result<Connection, Error> {
        let ctx = match host.session {
            Session::PerRequest => RequestContext::from_params(params)?,
            Session::Initialize => {
                let init = host.initialize_params();
                RequestContext::from_initialize(
                    init["protocolVersion"].as_str().unwrap_or_default(),
                    &init["capabilities"],
                )?
            }
        };
        ctx.connection(&self.server_caps, Arc::clone(&self.config))
    }

    /// The server answering tools/list for one tool on the host's connection.
    fn list_tool(&self, host: &Host, name: &str) -> Result<Value, Fail> {
        let conn = self.server_connection(host, &host.list_params())?;
        Ok(self.tool(name)?.advertise(&conn))
    }

    /// The server answering tools/call: its connection from the request, then respond.
    fn serve_call(&self, host: &Host, params: &Value, produced: &Value) -> Result<Value, Error> {
        let conn = self.server_connection(host, params)?;
        let name = params["name"].as_str().unwrap_or_default();
        let Some(tool) = self.tools.iter().find(|t| t.name() == name) else {
            // Every scenario calls a declared tool; the fixtures are broken otherwise.
            panic!("tools/call for {name}, which the server does not declare");
        };
        tool.respond(&conn, params.get("requestedOutputs"), Produced::new(produced))
    }
}

/// How the server learns a request's protocol version and client capabilities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Session {
    /// 2026-07-28 on: every request carries them in `params._meta`.
    PerRequest,
    /// Up to 2025-11-25: agreed once in `initialize`.
    Initialize,
}

/// A host connected to the server: its capabilities, protocol version and the client-side
/// connection built from both sides' `capabilities.extensions`.
struct Host {
    label: &'static str,
    caps: Value,
    version: ProtocolVersion,
    session: Session,
    conn: Connection,
}

impl Host {
    fn connect(w: &World, label: &'static str, kind: &str, version: ProtocolVersion, session: Session) -> Host {
        let caps = w.client_caps(kind);
        let negotiated = wire::negotiate(&caps, &w.server_caps);
        let conn = Connection::new(version, negotiated, Arc::clone(&w.config));
        Host { label, caps, version, session, conn }
    }

    fn request_meta(&self) -> Option<Value> {
        (self.session == Session::PerRequest).then(|| {
            let mut meta = Map::new();
            meta.insert(META_PROTOCOL_VERSION.into(), json!(self.version.as_str()));
            meta.insert(META_CLIENT_CAPABILITIES.into(), self.caps.clone());
            Value::Object(meta)
        })
    }

    fn list_params(&self) -> Value {
        let mut params = Map::new();
        if let Some(meta) = self.request_meta() {
            params.insert("_meta".into(), meta);
        }
        Value::Object(params)
    }

    fn call_params(&self, tool: &str, arguments: &Value, requested: Option<Value>) -> Value {
        let mut params = Map::new();
        params.insert("name".into(), json!(tool));
        params.insert("arguments".into(), arguments.clone());
        if let Some(requested) = requested {
            params.insert("requestedOutputs".into(), requested);
        }
        if let Some(meta) = self.request_meta() {
            params.insert("_meta".into(), meta);
        }
        Value::Object(params)
    }

    fn initialize_params(&self) -> Value {
        json!({
            "protocolVersion": self.version.as_str(),
            "capabilities": self.caps,
            "clientInfo": { "name": self.label, "version": "1.0.0" }
        })
    }
}

// ------------------------------------------------------------------------------------------
// One exchange: tools/list, plan, tools/call, respond, route
// ------------------------------------------------------------------------------------------

enum Ask {
    Mode(Mode),
    Consumers(Value),
}

struct Call {
    tool: &'static str,
    ask: Ask,
    show_schemas: bool,
    show_routing: bool,
}

impl Call {
    fn new(tool: &'static str, ask: Ask) -> Self {
        Call { tool, ask, show_schemas: false, show_routing: true }
    }

    fn with_schemas(mut self) -> Self {
        self.show_schemas = true;
        self
    }

    fn quiet_routing(mut self) -> Self {
        self.show_routing = false;
        self
    }
}

struct Exchange {
    advertised: Value,
    received: ReceivedTool,
    plan: Plan,
    params: Value,
    result: Value,
    routed: Routed,
    server_negotiated: Vec<String>,
}

/// Plays one call end to end and prints each step.
fn exchange(w: &World, out: &mut Out, host: &Host, call: Call) -> Result<Exchange, Fail> {
    let server_tool = w.tool(call.tool)?;
    out.step(
        "Connection",
        &format!(
            "{} · {} · client extensions {} → negotiated {}",
            host.label,
            host.version,
            list_or_none(&extension_ids(&host.caps)),
            list_or_none(host.conn.negotiated())
        ),
    );
    if host.session == Session::Initialize {
        out.step("initialize", "params (the version and capabilities hold for the whole session):");
        out.json(&host.initialize_params(), 4, 2);
    }

    let list_params = host.list_params();
    let server_conn = w.server_connection(host, &list_params)?;
    let advertised = server_tool.advertise(&server_conn);
    let shape = if host.version.is_legacy() { "legacy Tool shape" } else { "outputVariants for this connection" };
    out.step("tools/list", &format!("the server's entry for {} ({shape}):", call.tool));
    out.json(&advertised, 4, 3);

    let received = ReceivedTool::accept(&advertised, &host.conn)?;
    let options = PlanOptions::default();
    let (plan, how) = match &call.ask {
        Ask::Mode(mode) => (received.plan_mode(*mode, &options)?, format!("mode {}", mode.as_str())),
        Ask::Consumers(consumers) => {
            (received.plan_consumers(consumers, &options)?, format!("consumers {}", selector_list(consumers)))
        }
    };
    out.step("Host plan", &format!("accepts the tool, plans {how} → {}", plan_text(&plan)));
    if call.show_schemas {
        for (selector, schema) in &plan.schemas {
            out.note(4, &format!("schema shown to the model for {selector} (SEL-7):"));
            out.json(schema.as_ref().unwrap_or(&Value::Null), 6, 4);
        }
    }

    let params = host.call_params(call.tool, &w.arguments(call.tool), plan.requested_outputs());
    out.step("tools/call", "params:");
    out.json(&params, 4, 6);

    let produced = w.produced(call.tool)?;
    let call_conn = w.server_connection(host, &params)?;
    let server_negotiated = call_conn.negotiated().to_vec();
    let result = server_tool.respond(&call_conn, params.get("requestedOutputs"), Produced::new(produced))?;
    let computed: Vec<String> =
        produced["outputs"].as_array().map(|o| o.iter().map(selector_name).collect()).unwrap_or_default();
    let source = match host.session {
        Session::PerRequest => "params._meta",
        Session::Initialize => "initialize",
    };
    let what = if host.version.is_legacy() {
        let mut fields = vec!["content"];
        if result.get("structuredContent").is_some() {
            fields.push("structuredContent");
        }
        format!(
            "answers in the legacy shape ({}), projected from the {} outputs the tool computed",
            fields.join(" + "),
            computed.len()
        )
    } else {
        let sent = output_names(&result);
        let unsent: Vec<String> = computed.iter().filter(|c| !sent.contains(c)).cloned().collect();
        let mut text =
            format!("sends {} of the {} outputs the tool computed: {}", sent.len(), computed.len(), sent.join(", "));
        if !unsent.is_empty() {
            text.push_str(&format!("; not sent: {}", unsent.join(", ")));
        }
        text
    };
    out.step(
        "Server",
        &format!(
            "{source} → {}, negotiated {}; ServerTool::respond {what}",
            host.version,
            list_or_none(&server_negotiated),
        ),
    );
    out.step("Result", "on the wire:");
    out.json(&result, 4, 6);

    let route = received.route(params.get("requestedOutputs"), &result)?;
    let routed = Routed::new(&route.to_json(), &route.diagnostics);
    if call.show_routing {
        out.route(&routed, host.version.is_legacy());
    } else {
        out.step(
            "Routing",
            &format!(
                "model context {} · App View {} · dropped {}",
                list_or_none(&names(&routed.model)),
                if routed.view.is_some() { "ui/notifications/tool-result" } else { "(nothing)" },
                list_or_none(
                    &routed.dropped.iter().map(|d| compact(d, usize::MAX, None, usize::MAX)).collect::<Vec<_>>()
                )
            ),
        );
    }
    Ok(Exchange { advertised, received, plan, params, result, routed, server_negotiated })
}

/// A route as owned JSON, so it outlives the result it borrows from.
struct Routed {
    model: Vec<Value>,
    user: Vec<Value>,
    program: Vec<Value>,
    extensions: Map<String, Value>,
    view: Option<Value>,
    dropped: Vec<Value>,
    /// (code, JSON Pointer of the block)
    diagnostics: Vec<(String, String)>,
}

impl Routed {
    fn new(json: &Value, diagnostics: &[Diagnostic]) -> Routed {
        let list = |key: &str| json[key].as_array().cloned().unwrap_or_default();
        Routed {
            model: list("model"),
            user: list("user"),
            program: list("programmatic"),
            extensions: json["extensions"].as_object().cloned().unwrap_or_default(),
            view: json.get("view").filter(|v| !v.is_null()).cloned(),
            dropped: list("dropped"),
            diagnostics: diagnostics.iter().map(|d| (d.code().to_owned(), d.path().to_owned())).collect(),
        }
    }

    fn dropped_meta(&self, key: &str) -> bool {
        self.dropped.iter().any(|d| d == &json!({ "meta": key }))
    }

    fn nothing_else_than_model(&self) -> bool {
        self.user.is_empty() && self.program.is_empty() && self.extensions.is_empty() && self.view.is_none()
    }
}

// ------------------------------------------------------------------------------------------
// Checks and searches
// ------------------------------------------------------------------------------------------

#[derive(Default)]
struct Checks {
    items: Vec<(bool, String)>,
}

impl Checks {
    fn check(&mut self, ok: bool, label: &str) {
        self.items.push((ok, label.to_owned()));
    }

    fn all_ok(&self) -> bool {
        !self.items.is_empty() && self.items.iter().all(|(ok, _)| *ok)
    }
}

fn selector(audience: &str, format: &str) -> Selector {
    Selector::read(&json!({ "audience": audience, "format": format }), "")
        .unwrap_or_else(|e| panic!("{audience}/{format} is not a selector: {e}"))
}

/// `audience/format` of a selector-shaped object (a variant, a selector, an output).
fn selector_name(value: &Value) -> String {
    Selector::read(value, "").map_or_else(|_| "?".to_owned(), |s| s.to_string())
}

fn names(outputs: &[Value]) -> Vec<String> {
    outputs.iter().map(selector_name).collect()
}

fn variant_names(tool: &Value) -> Vec<String> {
    tool["outputVariants"].as_array().map_or_else(Vec::new, |v| names(v))
}

fn output_names(result: &Value) -> Vec<String> {
    result["outputs"].as_array().map_or_else(Vec::new, |v| names(v))
}

fn requested_names(params: &Value) -> Vec<String> {
    params["requestedOutputs"].as_array().map_or_else(Vec::new, |v| names(v))
}

fn find_output<'v>(produced: &'v Value, name: &str) -> Result<&'v Value, Fail> {
    produced["outputs"]
        .as_array()
        .and_then(|outputs| outputs.iter().find(|o| selector_name(o) == name))
        .ok_or_else(|| Fail::Setup(format!("the fixture produces no {name} output")))
}

fn payload_of(output: &Value) -> &Value {
    output.get("structuredContent").or_else(|| output.get("content")).unwrap_or(&Value::Null)
}

fn schema_shown(plan: &Plan, name: &str) -> Option<Value> {
    plan.schemas.iter().find(|(s, _)| s.to_string() == name).and_then(|(_, schema)| schema.clone())
}

fn last_block_mirrors(result: &Value) -> bool {
    let last_text = result["content"].as_array().and_then(|blocks| blocks.last()).and_then(|b| b["text"].as_str());
    let parsed = last_text.and_then(|t| serde_json::from_str::<Value>(t).ok());
    parsed.is_some() && parsed.as_ref() == result.get("structuredContent")
}

/// Whether `needle` occurs anywhere in `hay` as a whole value.
fn contains_subtree(hay: &Value, needle: &Value) -> bool {
    if hay == needle {
        return true;
    }
    match hay {
        Value::Array(items) => items.iter().any(|i| contains_subtree(i, needle)),
        Value::Object(map) => map.values().any(|v| contains_subtree(v, needle)),
        _ => false,
    }
}

/// An object key or a scalar found in a JSON value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Token {
    Key(String),
    Scalar(String),
}

fn tokens(value: &Value, into: &mut BTreeSet<Token>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                into.insert(Token::Key(k.clone()));
                tokens(v, into);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| tokens(i, into)),
        Value::String(s) => {
            into.insert(Token::Scalar(json!(s).to_string()));
        }
        Value::Number(n) => {
            into.insert(Token::Scalar(n.to_string()));
        }
        Value::Bool(_) | Value::Null => {}
    }
}

/// The keys and scalars of `value` that occur in none of `legitimate`: finding one of them
/// in a consumer's JSON means part of `value` leaked there.
fn distinctive_tokens(value: &Value, legitimate: &[Value]) -> BTreeSet<Token> {
    let mut own = BTreeSet::new();
    tokens(value, &mut own);
    let mut allowed = BTreeSet::new();
    for l in legitimate {
        tokens(l, &mut allowed);
    }
    own.difference(&allowed).cloned().collect()
}

fn has_any_token(hay: &Value, needles: &BTreeSet<Token>) -> bool {
    let mut found = BTreeSet::new();
    tokens(hay, &mut found);
    !found.is_disjoint(needles)
}

fn shares_distinctive(hay: &Value, value: &Value, legitimate: &[Value]) -> bool {
    has_any_token(hay, &distinctive_tokens(value, legitimate))
}

fn sample(tokens: &BTreeSet<Token>) -> String {
    let mut shown: Vec<String> = tokens
        .iter()
        .filter_map(|t| match t {
            Token::Scalar(s) if s.len() > 4 => Some(s.clone()),
            _ => None,
        })
        .take(2)
        .collect();
    if shown.is_empty() {
        shown = tokens
            .iter()
            .take(2)
            .map(|t| match t {
                Token::Key(k) => format!("key {k}"),
                Token::Scalar(s) => s.clone(),
            })
            .collect();
    }
    let more = tokens.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{}, +{more}", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

fn extension_ids(caps: &Value) -> Vec<String> {
    caps["extensions"].as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default()
}

fn list_or_none<S: AsRef<str>>(items: &[S]) -> String {
    if items.is_empty() {
        "(none)".to_owned()
    } else {
        let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
        format!("[{}]", items.join(", "))
    }
}

fn selector_list(value: &Value) -> String {
    list_or_none(&value.as_array().map_or_else(Vec::new, |v| names(v)))
}

fn plan_text(plan: &Plan) -> String {
    match plan.requested_outputs() {
        Some(requested) => format!("requestedOutputs {}", selector_list(&requested)),
        None => "requestedOutputs omitted (assistant/content fallback)".to_owned(),
    }
}

// ------------------------------------------------------------------------------------------
// Output: sections, wrapped text, compact JSON, colour
// ------------------------------------------------------------------------------------------

const BOLD: &str = "1";
const DIM: &str = "2";
const BOLD_CYAN: &str = "1;36";
const BOLD_GREEN: &str = "1;32";
const BOLD_RED: &str = "1;31";
const GREEN: &str = "32";
const RED: &str = "31";
const YELLOW: &str = "33";

struct Out {
    buf: String,
    color: bool,
}

impl Out {
    fn new(color: bool) -> Self {
        Out { buf: String::new(), color }
    }

    fn paint(&self, style: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{style}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    fn raw(&mut self, line: &str) {
        self.buf.push_str(line);
        self.buf.push('\n');
    }

    fn blank(&mut self) {
        self.buf.push('\n');
    }

    fn flush(&mut self) {
        let mut stdout = std::io::stdout().lock();
        // A closed pipe (`| head`) is not an error worth a panic.
        let _ = stdout.write_all(self.buf.as_bytes());
        let _ = stdout.flush();
        self.buf.clear();
    }

    fn rule(&mut self) {
        let line = self.paint(DIM, &"\u{2500}".repeat(WIDTH));
        self.raw(&line);
    }

    fn header(&mut self, number: u8, title: &str) {
        self.blank();
        self.rule();
        let line = self.paint(BOLD, &format!("PLAN-{number}  {title}"));
        self.raw(&line);
        self.rule();
    }

    /// Wrapped prose at `indent`.
    fn para(&mut self, text: &str, indent: usize) {
        for line in wrap(text, WIDTH - indent) {
            self.raw(&format!("{}{line}", " ".repeat(indent)));
        }
    }

    fn note(&mut self, indent: usize, text: &str) {
        self.para(text, indent);
    }

    /// `  ▸ Label       text`, the text wrapped under itself.
    fn step(&mut self, label: &str, text: &str) {
        const LABEL: usize = 11;
        let lead = format!("  \u{25b8} {label:<LABEL$} ");
        let indent = lead.chars().count();
        let painted = self.paint(BOLD_CYAN, &lead);
        let lines = wrap(text, WIDTH - indent);
        if lines.is_empty() {
            self.raw(painted.trim_end());
        }
        for (i, line) in lines.iter().enumerate() {
            if i == 0 {
                self.raw(&format!("{painted}{line}"));
            } else {
                self.raw(&format!("{}{line}", " ".repeat(indent)));
            }
        }
    }

    fn kv_json(&mut self, key: &str, value: &Value) {
        let lead = format!("    {key:<13}");
        let avail = WIDTH - lead.chars().count();
        let full = compact(value, usize::MAX, None, usize::MAX);
        if chars(&full) <= avail {
            self.raw(&format!("{lead}{full}"));
        } else {
            self.raw(lead.trim_end());
            self.json(value, 6, 6);
        }
    }

    fn json(&mut self, value: &Value, indent: usize, depth: usize) {
        for line in json_lines(value, indent, depth) {
            let line = self.dim_markers(&line);
            self.raw(&line);
        }
    }

    fn mark(&self, ok: bool, text: &str) -> String {
        if ok {
            format!("{} {text}", self.paint(GREEN, "\u{2713}"))
        } else {
            format!("{} {text}", self.paint(RED, "\u{2717}"))
        }
    }

    fn check(&mut self, ok: bool, label: &str) {
        let mark = self.mark(ok, "");
        let lines = wrap(label, WIDTH - 6);
        for (i, line) in lines.iter().enumerate() {
            if i == 0 {
                self.raw(&format!("    {mark}{line}"));
            } else {
                self.raw(&format!("      {line}"));
            }
        }
    }

    fn verdict(&mut self, ok: bool) {
        let text = if ok {
            self.paint(BOLD_GREEN, "\u{2192} as expected")
        } else {
            self.paint(BOLD_RED, "\u{2192} NOT as expected")
        };
        self.raw(&format!("  {text}"));
    }

    /// A typed error: its stable code, its JSON-RPC code (or that it is local), its message,
    /// and with an `id` the JSON-RPC error response a server sends.
    fn error(&mut self, e: &Error, id: Option<&Value>, response_label: &str) {
        let rpc = match e.jsonrpc_code() {
            Some(code) => format!("JSON-RPC {code}"),
            None => "client-side, no JSON-RPC code".to_owned(),
        };
        let head =
            format!("{} {}  ({rpc})", self.paint(YELLOW, "\u{2298} rejected:"), self.paint(BOLD, e.code().as_str()));
        self.raw(&format!("    {head}"));
        let detail =
            if e.path().is_empty() { e.message().to_owned() } else { format!("{} (at {})", e.message(), e.path()) };
        for line in wrap(&detail, WIDTH - 6) {
            let line = self.paint(DIM, &line);
            self.raw(&format!("      {line}"));
        }
        if let (Some(id), Some(_)) = (id, e.jsonrpc_code()) {
            self.raw(&format!("    {response_label}:"));
            self.json(&wire::error_response(id, e), 6, 4);
        }
    }

    fn route(&mut self, routed: &Routed, legacy: bool) {
        self.step("Routing", "where the host delivers each part (ReceivedTool::route):");
        self.destination("Model context", &routed.model, legacy);
        self.destination("User view", &routed.user, false);
        self.destination("Program", &routed.program, false);
        for (id, outputs) in &routed.extensions {
            if id != APPS_EXTENSION {
                let outputs = outputs.as_array().cloned().unwrap_or_default();
                self.destination(&format!("Ext {id}"), &outputs, false);
            }
        }
        match &routed.view {
            None => {
                let nothing = self.paint(DIM, "(nothing)");
                self.row("App View", &nothing);
            }
            Some(view) => {
                let what = if legacy {
                    "ui/notifications/tool-result: the whole legacy result (APP-6)"
                } else {
                    "ui/notifications/tool-result, built from the ui output alone (APP-5)"
                };
                self.row("App View", what);
                self.json(view, ROUTE_COL + 2, 5);
            }
        }
        if routed.dropped.is_empty() {
            let nothing = self.paint(DIM, "(nothing)");
            self.row("Dropped", &nothing);
        }
        for (i, dropped) in routed.dropped.iter().enumerate() {
            let text = if let Some(key) = dropped["meta"].as_str() {
                let why = if key == APPS_EXTENSION {
                    "forwarded only with a requested ui output"
                } else {
                    "no negotiated extension defines it"
                };
                format!("result _meta[\"{key}\"]: {why} (META-1)")
            } else if dropped["legacy"] == json!("structuredContent") {
                "legacy structuredContent: no consumer by this host's defaults (LEG-5)".to_owned()
            } else {
                compact(dropped, usize::MAX, None, usize::MAX)
            };
            self.row(if i == 0 { "Dropped" } else { "" }, &text);
        }
        if routed.diagnostics.is_empty() {
            let nothing = self.paint(DIM, "(none)");
            self.row("Diagnostics", &nothing);
        }
        for (i, (code, path)) in routed.diagnostics.iter().enumerate() {
            let text = format!(
                "{code} at {path}: block annotations.audience disagrees with the output's \
                 audience, which decides (AUD-2)"
            );
            self.row(if i == 0 { "Diagnostics" } else { "" }, &text);
        }
    }

    /// `    Label          text`, wrapped at the routing column.
    fn row(&mut self, label: &str, text: &str) {
        let lead = format!("    {label:<width$}", width = ROUTE_COL - 4);
        let lead = self.paint(BOLD, &lead);
        let plain_len = text.chars().count();
        // Already-painted text is short and never wrapped.
        let lines = if text.contains('\x1b') || plain_len <= WIDTH - ROUTE_COL {
            vec![text.to_owned()]
        } else {
            wrap(text, WIDTH - ROUTE_COL)
        };
        for (i, line) in lines.iter().enumerate() {
            if i == 0 {
                self.raw(&format!("{lead}{line}"));
            } else {
                self.raw(&format!("{}{line}", " ".repeat(ROUTE_COL)));
            }
        }
    }

    fn destination(&mut self, label: &str, outputs: &[Value], legacy: bool) {
        if outputs.is_empty() {
            let nothing = self.paint(DIM, "(nothing)");
            self.row(label, &nothing);
            return;
        }
        for (i, output) in outputs.iter().enumerate() {
            let name = selector_name(output);
            let title =
                if legacy { format!("{name}  (legacy content; to the model by host default, LEG-5)") } else { name };
            self.row(if i == 0 { label } else { "" }, &title);
            let indent = ROUTE_COL + 2;
            if let Some(blocks) = output.get("content").and_then(Value::as_array) {
                for block in blocks {
                    for line in block_lines(block, indent) {
                        let line = self.dim_markers(&line);
                        self.raw(&line);
                    }
                }
            } else if let Some(value) = output.get("structuredContent") {
                let text = fit(value, WIDTH - indent, None);
                let line = format!("{}{}", " ".repeat(indent), self.dim_markers(&text));
                self.raw(&line);
            }
        }
    }

    /// Dims the truncation markers (`…`, `…(+N chars)`, `…(+N more)`).
    fn dim_markers(&self, line: &str) -> String {
        if !self.color || !line.contains('\u{2026}') {
            return line.to_owned();
        }
        let mut out = String::with_capacity(line.len() + 16);
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '\u{2026}' {
                out.push(c);
                continue;
            }
            let mut marker = String::from(c);
            if chars.peek() == Some(&'(') {
                for d in chars.by_ref() {
                    marker.push(d);
                    if d == ')' {
                        break;
                    }
                }
            }
            out.push_str(&self.paint(DIM, &marker));
        }
        out
    }
}

/// One content block as the host would present it: text as prose, media by type and size.
fn block_lines(block: &Value, indent: usize) -> Vec<String> {
    let pad = " ".repeat(indent);
    let kind = block["type"].as_str().unwrap_or("?");
    let annotations = block
        .get("annotations")
        .map(|a| format!(" · annotations {}", compact(a, usize::MAX, None, 40)))
        .unwrap_or_default();
    match kind {
        "text" => {
            let text = block["text"].as_str().unwrap_or_default();
            let quoted = format!("\"{text}\"{annotations}");
            let lead = format!("{pad}text  ");
            let width = WIDTH - indent - 7;
            // JSON text (a legacy mirror) has no spaces worth breaking at.
            let is_json = serde_json::from_str::<Value>(text).is_ok_and(|v| v.is_object() || v.is_array());
            let wrapped = if is_json {
                let all: Vec<char> = quoted.chars().collect();
                all.chunks(width).map(|c| c.iter().collect()).collect()
            } else {
                wrap(&quoted, width)
            };
            wrapped
                .into_iter()
                .enumerate()
                .map(|(i, line)| if i == 0 { format!("{lead}{line}") } else { format!("{pad}       {line}") })
                .collect()
        }
        "image" | "audio" => {
            // The decoded size: what the user's view would show, not the base64 text.
            let bytes = block["data"].as_str().map_or(0, |data| {
                (data.len() / 4 * 3).saturating_sub(data.bytes().rev().take(2).filter(|b| *b == b'=').count())
            });
            vec![format!("{pad}{kind}  {} · {bytes} bytes{annotations}", block["mimeType"].as_str().unwrap_or("?"))]
        }
        "resource_link" => vec![format!(
            "{pad}resource_link  {} \u{2192} {}{annotations}",
            block["name"].as_str().unwrap_or("?"),
            block["uri"].as_str().unwrap_or("?")
        )],
        _ => json_lines(block, indent, 2),
    }
}

/// Greedy word wrap; a word longer than the width is split.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(10);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let mut word: String = word.to_owned();
        loop {
            let line_len = line.chars().count();
            let word_len = word.chars().count();
            let needed = if line.is_empty() { word_len } else { line_len + 1 + word_len };
            if needed <= width {
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            // A single word wider than the line.
            let head: String = word.chars().take(width).collect();
            let rest: String = word.chars().skip(width).collect();
            lines.push(head);
            word = rest;
            if word.is_empty() {
                break;
            }
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

// ---- Compact, width-aware JSON ------------------------------------------------------------

/// Containers with more items than this are cut when laid out over several lines.
const MAX_ITEMS: usize = 4;
/// How many items a cut container keeps.
const SHOWN_ITEMS: usize = 3;
/// Items shown in a one-line array.
const INLINE_ITEMS: usize = 8;
/// Characters kept of a base64 payload (`data`, `blob`).
const BASE64_KEEP: usize = 16;
/// Characters kept of a long string inside a collapsed one-line value.
const SHORT_STRING: usize = 40;

fn chars(s: &str) -> usize {
    s.chars().count()
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A string literal of at most `max` characters, quotes and escapes included, cut with a
/// marker (base64 payloads are always cut to [`BASE64_KEEP`] characters).
fn string_literal(s: &str, key: Option<&str>, max: usize) -> String {
    let len = chars(s);
    let full = json_string(s);
    let mut keep = if matches!(key, Some("data" | "blob")) && len > BASE64_KEEP + 8 {
        BASE64_KEEP
    } else if chars(&full) > max {
        len
    } else {
        return full;
    };
    loop {
        let kept: String = s.chars().take(keep).collect();
        let literal = json_string(&kept);
        let open = literal.strip_suffix('"').unwrap_or(&literal);
        let text = format!("{open}\u{2026}(+{} chars)\"", len - keep);
        if keep <= 8 || (keep < len && chars(&text) <= max) {
            return text;
        }
        keep -= 1;
    }
}

/// One line; `level` is how many container levels are shown before `{…}` / `[…]`.
fn compact(value: &Value, level: usize, key: Option<&str>, max_string: usize) -> String {
    match value {
        Value::Object(map) if map.is_empty() => "{}".to_owned(),
        Value::Array(items) if items.is_empty() => "[]".to_owned(),
        Value::Object(_) if level == 0 => "{\u{2026}}".to_owned(),
        Value::Array(_) if level == 0 => "[\u{2026}]".to_owned(),
        Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", json_string(k), compact(v, level - 1, Some(k), max_string)))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
        Value::Array(items) => {
            let mut shown: Vec<String> =
                items.iter().take(INLINE_ITEMS).map(|v| compact(v, level - 1, key, max_string)).collect();
            if items.len() > INLINE_ITEMS {
                shown.push(format!("\u{2026}(+{} more)", items.len() - INLINE_ITEMS));
            }
            format!("[{}]", shown.join(", "))
        }
        Value::String(s) => string_literal(s, key, max_string),
        other => other.to_string(),
    }
}

/// The fullest one-line form that fits in `avail` columns.
fn fit(value: &Value, avail: usize, key: Option<&str>) -> String {
    if let Value::String(s) = value {
        let full = string_literal(s, key, usize::MAX);
        if chars(&full) <= avail {
            return full;
        }
        return string_literal(s, key, avail.max(24));
    }
    let attempts = [
        (usize::MAX, usize::MAX),
        (usize::MAX, 60),
        (usize::MAX, SHORT_STRING),
        (3, SHORT_STRING),
        (2, SHORT_STRING),
        (1, SHORT_STRING),
    ];
    for (level, max_string) in attempts {
        let text = compact(value, level, key, max_string);
        if chars(&text) <= avail {
            return text;
        }
    }
    trimmed(value, avail)
}

/// A container with as many collapsed members as fit, then `…(+N more)`.
fn trimmed(value: &Value, avail: usize) -> String {
    let (open, close, members): (&str, &str, Vec<String>) = match value {
        Value::Object(map) => {
            ("{", "}", map.iter().map(|(k, v)| format!("{}: {}", json_string(k), compact(v, 0, Some(k), 16))).collect())
        }
        Value::Array(items) => ("[", "]", items.iter().map(|v| compact(v, 0, None, 16)).collect()),
        other => return compact(other, 0, None, 16),
    };
    let total = members.len();
    let mut kept: Vec<String> = Vec::new();
    for member in members {
        let more = format!("\u{2026}(+{} more)", total - kept.len() - 1);
        let mut candidate = kept.clone();
        candidate.push(member.clone());
        candidate.push(more);
        let text = format!("{open}{}{close}", candidate.join(", "));
        if chars(&text) > avail {
            break;
        }
        kept.push(member);
    }
    if kept.len() < total {
        kept.push(format!("\u{2026}(+{} more)", total - kept.len()));
    }
    format!("{open}{}{close}", kept.join(", "))
}

/// Arrays that are protocol structure, never cut: every entry matters to the reader.
const STRUCTURAL: [&str; 5] = ["outputVariants", "outputs", "requestedOutputs", "content", "tools"];

/// Pretty JSON for a `WIDTH`-column terminal: a value that fits stays on one line; members
/// that fit share lines; beyond `max_depth` levels containers are collapsed to one line;
/// long data arrays are cut.
fn json_lines(value: &Value, indent: usize, max_depth: usize) -> Vec<String> {
    let mut lines = Vec::new();
    layout(value, None, indent, max_depth, false, &mut lines);
    lines
}

/// The one-line form of a member at this width, if it has one: whole, with long strings
/// cut, or (out of depth) collapsed. `None` means it needs several lines.
fn one_line(value: &Value, key: Option<&str>, avail: usize, depth_left: usize) -> Option<String> {
    let full = compact(value, usize::MAX, key, usize::MAX);
    if chars(&full) <= avail {
        return Some(full);
    }
    match value {
        Value::String(_) => return Some(fit(value, avail, key)),
        Value::Object(_) | Value::Array(_) => {}
        _ => return Some(full),
    }
    for max_string in (SHORT_STRING..=80).rev().step_by(4) {
        let text = compact(value, usize::MAX, key, max_string);
        if chars(&text) <= avail {
            return Some(text);
        }
    }
    (depth_left == 0).then(|| fit(value, avail, key))
}

/// A container's members as (key, value), and how many items were cut from a long array.
fn members<'v>(value: &'v Value, key: Option<&str>) -> (Vec<(Option<&'v str>, &'v Value)>, usize) {
    match value {
        Value::Object(map) => (map.iter().map(|(k, v)| (Some(k.as_str()), v)).collect(), 0),
        Value::Array(items) => {
            let structural = key.is_some_and(|k| STRUCTURAL.contains(&k));
            let shown = if items.len() > MAX_ITEMS && !structural { SHOWN_ITEMS } else { items.len() };
            (items.iter().take(shown).map(|v| (None, v)).collect(), items.len() - shown)
        }
        _ => (Vec::new(), 0),
    }
}

fn member_prefix(key: Option<&str>) -> String {
    key.map(|k| format!("{}: ", json_string(k))).unwrap_or_default()
}

fn layout(value: &Value, key: Option<&str>, indent: usize, depth_left: usize, comma: bool, lines: &mut Vec<String>) {
    let pad = " ".repeat(indent);
    let lead = format!("{pad}{}", member_prefix(key));
    let tail = if comma { "," } else { "" };
    let avail = WIDTH.saturating_sub(chars(&lead) + tail.len());
    let expandable = depth_left > 0
        && match value {
            Value::Object(map) => !map.is_empty(),
            Value::Array(items) => !items.is_empty(),
            _ => false,
        };
    let whole = one_line(value, key, avail, if expandable { depth_left } else { 0 });
    let (open, close) = match value {
        Value::Array(_) => ("[", "]"),
        _ => ("{", "}"),
    };
    if let Some(whole) = whole {
        lines.push(format!("{lead}{whole}{tail}"));
        return;
    }
    {
        let (parts, cut) = members(value, key);
        let marker = (cut > 0).then(|| format!("\u{2026}(+{cut} more)"));
        // Hanging: every member on one line, packed, right after the opening bracket.
        let col = chars(&lead) + 1;
        let texts: Option<Vec<String>> = parts
            .iter()
            .map(|(k, v)| {
                let prefix = member_prefix(*k);
                let room = WIDTH.saturating_sub(col + chars(&prefix) + 2 + tail.len());
                one_line(v, *k, room, depth_left - 1).map(|t| format!("{prefix}{t}"))
            })
            .collect();
        if let Some(mut texts) = texts {
            texts.extend(marker);
            pack(&texts, &format!("{lead}{open}"), &" ".repeat(col), &format!("{close}{tail}"), lines);
            return;
        }
        // Standard: one member per line, short neighbours sharing a line.
        lines.push(format!("{lead}{open}"));
        let inner = " ".repeat(indent + 2);
        let count = parts.len() + usize::from(marker.is_some());
        let mut run: Vec<String> = Vec::new();
        for (i, (k, v)) in parts.iter().enumerate() {
            let more = i + 1 < count;
            let prefix = member_prefix(*k);
            let room = WIDTH.saturating_sub(indent + 2 + chars(&prefix) + 1);
            match one_line(v, *k, room, depth_left - 1) {
                Some(text) => run.push(format!("{prefix}{text}")),
                None => {
                    if !run.is_empty() {
                        pack(&std::mem::take(&mut run), &inner, &inner, ",", lines);
                    }
                    layout(v, *k, indent + 2, depth_left - 1, more, lines);
                }
            }
        }
        run.extend(marker);
        if !run.is_empty() {
            pack(&run, &inner, &inner, "", lines);
        }
        lines.push(format!("{pad}{close}{tail}"));
    }
}

/// Lays `items` out comma-separated, as many per line as fit: the first line starts with
/// `first`, the others with `rest`, and `end` follows the last item.
fn pack(items: &[String], first: &str, rest: &str, end: &str, lines: &mut Vec<String>) {
    let mut line = first.to_owned();
    let mut empty = true;
    for (i, item) in items.iter().enumerate() {
        let last = i + 1 == items.len();
        let suffix = if last { end } else { "," };
        let sep = if empty { "" } else { " " };
        if !empty && chars(&line) + 1 + chars(item) + chars(suffix) > WIDTH {
            lines.push(std::mem::take(&mut line));
            line = rest.to_owned();
            empty = true;
        }
        let sep = if empty { "" } else { sep };
        line.push_str(sep);
        line.push_str(item);
        line.push_str(suffix);
        empty = false;
    }
    lines.push(line);
}
