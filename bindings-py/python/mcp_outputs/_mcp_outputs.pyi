"""The native module (Rust, pyo3). Use it through :mod:`mcp_outputs`."""

from typing import Any, Dict, Final, List, Mapping, Optional, Sequence, Tuple, Union

from typing_extensions import final

from mcp_outputs.types import (
    CallToolResult,
    CheckAnswer,
    DiscoveredTools,
    ErrorCode,
    ExtensionDefinition,
    InputRequiredRoute,
    JsonObject,
    LegacyOptions,
    ListCache,
    JsonInput,
    LimitOptions,
    Limits,
    MigrateResult,
    OtherResultRoute,
    Mode,
    Plan,
    ProducedOutputs,
    ProtocolVersion,
    Route,
    Selector,
    ToolsListResult,
    Warning,
)

_Json = Union[str, bytes]
_Selectors = Union[Sequence[Selector], Sequence[Mapping[str, Any]]]
_Requested = Union[_Selectors, str, bytes, None]

__all__ = [
    "COMMON_FIELDS",
    "Config",
    "Connection",
    "ERROR_CODES",
    "LATEST_PROTOCOL_VERSION",
    "MODES",
    "OPERATIONS",
    "PROTOCOL_VERSIONS",
    "ReceivedTool",
    "ServerTool",
    "check_requested_outputs",
    "declare_tools",
    "discover_tools",
    "migrate_tool",
    "run",
    "_panic_for_tests",
    "_payload_stats_for_tests",
    "__version__",
]

__version__: Final[str]
ERROR_CODES: Final[Tuple[ErrorCode, ...]]
PROTOCOL_VERSIONS: Final[Tuple[ProtocolVersion, ...]]
LATEST_PROTOCOL_VERSION: Final[ProtocolVersion]
MODES: Final[Tuple[Mode, ...]]
OPERATIONS: Final[Dict[str, Tuple[str, ...]]]
COMMON_FIELDS: Final[Tuple[str, ...]]

@final
class Config:
    """Library options: extension audiences beyond the built-in Apps one, and limits."""

    def __new__(
        cls,
        *,
        extensions: Optional[Sequence[ExtensionDefinition]] = None,
        limits: Optional[LimitOptions] = None,
        supported_versions: Optional[Sequence[ProtocolVersion]] = None,
    ) -> "Config": ...
    @property
    def limits(self) -> Limits: ...
    @property
    def supported_versions(self) -> Tuple[ProtocolVersion, ...]: ...
    @property
    def extensions(self) -> List[ExtensionDefinition]: ...

@final
class Connection:
    """One connection: the protocol version (default the latest) and the negotiated extensions."""

    def __new__(
        cls,
        protocol_version: Optional[str] = None,
        negotiated: Optional[Sequence[str]] = None,
        *,
        config: Optional[Config] = None,
    ) -> "Connection": ...
    @staticmethod
    def negotiate(
        protocol_version: str,
        client_capabilities: JsonInput,
        server_capabilities: JsonInput,
        *,
        config: Optional[Config] = None,
    ) -> "Connection": ...
    @staticmethod
    def from_request(
        params: JsonInput,
        server_capabilities: JsonInput,
        *,
        config: Optional[Config] = None,
    ) -> "Connection": ...
    @property
    def protocol_version(self) -> ProtocolVersion: ...
    @property
    def negotiated(self) -> List[str]: ...
    @property
    def config(self) -> Config: ...
    def tools_call_params(
        self,
        name: str,
        arguments: Optional[JsonInput],
        plan: Union[Plan, JsonInput],
        client_capabilities: JsonInput,
    ) -> Dict[str, Any]: ...
    def request_params(self, params: JsonInput, client_capabilities: JsonInput) -> Dict[str, Any]: ...
    def tools_list_result(
        self,
        tools: Sequence[Union["ServerTool", JsonInput]],
        *,
        cache: Optional[ListCache] = None,
        next_cursor: Optional[str] = None,
    ) -> ToolsListResult: ...

@final
class ServerTool:
    """A tool declaration, validated and compiled once."""

    @staticmethod
    def declare(
        tool: Union[JsonInput, _Json],
        legacy: Union[JsonInput, _Json, None] = None,
        *,
        config: Optional[Config] = None,
    ) -> "ServerTool": ...
    @property
    def name(self) -> str: ...
    @property
    def warnings(self) -> List[Warning]: ...
    @property
    def config(self) -> Config: ...
    def advertise(self, conn: Connection) -> Dict[str, Any]: ...
    def select(self, conn: Connection, requested_outputs: Optional[_Selectors] = None) -> List[Selector]: ...
    def select_text(self, conn: Connection, requested_outputs: Optional[_Json] = None) -> str: ...
    def respond(
        self,
        conn: Connection,
        requested_outputs: Optional[_Selectors],
        produced: Union[ProducedOutputs, JsonInput],
    ) -> CallToolResult: ...
    def respond_text(self, conn: Connection, requested_outputs: Optional[_Json], produced: _Json) -> str: ...

@final
class ReceivedTool:
    """A tool as received in tools/list on one connection, validated and compiled once."""

    @staticmethod
    def accept(tool: Union[JsonInput, _Json], conn: Connection) -> "ReceivedTool": ...
    @property
    def tool(self) -> Dict[str, Any]: ...
    @property
    def name(self) -> str: ...
    @property
    def warnings(self) -> List[Warning]: ...
    @property
    def connection(self) -> Connection: ...
    def plan(
        self,
        mode: Optional[Mode] = None,
        consumers: Optional[Sequence[Selector]] = None,
        *,
        require_schema: bool = False,
        schemas: bool = False,
    ) -> Plan: ...
    def check(
        self,
        requested_outputs: _Requested,
        result: Union[JsonInput, _Json],
        *,
        legacy_structured: Optional[str] = None,
    ) -> CheckAnswer: ...
    def route(
        self,
        requested_outputs: _Requested,
        result: Union[JsonInput, _Json],
        *,
        legacy_structured: Optional[str] = None,
    ) -> Union[Route, InputRequiredRoute, OtherResultRoute]: ...

def run(op: str, input: Union[JsonInput, _Json]) -> Dict[str, Any]: ...
def migrate_tool(
    legacy_tool: Union[JsonInput, _Json],
    *,
    programmatic_from_output_schema: bool = False,
    assistant_from_output_schema: bool = False,
    apps: bool = False,
    config: Optional[Config] = None,
) -> MigrateResult: ...
def declare_tools(
    tools: Union[Sequence[JsonObject], _Json],
    *,
    legacy_by_tool: Optional[Mapping[str, LegacyOptions]] = None,
    config: Optional[Config] = None,
) -> List[ServerTool]: ...
def discover_tools(result: Union[JsonObject, _Json], conn: Connection) -> DiscoveredTools: ...
def check_requested_outputs(requested_outputs: Union[_Selectors, _Json], *, config: Optional[Config] = None) -> None: ...
def _panic_for_tests() -> None: ...
def _payload_stats_for_tests() -> Tuple[int, int]: ...
