"""The Experte's fast playouts (issue 49) decide exactly as the Normal bot they stand in for:
Normal's move straight from the state (Schwimmen, Scat, climbing) equals ``Normal.choose`` on
the seat's observation for the same dice, in games of every player count; Schwimmen's round on
card-id lists, Scat's on lists, the climbing game's and Run Fast's on masks end with the
outcome the engine's rules give (the same dice); Scat's draw expectation from
tables equals the bot's and a brute-force average over every card that could be drawn. So the
Experte at a fixed number of sampled worlds decides as the 2026 Experte, only faster, and it
plays legal moves only at every table size.
"""

from __future__ import annotations

import random

import pytest

from engine import GAMES
from engine import climbing as C
from engine import runfast as R
from engine import scat as K
from engine import schwimmen as S
from engine.bots import EXPERTE, NORMAL, get_bot, register
from engine.bots.climbing import Normal as ClimbingNormal
from engine.bots.climbing_experte import _View, round_points
from engine.bots.climbing_experte import normal_move as climbing_move
from engine.bots.experte import play_round_out
from engine.bots.experte_2026 import BOTS as EXPERTE_2026
from engine.bots.experte_2026 import LEVEL as OLD
from engine.bots.runfast_experte import hand_value, normal_playout
from engine.bots.scat import Normal as ScatNormal
from engine.bots.scat import Unseen, _draw_expectation
from engine.bots.scat_experte import _BASE, _TOPS, _W, _FastUnseen, draw_expectation
from engine.bots.scat_experte import normal_move as scat_move
from engine.bots.scat_experte import outcome as scat_outcome
from engine.bots.scat_experte import play_round_out as scat_round
from engine.bots.scat_experte import round_value as scat_value
from engine.bots.schwimmen import Normal as SchwimmenNormal
from engine.bots.schwimmen_experte import normal_move as schwimmen_move
from engine.bots.schwimmen_experte import outcome, rollout_value

from .botplay import play_game, positions

register(*EXPERTE_2026)  # the yardstick, as the arena registers it


