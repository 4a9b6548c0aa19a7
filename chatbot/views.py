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
from .durations import PAUSE_CLOCK, PAUSE_DAYS, clock_label, moment, pause_label, weekday_time
from .i18n import N_, Names, register, tr
from .presenters import presenter
from .presenters.cards import CLASSIC, deck_of, styled
from .table_options import cpu_names, options_of

Rows = list[list[tuple[str, str]]]
register({
    "lobby_closes": N_("⌛ Closes by itself {when} if nobody starts it."),
    "lobby_hosted": N_("🃏 {game} – new table\n{host}\nPlayers ({count}):\n{players}"),
    "pause.until": N_("⏸ Paused until {until}"),
    "pause.request": N_("⏸ {name} asks for a pause of {length} (agreed: {count} of {of})"),
    "pause.button": N_("⏸ {length}"),
    "pause.agree": N_("✅ Pause"),
    "pause.go_on": N_("▶ Go on"),
})
_PAUSING = (fsm.EXCHANGE, fsm.TURN, fsm.FINAL_ROUND, fsm.PAYOUT)


@dataclass
class View:
    text: str
    rows: Rows = field(default_factory=list)
    repost: bool = False


def unit_key(table: GameTable, key: str) -> str:
    """Run Fast deals hands (as its rule sheet says), the other games rounds: the key of the
    text that says so (``next_round`` → ``next_hand``, ``log_title`` → ``log_title_hand``)."""
    if presenter(table.game).ROUND_UNIT == "hand":
        return key.replace("round", "hand") if "round" in key else f"{key}_hand"
    return key


def _names(seats: list[Seat]) -> list[str]:
    return [s.name for s in seats]


def _marks(seats: list[Seat], lang: str) -> list[str]:
    return [f" {tr(lang, 'away_mark')}" if s.away else "" for s in seats]


def _btn(table: GameTable, label: str, code: str) -> tuple[str, str]:
    return (label, buttons.encode(table.id, table.version, code))  # type: ignore[arg-type]


def pause_part(table: GameTable, seats: list[Seat], lang: str) -> tuple[list[str], Rows]:
    """What a table with a clock of an hour or more shows of a pause: while paused, until
    when and "▶ Go on"; while one is asked for, who asked and "✅ Pause"; else the pauses
    one may ask for."""
    if table.turn_timeout < PAUSE_CLOCK or table.fsm_state not in _PAUSING:
        return [], []
    kept = table.pause or {}
    if table.paused_until is not None:
        until = weekday_time(table.paused_until, lang, with_date=kept.get("days", 0) >= 7)
        return [tr(lang, "pause.until", until=until)], \
            [[_btn(table, tr(lang, "pause.go_on"), "pr")]]
    if kept.get("n") is not None:
        askers = {s.seat_no for s in seats if not s.is_cpu and s.player_id and not s.away}
        by = next((s.name for s in seats if s.seat_no == kept.get("by")), "?")
        line = tr(lang, "pause.request", name=by, length=pause_label(kept["days"], lang),
                  count=len(kept.get("yes") or []) + 1, of=len(askers | {kept.get("by")}))
        return [line], [[_btn(table, tr(lang, "pause.agree"), f"pa.{kept['n']}")]]
    return [], [[_btn(table, tr(lang, "pause.button", length=pause_label(d, lang)), f"pz.{d}")
                 for d in PAUSE_DAYS]]


LOG_SHOWN = 12  # move lines a view shows at most (the whole round: the 📜 button)


def since_last_turn(log: list[dict[str, Any]], seat_no: int | None) -> list[dict[str, Any]]:
    """The events of the round from the start of ``seat_no``'s latest turn on (all of the
    round if it has not moved yet; ``None``: the last round of turns, one per seat)."""
    start = None
    for i in range(len(log) - 1, -1, -1):
        if log[i].get("seat") == seat_no and seat_no is not None:
            start = i
        elif start is not None:
            break
    return log[start or 0:]


