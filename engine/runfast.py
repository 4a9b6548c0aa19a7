"""Run Fast / Pao De Kuai (跑得快), docs/rules-runfast.md — game id ``runfast``.

Three players, 16 cards each from a 48-card deck (52 without 2♥ 2♣ 2♦ and A♠). Players shed
combinations; the next player must beat the play on the table (same kind, same size, higher
rank; a bomb beats every non-bomb) or pass, and must beat when able. The first player out wins
the hand; every loser pays a point per card left (double when they played no card at all);
each bomb pays its player +10 and each other player −5 at once. A match has 4 or 8 hands.

Representation (for speed): a set of cards is an ``int`` bit mask over card ids
(``engine.cards``: id = (rank − 2) · 4 + suit), so every rank is one nibble of the mask.
*Power* is the Run Fast strength of a rank: 3 → 0, 4 → 1, …, A → 11, 2 → 12.

Action codes: ``p.<mask in base 36>`` for a play (lower case, no leading zeros; the 16-card
play of a whole hand is at most 11 characters after ``p.``), ``pass`` and ``deal``.

"Exactly once": ``legal_actions`` lists every legal play exactly once as a *card set* (two kicker
choices that differ only in the suit of equal-rank cards are different plays). A card set that
reads as an airplane in more than one way (e.g. 555666777+8 as 666777 with kickers 5558 or as
555666 with 7778) is listed once and counts as its highest reading.
"""

from __future__ import annotations

import json
import random
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations, product
from types import MappingProxyType
from typing import Any, NamedTuple

from .cards import CARDS, RANK_LABELS, Card, card, from_codes, parse_cards
from .protocol import FINISHED, PAYOUT, TURN, Action, Event, GameError, IllegalAction

GAME_ID = "runfast"
MIN_SEATS = 3
MAX_SEATS = 3
HAND_SIZE = 16
DEFAULT_OPTIONS: dict[str, Any] = {"hands": 4}
HANDS_CHOICES = (4, 8)
BOMB_BONUS = 10  # to the bomb's player
BOMB_COST = 5  # from each other player

SINGLE, PAIR, PAIR_CHAIN, STRAIGHT = "single", "pair", "pair_chain", "straight"
TRIPLE_TWO, AIRPLANE, BOMB = "triple_two", "airplane", "bomb"
KINDS = (SINGLE, PAIR, PAIR_CHAIN, STRAIGHT, TRIPLE_TWO, AIRPLANE, BOMB)

_REMOVED = {card(2, 0), card(2, 2), card(2, 3), card(14, 1)}  # 2♣ 2♥ 2♦ A♠
DECK: tuple[Card, ...] = tuple(c for c in CARDS[:52] if c not in _REMOVED)
DECK_MASK = sum(1 << c.id for c in DECK)
THREE_OF_SPADES = card(3, 1)

# power o (0..12) → nibble n of the mask (rank − 2) and its bit shift
_NIB = tuple(0 if o == 12 else o + 1 for o in range(13))
_SH = tuple(4 * n for n in _NIB)
_POWER_OF_RANK = {r: (12 if r == 2 else r - 3) for r in range(2, 15)}
_RANK_OF_POWER = tuple(2 if o == 12 else o + 3 for o in range(13))
_POP = tuple(bin(v).count("1") for v in range(16))
_BITS4 = tuple(tuple(b for b in (1, 2, 4, 8) if v & b) for v in range(16))
_PAIRS4 = tuple(tuple(a | b for a, b in combinations(_BITS4[v], 2)) for v in range(16))
_TOP_CHAIN = 11  # chains, straights and airplanes end at the ace at the latest
# power of each card id (for bots and sorting)
CARD_POWER = tuple(_POWER_OF_RANK.get(c.rank, -1) for c in CARDS)


def power_of(rank: int) -> int:
    """The Run Fast strength of a card rank (3 → 0 … A → 11, 2 → 12)."""
    return _POWER_OF_RANK[rank]


def rank_of(power: int) -> int:
    """The card rank of a strength (the inverse of ``power_of``)."""
    return _RANK_OF_POWER[power]


def rank_label(power: int) -> str:
    """The rank of a strength as written on the card (``3`` … ``A``, ``2``)."""
    return RANK_LABELS[_RANK_OF_POWER[power]]


def mask_of(cards: Iterable[Card]) -> int:
    """The bit mask of a set of cards."""
    m = 0
    for c in cards:
        m |= 1 << c.id
    return m


# the cards (and codes) of each nibble value at each power, weakest suit first
_NIB_CARDS = tuple(tuple(tuple(CARDS[4 * _NIB[o] + b] for b in range(4) if v >> b & 1)
                         for v in range(16)) for o in range(13))
_NIB_CODES = tuple(tuple(tuple(c.code for c in cs) for cs in row) for row in _NIB_CARDS)


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, weakest first (by power, then suit)."""
    out: tuple[Card, ...] = ()
    for o in range(13):
        v = (mask >> _SH[o]) & 15
        if v:
            out += _NIB_CARDS[o][v]
    return out


def card_codes(mask: int) -> list[str]:
    """The ASCII codes of the cards of a mask, weakest first."""
    out: list[str] = []
    for o in range(13):
        v = (mask >> _SH[o]) & 15
        if v:
            out += _NIB_CODES[o][v]
    return out


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Cards in Run Fast order: 3 lowest … A, 2 highest; suits ♣ ♠ ♥ ♦ within a rank."""
    return tuple(sorted(cards, key=lambda c: (CARD_POWER[c.id], c.suit)))


