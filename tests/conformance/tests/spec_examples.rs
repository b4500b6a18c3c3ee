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
//!   `error.message`).
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
const FRAMING: &[&str] =
    &["/jsonrpc", "/id", "/method", "/params/name", "/params/arguments", "/params/_meta", "/error/message"];

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
