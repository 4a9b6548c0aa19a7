"""CPU players of every game and level: legal moves only, decisions from the observation only,
deterministic for a seed; the Experte's sampled worlds agree with its observation, its time
budget is kept (a fake clock) and shrinks under load.

The Experte runs here with a fixed number of sampled worlds (``playouts``), not a time budget,
so that the tests are fast and deterministic.
"""

from __future__ import annotations

import random

import pytest

from engine import GAMES
from engine.bots import ANFAENGER, EXPERTE, LEVELS, NORMAL, get_bot, levels_for
from engine.bots import experte as E

from .botplay import SEATS, FakeClock, play_game, positions, same_choice_on_twins


def experte(game_id: str, playouts: int = 2):
    return type(get_bot(game_id, EXPERTE))(playouts=playouts)


def bots_for(game_id: str, level: str) -> list:
    n = SEATS[game_id]
    if level == EXPERTE:  # one Experte among Normal players keeps the test quick
        return [experte(game_id)] + [get_bot(game_id, NORMAL) for _ in range(n - 1)]
    return [get_bot(game_id, level) for _ in range(n)]


# ---------------------------------------------------------------------------------------------
# registry


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_every_game_has_all_three_levels(game_id):
    assert levels_for(game_id) == list(LEVELS)
    for level in LEVELS:
        bot = get_bot(game_id, level)
        assert bot.game_id == game_id and bot.level == level


# ---------------------------------------------------------------------------------------------
# legal moves over complete games


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_bots_play_complete_games_with_legal_moves_only(game_id, level):
    game = GAMES[game_id]
    n = SEATS[game_id]
    games = 1 if level == EXPERTE else 3
    for g in range(games):
        bots = bots_for(game_id, level)
        order = list(range(n))
        random.Random(g).shuffle(order)  # the tested bot sits somewhere else each game
        decisions = play_game(game_id, game.new_game(n, seed=7000 + g),
                              {s: bots[order[s]] for s in range(n)}, random.Random(g))
        assert decisions[order.index(0)] > 0  # the tested bot made decisions


# ---------------------------------------------------------------------------------------------
# the Experte decides from its observation only


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_experte_decides_the_same_on_a_different_deal_with_the_same_observation(game_id):
    checked = same_choice_on_twins(
        game_id, lambda obs: experte(game_id, playouts=3).choose(obs, random.Random(99)), 3)
    assert checked >= 2


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_decisions_are_deterministic_for_a_seed(game_id, level):
    game = GAMES[game_id]
    for state in positions(game_id, seed=21, count=3):
        obs = game.observation(state, game.to_act(state))
        make = (lambda: experte(game_id, playouts=3)) if level == EXPERTE else \
            (lambda: get_bot(game_id, level))
        first = make().choose(obs, random.Random(4))
        assert make().choose(obs, random.Random(4)) == first
        assert first in obs.legal


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_sampled_worlds_show_the_same_observation(game_id):
    """Every world the Experte samples is a legal state in which its seat sees exactly what it
    sees in the real game: its cards, the counts, the table and the public history."""
    game = GAMES[game_id]
    search = type(get_bot(game_id, EXPERTE)).search_class()
    rng = random.Random(3)
    for state in positions(game_id, seed=31, count=6):
        seat = game.to_act(state)
        obs = game.observation(state, seat)
        worlds = [search.sample_world(obs, rng) for _ in range(4)]
        pool = search.world_pool(obs, rng, 6)
        worlds += [search.refresh(w, rng) for w, _ in (pool or [])]
        for world in worlds:
            assert game.observation(world, seat) == obs
            assert list(game.legal_actions(world)) == list(obs.legal)
            game.to_json(world)  # a complete, well-formed state


# ---------------------------------------------------------------------------------------------
# the Experte's clock


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_experte_keeps_its_time_budget(game_id):
    game = GAMES[game_id]
    state = positions(game_id, seed=41, count=1)[0]
    obs = game.observation(state, game.to_act(state))
    bot_class = type(get_bot(game_id, EXPERTE))
    clock = FakeClock(0.001)
    bot = bot_class(budget=0.05, load=1.0, clock=clock)
    bot.choose(obs, random.Random(1))
    assert clock.now <= 0.05 + 0.01
    fast = FakeClock(0.001)
    bot_class(budget=0.5, load=5.0, clock=fast).choose(obs, random.Random(1))
    assert fast.now <= 0.1 + 0.01  # under load the budget shrinks
    assert bot_class(budget=0.4, load=lambda: 4.0).time_budget() == pytest.approx(0.1)


def test_experte_under_load_thinks_at_least_its_minimum_budget():
    bot_class = type(get_bot("scat", EXPERTE))
    assert bot_class(budget=0.3, load=32.0).time_budget() == pytest.approx(E.MIN_BUDGET)
    assert bot_class(budget=0.3, load=2.0).time_budget() == pytest.approx(0.15)
    assert bot_class(budget=0.05, load=32.0).time_budget() == pytest.approx(0.05)  # less: whole