# ---------------------------------------------------------------------------------------------
# Combinations


class Combo(NamedTuple):
    """A classified play. ``rank`` is the card rank that decides (the top of a chain, straight or
    airplane; the triple of a triple-with-two); ``power`` its strength; ``length`` the units
    (cards of a straight, pairs of a chain, triples of an airplane; 1 otherwise)."""

    kind: str
    rank: int
    length: int
    cards: tuple[Card, ...]
    power: int

    @property
    def mask(self) -> int:
        return mask_of(self.cards)

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.kind, self.length, self.power)


Key = tuple[str, int, int]  # (kind, length, power): what beating compares


_NIB_LOW = sum(1 << (4 * n) for n in range(13))
_BOMB_MASKS = frozenset(15 << (4 * n) for n in range(13))


def _counts(mask: int) -> list[int]:
    return [_POP[(mask >> sh) & 15] for sh in _SH]


def _best_run(cnt: list[int], n: int, above: int) -> int | None:
    """The highest top power of ``n`` consecutive triples in ``cnt`` (top ≤ A, top > above)."""
    run = 0
    best = None
    for o in range(_TOP_CHAIN + 1):
        run = run + 1 if cnt[o] == 3 else 0
        if run >= n and o > above:
            best = o
    return best


def interpret(mask: int, final: bool = False, against: Key | None = None) -> Key | None:
    """How a card set reads: ``(kind, length, power)`` or ``None`` if it is no combination.

    ``final``: the set is all the player's remaining cards (a triple may then carry one or no
    kicker, an airplane fewer kickers). ``against``: only a reading that beats this play counts
    (a set may read as an airplane in several ways); without it, the highest normal reading,
    else the final reading with the most triples.
    """
    s = mask.bit_count()
    if s <= 2:  # fast paths: singles and pairs
        if not s:
            return None
        hi_id = mask.bit_length() - 1
        if s == 1:
            key = (SINGLE, 1, CARD_POWER[hi_id])
        elif (mask & -mask).bit_length() - 1 >> 2 == hi_id >> 2:
            key = (PAIR, 1, CARD_POWER[hi_id])
        else:
            return None
        return key if against is None or _beats(key, against) else None
    cnt = _counts(mask)
    if 4 in cnt:  # four of a rank: only ever a bomb
        if s != 4:
            return None
        key: Key = (BOMB, 1, cnt.index(4))
        return key if against is None or _beats(key, against) else None
    if against is not None and against[0] == BOMB:
        return None
    maxc = max(cnt)
    present = [o for o in range(13) if cnt[o]]
    lo, hi = present[0], present[-1]
    key = None
    if maxc == 1:
        if s == 1:
            key = (SINGLE, 1, hi)
        elif s >= 5 and hi <= _TOP_CHAIN and hi - lo + 1 == s:
            key = (STRAIGHT, s, hi)
    elif maxc == 2:
        if all(c in (0, 2) for c in cnt):
            pairs = s // 2
            if pairs == 1:
                key = (PAIR, 1, hi)
            elif hi <= _TOP_CHAIN and hi - lo + 1 == pairs:
                key = (PAIR_CHAIN, pairs, hi)
    else:
        return _interpret_triples(cnt, s, final, against)
    if key is None or against is None or _beats(key, against):
        return key
    return None


