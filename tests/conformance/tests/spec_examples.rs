//! Every JSON example of the specification chapter (`docs/spec/*.md`) is a corpus case or an
//! excerpt of one, so the chapter cannot drift from what the corpus (and so every binding)
//! does. Each ```json block is preceded by a marker comment naming where it comes from:
//!
//! - `<!-- corpus: <case-id> <pointer> -->`: the block equals the value at the JSON Pointer
//!   `<pointer>` of that case (`""` is the whole case);
//! - `<!-- corpus: <case-id> <pointer> at <block-pointer>; <pointer> at <block-pointer> ... -->`:
//!   the block is a JSON-RPC message; each listed member of the block equals the value at that
//!   pointer of the case, and what is left over may only be framing the corpus does not model
//!   (`jsonrpc`, `id`, `method`, `params.name`, `params.arguments`, `params._meta`,
//!   `error.message`, an error's `error.data.path` (the corpus compares error codes, not paths),
//!   and a retried request's multi-round-trip `params.inputResponses` and `params.requestState`).
//!
//! Values are compared as JSON (object key order ignored, numbers by value). A block without a
//! marker, an unknown case id, a pointer that leads nowhere or a differing value fails the test.
//! Cases are read as JSON, not linted: linting is the corpus runner's job.

#![allow(clippy::panic, clippy::unwrap_used, clippy::indexing_slicing)]

use mcp_outputs_conformance::{compare, corpus_dir, json_files, parse_strict};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Members of a JSON-RPC example that no corpus case holds and that may stay unchecked.
const FRAMING: &[&str] = &[
    "/jsonrpc",
    "/id",
    "/method",
    "/params/name",
    "/params/arguments",
    "/params/_meta",
    "/params/inputResponses",
    "/params/requestState",
    "/error/message",
    "/error/data/path",
];

fn spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/spec")
}

/// Every case of the repository corpus by id, read as plain JSON.
fn cases_by_id() -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for file in json_files(&corpus_dir(), true).expect("the corpus folder is readable") {
        let text = std::fs::read_to_string(&file).expect("a corpus file is readable");
        let value = parse_strict(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let items = match value {
            Value::Array(items) => items,
            single => vec![single],
        };
        for case in items {
            if let Some(id) = case.get("id").and_then(Value::as_str) {
                out.insert(id.to_owned(), case.clone());
            }
        }
    }
    out
}

/// One ```json block and the marker before it.
struct Example {
    line: usize,
    marker: Option<String>,
    text: String,
}

/// The ```json blocks of a Markdown text, each with the marker comment on the last non-blank
/// line before its fence (if that line is one).
fn examples(markdown: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut lines = markdown.lines().enumerate();
    let mut previous: Option<&str> = None;
    while let Some((n, line)) = lines.next() {
        let trimmed = line.trim();
        if let Some(info) = trimmed.strip_prefix("```") {
            let mut body = Vec::new();
            for (_, inner) in lines.by_ref() {
                if inner.trim() == "```" {
                    break;
                }
                body.push(inner);
            }
            if info.trim().eq_ignore_ascii_case("json") {
                let marker = previous
                    .and_then(|p| p.strip_prefix("<!-- corpus:"))
                    .and_then(|p| p.strip_suffix("-->"))
                    .map(|m| m.trim().to_owned());
                out.push(Example { line: n + 1, marker, text: body.join("\n") });
            }
            previous = None;
            continue;
        }
        if !trimmed.is_empty() {
            previous = Some(trimmed);
        }
    }
    out
}

