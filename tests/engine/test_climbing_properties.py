"""Climbing game: invariants over random seeds, options and random legal play to the game's end
(54 cards conserved, 3+2+1+0 points a round, targets only rise, observations hide other hands,
exact JSON round trip, replay from seed + move codes), and complete games with the CPU players."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import GAMES
from engine import climbing as C
from engine.bots import get_bot
from engine.cards import Card
from engine.protocol import EXCHANGE, FINISHED, PAYOUT, PHASES, TURN
from tests.conftest import joker_codes

MAX_MOVES = 50_000
DECK = sorted(C.DECK)
TARGETS = (21, 31, 41, 51)


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


def choose(state: C.State, rng: random.Random, policy: str, bots):
    legal = C.legal_actions(state)
    if policy == "uniform" or state.phase == PAYOUT:
        return rng.choice(legal)
    if policy == "by_kind":  # first a kind, then an action of that kind
        kind = rng.choice(sorted({a.kind for a in legal}))
        return rng.choice([a for a in legal if a.kind == kind])
    seat = state.to_act
    return bots[seat].choose(C.observation(state, seat), rng)


def check_state(state: C.State) -> None:
    ph = C.phase(state)
    assert ph in PHASES and ph in (EXCHANGE, TURN, PAYOUT, FINISHED)
    # the 54 cards are conserved: in the hands or played this round
    assert sorted([c for h in state.hands for c in h] + list(state.played)) == DECK
    for h in state.hands:
        assert h == C.sort_cards(h)
    assert state.target in TARGETS
    active = state.active
    if ph in (TURN, EXCHANGE):
        assert len(active) >= 2
        assert state.to_act in active
        assert set(state.out_order) == {s for s in range(4) if not state.hands[s]}
        legal = C.legal_actions(state)
        assert legal and C.DEAL not in legal
        if ph == EXCHANGE:
            assert all(a.kind == "give" for a in legal)
            assert state.exchange.status == "pending" and state.to_act == state.exchange.first
        else:
            assert (C.PASS in legal) == (state.table is not None)
            if state.table is not None:
                assert state.owner is not None and state.owner != state.to_act
                assert not state.passed[state.to_act]
            assert all(a.is_play for a in legal if a is not C.PASS)
        assert state.result is None and state.winners == ()
    elif ph == PAYOUT:
        assert state.to_act is None and C.legal_actions(state) == (C.DEAL,)
        assert len(active) == 1 and state.winners == ()
    else:
        assert C.is_over(state) and state.to_act is None and C.legal_actions(state) == ()
        assert state.winners and state.result.winners == state.winners
    if ph in (PAYOUT, FINISHED):
        r = state.result
        assert sorted(r.points) == [0, 1, 2, 3]  # 3 + 2 + 1 + 0 each round
        assert [r.points[s] for s in r.order] == [3, 2, 1, 0]
        assert r.scores == state.scores
        assert r.new_target >= r.target


def check_hidden(state: C.State) -> None:
    """Nothing hidden leaks through observations or the public view."""
    hands = [set(h) for h in state.hands]
    ex = state.exchange
    for seat in range(4):
        obs = C.observation(state, seat)
        seen = cards_in(obs)
        assert obs.visible_cards() <= seen
        assert obs.hand == state.hands[seat]
        assert obs.counts == tuple(len(h) for h in state.hands)
        assert obs.legal == (C.legal_actions(state) if seat == state.to_act else ())
        others = set().union(*(hands[s] for s in range(4) if s != seat))
        allowed = set()
        if ex is not None and seat in (ex.first, ex.last):
            allowed = {c for c in (ex.given, ex.back) if c is not None}
        assert seen & others <= allowed, "an observation shows another player's card"
    view = C.public_view(state)
    seen = cards_in(view)
    assert not seen & set().union(*hands)
    assert C.hidden_cards(state) == set().union(*hands)
    assert not C.hidden_cards(state) & view.visible_cards()


def play_game(options, seed: int, play_seed: int, policy: str):
    """Play to the end, checking every step; returns the move codes and the final state."""
    state = C.new_game(4, options, seed)
    rng = random.Random(play_seed)
    bots = [get_bot("climbing", lv) for lv in ("anfaenger", "normal", "anfaenger", "normal")]
    log: list[str] = []
    total = 0
    check_state(state)
    check_hidden(state)
    for _ in range(MAX_MOVES):
        if C.is_over(state):
            break
        action = choose(state, rng, policy, bots)
        before_json = C.to_json(state)
        new, events = C.apply(state, action.code)
        assert C.to_json(state) == before_json  # the old state is untouched
        assert events
        for e in events:
            json.dumps(e.to_dict())
        if action is C.DEAL:
            assert new.round_no == state.round_no + 1
            assert new.dealer == (state.dealer + 1) % 4
            assert new.target == state.target and new.scores == state.scores
        if new.phase in (PAYOUT, FINISHED) and state.phase == TURN:
            total += 6
            assert sum(new.scores) == total
            assert new.target >= state.target  # targets only rise
            assert new.target in (state.target, state.target + 10)
        state = new
        log.append(action.code)
        check_state(state)
        check_hidden(state)
        assert C.from_json(C.to_json(state)) == state
    else:
        raise AssertionError("game did not end")
    return log, state


def replay(options, seed: int, log: list[str]) -> C.State:
    state = C.new_game(4, options, seed)
    for code in log:
        state, _ = C.apply(state, code)
    return state


@settings(max_examples=12, deadline=None)
@given(
    options=st.sampled_from([None, {}, {"straight_step": "exact"}, {"straight_step": "any"}]),
    seed=st.integers(0, 2**53),
    play_seed=st.integers(0, 2**32),
    policy=st.sampled_from(["uniform", "by_kind", "bots"]),
)
def test_random_play_keeps_invariants_and_replays(options, seed, play_seed, policy):
    log, final = play_game(options, seed, play_seed, policy)
    assert final.phase == FINISHED
    winners = C.winners(final)
    assert winners
    top = max(final.scores)
    if len(winners) > 1:
        assert final.target == 51
        assert all(final.scores[w] == top for w in winners)
    else:
        assert final.scores[winners[0]] >= final.target
    assert replay(options, seed, log) == final  # the seed and the move codes are the game


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**53))
def test_new_game_is_a_function_of_the_seed(seed):
    a, b = C.new_game(4, seed=seed), C.new_game(4, seed=seed)
    assert a == b and C.to_json(a) == C.to_json(b)
    assert C.from_json(C.to_json(a)) == a
    check_state(a)
    check_hidden(a)


def test_from_json_rejects_other_games_and_garbage():
    with pytest.raises(C.GameError):
        C.from_json(GAMES["schwimmen"].to_json(GAMES["schwimmen"].new_game(3, seed=1)))
    with pytest.raises(C.GameError):
        C.from_json('{"game": "climbing"}')


@pytest.mark.parametrize("levels", [("anfaenger",) * 4, ("normal",) * 4,
                                    ("anfaenger", "normal", "anfaenger", "normal")])
def test_random_complete_games_with_cpu_players(levels):
    for seed in range(8):
        state = C.new_game(4, seed=seed)
        bots = [get_bot("climbing", lv) for lv in levels]
        rng = random.Random(seed)
        for _ in range(MAX_MOVES):
            if C.is_over(state):
                break
            if state.phase == PAYOUT:
                state, _ = C.apply(state, "deal")
                continue
            seat = state.to_act
            obs = C.observation(state, seat)
            action = bots[seat].choose(obs, rng)
            assert action in obs.legal
            state, _ = C.apply(state, action)
        else:
            raise AssertionError("game did not end")
        assert C.winners(state)
        assert sum(state.scores) == 6 * state.round_no


def test_random_complete_games_uniform_many_seeds():
    rounds = 0
    for seed in range(40):
        state = C.new_game(4, seed=seed, options={"straight_step": ("exact", "any")[seed % 2]})
        rng = random.Random(seed)
        for _ in range(MAX_MOVES):
            if C.is_over(state):
                break
            state, _ = C.apply(state, rng.choice(C.legal_actions(state)))
        else:
            raise AssertionError("game did not end")
        rounds += state.round_no
        assert sum(state.scores) == 6 * state.round_no
        assert state.round_no >= 7  # 21 points take at least seven rounds
    assert rounds >= 40 * 7


# ---------------------------------------------------------------------------------------------
# the chat presenter: nothing hidden in group lines, every button a legal move or a UI step


def _shown_cards(text: str) -> set[Card]:
    import re

    from engine.cards import BY_CODE

    found = {BY_CODE[m.group(0)] for m in re.finditer(r"(?<![0-9A-Za-z])(10|[2-9JQKA])[♣♠♥♦]",
                                                       text)}
    found |= {BY_CODE[j] for j in joker_codes(text)}
    return found


def test_presenter_never_shows_hidden_cards_and_buttons_are_legal():
    from chatbot.presenters import PRESENTERS
    from chatbot.presenters import climbing as P

    assert PRESENTERS["climbing"] is P
    names = ["Ann", "Bob", "Cid", "Dee"]
    for seed in range(6):
        state = C.new_game(4, {"straight_step": ("exact", "any")[seed % 2]}, seed=seed)
        bots = [get_bot("climbing", "normal") for _ in range(4)]
        rng = random.Random(seed)
        log: list[dict] = []
        while not C.is_over(state):
            hands = [set(h) for h in state.hands]
            ex = state.exchange
            for lang in ("de", "en"):
                public = "\n".join(P.public_lines(state, names, lang, {}, [""] * 4)
                                   + [t for t in (P.event_text(e, names, lang) for e in log)
                                      if t])
                assert not _shown_cards(public) & set().union(*hands)
                for seat in range(4):
                    private = "\n".join(P.private_lines(state, seat, lang))
                    others = set().union(*(hands[s] for s in range(4) if s != seat))
                    allowed = {c for c in (ex.given, ex.back) if c is not None} \
                        if ex is not None and seat in (ex.first, ex.last) else set()
                    assert _shown_cards(private) & others <= allowed
            seat = state.to_act
            if state.phase == PAYOUT:
                assert P.result_lines(state, names, "de", {})
                state, events = C.apply(state, "deal")
                log = [e.to_dict() for e in events]
                continue
            rows = P.action_buttons(state, seat, "en", {})
            legal = {a.code for a in C.legal_actions(state)}
            for row in rows:
                assert len(row) <= 4  # a phone: at most 4 buttons a row
                for label, code in row:
                    assert len(f"v1:9999999:999999:{code}".encode()) <= 64
                    assert code in legal or code.startswith("ui.")
                    if not code.startswith("ui."):
                        assert not _shown_cards(label) & (set().union(*hands) - hands[seat])
            assert not any(P.action_buttons(state, s, "en", {}) for s in range(4) if s != seat)
            action = bots[seat].choose(C.observation(state, seat), rng)
            if action.is_play and rng.random() < 0.5:  # pick it card by card instead
                ui: dict = {}
                for c in action.cards:
                    ui, code, _ = P.ui_press(state, seat, ui, f"t.{c.code}", "de")
                    assert code is None
                ui, code, _ = P.ui_press(state, seat, ui, "play", "de")
                assert code == action.code
            state, events = C.apply(state, action)
            log = (log + [e.to_dict() for e in events])[-6:]
        lines = P.result_lines(state, names, "en", {})
        assert any("🏆" in line for line in lines)
        assert P.winners(state) == C.winners(state)
        assert [s["points"] for s in P.standings(state, names)] == list(state.scores)


def test_presenter_selection_steps_and_refusals():
    from chatbot.presenters import climbing as P

    state = C.new_game(4, seed=3)
    seat = state.to_act
    hand = state.hands[seat]
    ui, code, _ = P.ui_press(state, seat, {}, "k.sel", "de")
    assert code is None and ui["k"] == "sel"
    rows = P.action_buttons(state, seat, "de", ui)
    assert [c for row in rows for _, c in row if c.startswith("ui.t.")] == [
        f"ui.t.{c.code}" for c in hand]
    with pytest.raises(ValueError):
        P.ui_press(state, seat, ui, "play", "de")  # nothing picked
    other = next(c for c in C.DECK if c not in hand)
    with pytest.raises(ValueError):
        P.ui_press(state, seat, ui, f"t.{other.code}", "de")
    not_3s = next(c for c in hand if c is not C.THREE_OF_SPADES)
    ui, _, _ = P.ui_press(state, seat, ui, f"t.{not_3s.code}", "de")
    with pytest.raises(ValueError, match="3♠"):
        P.ui_press(state, seat, ui, "play", "de")
    ui, _, _ = P.ui_press(state, seat, ui, "clear", "de")
    assert ui["s"] == []
    ui, _, answer = P.ui_press(state, seat, ui, "t.3S", "en")
    assert "single" in answer
    ui, code, _ = P.ui_press(state, seat, ui, "play", "en")
    assert code == "3S" and ui == {}
    for bad in ("zzz", "k.nonsense", "p.x", "t.", "play.now"):
        with pytest.raises(ValueError):
            P.ui_press(state, seat, {}, bad, "de")
    with pytest.raises(ValueError):
        P.ui_press(state, (seat + 1) % 4, {}, "k.sel", "de")  # not on turn
    # paging through a long list of plays
    ui, _, _ = P.ui_press(state, seat, {}, "k.single", "de")
    ui, _, _ = P.ui_press(state, seat, ui, "p.99", "de")
    assert P.action_buttons(state, seat, "de", ui)  # clamped to the last page
    assert P.option_label("straight_step", "any", "de") != P.option_label(
        "straight_step", "exact", "de")
    assert P.OPTION_CHOICES["straight_step"][0] == C.DEFAULT_OPTIONS["straight_step"]
    assert "3♠" in P.rules("de") and "3♠" in P.rules("en")


def test_jokers_are_named_as_the_rules_name_them():
    """Issue 17, item 7: the jokers show as "🃏 schwarzer Joker" / "🃏 roter Joker" (English:
    black/red joker; on buttons short: "🃏 schwarz"), never as the codes BJ/RJ."""
    from chatbot.presenters import climbing as P

    names = ["Ann", "Bob", "Cid", "Dee"]
    seen: dict[str, set[str]] = {"de": set(), "en": set()}
    labels: set[str] = set()
    for seed in range(4):
        state = C.new_game(4, {}, seed=seed)
        bots = [get_bot("climbing", "normal") for _ in range(4)]
        rng = random.Random(seed)
        log: list[dict] = []
        while not C.is_over(state) and state.round_no < 3:
            for lang in ("de", "en"):
                texts = P.public_lines(state, names, lang, {}, [""] * 4) + [
                    t for t in (P.event_text(e, names, lang) for e in log) if t]
                texts += [line for s in range(4) for line in P.private_lines(state, s, lang)]
                for text in texts:
                    assert "BJ" not in text and "RJ" not in text, text
                    for name in ("schwarzer Joker", "roter Joker", "black joker", "red joker"):
                        if name in text:
                            seen[lang].add(name)
            if state.phase == PAYOUT:
                state, events = C.apply(state, "deal")
                log = [e.to_dict() for e in events]
                continue
            seat = state.to_act
            for lang in ("de", "en"):
                for row in P.action_buttons(state, seat, lang, {"tab": "sel"}) \
                        + P.action_buttons(state, seat, lang, {}):
                    for label, _ in row:
                        assert "BJ" not in label and "RJ" not in label, label
                        labels.update(w for w in ("🃏 schwarz", "🃏 rot", "🃏 black", "🃏 red")
                                      if w in label)
            action = bots[seat].choose(C.observation(state, seat), rng)
            state, events = C.apply(state, action.code)
            log = [e.to_dict() for e in events]
    assert seen == {"de": {"schwarzer Joker", "roter Joker"},
                    "en": {"black joker", "red joker"}}
    assert labels == {"🃏 schwarz", "🃏 rot", "🃏 black", "🃏 red"}
