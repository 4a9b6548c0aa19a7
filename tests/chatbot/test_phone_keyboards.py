"""Issue 17, items 12 and 16 at the presenter level: keyboards fit a phone (at most 4 buttons
a row, short labels), Run Fast's triple with two is chosen in two steps, and the option codes
of the private game menu."""

from __future__ import annotations

import random

import pytest

from chatbot.presenters import PRESENTERS
from chatbot.presenters import climbing as CP
from chatbot.presenters import runfast as RP
from chatbot.presenters import schwimmen as SP
from chatbot.service.core import menus
from engine import GAMES
from engine import climbing as C
from engine import runfast as R
from engine.cards import parse_cards
from engine.protocol import TURN

OPTIONS = {"schwimmen": {}, "scat": {"four_cards": True}, "runfast": {"hands": 4},
           "climbing": {}}


def _check_rows(rows: list[list[tuple[str, str]]]) -> None:
    for row in rows:
        assert 1 <= len(row) <= 4, row
        for label, code in row:
            assert len(f"v1:2147483647:2147483647:{code}".encode()) <= 64, code
            assert len(label) <= 24 or len(row) == 1, label


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_keyboard_has_at_most_four_buttons_a_row(game_id: str) -> None:
    game, p = GAMES[game_id], PRESENTERS[game_id]
    rng = random.Random(17)
    seats = 4 if game_id == "climbing" else 3
    state = game.new_game(seats, OPTIONS[game_id], 1717)
    for _ in range(400):
        if game.is_over(state):
            break
        seat = game.to_act(state)
        if seat is not None:
            for lang in ("de", "en"):
                rows = p.action_buttons(state, seat, lang, ui={})
                _check_rows(rows)
            ui_press = getattr(p, "ui_press", None)
            ui: dict = {}
            for _ in range(3):  # a few selection steps: every step's keyboard fits too
                steps = [c[3:] for row in p.action_buttons(state, seat, "en", ui=ui)
                         for _, c in row if c.startswith("ui.")]
                if not steps or ui_press is None:
                    break
                try:
                    ui, action, _ = ui_press(state, seat, ui, rng.choice(steps), "en")
                except ValueError:
                    break
                if action is not None:
                    break
                _check_rows(p.action_buttons(state, seat, "de", ui=ui))
        legal = list(game.legal_actions(state))
        state, _ = game.apply(state, legal[int(rng.random() * len(legal))])


def _state_with(hand: str, table: str | None) -> R.State:
    """Seat 0 to lead (or to beat ``table``) with ``hand``."""
    hands = (R.mask_of(parse_cards(hand)),
             R.mask_of(parse_cards("10C 10D")), R.mask_of(parse_cards("JC JD")))
    state = R.new_game(3, seed=5)._replace(hands=hands, to_act=0, table=None, table_mask=0,
                                           table_seat=None)
    if table is None:
        return state
    mask = R.mask_of(parse_cards(table))
    return state._replace(table=R.interpret(mask, False), table_mask=mask, table_seat=2)


def _triple_state(table: str | None) -> R.State:
    return _state_with("3C 3S 4H 4D 5C 6S 7H 8D 9C 9S 9H KD KC 2S QC QD", table)


def _taps_to_play(state: R.State, cards: str) -> int:
    """Taps a player needs for ``cards`` (a triple with two) by the buttons shown."""
    want = R.play(cards).code
    target = {c.code for c in parse_cards(cards)}
    ui: dict = {}
    for taps in range(1, 10):
        codes = [c for row in RP.action_buttons(state, 0, "de", ui=ui) for _, c in row]
        if want in codes:
            return taps
        tt = [c for c in codes if c.startswith("ui.tt.")]
        kick = [c for c in codes if c.startswith("ui.x.") and c[5:] in target
                and c[5:] not in (ui.get("x") or [])]
        nines = f"ui.tt.{R.CARD_POWER[parse_cards('9C')[0].id]}"
        step = kick[0] if kick else nines if nines in tt else "ui.k.triple_two"
        ui, action, _ = RP.ui_press(state, 0, ui, step[3:], "de")
        if action is not None:
            assert action == want
            return taps
    raise AssertionError("not reached")


def test_a_triple_with_two_takes_at_most_four_taps() -> None:
    assert _taps_to_play(_triple_state(None), "9C 9S 9H 3C KD") == 4  # tab, triple, 2 kickers
    beat = _triple_state("5C 5S 5H 3D 4C")
    assert _taps_to_play(beat, "9C 9S 9H 3C KD") == 3  # the tab is the table's kind
    nines = R.CARD_POWER[parse_cards("9C")[0].id]
    assert RP.action_buttons(beat, 0, "en") == [
        [("9♣ 9♠ 9♥ +2", f"ui.tt.{nines}")],
        [("• 3+2", "ui.k.triple_two"), ("✋ Pick", "ui.k.sel")]]
    # German tabs: short, four a row, the chosen one marked
    tabs = [label for row in RP.action_buttons(_triple_state(None), 0, "de") for label, c in row
            if c.startswith("ui.k.")]
    assert tabs[:5] == ["• Einzel", "Paare", "Paarfolge", "Straße", "3+2"]
    assert tabs[-1] == "✋ Wählen"


