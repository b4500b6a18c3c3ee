"""Why this file exists (issue 21, item 6): the peer of the P-PY-4 bench.

It is the host handler an SDK maintainer would write for one tool instead of using this package,
kept small on purpose because it is the baseline a user would compare the package with. It checks
that the outputs answer the requested selectors exactly (none missing, none extra, none twice),
that content blocks are objects with a string ``type`` and text blocks carry a string ``text``,
validates each structured payload with jsonschema-rs (compiled once, here, outside any timed
loop; ``is_valid`` first, the error's message only for a refusal), and routes by audience. No
limits, no ``_meta`` rules, no legacy fields: it does less than the package, and the bench checks
it against the package before timing it (bench.py, P-PY-4).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Sequence, Set, Tuple

import jsonschema_rs

Routed = Dict[str, List[Any]]
Handler = Callable[[Sequence[Mapping[str, Any]], Any], Routed]
LISTS = {"assistant": "model", "user": "user", "programmatic": "programmatic"}


class Refused(ValueError):
    """The result does not answer the request."""


def plain_handler(tool: Mapping[str, Any]) -> Handler:
    validators = {
        v["audience"]: jsonschema_rs.validator_for(v["schema"], validate_formats=False)
        for v in tool["outputVariants"]
        if v["format"] == "structured"
    }

    def handle(requested: Sequence[Mapping[str, Any]], result: Any) -> Routed:
        outputs = result.get("outputs") if isinstance(result, dict) else None
        if not isinstance(outputs, list):
            raise Refused("outputs: not a list")
        wanted = {(s["audience"], s["format"]) for s in requested}
        seen: Set[Tuple[str, str]] = set()
        route: Routed = {"model": [], "user": [], "programmatic": []}
        for out in outputs:
            if not isinstance(out, dict) or out.get("audience") not in LISTS or not isinstance(out.get("format"), str):
                raise Refused("output: unknown audience or no format")
            key = (out["audience"], out["format"])
            if key not in wanted or key in seen:
                raise Refused(f"output {key}: {'twice' if key in seen else 'not requested'}")
            seen.add(key)
            if out["format"] == "content":
                if not isinstance(out.get("content"), list):
                    raise Refused("content: not a list")
                for b in out["content"]:
                    if not isinstance(b, dict) or not isinstance(b.get("type"), str):
                        raise Refused("content block: no type")
                    if b["type"] == "text" and not isinstance(b.get("text"), str):
                        raise Refused("text block: no text")
            else:
                validator = validators.get(out["audience"])
                if out["format"] != "structured" or validator is None:
                    raise Refused(f"output {key}: not declared")
                value = out.get("structuredContent")
                if not validator.is_valid(value):
                    raise Refused(f"structuredContent: {next(validator.iter_errors(value)).message}")
            route[LISTS[out["audience"]]].append(out)
        if len(seen) != len(wanted):
            raise Refused("outputs: a requested output is missing")
        return route

    return handle
