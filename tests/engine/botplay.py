"""Shared by the CPU-player tests (test_bots, test_ismcts): states along a game where a seat has
a real choice, another deal that looks the same from a seat, complete games played with an
observation-only legality check, and a fake clock for the time budgets."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from engine import GAMES
from engine.bots import NORMAL, get_bot
from engine.protocol import Action

SEATS = {"schwimmen": 3, "scat": 3, "runfast": 3, "climbing": 4}
MAX_MOVES = 20_000


def positions(game_id: str, seed: int, count: int, levels=(NORMAL,)) -> list:
    """States along a game of Normal (or other) players where a seat has a real choice."""
    game = GAMES[game_id]
    n = SEATS[game_id]
    state = game.new_game(n, seed=seed)
    bots = [get_bot(game_id, levels[s % len(levels)]) for s in range(n)]
    rng = random.Random(seed)
    out = []
    for _ in range(MAX_MOVES):
        if game.is_over(state) or len(out) >= count:
            break
        seat = game.to_act(state)
        if seat is None:
            state, _ = game.apply(state, "deal")
            continue
        obs = game.observation(state, seat)
        if len(obs.legal) > 1 and rng.random() < 0.3:
            out.append(state)
        state, _ = game.apply(state, bots[seat].choose(obs, rng))
    return out


def twin(game_id: str, state, seat: int, rng: random.Random):
    """Another full state that gives ``seat`` the same observation: hidden cards moved between
    the others' hands (and the unseen rest of the deck), keeping everything publicly known."""
    game = GAMES[game_id]
    obs = game.observation(state, seat)
    for _ in range(200):
        if game_id == "schwimmen":
            from engine.bots.schwimmen_experte import known_cards
            known = set().union(*known_cards(state.history, state.seats))
            others = [s for s in state.active if s != seat]
            s = rng.choice(others)
            free = [c for c in state.hands[s] if c not in known]
            unseen = [c for c in GAMES[game_id].DECK if c not in state.middle
                      and all(c not in h for h in state.hands)]
            if not free or not unseen:
                continue
            a, b = rng.choice(free), rng.choice(unseen)
            hands = list(state.hands)
            hands[s] = tuple(b if c is a else c for c in hands[s])
            twin = state._replace(hands=tuple(hands))
        elif game_id == "scat":
            from engine.bots.scat_experte import known_cards, parse_history
            known = set().union(*known_cards(parse_history(state.history), state.seats))
            others = [s for s in state.players if s != seat]
            s = rng.choice(others)
            free = [c for c in state.hands[s] if c not in known]
            if not free or not state.stock:
                continue
            a, b = rng.choice(free), rng.choice(state.stock)
            hands = list(state.hands)
            hands[s] = tuple(b if c is a else c for c in hands[s])
            stock = tuple(a if c is b else c for c in state.stock)
            twin = state._replace(hands=tuple(hands), stock=stock)
        elif game_id == "runfast":
            s, t = [x for x in range(3) if x != seat]
            if not state.hands[s] or not state.hands[t]:
                continue
            a = rng.choice([1 << i for i in range(54) if state.hands[s] >> i & 1])
            b = rng.choice([1 << i for i in range(54) if state.hands[t] >> i & 1])
            hands = list(state.hands)
            hands[s] = hands[s] & ~a | b
            hands[t] = hands[t] & ~b | a
            twin = state._replace(hands=tuple(hands))
        else:
            ex = state.exchange
            fixed = {c for c in (ex.given, ex.back) if c is not None} if ex else set()
            fixed |= {GAMES[game_id].THREE_OF_SPADES, GAMES[game_id].BLACK_JOKER_CARD,
                      GAMES[game_id].RED_JOKER_CARD}
            others = [x for x in range(4) if x != seat and state.hands[x]]
            if len(others) < 2:
                continue
            s, t = rng.sample(others, 2)
            fa = [c for c in state.hands[s] if c not in fixed and c.rank != 2]
            fb = [c for c in state.hands[t] if c not in fixed and c.rank != 2]
            if not fa or not fb:
                continue
            a, b = rng.choice(fa), rng.choice(fb)
            from engine.climbing import sort_cards
            hands = list(state.hands)
            hands[s] = sort_cards([b if c is a else c for c in hands[s]])
            hands[t] = sort_cards([a if c is b else c for c in hands[t]])
            twin = state._replace(hands=tuple(hands))
        if twin != state and game.observation(twin, seat) == obs:
            return twin
    return None


def play_game(game_id: str, state: Any, seat_bot: Sequence[Any] | dict[int, Any],
              rng: random.Random, stop: Callable[[Any], bool] | None = None) -> Counter[int]:
    """Play ``state`` to its end (or until ``stop(state)``) with one bot per seat, each deciding
    from its observation only; every move must be legal in the observation and in the game.
    Returns the number of decisions per seat; fails if the game does not end."""
    game = GAMES[game_id]
    decisions: Counter[int] = Counter()
    for _ in range(MAX_MOVES):
        if game.is_over(state) or (stop is not None and stop(state)):
            return decisions
        seat = game.to_act(state)
        if seat is None:
            state, _ = game.apply(state, "deal")
            continue
        obs = game.observation(state, seat)
        action = seat_bot[seat].choose(obs, rng)
        assert action in obs.legal, (game_id, seat, action)
        assert game.can_apply(state, action)
        decisions[seat] += 1
        state, _ = game.apply(state, action)
    raise AssertionError(f"{game_id}: the game did not end")


def same_choice_on_twins(game_id: str, choose: Callable[[Any], Action], enough: int) -> int:
    """For positions along a game, a bot given the observation of the real deal and of a twin
    deal (other hidden cards, the same observation) must choose the same; returns how many
    positions were checked (at most ``enough``)."""
    game = GAMES[game_id]
    rng = random.Random(5)
    checked = 0
    for state in positions(game_id, seed=11, count=12):
        seat = game.to_act(state)
        other = twin(game_id, state, seat, rng)
        if other is None:
            continue
        obs_a, obs_b = game.observation(state, seat), game.observation(other, seat)
        assert other != state and obs_a == obs_b
        assert choose(obs_a) == choose(obs_b)
        checked += 1
        if checked >= enough:
            break
    return checked


class FakeClock:
    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.calls = 0

    def __call__(self) -> float:
        self.calls += 1
        self.now += self.step
        return self.now