def test_a_kicker_that_is_not_offered_is_refused() -> None:
    state = _triple_state(None)
    ui, _, _ = RP.ui_press(state, 0, {}, "k.triple_two", "de")
    power = R.CARD_POWER[parse_cards("9C")[0].id]
    ui, _, _ = RP.ui_press(state, 0, ui, f"tt.{power}", "de")
    for bad, text in (("x.9C", "Beikarte"), ("x.AS", "nicht")):
        with pytest.raises(ValueError, match=text):
            RP.ui_press(state, 0, ui, bad, "de")


def test_climbing_offers_only_pass_when_nothing_beats() -> None:
    state = C.new_game(4, {}, 3)
    rng = random.Random(3)
    seen = 0
    for _ in range(3000):
        if C.is_over(state):
            state = C.new_game(4, {}, rng.randrange(10**6))
        seat = C.to_act(state)
        if state.phase == TURN and seat is not None:
            legal = list(C.legal_actions(state))
            if [a.code for a in legal] == ["pass"]:
                assert CP.action_buttons(state, seat, "de") == [[("Passen", "pass")]]
                assert CP.action_buttons(state, seat, "en") == [[("Pass", "pass")]]
                seen += 1
                if seen >= 3:
                    return
        legal = list(C.legal_actions(state))
        state, _ = C.apply(state, legal[int(rng.random() * len(legal))])
    assert seen, "no position where nothing beats"


def test_the_currency_button_has_a_label() -> None:
    assert SP.currency_label("coins", "de") == "Währung: Münzen 🪙"
    assert SP.currency_label("euro", "en") == "Currency: €"


def test_private_menu_option_codes() -> None:
    assert menus._choices("schwimmen") == [("currency", ["coins", "euro", "matches"])]
    assert menus._options_code("runfast", {"hands": 8}) == "1"
    assert menus._options_from("runfast", "1") == {"hands": 8}
    assert menus._options_from("schwimmen", "2") == {"currency": "matches"}
    assert menus._options_from("scat", "0-0-0-1")["four_cards"] is True  # type: ignore[index]
    for game_id, bad in (("climbing", "7"), ("climbing", "0-0"), ("scat", "0"), ("runfast", "x"),
                         ("runfast", ""), ("runfast", "١")):
        assert menus._options_from(game_id, bad) is None, (game_id, bad)
    assert menus._table_options({"currency": "euro"}) == {"currency": "euro"}
    assert menus._table_options({"hands": 8}) == {"engine": {"hands": 8}}
    assert menus._table_options(None) is None
    for game_id in GAMES:  # the longest menu button fits the 64 bytes
        code = menus._options_code(game_id, {})
        for level in ("anfaenger", "experte"):
            assert len(f"v1:0:0:g.{game_id}.6.{level}.ok.{code}".encode()) <= 64


def _plane_state(table: str | None) -> R.State:
    return _state_with("3C 3S 4H 5C 5S 5H 6C 6S 6H 8D 9C 10S JH QD KC 2S", table)


def test_an_airplane_is_chosen_by_its_triples_then_its_kickers() -> None:
    """Issue 17, item 12: an airplane (two triples in a row and four kickers) was a paged list
    of hundreds of plays; now its triples are one button, then the four kickers card by card."""
    state = _plane_state("3D 3H 3C 4C 4S 4D 7C 7S 8C 8S")  # 333 444 + 4 to beat
    plays = [a.code for a in R.legal_actions(state) if a.code != "pass"]
    assert len(plays) > 100  # ... every choice of four kickers
    rows = RP.action_buttons(state, 0, "en")
    six = R.CARD_POWER[parse_cards("6C")[0].id]
    assert rows[0] == [("5♣ 5♠ 5♥ 6♣ 6♠ 6♥ +4", f"ui.ta.2.{six}")]
    ui, action, _ = RP.ui_press(state, 0, {}, f"ta.2.{six}", "de")
    assert action is None
    rows = RP.action_buttons(state, 0, "de", ui=ui)
    assert rows[0] == [("◀ 5♣ 5♠ 5♥ 6♣ 6♠ 6♥ + 4 Beikarten:", "ui.k.airplane")]
    kickers = [c[5:] for row in rows for _, c in row if c.startswith("ui.x.")]
    assert "3C" in kickers and "5C" not in kickers
    ui, action, answer = RP.ui_press(state, 0, ui, "x.3C", "de")
    assert answer == "5♣ 5♠ 5♥ 6♣ 6♠ 6♥ + 3♣ – noch 3 Beikarten"
    ui, action, answer = RP.ui_press(state, 0, ui, "x.3S", "en")
    assert answer == "5♣ 5♠ 5♥ 6♣ 6♠ 6♥ + 3♣ 3♠ – 2 more kickers"
    ui, action, answer = RP.ui_press(state, 0, ui, "x.KC", "de")
    assert answer.endswith("noch 1 Beikarte") and action is None
    ui, action, _ = RP.ui_press(state, 0, ui, "x.2S", "de")
    assert action == R.play("5C 5S 5H 6C 6S 6H 3C 3S KC 2S").code and ui == {}
    assert action in plays
    _check_rows(RP.action_buttons(state, 0, "de", ui={"k": "airplane", "t": f"2.{six}"}))