def log_texts(table: GameTable, seats: list[Seat], lang: str,
              events: list[dict[str, Any]] | None = None, group: bool = False,
              reader: int | None = None) -> list[str]:
    """The move lines of events (the table's log by default), as the players read them (the
    reader's own moves in the second person, when the lines are for one seat)."""
    p = presenter(table.game)
    text_of = (getattr(p, "group_event_text", None) if group else None) or p.event_text
    names = Names(_names(seats), you=reader)
    texts = [text_of(e, names, lang) for e in (table.log or [] if events is None else events)]
    return [f"· {t}" for t in texts if t]


def _log_lines(table: GameTable, seats: list[Seat], lang: str, viewer: int | None,
               group: bool = False, reader: int | None = None) -> list[str]:
    """Every move since the viewer's latest turn (compact: at most ``LOG_SHOWN``)."""
    lines = log_texts(table, seats, lang, since_last_turn(table.log or [], viewer), group,
                      reader)
    if len(lines) > LOG_SHOWN:
        lines = ["· …", *lines[-LOG_SHOWN + 1:]]
    return lines


def _seat_line(seat: Seat, lang: str) -> str:
    if seat.is_cpu:
        return tr(lang, "tl.cpu_seat", no=seat.seat_no + 1, name=seat.name)
    return f"{seat.seat_no + 1}. {seat.name}"


def _lobby(table: GameTable, seats: list[Seat], lang: str) -> View:
    opts = options_of(table)
    if opts.rematch is not None:
        return _rematch(table, seats, lang)
    game = GAMES[table.game]
    p = presenter(table.game)
    opener = next((s.name for s in seats if s.seat_no == 0), "?")
    cpus = opts.cpu_count(len(seats), game.MAX_SEATS)
    level = tr(lang, "level_" + opts.cpu_level)
    lines = [_seat_line(s, lang) for s in seats]
    lines += [tr(lang, "tl.cpu_seat", no=len(seats) + i + 1, name=f"🤖 {name}")
              for i, name in enumerate(cpu_names(cpus, [s.name for s in seats]))]
    players = "\n".join(lines) or tr(lang, "lobby_empty")
    count = str(game.MIN_SEATS) if game.MIN_SEATS == game.MAX_SEATS \
        else f"{game.MIN_SEATS}–{game.MAX_SEATS}"
    if opts.host is not None:  # opened for an evening, a tournament: it is named, not seat 1
        text = tr(lang, "lobby_hosted", game=p.name(lang), count=count, players=players,
                  host=tr(lang, opts.host.key, **opts.host.values))
    else:
        text = tr(lang, "lobby", game=p.name(lang), opener=opener, count=count,
                  players=players)
    clock = clock_label(table.turn_timeout, lang)
    fill = tr(lang, "tl.cpu_line", n=cpus, level=level) if cpus else tr(lang, "tl.cpu_line_none")
    rows: Rows = [
        [_btn(table, tr(lang, "join"), "join"), _btn(table, tr(lang, "leave"), "leave")],
        [_btn(table, tr(lang, "start"), "start"), _btn(table, tr(lang, "stop"), "stop")],
        [_btn(table, tr(lang, "tl.cpu_minus"), "fill.-"),
         _btn(table, tr(lang, "tl.cpu_button", n=cpus, level=level) if cpus
              else tr(lang, "tl.cpu_button_none"), "lvl"),
         _btn(table, tr(lang, "tl.cpu_plus"), "fill.+")],
        [_btn(table, clock, "clock")],
    ]
    engine_opts = opts.engine
    for key, values in getattr(p, "OPTION_CHOICES", {}).items():
        label = p.option_label(key, engine_opts.get(key, values[0]), lang)
        rows.append([_btn(table, label, f"opt.{key}")])
    currencies = getattr(p, "CURRENCIES", None)
    if currencies:
        cur = opts.currency or "coins"
        rows[3].append(_btn(table, p.currency_label(cur, lang), "cur"))
    if table.deadline_kind == "expire" and table.next_deadline is not None:
        text += "\n" + tr(lang, "lobby_closes", when=moment(table.next_deadline, lang,
                                                              table.updated_at))
    return View(text + f"\n{clock} · {fill}", rows)


