"""mcp-outputs: MCP SEP-3279, audience-directed tool result variants.

A tool declares the ``outputVariants`` it can produce, a ``tools/call`` asks for the ones it
needs with ``requestedOutputs``, the server returns exactly those ``outputs``, and the host
routes each by its audience. This package is the Rust core (crate ``mcp-outputs``) with the
same behaviour, corpus and error codes; it adapts types and errors only.

Server: :meth:`ServerTool.declare` → :meth:`ServerTool.advertise` / :meth:`ServerTool.select`
→ :meth:`ServerTool.respond`. Client: :meth:`ReceivedTool.accept` → :meth:`ReceivedTool.plan`
→ :meth:`ReceivedTool.check` / :meth:`ReceivedTool.route`. Connections and the wire:
:meth:`Connection.negotiate` (after ``initialize`` / ``server/discover``),
:meth:`Connection.from_request` (one request, from 2026-07-28 on),
:meth:`Connection.tools_call_params`, :meth:`Connection.request_params`,
:meth:`Connection.tools_list_result`; whole tools/list results: :func:`declare_tools` (server),
:func:`discover_tools` (client). Values are plain
``dict`` / ``list``; results may also be given as JSON text (``str`` / ``bytes``). Every error is
a :class:`McpOutputsError` (a ``ValueError``) with ``code``, ``message`` and ``path``.
"""

from . import types
from ._errors import (
    ERROR_CLASSES,
    DuplicateSelectorError,
    DuplicateVariantError,
    EmptyAssistantContentError,
    EmptyErrorOutputsError,
    EmptySelectionError,
    ExternalRefError,
    InternalError,
    InvalidAudienceError,
    InvalidCombinationError,
    InvalidProtocolVersionError,
    InvalidSchemaError,
    LimitExceededError,
    MalformedError,
    McpOutputsError,
    MissingAssistantContentError,
    MissingOutputError,
    MissingOutputVariantsError,
    MissingSchemaError,
    DuplicateToolNameError,
    MissingValidatorError,
    InvalidValidatorError,
    OutputShapeMismatchError,
    RequestedOutputsOnLegacyVersionError,
    SchemaViolationError,
    UndeclaredVariantError,
    UnnegotiatedExtensionError,
    UnrequestedOutputError,
    UnsupportedProtocolVersionError,
)
from ._mcp_outputs import (
    COMMON_FIELDS,
    ERROR_CODES,
    LATEST_PROTOCOL_VERSION,
    MODES,
    OPERATIONS,
    PROTOCOL_VERSIONS,
    Config,
    Connection,
    ReceivedTool,
    ServerTool,
    __version__,
    check_requested_outputs,
    declare_tools,
    discover_tools,
    migrate_tool,
    run,
)

# Spelled out, error classes too (they repeat `_errors.__all__`): stubtest and type checkers
# read only a literal list; `__all__ += _errors.__all__` hides the classes from them.
__all__ = [
    "types",
    "Config",
    "Connection",
    "ServerTool",
    "ReceivedTool",
    "run",
    "migrate_tool",
    "check_requested_outputs",
    "declare_tools",
    "discover_tools",
    "ERROR_CODES",
    "PROTOCOL_VERSIONS",
    "LATEST_PROTOCOL_VERSION",
    "MODES",
    "OPERATIONS",
    "COMMON_FIELDS",
    "ERROR_CLASSES",
    "__version__",
    "McpOutputsError",
    "InternalError",
    "MalformedError",
    "LimitExceededError",
    "InvalidProtocolVersionError",
    "UnsupportedProtocolVersionError",
    "InvalidAudienceError",
    "InvalidCombinationError",
    "DuplicateVariantError",
    "MissingAssistantContentError",
    "InvalidSchemaError",
    "ExternalRefError",
    "UnnegotiatedExtensionError",
    "MissingOutputVariantsError",
    "RequestedOutputsOnLegacyVersionError",
    "DuplicateSelectorError",
    "EmptySelectionError",
    "UndeclaredVariantError",
    "MissingOutputError",
    "UnrequestedOutputError",
    "OutputShapeMismatchError",
    "SchemaViolationError",
    "EmptyAssistantContentError",
    "EmptyErrorOutputsError",
    "MissingSchemaError",
    "DuplicateToolNameError",
    "MissingValidatorError",
    "InvalidValidatorError",
]