/// Removes the member at `pointer` from `value`; false when there is none.
fn remove_at(value: &mut Value, pointer: &str) -> bool {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return false;
    };
    let key = last.replace("~1", "/").replace("~0", "~");
    match value.pointer_mut(parent) {
        Some(Value::Object(map)) => map.remove(&key).is_some(),
        Some(Value::Array(items)) => match key.parse::<usize>() {
            Ok(i) if i < items.len() => {
                items.remove(i);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// Drops empty objects left behind, bottom-up.
fn prune(value: &mut Value) {
    if let Value::Object(map) = value {
        map.values_mut().for_each(prune);
        map.retain(|_, v| !matches!(v, Value::Object(m) if m.is_empty()));
    }
}

fn differs(expected: &Value, got: &Value) -> Option<String> {
    let mut diffs = Vec::new();
    compare(expected, got, "", &[], &mut diffs);
    (!diffs.is_empty()).then(|| diffs.join("\n"))
}

/// The problems of one example, as messages.
fn check_example(example: &Example, cases: &BTreeMap<String, Value>) -> Vec<String> {
    let Some(marker) = &example.marker else {
        return vec!["no `<!-- corpus: ... -->` marker before this ```json block".into()];
    };
    let block = match parse_strict(&example.text) {
        Ok(v) => v,
        Err(e) => return vec![format!("not JSON: {e}")],
    };
    let (id, rest) = marker.split_once(char::is_whitespace).unwrap_or((marker.as_str(), ""));
    let Some(case) = cases.get(id) else {
        return vec![format!("no corpus case with id {id:?}")];
    };
    let rest = rest.trim();
    if !rest.contains(" at ") {
        let pointer = if rest == "\"\"" { "" } else { rest };
        return match case.pointer(pointer) {
            None => vec![format!("case {id} has nothing at {pointer:?}")],
            Some(value) => differs(value, &block)
                .map(|d| vec![format!("differs from case {id} at {pointer:?} (expected: case, got: block):\n{d}")])
                .unwrap_or_default(),
        };
    }
    let mut problems = Vec::new();
    let mut leftover = block.clone();
    for mapping in rest.split(';').map(str::trim).filter(|m| !m.is_empty()) {
        let Some((from, to)) = mapping.split_once(" at ") else {
            problems.push(format!("bad mapping {mapping:?}: expected `<case-pointer> at <block-pointer>`"));
            continue;
        };
        let (from, to) = (from.trim(), to.trim());
        match (case.pointer(from), block.pointer(to)) {
            (None, _) => problems.push(format!("case {id} has nothing at {from:?}")),
            (_, None) => problems.push(format!("the block has nothing at {to:?}")),
            (Some(expected), Some(got)) => {
                if let Some(d) = differs(expected, got) {
                    problems.push(format!("block {to:?} differs from case {id} at {from:?}:\n{d}"));
                }
                remove_at(&mut leftover, to);
            }
        }
    }
    for framing in FRAMING {
        remove_at(&mut leftover, framing);
    }
    prune(&mut leftover);
    if leftover != Value::Object(Map::new()) {
        problems.push(format!("members no mapping covers (and not framing): {leftover}"));
    }
    problems
}

/// The problems of every example of one Markdown text, and how many examples it has.
fn check_markdown(name: &str, markdown: &str, cases: &BTreeMap<String, Value>) -> (usize, Vec<String>) {
    let found = examples(markdown);
    let problems = found
        .iter()
        .flat_map(|ex| check_example(ex, cases).into_iter().map(move |p| format!("{name}:{}: {p}", ex.line)))
        .collect();
    (found.len(), problems)
}

fn chapter() -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(spec_dir())
        .expect("docs/spec exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect()
}

#[test]
fn every_spec_example_is_a_corpus_excerpt() {
    let cases = cases_by_id();
    let mut total = 0;
    let mut problems = Vec::new();
    for (name, text) in chapter() {
        let (n, p) = check_markdown(&name, &text, &cases);
        total += n;
        problems.extend(p);
    }
    assert!(total >= 20, "docs/spec has only {total} JSON examples: the extraction is broken");
    assert!(
        problems.is_empty(),
        "{} of {total} examples do not match the corpus:\n{}",
        problems.len(),
        problems.join("\n\n")
    );
    println!("spec examples: {total} checked against the corpus");
}

/// The check itself: a changed example, a missing marker, an unknown case, a pointer to
/// nothing and an unchecked envelope member are each caught.
#[test]
fn a_drifted_example_is_caught() {
    let mut cases = BTreeMap::new();
    let case = serde_json::json!({"id": "c", "expect": {"ok": {"result": {"outputs": [{"a": 1, "b": [2, 3]}]}}}});
    cases.insert("c".to_owned(), case);
    let doc = |marker: &str, block: &str| format!("text\n\n{marker}\n```json\n{block}\n```\n");
    let good = [
        doc("<!-- corpus: c /expect/ok/result/outputs/0 -->", r#"{"b": [2, 3.0], "a": 1}"#),
        doc(
            "<!-- corpus: c /expect/ok/result at /result -->",
            r#"{"jsonrpc": "2.0", "id": 1, "result": {"outputs": [{"a": 1, "b": [2, 3]}]}}"#,
        ),
        doc(
            "<!-- corpus: c /expect/ok/result/outputs at /params/x; /expect/ok/result/outputs/0/a at /params/y -->",
            r#"{"method": "m", "params": {"x": [{"a": 1, "b": [2, 3]}], "y": 1, "_meta": {"k": {}}}}"#,
        ),
    ];
    for text in &good {
        let (n, problems) = check_markdown("good", text, &cases);
        assert_eq!((n, problems.len()), (1, 0), "{text}\n{problems:?}");
    }
    let bad = [
        doc("<!-- corpus: c /expect/ok/result/outputs/0 -->", r#"{"b": [2, 4], "a": 1}"#),
        doc("<!-- corpus: c /expect/ok/result/outputs/0 -->", r#"{"b": [3, 2], "a": 1}"#),
        doc("<!-- corpus: c /expect/ok/result/outputs/0 -->", r#"{"b": [2, 3], "a": 1, "c": 0}"#),
        doc("<!-- corpus: c /expect/ok/result/outputs/0 -->", r#"{"b": [2, 3]}"#),
        doc("<!-- a comment -->", r#"{"b": [2, 3], "a": 1}"#),
        doc("", r#"{"b": [2, 3], "a": 1}"#),
        doc("<!-- corpus: nope /expect -->", r#"{}"#),
        doc("<!-- corpus: c /expect/ok/nothing -->", r#"{}"#),
        doc("<!-- corpus: c /expect/ok/result at /result -->", r#"{"id": 1, "result": {"outputs": []}}"#),
        doc(
            "<!-- corpus: c /expect/ok/result at /result -->",
            r#"{"id": 1, "result": {"outputs": [{"a": 1, "b": [2, 3]}]}, "extra": true}"#,
        ),
        doc("<!-- corpus: c /expect/ok/result at /nowhere -->", r#"{"result": {}}"#),
        doc("<!-- corpus: c /expect/ok/result/outputs/0 -->", "{not json"),
    ];
    for text in &bad {
        let (n, problems) = check_markdown("bad", text, &cases);
        assert!(n == 1 && !problems.is_empty(), "a drifted example went unnoticed:\n{text}");
    }
    // Other fences are not examples; a block after one still needs its own marker.
    let text = "<!-- corpus: c /expect -->\n```ts\nlet x = 1;\n```\n```json\n{}\n```\n";
    let (n, problems) = check_markdown("fences", text, &cases);
    assert_eq!((n, problems.len()), (1, 1), "{problems:?}");
}

// The chapter is an amendment to the MCP specification's Tools page (issue 20): it names, section
// by section, what SEP-3279 changes in the base page and in the schema, and marks each decision
// where the SEP is silent. The checks below keep that form.

/// The sections of the base Tools page that SEP-3279 changes: each is a heading of the chapter
/// whose section opens with `**Change.**`.
const AMENDED_SECTIONS: &[&str] = &[
    "Capabilities",
    "Listing Tools",
    "Calling Tools",
    "Input Required Tool Results",
    "List Changed Notification",
    "Tool",
    "Tool Result",
    "Structured Content",
    "Output Schema",
    "Error Handling",
    "Security Considerations",
];

/// The types of the base schema that SEP-3279 changes, as headings, each opening with
/// `**Change.**` too.
const AMENDED_TYPES: &[&str] = &[
    "`Tool`",
    "`CallToolRequestParams`",
    "`CallToolResult`",
    "`ListToolsResult`",
    "Sampling `Tool[]`",
    "`ToolResultContent`",
];

/// Decisions the review found unmarked: each must be stated in a paragraph marked `**Decision**`
/// and listed in the Decisions section.
const MARKED_DECISIONS: &[&str] = &["`resultType`", "`duplicate-tool-name`", "`requestedOutputs: null`"];

/// One heading: its level, its text, and the text of its section (up to the next heading of the
/// same or a higher level), fenced code excluded from the headings.
struct Section {
    title: String,
    body: String,
}

fn sections(markdown: &str) -> Vec<Section> {
    let mut heads: Vec<(usize, usize, String)> = Vec::new(); // (line, level, title)
    let lines: Vec<&str> = markdown.lines().collect();
    let mut fenced = false;
    for (n, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let level = line.chars().take_while(|c| *c == '#').count();
        if level > 0 && line.chars().nth(level) == Some(' ') {
            heads.push((n, level, line[level + 1..].trim().to_owned()));
        }
    }
    heads
        .iter()
        .enumerate()
        .map(|(i, (n, level, title))| {
            let end = heads[i + 1..].iter().find(|(_, l, _)| l <= level).map_or(lines.len(), |(m, _, _)| *m);
            Section { title: title.clone(), body: lines[n + 1..end].join("\n") }
        })
        .collect()
}

/// The blank-line separated paragraphs of a text.
fn paragraphs(text: &str) -> Vec<String> {
    text.split("\n\n").map(|p| p.trim().to_owned()).filter(|p| !p.is_empty()).collect()
}

/// What keeps `markdown` from being the amendment the issue asks for, as messages.
fn amendment_problems(markdown: &str) -> Vec<String> {
    let all = sections(markdown);
    let mut problems = Vec::new();
    let find = |title: &str| all.iter().filter(|s| s.title == title).collect::<Vec<_>>();
    for title in AMENDED_SECTIONS.iter().chain(AMENDED_TYPES) {
        match find(title).as_slice() {
            [] => problems.push(format!("no section `{title}`: the amendment must say what it changes there")),
            [one] => {
                let first = paragraphs(&one.body).into_iter().next().unwrap_or_default();
                if !first.starts_with("**Change.**") {
                    problems.push(format!("section `{title}` does not open with `**Change.**` (what it changes)"));
                }
            }
            _ => problems.push(format!("section `{title}` appears more than once")),
        }
    }
    let body_of = |title: &str| find(title).first().map(|s| s.body.clone()).unwrap_or_default();
    let listing = body_of("Listing Tools");
    for needle in
        ["MUST NOT vary per-connection", "per-request", "`cacheScope`", "`nextCursor`", "`duplicate-tool-name`"]
    {
        if !listing.contains(needle) {
            problems.push(format!("Listing Tools does not address {needle}"));
        }
    }
    let input_required = body_of("Input Required Tool Results");
    if examples(&input_required).len() < 4 || !input_required.contains("**same** `requestedOutputs`") {
        problems.push("Input Required Tool Results lacks the example pair (the answer, then the retry with the same `requestedOutputs`)".into());
    }
    let list_changed = body_of("List Changed Notification");
    for needle in ["notifications/tools/list_changed", "-32602", "undeclared-variant"] {
        if !list_changed.contains(needle) {
            problems.push(format!("List Changed Notification does not say when to fetch again ({needle})"));
        }
    }
    let errors = body_of("Error Handling");
    for needle in ["### Error data", "`mcpOutputsCode`", "`path`", "-32603", "[ERR-6]"] {
        if !errors.contains(needle) {
            problems.push(format!("Error Handling lacks {needle}"));
        }
    }
    let security = body_of("Security Considerations");
    for needle in ["untrusted `user` content", "Cache-scope leakage", "[SEC-4]"] {
        if !security.contains(needle) {
            problems.push(format!("Security Considerations lacks {needle}"));
        }
    }
    if !all.iter().any(|s| s.title.contains("tension") && s.body.contains("structuredFrom")) {
        problems.push("no section names the tension of the legacy Apps flow and its `structuredFrom` choice".into());
    }
    let decisions = body_of("Decisions");
    if decisions.is_empty() {
        problems.push("no Decisions section".into());
    }
    let rest = paragraphs(markdown);
    for needle in MARKED_DECISIONS {
        if !decisions.contains(needle) {
            problems.push(format!("the Decisions section does not list the decision on {needle}"));
        }
        if !rest.iter().any(|p| p.contains("**Decision**") && p.contains(needle)) {
            problems.push(format!("the decision on {needle} is not marked **Decision** where it is stated"));
        }
    }
    if !markdown.contains("this project's requirement IDs for SEP-3279") {
        problems.push("the requirement IDs must be called this project's requirement IDs for SEP-3279".into());
    }
    for wrong in ["per connection", "SEP-3279's requirement IDs", "requirement IDs of SEP-3279"] {
        if markdown.contains(wrong) {
            problems.push(format!("the chapter says {wrong:?}"));
        }
    }
    problems
}

fn whole_chapter() -> String {
    chapter().into_iter().map(|(_, text)| text).collect::<Vec<_>>().join("\n\n")
}

#[test]
fn the_chapter_is_an_amendment_to_the_tools_page() {
    let problems = amendment_problems(&whole_chapter());
    assert!(problems.is_empty(), "docs/spec is not yet the amendment:\n{}", problems.join("\n"));
}

/// The form check itself: removing a section, its `**Change.**` opening, a marked decision or the
/// per-connection text is caught.
#[test]
fn a_chapter_that_loses_its_amendment_form_is_caught() {
    let text = whole_chapter();
    assert!(amendment_problems(&text).is_empty());
    let broken = [
        text.replacen("### Output Schema\n", "### Output schemas\n", 1),
        text.replacen("### `ToolResultContent`\n\n**Change.**", "### `ToolResultContent`\n\nChange.", 1),
        text.replace("`requestedOutputs: null`", "`requestedOutputs` as null"),
        text.replace("MUST NOT vary per-connection", "must not vary"),
        text.replacen("## Decisions\n", "## Choices\n", 1),
        format!("{text}\n\nThe list is projected per connection.\n"),
    ];
    for (i, b) in broken.iter().enumerate() {
        assert_ne!(b, &text, "broken variant {i} changed nothing: the check's fixture is stale");
        assert!(!amendment_problems(b).is_empty(), "broken variant {i} went unnoticed");
    }
}
