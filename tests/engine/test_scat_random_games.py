"""Scat: complete random games for 2 to 7 players, with each option on, end with one winner;
the CPU players finish whole games at every level; the presenter never shows a hidden card."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import scat as S
from engine.bots import get_bot, levels_for
from engine.cards import BY_CODE
from engine.protocol import FINISHED

GAMES_PER_SEAT_COUNT = 60
MAX_MOVES = 100_000
OPTIONS = {
    "defaults": {},
    "first_turn_knock": {"no_first_turn_knock": False},
    "no_trio_bonus": {"trio_bonus": False},
    "reentry": {"reentry": True},
    "four_cards": {"four_cards": True},
}


def random_policy(state: S.State, rng: random.Random) -> S.ScatAction:
    return rng.choice(S.legal_actions(state))


def patient_policy(state: S.State, rng: random.Random) -> S.ScatAction:
    """Greedy, and knocks only late: rounds often run until the stock is empty."""
    legal = S.legal_actions(state)
    if len(legal) == 1:
        return legal[0]
    _, trio, _, size = S._flags(state.options)
    seat = state.to_act
    hand = state.hands[seat]
    if state.drawn is not None:
        keep = state.drawn if state.from_pile else None
        return S.drop(S.best_discard(hand, trio, keep)[1])
    now = S.half_points(hand, trio)
    if S.KNOCK in legal and (not state.stock or len(state.stock) < 5) and rng.random() < 0.5:
        return S.KNOCK
    top = state.discard[-1]
    if S.best_discard(hand + (top,), trio, keep=top)[0] > now:
        return S.TAKE
    if S.DRAW in legal:
        return S.DRAW
    return S.PASS if S.PASS in legal else S.KNOCK


def run_game(seats: int, seed: int, policy, options=None) -> tuple[S.State, Counter]:
    state = S.new_game(seats, options, seed=seed)
    rng = random.Random(seed ^ 0x5CA7)
    stats: Counter = Counter()
    if state.result is not None:
        stats[state.result.reason] += 1
    for _ in range(MAX_MOVES):
        if S.is_over(state):
            break
        state, events = S.apply(state, policy(state, rng))
        for e in events:
            if e.kind == "showdown":
                stats[e.data["reason"]] += 1
            elif e.kind == "payout":
                stats["reentered"] += len(e.data["reentered"])
                stats["tiebreak"] += bool(e.data["tiebreak"])
                stats["bus"] += len(e.data["bus"])
    else:
        raise AssertionError(f"game {seats=} {seed=} did not end")
    return state, stats


def assert_one_winner(state: S.State) -> None:
    n = state.seats
    assert state.phase == FINISHED and S.is_over(state)
    assert state.winner is not None
    assert [s for s in range(n) if not state.out[s]] == [state.winner]
    assert state.to_act is None and S.legal_actions(state) == ()
    assert state.result is not None
    assert state.result.eliminated  # the last round put the last opponent out
    every = [c for h in state.hands for c in h] + list(state.discard) + list(state.stock)
    assert sorted(every) == sorted(S.DECK)


@pytest.mark.parametrize("policy", [random_policy, patient_policy], ids=["random", "patient"])
@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6, 7])
def test_complete_random_games_end_with_one_winner(seats, policy):
    stats: Counter = Counter()
    winners: Counter = Counter()
    for i in range(GAMES_PER_SEAT_COUNT):
        final, s = run_game(seats, i * 7919 + seats, policy)
        assert_one_winner(final)
        stats.update(s)
        winners[final.winner] += 1
    assert stats["knock"] > 0
    assert stats["bus"] > 0
    if policy is patient_policy:
        assert stats["stock_knock"] + stats["stock_pass"] > 0
        assert stats["blitz"] > 0
    assert len(winners) >= min(seats, 3)  # different seats win


@pytest.mark.parametrize("seats", [2, 4, 7])
@pytest.mark.parametrize("name", list(OPTIONS))
def test_complete_random_games_with_each_option(name, seats):
    stats: Counter = Counter()
    for i in range(25):
        policy = random_policy if i % 2 else patient_policy
        final, s = run_game(seats, i * 104729 + seats, policy, OPTIONS[name])
        assert_one_winner(final)
        assert dict(final.options) == {**S.DEFAULT_OPTIONS, **OPTIONS[name]}
        stats.update(s)
    if name == "reentry":
        assert stats["reentered"] > 0
    else:
        assert stats["reentered"] == 0
    if name == "four_cards":
        assert all(len(h) in (0, 4, 5) for h in final.hands)


def test_blitz_endings_over_many_games():
    stats: Counter = Counter()
    for i in range(300):
        _, s = run_game(2 + i % 6, 31337 + i, patient_policy)
        stats.update(s)
    assert stats["blitz"] > 0
    assert stats["dealt_blitz"] > 0


@pytest.mark.parametrize("seats", [2, 3, 5, 7])
@pytest.mark.parametrize("level", ["anfaenger", "normal"])
def test_bots_play_complete_games(level, seats):
    assert level in levels_for("scat")
    for i in range(3 if level == "normal" else 6):
        options = list(OPTIONS.values())[i % len(OPTIONS)]
        state = S.new_game(seats, options, seed=1000 * seats + i)
        bot = get_bot("scat", level)
        rng = random.Random(i)
        for _ in range(MAX_MOVES):
            if S.is_over(state):
                break
            seat = S.to_act(state)
            if seat is None:
                state, _ = S.apply(state, S.DEAL)
                continue
            obs = S.observation(state, seat)
            action = bot.choose(obs, rng)
            assert action in obs.legal
            state, _ = S.apply(state, action)
        else:
            raise AssertionError("bots did not finish")
        assert_one_winner(state)


@pytest.mark.parametrize("lang", ["de", "en"])
@pytest.mark.parametrize("seats", [2, 4, 7])
def test_presenter_never_shows_hidden_cards(seats, lang):
    """Table lines show no hidden card; a seat's private lines and buttons show only its own."""
    import re

    from chatbot.presenters import scat as P

    symbols = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♣♠♥♦])")

    def shown(text: str) -> set[str]:
        return {m.group(1) + m.group(2) for m in symbols.finditer(text)}

    names = [f"P{i}" for i in range(seats)]
    marks = [""] * seats
    for i in range(4):
        options = list(OPTIONS.values())[i % len(OPTIONS)]
        state = S.new_game(seats, options, seed=77 * seats + i)
        rng = random.Random(i)
        for _ in range(MAX_MOVES):
            hidden = {c.symbol for c in S.hidden_cards(state)}
            public = "\n".join(P.public_lines(state, names, lang, {}, marks))
            assert not shown(public) & hidden
            for seat in range(seats):
                own = {c.symbol for c in state.hands[seat]}
                private = "\n".join(P.private_lines(state, seat, lang))
                labels = " ".join(label for row in P.action_buttons(state, seat, lang)
                                  for label, _ in row)
                assert not shown(private + labels) & (hidden - own)
                if seat != state.to_act:
                    assert labels == ""
            if S.is_over(state):
                break
            policy = patient_policy if i % 2 else random_policy
            state, events = S.apply(state, policy(state, rng))
            for e in events:
                text = P.event_text(e.to_dict(), names, lang)
                if e.kind == "draw":  # a stock draw names no card
                    assert text and not shown(text)
                elif e.kind == "discard":  # the card now lies face up
                    assert shown(text) == {state.discard[-1].symbol} or state.result
                elif e.kind == "take":  # it lay face up (publicly known to be in that hand)
                    assert shown(text) == {BY_CODE[e.data["card"]].symbol}
            if state.phase in ("payout", "finished"):
                lines = P.result_lines(state, names, lang, {})
                assert lines and all(isinstance(x, str) for x in lines)
        assert P.winners(state) == [state.winner]
        assert len(P.standings(state, names)) == seats
    for key, values in P.OPTION_CHOICES.items():
        assert values[0] == S.DEFAULT_OPTIONS[key]
        assert len({P.option_label(key, v, lang) for v in values}) == len(values)
    assert P.rules(lang)