def _rematch(table: GameTable, seats: list[Seat], lang: str) -> View:
    """A rematch waiting for the players of the last game to confirm."""
    p = presenter(table.game)
    rematch = options_of(table).rematch
    waiting = set(rematch.waiting) if rematch is not None else set()
    lines = []
    for s in seats:
        if s.is_cpu:
            lines.append(_seat_line(s, lang))
        else:
            mark = "tl.waiting_mark" if s.player_id in waiting else "tl.confirmed_mark"
            lines.append(f"{_seat_line(s, lang)} {tr(lang, mark)}")
    seconds = rematch.seconds if rematch is not None else None
    text = tr(lang, "tl.rematch" if seconds else "tl.rematch_short",
              game=p.name(lang), seconds=seconds, players="\n".join(lines))
    rows: Rows = [
        [_btn(table, tr(lang, "tl.confirm"), "join"), _btn(table, tr(lang, "leave"), "leave")],
        [_btn(table, tr(lang, "start"), "start"), _btn(table, tr(lang, "stop"), "stop")],
    ]
    return View(text, rows)


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
        lines = [f"🃏 {p.name(lang)}", tr(lang, "abandoned")]
        return View("\n".join(lines))
    lines = p.public_lines(state, names, lang, table.options, _marks(seats, lang))
    rows: Rows = []
    game = model.game
    if table.fsm_state == fsm.FINISHED:
        won = p.winners(state)
        if won:
            lines.append(tr(lang, "winners", names=", ".join(names[s] for s in won)))
        if not options_of(table).no_again:
            rows.append([_btn(table, tr(lang, "play_again"), "again")])
        return View("\n".join(lines), rows)
    on_turn = game.to_act(state)
    if on_turn is not None:
        lines.append(tr(lang, "on_turn", name=names[on_turn]))
    lines += _log_lines(table, seats, lang, on_turn, group=True)
    missing = [s for s in seats if not s.is_cpu and s.player_id
               and not (players.get(s.player_id) and players[s.player_id].private_chat_id)]
    if missing and start_link is not None:
        lines.append(tr(lang, "start_bot_hint", names=", ".join(s.name for s in missing),
                        n=len(missing),
                        link=start_link(table.id)))  # type: ignore[arg-type]
    row = [_btn(table, tr(lang, "my_cards"), "cards"), _btn(table, tr(lang, "log_button"), "log")]
    if table.fsm_state == fsm.PAYOUT:
        row.append(_btn(table, tr(lang, unit_key(table, "next_round")), "next"))
    rows.append(row)
    pause_lines, pause_rows = pause_part(table, seats, lang)
    lines += pause_lines
    rows += pause_rows
    away = [s for s in seats if s.away and not s.is_cpu]
    if away:
        rows.append([_btn(table, tr(lang, "im_back"), "back")])
        # The opener or an admin may remove an absent player (the CPU keeps the seat).
        rows.append([_btn(table, tr(lang, "kick", name=s.name), f"kick.{s.player_id}")
                     for s in away])
    return View("\n".join(lines), rows)


