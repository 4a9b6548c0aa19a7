"""The table lifecycle: one shared ``transitions`` machine for all tables. No DB, no chat."""

from .table import (
    ABANDONED,
    CLOSED,
    DEALING,
    EXCHANGE,
    FINAL_ROUND,
    FINISHED,
    LOBBY,
    MACHINE,
    OPEN,
    PAYOUT,
    PLAYING,
    SHOWDOWN,
    STATES,
    TRANSITIONS,
    TURN,
    TableModel,
    TransitionRefused,
    advice,
    advice_from_json,
    cpu_action,
    cpu_action_from_json,
    diagram_markdown,
    fire,
    mermaid,
    settle,
    standin_action,
)

__all__ = [
    "ABANDONED", "CLOSED", "DEALING", "EXCHANGE", "FINAL_ROUND", "FINISHED", "LOBBY", "MACHINE", "OPEN",
    "PAYOUT", "PLAYING", "SHOWDOWN", "STATES", "TRANSITIONS", "TURN", "TableModel",
    "TransitionRefused", "advice", "advice_from_json", "cpu_action", "cpu_action_from_json", "diagram_markdown", "fire", "mermaid", "settle",
    "standin_action",
]
