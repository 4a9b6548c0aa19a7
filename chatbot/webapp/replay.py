"""The page's replay view (↺ Nachspielen / Replay): a finished round of a table, every step with
every hand open, for a person who sat at it (``Service.replay_sight``; only rounds that have
ended are ever drawn). See docs/webapp-api.md for the JSON.
"""

from __future__ import annotations

from typing import Any

import fsm
from engine import GAMES
from engine.protocol import FINISHED, PAYOUT
from engine.replay import Round, hands, middle

from ..i18n import N_, Names, register, tr
from ..presenters import presenter
from ..presenters.cards import card_names
from ..service import Replayed, round_name, where_text
from .boards import BOARDS, codes

register({
    "wa.replay": N_("↺ Replay"),
    "wa.replay_close": N_("Back to the table"),
    "wa.replay_step": N_("Move {step} of {steps}"),
    "wa.replay_dealt": N_("Dealt"),
    "wa.replay_round": N_("Round"),
    "wa.replay_none": N_("No round of this table has ended yet."),
    "wa.replay_back": N_("One move back"),
    "wa.replay_forward": N_("One move on"),
    "wa.replay_slider": N_("Move"),
    "wa.replay_hand": N_("Cards of {name}"),
    "wa.replay_no_cards": N_("no cards"),
})


class NoRound(LookupError):
    """No round of the table that has ended (or not the one asked for); the text says why."""


def last_ended(table: Any, state: Any) -> int | None:
    """The number of the table's last round that has ended (``None``: none yet), read from
    its stored state alone (a round is dealt only after the one before it ended)."""
    if state is None or table.fsm_state == fsm.LOBBY:
        return None
    done = GAMES[table.game].phase(state) in (PAYOUT, FINISHED)
    number = int(state.round_no) if done else int(state.round_no) - 1
    return number if number > 0 else None


def offer(table: Any, state: Any, seated: bool, lang: str) -> dict[str, Any] | None:
    """The table view's "↺ Replay" button for a seated person, once a round has ended."""
    number = last_ended(table, state) if seated else None
    return None if number is None else {"round": number, "label": tr(lang, "wa.replay")}


def render_replay(replayed: Replayed, lang: str, number: int | None) -> dict[str, Any]:
    """A round (``number``, else the last that ended) of the table, step by step; ``NoRound``
    when it has not ended (or there is none)."""
    ended = replayed.ended()
    if not ended:
        raise NoRound(tr(lang, "wa.replay_none"))
    rnd = ended[-1] if number is None else replayed.round(number)
    if rnd is None:
        raise NoRound(tr(lang, "rp.not_over" if 0 < (number or 0) <= len(replayed.rounds)
                         else "rp.gone"))
    table, seats = replayed.table, replayed.seats
    p = presenter(table.game)
    names = [s.name for s in seats]
    steps = [_step(table, rnd, i, names, lang) for i in range(len(rnd.steps))]
    shown = [c for st in steps for c in (*st["middle"], *(c for h in st["hands"] for c in h))]
    return {
        "table": table.id, "token": table.token, "game": table.game, "lang": lang,
        "title": f"{p.name(lang)} · {where_text(replayed, lang)}",
        "round": rnd.number,
        "rounds": [{"number": r.number, "label": round_name(table, r.number, lang)}
                   for r in ended],
        "players": [{"seat": s.seat_no, "name": s.name, "cpu": s.is_cpu,
                     "you": s.seat_no in replayed.seat_nos} for s in seats],
        "steps": steps, "names": card_names(shown, lang),
        "texts": {"title": tr(lang, "wa.replay"), "close": tr(lang, "wa.replay_close"),
                  "step": tr(lang, "wa.replay_step", step="{step}", steps="{steps}"),
                  "round": tr(lang, "wa.replay_round"),
                  "middle": tr(lang, f"rp.middle.{table.game}"),
                  "back": tr(lang, "wa.replay_back"), "forward": tr(lang, "wa.replay_forward"),
                  "slider": tr(lang, "wa.replay_slider"),
                  "hand": tr(lang, "wa.replay_hand", name="{name}"),
                  "no_cards": tr(lang, "wa.replay_no_cards"),
                  "players": tr(lang, "wa.players")},
    }


def _step(table: Any, rnd: Round, index: int, names: list[str], lang: str) -> dict[str, Any]:
    step = rnd.steps[index]
    p = presenter(table.game)
    said = [t for e in step.events if (t := p.event_text(e.to_dict(), Names(names), lang))]
    board = BOARDS[table.game].board(step.state, None, names, lang, table.options)
    last = index == rnd.moves
    return {
        "text": " ".join(said) if said else tr(lang, "wa.replay_dealt"),
        "seat": step.seat,
        "hands": [codes(h) for h in hands(table.game, step.state)],
        "middle": codes(middle(table.game, step.state)),
        "middle_text": board.middle_text if not last else None,
        "scores": board.scores,
        "result": (p.result_lines(step.state, names, lang, table.options) or None)
        if last else None,
    }