def _states(game, seats: int, seed: int, options=None, moves: int = 400):
    """States along a game of mostly Normal moves (now and then a random legal one)."""
    normal = get_bot(game.GAME_ID, NORMAL)
    state = game.new_game(seats, options, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over(state):
            return
        if game.to_act(state) is None:
            state, _ = game.apply(state, "deal")
            continue
        yield state
        legal = game.legal_actions(state)
        obs = game.observation(state, game.to_act(state))
        action = rng.choice(legal) if rng.random() < 0.25 else normal.choose(obs, rng)
        state, _ = game.apply(state, action)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_schwimmen_normal_from_the_state_is_normal(seats):
    checked = 0
    for seed in range(25):
        for k, state in enumerate(_states(S, seats, seed)):
            expected = SchwimmenNormal().choose(S.observation(state, state.to_act),
                                                random.Random(k))
            assert schwimmen_move(state, random.Random(k)) is expected
            checked += 1
    assert checked > 500


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_schwimmen_round_on_card_ids_ends_as_the_engine_plays_it(seats):
    normal = SchwimmenNormal()
    checked = 0
    for seed in range(10):
        for k, state in enumerate(_states(S, seats, seed)):
            for seat in range(seats):
                end = play_round_out(S, state, normal.choose, random.Random(k))
                assert rollout_value(state, seat, random.Random(k)) == pytest.approx(
                    outcome(end, seat), abs=1e-12)
                checked += 1
    assert checked > 400


@pytest.mark.parametrize("seats,options", [(2, None), (3, None), (4, {"four_cards": True}),
                                           (5, {"trio_bonus": False})])
def test_scat_normal_from_the_state_is_normal(seats, options):
    checked = 0
    for seed in range(20):
        for k, state in enumerate(_states(K, seats, seed, options)):
            expected = ScatNormal().choose(K.observation(state, state.to_act), random.Random(k))
            assert scat_move(state, random.Random(k)) is expected
            checked += 1
    assert checked > 300


@pytest.mark.parametrize("seats,options", [(2, None), (3, {"no_first_turn_knock": True}),
                                           (4, {"four_cards": True}), (5, {"reentry": True})])
def test_scat_round_on_lists_ends_as_the_engine_plays_it(seats, options):
    checked = 0
    for seed in range(12):
        for k, state in enumerate(_states(K, seats, seed, options)):
            if k % 3:
                continue
            seat = k % seats
            expected = scat_outcome(scat_round(state, random.Random(k)), seat)
            assert scat_value(state, seat, random.Random(k)) == pytest.approx(expected, abs=1e-12)
            checked += 1
    assert checked > 100


def test_scat_draw_expectation_from_tables_is_the_average_over_every_card_to_draw():
    rng = random.Random(3)
    for _ in range(400):
        cards = rng.sample(K.DECK, 3 + rng.randint(0, 24))
        hand = tuple(cards[:3])
        known = 0
        for c in cards:
            known |= 1 << c.id
        unseen = [c for c in K.DECK if not (known >> c.id) & 1]
        trio = rng.random() < 0.7
        fast = draw_expectation(hand, _FastUnseen(known), trio)
        assert fast == pytest.approx(_draw_expectation(hand, Unseen(unseen), trio), abs=1e-9)
        brute = sum(K.best_discard(hand + (c,), trio)[0] for c in unseen) / len(unseen)
        assert fast == pytest.approx(brute, abs=1e-9)


def test_scat_hand_tables_hold_each_hand_in_every_order():
    """The tables are filled once per three cards, under each of their six orders: each
    entry is the hand's own value, whatever the order of its ids."""
    rng = random.Random(5)
    for _ in range(3000):
        hand = tuple(rng.sample(K.DECK, 3))
        k = (hand[0].id * _W + hand[1].id) * _W + hand[2].id
        assert _BASE[0][k] == K.half_points(hand, False)
        assert _BASE[1][k] == K.half_points(hand, True)
        assert _TOPS[k] == tuple(sum(sorted((K.CARD_VALUE[c.id] for c in hand if c.suit == s),
                                            reverse=True)[:2]) for s in range(4))


def test_climbing_normal_from_the_state_is_normal():
    checked = 0
    for seed in range(8):
        for k, state in enumerate(_states(C, 4, seed, moves=1500)):
            view = C.observation(state, state.to_act)
            expected = ClimbingNormal().choose(view, random.Random(k))
            assert climbing_move(state, random.Random(k)) is expected
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("options", [None, {"straight_step": "any"}])
def test_climbing_round_on_masks_ends_as_the_engine_plays_it(options):
    normal = ClimbingNormal()
    checked = 0
    for seed in range(4):
        for k, state in enumerate(_states(C, 4, seed, options, moves=1500)):
            if state.phase != "turn" or k % 7:
                continue
            end, rng = state, random.Random(k)
            while end.phase in ("turn", "exchange"):
                end, _ = C.apply(end, normal.choose(_View(end), rng))
            seat = k % 4
            assert round_points(state, seat, random.Random(k)) == end.result.points[seat]
            checked += 1
    assert checked > 50


def test_run_fast_hand_on_masks_ends_as_the_engine_plays_it():
    checked = 0
    for seed in range(40):
        for k, state in enumerate(_states(R, 3, seed, moves=600)):
            if state.phase != "turn" or k % 3:
                continue
            seat = k % 3
            expected = normal_playout(state, random.Random(k)).result.delta[seat]
            assert hand_value(state, seat, random.Random(k)) == expected
            checked += 1
    assert checked > 500


@pytest.mark.parametrize("game_id", ["schwimmen", "scat", "runfast", "climbing"])
def test_experte_decides_as_the_2026_experte_at_a_fixed_number_of_worlds(game_id):
    game = GAMES[game_id]
    for state in positions(game_id, seed=11, count=6):
        obs = game.observation(state, game.to_act(state))
        new = type(get_bot(game_id, EXPERTE))(playouts=8).choose(obs, random.Random(4))
        old = type(get_bot(game_id, OLD))(playouts=8).choose(obs, random.Random(4))
        assert new == old


def test_same_seed_same_move_at_a_fixed_number_of_worlds():
    for game_id in ("schwimmen", "scat", "runfast", "climbing"):
        game = GAMES[game_id]
        for state in positions(game_id, seed=23, count=3):
            obs = game.observation(state, game.to_act(state))
            bot = type(get_bot(game_id, EXPERTE))
            moves = {bot(playouts=6).choose(obs, random.Random(7)).code for _ in range(3)}
            assert len(moves) == 1


@pytest.mark.parametrize("game_id,seats", [("schwimmen", 2), ("schwimmen", 4), ("scat", 2),
                                           ("scat", 4), ("scat", 6)])
def test_experte_plays_legal_moves_at_every_table_size(game_id, seats):
    game = GAMES[game_id]
    bots = {s: type(get_bot(game_id, EXPERTE))(playouts=2) if s == seats - 1
            else get_bot(game_id, NORMAL) for s in range(seats)}
    decisions = play_game(game_id, game.new_game(seats, seed=900 + seats), bots,
                          random.Random(seats))
    assert decisions[seats - 1] > 0
