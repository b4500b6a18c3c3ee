#!/usr/bin/env bash
# The packaging test: `maturin build` one abi3 wheel, install it (and nothing else) into a fresh
# venv for each available interpreter (always $PYTHON; also python3.10, the oldest supported, and
# python3.13 when present), then import the package and call it from outside the source tree.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"${MATURIN:-maturin}" build --release -q --manifest-path "$here/Cargo.toml" --out "$work/dist"
wheels=("$work"/dist/*.whl)
[ "${#wheels[@]}" -eq 1 ] || { echo "expected one wheel, got: ${wheels[*]}"; exit 1; }
wheel="${wheels[0]}"
case "$(basename "$wheel")" in
  mcp_outputs-*-cp310-abi3-*.whl) ;;
  *) echo "not an abi3 (>= 3.10) wheel: $(basename "$wheel")"; exit 1 ;;
esac
python3 - "$wheel" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
for required in ("mcp_outputs/__init__.py", "mcp_outputs/_errors.py", "mcp_outputs/types.py",
                 "mcp_outputs/py.typed", "mcp_outputs/_mcp_outputs.pyi"):
    assert required in names, f"{required} missing from the wheel: {sorted(names)}"
native = [n for n in names if n.startswith("mcp_outputs/") and n.endswith(".so")]
assert len(native) == 1 and native[0].startswith("mcp_outputs/_mcp_outputs"), names
PY

interpreters=("${PYTHON:-python3}")
for extra in python3.10 python3.13; do
  if command -v "$extra" >/dev/null 2>&1 && "$extra" -c 'import sys' >/dev/null 2>&1; then
    interpreters+=("$extra")
  else
    # pyenv installs that are not activated: their interpreters directly.
    for found in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin/"$extra"; do
      if [ -x "$found" ] && "$found" -c 'import sys' >/dev/null 2>&1; then
        interpreters+=("$found")
        break
      fi
    done
  fi
done

for interp in "${interpreters[@]}"; do
  venv="$work/venv-${#interp}-$(basename "$interp")"
  "$interp" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-index "$wheel"
  (cd "$work" && "$venv/bin/python" - <<'PY'
import pathlib, sys
import mcp_outputs
from mcp_outputs import Connection, ReceivedTool, ServerTool

pkg = pathlib.Path(mcp_outputs.__file__).parent
assert "site-packages" in str(pkg), pkg
assert (pkg / "py.typed").exists() and (pkg / "_mcp_outputs.pyi").exists()
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
    host.check(requested, b'{"resultType":"complete","outputs":[{"audience":"programmatic","format":"structured","structuredContent":{}}]}')
except mcp_outputs.SchemaViolationError as e:
    assert isinstance(e, ValueError) and e.code == "schema-violation"
else:
    raise AssertionError("no error")
print(f"wheel ok on Python {sys.version.split()[0]}: mcp-outputs {mcp_outputs.__version__}")
PY
  )
done
