"""Interop endpoint: an MCP server on the official Python SDK (low-level ``Server``) serving the
walkthrough catalogue through the package's adapter, ``mcp_outputs.sdk.OutputsServer``.

    server.py [--http PORT] [--apps]

stdio by default; Streamable HTTP on 127.0.0.1:PORT with ``--http``. The tools are the
declarations of ``core/examples/fixtures/tools.json``, each answering with its outputs from
``produced.json``, plus one tool whose produced output violates its schema
(``interop-broken.json`` when present: ``{tool, legacy?, arguments, produced}``, else
:func:`broken_fallback`). ``--apps`` declares Apps
(``io.modelcontextprotocol/ui``) support and serves the ``ui://`` resources the fixtures name.
The tools are served by the adapter alone: no protocol code here.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List

import anyio
import mcp_types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from mcp_outputs.sdk import OutputsServer, ToolCall

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "core" / "examples" / "fixtures"
UI = "io.modelcontextprotocol/ui"
APP_MIME = "text/html;profile=mcp-app"


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def broken_fallback(tools: List[Dict[str, Any]], produced: Dict[str, Any]) -> Dict[str, Any]:
    """The fixtures' list_regions as ``broken_list_regions``, whose assistant/structured value
    breaks its schema (an object where an array of regions is declared): the package refuses to
    send it wherever the revision carries structured output (2025-06-18 on)."""
    source = next(t for t in tools if t["name"] == "list_regions")
    tool = copy.deepcopy(source)
    tool["name"] = "broken_list_regions"
    tool["description"] = "A tool whose output violates its own schema (interop)."
    outputs = copy.deepcopy(produced["list_regions"]["outputs"])
    for output in outputs:
        if output["format"] == "structured":
            output["structuredContent"] = {"unexpected": True}
    return {"tool": tool, "arguments": {}, "produced": {"outputs": outputs}}


def catalogue() -> tuple[List[Dict[str, Any]], Dict[str, Any], Dict[str, Any]]:
    tools = load("tools.json")["tools"]
    produced = load("produced.json")["produced"]
    broken_file = FIXTURES / "interop-broken.json"
    broken = json.loads(broken_file.read_text(encoding="utf-8")) if broken_file.exists() else broken_fallback(tools, produced)
    return tools, produced, broken


def answering(produced: Dict[str, Any]) -> Callable[[ToolCall], Dict[str, Any]]:
    """A tool handler answering with the fixture's outputs for the tool."""

    def handler(call: ToolCall) -> Dict[str, Any]:
        return produced

    return handler


def build(apps: bool) -> Server[Any]:
    tools, produced, broken = catalogue()
    outputs = OutputsServer()
    for declaration in tools:
        outputs.add_tool(declaration, answering(produced[declaration["name"]]))
    outputs.add_tool(broken["tool"], answering(broken["produced"]), legacy=broken.get("legacy"))

    views = sorted({t["_meta"]["ui"]["resourceUri"] for t in tools if "ui" in (t.get("_meta") or {})})

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourcesResult:
        return mcp_types.ListResourcesResult(
            resources=[mcp_types.Resource(uri=uri, name=uri, mime_type=APP_MIME) for uri in views]
        )

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: mcp_types.ReadResourceRequestParams
    ) -> mcp_types.ReadResourceResult:
        if str(params.uri) not in views:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=-32602, message=f"Unknown resource: {params.uri}")
        html = f"<!doctype html><title>{params.uri}</title><main id=view></main>"
        return mcp_types.ReadResourceResult(
            contents=[mcp_types.TextResourceContents(uri=str(params.uri), mime_type=APP_MIME, text=html)]
        )

    server: Server[Any] = Server(
        "mcp-outputs-interop-py",
        version="1",
        on_list_resources=list_resources if apps else None,
        on_read_resource=read_resource if apps else None,
    )
    if apps:
        server.extensions[UI] = {}
    outputs.install(server)
    return server


async def serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(server: Server[Any], port: int) -> None:
    import uvicorn

    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    await uvicorn.Server(config).serve()


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, metavar="PORT", help="Streamable HTTP on 127.0.0.1:PORT")
    parser.add_argument("--apps", action="store_true", help="declare Apps support, serve the ui:// resources")
    args = parser.parse_args(argv)
    server = build(args.apps)
    if args.http is not None:
        anyio.run(serve_http, server, args.http)
    else:
        anyio.run(serve_stdio, server)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
