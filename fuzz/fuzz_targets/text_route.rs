#![no_main]
//! See src/lib.rs (module `text_route`) for the entry points and the invariants.
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_outputs_fuzz::run("text_route", data));
