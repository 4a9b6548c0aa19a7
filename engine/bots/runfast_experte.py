"""Run Fast Experte: determinized Monte Carlo over the two hidden hands (see ``experte.py``).

World sampling: the cards neither played nor in the own hand are split between the two others
with their card counts, so that every pass in the public history was forced — a player who
passed could not beat the play on the table with the hand it held then (its cards now plus the
ones it played since); in the first hand of a match the leader holds 3♠ until it is played.
Cards above a single somebody passed on go to the other player straight away; the rest is dealt
at random and checked (the best of a few tries if none fits every pass). Playouts: the Normal
bot for every seat to the end of the hand. Outcome: the points of the hand for the own seat
(cards paid or collected and the bombs of the hand).
"""

from __future__ import annotations

import random
from typing import Any

from .. import runfast as R
from ..protocol import TURN
from ..runfast import _bits
from .experte import Experte, GameSearch
from .runfast import _cheapest, _structure_cost, normal_play

MAX_CANDIDATES = 8  # plays searched besides Normal's (by Normal's own order)
TRIES = 24  # random splits tried for one world
_THREE_SPADES = 1 << R.THREE_OF_SPADES.id
_ABOVE = [0] * 14  # mask of all cards with power > o (index o + 1)
for _o in range(13):
    for _c in R.DECK:
        if R.CARD_POWER[_c.id] > _o:
            _ABOVE[_o + 1] |= 1 << _c.id
_ABOVE[0] = R.DECK_MASK


def normal_playout(state: R.State, rng: random.Random) -> R.State:
    """The hand played to its end by Normal players (each from its own hand and the counts)."""
    apply, play_families = R.apply, R.play_families
    while state.phase == TURN:
        fams = play_families(state)
        if not fams:
            state, _ = apply(state, R.PASS)
            continue
        s = state.to_act
        hands = state.hands
        fam, mask = normal_play(fams, hands[s], tuple(h.bit_count() for h in hands), s,
                                state.table is None, rng)
        state, _ = apply(state, R.play_action(mask, fam.kind))
    return state


_FAMILIES: dict[tuple[int, Any, bool], list[R.Family]] = {}  # (hand, table, next one) → plays


def hand_value(state: R.State, seat: int, rng: random.Random) -> float:
    """The points of the hand for ``seat`` after the rest of it is played by Normal players
    (``normal_play``, from each one's hand and the counts) — the engine's rules of a turn, the
    trick and the hand's end on bit masks, each position's plays remembered (``families`` is a
    pure function): the same as ``normal_playout`` and ``HandResult.delta``, faster."""
    if state.phase != TURN:
        return float(state.result.delta[seat])  # type: ignore[union-attr]
    hands = list(state.hands)
    table = state.table
    table_seat = state.table_seat
    s: int = state.to_act  # type: ignore[assignment]
    bombs = [who for who, _power in state.bombs]
    cache = _FAMILIES
    families = R.families
    while True:
        hand = hands[s]
        nxt = (s + 1) % 3
        key = (hand, table, hands[nxt].bit_count() == 1)
        fams = cache.get(key)
        if fams is None:
            if len(cache) > 200_000:
                cache.clear()
            fams = cache[key] = families(*key)
        if not fams:  # pass; both others passed: the last player leads anew
            if nxt == table_seat:
                table, table_seat = None, None
            s = nxt
            continue
        fam, mask = normal_play(fams, hand, (hands[0].bit_count(), hands[1].bit_count(),
                                             hands[2].bit_count()), s, table is None, rng)
        left = hands[s] = hand & ~mask
        if fam.kind == R.BOMB:
            bombs.append(s)
        if not left:
            break
        table, table_seat = (fam.kind, fam.length, fam.power), s
        s = nxt
    winner = s
    value = 0.0
    for x in range(3):  # the cards left: one point each, double from one who played none
        if x != winner:
            n = hands[x].bit_count()
            paid = n * (2 if n == R.HAND_SIZE else 1)
            value += paid if seat == winner else -paid if x == seat else 0
    for who in bombs:
        value += R.BOMB_BONUS if who == seat else -R.BOMB_COST
    return value


class Knowledge:
    """What the public history of the hand says about the others' hands."""

    def __init__(self, obs: R.Observation) -> None:
        me = obs.seat
        counts = [R.HAND_SIZE] * 3
        table = None
        table_seat = None
        passes: list[tuple[int, Any, bool, int]] = []  # seat, key, next_one, move index
        plays: list[tuple[int, int, int]] = []  # seat, mask, move index
        for idx, entry in enumerate(obs.history):
            who, _, code = entry.partition(":")
            s = int(who)
            if code == "pass":
                passes.append((s, table, counts[(s + 1) % 3] == 1, idx))
                if (s + 1) % 3 == table_seat:
                    table, table_seat = None, None
                continue
            mask = R.parse_action(code).mask
            key = R.interpret(mask, False, table) or R.interpret(mask, True, table)
            counts[s] -= mask.bit_count()
            plays.append((s, mask, idx))
            table, table_seat = key, s
        # the cards each seat played after each pass: its hand then = its hand now | these
        self.constraints: list[tuple[int, Any, bool, int]] = []
        for s, key, next_one, idx in passes:
            if s == me or key is None:
                continue
            later = 0
            for t, mask, j in plays:
                if t == s and j > idx:
                    later |= mask
            self.constraints.append((s, key, next_one, later))
        # singles passed on: nothing above them (a bomb would beat them too)
        self.cap = [13, 13, 13]  # the seat holds no card of power ≥ cap (else a violation)
        for s, key, next_one, _later in self.constraints:
            if key[0] == R.SINGLE and not next_one:
                self.cap[s] = min(self.cap[s], key[2] + 1)
        self.leader_three = (obs.round_no == 1 and obs.starter != me
                             and not any(c is R.THREE_OF_SPADES for c in obs.played))
        self.starter = obs.starter

    def violations(self, hands: list[int]) -> int:
        bad = 0
        for s, key, next_one, later in self.constraints:
            if R.families(hands[s] | later, key, next_one):
                bad += 1
        return bad


