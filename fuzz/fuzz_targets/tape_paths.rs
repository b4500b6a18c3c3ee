#![no_main]
//! See src/tape.rs (module `paths`) for the input and the invariants.
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_outputs_fuzz::run("tape_paths", data));
