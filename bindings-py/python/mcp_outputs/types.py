"""Types of mcp_outputs: the JSON shapes the API takes and returns, as ``TypedDict`` and
``Literal`` types (plain dicts and strings at run time)."""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    List,
    Literal,
    Mapping,
    Optional,
    Protocol,
    Sequence,
    TypeAlias,
    TypedDict,
    Union,
    final,
)

if TYPE_CHECKING:
    from mcp_outputs._mcp_outputs import ReceivedTool

__all__ = [
    "ErrorCode",
    "AnyErrorCode",
    "WarningCode",
    "DiagnosticCode",
    "Warning",
    "Diagnostic",
    "ProtocolVersion",
    "Mode",
    "CoreAudience",
    "Format",
    "JsonValue",
    "JsonObject",
    "WireModel",
    "JsonInput",
    "Selector",
    "ToolResultOutputSelector",
    "ToolResultFormat",
    "ContentToolResultVariant",
    "StructuredToolResultVariant",
    "ToolResultVariant",
    "OutputVariant",
    "ToolDeclaration",
    "LegacyOptions",
    "MigrateResult",
    "ContentBlock",
    "ContentToolResultOutput",
    "StructuredToolResultOutput",
    "ToolResultOutput",
    "ProducedOutputs",
    "CallToolResult",
    "PlanSchema",
    "Plan",
    "DroppedMeta",
    "DroppedLegacy",
    "Dropped",
    "Route",
    "InputRequiredRoute",
    "OtherResultRoute",
    "CheckAnswer",
    "ListCache",
    "ToolsListResult",
    "ExcludedTool",
    "DiscoveredTools",
    "ExtensionDefinition",
    "LimitOptions",
    "Limits",
    "JsonRpcError",
]

#: The stable error codes of the core (``McpOutputsError.code``), in the core's order.
ErrorCode: TypeAlias = Literal[
    "malformed",
    "limit-exceeded",
    "invalid-protocol-version",
    "unsupported-protocol-version",
    "invalid-audience",
    "invalid-combination",
    "duplicate-variant",
    "missing-assistant-content",
    "invalid-schema",
    "external-ref",
    "unnegotiated-extension",
    "missing-output-variants",
    "requested-outputs-on-legacy-version",
    "duplicate-selector",
    "empty-selection",
    "undeclared-variant",
    "missing-output",
    "unrequested-output",
    "output-shape-mismatch",
    "schema-violation",
    "empty-assistant-content",
    "empty-error-outputs",
    "missing-schema",
    "duplicate-tool-name",
    "missing-validator",
    "invalid-validator",
]

#: Every ``code`` an exception can carry: the core's, plus ``InternalError``'s.
AnyErrorCode: TypeAlias = Union[ErrorCode, Literal["internal-error"]]

#: Warnings: ``declare`` (missing-schema), ``accept`` / ``discover_tools`` (missing-schema,
#: ignored-output-schema), ``check`` (empty-error-outputs only), ``migrate_tool``
#: (legacy-output-schema-dropped).
WarningCode: TypeAlias = Literal[
    "missing-schema",
    "ignored-output-schema",
    "empty-error-outputs",
    "legacy-output-schema-dropped",
    "ttl-missing",
    "ttl-negative",
    "cache-scope-missing",
    "cache-scope-unknown",
    "unrecognized-result-type",
    "legacy-fields-ignored",
]

#: Findings in a route's ``diagnostics``.
DiagnosticCode: TypeAlias = Literal["annotation-audience-conflict", "empty-error-outputs", "legacy-fields-ignored"]


class Warning(TypedDict):
    """A warning, with the JSON Pointer of the place it concerns (``""``: the whole input)."""

    code: WarningCode
    path: str


class Diagnostic(TypedDict):
    """A route's finding, with the JSON Pointer of the place it concerns in the result."""

    code: DiagnosticCode
    path: str

#: The supported protocol revisions, oldest first.
ProtocolVersion: TypeAlias = Literal["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2026-12-01"]

#: Host execution modes (shorthands for consumer lists).
Mode: TypeAlias = Literal["conversational", "code", "structured-model", "user-media", "host-table", "apps", "app-only"]

#: The core audiences; extension audiences are extension identifiers (any ``str``).
CoreAudience: TypeAlias = Literal["assistant", "user", "programmatic"]

#: Output formats.
Format: TypeAlias = Literal["content", "structured"]

JsonValue: TypeAlias = Any
JsonObject: TypeAlias = Mapping[str, Any]


