"""Texts the rules audits found wrong (issue 17, item 14), as players read them."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from chatbot.i18n import engine_reason, join_names, tr
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
    assert de == f"🏆 {NAMES[winner]} gewinnt das Spiel und den Pott ({pot} Münzen 🪙) – " \
                 f"hat jetzt {total} Münzen 🪙."
    assert en == f"🏆 {NAMES[winner]} wins the game and the pot ({pot} coins 🪙) – now has " \
                 f"{total} coins 🪙."
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


def _runfast_states(seeds: range):
    """Every position of a few Run Fast hands played by Normal players."""
    from engine import runfast

    for seed in seeds:
        state = runfast.new_game(3, seed=seed)
        bots = [get_bot("runfast", "normal") for _ in range(3)]
        rng = random.Random(seed)
        for _ in range(400):
            if runfast.is_over(state) or state.phase != "turn":
                break
            yield state
            seat = runfast.to_act(state)
            state, _ = runfast.apply(state, bots[seat].choose(
                runfast.observation(state, seat), rng))


def test_run_fast_tells_why_only_pass_is_offered():
    """"Du kannst nicht überbieten" was registered but never shown."""
    from chatbot.presenters import runfast as RF
    from engine import runfast

    stuck = next(s for s in _runfast_states(range(10)) if not runfast.play_families(s))
    seat = stuck.to_act
    assert RF.action_buttons(stuck, seat, "de") == [[("Passen", "pass")]]
    assert "Du kannst nicht überbieten – passen." in RF.private_lines(stuck, seat, "de")
    assert "You cannot beat it – pass." in RF.private_lines(stuck, seat, "en")
    others = [s for s in range(3) if s != seat]
    assert not any("überbieten" in line for s in others for line in RF.private_lines(stuck, s,
                                                                                     "de"))


def test_run_fast_pick_hint_says_when_a_combination_may_not_go():
    """Two cards of a four were called "Paar" though the four may only go as a bomb."""
    from chatbot.presenters import runfast as RF

    for state in _runfast_states(range(40)):
        seat = state.to_act
        hand = state.hand_cards(seat)
        ranks = {}
        for card in hand:
            ranks.setdefault(card.rank, []).append(card)
        four = next((cards for cards in ranks.values() if len(cards) == 4), None)
        if four is None:
            continue
        ui: dict = {}
        for card in four[:2]:
            ui, _, hint = RF.ui_press(state, seat, ui, f"t.{card.code}", "de")
        assert hint is not None and "so aber nicht" in hint and "Bombe" in hint, hint
        return
    raise AssertionError("no position with a four of a kind on turn")


def test_run_fast_names_a_short_last_triple_as_it_is():
    """A triple going out with fewer kickers was labelled "Drilling mit zwei"."""
    from chatbot.presenters import runfast as RF

    play = {"kind": "play", "seat": 0, "data": {"cards": ["7H", "7S", "7D"], "kind": "triple_two"}}
    assert "Drilling" in RF.event_text(play, NAMES, "de")
    assert "mit zwei" not in RF.event_text(play, NAMES, "de")
    four = {"kind": "play", "seat": 0,
            "data": {"cards": ["7H", "7S", "7D", "9C"], "kind": "triple_two"}}
    assert "Drilling mit einer" in RF.event_text(four, NAMES, "de")
    assert "triple with one" in RF.event_text(four, NAMES, "en")


def test_real_plurals_and_the_hint_addresses_one_person_or_several():
    """Issue 17, item 13: "noch 2 letzte(r) Zug/Züge", "Bitte startet mich" to one person."""
    from chatbot.i18n import tr

    assert tr("de", "sw.knocked", name="Ida", n=1) == "✊ Ida hat geklopft – noch 1 letzter Zug."
    assert tr("de", "sw.knocked", name="Ida", n=2) == "✊ Ida hat geklopft – noch 2 letzte Züge."
    assert tr("en", "scat.knocked", name="Ida", n=1) == "✊ Ida knocked – 1 last turn left."
    assert tr("en", "scat.knocked", name="Ida", n=3) == "✊ Ida knocked – 3 last turns left."
    assert tr("de", "scat.table", top="7♥", n=1).endswith("Stapel: 1 Karte")
    one = tr("de", "start_bot_hint", names="Ida", n=1, link="L")
    two = tr("de", "start_bot_hint", names="Ida, Ben", n=2, link="L")
    assert "Bitte starte mich" in one and "dir deine Karten" in one
    assert "Bitte startet mich" in two


def test_no_text_writes_a_plural_in_brackets():
    """Every registered text, German and English: no "Karte(n)", "letzte(r)", "turn(s)"."""
    import re

    import chatbot.service  # noqa: F401  (declares every module's texts)
    import chatbot.views  # noqa: F401
    from chatbot.i18n import LANGUAGES, messages, translations

    bad = re.compile(r"\w\((n|r|e|en|s|es)\)|/Züge")
    found = [(lang, key) for lang in LANGUAGES for key, text in messages().items()
             for n in (1, 2) if bad.search(text.translated(translations(lang), n))]
    assert found == [], found


def test_after_a_knock_the_stay_option_is_not_called_knock():
    """Issue 17, item 13: in Schwimmen's last round the move that keeps the hand is
    "Behalten" (it was labelled "Klopfen")."""
    state = schwimmen.new_game(3, seed=11)
    while schwimmen.to_act(state) is None or "knock" not in {
            a.kind for a in schwimmen.legal_actions(state)}:
        state, _ = schwimmen.apply(state, schwimmen.legal_actions(state)[0])
    assert ("Klopfen", "knock") in SW.action_buttons(state, state.to_act, "de")[-1]
    state, events = schwimmen.apply(state, "knock")
    labels = [label for row in SW.action_buttons(state, state.to_act, "de") for label, _ in row]
    assert "Behalten" in labels and "Klopfen" not in labels
    state, events = schwimmen.apply(state, "knock")
    assert SW.event_text(events[0].to_dict(), NAMES, "de").endswith("behält die Karten.")


@pytest.mark.parametrize(("game", "event", "de", "en"), [
    ("schwimmen", {"kind": "pass", "seat": 0}, "Du schiebst.", "You pass."),
    ("schwimmen", {"kind": "knock", "seat": 0, "data": {"again": True}},
     "Du behältst deine Karten.", "You keep your cards."),
    ("scat", {"kind": "draw", "seat": 0}, "Du ziehst vom Stapel.", "You draw from the stock."),
    ("runfast", {"kind": "pass", "seat": 0}, "Du passt.", "You pass."),
    ("climbing", {"kind": "pass", "seat": 0}, "Du passt.", "You pass."),
])
def test_own_moves_are_told_in_the_second_person(game, event, de, en):
    """Issue 17, item 13: a player's own move in their move list says "Du …", not their name;
    everybody else's moves, and the group's shared table, keep the names."""
    from chatbot.i18n import Names
    from chatbot.presenters import presenter

    p = presenter(game)
    mine = Names(["Ida", "Ben"], you=0)
    assert p.event_text(event, mine, "de") == de
    assert p.event_text(event, mine, "en") == en
    theirs = Names(["Ida", "Ben"], you=1)
    assert "Ida" in p.event_text(event, theirs, "de")
    assert "Ida" in p.event_text(event, ["Ida", "Ben"], "en")


def test_run_fast_deals_hands_the_other_games_rounds():
    """Issue 17, item 13: "Hand" and "Runde" consistent - Run Fast's rule sheet deals hands
    ("Hand 2 von 4"), so its between-deals button and log say "Hand" too."""
    from chatbot.views import unit_key
    from storage.models import GameTable

    hand, rnd = GameTable(game="runfast"), GameTable(game="scat")
    assert tr("de", unit_key(hand, "next_round")) == "Nächste Hand"
    assert tr("en", unit_key(hand, "next_round")) == "Next hand"
    assert tr("de", unit_key(rnd, "next_round")) == "Nächste Runde"
    assert tr("de", unit_key(hand, "between_rounds")).startswith("Die Hand ist vorbei")
    assert tr("de", unit_key(hand, "log_title"), game="Run Fast") == \
        "📜 Run Fast, alle Züge dieser Hand:"
    assert tr("de", unit_key(rnd, "log_empty")) == "📜 In dieser Runde ist noch nichts passiert."
    assert engine_reason("de", "the hand is still being played") == "die Hand läuft noch"


def test_card_counts_and_points_read_alike_in_every_game():
    """Issue 17, item 13: one style for card counts and points ("5 Karten · 3 Pkt.", "1 Karte";
    the climbing game said "Karten: 5 · 3 P.")."""
    for key in ("cl.cards", "rf.cards"):
        assert [tr("de", key, n=n) for n in (1, 5)] == ["1 Karte", "5 Karten"]
        assert [tr("en", key, n=n) for n in (1, 5)] == ["1 card", "5 cards"]
    for key in ("cl.points", "rf.points"):
        assert [tr("de", key, n=n) for n in (1, 5)] == ["1 Pkt.", "5 Pkt."]
        assert [tr("en", key, n=n) for n in (1, 5)] == ["1 pt", "5 pts"]


def test_a_closed_lobby_is_no_cards_hint():
    """Issue 18, item 6: /stop on a lobby told the players "I'll send you your cards and moves
    privately"; a closed table says it is closed."""
    import fsm
    from chatbot.views import render_private
    from storage.models import GameTable, Seat

    table = GameTable(id=3, game="schwimmen", fsm_state=fsm.ABANDONED, seed=1, chat_id=1)
    seat = Seat(table_id=3, seat_no=0, name="Ida")
    model = fsm.TableModel.__new__(fsm.TableModel)
    model.engine_state = None
    view = render_private(table, [seat], model, seat, "de", single=False)
    assert view.text == "🃏 Schwimmen\nTisch beendet." and not view.rows
