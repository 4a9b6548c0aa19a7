"""Texts the rules audits found wrong (issue 17, item 14), as players read them."""

from __future__ import annotations

import random
from dataclasses import replace

from chatbot.i18n import engine_reason, join_names
from chatbot.presenters import scat as SC
from chatbot.presenters import schwimmen as SW
from engine import schwimmen
from engine.bots import get_bot

NAMES = ["Anna", "Ben", "Cem"]


def _finished_schwimmen(seed: int):
    state = schwimmen.new_game(3, seed=seed)
    bots = [get_bot("schwimmen", "normal") for _ in range(3)]
    rng = random.Random(seed)
    pot = None
    while not schwimmen.is_over(state):
        seat = schwimmen.to_act(state)
        action = "deal" if seat is None else \
            bots[seat].choose(schwimmen.observation(state, seat), rng)
        state, events = schwimmen.apply(state, action)
        pot = next((e.data["pot"] for e in events if e.kind == "game_over"), pot)
    return state, pot


def test_schwimmen_game_end_names_the_pot_won_not_the_winners_total():
    """"gewinnt … den Pott – jetzt 6" showed the winner's total as the pot (which was 4)."""
    state, pot = _finished_schwimmen(5)
    winner, total = state.winner, state.coins[state.winner]
    assert pot is not None and pot != total
    assert state.result.pot_won == pot
    de = SW.result_lines(state, NAMES, "de", {})[-1]
    en = SW.result_lines(state, NAMES, "en", {})[-1]
    assert de == f"🏆 {NAMES[winner]} gewinnt das Spiel und den Pott ({pot} 🪙) – hat jetzt " \
                 f"{total} 🪙."
    assert en == f"🏆 {NAMES[winner]} wins the game and the pot ({pot} 🪙) – now has {total} 🪙."
    again = schwimmen.from_json(schwimmen.to_json(state))  # kept across a restart
    assert again.result == state.result


def test_schwimmen_names_everybody_dealt_31():
    state, _ = _finished_schwimmen(6)
    both = replace(state.result, reason="dealt_31", thirty_one=0, thirty_ones=(0, 2))
    one = replace(state.result, reason="dealt_31", thirty_one=1, thirty_ones=(1,))
    lines = SW.result_lines(state._replace(result=both), NAMES, "de", {})
    assert lines[0].endswith(" – Anna und Cem haben 31 schon beim Austeilen:")
    lines = SW.result_lines(state._replace(result=both), NAMES, "en", {})
    assert lines[0].endswith(" – Anna and Cem were dealt 31:")
    lines = SW.result_lines(state._replace(result=one), NAMES, "de", {})
    assert lines[0].endswith(" – Ben hat 31 schon beim Austeilen:")  # (no "31!:")
    assert join_names(["A", "B", "C"], "de") == "A, B und C"


def test_texts_registered_but_never_shown_now_show():
    deal = {"kind": "deal", "seat": None, "data": {"round": 2, "starter": 1, "middle": []}}
    assert SW.event_text(deal, NAMES, "de") == "Runde 2 ist ausgeteilt, Ben beginnt."
    assert SW.group_event_text(deal, NAMES, "en")
    pass_empty = {"kind": "pass", "seat": 2, "data": {"stock_empty": True}}
    assert "leer" in SC.event_text(pass_empty, NAMES, "de")
    assert SC.event_text({"kind": "pass", "seat": 2, "data": {}}, NAMES, "de") != \
        SC.event_text(pass_empty, NAMES, "de")


def test_scat_refusals_speak_of_passen_and_name_an_empty_pile():
    assert engine_reason("de", "passing is only allowed after a knock or when the stock is "
                               "empty").startswith("Passen geht nur")
    assert engine_reason("de", "the stock is empty") == "der Stapel ist leer"
    assert engine_reason("de", "the discard pile is empty") == "der Ablagestapel ist leer"