def _interpret_triples(cnt: list[int], s: int, final: bool, against: Key | None) -> Key | None:
    if against is not None:
        kind, n, above = against
        if kind == TRIPLE_TWO:
            n = 1
        elif kind != AIRPLANE:
            return None
        if not (s == 5 * n or (final and 3 * n <= s < 5 * n)):
            return None
        top = _best_run(cnt, n, above)
        if top is None:
            return None
        return (TRIPLE_TWO, 1, top) if n == 1 else (AIRPLANE, n, top)
    sizes = [s // 5] if s % 5 == 0 else []
    if final:
        sizes += [n for n in range(s // 3, 0, -1) if 3 * n <= s < 5 * n]
    for n in sizes:
        top = _best_run(cnt, n, -1)
        if top is not None:
            return (TRIPLE_TWO, 1, top) if n == 1 else (AIRPLANE, n, top)
    return None


def _beats(play: Key, current: Key) -> bool:
    if play[0] == BOMB:
        return current[0] != BOMB or play[2] > current[2]
    return current[0] != BOMB and play[0] == current[0] and play[1] == current[1] \
        and play[2] > current[2]


def classify(cards: Iterable[Card], final: bool = False,
             against: Combo | None = None) -> Combo | None:
    """The combination ``cards`` form, or ``None``. ``final=True``: they are all the player's
    remaining cards (short triple/airplane allowed). ``against``: pick a reading that beats it."""
    cards = tuple(cards)
    mask = mask_of(cards)
    if len(cards) != mask.bit_count():
        raise GameError("a card is listed twice")
    if mask & ~DECK_MASK:
        raise GameError("Run Fast uses 48 cards: no 2♣ 2♥ 2♦ and no A♠")
    key = interpret(mask, final, against.key if against is not None else None)
    return None if key is None else _combo(key, mask)


def _combo(key: Key, mask: int) -> Combo:
    kind, length, power = key
    return Combo(kind, _RANK_OF_POWER[power], length, cards_of(mask), power)


def beats(play: Combo, current: Combo) -> bool:
    """Whether ``play`` beats ``current``: same kind and size (pairs of a chain, cards of a
    straight, triples of an airplane) and higher; a bomb beats any non-bomb and lower bombs.
    A short final triple/airplane is compared by its triples (docs/rules-runfast.md §6)."""
    return _beats(play.key, current.key)


# ---------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class RFAction(Action):
    """A Run Fast move: a play (``mask`` of its cards), ``pass`` or ``deal``."""

    mask: int = 0

    @property
    def cards(self) -> tuple[Card, ...]:
        return cards_of(self.mask)


PASS = RFAction("pass", "pass")
DEAL = RFAction("deal", "deal")
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_ACTIONS: dict[int, RFAction] = {}
_CACHE_LIMIT = 200_000


def _b36(n: int) -> str:
    out = []
    while n:
        n, r = divmod(n, 36)
        out.append(_DIGITS[r])
    return "".join(reversed(out)) or "0"


def play_code(mask: int) -> str:
    """The action code of the play of these cards."""
    return "p." + _b36(mask)


def play_action(mask: int, kind: str) -> RFAction:
    act = _ACTIONS.get(mask)
    if act is None:
        if len(_ACTIONS) >= _CACHE_LIMIT:
            _ACTIONS.clear()
        act = _ACTIONS[mask] = RFAction("p." + _b36(mask), kind, mask)
    return act


def play(cards: Iterable[Card] | str) -> RFAction:
    """The action that plays these cards (``play(parse_cards("5S 5H"))``)."""
    if isinstance(cards, str):
        cards = parse_cards(cards)
    return parse_action(play_code(mask_of(cards)))


def parse_action(code: str) -> RFAction:
    """The action for a code: ``p.<base-36 mask>``, ``pass`` or ``deal``."""
    if not isinstance(code, str):
        raise IllegalAction(f"unknown move {code!r}")
    if code == "pass":
        return PASS
    if code == "deal":
        return DEAL
    if not code.startswith("p.") or len(code) > 14:
        raise IllegalAction(f"unknown move {code!r}")
    digits = code[2:]
    if not digits or any(ch not in _DIGITS for ch in digits) or digits[0] == "0":
        raise IllegalAction(f"unknown move {code!r}")
    mask = int(digits, 36)
    if mask & ~DECK_MASK:
        raise IllegalAction(f"unknown move {code!r}: not a card of this deck")
    act = _ACTIONS.get(mask)
    if act is not None:
        return act
    key = interpret(mask, final=True)
    if key is None:
        raise IllegalAction("these cards are no combination")
    return play_action(mask, key[0])


# ---------------------------------------------------------------------------------------------
# Legal move generation


class Family(NamedTuple):
    """Plays of one kind, size and rank: ``masks`` differ only in the cards chosen (a tuple, or
    a lazy ``Kickers``/``Product`` sequence that builds a mask only when it is read)."""

    kind: str
    length: int
    power: int
    masks: Sequence[int]


_C = [[0] * 17 for _ in range(17)]  # binomial coefficients up to 16
for _n in range(17):
    _C[_n][0] = 1
    for _k in range(1, _n + 1):
        _C[_n][_k] = _C[_n - 1][_k - 1] + _C[_n - 1][_k]


def _unrank(items: Sequence[int], k: int, r: int) -> int:
    """The ``r``-th ``k``-subset of ``items`` (in ``itertools.combinations`` order), OR-ed."""
    out = 0
    n = len(items)
    x = 0
    while k:
        c = _C[n - x - 1][k - 1]
        if r < c:
            out |= items[x]
            k -= 1
        else:
            r -= c
        x += 1
    return out


class Kickers(Sequence):
    """``base`` plus every choice of ``k`` kickers from ``rest`` and ``avoid`` (single-card bits),
    never taking all of ``avoid`` (those sets belong to the next higher airplane)."""

    __slots__ = ("base", "rest", "avoid", "k", "_parts", "_n")

    def __init__(self, base: int, rest: list[int], avoid: list[int], k: int) -> None:
        self.base, self.rest, self.avoid, self.k = base, rest, avoid, k
        parts = []  # (j kickers from avoid, count of rest choices, cumulative end)
        n = 0
        js = range(min(len(avoid) - 1, k) + 1) if avoid else (0,)
        for j in js:
            cr = _C[len(rest)][k - j] if k - j <= len(rest) else 0
            cnt = _C[len(avoid)][j] * cr
            if cnt:
                n += cnt
                parts.append((j, cr, n))
        self._parts = parts
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("kicker index out of range")
        lo = 0
        for j, cr, end in self._parts:
            if i < end:
                a, b = divmod(i - lo, cr)
                return self.base | _unrank(self.avoid, j, a) | _unrank(self.rest, self.k - j, b)
            lo = end
        raise IndexError(i)  # pragma: no cover

    def __iter__(self) -> Iterator[int]:
        base, rest, k = self.base, self.rest, self.k
        for j, _cr, _end in self._parts:
            for fa in combinations(self.avoid, j):
                b2 = base | sum(fa)
                if k - j == 2:
                    yield from (b2 | x | y for x, y in combinations(rest, 2))
                else:
                    yield from (b2 | sum(c) for c in combinations(rest, k - j))

    def __contains__(self, mask: object) -> bool:
        if not isinstance(mask, int) or mask & self.base != self.base:
            return False
        extra = mask & ~self.base
        allowed = sum(self.rest) | sum(self.avoid)
        full = sum(self.avoid)
        return extra.bit_count() == self.k and not extra & ~allowed \
            and (not full or extra & full != full)


class Product(Sequence):
    """Every mask that takes one choice per rank (pair chains and straights); the last rank
    varies fastest."""

    __slots__ = ("choices", "_n")

    def __init__(self, choices: list[tuple[int, ...]]) -> None:
        self.choices = choices
        n = 1
        for c in choices:
            n *= len(c)
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("play index out of range")
        out = 0
        for c in reversed(self.choices):
            i, r = divmod(i, len(c))
            out |= c[r]
        return out

    def __iter__(self) -> Iterator[int]:
        for combo in product(*self.choices):
            yield sum(combo)

    def __contains__(self, mask: object) -> bool:
        if not isinstance(mask, int):
            return False
        rest = mask
        for c in self.choices:
            part = mask & _or(c)
            if part not in c:
                return False
            rest &= ~part
        return rest == 0


def _or(items: Iterable[int]) -> int:
    out = 0
    for x in items:
        out |= x
    return out


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


# precomputed families of singles, pairs and bombs per power and nibble value
_SINGLES = tuple(tuple(Family(SINGLE, 1, o, tuple(b << _SH[o] for b in _BITS4[v]))
                       for v in range(16)) for o in range(13))
_PAIRS = tuple(tuple(Family(PAIR, 1, o, tuple(p << _SH[o] for p in _PAIRS4[v]))
                     for v in range(16)) for o in range(13))
_BOMBS = tuple(Family(BOMB, 1, o, (15 << _SH[o],)) for o in range(13))
_CHOICES1 = tuple(tuple(tuple(b << _SH[o] for b in _BITS4[v]) for v in range(16))
                  for o in range(13))
_CHOICES2 = tuple(tuple(tuple(p << _SH[o] for p in _PAIRS4[v]) for v in range(16))
                  for o in range(13))


def _runs(q: int, u: list[int], choices: tuple, kind: str, minlen: int,
          fixed: int | None, above: int, out: list[Family]) -> None:
    """Pair chains or straights: every run of consecutive ranks (bits of ``q``: the powers up to
    the ace with enough cards) as the product of the choices per rank."""
    need = fixed or minlen
    while q:
        start = (q & -q).bit_length() - 1
        x = q >> start
        n = (x ^ (x + 1)).bit_length() - 1  # a maximal run start .. start + n − 1
        q &= ~(((1 << n) - 1) << start)
        if n < need or start + n - 1 <= above:
            continue
        run = [choices[o][u[o]] for o in range(start, start + n)]
        if fixed is None:
            for a in range(n):
                for b in range(a + minlen, n + 1):
                    out.append(Family(kind, b - a, start + b - 1, Product(run[a:b])))
        else:
            for a in range(n - fixed + 1):
                if start + a + fixed - 1 > above:
                    out.append(Family(kind, fixed, start + a + fixed - 1,
                                      Product(run[a:a + fixed])))


def _chain_bits(u: list[int]) -> tuple[int, int]:
    """Bits of the powers 3 … A held at least once and at least twice."""
    q1 = q2 = 0
    for o in range(_TOP_CHAIN + 1):
        p = _POP[u[o]]
        if p:
            q1 |= 1 << o
            if p >= 2:
                q2 |= 1 << o
    return q1, q2


def _triples(u: list[int], umask: int, fixed: int | None, above: int,
             out: list[Family]) -> None:
    """Triple-with-two (n = 1) and airplanes (n ≥ 2): runs of triples with 2 kickers each."""
    trip = [_POP[u[o]] == 3 for o in range(_TOP_CHAIN + 1)] + [False]
    if True not in trip:
        return
    ubits = _bits(umask)
    for start in range(_TOP_CHAIN + 1):
        if not trip[start]:
            continue
        run = 0
        for end in range(start, _TOP_CHAIN + 1):
            if not trip[end]:
                break
            run |= u[end] << _SH[end]
            n = end - start + 1
            if fixed is not None and n > fixed:
                break
            if end <= above or (fixed is not None and n != fixed):
                continue
            k = 2 * n
            if len(ubits) - 3 * n < k:
                continue
            full = u[end + 1] << _SH[end + 1] if n > 1 and trip[end + 1] else 0
            # a set holding the whole next triple also reads as the run one higher: list it there
            rest = [b for b in ubits if not b & (run | full)]
            avoid = [b for b in ubits if b & full]
            fam = Kickers(run, rest, avoid, k)
            if len(fam):
                out.append(Family(TRIPLE_TWO if n == 1 else AIRPLANE, n, end, fam))


def families(hand: int, current: Key | None = None, next_one: bool = False) -> list[Family]:
    """Every legal play of ``hand`` (a mask): leads when ``current`` is ``None``, else the plays
    that beat it. ``next_one``: the next player holds one card, so a single must be the highest.
    Bombs stay whole; the whole hand is added when it is a legal short final play."""
    u = [(hand >> sh) & 15 for sh in _SH]
    bombs = 15 in u
    kind, length, above = current if current is not None else (None, 0, -1)
    out: list[Family] = []
    if kind == SINGLE or kind is None:
        if next_one:
            top = 12
            while top >= 0 and (not u[top] or u[top] == 15):
                top -= 1
            if top > above:
                out.append(_SINGLES[top][u[top]])
        else:
            for o in range(above + 1, 13):
                v = u[o]
                if v and v != 15:
                    out.append(_SINGLES[o][v])
        if kind is not None:
            if bombs:
                out += [_BOMBS[o] for o in range(13) if u[o] == 15]
            return out
    if kind == PAIR or kind is None:
        for o in range(above + 1, 13):
            v = u[o]
            if _POP[v] >= 2 and v != 15:
                out.append(_PAIRS[o][v])
        if kind is not None:
            if bombs:
                out += [_BOMBS[o] for o in range(13) if u[o] == 15]
            return out
    umask = hand
    if bombs:
        u = list(u)
        for o in range(13):
            if u[o] == 15:
                u[o] = 0
                umask &= ~(15 << _SH[o])
    if kind is None:
        q1, q2 = _chain_bits(u)
        _runs(q2, u, _CHOICES2, PAIR_CHAIN, 2, None, above, out)
        _runs(q1, u, _CHOICES1, STRAIGHT, 5, None, above, out)
        _triples(u, umask, None, above, out)
    elif kind == PAIR_CHAIN:
        _runs(_chain_bits(u)[1], u, _CHOICES2, PAIR_CHAIN, 2, length, above, out)
    elif kind == STRAIGHT:
        _runs(_chain_bits(u)[0], u, _CHOICES1, STRAIGHT, 5, length, above, out)
    elif kind == TRIPLE_TWO:
        _triples(u, umask, 1, above, out)
    elif kind == AIRPLANE:
        _triples(u, umask, length, above, out)
    if bombs:
        for o in range(13):
            if hand >> _SH[o] & 15 == 15 and (kind != BOMB or o > above):
                out.append(_BOMBS[o])
    elif kind in (None, TRIPLE_TWO, AIRPLANE) and any(_POP[v] == 3 for v in u):
        # the short final play: all remaining cards at once
        fin = interpret(hand, True, current)
        if fin is not None and fin[0] in (TRIPLE_TWO, AIRPLANE) \
                and interpret(hand, False, current) is None:
            out.append(Family(fin[0], fin[1], fin[2], (hand,)))
    return out


class Plays(Sequence):
    """The legal plays of a position as a lazy sequence of actions (built on access)."""

    __slots__ = ("families", "_ends")

    def __init__(self, fams: list[Family]) -> None:
        self.families = fams
        ends = []
        n = 0
        for f in fams:
            n += len(f.masks)
            ends.append(n)
        self._ends = ends

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, i):  # type: ignore[override]
        n = len(self)
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(n))]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("play index out of range")
        k = bisect_right(self._ends, i)
        f = self.families[k]
        return play_action(f.masks[i - self._ends[k] + len(f.masks)], f.kind)

    def __iter__(self) -> Iterator[RFAction]:
        for f in self.families:
            kind = f.kind
            for m in f.masks:
                yield play_action(m, kind)

    def __contains__(self, action: object) -> bool:
        mask = getattr(action, "mask", None)
        return bool(mask) and any(mask in f.masks for f in self.families)

    def masks(self) -> list[int]:
        return [m for f in self.families for m in f.masks]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Plays({len(self)})"


