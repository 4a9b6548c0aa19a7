"""Scat Experte: determinized Monte Carlo over the unseen cards (see ``experte.py``).

World sampling: a card a player took from the discard pile and has not discarded again is in
that player's hand; the rest of every hand and the stock come from the cards nobody has seen
(hands, stock), with the stock exactly as large as it is. The discard pile is public.
Weighting: the round is rebuilt from its deal — every discard goes back into its player's hand,
every card taken from the pile back onto the pile, and for every draw from the stock one card
of the player's hand (not one known to be there already) back onto the stock — and replayed:
each move of another player counts by how well it fits the Normal bot's choice in the same
position; a rebuilt round in which somebody would have held 31 before it ended is impossible.
Playouts: the Normal bot for every seat to the end of the round. Outcome: the chance to win the
game from the tokens left (``win_chances``: tokens + 1 lives, the bus is the last one).
"""

from __future__ import annotations

import random
from bisect import bisect_right
from itertools import combinations, permutations
from typing import Any

from .. import scat as S
from ..cards import BY_CODE, Card
from ..protocol import FINAL_ROUND, TURN
from .experte import Experte, GameSearch, game_outcome
from .scat import Normal, Unseen, _draw_expectation

_DECK_BY_ID = sorted(S.DECK, key=lambda c: c.id)
# per suit the deck's (value, card bit) sorted by value; per rank the deck's cards
_SUIT_SORTED = [sorted((S.CARD_VALUE[c.id], 1 << c.id) for c in S.DECK if c.suit == suit)
                for suit in range(4)]
_SUIT_BITS = [sum(bit for _v, bit in row) for row in _SUIT_SORTED]
# per suit: its known cards (a mask) → the unseen values sorted and their running sums
_SUIT_ROWS: list[dict[int, tuple[list[int], list[int]]]] = [{}, {}, {}, {}]
_RANK_CARDS: dict[int, list[Card]] = {}
for _c in _DECK_BY_ID:
    _RANK_CARDS.setdefault(_c.rank, []).append(_c)


_W = 64  # card ids are below 64: three ids in any order index the tables below


def _hand_tables() -> tuple[tuple[list[int], list[int]], list[tuple[int, ...]]]:
    """Per three-card hand, indexed by its three ids in any order: its half points without
    and with the trio, and per suit the sum of its best two cards of that suit (computed once
    per hand, stored under each of its six orders)."""
    base = ([0] * (_W * _W * _W), [0] * (_W * _W * _W))
    tops: list[tuple[int, ...]] = [()] * (_W * _W * _W)
    for hand in combinations(S.DECK, 3):
        plain, trio = S.half_points(hand, False), S.half_points(hand, True)
        top = tuple(sum(sorted((S.CARD_VALUE[c.id] for c in hand if c.suit == suit),
                               reverse=True)[:2]) for suit in range(4))
        for a, b, d in permutations(hand):
            k = (a.id * _W + b.id) * _W + d.id
            base[0][k], base[1][k], tops[k] = plain, trio, top
    return base, tops


_BASE, _TOPS = _hand_tables()  # half points without / with the trio; best two per suit


def draw_expectation(hand: Any, unseen: Unseen, trio: bool) -> float:
    """``scat._draw_expectation`` (exactly), with a three-card hand's value and best cards
    per suit from tables."""
    if len(hand) != 3:
        return _draw_expectation(hand, unseen, trio)
    c0, c1, c2 = hand
    k = (c0.id * _W + c1.id) * _W + c2.id
    base = _BASE[trio][k]
    n = unseen.n
    if not n:
        return float(base)
    tops = _TOPS[k]
    total = 0
    half = base // 2
    for s in range(4):
        vals = unseen.vals[s]
        if not vals:
            continue
        t = tops[s]
        m = len(vals)
        j = bisect_right(vals, half - t)  # the first j leave the hand as it is
        sums = unseen.sums[s]
        total += 2 * (sums[m] - sums[j] + (m - j) * t) + base * j
    if trio:
        r0, r1, r2 = c0.rank, c1.rank, c2.rank
        pair_rank = r0 if r0 in (r1, r2) else r1 if r1 == r2 else -1
        for c in unseen.by_rank.get(pair_rank, ()):  # a third card of the pair's rank: 30½
            v = 2 * (S.CARD_VALUE[c.id] + tops[c.suit])
            before = v if v > base else base
            if v < 61:
                v = 61
            total += (v if v > base else base) - before
    return total / n


