"""Scat: properties over random seeds, seat counts, options and random legal play to the end."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import scat as S
from engine.cards import Card
from engine.protocol import FINAL_ROUND, FINISHED, PAYOUT, PHASES, TURN

MAX_MOVES = 50_000
DECK = frozenset(S.DECK)
OPTION_SETS = [
    None, {}, {"no_first_turn_knock": False}, {"trio_bonus": False}, {"reentry": True},
    {"four_cards": True},
    {"no_first_turn_knock": False, "trio_bonus": False, "reentry": True, "four_cards": True},
]


_SCALARS = frozenset({int, str, bool, float, type(None)})


def cards_in(obj) -> set[Card]:
    """Every card reachable from ``obj`` (dataclass fields, tuples, lists, sets, dicts)."""
    found: set[Card] = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        t = type(x)
        if t is Card:
            found.add(x)
        elif t is tuple or t is list:
            stack.extend(x)
        elif t in _SCALARS:
            continue
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))
        elif isinstance(x, Mapping):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (tuple, list, set, frozenset)):
            stack.extend(x)
    return found


def choose(rng: random.Random, legal, policy: str):
    if policy == "uniform":
        return rng.choice(legal)
    if policy == "no_knock" and S.DRAW in legal:  # long rounds: the stock runs out
        return rng.choice([a for a in legal if a.kind not in ("knock", "pass")])
    kinds = sorted({a.kind for a in legal})  # first a kind, then an action of that kind
    kind = rng.choice(kinds)
    return rng.choice([a for a in legal if a.kind == kind])


def check_state(state: S.State) -> None:
    n = state.seats
    ph = S.phase(state)
    _, trio, _, size = S._flags(state.options)
    assert ph in PHASES
    # 52 cards conserved: hands + discard pile + stock are the 52 distinct cards
    every = [c for h in state.hands for c in h] + list(state.discard) + list(state.stock)
    assert len(every) == 52 and set(every) == DECK
    # tokens: 0..3; 0 = on the bus (if not out)
    for s in range(n):
        assert 0 <= state.lives[s] <= S.LIVES
        if state.out[s]:
            assert state.lives[s] == 0
    remaining = state.remaining
    assert len(remaining) >= 1
    assert set(state.tiebreak) <= set(remaining)
    if ph in (TURN, FINAL_ROUND):  # eliminated players are dealt nothing
        assert set(state.players) <= set(remaining)
    for s in range(n):
        if s not in state.players:
            assert state.hands[s] == ()
    if state.tiebreak:
        assert all(state.lives[s] == 0 for s in state.tiebreak)
    if ph in (TURN, FINAL_ROUND):
        assert len(state.players) >= 2
        seat = state.to_act
        assert seat in state.players and S.to_act(state) == seat
        assert state.result is None and state.winner is None
        assert state.discard or state.drawn is not None
        for s in state.players:
            extra = 1 if s == seat and state.drawn is not None else 0
            assert len(state.hands[s]) == size + extra
        if state.drawn is not None:
            assert state.drawn in state.hands[seat]
            assert {a.kind for a in S.legal_actions(state)} == {"drop"}
        else:
            assert not state.from_pile
        legal = S.legal_actions(state)
        assert legal and S.DEAL not in legal
        assert (S.DRAW in legal) == (bool(state.stock) and state.drawn is None)
        if ph == FINAL_ROUND:
            assert S.KNOCK not in legal
            assert state.knocker is not None and state.knocker != seat
            assert 1 <= state.final_left <= len(state.players) - 1
        else:
            assert state.knocker is None
            # a blitz always ends the round: nobody plays on with 31 (41) before a knock
            for s in state.players:
                hand = state.hands[s]
                best = S.half_points(hand, trio) if len(hand) == size else \
                    S.best_discard(hand, trio)[0]
                assert best < S._BLITZ2[size]
    elif ph == PAYOUT:
        assert state.to_act is None and state.winner is None
        assert S.legal_actions(state) == (S.DEAL,)
        assert state.result is not None
        assert len(remaining) >= 2
    else:
        assert S.is_over(state) and state.to_act is None
        assert S.legal_actions(state) == ()
        assert state.winner is not None and remaining == [state.winner]  # exactly one winner
    if state.result is not None:
        r = state.result
        assert set(r.bus) <= set(r.losers)
        assert set(r.eliminated) | set(r.reentered) <= set(r.losers)
        assert set(r.tiebreak) <= set(r.losers)
        assert all(r.lost[s] in (1, 2) for s in r.losers if not r.tiebreak_round
                   and s not in r.eliminated and s not in r.reentered and s not in r.tiebreak)
        assert all(x in (0, 1, 2) for x in r.lost)


def check_hidden(state: S.State) -> None:
    """Nothing hidden leaks through observations or the public view."""
    n = state.seats
    in_play = state.phase in (TURN, FINAL_ROUND)
    stock = set(state.stock)
    hidden = S.hidden_cards(state)
    expected = stock | ({c for h in state.hands for c in h} if in_play else set())
    assert hidden == expected
    for seat in range(n):
        obs = S.observation(state, seat)
        seen = cards_in(obs)
        assert obs.visible_cards() <= seen
        assert not seen & stock  # the stock is never shown
        assert obs.hand == state.hands[seat]
        assert obs.discard == state.discard
        assert obs.stock_size == len(state.stock)
        if in_play:
            others = {c for s in range(n) if s != seat for c in state.hands[s]}
            assert not seen & others  # never another seat's cards
            assert seen <= set(state.hands[seat]) | set(state.discard)
            mine = seat == state.to_act
            assert obs.legal == (S.legal_actions(state) if mine else ())
            assert obs.drawn == (state.drawn if mine else None)
    view = S.public_view(state)
    seen = cards_in(view)
    assert not seen & hidden
    if in_play:
        assert seen == set(state.discard)


def play_game(seats: int, options, seed: int, play_seed: int, policy: str):
    """Random legal play to the end, checking every step; returns the codes and final state."""
    state = S.new_game(seats, options, seed)
    rng = random.Random(play_seed)
    log: list[str] = []
    check_state(state)
    check_hidden(state)
    for _ in range(MAX_MOVES):
        if S.is_over(state):
            break
        legal = S.legal_actions(state)
        action = choose(rng, legal, policy)
        before_json = S.to_json(state)
        new, events = S.apply(state, action.code)
        assert S.to_json(state) == before_json  # the old state is untouched
        assert events
        for e in events:
            json.dumps(e.to_dict())  # events are JSON-friendly
            if e.kind == "draw":  # a stock draw never shows the card
                assert e.data == {"stock": len(new.stock)}
        if action is S.DEAL:
            assert events[0].kind == "deal"
            assert new.round_no == state.round_no + 1
            assert new.dealer in new.players
        else:
            assert new.round_no == state.round_no
            if state.drawn is not None and new.phase in (TURN, FINAL_ROUND):
                assert new.to_act != state.to_act or len(new.players) == 1
            elif action.kind in ("draw", "take") and new.phase == state.phase:
                assert new.to_act == state.to_act  # the same seat discards
        for s in range(seats):  # tokens never go up, except a re-entry
            if s not in (new.result.reentered if new.result else ()):
                assert new.lives[s] <= state.lives[s]
        state = new
        log.append(action.code)
        check_state(state)
        check_hidden(state)
        assert S.from_json(S.to_json(state)) == state
    else:
        raise AssertionError("game did not end")
    return log, state


@settings(max_examples=40, deadline=None)
@given(
    seats=st.integers(2, 7),
    options=st.sampled_from(OPTION_SETS),
    seed=st.integers(0, 2**53),
    play_seed=st.integers(0, 2**32),
    policy=st.sampled_from(["uniform", "by_kind", "no_knock"]),
)
def test_random_play_keeps_invariants_and_replays(seats, options, seed, play_seed, policy):
    log, final = play_game(seats, options, seed, play_seed, policy)
    assert final.phase == FINISHED
    assert final.winner is not None
    assert [s for s in range(seats) if not final.out[s]] == [final.winner]
    # replay: the seed and the move log reproduce the game exactly
    state = S.new_game(seats, options, seed)
    for code in log:
        state, _ = S.apply(state, code)
    assert state == final
    assert S.to_json(state) == S.to_json(final)


@settings(max_examples=60, deadline=None)
@given(seats=st.integers(2, 7), seed=st.integers(0, 2**53),
       options=st.sampled_from(OPTION_SETS))
def test_new_game_is_a_function_of_the_seed(seats, seed, options):
    a = S.new_game(seats, options, seed=seed)
    b = S.new_game(seats, options, seed=seed)
    assert a == b
    assert S.to_json(a) == S.to_json(b)
    assert S.from_json(S.to_json(a)) == a
    check_state(a)
    check_hidden(a)
    assert 0 <= a.dealer < seats


@settings(max_examples=300, deadline=None)
@given(cards=st.lists(st.sampled_from(S.DECK), min_size=3, max_size=4, unique=True),
       trio=st.booleans())
def test_hand_value_matches_definition(cards, trio):
    def val(c: Card) -> int:
        return 11 if c.rank == 14 else min(c.rank, 10)

    v = S.hand_value(cards, trio)
    best = max(sum(val(c) for c in cards if c.suit == suit) for suit in range(4))
    if trio and len(cards) == 3 and len({c.rank for c in cards}) == 1:
        assert v == 30.5
    else:
        assert v == best
    assert S.hand_value(list(reversed(cards)), trio) == v
    assert v <= (31 if len(cards) == 3 else 41)


@settings(max_examples=300, deadline=None)
@given(cards=st.lists(st.sampled_from(S.DECK), min_size=4, max_size=5, unique=True),
       trio=st.booleans())
def test_best_discard_is_the_best_of_all_discards(cards, trio):
    cards = tuple(cards)
    v, card = S.best_discard(cards, trio)
    options = [S.half_points(tuple(c for c in cards if c is not d), trio) for d in cards]
    assert v == max(options)
    assert S.half_points(tuple(c for c in cards if c is not card), trio) == v
    keep = cards[-1]
    v2, card2 = S.best_discard(cards, trio, keep=keep)
    assert card2 is not keep
    assert v2 == max(o for o, d in zip(options, cards, strict=True) if d is not keep)
