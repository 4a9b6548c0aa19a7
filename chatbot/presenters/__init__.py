"""Per-game presentation: how a game's state, moves and events read in chat.

A presenter module offers (see ``schwimmen`` for the reference):

- ``GAME_ID``, ``ROUND_UNIT`` (``round`` or ``hand``: what a deal is called), ``name(lang)``
  (the game's name), ``DEFAULT_TABLE_OPTIONS`` (dict);
  optional ``CURRENCIES`` (display choices) with ``currency_label(currency, lang)``,
  ``OPTION_CHOICES`` (engine option key → list of values, first = default) with
  ``option_label(key, value, lang)``, shown as lobby buttons and in the private game menu;
  optional ``seat_out(state, seat)`` (games where a player can be knocked out);
- ``rules(lang)`` → short rules text;
- ``public_lines(state, names, lang, table_options, marks)`` → status lines without any hidden
  card (group table message);
- ``private_lines(state, seat, lang)`` → what only that seat sees (its hand);
- ``action_buttons(state, seat, lang, ui=None)`` → rows of ``(label, code)`` for the seat on
  turn; codes are engine action codes, or ``ui.<arg>`` for selection steps that ``ui_press``
  handles;
- optional ``ui_press(state, seat, ui, arg, lang)`` → ``(new_ui, action_code | None,
  answer | None)``: a server-side selection (raise ``ValueError`` with a short reason);
- ``event_text(event_dict, names, lang)`` → one line for a public event, or ``None``;
  optional ``group_event_text(event_dict, names, lang)`` for the group table message, which
  must never name a card that is in a hand (defaults to ``event_text``);
- ``result_lines(state, names, lang, table_options)`` → the round/game result (posted once
  when a round ends; may show the hands revealed at showdown);
- ``winners(state)`` → seats; ``standings(state, names)`` → list of dicts for the result row.
"""

from __future__ import annotations

from types import ModuleType

from . import climbing, runfast, scat, schwimmen

PRESENTERS: dict[str, ModuleType] = {schwimmen.GAME_ID: schwimmen, scat.GAME_ID: scat,
                                     climbing.GAME_ID: climbing, runfast.GAME_ID: runfast}


def presenter(game_id: str) -> ModuleType:
    return PRESENTERS[game_id]
