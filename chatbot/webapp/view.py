"""The page's view of a table for one person, and what a selection of cards would play.

Drawn from one read of the committed table (``Service.table_sight``) — the same state, texts and legality
the chat views use (``chatbot.views.render_private``, the presenters, the engine) — so the
chat and the page never disagree. See docs/webapp-api.md for the JSON.
"""

from __future__ import annotations

import time
from datetime import UTC
from typing import Any

import fsm
from engine import GAMES
from engine.cards import BY_CODE, Card, show
from engine.protocol import GameError, IllegalAction
from storage.models import GameTable, Seat

from .. import buttons
from ..i18n import N_, NN_, engine_reason, register, tr
from ..presenters import presenter
from ..presenters.cards import card_names
from ..service import TableSight
from ..views import log_texts, render_private
from .boards import BOARDS, codes
from .replay import offer

PLATFORM = "telegram"
MAX_SELECTED = 20  # more cards than any hand holds: refused before the engine sees them
# chat buttons the page shows as its own (the rest: card moves by selection, the chat's
# two-step menus, the move log, resigning — those stay in the chat)
PAGE_CODES = frozenset({"pass", "knock", "all", "draw", "take", "deal", "next", "again",
                        "back", "skip", "skip.again"})

register({
    "wa.play": N_("Play"),
    "wa.clear": N_("Clear"),
    "wa.your_turn": N_("Your turn"),
    "wa.waiting": N_("Waiting for {name}"),
    "wa.select": N_("Tap cards to choose a move"),
    "wa.offline": N_("Connection lost – reconnecting …"),
    "wa.hand": N_("Your cards"),
    "wa.log": N_("Table and moves"),
    "wa.not_seated": N_("You are watching: you have no seat at this table."),
    "wa.no_table": N_("No table found. Start a game in the chat first."),
    "wa.beats": N_("{play} – beats the table"),
    "wa.leads": N_("{play} – leads"),
    "wa.ok": N_("{play}"),
    "wa.refused": N_("{play} – {reason}"),
    "wa.no_combo": N_("No combination"),
    "wa.hint.schwimmen": N_("Choose one card of your hand and one of the middle"),
    "wa.hint.scat": N_("Choose one card to discard"),
    "wa.not_your_turn": N_("It is not your turn."),
    "wa.you": N_("you"),
    "wa.cpu": N_("CPU"),
    "wa.away": N_("away"),
    "wa.out": N_("out"),
    "wa.error": N_("This table could not be opened here."),
    "wa.not_yours": N_("Not your table: only its players and the people of its group can "
                       "see it."),
    "wa.players": N_("Players"),
    "wa.cards_held": NN_("{n} card", "{n} cards"),
    "wa.time_left": N_("Time left"),
    "wa.moves": N_("Moves"),
    "wa.deck": N_("Cards: colours and size"),
    "wa.large": N_("Large cards"),
})
_PAGE_TEXTS = ("play", "clear", "your_turn", "select", "offline", "hand", "log", "not_seated",
               "no_table", "you", "cpu", "away", "out", "error", "players", "time_left",
               "moves", "deck")
NEWS = 6  # the latest moves a view carries, for the page to read out the others' moves


Loaded = TableSight  # (the name the server and the tests know)


def _deadline(table: GameTable, seat: Seat | None) -> float | None:
    """The end of the turn clock of a person on turn, in Unix seconds."""
    if not table.turn_timeout or table.next_deadline is None or seat is None or seat.is_cpu:
        return None
    return table.next_deadline.replace(tzinfo=UTC).timestamp()


def _moves(rows: list[list[tuple[str, str]]]) -> list[dict[str, str]]:
    out = []
    for row in rows:
        for label, data in row:
            try:
                code = buttons.decode(data).code
            except buttons.BadButton:
                continue
            if code in PAGE_CODES:
                out.append({"code": code, "label": label})
    return out


