//! Runs the SEP-3279 walkthrough example (`examples/walkthrough.rs`) as a reviewer would, and
//! checks that every PLAN scenario played and behaved as expected.
//!
//! The example is run through `cargo run` into its own target directory under `target/`, so
//! the nested cargo never waits on the build lock of the `cargo test` that runs this test,
//! whatever that one is doing, and its build output cannot disturb the outer one.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use std::path::PathBuf;
use std::process::Command;

const SCENARIOS: u32 = 15;
const WIDTH: usize = 100;

fn run_walkthrough() -> (std::process::ExitStatus, String, String) {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir.parent().expect("core/ sits in the workspace root");
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace.join("target"), PathBuf::from)
        .join("walkthrough-test");
    let output = Command::new(env!("CARGO"))
        .args(["run", "-q", "-p", "mcp-outputs", "--example", "walkthrough"])
        .arg("--target-dir")
        .arg(&target_dir)
        .current_dir(workspace)
        .env("NO_COLOR", "1")
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("cargo runs");
    (
        output.status,
        String::from_utf8(output.stdout).expect("UTF-8 output"),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn walkthrough_plays_every_plan_scenario_as_expected() {
    let (status, stdout, stderr) = run_walkthrough();
    assert!(status.success(), "the walkthrough failed ({status}):\n{stdout}\n--- stderr ---\n{stderr}");
    for n in 1..=SCENARIOS {
        let header = format!("PLAN-{n}  ");
        assert_eq!(
            stdout.lines().filter(|l| l.starts_with(&header)).count(),
            1,
            "exactly one header for PLAN-{n}:\n{stdout}"
        );
    }
    let summary = format!("{SCENARIOS} scenarios played: {SCENARIOS} as expected");
    assert_eq!(stdout.lines().last().map(str::trim), Some(summary.as_str()), "summary line:\n{stdout}");
    assert!(!stdout.contains('\u{2717}') && !stdout.contains("NOT as expected"), "a failed check:\n{stdout}");
    assert!(!stdout.contains('\x1b'), "colour despite NO_COLOR=1");
    let wide: Vec<&str> = stdout.lines().filter(|l| l.chars().count() > WIDTH).collect();
    assert!(wide.is_empty(), "lines wider than {WIDTH} columns: {wide:#?}");
}
