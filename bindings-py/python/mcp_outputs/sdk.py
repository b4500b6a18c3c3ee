"""The adapter for the official MCP Python SDK (the PyPI package ``mcp`` 2.x): ``pip install
'mcp-outputs[mcp]'``.

Server: :class:`OutputsServer` registers tools declared with ``outputVariants`` once and answers
``tools/list`` and ``tools/call`` for them on a low-level ``mcp.server.lowlevel.Server`` or an
``mcp.server.mcpserver.MCPServer`` (``OutputsServer(...).install(server)``), for every revision
the SDK negotiates. Client: :class:`OutputsClient` connects a ``ClientSession`` at a chosen
revision, keeps the raw ``tools/list`` entries, and plans, calls, checks and routes.

The adapter only translates: the version, the capabilities and the request params are read from
what is on the wire and handed to the package (:class:`~mcp_outputs.Connection`,
:class:`~mcp_outputs.ServerTool`, :class:`~mcp_outputs.ReceivedTool`), which takes every protocol
decision. Errors of the package reach the peer as the SDK's JSON-RPC error (``MCPError``) with
``data.mcpOutputsCode``.
"""

from __future__ import annotations

import importlib.util
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Literal, Optional, Union, cast

if importlib.util.find_spec("mcp") is None:  # pragma: no cover - exercised only without the extra
    raise ImportError("mcp_outputs.sdk needs the MCP Python SDK: pip install 'mcp-outputs[mcp]'")

import mcp_types
from mcp.client.session import ClientSession
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import methods as _methods
from mcp_types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, RootModel, ValidationError

if TYPE_CHECKING:
    # Type-only: the stream protocols ClientSession takes. `mcp` 2.3 defines them in a private
    # module and re-exports them from no public one; nothing imports it at run time.
    from mcp.shared._stream_protocols import ReadStream, WriteStream

from ._errors import ERROR_CLASSES, McpOutputsError
from ._mcp_outputs import Config, Connection, ReceivedTool, ServerTool, discover_tools
from .types import (
    CallToolResult,
    InputRequiredRoute,
    OtherResultRoute,
    JsonInput,
    JsonObject,
    ListCache,
    Mode,
    Plan,
    ProducedOutputs,
    Route,
    Selector,
)

__all__ = [
    "SDK_REVISIONS",
    "OutputsServer",
    "ToolCall",
    "ToolHandler",
    "OutputsClient",
    "CallOutcome",
    "to_mcp_error",
]

SDK_REVISIONS: tuple[str, ...] = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)
"""The revisions the installed SDK negotiates, oldest first (``initialize`` for the handshake
ones, ``server/discover`` for the rest)."""

class _RawResult(RootModel[Dict[str, Any]]):
    """A result read as the wire dict (the SDK still validates it against the revision first)."""


def to_mcp_error(error: McpOutputsError) -> MCPError:
    """The SDK's JSON-RPC error for an error of the package: its code, message and ``data``
    (``data.mcpOutputsCode``, ``data.path``). A client-side error, which the package never
    sends, becomes an internal error with the same ``data``."""
    wire = error.to_jsonrpc_error()
    if wire is None:
        data = {"mcpOutputsCode": error.code, "path": error.path}
        return MCPError(code=INTERNAL_ERROR, message=error.message, data=data)
    return MCPError(code=wire["code"], message=wire["message"], data=wire.get("data"))


# ---------------------------------------------------------------------------------------------
# Server


@dataclass(frozen=True)
class ToolCall:
    """One ``tools/call`` of a tool of the adapter, as its handler sees it."""

    name: str
    arguments: Dict[str, Any]
    selected: List[Selector]
    """The outputs the server will send (the requested ones, or the revision's default): a
    handler may produce only these."""
    connection: Connection
    context: ServerRequestContext[Any, Any]


ToolHandler = Callable[[ToolCall], Union[ProducedOutputs, JsonObject, Awaitable[Union[ProducedOutputs, JsonObject]]]]
"""Computes a call's outputs (``{"outputs": [...], "_meta"?: ...}``), sync or async."""


@dataclass
class _Registered:
    tool: ServerTool
    handler: ToolHandler


