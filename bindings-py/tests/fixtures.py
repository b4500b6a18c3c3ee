"""What several test files share: the smallest tool with a programmatic/structured variant, and
the selectors that request it."""

from __future__ import annotations

from typing import Any, Dict, List

TOOL: Dict[str, Any] = {
    "name": "t",
    "inputSchema": {"type": "object"},
    "outputVariants": [
        {"audience": "assistant", "format": "content"},
        {"audience": "programmatic", "format": "structured", "schema": {"type": "object"}},
    ],
}
REQ: List[Dict[str, str]] = [{"audience": "programmatic", "format": "structured"}]


def tool_with(schema: Dict[str, Any], audience: str = "programmatic") -> Dict[str, Any]:
    """TOOL with its structured variant for `audience`, under `schema`."""
    variant = {"audience": audience, "format": "structured", "schema": schema}
    return dict(TOOL, outputVariants=[TOOL["outputVariants"][0], variant])


# The Apps extension's identifier, and a tool that also declares a structured variant for it.
APPS = "io.modelcontextprotocol/ui"
TOOL_WITH_APPS: Dict[str, Any] = {
    **TOOL,
    "outputVariants": [*TOOL["outputVariants"], {"audience": APPS, "format": "structured", "schema": {"type": "object"}}],
}
