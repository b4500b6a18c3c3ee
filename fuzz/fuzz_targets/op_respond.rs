#![no_main]
//! `ops::run("respond", …)` on structured inputs (src/lib.rs: the grammar and the invariants).
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_outputs_fuzz::run("op_respond", data));