class OutputsServer:
    """Tools declared with ``outputVariants``, served through an ``mcp`` server.

    ``install(server)`` answers ``tools/list`` with these tools next to the server's own, and
    ``tools/call`` for these tools; every other request, and every other tool, goes to the
    server as before. Per request it reads the negotiated version (``ctx.protocol_version``),
    the client's capabilities (the ``initialize`` params, or from 2026-07-28 the request's
    ``_meta``) and the server's capabilities as the SDK puts them on the wire for that revision
    (the SDK drops ``capabilities.extensions`` from pre-2026 ``initialize`` results, so Apps is
    never negotiated there), and builds the :class:`Connection` from them.
    """

    def __init__(self, *, config: Optional[Config] = None) -> None:
        self._config = config
        self._tools: Dict[str, _Registered] = {}
        self._server: Optional[Server[Any]] = None

    @property
    def tools(self) -> Dict[str, ServerTool]:
        """The registered tools by name."""
        return {name: entry.tool for name, entry in self._tools.items()}

    def add_tool(
        self,
        declaration: Union[JsonInput, str, bytes],
        handler: ToolHandler,
        *,
        legacy: Union[JsonInput, str, bytes, None] = None,
    ) -> ServerTool:
        """Declares a tool once (every schema compiled here) and registers its handler. A bad
        declaration raises the package's typed error here, before anything is served."""
        tool = ServerTool.declare(declaration, legacy, config=self._config)
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is already registered")
        self._tools[tool.name] = _Registered(tool, handler)
        return tool

    def tool(
        self,
        declaration: Union[JsonInput, str, bytes],
        *,
        legacy: Union[JsonInput, str, bytes, None] = None,
    ) -> Callable[[ToolHandler], ToolHandler]:
        """Decorator form of :meth:`add_tool`."""

        def register(handler: ToolHandler) -> ToolHandler:
            self.add_tool(declaration, handler, legacy=legacy)
            return handler

        return register

    def install(self, server: Any) -> None:
        """Serves the tools on ``server``: an ``mcp.server.lowlevel.Server`` or an
        ``mcp.server.mcpserver.MCPServer``. The server's ``tools/list`` and ``tools/call``
        handlers (when it has them) are wrapped, not replaced: ``tools/list`` lists these tools
        first, then the server's own; ``tools/call`` of any other tool goes to the server's
        handler. The SDK still runs its own request gate, params validation and result shaping
        (the revision's wire model, cache fields, ``resultType``) around the adapter."""
        lowlevel = _lowlevel(server)
        previous_list = lowlevel.get_request_handler("tools/list")
        previous_call = lowlevel.get_request_handler("tools/call")

        async def list_tools(ctx: ServerRequestContext[Any, Any], params: Any) -> HandlerResult:
            answered = await previous_list.handler(ctx, params) if previous_list is not None else {"tools": []}
            return self._list(ctx, answered)

        async def call_tool(ctx: ServerRequestContext[Any, Any], params: mcp_types.CallToolRequestParams) -> HandlerResult:
            entry = self._tools.get(params.name)
            if entry is not None:
                return await self._call(ctx, entry)
            if previous_call is None:
                raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name}")
            return await previous_call.handler(ctx, params)

        list_params = previous_list.params_type if previous_list is not None else mcp_types.PaginatedRequestParams
        lowlevel.add_request_handler("tools/list", list_params, list_tools)
        lowlevel.add_request_handler("tools/call", mcp_types.CallToolRequestParams, call_tool)
        self._server = lowlevel

    def connection(self, ctx: ServerRequestContext[Any, Any]) -> Connection:
        """The :class:`Connection` of one request, from what is on the wire (raises
        ``MCPError`` when the request's ``_meta`` is not valid, as the package decides)."""
        version = ctx.protocol_version
        try:
            server_caps = self._sent_server_capabilities(version)
            if version in MODERN_PROTOCOL_VERSIONS:
                params = ctx.params if isinstance(ctx.params, Mapping) else {}
                return Connection.from_request(dict(params), server_caps, config=self._config)
            client = ctx.session.client_capabilities
            client_caps = {} if client is None else client.model_dump(by_alias=True, mode="json", exclude_none=True)
            return Connection.negotiate(version, client_caps, server_caps, config=self._config)
        except McpOutputsError as e:
            raise to_mcp_error(e) from None

    def _sent_server_capabilities(self, version: str) -> Dict[str, Any]:
        """The server's capabilities as the SDK sends them at ``version``: its own declaration,
        passed through the SDK's per-revision result surface (``initialize`` before 2026,
        ``server/discover`` from 2026-07-28)."""
        if self._server is None:
            raise RuntimeError("OutputsServer.install(server) was not called")
        caps = self._server.get_capabilities(protocol_version=version)
        result: BaseModel
        if version in HANDSHAKE_PROTOCOL_VERSIONS:
            method = "initialize"
            info = mcp_types.Implementation(name=self._server.name, version=self._server.version)
            result = mcp_types.InitializeResult(protocol_version=version, capabilities=caps, server_info=info)
        else:
            method = "server/discover"
            result = mcp_types.DiscoverResult(supported_versions=[version], capabilities=caps)
        wire = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        sent = _methods.serialize_server_result(method, version, wire)
        capabilities = sent.get("capabilities")
        return capabilities if isinstance(capabilities, dict) else {}

    def _list(self, ctx: ServerRequestContext[Any, Any], answered: HandlerResult) -> HandlerResult:
        # The server's own answer, as set (a field the handler left unset stays unset).
        base: Dict[str, Any] = dict(_wire(answered))
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        if params.get("cursor") is not None:
            return base  # the adapter's tools are on the first page
        conn = self.connection(ctx)
        others = base.get("tools")
        listed: List[Union[ServerTool, JsonInput]] = [entry.tool for entry in self._tools.values()]
        if isinstance(others, list):
            listed.extend(others)
        # The server's own cache hints (SEP-2549) reach the core, which writes the fields from
        # 2026-07-28 on; without both, the core's default (0 / "private") applies.
        hints = {k: base[k] for k in ("ttlMs", "cacheScope") if base.get(k) is not None}
        try:
            result = conn.tools_list_result(listed, cache=cast(ListCache, hints) if len(hints) == 2 else None)
        except McpOutputsError as e:
            raise to_mcp_error(e) from None
        base.update(result)
        # Handed back as the SDK's model, so that the SDK fills what neither side set the way
        # it does for any handler: the cache fields from 2026-07-28 (the server's cache_hints,
        # else its defaults) and resultType.
        try:
            return mcp_types.ListToolsResult.model_validate(base, by_name=False)
        except ValidationError:
            raise MCPError(code=INTERNAL_ERROR, message="the tools/list result is not valid") from None

    async def _call(self, ctx: ServerRequestContext[Any, Any], entry: _Registered) -> HandlerResult:
        conn = self.connection(ctx)
        params: Mapping[str, Any] = ctx.params if isinstance(ctx.params, Mapping) else {}
        requested = params.get("requestedOutputs")
        arguments = params.get("arguments")
        try:
            selected = entry.tool.select(conn, requested)
            call = ToolCall(
                name=entry.tool.name,
                arguments=dict(arguments) if isinstance(arguments, Mapping) else {},
                selected=selected,
                connection=conn,
                context=ctx,
            )
            produced = entry.handler(call)
            if inspect.isawaitable(produced):
                produced = await produced
            result: CallToolResult = entry.tool.respond(conn, requested, produced)
        except McpOutputsError as e:
            raise to_mcp_error(e) from None
        return dict(result)


