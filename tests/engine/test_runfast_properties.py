"""Run Fast: invariants over random seeds and random (or CPU) play to the end of the match:
48 cards conserved, scores sum to zero, observations never show another hand, JSON round trip,
replay from seed and move log."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections.abc import Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import runfast as R
from engine.bots import get_bot
from engine.cards import Card, parse_cards
from engine.protocol import FINISHED, PAYOUT, PHASES, TURN

MAX_MOVES = 5_000
DECK = frozenset(R.DECK)


def cards_in(obj) -> set[Card]:
    """Every card reachable from ``obj`` (dataclass fields, tuples, lists, sets, dicts)."""
    found: set[Card] = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, Card):
            found.add(x)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))
        elif isinstance(x, Mapping):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (tuple, list, set, frozenset)):
            stack.extend(x)
    return found


def check_state(state: R.State, before: R.State | None) -> None:
    ph = R.phase(state)
    assert ph in PHASES
    assert sum(state.scores) == 0
    hands = state.hands
    # the 48 cards: in the hands or played, each exactly once
    assert not hands[0] & hands[1] and not hands[0] & hands[2] and not hands[1] & hands[2]
    assert not state.played & (hands[0] | hands[1] | hands[2])
    assert hands[0] | hands[1] | hands[2] | state.played == R.DECK_MASK
    bomb_points = [0, 0, 0]
    for who, _power in state.bombs:
        for s in range(3):
            bomb_points[s] += 10 if s == who else -5
    if ph == TURN:
        assert all(h for h in hands)
        assert state.to_act in (0, 1, 2)
        legal = R.legal_actions(state)
        assert len(legal) >= 1
        if state.table is None:
            assert R.PASS not in legal
        else:
            assert state.table_seat is not None and state.table_seat != state.to_act
            assert R.interpret(state.table_mask, True) is not None
        assert state.result is None and state.winners == ()
    elif ph == PAYOUT:
        assert state.to_act is None and list(R.legal_actions(state)) == [R.DEAL]
        r = state.result
        assert r is not None and hands[r.winner] == 0
        assert state.winners == ()
    else:
        assert R.is_over(state) and state.to_act is None and list(R.legal_actions(state)) == []
        top = max(state.scores)
        assert state.winners == tuple(s for s in range(3) if state.scores[s] == top)
        assert state.round_no == state.hands_total
    if state.result is not None:
        r = state.result
        assert sum(r.delta) == 0 and r.totals == state.scores
        assert list(r.bombs) == bomb_points
        for s in range(3):
            if s != r.winner:
                n = len(r.left[s])
                assert r.paid[s] == (2 * n if n == 16 else n)
                assert r.shut_out[s] == (n == 16)
        assert r.paid[r.winner] == 0


def check_hidden(state: R.State) -> None:
    """Nothing hidden leaks through observations or the public view."""
    in_play = state.phase == TURN
    hidden = R.hidden_cards(state)
    for seat in range(3):
        obs = R.observation(state, seat)
        seen = cards_in(obs)
        assert obs.visible_cards() <= seen | set(obs.played)
        assert set(obs.hand) == set(R.cards_of(state.hands[seat]))
        assert obs.counts == tuple(h.bit_count() for h in state.hands)
        if in_play:
            others = {c for s in range(3) if s != seat for c in R.cards_of(state.hands[s])}
            assert not seen & others
            assert hidden - set(obs.hand) == others
            for action in obs.legal:  # the legal plays hold own cards only
                assert not action.mask & ~state.hands[seat]
            assert (len(obs.legal) > 0) == (seat == state.to_act)
    view = R.public_view(state)
    seen = cards_in(view)
    if in_play:
        assert not seen & hidden
        assert seen == set(R.cards_of(state.played))
    else:
        assert hidden == set()


def play_match(options, seed: int, play_seed: int, policy: str, check: bool = True):
    """Play a match to the end, checking every step; returns the codes and the final state."""
    state = R.new_game(3, options, seed)
    rng = random.Random(play_seed)
    bots = [get_bot("runfast", lv) for lv in ("anfaenger", "normal")]  # Experte: test_bots.py
    log: list[str] = []
    if check:
        check_state(state, None)
        check_hidden(state)
    for _ in range(MAX_MOVES):
        if R.is_over(state):
            break
        legal = R.legal_actions(state)
        if policy == "uniform" or state.to_act is None:
            action = legal[int(rng.random() * len(legal))]
        elif policy == "by_kind":
            kinds = sorted({f.kind for f in getattr(legal, "families", [])}) or [legal[0].kind]
            kind = rng.choice(kinds)
            action = rng.choice([a for a in legal if a.kind == kind])
        else:
            bot = bots[state.to_act % len(bots)]
            action = bot.choose(R.observation(state, state.to_act), rng)
            assert action in legal
        before_json = R.to_json(state)
        new, events = R.apply(state, action.code)
        assert R.to_json(state) == before_json  # the old state is untouched
        assert events
        for e in events:
            json.dumps(e.to_dict())
        if action is R.DEAL:
            assert new.round_no == state.round_no + 1
            assert new.to_act == state.result.winner
        else:
            assert new.round_no == state.round_no
        if check:
            check_state(new, state)
            check_hidden(new)
            assert R.from_json(R.to_json(new)) == new
        state = new
        log.append(action.code)
    else:
        raise AssertionError("match did not end")
    return log, state


@settings(max_examples=20, deadline=None)
@given(
    options=st.sampled_from([None, {}, {"hands": 4}, {"hands": 8}]),
    seed=st.integers(0, 2**53),
    play_seed=st.integers(0, 2**32),
    policy=st.sampled_from(["uniform", "by_kind", "bots"]),
)
def test_random_matches_keep_invariants_and_replay(options, seed, play_seed, policy):
    log, final = play_match(options, seed, play_seed, policy)
    assert final.phase == FINISHED
    assert final.round_no == (options or {}).get("hands", 4)
    assert sum(final.scores) == 0
    state = R.new_game(3, options, seed)
    for code in log:
        state, _ = R.apply(state, code)
    assert state == final
    assert R.to_json(state) == R.to_json(final)


def test_many_random_complete_matches():
    for seed in range(30):
        _, final = play_match({"hands": 4}, seed, seed, ["uniform", "bots"][seed % 2],
                              check=False)
        assert final.phase == FINISHED and sum(final.scores) == 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**53))
def test_new_game_is_a_function_of_the_seed(seed):
    a = R.new_game(3, seed=seed)
    assert a == R.new_game(3, seed=seed)
    assert R.from_json(R.to_json(a)) == a
    check_state(a, None)
    check_hidden(a)


@settings(max_examples=200, deadline=None)
@given(cards=st.lists(st.sampled_from(R.DECK), min_size=1, max_size=16, unique=True),
       final=st.booleans())
def test_classify_is_order_free_and_matches_interpret(cards, final):
    combo = R.classify(cards, final=final)
    assert combo == R.classify(list(reversed(cards)), final=final)
    key = R.interpret(R.mask_of(cards), final)
    assert (combo is None) == (key is None)
    if combo is not None:
        assert combo.key == key and set(combo.cards) == set(cards)
        if not final:  # a normal combination is a final one too
            assert R.classify(cards, final=True) == combo


# --------------------------------------------------------------------------------- presenter

_CARD_RE = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♣♠♥♦])")


def symbols(text: str) -> set[str]:
    return {a + b for a, b in _CARD_RE.findall(text)}


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**53), play_seed=st.integers(0, 2**32))
def test_presenter_public_text_never_shows_a_hidden_card(seed, play_seed):
    from chatbot.presenters import runfast as P

    names = ["Anna", "Bernd", "Clara"]
    state = R.new_game(3, None, seed)
    rng = random.Random(play_seed)
    while not R.is_over(state):
        legal = R.legal_actions(state)
        state, events = R.apply(state, legal[int(rng.random() * len(legal))])
        hidden = {c.symbol for c in R.hidden_cards(state)}
        for lang in ("de", "en"):
            public = P.public_lines(state, names, lang, {}, ["", "", ""])
            public += [P.event_text(e.to_dict(), names, lang) or "" for e in events]
            public += P.result_lines(state, names, lang, {})
            assert not symbols("\n".join(public)) & hidden
            if state.phase == TURN:
                seat = state.to_act
                own = {c.symbol for c in R.cards_of(state.hands[seat])}
                private = P.private_lines(state, seat, lang)
                rows = P.action_buttons(state, seat, lang)
                assert all(len(row) <= 4 for row in rows)  # a phone: at most 4 a row
                private += [label for row in rows for label, _ in row]
                assert not symbols("\n".join(private)) & (hidden - own)
                other = (seat + 1) % 3
                assert P.action_buttons(state, other, lang) == []


def _ui_state() -> R.State:
    hands = (R.mask_of(parse_cards("3C 3S 4H 4D 5C 6S 7H 8D 9C 9S 9H KD KC 2S")),
             R.mask_of(parse_cards("10C 10D")), R.mask_of(parse_cards("JC JD")))
    return R.new_game(3, seed=5)._replace(hands=hands, to_act=0, table=None, table_mask=0,
                                          table_seat=None)


def test_presenter_buttons_offer_plays_by_kind_paged_and_pick_cards():
    from chatbot.presenters import runfast as P

    state = _ui_state()
    rows = P.action_buttons(state, 0, "de")
    codes = [code for row in rows for _, code in row]
    legal = {a.code for a in R.legal_actions(state)}
    plays = [c for c in codes if not c.startswith("ui.")]
    assert len(plays) == P.PAGE and set(plays) <= legal
    assert "ui.p.1" in codes and "ui.k.pair" in codes and "ui.k.sel" in codes
    labels = [label for row in rows for label, _ in row]
    assert "3♣" in labels  # the cards are spelled out
    ui, action, _ = P.ui_press(state, 0, {}, "k.triple_two", "de")
    assert action is None and ui["k"] == "triple_two"
    rows = P.action_buttons(state, 0, "de", ui=ui)
    # a triple with two: the triple first (one button per triple), then its kickers
    assert [r for r in rows if r[0][1].startswith("ui.tt.")] == [[("9♣ 9♠ 9♥ +2", "ui.tt.6")]]
    ui, action, _ = P.ui_press(state, 0, ui, "tt.6", "de")
    rows = P.action_buttons(state, 0, "de", ui=ui)
    assert rows[0] == [("◀ 9♣ 9♠ 9♥ + zwei:", "ui.k.triple_two")]
    kickers = [code for row in rows for _, code in row if code.startswith("ui.x.")]
    assert "ui.x.3C" in kickers and "ui.x.9C" not in kickers and len(kickers) == 11
    ui, action, answer = P.ui_press(state, 0, ui, "x.3C", "en")
    assert action is None and answer == "9♣ 9♠ 9♥ + 3♣ – one more kicker"
    assert ("✅3♣", "ui.x.3C") in P.action_buttons(state, 0, "de", ui=ui)[1]
    ui, action, _ = P.ui_press(state, 0, ui, "x.KD", "de")
    assert action == R.play("9C 9S 9H 3C KD").code and ui == {}
    ui, _, _ = P.ui_press(state, 0, {}, "p.1", "de")
    page2 = [code for row in P.action_buttons(state, 0, "de", ui=ui) for _, code in row
             if not code.startswith("ui.")]
    assert page2 and not set(page2) & set(plays)
    for bad in ("tt.5", "tt.x", "x.3C"):
        try:
            P.ui_press(state, 0, {}, bad, "de")
            raise AssertionError(bad)
        except ValueError:
            pass


def test_presenter_selection_plays_a_legal_play_or_says_why_not():
    from chatbot.presenters import runfast as P

    state = _ui_state()
    ui: dict = {}
    for card in ("9C", "9S", "9H", "3C"):
        ui, action, answer = P.ui_press(state, 0, ui, f"t.{card}", "de")
        assert action is None
    rows = P.action_buttons(state, 0, "de", ui=ui)
    labels = [label for row in rows for label, _ in row]
    assert "✅9♣" in labels and "✅3♣" in labels and "3♠" in labels
    try:
        P.ui_press(state, 0, ui, "play", "de")
        raise AssertionError("a triple with one kicker is no play here")
    except ValueError as exc:
        assert "letzten Karten" in str(exc)
    ui, _, answer = P.ui_press(state, 0, ui, "t.KD", "de")
    assert "Drilling" in answer
    ui, action, _ = P.ui_press(state, 0, ui, "play", "de")
    assert action == R.play("9C 9S 9H 3C KD").code and ui == {}
    ui, _, _ = P.ui_press(state, 0, {"s": ["3C"]}, "clear", "en")
    assert ui["s"] == []
    for bad in ("t.AS", "play", "zzz", "p.x"):
        try:
            P.ui_press(state, 0, {}, bad, "en")
            raise AssertionError(bad)
        except ValueError:
            pass


def test_presenter_pass_is_the_only_button_when_nothing_beats():
    from chatbot.presenters import runfast as P

    state = _ui_state()._replace(table=("single", 1, 12), table_mask=R.mask_of(parse_cards("2S")),
                                 table_seat=2,
                                 hands=(R.mask_of(parse_cards("3C 4D")),
                                        R.mask_of(parse_cards("10C 10D")),
                                        R.mask_of(parse_cards("JC JD"))))
    assert P.action_buttons(state, 0, "de") == [[("Passen", "pass")]]


def test_presenter_hands_option_and_alert_line():
    from chatbot.presenters import runfast as P

    assert P.OPTION_CHOICES == {"hands": [4, 8]}
    assert P.option_label("hands", 8, "de") == "Hände: 8"
    state = _ui_state()._replace(hands=(R.mask_of(parse_cards("3C 4D")),
                                        R.mask_of(parse_cards("10C")),
                                        R.mask_of(parse_cards("JC JD"))))
    lines = P.public_lines(state, ["Anna", "Bernd", "Clara"], "de", {}, ["", "", ""])
    assert "⚠️ Bernd hat nur noch 1 Karte!" in lines
    assert lines[0].endswith("Hand 1 von 4")
