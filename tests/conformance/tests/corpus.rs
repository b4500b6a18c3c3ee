//! The Rust corpus runner: every case of `tests/corpus/`, then every `*.json` below
//! `MCP_OUTPUTS_EXTRA_CORPUS` when set. Prints the contract's tally lines and each failure's
//! id and difference; exits non-zero on any failure, on a lint problem, or when no case ran.

use mcp_outputs_conformance::{corpus_dir, json_files, load_cases, requirement_ids, run_case, Case, LABEL};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;

fn run(label: &str, cases: &[Case]) -> bool {
    let mut failed = 0usize;
    for case in cases {
        if let Err(diff) = run_case(case) {
            failed += 1;
            println!("FAIL {} ({})\n{diff}\n", case.id, case.file.display());
        }
    }
    println!("corpus {label}: {} passed, {failed} failed", cases.len() - failed);
    failed == 0 && !cases.is_empty()
}

fn main() -> ExitCode {
    let known = match requirement_ids() {
        Ok(ids) => ids,
        Err(e) => {
            println!("corpus rust: cannot read the requirement list: {e}");
            return ExitCode::FAILURE;
        }
    };
    let known_set: BTreeSet<String> = known.iter().cloned().collect();
    let mut seen = BTreeSet::new();
    let files = match json_files(&corpus_dir(), true) {
        Ok(f) => f,
        Err(e) => {
            println!("corpus rust: {e}");
            return ExitCode::FAILURE;
        }
    };
    let cases = match load_cases(&files, &known_set, &mut seen) {
        Ok(c) => c,
        Err(problems) => {
            problems.iter().for_each(|p| println!("LINT {p}"));
            println!("corpus rust: 0 passed, {} failed", problems.len());
            return ExitCode::FAILURE;
        }
    };
    let mut ok = run(LABEL, &cases);
    // Without a validator: every payload held by the host, as the npm package's default build
    // holds a plain result's, answers as through values (the one host seam).
    #[cfg(not(feature = "validator"))]
    {
        let (differ, ran) = mcp_outputs_conformance::held::differences(&cases);
        differ.iter().for_each(|d| println!("HELD {d}\n"));
        println!("payloads held by the host: {} of {ran} cases answer as through values", ran - differ.len());
        ok &= differ.is_empty() && ran > 0;
    }
    if let Some(dir) = std::env::var_os("MCP_OUTPUTS_EXTRA_CORPUS").filter(|d| !d.is_empty()) {
        let dir = Path::new(&dir);
        let extra =
            json_files(dir, false).map_err(|e| vec![e]).and_then(|files| load_cases(&files, &known_set, &mut seen));
        match extra {
            Ok(cases) if !cases.is_empty() => ok &= run(&format!("{LABEL} extra"), &cases),
            Ok(_) => {
                println!("corpus rust extra: 0 passed, 0 failed\nno case found below {}", dir.display());
                ok = false;
            }
            Err(problems) => {
                problems.iter().for_each(|p| println!("LINT (extra) {p}"));
                println!("corpus rust extra: 0 passed, {} failed", problems.len());
                ok = false;
            }
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