def _lowlevel(server: Any) -> Server[Any]:
    if isinstance(server, Server):
        return server
    # MCPServer wraps a low-level Server and exposes no public accessor for it (nor a public
    # add_request_handler), up to mcp 2.3.0; the SDK's own in-process Client reads the same
    # attribute. The one private member the adapter still reads (bindings-py/README.md lists it).
    inner = getattr(server, "_lowlevel_server", None)
    if isinstance(inner, Server):
        return inner
    raise TypeError(f"expected an mcp Server or MCPServer, not {type(server).__name__}")


def _wire(result: HandlerResult) -> Mapping[str, Any]:
    if isinstance(result, BaseModel):
        return result.model_dump(by_alias=True, mode="json", exclude_none=True, exclude_unset=True)
    if isinstance(result, Mapping):
        return result
    return {}


# ---------------------------------------------------------------------------------------------
# Client


class _RawCallToolRequest(mcp_types.Request[Dict[str, Any], Literal["tools/call"]]):
    """``tools/call`` with the params the package built, sent as they are (the SDK's typed
    params model would drop ``requestedOutputs``)."""

    method: Literal["tools/call"] = "tools/call"
    params: Dict[str, Any]
    name_param = "name"


class _RawListToolsRequest(mcp_types.Request[Optional[Dict[str, Any]], Literal["tools/list"]]):
    method: Literal["tools/list"] = "tools/list"
    params: Optional[Dict[str, Any]] = None