# ---------------------------------------------------------------------------------------------
# State


@dataclass(frozen=True, slots=True)
class HandResult:
    """The public outcome of a hand: who went out, what everybody had left and paid."""

    round_no: int
    winner: int
    left: tuple[tuple[Card, ...], ...]  # the cards each player still held (shown at the end)
    shut_out: tuple[bool, ...]  # lost without playing a card: pays double
    paid: tuple[int, ...]  # card points each loser paid (0 for the winner)
    bombs: tuple[int, ...]  # bomb points of the hand per seat (already in the totals)
    delta: tuple[int, ...]  # the whole change of the hand per seat (cards + bombs)
    totals: tuple[int, ...]  # match totals after the hand


class State(NamedTuple):
    """A Run Fast match at one moment (an immutable value; hands are card masks)."""

    seats: int
    options: tuple[tuple[str, Any], ...]
    seed: int
    round_no: int  # the hand number, 1-based
    hands: tuple[int, ...]
    phase: str
    to_act: int | None
    table: Key | None  # the play to beat, or None when the player on turn leads freely
    table_mask: int  # its cards (0 when leading)
    table_seat: int | None  # who made it
    passed: tuple[bool, ...]  # passed since the last play
    starter: int  # who led the hand
    played: int  # cards played this hand (public)
    bombs: tuple[tuple[int, int], ...]  # (seat, power) of the bombs of this hand, in order
    scores: tuple[int, ...]  # match totals (bombs count at once)
    turns: int  # moves made this hand
    result: HandResult | None
    winners: tuple[int, ...]  # at the end of the match: everybody tied at the top
    # the public moves of this hand, "seat:code" ("seat:p.<mask>" or "seat:pass"): who played
    # what and who passed on what — what an attentive player remembers
    history: tuple[str, ...] = ()

    @property
    def hands_total(self) -> int:
        return dict(self.options)["hands"]

    @property
    def current(self) -> Combo | None:
        """The play on the table as a combination."""
        return None if self.table is None else _combo(self.table, self.table_mask)

    def hand_cards(self, seat: int) -> tuple[Card, ...]:
        return cards_of(self.hands[seat])


