"""Tables of searching CPU players always end their rounds (Schwimmen, Scat).

Nothing is ever knocked automatically (docs/rules-schwimmen.md §4), and with an empty stock
Scat's discard top can be taken forever (docs/rules-scat.md §7). Normal settles for less the
longer a round lasts; the Experte and ISMCTS each expected the *others* (Normal in their
playouts) to knock and could swap on without end — three Experte players in Schwimmen game 7
below did. After ``LONG_ROUND`` turns of every active player, both play Normal's move."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine import GAMES
from engine.bots import EXPERTE, NORMAL, get_bot, register, scat_experte, schwimmen_experte
from engine.bots.ismcts import BOTS as ISMCTS_BOTS

register(*ISMCTS_BOTS)  # (the arena's player: registered here, not only by test_ismcts)

LONG = {"schwimmen": schwimmen_experte.LONG_ROUND, "scat": scat_experte.LONG_ROUND}


class NoClock:
    """A clock that fails the test if the search starts."""

    def __call__(self) -> float:
        raise AssertionError("searched in a long round")


def _position(game_id: str, seed: int):
    """An observation in a round's first turns with more than one candidate move."""
    game = GAMES[game_id]
    state = game.new_game(3, None, seed=seed)
    normal = get_bot(game_id, NORMAL)
    rng = random.Random(seed)
    for _ in range(200):
        seat = game.to_act(state)
        if seat is None:
            state, _ = game.apply(state, "deal")
            continue
        obs = game.observation(state, seat)
        if game.phase(state) == "turn" and len(obs.legal) > 2:
            return obs
        state, _ = game.apply(state, normal.choose(obs, rng))
    raise AssertionError("no position found")


@pytest.mark.parametrize("game_id", sorted(LONG))
def test_long_round_experte_plays_normals_move(game_id):
    for seed in range(6):
        obs = _position(game_id, seed)
        active = 3
        late = dataclasses.replace(obs, turns=LONG[game_id] * active)
        expected = get_bot(game_id, NORMAL).choose(late, random.Random(0))
        experte = type(get_bot(game_id, EXPERTE))(playouts=8, clock=NoClock())
        assert experte.choose(late, random.Random(seed)) == expected
        search = type(get_bot(game_id, "ismcts"))(iterations=8, clock=NoClock())
        assert search.choose(late, random.Random(0)) == expected
        # one turn earlier the search still runs (and asks the clock)
        early = dataclasses.replace(obs, turns=LONG[game_id] * active - 1)
        with pytest.raises(AssertionError, match="searched"):
            type(get_bot(game_id, EXPERTE))(playouts=8, clock=NoClock()).choose(
                early, random.Random(seed))


def _play(game_id: str, level: str, seed: int, seats: int = 3, max_moves: int = 3000) -> int:
    """Play game ``seed`` with every seat at ``level``; the longest round in turns."""
    game = GAMES[game_id]
    bots = []
    for _ in range(seats):
        bot = get_bot(game_id, level)
        bots.append(type(bot)(playouts=16) if level == EXPERTE else type(bot)(iterations=25))
    state = game.new_game(seats, None, seed=seed)
    rng = random.Random(seed)
    longest = turns = 0
    for _ in range(max_moves):
        if game.is_over(state):
            return longest
        seat = game.to_act(state)
        if seat is None:
            state, _ = game.apply(state, "deal")
            continue
        state, _ = game.apply(state, bots[seat].choose(game.observation(state, seat), rng))
        turns += 1
        if game.phase(state) in ("payout", "finished"):
            longest, turns = max(longest, turns), 0
    raise AssertionError(f"{game_id} game {seed} of {level} players did not end "
                         f"in {max_moves} moves")


def test_long_round_three_experte_players_end_schwimmen_game_7():
    # before the rule this game's second round went past 500 turns, swapping without end
    assert _play("schwimmen", EXPERTE, 7) <= 2 * schwimmen_experte.LONG_ROUND * 3


@pytest.mark.parametrize("game_id", sorted(LONG))
def test_long_round_ismcts_players_end_their_games(game_id):
    assert _play(game_id, "ismcts", 0) <= 2 * LONG[game_id] * 3


def test_long_round_is_off_in_the_shedding_games():
    for game_id in ("runfast", "climbing"):
        search = get_bot(game_id, EXPERTE).search
        obs = GAMES[game_id].observation(GAMES[game_id].new_game(3 if game_id == "runfast"
                                                                  else 4, None, seed=1), 0)
        assert search.long_round(obs) is False