@dataclass(frozen=True)
class CallOutcome:
    """One call made through :meth:`OutputsClient.call_tool`."""

    result: Dict[str, Any]
    """The ``CallToolResult`` as received (the SDK validated it first)."""
    requested_outputs: Optional[List[Selector]]
    plan: Plan
    route: Union[Route, InputRequiredRoute, OtherResultRoute]
    """Each output by its audience: what the host may put on the model route, and the rest; or,
    for an ``input_required`` answer (2026-07-28 on, MRTR-1), the server's input requests; or, for
    an answer of another kind (RT-1), its ``resultType`` for the extension that defined it."""


@dataclass
class OutputsClient:
    """A ``ClientSession`` driven through the package: connect at a revision, list tools (the
    raw entries are kept: the SDK's typed ``list_tools`` drops ``outputVariants``), and call a
    tool with the outputs a plan asks for, checked and routed."""

    session: ClientSession
    connection: Connection
    client_capabilities: Dict[str, Any]
    server_capabilities: Dict[str, Any]
    tools: Dict[str, ReceivedTool] = field(default_factory=dict)
    rejected: Dict[str, McpOutputsError] = field(default_factory=dict)
    """Tools the server listed that the package rejected (untrusted input), by name."""

    @classmethod
    @asynccontextmanager
    async def connect(
        cls,
        read_stream: ReadStream[Union[SessionMessage, Exception]],
        write_stream: WriteStream[SessionMessage],
        *,
        revision: Optional[str] = None,
        extensions: Optional[Mapping[str, Mapping[str, Any]]] = None,
        client_info: Optional[mcp_types.Implementation] = None,
        config: Optional[Config] = None,
        read_timeout_seconds: Optional[float] = None,
    ) -> AsyncIterator[OutputsClient]:
        """Opens a session on the transport's streams and negotiates ``revision`` (default:
        the newest revision the SDK and the server share): ``server/discover`` from 2026-07-28,
        else ``initialize`` at exactly that revision. ``extensions`` is the client's
        ``capabilities.extensions`` (e.g. Apps: ``{"io.modelcontextprotocol/ui": {"mimeTypes":
        ["text/html;profile=mcp-app"]}}``), sent on the wire and negotiated from there."""
        exts = {k: dict(v) for k, v in extensions.items()} if extensions else None
        session = ClientSession(
            read_stream,
            write_stream,
            read_timeout_seconds=read_timeout_seconds,
            client_info=client_info,
            extensions=exts,
        )
        async with session:
            client_caps: Dict[str, Any] = {"extensions": exts} if exts else {}
            version, server_caps = await _handshake(session, revision, client_caps, client_info)
            conn = Connection.negotiate(version, client_caps, server_caps, config=config)
            yield cls(session, conn, client_caps, server_caps)

    async def list_tools(self) -> Dict[str, ReceivedTool]:
        """``tools/list`` (every page), each page read by the package's ``discover_tools``: a
        Tool it rejects is excluded on its own, into ``rejected`` (LIST-3); a name listed twice,
        in one page or across pages, is excluded every time (``duplicate-tool-name``)."""
        cursor: Optional[str] = None
        tools: Dict[str, ReceivedTool] = {}
        rejected: Dict[str, McpOutputsError] = {}
        seen: Dict[str, int] = {}
        offset = 0
        while True:
            params = self.connection.request_params({} if cursor is None else {"cursor": cursor}, self.client_capabilities)
            raw = (await self.session.send_request(_RawListToolsRequest(params=params or None), _RawResult)).root
            page = discover_tools(raw, self.connection)
            for excluded in page["excluded"]:
                index = excluded["index"] + offset
                key = excluded["name"] if excluded["name"] is not None else f"#{index}"
                error_class = ERROR_CLASSES.get(excluded["code"], McpOutputsError)
                rejected[key] = error_class(excluded["code"], excluded["message"], excluded["path"])
            for tool in page["tools"]:
                seen[tool.name] = seen.get(tool.name, 0) + 1
                if seen[tool.name] > 1 or tool.name in rejected:
                    # Decision (LIST-4): a host that merges pages judges names across them.
                    tools.pop(tool.name, None)
                    rejected[tool.name] = ERROR_CLASSES["duplicate-tool-name"](
                        "duplicate-tool-name", f"two pages of tools/list name {tool.name!r}", ""
                    )
                else:
                    tools[tool.name] = tool
            offset += len(raw.get("tools") or [])
            next_cursor = page.get("nextCursor")
            if not next_cursor:
                break
            cursor = next_cursor
        self.tools, self.rejected = tools, rejected
        return tools

    async def call_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        mode: Optional[Mode] = None,
        consumers: Optional[Sequence[Selector]] = None,
    ) -> CallOutcome:
        """Plans the call (``mode``: conversational by default, code, apps, …; or the
        ``consumers`` the host wants), sends ``tools/call`` with
        the plan's ``requestedOutputs``, lets the SDK validate the result (its wire model and
        the advertised ``outputSchema``), then checks and routes it with the package.

        Raises ``MCPError`` (a JSON-RPC error from the server, ``data.mcpOutputsCode`` when the
        package raised it there), ``RuntimeError`` (the SDK's own output validation), or the
        package's typed error (the result does not answer the request)."""
        if name not in self.tools:
            await self.list_tools()
        tool = self.tools.get(name)
        if tool is None:
            raise KeyError(f"the server listed no usable tool {name!r}")
        plan = tool.plan("conversational" if mode is None and consumers is None else mode, consumers)
        params = self.connection.tools_call_params(
            name, dict(arguments) if arguments is not None else None, plan, self.client_capabilities
        )
        raw = (await self.session.send_request(_RawCallToolRequest(params=params), _RawResult)).root
        typed = mcp_types.CallToolResult.model_validate(raw, by_name=False)
        if not typed.is_error:
            await self.session.validate_tool_result(name, typed)
        requested = plan.get("requestedOutputs")
        # The plan's local rule for a legacy ``structuredContent`` (LEG-8): without it, an older
        # server's structured data would land in ``dropped`` in ``code`` mode.
        route = tool.route(requested, raw, legacy_structured=plan.get("legacyStructured"))
        return CallOutcome(result=raw, requested_outputs=requested, plan=plan, route=route)


