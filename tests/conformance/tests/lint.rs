//! The corpus lints itself: case shape, unique ids, every cited requirement exists, every
//! requirement is cited, and the linter itself rejects what it must.

#![allow(clippy::panic, clippy::unwrap_used, clippy::indexing_slicing)]

use mcp_outputs_conformance::{corpus_dir, json_files, load_cases, parse_strict, requirement_ids, uncovered, Case};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn known() -> (Vec<String>, BTreeSet<String>) {
    let ids = requirement_ids().expect("requirements.json is readable");
    let set = ids.iter().cloned().collect();
    (ids, set)
}

fn repository_cases() -> Vec<Case> {
    let (_, set) = known();
    let files = json_files(&corpus_dir(), true).expect("the corpus folder is readable");
    load_cases(&files, &set, &mut BTreeSet::new())
        .unwrap_or_else(|problems| panic!("corpus lint:\n{}", problems.join("\n")))
}

#[test]
fn requirement_list_is_complete_and_unique() {
    let (ids, set) = known();
    assert_eq!(ids.len(), set.len(), "duplicate requirement ids");
    // Version 1's 76 plus contract v2's ERR-5, VER-4, LIST-1, LIST-2, MRTR-1, META-2, LEG-8, MIG-2,
    // plus contract v3's eleven: LIST-3, CACHE-1, RT-1, LEG-9, RES-8, CONT-2, ERR-6, EXT-5, MIG-3,
    // LIST-4 and SEC-4.
    assert_eq!(ids.len(), 95, "requirements.json lists 95 requirements");
    for id in &ids {
        let (prefix, number) = id.split_once('-').expect("ID-n form");
        assert!(prefix.chars().all(|c| c.is_ascii_uppercase()) && number.parse::<u32>().is_ok(), "{id}");
    }
    for plan in 1..=15 {
        assert!(set.contains(&format!("PLAN-{plan}")));
    }
}

#[test]
fn corpus_lints_and_covers_every_requirement() {
    let cases = repository_cases();
    assert!(cases.len() >= 150, "the corpus needs at least 150 cases, has {}", cases.len());
    let (ids, _) = known();
    let missing = uncovered(&cases, &ids);
    assert!(missing.is_empty(), "requirements no case cites: {missing:?}");
}

#[test]
fn every_plan_scenario_is_an_end_to_end_case() {
    let cases = repository_cases();
    for plan in 1..=15 {
        let id = format!("PLAN-{plan}");
        assert!(cases.iter().any(|c| c.op == "scenario" && c.requirements.contains(&id)), "{id} has no scenario case");
    }
}

#[test]
fn removing_the_only_citer_of_a_requirement_is_caught() {
    let cases = repository_cases();
    let (ids, _) = known();
    for id in &ids {
        let without: Vec<Case> = cases.iter().filter(|c| !c.requirements.contains(id)).cloned().collect();
        assert!(uncovered(&without, &ids).contains(id), "removing every case citing {id} went unnoticed");
    }
}

fn lint_text(text: &str) -> Result<Vec<Case>, Vec<String>> {
    let dir = std::env::temp_dir().join(format!("mcp-outputs-lint-{}-{}", std::process::id(), text.len()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file: PathBuf = dir.join("case.json");
    std::fs::write(&file, text).expect("write");
    let (_, set) = known();
    let out = load_cases(&[file], &set, &mut BTreeSet::new());
    let _ = std::fs::remove_dir_all(&dir);
    out
}

const GOOD: &str =
    r#"{"id":"x-ok","requirements":["SEL-8"],"description":"d","op":"select","input":{"tool":{}},"expect":{"ok":{}}}"#;

#[test]
fn linter_accepts_a_good_case() {
    assert!(lint_text(GOOD).is_ok());
}

#[test]
fn linter_rejects_bad_cases() {
    let bad = [
        (GOOD.replace("\"op\"", "\"extra\":1,\"op\""), "unknown case field"),
        (GOOD.replace("SEL-8", "SEL-99"), "unknown requirement"),
        (GOOD.replace("\"select\"", "\"frobnicate\""), "unknown op"),
        (GOOD.replace("{\"tool\":{}}", "{\"tool\":{},\"mode\":\"code\"}"), "input field of another op"),
        (GOOD.replace("{\"ok\":{}}", "{\"error\":{\"code\":\"no-such-code\"}}"), "unknown error code"),
        (GOOD.replace("{\"ok\":{}}", "{\"ok\":{},\"error\":{\"code\":\"malformed\"}}"), "both ok and error"),
        (GOOD.replace("x-ok", "X_ok"), "id not kebab-case"),
        (GOOD.replace("\"requirements\":[\"SEL-8\"]", "\"requirements\":[]"), "no requirement"),
        (GOOD.replace("\"description\":\"d\"", "\"description\":\"d\",\"description\":\"e\""), "duplicate key"),
        (format!("[{GOOD},{GOOD}]"), "duplicate id"),
    ];
    for (text, why) in bad {
        assert!(lint_text(&text).is_err(), "the linter let through a case with {why}");
    }
}

#[test]
fn strict_parser_reads_deep_nesting_and_rejects_duplicates() {
    let deep = format!("{}1{}", "[".repeat(500), "]".repeat(500));
    assert!(parse_strict(&deep).is_ok());
    assert!(parse_strict(r#"{"a":1,"a":2}"#).is_err());
}