class _ByRank:
    """``Unseen.by_rank`` on demand: the unseen cards of a rank."""

    __slots__ = ("known",)

    def __init__(self, known: int) -> None:
        self.known = known

    def get(self, rank: int, default: Any = ()) -> list[Card]:
        known = self.known
        return [c for c in _RANK_CARDS.get(rank, ()) if not (known >> c.id) & 1]


class _FastUnseen(Unseen):
    """``scat.Unseen`` of the cards not in a mask of known cards, from presorted tables."""

    __slots__ = ()

    def __init__(self, known: int) -> None:  # noqa: D107 - no call of Unseen.__init__
        n = 0
        self.vals = []
        self.sums = []
        for suit in range(4):
            part = known & _SUIT_BITS[suit]  # a suit's known cards: its row of the tables
            row = _SUIT_ROWS[suit].get(part)
            if row is None:
                vals = [v for v, bit in _SUIT_SORTED[suit] if not part & bit]
                acc = [0]
                for v in vals:
                    acc.append(acc[-1] + v)
                row = _SUIT_ROWS[suit][part] = (vals, acc)
            n += len(row[0])
            self.vals.append(row[0])
            self.sums.append(row[1])
        self.n = n
        self.by_rank = _ByRank(known)  # type: ignore[assignment]


class _View:
    """The parts of an observation Normal reads, straight from a state (playouts, weights)."""

    __slots__ = ("legal", "hand", "drawn", "from_pile", "phase", "discard", "players", "turns",
                 "lives", "seat", "seats", "dealer", "hand_size", "trio_bonus")

    def __init__(self, state: S.State, hand_size: int, trio: bool) -> None:
        s: int = state.to_act  # type: ignore[assignment]
        self.legal = S.legal_actions(state)
        self.hand = state.hands[s]
        self.drawn = state.drawn
        self.from_pile = state.from_pile
        self.phase = state.phase
        self.discard = state.discard
        self.players = state.players
        self.turns = state.turns
        self.lives = state.lives
        self.seat = s
        self.seats = state.seats
        self.dealer = state.dealer
        self.hand_size = hand_size
        self.trio_bonus = trio


class FastNormal(Normal):
    """Normal (the same decisions for the same dice) on a state's view, its unseen cards
    arranged from presorted tables, its draw expectations from tables of hands."""

    expectation = staticmethod(draw_expectation)

    def choose(self, obs: Any, rng: random.Random) -> S.ScatAction:
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        known = 0
        for c in obs.hand:
            known |= 1 << c.id
        for c in obs.discard:
            known |= 1 << c.id
        return self._decide(obs, _FastUnseen(known), rng)


def normal_move(state: S.State, rng: random.Random) -> S.ScatAction:
    """Normal's move for the seat on turn, straight from the state (it reads only what the
    seat's observation shows)."""
    opts = state.options
    return _POLICY.choose(_View(state, 4 if dict(opts)["four_cards"] else 3,
                                bool(dict(opts)["trio_bonus"])), rng)


_POLICY = FastNormal()


def _before_draw(stock: bool, final: bool, may_knock: bool) -> tuple[S.ScatAction, ...]:
    """The legal moves before drawing (``scat.legal_actions``)."""
    out = [S.DRAW, S.TAKE] if stock else [S.TAKE]
    if not final:
        if may_knock:
            out.append(S.KNOCK)
        if not stock:
            out.append(S.PASS)
    else:
        out.append(S.PASS)
    return tuple(out)


_LEGAL = {(a, b, c): _before_draw(a, b, c) for a in (False, True) for b in (False, True)
          for c in (False, True)}


