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

SEATS = {"schwimmen": 3, "scat": 3, "runfast": 3, "climbing": 4}
MAX_MOVES = 20_000


def experte(game_id: str, playouts: int = 2):
    return type(get_bot(game_id, EXPERTE))(playouts=playouts)


def bots_for(game_id: str, level: str) -> list:
    n = SEATS[game_id]
    if level == EXPERTE:  # one Experte among Normal players keeps the test quick
        return [experte(game_id)] + [get_bot(game_id, NORMAL) for _ in range(n - 1)]
    return [get_bot(game_id, level) for _ in range(n)]


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
        state = game.new_game(n, seed=7000 + g)
        bots = bots_for(game_id, level)
        order = list(range(n))
        random.Random(g).shuffle(order)  # the tested bot sits somewhere else each game
        seat_bot = {s: bots[order[s]] for s in range(n)}
        rng = random.Random(g)
        for _ in range(MAX_MOVES):
            if game.is_over(state):
                break
            seat = game.to_act(state)
            if seat is None:
                state, _ = game.apply(state, "deal")
                continue
            obs = game.observation(state, seat)
            action = seat_bot[seat].choose(obs, rng)
            assert action in obs.legal, (game_id, level, action)
            assert game.can_apply(state, action)
            state, _ = game.apply(state, action)
        else:
            raise AssertionError(f"{game_id}: the game did not end")


# ---------------------------------------------------------------------------------------------
# the Experte decides from its observation only


def _twin(game_id: str, state, seat: int, rng: random.Random):
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


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_experte_decides_the_same_on_a_different_deal_with_the_same_observation(game_id):
    game = GAMES[game_id]
    rng = random.Random(5)
    checked = 0
    for state in positions(game_id, seed=11, count=12):
        seat = game.to_act(state)
        twin = _twin(game_id, state, seat, rng)
        if twin is None:
            continue
        assert twin != state
        obs_a, obs_b = game.observation(state, seat), game.observation(twin, seat)
        assert obs_a == obs_b
        a = experte(game_id, playouts=3).choose(obs_a, random.Random(99))
        b = experte(game_id, playouts=3).choose(obs_b, random.Random(99))
        assert a == b
        checked += 1
        if checked >= 3:
            break
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


class FakeClock:
    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.calls = 0

    def __call__(self) -> float:
        self.calls += 1
        self.now += self.step
        return self.now


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
    bot_class(budget=0.05, load=5.0, clock=fast).choose(obs, random.Random(1))
    assert fast.now <= 0.01 + 0.01  # under load the budget shrinks
    assert bot_class(budget=0.4, load=lambda: 4.0).time_budget() == pytest.approx(0.1)


def test_experte_budget_defaults_and_module_settings(monkeypatch):
    bot = get_bot("schwimmen", EXPERTE)
    assert bot.time_budget() == pytest.approx(E.BUDGET)
    monkeypatch.setattr(E, "BUDGET", 0.3)
    monkeypatch.setattr(E, "LOAD", lambda: 3.0)
    assert get_bot("schwimmen", EXPERTE).time_budget() == pytest.approx(0.1)
    assert E.system_load() >= 1.0


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
    for g in range(6):
        state = game.new_game(n, seed=9100 + g)
        rng = random.Random(g)
        for _ in range(MAX_MOVES):
            if game.is_over(state):
                break
            seat = game.to_act(state)
            if seat is None:
                state, _ = game.apply(state, "deal")
                continue
            obs = game.observation(state, seat)
            action = stand_in.choose(obs, random.Random(g))
            assert action in obs.legal
            if unsafe(action):
                assert all(unsafe(a) for a in obs.legal), f"{action.code} though a safe move was left"
            if unsafe(normal.choose(obs, random.Random(g))) and not unsafe(action):
                avoided += 1
            state, _ = game.apply(state, normal.choose(obs, rng))  # the game goes on as Normal
        else:
            raise AssertionError(f"{game_id}: the game did not end")
    assert avoided > 0, "Normal never chose an unsafe move here: the test shows nothing"
