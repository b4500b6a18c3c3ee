# mcp-outputs: `make test` installs what it needs and runs every suite; `make demo` starts the
# prototype a reviewer runs (terminal walkthrough, then the web demo); `make bench` prints the
# performance ratios.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo

.PHONY: test demo bench bench-rs bench-js bench-py rust-tools test-rust test-js test-py test-demo test-interop lint walkthrough

test: rust-tools lint test-rust test-js test-py test-demo test-interop

# The toolchain's own components; installed only when missing.
rust-tools:
	@$(CARGO) fmt --version >/dev/null 2>&1 || rustup component add rustfmt
	@$(CARGO) clippy --version >/dev/null 2>&1 || rustup component add clippy

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

# Unit, property and hostile-input tests, the corpus runner (with MCP_OUTPUTS_EXTRA_CORPUS
# when set), the corpus linter, doc tests and the walkthrough.
test-rust:
	$(CARGO) test --workspace --locked

# The npm package: wasm build (wasm-bindgen CLI pinned, in .tools/), JS corpus, API and
# robustness tests, the type test, the packaging test in Node and headless Chromium.
test-js:
	$(MAKE) -C bindings-js test

# The pip package: venv, maturin build, pytest (corpus, API, robustness, typing), wheel test.
test-py:
	$(MAKE) -C bindings-py test

# The browser end-to-end scenarios of the web demo (headless Chromium).
test-demo:
	$(MAKE) -C web-demo test

# The SDK adapters with the real MCP SDKs (pinned): adapter tests, the interop round trips
# (`interop: N passed, M failed`) and the official conformance harness. After the bindings are built.
test-interop:
	$(MAKE) -C bindings-js build
	$(MAKE) -C tests/interop test

# The prototype: the terminal walkthrough of PLAN-1..15, then the web demo served on 127.0.0.1.
demo: walkthrough
	$(MAKE) -C web-demo serve

walkthrough:
	$(CARGO) run --locked -q -p mcp-outputs --example walkthrough

bench: bench-rs bench-js bench-py

bench-rs:
	$(CARGO) bench --locked -q -p mcp-outputs --bench p_rs_1

bench-js:
	$(MAKE) -C bindings-js bench

bench-py:
	$(MAKE) -C bindings-py bench
