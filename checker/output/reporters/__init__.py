"""Output formats, one module per format; ``REPORTERS`` maps a format name to its reporter."""

from __future__ import annotations

from checker.output.reporters import github, json, sarif, text
from checker.output.reporters.base import RenderOptions, Reporter, ordered

REPORTERS: dict[str, Reporter] = {
    "text": text.render,
    "json": json.render,
    "sarif": sarif.render,
    "github": github.render,
}

__all__ = ["REPORTERS", "RenderOptions", "Reporter", "ordered"]
