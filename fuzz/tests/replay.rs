//! The fuzz gate of `make test` (`make fuzz-replay`): every fuzz target runs once on each of its
//! committed regression inputs (`fuzz/regressions/<target>/`, every crash ever found) and on the
//! seeds `fuzz/seeds.py` writes from the conformance corpus. No exploration, no clock: the same
//! commit always gets the same verdict. Exploration is `make fuzz` (docs/fuzzing.md).

use std::panic;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The targets, as cargo-fuzz knows them: one file each in `fuzz_targets/`.
fn targets() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fuzz_dir().join("fuzz_targets"))
        .expect("fuzz_targets/")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The files of `dir`, sorted (a missing directory has none).
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.expect("a directory entry").path()).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

/// Writes the seeds into a fresh directory under the target dir, the way `fuzz/run.sh` does.
fn seeds() -> PathBuf {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("replay-seeds");
    let _ = std::fs::remove_dir_all(&out);
    let ops: Vec<&str> = mcp_outputs::ops::OPERATIONS.iter().map(|(op, _)| *op).collect();
    let status = Command::new("python3")
        .arg(fuzz_dir().join("seeds.py"))
        .arg(fuzz_dir().join("../tests/corpus"))
        .arg(&out)
        .args(&ops)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("python3 runs fuzz/seeds.py");
    assert!(status.success(), "fuzz/seeds.py failed");
    out
}

#[test]
fn every_target_passes_its_regressions_and_seeds() {
    let seeds = seeds();
    let regressions = fuzz_dir().join("regressions");
    // Every entry of fuzz/regressions/ is the directory of a target that exists (a renamed
    // target keeps its inputs).
    for entry in std::fs::read_dir(&regressions).expect("fuzz/regressions/") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            path.is_dir() && mcp_outputs_fuzz::target(&name).is_some(),
            "fuzz/regressions/{name} is not the directory of a fuzz target"
        );
    }
    // A panic is counted and reported below with its file; the default hook prints its message.
    let mut failures = Vec::new();
    let (mut replayed, mut regression_count) = (0, 0);
    for name in targets() {
        let run = mcp_outputs_fuzz::target(&name)
            .unwrap_or_else(|| panic!("fuzz_targets/{name}.rs has no entry in mcp_outputs_fuzz::target"));
        let own = inputs(&regressions.join(&name));
        let seeded = inputs(&seeds.join(&name));
        assert!(!seeded.is_empty(), "no seeds for {name}: fuzz/seeds.py writes none");
        regression_count += own.len();
        for file in own.iter().chain(&seeded) {
            let data = std::fs::read(file).expect("an input");
            replayed += 1;
            if panic::catch_unwind(|| run(&data)).is_err() {
                failures.push(format!("{name}: {}", file.display()));
            }
        }
    }
    println!("fuzz replay: {replayed} inputs ({regression_count} regressions), {} failed", failures.len());
    assert!(failures.is_empty(), "fuzz targets failed on:\n  {}", failures.join("\n  "));
}