async def _handshake(
    session: ClientSession,
    revision: Optional[str],
    client_caps: Dict[str, Any],
    client_info: Optional[mcp_types.Implementation],
) -> tuple[str, Dict[str, Any]]:
    """Negotiates on the session; answers the version and the server capabilities as received."""
    if revision is None:
        try:
            return await _handshake(session, MODERN_PROTOCOL_VERSIONS[-1], client_caps, client_info)
        except MCPError:
            return await _handshake(session, HANDSHAKE_PROTOCOL_VERSIONS[-1], client_caps, client_info)
    if revision in MODERN_PROTOCOL_VERSIONS:
        raw = await session.send_discover(revision)
        session.adopt(mcp_types.DiscoverResult.model_validate(raw, by_name=False))
        version = session.protocol_version or revision
    elif revision in HANDSHAKE_PROTOCOL_VERSIONS:
        request = mcp_types.InitializeRequest(
            params=mcp_types.InitializeRequestParams(
                protocol_version=revision,
                capabilities=mcp_types.ClientCapabilities.model_validate(client_caps, by_name=False),
                client_info=client_info or mcp_types.Implementation(name="mcp-outputs", version=""),
            )
        )
        raw = (await session.send_request(request, _RawResult)).root
        result = mcp_types.InitializeResult.model_validate(raw, by_name=False)
        session.adopt(result)
        await session.send_notification(mcp_types.InitializedNotification())
        version = result.protocol_version
    else:
        raise ValueError(f"the MCP Python SDK cannot negotiate {revision!r} (it knows {list(SDK_REVISIONS)})")
    caps = raw.get("capabilities")
    return version, caps if isinstance(caps, dict) else {}
