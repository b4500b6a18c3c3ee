#!/usr/bin/env bash
# Wheels users can install (issue 22, item 7), checked here the way the release workflow builds
# them (.github/workflows/release.yml):
#   1. the workflow file against GitHub's workflow schema (check-jsonschema's vendored copy);
#   2. the release wheel for manylinux2014 (glibc >= 2.17: RHEL 7+, Amazon Linux 2, Ubuntu 20.04)
#      with `maturin build --zig`, `auditwheel show`'s verdict printed and required to name it;
#   3. the sdist (`maturin sdist`), a wheel built from it alone by pip (no network);
#   4. each wheel installed into a fresh venv and called from outside the source tree.
# Tools: tests/wheels/requirements.txt in <repo>/.tools/release-venv (the Makefile installs them).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="$root/.tools/release-venv"
export PATH="$venv/bin:$PATH" VIRTUAL_ENV="$venv" # maturin finds zig as `python -m ziglang`
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows "$root/.github/workflows/release.yml"

# 2. The manylinux2014 wheel (its own target dir: the zig linker, an explicit target).
(cd "$root/bindings-py" && maturin build --release -q --locked --zig --compatibility manylinux2014 \
  --target x86_64-unknown-linux-gnu --target-dir "$root/target/wheel-release" --out "$work/wheel")
wheels=("$work"/wheel/*.whl)
[ "${#wheels[@]}" -eq 1 ] || { echo "expected one wheel, got: ${wheels[*]}"; exit 1; }
wheel="${wheels[0]}"
verdict="$(auditwheel show "$wheel")"
echo "auditwheel show $(basename "$wheel"):"
echo "$verdict" | sed 's/^/  /'
tr -s ' \n' ' ' <<<"$verdict" | grep -q 'platform tag: "manylinux_2_17_x86_64"' \
  || { echo "auditwheel: not manylinux2014 (manylinux_2_17)"; exit 1; }
case "$(basename "$wheel")" in
  *manylinux2014_x86_64*) echo "wheel: $(basename "$wheel") (manylinux2014)" ;;
  *) echo "the wheel's name has no manylinux2014 tag: $(basename "$wheel")"; exit 1 ;;
esac

# 3. The sdist, and a wheel pip builds from it alone (maturin from the release venv, no index).
(cd "$root/bindings-py" && maturin sdist --out "$work/sdist")
sdists=("$work"/sdist/*.tar.gz)
[ "${#sdists[@]}" -eq 1 ] || { echo "expected one sdist, got: ${sdists[*]}"; exit 1; }
mkdir "$work/unpacked"
tar -xzf "${sdists[0]}" -C "$work/unpacked"
CARGO_TARGET_DIR="$root/target/wheel-sdist" pip wheel -q --disable-pip-version-check --no-deps \
  --no-build-isolation --no-index -w "$work/from-sdist" "${sdists[0]}"
from_sdist=("$work"/from-sdist/*.whl)
echo "sdist: $(basename "${sdists[0]}") builds $(basename "${from_sdist[0]}")"

# 4. Each wheel alone in a fresh venv, called from outside the source tree.
for w in "$wheel" "${from_sdist[0]}"; do
  fresh="$work/venv-$(basename "$w" .whl)"
  python3 -m venv "$fresh"
  "$fresh/bin/pip" install -q --disable-pip-version-check --no-index "$w"
  (cd "$work" && "$fresh/bin/python" - <<'PY'
import pathlib, sys
import mcp_outputs
from mcp_outputs import Connection, ReceivedTool, ServerTool

assert "site-packages" in str(pathlib.Path(mcp_outputs.__file__)), mcp_outputs.__file__
tool = ServerTool.declare({"name": "t", "inputSchema": {"type": "object"}, "outputVariants": [
    {"audience": "assistant", "format": "content"},
    {"audience": "programmatic", "format": "structured", "schema": {"type": "object", "required": ["n"]}}]})
conn = Connection()
host = ReceivedTool.accept(tool.advertise(conn), conn)
requested = host.plan("code")["requestedOutputs"]
result = tool.respond(conn, requested, {"outputs": [
    {"audience": "programmatic", "format": "structured", "structuredContent": {"n": 1}}]})
assert host.route(requested, result)["programmatic"][0]["structuredContent"] == {"n": 1}
try:
    host.check(requested, {"resultType": "complete", "outputs": [
        {"audience": "programmatic", "format": "structured", "structuredContent": {}}]})
except mcp_outputs.SchemaViolationError as e:
    assert e.code == "schema-violation"
else:
    raise AssertionError("no error")
print(f"  installed and called on Python {sys.version.split()[0]}: mcp-outputs {mcp_outputs.__version__}")
PY
  )
done
echo "wheels: manylinux2014 wheel and sdist build checked"