class WireModel(Protocol):
    """A pydantic model, such as the MCP Python SDK's ``Tool``, ``CallToolResult`` or
    ``ClientCapabilities``: accepted wherever a JSON object is, and read as the wire JSON it
    stands for, ``model_dump(mode="json", by_alias=True, exclude_none=True)``."""

    def model_dump(self, *, mode: str = ..., by_alias: Optional[bool] = ..., exclude_none: bool = ...) -> Dict[str, Any]: ...


#: A JSON object given as a mapping or as a pydantic model.
JsonInput: TypeAlias = Union[JsonObject, WireModel]


class Selector(TypedDict):
    """An entry of ``requestedOutputs``: an audience and a format (the SEP's
    ``ToolResultOutputSelector``)."""

    audience: str
    format: Format


#: The SEP's names for ``Selector`` and ``Format``.
ToolResultOutputSelector: TypeAlias = Selector
ToolResultFormat: TypeAlias = Format


class ContentToolResultVariant(TypedDict):
    """A declared ``content`` variant: it has no schema."""

    audience: str
    format: Literal["content"]


class _StructuredVariantRequired(TypedDict):
    audience: str
    format: Literal["structured"]


class StructuredToolResultVariant(_StructuredVariantRequired, total=False):
    """A declared ``structured`` variant, with the JSON Schema of its payload if any."""

    schema: Dict[str, Any]


#: An entry of a tool's ``outputVariants``: the SEP's union, discriminated by ``format``
#: (narrow it with ``variant["format"] == "structured"``).
ToolResultVariant: TypeAlias = Union[ContentToolResultVariant, StructuredToolResultVariant]
#: The earlier name of ``ToolResultVariant``.
OutputVariant: TypeAlias = ToolResultVariant


class _ToolRequired(TypedDict):
    name: str
    inputSchema: Dict[str, Any]


class ToolDeclaration(_ToolRequired, total=False):
    """A tool declaration in the 2026-12-01 shape (other Tool fields pass through unchanged)."""

    title: str
    description: str
    annotations: Dict[str, Any]
    outputVariants: List[OutputVariant]
    outputSchema: Dict[str, Any]
    icons: List[Dict[str, Any]]


class LegacyOptions(TypedDict, total=False):
    """Per-tool options for clients on earlier revisions (LEG-1..4)."""

    outputSchema: Dict[str, Any]
    structuredFrom: str
    mirror: bool


class _MigrateRequired(TypedDict):
    tool: ToolDeclaration


class MigrateResult(_MigrateRequired, total=False):
    """What ``migrate_tool`` answers: the 2026-12-01 declaration, the legacy options that keep
    the tool's established ``outputSchema`` (MIG-2; absent when none) and warnings (absent when
    none)."""

    legacy: LegacyOptions
    warnings: List[Warning]


#: A content block (``{"type": "text", "text": ...}``, ``image``, ``audio``, ``resource_link``,
#: ``resource``).
ContentBlock: TypeAlias = Dict[str, Any]


class ContentToolResultOutput(TypedDict):
    """A ``content`` output: content blocks."""

    audience: str
    format: Literal["content"]
    content: List[ContentBlock]


class StructuredToolResultOutput(TypedDict):
    """A ``structured`` output: any JSON value, ``None`` included."""

    audience: str
    format: Literal["structured"]
    structuredContent: JsonValue


#: One output of a result: the SEP's union, discriminated by ``format`` (narrow it with
#: ``output["format"] == "content"``; only then is ``output["content"]`` typed).
ToolResultOutput: TypeAlias = Union[ContentToolResultOutput, StructuredToolResultOutput]


_ProducedOptional = TypedDict("_ProducedOptional", {"isError": bool, "_meta": Dict[str, Any]}, total=False)


class ProducedOutputs(_ProducedOptional):
    """What a tool produced for one call: every output it computed."""

    outputs: List[ToolResultOutput]


CallToolResult = TypedDict(
    "CallToolResult",
    {
        "resultType": Literal["complete"],
        "outputs": List[ToolResultOutput],
        "content": List[ContentBlock],
        "structuredContent": JsonValue,
        "isError": bool,
        "_meta": Dict[str, Any],
    },
    total=False,
)
CallToolResult.__doc__ = """A CallToolResult as sent on the wire: ``outputs`` under 2026-12-01, the
legacy ``content`` / ``structuredContent`` under earlier revisions."""


class PlanSchema(TypedDict):
    """The schema shown for a requested structured variant (``plan(schemas=True)``)."""

    audience: str
    format: Literal["structured"]
    schema: Optional[Dict[str, Any]]