def render_private(table: GameTable, seats: list[Seat], model: fsm.TableModel,
                   seat: Seat | None, lang: str, single: bool, where: str | None = None) -> View:
    """A player's own view: the table (``single`` = a private game; else ``where``: the
    group's name, which says which table it is) plus their hand and moves."""
    p = presenter(table.game)
    state = model.engine_state
    names = _names(seats)
    if table.fsm_state == fsm.ABANDONED:  # (also a lobby that was closed: no "cards" hint)
        return View(f"🃏 {p.name(lang)}\n{tr(lang, 'abandoned')}")
    if table.fsm_state == fsm.LOBBY or state is None:
        return View(tr(lang, "hand_private_hint"))
    lines: list[str] = p.public_lines(state, names, lang, table.options, _marks(seats, lang))
    rows: Rows = []
    if not single and lines and where:  # what the group's table shows, and where it is
        lines[0] += f" · {where}"
    seat_no = seat.seat_no if seat is not None else -1
    if seat is not None:
        lines += p.private_lines(state, seat_no, lang)
    if table.fsm_state == fsm.FINISHED:
        if single:
            resigned = options_of(table).resigned
            if resigned is not None:
                lines.append(tr(lang, "tl.resigned"))
            won = p.winners(state) if resigned is None else \
                [s.seat_no for s in seats if s.seat_no != resigned]
            if won:
                lines.append(tr(lang, "winners", names=", ".join(names[s] for s in won)))
            lines += _practice_lines(table, lang)
            rows.append([_btn(table, tr(lang, "play_again"), "again"),
                         _btn(table, tr(lang, "co.same"), "again.same")])
            if options_of(table).coach:
                rows.append([_btn(table, tr(lang, "co.review"), "review")])
        else:
            won = p.winners(state)
            lines.append(tr(lang, "winners", names=", ".join(names[s] for s in won))
                         if won else tr(lang, "game_over"))
        return View("\n".join(lines), rows)
    # (the texts that never name a card that went into a hand: a move list this long would
    # otherwise show cards the CPUs now hold)
    lines += _log_lines(table, seats, lang, seat_no if seat is not None else None, group=True,
                        reader=seat_no if seat is not None else None)
    seat_out = getattr(p, "seat_out", None)
    if seat is not None and seat_out is not None and seat_out(state, seat_no):
        lines.append(tr(lang, "spectator"))  # out: one message, edited, no turn of their own
        if single and table.fsm_state in fsm.PLAYING:
            rows.append([_btn(table, tr(lang, "skip_to_result"), "skip"),
                         _btn(table, tr(lang, "play_again"), "skip.again")])
        return View("\n".join(lines), rows)
    on_turn = model.game.to_act(state)
    if seat is not None and (seat.ui or {}).get("resign"):  # "really resign?"
        if on_turn is not None and on_turn != seat_no:
            lines.append(tr(lang, "waiting_for", name=names[on_turn]))
        humans = [s for s in seats if not s.is_cpu]
        ask = "tl.ask_private" if single else \
            "tl.ask_group_last" if len(humans) <= 1 else "tl.ask_group"
        lines.append(tr(lang, ask))
        rows.append([_btn(table, tr(lang, "tl.resign_yes"), "resign.y"),
                     _btn(table, tr(lang, "tl.resign_no"), "resign.n")])
        return View("\n".join(lines), rows)
    mine = seat is not None and on_turn == seat_no and not seat.away
    if mine:
        lines.append(tr(lang, "your_turn"))
        rows += [[_btn(table, label, code) for label, code in row]
                 for row in p.action_buttons(state, seat_no, lang, ui=seat.ui or {})]
        if single and options_of(table).coach:
            rows.append([_btn(table, tr(lang, "co.tip"), "tip")])
    elif on_turn is not None:
        lines.append(tr(lang, "waiting_for", name=names[on_turn]))
    if table.fsm_state == fsm.PAYOUT and single:
        rows.append([_btn(table, tr(lang, unit_key(table, "next_round")), "next")])
        if options_of(table).coach:
            rows.append([_btn(table, tr(lang, "co.review"), "review")])
    elif table.fsm_state == fsm.PAYOUT:
        lines.append(tr(lang, unit_key(table, "between_rounds")))
    if single:
        pause_lines, pause_rows = pause_part(table, seats, lang)
        lines += pause_lines
        rows += pause_rows
    if seat is not None and seat.away:
        rows.append([_btn(table, tr(lang, "im_back"), "back")])
    if seat is not None and table.fsm_state in fsm.PLAYING:
        rows.append([_btn(table, tr(lang, "tl.resign"), "resign"),
                     _btn(table, tr(lang, "log_button"), "log")])
    return View("\n".join(lines), rows, repost=mine and not single)


def _practice_lines(table: GameTable, lang: str) -> list[str]:
    """A practice game says why it is not rated (the same cards again, tips)."""
    practice = options_of(table).practice
    return [tr(lang, f"co.practice.{practice}")] if practice in ("hint", "replay") else []


def in_deck(view: View, person: Player | None) -> View:
    """A person's view with their deck (``/karten``): a four-colour deck's colour square beside
    every card of the text and the buttons (the button data stay as they are)."""
    deck = person.deck if person is not None else None
    if deck_of(deck) == CLASSIC:
        return view
    rows = [[(styled(label, deck), data) for label, data in row] for row in view.rows]
    return View(styled(view.text, deck), rows, view.repost)


def view_cards(view: View) -> str:
    """All text of a view, buttons included (what a leak check reads)."""
    parts: list[Any] = [view.text] + [label for row in view.rows for label, _ in row]
    return "\n".join(parts)
