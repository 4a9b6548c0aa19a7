"""The ISMCTS level (the arena's reference player): legal moves over complete games, decisions
from the observation only, deterministic with a fixed number of iterations, the time budget as
the Experte's, availability counts as in the paper, and not a level offered in chat (the arena,
imported here, registers it)."""

from __future__ import annotations

import random

import pytest

from bench import arena
from engine import GAMES
from engine.bots import LEVELS, NORMAL, get_bot, levels_for
from engine.bots import ismcts as I
from engine.protocol import Action

from .botplay import SEATS, FakeClock, play_game, positions, same_choice_on_twins


def ismcts(game_id: str, iterations: int = 12, **kw):
    return type(get_bot(game_id, I.ISMCTS))(iterations=iterations, **kw)


def test_ismcts_is_seated_by_the_arena_only():
    for game_id in SEATS:
        bot = get_bot(game_id, I.ISMCTS)
        assert bot.game_id == game_id and bot.level == I.ISMCTS
        assert I.ISMCTS not in levels_for(game_id)
    assert I.ISMCTS not in LEVELS


@pytest.mark.parametrize(("game_id", "seats"), [
    (g, n) for g in sorted(SEATS) for n in (2, 3, 4)
    if GAMES[g].MIN_SEATS <= n <= GAMES[g].MAX_SEATS])
def test_plays_complete_games_with_legal_moves_only(game_id, seats):
    game = GAMES[game_id]
    bots = [ismcts(game_id, iterations=4),  # Normal-guided expansion, Normal playouts
            ismcts(game_id, iterations=4, playout="random", expand="random")]  # the paper's
    bots += [get_bot(game_id, NORMAL) for _ in range(seats - 2)]

    def two_hands(state) -> bool:  # two hands are enough for the shedding games
        return game_id in ("runfast", "climbing") and getattr(state, "round_no", 1) > 2 \
            and game.phase(state) == "payout"

    decisions = play_game(game_id, game.new_game(seats, seed=500 + seats), bots,
                          random.Random(seats), stop=two_hands)
    assert decisions[0] > 0 and decisions[1] > 0


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_decides_the_same_on_a_different_deal_with_the_same_observation(game_id):
    checked = same_choice_on_twins(
        game_id, lambda obs: ismcts(game_id, iterations=20).choose(obs, random.Random(99)), 2)
    assert checked >= 2


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_deterministic_with_a_fixed_number_of_iterations(game_id):
    game = GAMES[game_id]
    for state in positions(game_id, seed=21, count=2):
        obs = game.observation(state, game.to_act(state))
        bot = ismcts(game_id, iterations=15)
        first = bot.choose(obs, random.Random(4))
        assert first in obs.legal
        assert bot.last_stats["iterations"] == 15
        assert sum(c.visits for c in bot.last_root.children.values()) == 15
        assert ismcts(game_id, iterations=15).choose(obs, random.Random(4)) == first


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_keeps_to_a_time_budget_divided_by_the_load(game_id):
    game = GAMES[game_id]
    state = positions(game_id, seed=41, count=1)[0]
    obs = game.observation(state, game.to_act(state))
    bot_class = type(get_bot(game_id, I.ISMCTS))
    clock = FakeClock(0.001)
    bot = bot_class(budget=0.05, load=1.0, clock=clock)
    assert bot.choose(obs, random.Random(1)) in obs.legal
    assert bot.last_stats["iterations"] >= 1
    assert bot_class(budget=0.4, load=lambda: 4.0).time_budget() == pytest.approx(0.1)
    assert bot_class(budget=0.4, load=0.5).time_budget() == pytest.approx(0.4)


# ---------------------------------------------------------------------------------------------
# availability counts on a hand-made game


class _Tiny:
    """A tiny game for the tree's bookkeeping: seat 0 has the one move ``a``; then seat 1 picks
    from the moves the determinization offers it: ``x`` always, ``y`` only in the worlds with
    ``y`` (a card it may or may not hold). Seat 1 wins with ``y``."""

    A, X, Y = (Action(c, c) for c in "axy")

    class St:
        def __init__(self, moves: tuple[str, ...], y: bool) -> None:
            self.moves, self.y = moves, y
            self.phase = "turn" if len(moves) < 2 else "payout"
            self.to_act = len(moves)
            self.seats = 2

    def legal_actions(self, st):
        if not st.moves:
            return (self.A,)
        return (self.X, self.Y) if st.y else (self.X,)

    def apply(self, st, action):
        return self.St(st.moves + (action.code,), st.y), []


def _tiny_bot():
    bot = I.Ismcts.__new__(I.Ismcts)
    bot.game = _Tiny()
    bot.exploration = I.EXPLORATION
    bot._playout = lambda state, rng: state  # the tiny game needs no playout
    bot._step = None
    bot._rewards = lambda st: [0.0, 1.0] if st.moves[-1:] == ("y",) else [1.0, 0.0]
    return bot


def test_availability_counts_follow_the_determinizations():
    bot = _tiny_bot()
    root = I.Node(-1)
    rng = random.Random(0)
    # iteration 1 adds a; 2 (no y) adds x under a; 3 selects x; 4 (y) adds y; 5 selects x;
    # 6 (y) has x and y available and chooses by UCB
    for y in (True, False, False, True, False, True):
        bot._iterate(root, _Tiny.St((), y), rng)
    a = root.children["a"]
    x, y = a.children["x"], a.children["y"]
    assert (root.visits, a.visits, a.avail) == (6, 6, 6)
    assert (a.mover, x.mover, y.mover) == (0, 1, 1)
    assert x.avail == 5  # offered in every world since it was added (iterations 2–6)
    assert y.avail == 2  # offered only in the worlds with y since it was added (4 and 6)
    assert x.visits + y.visits == 5
    assert a.reward == 6 - y.visits  # seat 0's reward on a: it wins unless seat 1 played y
    assert y.reward == y.visits and x.reward == 0.0  # seat 1's rewards on its own moves
    # with y available in every second world, seat 1 plays y whenever it can (UCB: y's mean
    # is 1, x's 0): visits of y follow its availability, not the node's visits
    for k in range(40):
        bot._iterate(root, _Tiny.St((), k % 2 == 0), rng)
    assert y.avail == 2 + 20
    assert y.visits >= 20
    assert x.visits <= 3 + 20 + 2


def test_the_arena_seats_ismcts_with_the_experte_settings():
    bot = arena.make_bot("schwimmen", I.ISMCTS, 0.3, None, {"exploration": 0.5})
    assert bot.level == I.ISMCTS and bot.budget == 0.3 and bot.exploration == 0.5
    assert bot.time_budget() == pytest.approx(0.3)  # the arena's load factor is 1
    fixed = arena.make_bot("runfast", I.ISMCTS, 1.0, 2, None)
    assert fixed.iterations == 20
    record = arena.play_one("runfast", [I.ISMCTS, NORMAL, NORMAL], 0, 1, 1.0, 1,
                            None, None, None)
    assert record["levels"] == [I.ISMCTS, NORMAL, NORMAL]