class _Turn:
    """What Normal reads of a position in ``round_value`` (filled in place for each move)."""

    __slots__ = ("legal", "hand", "drawn", "from_pile", "phase", "discard", "players", "turns",
                 "lives", "seat", "seats", "dealer", "hand_size", "trio_bonus")


def round_value(state: S.State, seat: int, rng: random.Random) -> float:
    """``outcome`` for ``seat`` after the rest of the round is played by Normal players — the
    engine's rules of a turn (draw or take, the blitz, the discard, the knock and the last
    turns, the empty stock) on lists, Normal's unseen cards from bit masks; the showdown is the
    engine's. The same as playing it with ``scat.apply``, faster."""
    if state.phase != TURN and state.phase != FINAL_ROUND:
        return outcome(state, seat)
    no_first, trio, _reentry, size = S._flags(state.options)
    hands = list(state.hands)
    stock = list(state.stock)
    discard = list(state.discard)
    pile = 0
    for c in discard:
        pile |= 1 << c.id
    moved = list(state.moved)
    final = state.phase == FINAL_ROUND
    knocker = state.knocker
    final_left = state.final_left
    turns = state.turns
    players = state.players
    s: int = state.to_act  # type: ignore[assignment]
    drawn = state.drawn
    from_pile = state.from_pile
    view = _Turn()
    view.discard, view.players, view.lives = discard, players, state.lives
    view.seats, view.dealer, view.hand_size, view.trio_bonus = state.seats, state.dealer, size, trio
    decide = _POLICY._decide
    drop_of = S.drop
    while True:
        hand = hands[s]
        view.hand, view.seat, view.turns, view.phase = hand, s, turns, FINAL_ROUND if final else TURN
        view.drawn, view.from_pile = drawn, from_pile
        known = pile
        for c in hand:
            known |= 1 << c.id
        if drawn is None:
            legal = _LEGAL[(bool(stock), final, not final and (moved[s] or not no_first))]
            view.legal = legal
            action = decide(view, _FastUnseen(known), rng)  # type: ignore[arg-type]
            kind = action.kind
            if kind == "draw" or kind == "take":
                if kind == "draw":
                    card = stock.pop()
                else:
                    card = discard.pop()
                    pile &= ~(1 << card.id)
                hand = hands[s] = hand + (card,)
                drawn, from_pile = card, kind == "take"
                if not final and S._blitz_after_draw(hand, card, size):
                    reason, by, blitz = "blitz", None, (s,)
                    break
                continue
            if kind == "knock":
                knocker = s
                turns += 1
                if not stock:
                    reason, by, blitz = "stock_knock", s, ()
                    break
                final, final_left = True, len(players) - 1
                s = S.seat_after(players, s)
                continue
            if not final:  # a pass with the stock empty ends the round at once
                turns += 1
                reason, by, blitz = "stock_pass", None, ()
                break
        else:
            legal = tuple(drop_of(c) for c in hand if not (from_pile and c is drawn))
            view.legal = legal
            action = decide(view, _FastUnseen(known), rng)  # type: ignore[arg-type]
            card = action.card  # type: ignore[attr-defined]
            hands[s] = tuple(c for c in hand if c is not card)
            discard.append(card)
            pile |= 1 << card.id
            moved[s] = True
            drawn, from_pile = None, False
        # the turn is over
        turns += 1
        if final:
            final_left -= 1
            if final_left == 0:
                reason, by, blitz = "knock", knocker, ()
                break
        s = S.seat_after(players, s)
    end = state._replace(hands=tuple(hands), stock=tuple(stock), discard=tuple(discard),
                         phase=FINAL_ROUND if final else TURN, to_act=s, drawn=drawn,
                         from_pile=from_pile, knocker=knocker, final_left=final_left,
                         moved=tuple(moved), turns=turns)
    return outcome(S._showdown(end, reason, by, blitz, [])[0], seat)


def play_round_out(state: S.State, rng: random.Random) -> S.State:
    """The round played to its end by Normal players (``normal_move``)."""
    apply = S.apply
    opts = dict(state.options)
    view_args = (4 if opts["four_cards"] else 3, bool(opts["trio_bonus"]))
    policy = FastNormal()
    while state.phase == TURN or state.phase == FINAL_ROUND:
        state, _ = apply(state, policy.choose(_View(state, *view_args), rng))
    return state
