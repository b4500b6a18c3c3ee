"""The exception hierarchy of mcp_outputs, raised from the native module.

Every error is an :class:`McpOutputsError` (a :class:`ValueError`) with a stable ``code`` (the
same kebab-case string as in Rust and JavaScript), a ``message`` and the JSON Pointer ``path`` of
the offending value. There is one subclass per code; a server-side error also gives
:meth:`McpOutputsError.to_jsonrpc_error`.
"""

from __future__ import annotations

import copy
from typing import Dict, Optional, Type, cast

from .types import AnyErrorCode, ErrorCode, JsonRpcError

__all__ = [
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
    "ERROR_CLASSES",
]


class McpOutputsError(ValueError):
    """An error of mcp-outputs: ``code``, ``message``, ``path`` (a JSON Pointer)."""

    code: AnyErrorCode
    message: str
    path: str

    def __init__(
        self,
        code: AnyErrorCode,
        message: str,
        path: str = "",
        jsonrpc: Optional[JsonRpcError] = None,
    ) -> None:
        where = f" (at {path})" if path else ""
        super().__init__(f"{code}: {message}{where}")
        self.code = code
        self.message = message
        self.path = path
        self._jsonrpc = jsonrpc

    def to_jsonrpc_error(self) -> Optional[JsonRpcError]:
        """The JSON-RPC error object (``{code, message, data}``) a server sends for this error;
        ``None`` for a client-side error (those are local, never sent)."""
        return copy.deepcopy(self._jsonrpc)

    def __reduce__(self) -> "tuple[object, ...]":
        # Pickles (e.g. across multiprocessing) as the same class with the same fields.
        return (_rebuild, (type(self), self.code, self.message, self.path, self._jsonrpc))

    @property
    def jsonrpc_code(self) -> Optional[int]:
        """The JSON-RPC error code, for a server-side error."""
        return None if self._jsonrpc is None else self._jsonrpc["code"]


class InternalError(McpOutputsError):
    """A bug in mcp-outputs (a Rust panic, caught and reported): never expected. Its code,
    ``"internal-error"``, is not one of the core's codes."""

    def __init__(self, message: str) -> None:
        super().__init__("internal-error", f"internal error in mcp-outputs: {message}")


class MalformedError(McpOutputsError):
    """Input of the wrong JSON shape, or a Python value JSON cannot hold (SEC-1)."""


class LimitExceededError(McpOutputsError):
    """Input over a size, depth or count limit (SEC-1)."""


class InvalidProtocolVersionError(McpOutputsError):
    """Not a ``YYYY-MM-DD`` protocol version (VER-1)."""


class UnsupportedProtocolVersionError(McpOutputsError):
    """A well-formed version that is not a supported revision (VER-1)."""


class InvalidAudienceError(McpOutputsError):
    """Not a core audience and not a well-formed, registered extension (AUD-1, AUD-3)."""


class InvalidCombinationError(McpOutputsError):
    """An audience/format pair that is not allowed (FMT-2, APP-1)."""


class DuplicateVariantError(McpOutputsError):
    """An audience/format pair declared twice (DECL-1)."""


class MissingAssistantContentError(McpOutputsError):
    """No assistant/content variant (DECL-2, PLAN-7)."""


class InvalidSchemaError(McpOutputsError):
    """A declared schema that is not a valid JSON Schema (DECL-4)."""


class ExternalRefError(McpOutputsError):
    """A schema ``$ref`` that points outside the schema (SEC-3)."""


class UnnegotiatedExtensionError(McpOutputsError):
    """An extension audience used without negotiation (DECL-5, SEL-4, SEL-9)."""


class MissingOutputVariantsError(McpOutputsError):
    """A Tool without ``outputVariants`` under 2026-12-01 (VER-2, PLAN-14)."""


class RequestedOutputsOnLegacyVersionError(McpOutputsError):
    """``requestedOutputs`` under an earlier protocol version (SEL-2, PLAN-12)."""


class DuplicateSelectorError(McpOutputsError):
    """A selector twice in ``requestedOutputs`` (SEL-5)."""