@dataclass(frozen=True, slots=True)
class Observation:
    """Exactly what one seat may know (``seat == -1``: the public view)."""

    seat: int
    seats: int
    phase: str
    round_no: int
    hands_total: int
    to_act: int | None
    hand: tuple[Card, ...]  # own cards, weakest first
    hand_mask: int
    counts: tuple[int, ...]  # cards held per seat
    current: Combo | None
    table_seat: int | None
    passed: tuple[bool, ...]
    starter: int
    played: tuple[Card, ...]  # every card played this hand
    bombs: tuple[tuple[int, int], ...]
    scores: tuple[int, ...]
    turns: int
    result: HandResult | None
    winners: tuple[int, ...]
    legal: Sequence[RFAction]
    history: tuple[str, ...] = ()  # the public moves of this hand (see ``State.history``)

    def visible_cards(self) -> set[Card]:
        seen = set(self.hand) | set(self.played)
        if self.current is not None:
            seen.update(self.current.cards)
        if self.result is not None and self.phase in (PAYOUT, FINISHED):
            for h in self.result.left:
                seen.update(h)
        return seen

    @property
    def next_seat(self) -> int:
        return (self.seat + 1) % self.seats


def _options(raw: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    opts = dict(DEFAULT_OPTIONS)
    for key, value in (raw or {}).items():
        if key not in DEFAULT_OPTIONS:
            raise GameError(f"unknown Run Fast option {key!r}")
        opts[key] = value
    if isinstance(opts["hands"], bool) or opts["hands"] not in HANDS_CHOICES:
        raise GameError("hands must be 4 or 8")
    return tuple(sorted(opts.items()))


def _rng(seed: int, round_no: int) -> random.Random:
    return random.Random(seed * 1_000_003 + round_no)


def new_game(seats: int = 3, options: Mapping[str, Any] | None = None,
             seed: int | None = None) -> State:
    """A new match of three players with the first hand dealt; the holder of 3♠ leads."""
    if seats != 3:
        raise GameError("Run Fast is played by exactly 3 players")
    opts = _options(options)
    if seed is None:
        seed = random.SystemRandom().randrange(2**53)
    blank = State(
        seats=3, options=opts, seed=seed, round_no=0, hands=(0, 0, 0), phase=PAYOUT,
        to_act=None, table=None, table_mask=0, table_seat=None, passed=(False,) * 3,
        starter=0, played=0, bombs=(), scores=(0, 0, 0), turns=0, result=None, winners=(),
    )
    state, _ = _deal(blank, None)
    return state


def _deal(state: State, starter: int | None) -> tuple[State, list[Event]]:
    """Deal hand ``round_no + 1``: 16 cards each; ``starter`` None = the holder of 3♠."""
    round_no = state.round_no + 1
    deck = list(DECK)
    _rng(state.seed, round_no).shuffle(deck)
    hands = tuple(mask_of(deck[s::3]) for s in range(3))
    if starter is None:
        bit = 1 << THREE_OF_SPADES.id
        starter = next(s for s in range(3) if hands[s] & bit)
    new = state._replace(
        round_no=round_no, hands=hands, phase=TURN, to_act=starter, table=None, table_mask=0,
        table_seat=None, passed=(False,) * 3, starter=starter, played=0, bombs=(), turns=0,
        result=None, history=(),
    )
    return new, [Event("deal", None, {"round": round_no, "starter": starter,
                                       "hands": state.hands_total})]


# ---------------------------------------------------------------------------------------------
# Protocol


def to_act(state: State) -> int | None:
    """The seat on turn, or ``None`` between hands and after the match."""
    return state.to_act


def phase(state: State) -> str:
    """``turn``, ``payout`` (hand over, ``deal`` pending) or ``finished``."""
    return state.phase


def is_over(state: State) -> bool:
    return state.phase == FINISHED


def _next_one(state: State, seat: int) -> bool:
    return state.hands[(seat + 1) % 3].bit_count() == 1


_last: tuple[Any, list[Family]] = (None, [])  # a one-entry memo: (hand, table, next_one)


def play_families(state: State) -> list[Family]:
    """The legal plays of the seat on turn, grouped (empty between hands or when it must pass).
    The last answer is memoised (one tuple, swapped atomically) for ``apply`` after
    ``legal_actions`` on the same position."""
    global _last
    if state.phase != TURN:
        return []
    seat: int = state.to_act  # type: ignore[assignment]
    key = (state.hands[seat], state.table, state.hands[(seat + 1) % 3].bit_count() == 1)
    last = _last
    if last[0] == key:
        return last[1]
    fams = families(*key)
    _last = (key, fams)
    return fams


def legal_actions(state: State) -> Sequence[RFAction]:
    """Every legal action: the plays (a lazy ``Plays`` sequence), else ``pass``; or ``deal``."""
    ph = state.phase
    if ph == PAYOUT:
        return (DEAL,)
    if ph == FINISHED:
        return ()
    fams = play_families(state)
    if not fams:
        return (PASS,)
    return Plays(fams)


_NO_DATA: Mapping[str, Any] = MappingProxyType({})
_NO_PASS = (False, False, False)


def _play_problem(state: State, seat: int, mask: int) -> tuple[str | None, Key | None]:
    """Why this play is illegal (or ``None``) and how it reads."""
    hand = state.hands[seat]
    if mask & ~hand:
        missing = cards_of(mask & ~hand)
        return f"{' '.join(map(str, missing))} not in your hand", None
    full = hand & hand >> 1 & hand >> 2 & hand >> 3 & _NIB_LOW  # lowest bit of each bomb
    if full and mask & full * 15 and mask not in _BOMB_MASKS:
        for o in range(13):
            if (full >> _SH[o]) & 1 and (mask >> _SH[o]) & 15:
                rank = RANK_LABELS[_RANK_OF_POWER[o]]
                return f"the four {rank}s stay together as a bomb", None
    final = mask == hand
    current = state.table
    key = interpret(mask, final, current)
    if key is None:
        plain = interpret(mask, final)
        if plain is None:
            if interpret(mask, True) is not None:
                return "a triple or airplane with fewer kickers only as your last cards", None
            return "these cards are no combination", None
        return "that does not beat the play on the table", None
    if key[0] == SINGLE and _next_one(state, seat):
        u = [(hand >> sh) & 15 for sh in _SH]
        top = max(o for o in range(13) if u[o] and u[o] != 15)
        if key[2] != top:
            return "the next player has one card: a single must be your highest", None
    return None, key


def why_illegal(state: State, action: RFAction) -> str | None:
    """``None`` when the action is legal, else the reason in plain words."""
    ph = state.phase
    if ph == FINISHED:
        return "the match is over"
    if action.kind == "deal":
        return None if ph == PAYOUT else "the hand is still being played"
    if ph == PAYOUT:
        return "the hand is over; the next one must be dealt first"
    seat: int = state.to_act  # type: ignore[assignment]
    if action.kind == "pass":
        if state.table is None:
            return "you lead: play any combination"
        if play_families(state):
            return "you can beat the play on the table, so you must"
        return None
    return _play_problem(state, seat, action.mask)[0]


def can_apply(state: State, action: RFAction | str) -> bool:
    try:
        act = parse_action(action) if isinstance(action, str) else action
    except IllegalAction:
        return False
    return why_illegal(state, act) is None


def apply(state: State, action: RFAction | str) -> tuple[State, list[Event]]:
    """Play ``action``; returns the new state and the public events. Raises ``IllegalAction``."""
    act = action if type(action) is RFAction else parse_action(getattr(action, "code", action))
    ph = state.phase
    if ph != TURN:
        reason = why_illegal(state, act)
        if reason is not None:
            raise IllegalAction(reason)
        return _deal(state, state.result.winner)  # type: ignore[union-attr]
    seat: int = state.to_act  # type: ignore[assignment]
    nxt = (seat + 1) % 3
    if act.kind == "pass" or act.kind == "deal":
        reason = why_illegal(state, act)
        if reason is not None:
            raise IllegalAction(reason)
        events = [Event("pass", seat, _NO_DATA)]
        table, table_mask, table_seat = state.table, state.table_mask, state.table_seat
        if nxt == table_seat:  # both others passed: the last player leads anew
            events.append(Event("lead", nxt, _NO_DATA))
            table, table_mask, table_seat, passed = None, 0, None, _NO_PASS
        else:
            p = state.passed
            passed = (True, p[1], p[2]) if seat == 0 else \
                (p[0], True, p[2]) if seat == 1 else (p[0], p[1], True)
        new = State(state.seats, state.options, state.seed, state.round_no, state.hands, TURN,
                    nxt, table, table_mask, table_seat, passed, state.starter, state.played,
                    state.bombs, state.scores, state.turns + 1, None, (),
                    state.history + (f"{seat}:pass",))
        return new, events
    mask = act.mask
    reason, key = _play_problem(state, seat, mask)
    if reason is not None:
        raise IllegalAction(reason)
    kind, length, power = key  # type: ignore[misc]
    hands = list(state.hands)
    left = hands[seat] = hands[seat] & ~mask
    scores = state.scores
    bombs = state.bombs
    data: dict[str, Any] = {"cards": card_codes(mask), "kind": kind,
                            "length": length, "rank": _RANK_OF_POWER[power],
                            "left": left.bit_count()}
    if kind == BOMB:
        scores = tuple(s + (BOMB_BONUS if i == seat else -BOMB_COST)
                       for i, s in enumerate(scores))
        bombs = bombs + ((seat, power),)
        data["bomb"] = BOMB_BONUS
    new = State(
        seats=3, options=state.options, seed=state.seed, round_no=state.round_no,
        hands=tuple(hands), phase=TURN, to_act=nxt, table=key, table_mask=mask,
        table_seat=seat, passed=(False,) * 3, starter=state.starter,
        played=state.played | mask, bombs=bombs, scores=scores, turns=state.turns + 1,
        result=None, winners=(), history=state.history + (f"{seat}:{act.code}",),
    )
    events = [Event("play", seat, data)]
    if not left:
        return _hand_end(new, seat, events)
    return new, events


def _hand_end(state: State, winner: int, events: list[Event]) -> tuple[State, list[Event]]:
    """The winner collects a point per card left (double from a player who played none)."""
    left = [h.bit_count() for h in state.hands]
    shut = tuple(s != winner and left[s] == HAND_SIZE for s in range(3))
    paid = tuple(0 if s == winner else left[s] * (2 if shut[s] else 1) for s in range(3))
    cards_delta = [-paid[s] for s in range(3)]
    cards_delta[winner] = sum(paid)
    bomb_pts = [0, 0, 0]
    for who, _power in state.bombs:
        for s in range(3):
            bomb_pts[s] += BOMB_BONUS if s == who else -BOMB_COST
    scores = tuple(state.scores[s] + cards_delta[s] for s in range(3))
    result = HandResult(
        round_no=state.round_no, winner=winner,
        left=tuple(cards_of(h) for h in state.hands), shut_out=shut, paid=paid,
        bombs=tuple(bomb_pts), delta=tuple(cards_delta[s] + bomb_pts[s] for s in range(3)),
        totals=scores,
    )
    events = events + [
        Event("showdown", winner, {"left": {str(s): [c.code for c in result.left[s]]
                                            for s in range(3)}}),
        Event("payout", winner, {"paid": list(paid), "shut_out": list(shut),
                                 "bombs": bomb_pts, "delta": list(result.delta),
                                 "totals": list(scores)}),
    ]
    ph = PAYOUT
    winners: tuple[int, ...] = ()
    if state.round_no >= state.hands_total:
        ph = FINISHED
        top = max(scores)
        winners = tuple(s for s in range(3) if scores[s] == top)
        events.append(Event("game_over", winners[0] if len(winners) == 1 else None,
                            {"winners": list(winners), "scores": list(scores)}))
    new = state._replace(phase=ph, to_act=None, table=None, table_mask=0, table_seat=None,
                         passed=(False,) * 3, scores=scores, result=result, winners=winners)
    return new, events


def observation(state: State, seat: int) -> Observation:
    """What ``seat`` may know: its own hand, card counts and everything played."""
    if not 0 <= seat < state.seats:
        raise GameError(f"no seat {seat}")
    legal = legal_actions(state) if state.to_act == seat else ()
    return Observation(
        seat=seat, seats=3, phase=state.phase, round_no=state.round_no,
        hands_total=state.hands_total, to_act=state.to_act,
        hand=cards_of(state.hands[seat]), hand_mask=state.hands[seat],
        counts=tuple(h.bit_count() for h in state.hands), current=state.current,
        table_seat=state.table_seat, passed=state.passed, starter=state.starter,
        played=cards_of(state.played), bombs=state.bombs, scores=state.scores,
        turns=state.turns, result=state.result, winners=state.winners, legal=legal,
        history=state.history,
    )


def public_view(state: State) -> Observation:
    """What everybody may know (no hand): for group tables."""
    return replace(observation(state, 0), seat=-1, hand=(), hand_mask=0, legal=())


def hidden_cards(state: State) -> set[Card]:
    """Cards nobody but their holder may see now: the hands while a hand is played (what is
    left is shown when the hand ends)."""
    if state.phase in (PAYOUT, FINISHED):
        return set()
    return set(cards_of(state.hands[0] | state.hands[1] | state.hands[2]))


def winners(state: State) -> list[int]:
    return list(state.winners)


# ---------------------------------------------------------------------------------------------
# JSON


_codes = card_codes


def _mask_codes(items: Iterable[str]) -> int:
    return mask_of(from_codes(items))


def to_json(state: State) -> str:
    """The state as compact JSON (exact round trip with ``from_json``)."""
    r = state.result
    return json.dumps({
        "game": GAME_ID, "seats": state.seats, "options": dict(state.options),
        "seed": state.seed, "round_no": state.round_no,
        "hands": [_codes(h) for h in state.hands], "phase": state.phase,
        "to_act": state.to_act, "table": None if state.table is None else list(state.table),
        "table_cards": _codes(state.table_mask), "table_seat": state.table_seat,
        "passed": list(state.passed), "starter": state.starter,
        "played": _codes(state.played), "bombs": [list(b) for b in state.bombs],
        "scores": list(state.scores), "turns": state.turns,
        "result": None if r is None else {
            "round_no": r.round_no, "winner": r.winner,
            "left": [[c.code for c in h] for h in r.left], "shut_out": list(r.shut_out),
            "paid": list(r.paid), "bombs": list(r.bombs), "delta": list(r.delta),
            "totals": list(r.totals)},
        "winners": list(state.winners), "history": list(state.history),
    }, separators=(",", ":"), ensure_ascii=False)


def from_json(text: str) -> State:
    """The state from ``to_json`` output."""
    try:
        d = json.loads(text)
        if d.get("game") != GAME_ID:
            raise GameError("not a Run Fast state")
        r = d["result"]
        result = None if r is None else HandResult(
            round_no=r["round_no"], winner=r["winner"],
            left=tuple(sort_cards(from_codes(h)) for h in r["left"]),
            shut_out=tuple(r["shut_out"]), paid=tuple(r["paid"]), bombs=tuple(r["bombs"]),
            delta=tuple(r["delta"]), totals=tuple(r["totals"]))
        table = d["table"]
        return State(
            seats=d["seats"], options=_options(d["options"]), seed=d["seed"],
            round_no=d["round_no"], hands=tuple(_mask_codes(h) for h in d["hands"]),
            phase=d["phase"], to_act=d["to_act"],
            table=None if table is None else (table[0], table[1], table[2]),
            table_mask=_mask_codes(d["table_cards"]), table_seat=d["table_seat"],
            passed=tuple(d["passed"]), starter=d["starter"], played=_mask_codes(d["played"]),
            bombs=tuple((b[0], b[1]) for b in d["bombs"]), scores=tuple(d["scores"]),
            turns=d["turns"], result=result, winners=tuple(d["winners"]),
            history=tuple(d.get("history", ())),
        )
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        if isinstance(exc, GameError):
            raise
        raise GameError(f"bad Run Fast state JSON: {exc}") from exc