MISS_KIND = 0.1  # weight of a move of another kind than Normal's (knock / take / draw)
MISS_CARD = 0.3  # … of another discard than Normal's


def parse_history(history: tuple[str, ...]) -> list[tuple[int, str, Card | None]]:
    """The public moves as (seat, kind, card): kinds draw, take, drop, knock, pass."""
    out = []
    for entry in history:
        who, _, code = entry.partition(":")
        kind, _, card = code.partition(".")
        out.append((int(who), kind, BY_CODE[card] if card else None))
    return out


def known_cards(moves: list[tuple[int, str, Card | None]], seats: int) -> list[set[Card]]:
    """For each seat, the cards it took from the discard pile and still holds."""
    known: list[set[Card]] = [set() for _ in range(seats)]
    for s, kind, card in moves:
        if kind == "take":
            known[s].add(card)  # type: ignore[arg-type]
        elif kind == "drop":
            known[s].discard(card)  # type: ignore[arg-type]
    return known


LONG_ROUND = 20  # turns of every player after which Normal's move is played (see
# GameSearch.long_round: with the stock empty, taking the discard top could go on forever)


class ScatSearch(GameSearch):
    game = S

    def __init__(self) -> None:
        self.policy = Normal()
        self._cache: tuple[Any, Any] | None = None

    def _prepared(self, obs: S.Observation) -> tuple[list, list[set[Card]], list[frozenset]]:
        """Parsed history, known cards now, and the known cards of the mover at each move."""
        if self._cache is not None and self._cache[0] is obs:
            return self._cache[1]
        moves = parse_history(obs.history)
        known_then: list[frozenset] = []
        known: list[set[Card]] = [set() for _ in range(obs.seats)]
        for s, kind, card in moves:
            known_then.append(frozenset(known[s]))
            if kind == "take":
                known[s].add(card)  # type: ignore[arg-type]
            elif kind == "drop":
                known[s].discard(card)  # type: ignore[arg-type]
        prepared = (moves, known, known_then)
        self._cache = (obs, prepared)
        return prepared

    def candidates(self, obs: S.Observation, rng: random.Random) -> list[Any]:
        legal = list(obs.legal)
        first = self.policy.choose(obs, random.Random(0))
        legal.remove(first)
        return [first] + legal

    def long_round(self, obs: S.Observation) -> bool:
        return obs.phase == TURN and obs.turns >= LONG_ROUND * len(obs.players)

    def sample_world(self, obs: S.Observation, rng: random.Random) -> S.State:
        n = obs.seats
        me = obs.seat
        _, known_now, _ = self._prepared(obs)
        size = 4 if dict(obs.options)["four_cards"] else 3
        taken = set(obs.hand) | set(obs.discard)
        known = [set() if s == me else set(known_now[s]) - taken for s in range(n)]
        for s in range(n):
            taken |= known[s]
        pool = [c for c in _DECK_BY_ID if c not in taken]
        rng.shuffle(pool)
        hands: list[tuple[Card, ...]] = []
        for s in range(n):
            if s == me:
                hands.append(obs.hand)
            elif s in obs.players:
                mine = sorted(known[s], key=lambda c: c.id)[:size]
                while len(mine) < size and pool:
                    mine.append(pool.pop())
                hands.append(tuple(mine))
            else:
                hands.append(())
        stock = tuple(pool[:obs.stock_size])
        return S.State(
            seats=n, options=obs.options, seed=0, round_no=obs.round_no, dealer=obs.dealer,
            lives=obs.lives, out=obs.out, reentered=obs.reentered, players=obs.players,
            tiebreak=obs.tiebreak, hands=tuple(hands), stock=stock, discard=obs.discard,
            phase=obs.phase, to_act=obs.to_act, drawn=obs.drawn, from_pile=obs.from_pile,
            knocker=obs.knocker, final_left=obs.final_left, moved=obs.moved, turns=obs.turns,
            result=None, winner=None, history=obs.history,
        )

    def world_pool(self, obs: S.Observation, rng: random.Random,
                   size: int) -> list[tuple[S.State, float]] | None:
        """A particle filter over the round: ``size`` random deals are played forward along
        the public moves; the others' moves weigh each particle by how well they fit the
        Normal bot's choice there; a card somebody discards that the particle does not have in
        that hand is swapped in from where it is (stock, another hand not known to hold it);
        weak particles are dropped and strong ones copied (with the stock shuffled anew)."""
        moves, _, _ = self._prepared(obs)
        if not moves:
            return None
        me = obs.seat
        n = obs.seats
        players = obs.players
        opts = dict(obs.options)
        hsize = 4 if opts["four_cards"] else 3
        pile = list(obs.discard)  # the pile at the deal: undo the public pile moves
        for _s, kind, card in reversed(moves):
            if kind == "drop":
                pile.pop()
            elif kind == "take":
                pile.append(card)  # type: ignore[arg-type]
        rest = [c for c in _DECK_BY_ID if c not in pile]
        starter = S.seat_after(players, obs.dealer)
        order = players[players.index(starter):] + players[:players.index(starter)]
        base = S.State(
            seats=n, options=obs.options, seed=0, round_no=obs.round_no, dealer=obs.dealer,
            lives=obs.lives, out=obs.out, reentered=obs.reentered, players=players,
            tiebreak=obs.tiebreak, hands=((),) * n, stock=(), discard=tuple(pile), phase=TURN,
            to_act=starter, drawn=None, from_pile=False, knocker=None, final_left=0,
            moved=(False,) * n, turns=0, result=None, winner=None, history=())
        parts: list[S.State] = []
        for _ in range(size):
            deck = rest[:]
            rng.shuffle(deck)
            hands: list[tuple[Card, ...]] = [()] * n
            for k, seat in enumerate(order):
                hands[seat] = tuple(deck[k * hsize:(k + 1) * hsize])
            parts.append(base._replace(hands=tuple(hands),
                                       stock=tuple(deck[len(order) * hsize:])))
        weights = [1.0] * size
        pinned: list[set[Card]] = [set() for _ in range(n)]  # taken from the pile, still held
        blitz = 82 if hsize == 4 else 62
        trio = opts["trio_bonus"]
        for p in range(size):  # a dealt blitz would have ended the round at once
            if any(S.half_points(parts[p].hands[x], trio) == blitz for x in players):
                weights[p] = 0.0
        for s, kind, card in moves:
            action = S.drop(card) if kind == "drop" else S.parse_action(kind)  # type: ignore[arg-type]
            for p in range(size):
                if not weights[p]:
                    continue
                state = parts[p]
                if state.to_act != s or state.phase not in (TURN, FINAL_ROUND):
                    weights[p] = 0.0
                    continue
                if kind == "drop" and card not in state.hands[s]:
                    state = _swap_in(state, s, card, pinned[s], rng)  # type: ignore[arg-type]
                    if state is None:
                        weights[p] = 0.0
                        continue
                if s != me:
                    model = normal_move(state, random.Random(0))
                    if model is not action:
                        weights[p] *= MISS_CARD if model.kind == "drop" else MISS_KIND
                state, _ = S.apply(state, action)
                if state.phase not in (TURN, FINAL_ROUND):
                    weights[p] = 0.0  # a blitz on the way would have ended the round
                    continue
                parts[p] = state
            if kind == "take":
                pinned[s].add(card)  # type: ignore[arg-type]
            elif kind == "drop":
                pinned[s].discard(card)  # type: ignore[arg-type]
            total = sum(weights)
            if total <= 0:
                return None
            if total * total < 0.5 * size * sum(w * w for w in weights):
                parts, weights = _resample(parts, weights, rng)
        out = []
        for p in range(size):
            if not weights[p]:
                continue
            state = _own_hand(parts[p], obs, pinned, rng)
            if state is not None:
                out.append((state, weights[p]))
        return out or None

    def refresh(self, world: S.State, rng: random.Random) -> S.State:
        stock = list(world.stock)
        rng.shuffle(stock)
        return world._replace(stock=tuple(stock))

    def rollout(self, world: S.State, action: Any, seat: int, rng: random.Random) -> float:
        state, _ = S.apply(world, action)
        return round_value(state, seat, rng)


