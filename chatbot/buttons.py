"""Button data: ``v1:<table>:<version>:<code>``, at most 64 bytes, never trusted.

The table id and the version the button was drawn for travel with the code; the service
checks actor, version and legality again on every press. Menu buttons that belong to no table
use table 0.
"""

from __future__ import annotations

from dataclasses import dataclass

PREFIX = "v1"
MAX_BYTES = 64


class BadButton(ValueError):
    """Button data that is not ours or is malformed."""


@dataclass(frozen=True, slots=True)
class Press:
    table_id: int
    version: int
    code: str


def encode(table_id: int, version: int, code: str) -> str:
    data = f"{PREFIX}:{table_id}:{version}:{code}"
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"button data too long: {data!r}")
    return data


def decode(data: str | None) -> Press:
    if not data or len(data.encode()) > MAX_BYTES:
        raise BadButton("unknown button")
    parts = data.split(":", 3)
    if len(parts) != 4 or parts[0] != PREFIX:
        raise BadButton("unknown button")
    try:
        table_id, version = int(parts[1]), int(parts[2])
    except ValueError:
        raise BadButton("unknown button") from None
    if table_id < 0 or version < 0 or not parts[3] or not parts[3].isprintable():
        raise BadButton("unknown button")
    return Press(table_id, version, parts[3])