class EmptySelectionError(McpOutputsError):
    """``requestedOutputs: []`` (SEL-8)."""


class UndeclaredVariantError(McpOutputsError):
    """A selector the tool did not declare (SEL-3, SEL-9, PLAN-10)."""


class MissingOutputError(McpOutputsError):
    """A requested selector without its output (RES-1, LEG-7)."""


class UnrequestedOutputError(McpOutputsError):
    """An output nobody requested (RES-2, PLAN-15)."""


class OutputShapeMismatchError(McpOutputsError):
    """An output whose payload field does not match its format (RES-3)."""


class SchemaViolationError(McpOutputsError):
    """A structured output that fails its variant's schema (RES-4, PLAN-11)."""


class EmptyAssistantContentError(McpOutputsError):
    """A successful assistant/content output with no block (DECL-3)."""


class EmptyErrorOutputsError(McpOutputsError):
    """``isError: true`` with no output (ERR-4)."""


class MissingSchemaError(McpOutputsError):
    """A structured variant without a schema, when the plan requires schemas (DECL-7)."""


class DuplicateToolNameError(McpOutputsError):
    """A Tool whose name another Tool of the same tools/list page has (LIST-3). Only ever the
    ``code`` of an excluded tool in ``discover_tools``; never raised, defined so that every code
    has its class."""


class MissingValidatorError(McpOutputsError):
    """No JSON Schema validator for a declared schema (the npm package's default entry only;
    this package always has its own): never raised here, defined so every code has its class."""


class InvalidValidatorError(McpOutputsError):
    """A caller's JSON Schema validator of the wrong shape (the npm package's default entry
    only): never raised here, defined so every code has its class."""


#: The exception class of each error code of the core.
ERROR_CLASSES: Dict[ErrorCode, Type[McpOutputsError]] = {
    "malformed": MalformedError,
    "limit-exceeded": LimitExceededError,
    "invalid-protocol-version": InvalidProtocolVersionError,
    "unsupported-protocol-version": UnsupportedProtocolVersionError,
    "invalid-audience": InvalidAudienceError,
    "invalid-combination": InvalidCombinationError,
    "duplicate-variant": DuplicateVariantError,
    "missing-assistant-content": MissingAssistantContentError,
    "invalid-schema": InvalidSchemaError,
    "external-ref": ExternalRefError,
    "unnegotiated-extension": UnnegotiatedExtensionError,
    "missing-output-variants": MissingOutputVariantsError,
    "requested-outputs-on-legacy-version": RequestedOutputsOnLegacyVersionError,
    "duplicate-selector": DuplicateSelectorError,
    "empty-selection": EmptySelectionError,
    "undeclared-variant": UndeclaredVariantError,
    "missing-output": MissingOutputError,
    "unrequested-output": UnrequestedOutputError,
    "output-shape-mismatch": OutputShapeMismatchError,
    "schema-violation": SchemaViolationError,
    "empty-assistant-content": EmptyAssistantContentError,
    "empty-error-outputs": EmptyErrorOutputsError,
    "missing-schema": MissingSchemaError,
    "duplicate-tool-name": DuplicateToolNameError,
    "missing-validator": MissingValidatorError,
    "invalid-validator": InvalidValidatorError,
}


def _rebuild(
    cls: Type[McpOutputsError], code: AnyErrorCode, message: str, path: str, jsonrpc: Optional[JsonRpcError]
) -> McpOutputsError:
    error = cls.__new__(cls)
    McpOutputsError.__init__(error, code, message, path, jsonrpc)
    return error


def _from_core(code: str, message: str, path: str, jsonrpc: Optional[JsonRpcError]) -> McpOutputsError:
    """Called by the native module to build the exception of a core error."""
    known = cast(ErrorCode, code)
    cls = ERROR_CLASSES.get(known, McpOutputsError)
    return cls(known, message, path, jsonrpc)


def _internal(message: str) -> McpOutputsError:
    """Called by the native module when it caught a panic."""
    return InternalError(message)
