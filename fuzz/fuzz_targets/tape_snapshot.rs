#![no_main]
//! See src/tape.rs (module `snapshot`) for the input layout and the invariants.
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_outputs_fuzz::run("tape_snapshot", data));
