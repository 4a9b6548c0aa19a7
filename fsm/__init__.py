"""The table lifecycle: one shared ``transitions`` machine for all tables. No DB, no chat."""

from .table import (
    ABANDONED,
    FINISHED,
    LOBBY,
    MACHINE,
    OPEN,
    PLAYING,
    STATES,
    TRANSITIONS,
    TableModel,
    TransitionRefused,
    cpu_action,
    diagram_markdown,
    fire,
    mermaid,
    settle,
)

__all__ = [
    "ABANDONED", "FINISHED", "LOBBY", "MACHINE", "OPEN", "PLAYING", "STATES", "TRANSITIONS",
    "TableModel", "TransitionRefused", "cpu_action", "diagram_markdown", "fire", "mermaid",
    "settle",
]