def test_experte_clock_counts_the_work_done_but_at_least_a_third_of_real_time(monkeypatch):
    cpu, wall = [10.0], [100.0]
    monkeypatch.setattr(E.time, "thread_time", lambda: cpu[0])
    monkeypatch.setattr(E.time, "perf_counter", lambda: wall[0])
    clock = E.work_clock()
    assert clock() == 0.0
    cpu[0], wall[0] = 10.2, 100.25  # an idle core: the thread's CPU time
    assert clock() == pytest.approx(0.2)
    cpu[0], wall[0] = 10.21, 101.0  # a busy machine: a third of the real time if more
    assert clock() == pytest.approx(1.0 / E.WALL_FACTOR)


def test_experte_thinks_on_a_fresh_work_clock_for_each_decision():
    game = GAMES["schwimmen"]
    state = positions("schwimmen", seed=41, count=1)[0]
    obs = game.observation(state, game.to_act(state))
    bot = type(get_bot("schwimmen", EXPERTE))(budget=0.02, load=1.0)
    assert bot.clock is None
    clocks = []
    for seed in (1, 2):
        bot.choose(obs, random.Random(seed))
        clocks.append(bot._clock)
    assert bot.clock is None and clocks[0] is not clocks[1]  # a clock of its own each
    assert all(c.__qualname__.startswith("work_clock") for c in clocks)


def test_experte_budget_defaults_and_module_settings(monkeypatch):
    bot = get_bot("schwimmen", EXPERTE)
    assert bot.time_budget() == pytest.approx(E.BUDGET)
    monkeypatch.setattr(E, "BUDGET", 0.6)
    monkeypatch.setattr(E, "LOAD", lambda: 3.0)
    assert get_bot("schwimmen", EXPERTE).time_budget() == pytest.approx(0.2)


def test_win_chances():
    assert E.win_chances((4, 4, 4)) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    low, high, _ = E.win_chances((1, 4, 4))
    assert low < 1 / 3 < high
    assert E.win_chances((2, 0, 0)) == (1.0, 0.0, 0.0)
    assert sum(E.win_chances((3, 1, 2, 4))) == pytest.approx(1.0)


# ---------------------------------------------------------------------------------------------
# public history in the observations


def test_public_history_names_only_public_cards():
    S = GAMES["scat"]
    state = S.new_game(3, seed=5)
    bot = get_bot("scat", NORMAL)
    rng = random.Random(1)
    for _ in range(40):
        if state.phase not in ("turn", "final_round"):
            break
        seat = state.to_act
        state, _ = S.apply(state, bot.choose(S.observation(state, seat), rng))
    for entry in state.history:
        seat, _, code = entry.partition(":")
        assert code == "draw" or code in ("knock", "pass") or code.startswith(("take.", "drop."))
    assert S.from_json(S.to_json(state)) == state
    W = GAMES["schwimmen"]
    s, _ = W.apply(W.new_game(3, seed=2), "all")
    assert s.history[-1].startswith(f"{s.starter}:all.")
    assert W.observation(s, 0).history == s.history
    R = GAMES["runfast"]
    r = R.new_game(3, seed=2)
    r2, _ = R.apply(r, R.legal_actions(r)[0])
    assert r2.history == (f"{r.to_act}:{R.legal_actions(r)[0].code}",)
    assert R.from_json(R.to_json(r2)) == r2


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_beginner_and_normal_are_cheap(game_id):
    """Anfänger and Normal never search (they answer at once); only the Experte does."""
    game = GAMES[game_id]
    for level in (ANFAENGER, NORMAL):
        assert not isinstance(get_bot(game_id, level), E.Experte)
    assert isinstance(get_bot(game_id, EXPERTE), E.Experte)
    assert game_id == game.GAME_ID


# ---------------------------------------------------------------------------------------------
# the stand-in for a person whose clock ran out (issue 17, item 10)


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_stand_in_never_knocks_bombs_or_plays_a_joker_unless_forced(game_id):
    """Whenever Normal would knock (Schwimmen, Scat), throw a bomb (Run Fast) or play a joker or
    a four (climbing), the stand-in plays another legal move — Normal's choice among the safe
    ones — and it takes an unsafe move only when the rules leave no other."""
    from engine.bots.standin import UNSAFE, StandIn

    game, n = GAMES[game_id], SEATS[game_id]
    unsafe = UNSAFE[game_id]
    normal, stand_in = get_bot(game_id, NORMAL), StandIn(game_id)
    avoided = 0

    class Watched:
        """Asks the stand-in at every turn, then plays Normal's move (the game goes on as
        Normal)."""

        def __init__(self, g: int) -> None:
            self.g = g

        def choose(self, obs, rng):
            nonlocal avoided
            action = stand_in.choose(obs, random.Random(self.g))
            assert action in obs.legal
            if unsafe(action):
                assert all(unsafe(a) for a in obs.legal), f"{action.code} though a safe move was left"
            if unsafe(normal.choose(obs, random.Random(self.g))) and not unsafe(action):
                avoided += 1
            return normal.choose(obs, rng)

    for g in range(6):
        play_game(game_id, game.new_game(n, seed=9100 + g), [Watched(g)] * n, random.Random(g))
    assert avoided > 0, "Normal never chose an unsafe move here: the test shows nothing"
