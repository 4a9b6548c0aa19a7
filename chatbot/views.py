"""Platform-neutral views: text, rows of (label, button data), and whether to post anew.

Group views are made from public information only; a private view adds exactly what that
seat's observation holds. Adapters turn views into messages and keyboards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import fsm
from engine import GAMES
from storage.models import GameTable, Player, Seat

from . import buttons
from .i18n import tr
from .presenters import presenter

Rows = list[list[tuple[str, str]]]


@dataclass
class View:
    text: str
    rows: Rows = field(default_factory=list)
    repost: bool = False


def _names(seats: list[Seat]) -> list[str]:
    return [s.name for s in seats]


def _marks(seats: list[Seat], lang: str) -> list[str]:
    return [f" {tr(lang, 'away_mark')}" if s.away else "" for s in seats]


def _btn(table: GameTable, label: str, code: str) -> tuple[str, str]:
    return (label, buttons.encode(table.id, table.version, code))  # type: ignore[arg-type]


def _log_lines(table: GameTable, seats: list[Seat], lang: str, limit: int = 3,
               group: bool = False) -> list[str]:
    p = presenter(table.game)
    text_of = (getattr(p, "group_event_text", None) if group else None) or p.event_text
    texts = [text_of(e, _names(seats), lang) for e in (table.log or [])]
    texts = [t for t in texts if t][-limit:]
    return [f"· {t}" for t in texts]


def _lobby(table: GameTable, seats: list[Seat], lang: str) -> View:
    game = GAMES[table.game]
    p = presenter(table.game)
    opener = next((s.name for s in seats if s.seat_no == 0), "?")
    players = "\n".join(f"{s.seat_no + 1}. {s.name}" for s in seats) or tr(lang, "lobby_empty")
    text = tr(lang, "lobby", game=p.NAMES.get(lang, table.game), opener=opener,
              min=game.MIN_SEATS, max=game.MAX_SEATS, players=players)
    clock = f"⏱ {table.turn_timeout} s" if table.turn_timeout else "⏱ –"
    fill = tr(lang, "fill_cpu_on" if table.options.get("fill_cpu") else "fill_cpu_off")
    rows: Rows = [
        [_btn(table, tr(lang, "join"), "join"), _btn(table, tr(lang, "leave"), "leave")],
        [_btn(table, tr(lang, "start"), "start"), _btn(table, tr(lang, "stop"), "stop")],
        [_btn(table, clock, "clock"), _btn(table, fill, "fill")],
    ]
    if table.options.get("fill_cpu"):
        level = table.options.get("cpu_level", "normal")
        rows[2].insert(2, _btn(table, f"🤖 {tr(lang, 'level_' + level)}", "lvl"))
    engine_opts = table.options.get("engine") or {}
    for key, values in getattr(p, "OPTION_CHOICES", {}).items():
        label = p.option_label(key, engine_opts.get(key, values[0]), lang)
        rows.append([_btn(table, label, f"opt.{key}")])
    currencies = getattr(p, "CURRENCIES", None)
    if currencies:
        cur = table.options.get("currency", "coins")
        rows[2].append(_btn(table, currencies.get(cur, "🪙"), "cur"))
    return View(text + f"\n{clock} · {fill}", rows)


def render_table(table: GameTable, seats: list[Seat], model: fsm.TableModel, lang: str,
                 players: dict[int, Player],
                 start_link: Callable[[int], str] | None = None) -> View:
    """The public table message of a group: never a hidden card."""
    if table.fsm_state == fsm.LOBBY:
        return _lobby(table, seats, lang)
    p = presenter(table.game)
    state = model.engine_state
    names = _names(seats)
    if table.fsm_state == fsm.ABANDONED:
        lines = [f"🃏 {p.NAMES.get(lang, table.game)}", tr(lang, "abandoned")]
        return View("\n".join(lines))
    lines = p.public_lines(state, names, lang, table.options, _marks(seats, lang))
    rows: Rows = []
    game = model.game
    if table.fsm_state == fsm.FINISHED:
        won = p.winners(state)
        if won:
            lines.append(tr(lang, "winners", names=", ".join(names[s] for s in won)))
        rows.append([_btn(table, tr(lang, "play_again"), "again")])
        return View("\n".join(lines), rows)
    on_turn = game.to_act(state)
    if on_turn is not None:
        lines.append(tr(lang, "on_turn", name=names[on_turn]))
    lines += _log_lines(table, seats, lang, group=True)
    missing = [s for s in seats if not s.is_cpu and s.player_id
               and not (players.get(s.player_id) and players[s.player_id].private_chat_id)]
    if missing and start_link is not None:
        lines.append(tr(lang, "start_bot_hint", names=", ".join(s.name for s in missing),
                        link=start_link(table.id)))  # type: ignore[arg-type]
    row = [_btn(table, tr(lang, "my_cards"), "cards")]
    if table.fsm_state == fsm.PAYOUT:
        row.append(_btn(table, tr(lang, "next_round"), "next"))
    rows.append(row)
    away = [s for s in seats if s.away and not s.is_cpu]
    if away:
        rows.append([_btn(table, tr(lang, "im_back"), "back")])
        # The opener or an admin may remove an absent player (the CPU keeps the seat).
        rows.append([_btn(table, tr(lang, "kick", name=s.name), f"kick.{s.player_id}")
                     for s in away])
    return View("\n".join(lines), rows)


def render_private(table: GameTable, seats: list[Seat], model: fsm.TableModel,
                   seat: Seat | None, lang: str, single: bool) -> View:
    """A player's own view: the table (``single`` = a private game) plus their hand and moves."""
    p = presenter(table.game)
    state = model.engine_state
    names = _names(seats)
    if table.fsm_state == fsm.LOBBY or state is None:
        return View(tr(lang, "hand_private_hint"))
    if table.fsm_state == fsm.ABANDONED:
        return View(f"🃏 {p.NAMES.get(lang, table.game)}\n{tr(lang, 'abandoned')}")
    lines: list[str] = []
    rows: Rows = []
    if single:
        lines += p.public_lines(state, names, lang, table.options, _marks(seats, lang))
    else:
        lines.append(f"🃏 {p.NAMES.get(lang, table.game)} · #{table.id}")
    seat_no = seat.seat_no if seat is not None else -1
    if seat is not None:
        lines += p.private_lines(state, seat_no, lang)
    if table.fsm_state == fsm.FINISHED:
        if single:
            won = p.winners(state)
            if won:
                lines.append(tr(lang, "winners", names=", ".join(names[s] for s in won)))
            rows.append([_btn(table, tr(lang, "play_again"), "again")])
        else:
            lines.append(tr(lang, "game_over"))
        return View("\n".join(lines), rows)
    if single:
        lines += _log_lines(table, seats, lang)
    on_turn = model.game.to_act(state)
    mine = seat is not None and on_turn == seat_no and not seat.away
    if mine:
        lines.append(tr(lang, "your_turn"))
        rows += [[_btn(table, label, code) for label, code in row]
                 for row in p.action_buttons(state, seat_no, lang, ui=seat.ui or {})]
    elif on_turn is not None:
        lines.append(tr(lang, "waiting_for", name=names[on_turn]))
    if table.fsm_state == fsm.PAYOUT and single:
        rows.append([_btn(table, tr(lang, "next_round"), "next")])
    elif table.fsm_state == fsm.PAYOUT:
        lines.append(tr(lang, "between_rounds"))
    if seat is not None and seat.away:
        rows.append([_btn(table, tr(lang, "im_back"), "back")])
    return View("\n".join(lines), rows, repost=mine and not single)


def view_cards(view: View) -> str:
    """All text of a view, buttons included (what a leak check reads)."""
    parts: list[Any] = [view.text] + [label for row in view.rows for label, _ in row]
    return "\n".join(parts)