class Plan(TypedDict, total=False):
    """A planned call: ``requestedOutputs`` (absent when the request omits the field), under an
    earlier revision ``legacyStructured`` (the consumer of legacy ``structuredContent``, LEG-8:
    pass it to ``route``), and, on request, the ``schemas``."""

    requestedOutputs: List[Selector]
    legacyStructured: str
    schemas: List[PlanSchema]


class DroppedMeta(TypedDict):
    """A result ``_meta`` key that reached no consumer."""

    meta: str


class DroppedLegacy(TypedDict):
    """A legacy ``structuredContent`` with no consumer (LEG-5), or a legacy field beside
    ``outputs`` in a 2026-12-01 result (RES-8)."""

    legacy: Literal["structuredContent", "content"]


Dropped: TypeAlias = Union[DroppedMeta, DroppedLegacy]


@final
class Route(TypedDict):
    """Where every output of a result goes (outputs as received)."""

    model: List[ToolResultOutput]
    user: List[ToolResultOutput]
    programmatic: List[ToolResultOutput]
    extensions: Dict[str, List[ToolResultOutput]]
    view: Optional[Dict[str, Any]]
    dropped: List[Dropped]
    diagnostics: List[Diagnostic]
    isError: bool


@final
class InputRequiredRoute(TypedDict):
    """A multi-round-trip answer (MRTR-1): nothing is routed; the host fulfils the requests and
    retries the call with the same ``requestedOutputs``. Tell it from a :class:`Route` with
    ``"resultType" in route``."""

    resultType: Literal["input_required"]


class OtherResultRoute(TypedDict):
    """An answer of a kind an extension defines (``resultType`` another string, e.g. Tasks'
    ``"task"``, RT-1): nothing is routed; hand it to that extension."""

    resultType: str


class CheckAnswer(TypedDict, total=False):
    """What ``ReceivedTool.check`` answers for a valid result: ``{}``, ``warnings``
    (``{code, path}`` each: ``empty-error-outputs``, ``legacy-fields-ignored``,
    ``unrecognized-result-type``), and ``resultType`` for an ``input_required`` answer or one of
    another kind."""

    warnings: List[Warning]
    resultType: str


class ListCache(TypedDict):
    """The SEP-2549 cache fields of a tools/list result (sent from 2026-07-28 on)."""

    ttlMs: int
    cacheScope: Literal["public", "private"]


class _ToolsListRequired(TypedDict):
    tools: List[Dict[str, Any]]


class ToolsListResult(_ToolsListRequired, total=False):
    """A tools/list result: ``resultType``, ``ttlMs`` and ``cacheScope`` from 2026-07-28 on;
    ``nextCursor`` for a page that has a next one (LIST-4)."""

    resultType: Literal["complete"]
    ttlMs: int
    cacheScope: Literal["public", "private"]
    nextCursor: str


class ExcludedTool(TypedDict):
    """A tools/list entry the host cannot use, excluded on its own (LIST-3)."""

    index: int
    name: Optional[str]
    code: ErrorCode
    path: str
    message: str


class _DiscoveredRequired(TypedDict):
    tools: List["ReceivedTool"]
    excluded: List[ExcludedTool]
    warnings: List[Warning]


class DiscoveredTools(_DiscoveredRequired, total=False):
    """A whole tools/list result read by ``discover_tools`` (LIST-2, LIST-3): the usable tools,
    the entries excluded on their own, the cache fields as the host should use them (from
    2026-07-28 on, CACHE-1) and the page's ``nextCursor`` (LIST-4)."""

    cache: ListCache
    nextCursor: str


class _ExtensionRequired(TypedDict):
    id: str


class ExtensionDefinition(_ExtensionRequired, total=False):
    """An extension audience definition (EXT-1)."""

    formats: Sequence[Format]
    modelContext: bool
    metaKey: Optional[str]
    legacyProjection: bool
    schemas: Literal["perVariant", "extension"]
    #: Further audience identifiers with the same prefix as ``id`` (EXT-5).
    audiences: Sequence[str]


class LimitOptions(TypedDict, total=False):
    """``Config(limits=...)``: any subset of the limits."""

    maxDepth: int
    maxBytes: int
    maxArrayLen: int
    maxObjectLen: int
    maxVariants: int
    maxTools: int
    maxExtensions: int


class Limits(TypedDict):
    """The limits in force (``Config.limits``)."""

    maxDepth: int
    maxBytes: int
    maxArrayLen: int
    maxObjectLen: int
    maxVariants: int
    maxTools: int
    maxExtensions: int


class JsonRpcError(TypedDict):
    """A JSON-RPC error object, as a server sends it."""

    code: int
    message: str
    data: Dict[str, Any]