def _where(state: S.State, card: Card) -> int:
    """Where a card is in a particle: a seat, or -1 for the stock, -2 for elsewhere."""
    for x, h in enumerate(state.hands):
        if card in h:
            return x
    return -1 if card in state.stock else -2


def _swap_in(state: S.State, seat: int, card: Card, pinned: set[Card],
             rng: random.Random) -> S.State | None:
    """The particle with ``card`` exchanged into ``seat``'s hand for one of its cards that is
    not known to be there (and not the card just taken from the pile)."""
    hand = state.hands[seat]
    free = [c for c in hand if c not in pinned and not (state.from_pile and c is state.drawn)]
    where = _where(state, card)
    if not free or where == -2:
        return None
    # the card the player had instead of ``card`` is the one it would have thrown away
    trio = dict(state.options)["trio_bonus"]
    best = None
    for c in free:
        v = S.half_points([d for d in hand if d is not c], trio) + rng.random() * 0.5
        if best is None or v > best[0]:
            best = (v, c)
    out = best[1]  # type: ignore[index]
    hands = list(state.hands)
    hands[seat] = tuple(card if c is out else c for c in hand)
    stock = state.stock
    if where == -1:
        stock = tuple(out if c is card else c for c in stock)
    else:
        hands[where] = tuple(out if c is card else c for c in hands[where])
    drawn = state.drawn
    if drawn is out and seat == state.to_act:
        drawn = card
    return state._replace(hands=tuple(hands), stock=stock, drawn=drawn)


