# mcp-outputs: `make test` installs what it needs and runs every suite; `make demo` starts the
# prototype a reviewer runs (terminal walkthrough, then the web demo); `make bench` prints the
# performance ratios.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo

.PHONY: test test-kit test-runtimes test-readme test-wheels test-schema-suite demo bench bench-rs bench-js bench-py rust-tools test-rust test-js test-py test-demo test-interop test-sdk-range lint \
	walkthrough test-diff fuzz-diff fuzz fuzz-smoke fuzz-replay fuzz-tools

test: rust-tools lint test-rust test-js test-runtimes test-kit test-py test-readme test-schema-suite test-wheels test-diff fuzz-replay test-demo test-interop test-sdk-range

# The toolchain's own components; installed only when missing.
rust-tools:
	@$(CARGO) fmt --version >/dev/null 2>&1 || rustup component add rustfmt
	@$(CARGO) clippy --version >/dev/null 2>&1 || rustup component add clippy

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings
	$(CARGO) clippy -p mcp-outputs -p mcp-outputs-conformance --no-default-features --all-targets --locked -- -D warnings

# Unit, property and hostile-input tests, the corpus runner (with MCP_OUTPUTS_EXTRA_CORPUS
# when set), the corpus linter, doc tests and the walkthrough.
test-rust:
	$(CARGO) test --workspace --locked
	# The core without its validator (the npm package's default build), the corpus answered
	# through its SchemaHost seam.
	$(CARGO) test --locked -p mcp-outputs-conformance --no-default-features --test corpus

# The npm package: wasm build (wasm-bindgen CLI pinned, in .tools/), JS corpus, API and
# robustness tests, the type test, the packaging test in Node and headless Chromium.
test-js:
	$(MAKE) -C bindings-js test

# The runtime matrix: the packed npm package installed into a fresh project for each runtime,
# bundler and type checker (tests/runtimes/: pinned tools, one scenario); prints
# `runtime matrix: N passed, M failed`. After test-js (its build).
test-runtimes:
	$(MAKE) -C tests/runtimes test

# The conformance data package (conformance-kit/): built from tests/corpus, checked, packed, and
# its README run in a fresh project against the packed npm package. After test-js (its build).
test-kit:
	$(MAKE) -C conformance-kit test

# The pip package: venv, maturin build, pytest (corpus, API, robustness, typing), wheel test.
test-py:
	$(MAKE) -C bindings-py test

# READMEs that work as written (tests/readme-blocks/): every code block of the npm README,
# docs/sdk-typescript.md and the Python README in a fresh project with only the packed package
# (or the built wheel), JS type-checked strictly; prints `readme blocks: N passed, M failed`.
# After test-js and test-py (their builds).
test-readme:
	$(MAKE) -C tests/readme-blocks test

# Wheels users can install (tests/wheels/): the release workflow against GitHub's workflow schema,
# the manylinux2014 wheel built with zig and `auditwheel show`'s verdict, the sdist and a wheel
# pip builds from it, each installed into a fresh venv and called.
test-wheels:
	$(MAKE) -C tests/wheels test

# The JSON-Schema-Test-Suite, draft 2020-12 (tests/schema-suite/: taken from the pinned sdist of
# jsonschema 4.26.0, cached in target/): Python, the `full` entry, and the default entry with the
# Ajv and cfworker adapters; prints `schema suite: <flavour> N passed, M failed` and holds the
# failures to the checked-in list of known differences, exactly. After test-js and test-py.
test-schema-suite:
	$(MAKE) -C tests/schema-suite test

# Differential testing, Rust vs JS vs Python (tests/conformance/src/bin/differential.rs):
# DIFF_CASES generated cases through all three; prints `differential: N cases, M mismatches`.
# Runs after test-js and test-py, whose builds it reuses (the build targets only check them).
DIFF_CASES ?= 6000
DIFF_SEED ?= 1
test-diff:
	$(MAKE) -C bindings-js build
	$(MAKE) -C bindings-py develop
	tests/conformance/differential.sh $(DIFF_CASES) $(DIFF_SEED)

# The long differential run: 1,000,000 cases by default, 50,000 per batch, other seeds than
# test-diff's (docs/fuzzing.md records how long it takes).
FUZZ_DIFF_CASES ?= 1000000
fuzz-diff:
	$(MAKE) -C bindings-js build
	$(MAKE) -C bindings-py develop
	nice -n 19 tests/conformance/differential.sh $(FUZZ_DIFF_CASES) 1000

# Coverage-guided fuzzing (fuzz/, docs/fuzzing.md). `make fuzz` runs every target for
# FUZZ_SECONDS each (default 600) or FUZZ_RUNS executions each, then the long differential run;
# `make fuzz-smoke` explores each target for a couple of seconds (a quick look, never a gate).
# `make fuzz-replay` is the gate in `make test`: each target once on its committed regressions
# (fuzz/regressions/<target>/) and the corpus seeds, on stable, with no exploration and no clock,
# so the same commit always gets the same verdict.
# The tools, installed only when missing: the nightly toolchain and cargo-fuzz (pinned) in .tools.
CARGO_FUZZ_VERSION := 0.13.1
fuzz-tools:
	@rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	@if ! "$(CURDIR)/.tools/bin/cargo-fuzz" --version 2>/dev/null | grep -qx "cargo-fuzz $(CARGO_FUZZ_VERSION)"; then \
		$(CARGO) install cargo-fuzz --version $(CARGO_FUZZ_VERSION) --root "$(CURDIR)/.tools" \
			--target-dir "$(CURDIR)/fuzz/target/cargo-fuzz-install"; fi

fuzz-smoke: fuzz-tools
	fuzz/run.sh smoke

fuzz-replay:
	$(CARGO) test --manifest-path fuzz/Cargo.toml --locked --test replay -- --nocapture

fuzz: fuzz-tools
	fuzz/run.sh campaign
	$(MAKE) fuzz-diff

# The browser end-to-end scenarios of the web demo (headless Chromium).
test-demo:
	$(MAKE) -C web-demo test

# The SDK adapters with the real MCP SDKs (pinned): adapter tests, the interop round trips
# (`interop: N passed, M failed`) and the official conformance harness. After the bindings are built.
test-interop:
	$(MAKE) -C bindings-js build
	$(MAKE) -C tests/interop test

# The SDK adapters against the oldest and the newest SDK release of each declared peer range
# (tests/sdk-range/versions.json), each installed fresh: `sdk range: N passed, M failed`.
test-sdk-range:
	$(MAKE) -C bindings-js build
	$(MAKE) -C bindings-py develop
	$(MAKE) -C tests/sdk-range test

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