class RunFastSearch(GameSearch):
    game = R

    def __init__(self) -> None:
        self._cache: tuple[Any, Knowledge] | None = None

    def knowledge(self, obs: R.Observation) -> Knowledge:
        if self._cache is None or self._cache[0] is not obs:
            self._cache = (obs, Knowledge(obs))
        return self._cache[1]

    def candidates(self, obs: R.Observation, rng: random.Random) -> list[Any]:
        fams = list(getattr(obs.legal, "families", []))
        if not fams:
            return list(obs.legal)
        hand = obs.hand_mask
        fam, mask = normal_play(fams, hand, obs.counts, obs.seat, obs.current is None,
                                random.Random(0))
        first = R.play_action(mask, fam.kind)
        scored = []
        for f in fams:
            m = _cheapest(f, hand, _structure_cost)
            if m == mask:
                continue
            score = _structure_cost(m, hand) + 0.35 * f.power - 0.9 * m.bit_count()
            scored.append((score, m, f.kind))
        scored.sort(key=lambda t: (t[0], t[1]))
        bombs = [t for t in scored if t[2] == R.BOMB][:1]
        rest = [t for t in scored if t[2] != R.BOMB][:MAX_CANDIDATES]
        return [first] + [R.play_action(m, kind) for _, m, kind in rest + bombs]

    def sample_world(self, obs: R.Observation, rng: random.Random) -> R.State:
        me = obs.seat
        know = self.knowledge(obs)
        played = R.mask_of(obs.played)
        unknown = R.DECK_MASK & ~obs.hand_mask & ~played
        others = [(me + 1) % 3, (me + 2) % 3]
        a, b = others
        best: tuple[int, list[int]] | None = None
        for _ in range(TRIES):
            hands = [0, 0, 0]
            hands[me] = obs.hand_mask
            free = unknown
            need = {a: obs.counts[a], b: obs.counts[b]}
            if know.leader_three and free & _THREE_SPADES:
                hands[know.starter] |= _THREE_SPADES
                need[know.starter] -= 1
                free &= ~_THREE_SPADES
            # cards above a single a player passed on belong to the other one
            for s, o in ((a, b), (b, a)):
                forced = free & _ABOVE[know.cap[s]]
                k = forced.bit_count()
                if k and k <= need[o]:
                    hands[o] |= forced
                    need[o] -= k
                    free &= ~forced
            cards = _bits(free)
            rng.shuffle(cards)
            split = need[a]
            if split < 0 or need[b] < 0 or split + need[b] != len(cards):
                cards_all = _bits(unknown)  # the shortcut did not fit: deal everything anew
                rng.shuffle(cards_all)
                hands = [0, 0, 0]
                hands[me] = obs.hand_mask
                hands[a] = sum(cards_all[:obs.counts[a]])
                hands[b] = sum(cards_all[obs.counts[a]:])
            else:
                hands[a] |= sum(cards[:split])
                hands[b] |= sum(cards[split:])
            bad = know.violations(hands)
            if best is None or bad < best[0]:
                best = (bad, hands)
            if not bad:
                break
        assert best is not None
        return self._state(obs, best[1])

    @staticmethod
    def _state(obs: R.Observation, hands: list[int]) -> R.State:
        current = obs.current
        return R.State(
            seats=3, options=(("hands", obs.hands_total),), seed=0, round_no=obs.round_no,
            hands=tuple(hands), phase=obs.phase, to_act=obs.to_act,
            table=None if current is None else current.key,
            table_mask=0 if current is None else current.mask, table_seat=obs.table_seat,
            passed=obs.passed, starter=obs.starter, played=R.mask_of(obs.played),
            bombs=obs.bombs, scores=obs.scores, turns=obs.turns, result=None, winners=(),
            history=obs.history,
        )

    def rollout(self, world: R.State, action: Any, seat: int, rng: random.Random) -> float:
        return hand_value(R.apply(world, action)[0], seat, rng)


class RunFastExperte(Experte):
    """Searches the hidden hands: samples splits that agree with every forced pass, plays its
    best plays out with Normal players to the end of the hand, keeps the most points."""

    game_id = "runfast"
    search_class = RunFastSearch