def _resample(parts: list[S.State], weights: list[float],
              rng: random.Random) -> tuple[list[S.State], list[float]]:
    """Systematic resampling; copies get their stock shuffled anew."""
    size = len(parts)
    total = sum(weights)
    step = total / size
    u = rng.random() * step
    out: list[S.State] = []
    acc = weights[0]
    i = 0
    seen: set[int] = set()
    for _ in range(size):
        while acc < u and i < size - 1:
            i += 1
            acc += weights[i]
        state = parts[i]
        if i in seen:
            stock = list(state.stock)
            rng.shuffle(stock)
            state = state._replace(stock=tuple(stock))
        seen.add(i)
        out.append(state)
        u += step
    return out, [1.0] * size


def _own_hand(state: S.State, obs: S.Observation, pinned: list[set[Card]],
              rng: random.Random) -> S.State | None:
    """The particle with the observer's real hand (its own draws are not in the observation):
    each real card is exchanged in for a card of the particle's hand that is not real."""
    me = obs.seat
    real = set(obs.hand)
    for card in obs.hand:
        hand = state.hands[me]
        if card in hand:
            continue
        where = _where(state, card)
        if where == -2 or (where >= 0 and card in pinned[where]):
            return None
        out = next(c for c in hand if c not in real)
        hands = list(state.hands)
        hands[me] = tuple(card if c is out else c for c in hand)
        stock = state.stock
        if where == -1:
            stock = tuple(out if c is card else c for c in stock)
        else:
            hands[where] = tuple(out if c is card else c for c in hands[where])
        state = state._replace(hands=tuple(hands), stock=stock)
    hands = list(state.hands)
    hands[me] = obs.hand
    return state._replace(hands=tuple(hands), drawn=obs.drawn, from_pile=obs.from_pile,
                          history=obs.history)


def outcome(state: S.State, seat: int) -> float:
    """The chance to win the game after the round (tokens + 1 lives per player still in)."""
    return game_outcome(state, seat, state.lives)


class ScatExperte(Experte):
    """Searches the unseen cards: samples hands and stock consistent with what it saw, plays
    each move out with Normal players to the end of the round, keeps the best chance to win."""

    game_id = "scat"
    search_class = ScatSearch