def render(loaded: Loaded) -> dict[str, Any]:
    """The view (docs/webapp-api.md) of a loaded table."""
    table, seats, seat, lang = loaded.table, loaded.seats, loaded.seat, loaded.lang
    p = presenter(table.game)
    texts = {k: tr(lang, f"wa.{k}") for k in _PAGE_TEXTS}
    texts["waiting"] = ""
    out: dict[str, Any] = {
        "table": table.id, "token": table.token, "version": table.version, "game": table.game,
        "state": table.fsm_state, "seat": seat.seat_no if seat is not None else None,
        "lang": lang, "title": p.name(lang) + (f" · {loaded.where}" if loaded.where else ""),
        "players": [], "turn": {"seat": None, "deadline": None, "yours": False},
        "middle": {"label": "", "cards": [], "text": None, "stack": None},
        "hand": [], "selectable": [], "moves": [], "lines": [], "result": None,
        "over": table.fsm_state in (fsm.FINISHED, fsm.ABANDONED), "texts": texts,
        "next_table": loaded.next_table, "now": time.time(), "replay": None,
        "names": {}, "news": []}
    model = loaded.model
    view = render_private(table, seats, model, seat, lang, single=table.is_private,
                          where=loaded.where)
    out["lines"] = view.text.split("\n")
    out["moves"] = _moves(view.rows)
    state = model.engine_state
    out["replay"] = offer(table, state, seat is not None, lang)
    names = [s.name for s in seats]
    if state is None or table.fsm_state == fsm.LOBBY:
        out["players"] = [_player(s, None, "", False, False, seat, lang) for s in seats]
        return out
    out["news"] = _news(loaded)
    game = GAMES[table.game]
    spec = BOARDS[table.game]
    seat_no = seat.seat_no if seat is not None else None
    board = spec.board(state, seat_no, names, lang, table.options)
    on_turn = game.to_act(state) if table.fsm_state in fsm.PLAYING else None
    out["players"] = [_player(s, board.cards[s.seat_no], board.scores[s.seat_no],
                              on_turn == s.seat_no, board.out[s.seat_no], seat, lang)
                      for s in seats]
    turn_seat = next((s for s in seats if s.seat_no == on_turn), None)
    mine = seat is not None and on_turn == seat.seat_no and not seat.away
    out["turn"] = {"seat": on_turn, "deadline": _deadline(table, turn_seat), "yours": mine}
    texts["waiting"] = tr(lang, "wa.waiting", name=names[on_turn]) \
        if on_turn is not None else ""
    out["middle"] = {"label": board.middle_label, "cards": codes(board.middle),
                     "text": board.middle_text, "stack": board.stack}
    out["hand"] = codes(board.hand)
    if mine:
        picked: set[str] = set()
        for action in game.legal_actions(state):
            picked.update(c.code for c in spec.cards_of(action))
        out["selectable"] = sorted(picked)
    if table.fsm_state in (fsm.PAYOUT, fsm.FINISHED):
        out["result"] = p.result_lines(state, names, lang, table.options) or None
    out["names"] = card_names([*out["hand"], *out["middle"]["cards"]], lang)
    return out


def _news(loaded: Loaded) -> list[dict[str, Any]]:
    """The round's latest moves as everybody may read them (no card that went into a hand):
    ``{"seat", "text"}``, the page reads out those of the others that are new to it."""
    table, seats = loaded.table, loaded.seats
    reader = loaded.seat.seat_no if loaded.seat is not None else None
    out = []
    for event in (table.log or [])[-NEWS:]:
        said = log_texts(table, seats, loaded.lang, [event], group=True, reader=reader)
        if said:
            out.append({"seat": event.get("seat"), "text": said[0].removeprefix("· ")})
    return out


def _player(s: Seat, cards: int | None, score: str, turn: bool, out: bool,
            viewer: Seat | None, lang: str) -> dict[str, Any]:
    return {"seat": s.seat_no, "name": s.name, "cards": cards, "score": score, "turn": turn,
            "out": out, "you": viewer is not None and viewer.seat_no == s.seat_no,
            "cpu": s.is_cpu, "away": s.away,
            "cards_text": None if cards is None else tr(lang, "wa.cards_held", n=cards)}


def _cards(raw: object) -> list[Card] | None:
    if not isinstance(raw, list) or len(raw) > MAX_SELECTED:
        return None
    cards = [BY_CODE.get(c) if isinstance(c, str) else None for c in raw]
    if any(c is None for c in cards) or len(set(cards)) != len(cards):
        return None
    return cards  # type: ignore[return-value]


def describe(loaded: Loaded, raw: object) -> dict[str, Any] | None:
    """What the selected cards would play, and whether the engine allows it now: ``{"text",
    "move"}`` (``move`` ``None`` when it can't be played); ``None`` for a malformed list."""
    cards = _cards(raw)
    if cards is None:
        return None
    table, seat, lang = loaded.table, loaded.seat, loaded.lang
    state = loaded.state
    game = GAMES[table.game]
    if not cards:
        return {"text": "", "move": None}
    if state is None or seat is None or table.fsm_state not in fsm.PLAYING \
            or game.to_act(state) != seat.seat_no or seat.away:
        return {"text": tr(lang, "wa.not_your_turn"), "move": None}
    spec = BOARDS[table.game]
    try:
        action = spec.pick(state, seat.seat_no, cards)
    except (IllegalAction, GameError):  # cards no move of this game is made of
        action = None
    if action is None:
        if spec.kind is None:  # a swap or a discard: say what to choose
            return {"text": tr(lang, f"wa.hint.{table.game}"), "move": None}
        return {"text": spec.kind(cards, lang) or tr(lang, "wa.no_combo"), "move": None}
    label = _label(table.game, state, seat.seat_no, action, lang)
    if any(a.code == action.code for a in game.legal_actions(state)):
        key = ("wa.beats" if spec.on_table(state) is not None else "wa.leads") \
            if spec.kind is not None and action.kind != "give" else "wa.ok"
        return {"text": tr(lang, key, play=label),
                "move": {"code": action.code, "label": label}}
    reason = game.why_illegal(state, action) or "not allowed"
    return {"text": tr(lang, "wa.refused", play=label, reason=engine_reason(lang, reason)),
            "move": None}


def _label(game_id: str, state: Any, seat_no: int, action: Any, lang: str) -> str:
    """A move's name as its chat button says it (a play: its kind and its cards)."""
    spec = BOARDS[game_id]
    cards = spec.cards_of(action)
    if spec.kind is not None and action.kind != "give":
        return f"{spec.kind(cards, lang)} {show(cards)}"
    for row in presenter(game_id).action_buttons(state, seat_no, lang, ui={}):
        for label, code in row:
            if code == action.code:
                return label
    return show(cards)
