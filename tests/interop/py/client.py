"""Interop endpoint: an MCP client on the official Python SDK driving a server through the
package's adapter, ``mcp_outputs.sdk.OutputsClient``.

    client.py --revision R [--apps] -- <server command...>
    client.py --revision R [--apps] --url URL

Connects at revision R (``initialize`` at exactly R before 2026, ``server/discover`` from
2026-07-28), lists the tools (raw entries kept), and for each tool of the catalogue plans a call
per mode (conversational, code, and apps with ``--apps``), calls it, checks and routes it. Prints
one JSON object per line: ``{"run": "<tool>/<mode>/<R>", "ok": ..., "detail": ...}``. A run is
ok when the result passed the SDK's own validation and the package's check, and the model route
holds nothing that was not requested; for the broken tool, when the client got the SDK's
JSON-RPC error carrying ``data.mcpOutputsCode`` (where the revision carries structured output at
all: before 2025-06-18 the tool advertises no ``outputSchema`` and its structured value is neither
sent nor validated, LEG-2, so there the call must succeed like any other). A mode the package refuses to plan for a tool
(a typed error before any call) is not a run. Exits 0 unless the client itself crashes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Dict, List, Optional

import anyio
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from mcp_outputs import McpOutputsError
from mcp_outputs.sdk import SDK_REVISIONS, OutputsClient
from mcp_outputs.types import Route, Selector

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server import catalogue  # noqa: E402  (the same fixtures the servers read)

UI = "io.modelcontextprotocol/ui"
APP_SETTINGS = {"mimeTypes": ["text/html;profile=mcp-app"]}
# Audiences whose outputs a host may give the model.
MODEL_AUDIENCES = {"assistant"}


PRINTED: set[str] = set()


def line(run: str, ok: bool, detail: str) -> None:
    PRINTED.add(run)
    print(json.dumps({"run": run, "ok": ok, "detail": detail}), flush=True)


def unrequested_on_model_route(route: Route, requested: Optional[List[Selector]]) -> List[str]:
    """What reached the model route without having been requested (or, without a request, any
    output that is not for the assistant)."""
    allowed = None if requested is None else {(s["audience"], s["format"]) for s in requested}
    bad = []
    for output in route["model"]:
        key = (output.get("audience"), output.get("format"))
        if output.get("audience") not in MODEL_AUDIENCES or (allowed is not None and key not in allowed):
            bad.append(f"{key[0]}/{key[1]}")
    return bad


async def run_all(args: argparse.Namespace) -> None:
    tools, _produced, broken = catalogue()
    catalogue_arguments()[broken["tool"]["name"]] = broken.get("arguments", {})
    broken_name = broken["tool"]["name"]
    names = [t["name"] for t in tools] + [broken_name]
    modes = ["conversational", "code"] + (["apps"] if args.apps else [])
    transport: AbstractAsyncContextManager[Any]
    if args.url:
        transport = streamable_http_client(args.url)
    else:
        transport = stdio_client(
            StdioServerParameters(command=args.command[0], args=args.command[1:], env=dict(os.environ))
        )
    if args.revision not in SDK_REVISIONS:
        # The Python SDK cannot pin this revision: every run of it fails, visibly.
        for name in names:
            for mode in modes:
                line(f"{name}/{mode}/{args.revision}", False, f"the Python SDK knows only {list(SDK_REVISIONS)}")
        return
    async with transport as (read_stream, write_stream):
        connecting = OutputsClient.connect(
            read_stream,
            write_stream,
            revision=args.revision,
            extensions={UI: APP_SETTINGS} if args.apps else None,
            read_timeout_seconds=30,
        )
        async with connecting as client:
            await client.list_tools()
            for name in names:
                for mode in modes:
                    run = f"{name}/{mode}/{args.revision}"
                    tool = client.tools.get(name)
                    if tool is None:
                        problem = client.rejected.get(name)
                        line(run, False, f"not listed or rejected: {problem}")
                        continue
                    try:
                        tool.plan(mode)  # type: ignore[arg-type]
                    except McpOutputsError as e:
                        print(f"{run}: not planned ({e.code})", file=sys.stderr)
                        continue
                    await one_call(client, run, name, mode, name == broken_name)


async def one_call(client: OutputsClient, run: str, name: str, mode: str, broken: bool) -> None:
    arguments = catalogue_arguments().get(name, {})
    try:
        outcome = await client.call_tool(name, arguments, mode=mode)  # type: ignore[arg-type]
    except MCPError as e:
        code = e.data.get("mcpOutputsCode") if isinstance(e.data, dict) else None
        if broken:
            line(run, code is not None, f"JSON-RPC error {e.code} mcpOutputsCode={code}")
        else:
            line(run, False, f"JSON-RPC error {e.code}: {e.message} (mcpOutputsCode={code})")
        return
    except (McpOutputsError, RuntimeError, ValueError) as e:
        line(run, False, f"{type(e).__name__}: {e}")
        return
    if broken and "outputSchema" in client.tools[name].tool:
        line(run, False, "the broken tool's result was accepted")
        return
    route = outcome.route
    if "resultType" in route:
        # None of the catalogue's tools asks for input: a multi-round-trip answer is wrong here.
        line(run, False, f"unexpected {route['resultType']} answer")
        return
    bad = unrequested_on_model_route(route, outcome.requested_outputs)
    requested = outcome.requested_outputs
    shown = "omitted" if requested is None else [f"{s['audience']}/{s['format']}" for s in requested]
    if bad:
        line(run, False, f"unrequested on the model route: {bad} (requested {shown})")
    else:
        view = "a View payload" if route["view"] is not None else "no View"
        line(run, True, f"requested {shown}; model route {len(route['model'])} output(s); {view}")


_ARGUMENTS: Optional[Dict[str, Any]] = None


def catalogue_arguments() -> Dict[str, Any]:
    global _ARGUMENTS
    if _ARGUMENTS is None:
        path = Path(__file__).resolve().parents[3] / "core" / "examples" / "fixtures" / "produced.json"
        _ARGUMENTS = json.loads(path.read_text(encoding="utf-8"))["arguments"]
    return _ARGUMENTS


def leaves(error: BaseException) -> List[BaseException]:
    """The exceptions inside (nested) exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def main(argv: List[str]) -> int:
    command: List[str] = []
    if "--" in argv:
        command = argv[argv.index("--") + 1 :]
        argv = argv[: argv.index("--")]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--revision", required=True)
    parser.add_argument("--apps", action="store_true")
    parser.add_argument("--url")
    args = parser.parse_args(argv)
    args.command = command
    if not args.url and not command:
        parser.error("give --url URL or -- <server command...>")
    try:
        anyio.run(run_all, args)
    except* (MCPError, McpOutputsError, RuntimeError, OSError) as failure:
        # The session itself failed (the server does not speak R, went away, or answered
        # something the SDK or the package refuses outside a call): every run not yet printed
        # fails with the reason; that is a result, not a crash.
        reason = "; ".join(f"{type(e).__name__}: {e}" for e in leaves(failure))
        tools, _produced, broken = catalogue()
        modes = ["conversational", "code"] + (["apps"] if args.apps else [])
        for name in [t["name"] for t in tools] + [broken["tool"]["name"]]:
            for mode in modes:
                run = f"{name}/{mode}/{args.revision}"
                if run not in PRINTED:
                    line(run, False, f"session failed: {reason}"[:500])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
