"""The jolly climbing game with jokers, docs/rules-climbing.md — game id ``climbing``.

Four players, 54 cards (52 + two jokers), all dealt. Players beat the play on the table with the
same kind and number of cards of a higher rank (a four of a kind beats everything else), or pass
and may come in again later in the same trick. When everybody still holding cards has passed
after a play, its player leads anew (or, if out, the next player still holding cards). The round
ends when one player is left with cards; going out first, second, third, last scores 3, 2, 1, 0.
From the second round on the last of the previous round gives the first their highest card and
the first gives back a card ranked 4–10 (phase ``exchange``). First to 21 wins; if several
reach the target together it rises by 10 (31, 41, 51); at 51 the highest score wins.

Rank order: 3 4 5 6 7 8 9 10 J Q K A 2, black joker, red joker — ``RANK[card.id]`` gives the
position 0..14 in it. A straight ("Skala") is 5+ cards of consecutive straight values, where
3..K count face value, J/Q/K 11/12/13, an ace 14 (high) or 1 (low, only together with the 2)
and a 2 counts 2 (so A-2-3-4-5 and 2-3-4-5-6 are straights, Q-K-A-2-3 is not).

Action codes (short, they travel in button data):

* a single, pair, triple or four: the ASCII card codes joined by ``+`` in suit order
  ♣ ♠ ♥ ♦ — ``3S``, ``BJ``, ``7C+7H``, ``10C+10S+10H+10D``;
* a straight: ``s`` + the label of its lowest card (``A`` for an ace-low straight) + ``.`` +
  one suit letter per card from the lowest up — ``s3.SHCDS`` is 3♠ 4♥ 5♣ 6♦ 7♠,
  ``sA.HHSSC`` is A♥ 2♥ 3♠ 4♠ 5♣ (13 cards at most: 16 bytes);
* ``pass``; ``g.<card>`` the card the first gives back in the exchange (``g.7H``);
  ``deal`` deals the next round (phase ``payout``, ``to_act`` is ``None``).

``parse_action`` accepts only these canonical codes; anything else raises ``IllegalAction``.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from .cards import BY_CODE, CARDS, SUIT_LETTERS, Card, from_codes, full_deck
from .protocol import EXCHANGE, FINISHED, PAYOUT, TURN, Action, Event, GameError, IllegalAction

GAME_ID = "climbing"
MIN_SEATS = 4
MAX_SEATS = 4
DEFAULT_OPTIONS: dict[str, Any] = {"straight_step": "exact"}
STRAIGHT_STEPS = ("exact", "any")
FIRST_TARGET = 21
TARGET_STEP = 10
MAX_TARGET = 51
POINTS = (3, 2, 1, 0)
KINDS = ("single", "pair", "triple", "four", "straight")
GROUP_KINDS = {1: "single", 2: "pair", 3: "triple", 4: "four"}

DECK: tuple[Card, ...] = tuple(full_deck(jokers=2))
THREE_OF_SPADES: Card = BY_CODE["3S"]
BLACK_JOKER_CARD: Card = CARDS[52]
RED_JOKER_CARD: Card = CARDS[53]

# Position of each card's rank in the climbing order (3 → 0 … A → 11, 2 → 12, BJ 13, RJ 14).
RANK: list[int] = [0] * len(CARDS)
for _c in CARDS:
    RANK[_c.id] = {2: 12, 15: 13, 16: 14}.get(_c.rank, _c.rank - 3)
RANK_LABELS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "BJ", "RJ")
GIVE_BACK_RANKS = range(RANK[BY_CODE["4C"].id], RANK[BY_CODE["10C"].id] + 1)  # 4..10
# Straight value → rank position: 1 (ace low) and 14 (ace high) are both the ace.
_VALUE_RANK = {1: 11, 2: 12, **{v: v - 3 for v in range(3, 14)}, 14: 11}
_LOW_LABELS = {1: "A", **{v: RANK_LABELS[v - 3] if v >= 3 else "2" for v in range(2, 11)}}
_LABEL_LOW = {label: v for v, label in _LOW_LABELS.items()}


def sort_key(c: Card) -> tuple[int, int]:
    return (RANK[c.id], c.suit)


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Cards in the climbing order (3 … A 2 BJ RJ), suits ♣ ♠ ♥ ♦ within a rank."""
    return tuple(sorted(cards, key=sort_key))


def max_high(low: int) -> int:
    """The highest value a straight starting at ``low`` may reach (a 2 makes the ace low)."""
    return 13 if low <= 2 else 14


# ---------------------------------------------------------------------------------------------
# Combinations


class Combo(NamedTuple):
    """A classified combination. ``rank``: for single/pair/triple/four the rank position
    (0 = 3 … 14 = red joker); for a straight the value of its highest card (5 for A-2-3-4-5,
    14 for 10-J-Q-K-A). ``cards`` in play order (a straight from its lowest card)."""

    kind: str
    rank: int
    length: int
    cards: tuple[Card, ...]


def _straight_order(cards: Sequence[Card]) -> tuple[int, tuple[Card, ...]] | None:
    """(highest value, cards from the lowest value up) if the cards form a straight."""
    n = len(cards)
    if n < 5:
        return None
    ranks = {c.rank for c in cards}
    if len(ranks) != n or 15 in ranks or 16 in ranks:
        return None
    ace_low = 2 in ranks

    def value(c: Card) -> int:
        if c.rank == 14:
            return 1 if ace_low else 14
        return c.rank

    ordered = tuple(sorted(cards, key=value))
    low, high = value(ordered[0]), value(ordered[-1])
    if high - low + 1 != n:
        return None
    return high, ordered


def classify(cards: Iterable[Card]) -> Combo | None:
    """The combination these cards form (single, pair, triple, four, straight) or ``None``."""
    cs = tuple(cards)
    n = len(cs)
    if n == 0 or len(set(cs)) != n:
        return None
    if n <= 4:
        r = RANK[cs[0].id]
        if any(RANK[c.id] != r for c in cs):
            return _straight_combo(cs)  # (fewer than 5 cards: None)
        if n > 1 and r >= 13:
            return None  # jokers are singles only
        return Combo(GROUP_KINDS[n], r, n, tuple(sorted(cs, key=lambda c: c.suit)))
    return _straight_combo(cs)


def _straight_combo(cs: Sequence[Card]) -> Combo | None:
    found = _straight_order(cs)
    if found is None:
        return None
    high, ordered = found
    return Combo("straight", high, len(ordered), ordered)


def beats(play: Any, current: Any, straight_step: str = "exact") -> bool:
    """Does ``play`` beat ``current`` (objects with ``kind``, ``rank``, ``length``)?

    Same kind and number of cards and a higher rank; a straight only by the straight of the
    same length exactly one higher (``straight_step="any"``: any higher one); a four beats
    every non-four and a lower four. ``current`` ``None`` (an empty table): anything goes.
    """
    if current is None:
        return True
    if play.kind == "four":
        return current.kind != "four" or play.rank > current.rank
    if play.kind != current.kind or play.length != current.length:
        return False
    if play.kind == "straight" and straight_step == "exact":
        return play.rank == current.rank + 1
    return play.rank > current.rank


# ---------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class ClimbAction(Action):
    """A move. Plays carry their cards (play order), ``rank`` as in ``Combo`` and the card-id
    bit ``mask``; ``kind`` is the combination kind, ``pass``, ``give`` or ``deal``."""

    cards: tuple[Card, ...] = ()
    rank: int = -1
    mask: int = 0

    @property
    def length(self) -> int:
        return len(self.cards)

    @property
    def is_play(self) -> bool:
        return self.mask != 0 and self.kind != "give"


PASS = ClimbAction("pass", "pass")
DEAL = ClimbAction("deal", "deal")
_BY_CODE: dict[str, ClimbAction] = {PASS.code: PASS, DEAL.code: DEAL}
_BY_MASK: dict[int, ClimbAction] = {}  # plays by card mask (straights are added when met)
_GIVES: dict[int, ClimbAction] = {}  # give-back actions by card id
_STRAIGHT_CACHE_LIMIT = 200_000


def _mask(cards: Iterable[Card]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c.id
    return m


def _group_action(cards: tuple[Card, ...]) -> ClimbAction:
    cards = tuple(sorted(cards, key=lambda c: c.suit))
    code = "+".join(c.code for c in cards)
    action = ClimbAction(code, GROUP_KINDS[len(cards)], cards, RANK[cards[0].id], _mask(cards))
    _BY_CODE[code] = action
    _BY_MASK[action.mask] = action
    return action


for _r in range(15):
    _same = [c for c in DECK if RANK[c.id] == _r]
    for _n in range(1, len(_same) + 1):
        for _combo in itertools.combinations(_same, _n):
            _group_action(_combo)
for _c in DECK:
    if RANK[_c.id] in GIVE_BACK_RANKS:
        _GIVES[_c.id] = ClimbAction(f"g.{_c.code}", "give", (_c,), RANK[_c.id], _mask((_c,)))
        _BY_CODE[_GIVES[_c.id].code] = _GIVES[_c.id]


def _straight_action(ordered: tuple[Card, ...], high: int, mask: int) -> ClimbAction:
    """The interned straight action for cards in order from the lowest value."""
    action = _BY_MASK.get(mask)
    if action is not None:
        return action
    low = high - len(ordered) + 1
    code = "s" + _LOW_LABELS[low] + "." + "".join(SUIT_LETTERS[c.suit] for c in ordered)
    if len(_BY_MASK) > _STRAIGHT_CACHE_LIMIT:  # keep the cache bounded in long-running bots
        for m in [m for m, a in _BY_MASK.items() if a.kind == "straight"]:
            del _BY_CODE[_BY_MASK.pop(m).code]
    action = ClimbAction(code, "straight", ordered, high, mask)
    _BY_MASK[mask] = action
    _BY_CODE[code] = action
    return action


# id of the ♣ card of each straight value (engine card ids are (rank - 2) * 4 + suit)
_VALUE_RANK_CARD_BASE = {v: ((14 if v in (1, 14) else v) - 2) * 4 for v in range(1, 15)}
_STRAIGHT_CODE = re.compile(r"s(A|10|[2-9])\.([CSHD]{5,13})")


def parse_action(code: str) -> ClimbAction:
    """The action for a canonical code (see the module docstring); else ``IllegalAction``."""
    if not isinstance(code, str):
        raise IllegalAction(f"unknown move {code!r}")
    action = _BY_CODE.get(code)
    if action is not None:
        return action
    m = _STRAIGHT_CODE.fullmatch(code)
    if m is not None:
        low = _LABEL_LOW[m.group(1)]
        suits = m.group(2)
        high = low + len(suits) - 1
        if high <= max_high(low):
            ordered = tuple(CARDS[_VALUE_RANK_CARD_BASE[v] + SUIT_LETTERS.index(s)]
                            for v, s in zip(range(low, high + 1), suits, strict=True))
            return _straight_action(ordered, high, _mask(ordered))
        raise IllegalAction(f"no such straight {code!r}: it would wrap around past the ace")
    raise IllegalAction(f"unknown move {code!r}")



def play_for(cards: Iterable[Card]) -> ClimbAction | None:
    """The play action for a set of cards, or ``None`` if they are no combination."""
    cs = tuple(cards)
    if len(set(cs)) != len(cs):
        return None
    action = _BY_MASK.get(_mask(cs))
    if action is not None:
        return action
    found = _straight_order(cs)
    if found is None:
        return None
    high, ordered = found
    return _straight_action(ordered, high, _mask(ordered))


def give_back(c: Card) -> ClimbAction:
    """The exchange action that gives back card ``c`` (ranked 4–10)."""
    action = _GIVES.get(c.id)
    if action is None:
        raise GameError(f"{c} cannot be given back: only 4 to 10")
    return action


# ---------------------------------------------------------------------------------------------
# State


class Exchange(NamedTuple):
    """The card exchange at the start of a round (rounds 2+). ``given``: the highest card the
    last of the previous round gave the first; ``back``: what the first gave back.
    ``status``: ``pending`` (the first must give back), ``done``, ``no_back`` (the first held no
    card ranked 4–10: nothing given back), ``jokers`` (the last was dealt both jokers: none)."""

    first: int
    last: int
    given: Card | None
    back: Card | None
    status: str


class RoundResult(NamedTuple):
    """The public outcome of a round."""

    round_no: int
    order: tuple[int, ...]  # seats in the order they went out; the last still held cards
    points: tuple[int, ...]  # per seat, this round
    scores: tuple[int, ...]  # per seat, after the round
    target: int  # the target the round was played to
    new_target: int  # the target after the round (risen if several reached it)
    winners: tuple[int, ...]  # the game's winners if the game ended with this round


class State(NamedTuple):
    """A climbing game at one moment: an immutable value."""

    seats: int
    options: tuple[tuple[str, Any], ...]
    seed: int
    round_no: int
    dealer: int
    hands: tuple[tuple[Card, ...], ...]  # each in climbing order
    phase: str
    to_act: int | None
    leader: int  # who led the round's first trick
    table: ClimbAction | None  # the play to beat (None: the next player leads)
    owner: int | None  # who made it
    passed: tuple[bool, ...]  # passed since the last play
    out_order: tuple[int, ...]  # seats that have gone out this round, in order
    played: tuple[Card, ...]  # every card played this round, in order (public)
    opening: bool  # the first play of the game: it must include 3♠
    exchange: Exchange | None
    scores: tuple[int, ...]
    target: int
    turns: int  # moves made this round
    result: RoundResult | None
    winners: tuple[int, ...]

    @property
    def straight_step(self) -> str:
        return dict(self.options)["straight_step"]

    @property
    def active(self) -> list[int]:
        """Seats still holding cards."""
        return [s for s in range(self.seats) if self.hands[s]]


@dataclass(frozen=True, slots=True)
class Observation:
    """Exactly what one seat may know (``seat`` -1: the public view)."""

    seat: int
    seats: int
    phase: str
    round_no: int
    to_act: int | None
    dealer: int
    leader: int
    hand: tuple[Card, ...]
    counts: tuple[int, ...]
    table: ClimbAction | None
    owner: int | None
    passed: tuple[bool, ...]
    out_order: tuple[int, ...]
    played: tuple[Card, ...]
    opening: bool
    exchange: Exchange | None  # the cards only for the two players involved
    scores: tuple[int, ...]
    target: int
    turns: int
    straight_step: str
    result: RoundResult | None
    winners: tuple[int, ...]
    legal: tuple[ClimbAction, ...]

    def visible_cards(self) -> set[Card]:
        """Every card this observation shows."""
        seen = set(self.hand) | set(self.played)
        if self.table is not None:
            seen.update(self.table.cards)
        if self.exchange is not None:
            seen.update(c for c in (self.exchange.given, self.exchange.back) if c is not None)
        for a in self.legal:
            seen.update(a.cards)
        return seen


def _options(raw: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    opts = dict(DEFAULT_OPTIONS)
    for key, value in (raw or {}).items():
        if key not in DEFAULT_OPTIONS:
            raise GameError(f"unknown climbing option {key!r}")
        opts[key] = value
    if opts["straight_step"] not in STRAIGHT_STEPS:
        raise GameError("straight_step must be 'exact' or 'any'")
    return tuple(sorted(opts.items()))


def _rng(seed: int, round_no: int) -> random.Random:
    return random.Random(seed * 1_000_003 + round_no)


def new_game(seats: int = 4, options: Mapping[str, Any] | None = None,
             seed: int | None = None) -> State:
    """A new game for exactly four seats, with the first round dealt."""
    if not isinstance(seats, int) or isinstance(seats, bool) or seats != 4:
        raise GameError("the climbing game needs exactly 4 players")
    opts = _options(options)
    if seed is None:
        seed = random.SystemRandom().randrange(2**53)
    dealer = _rng(seed, 0).randrange(seats)
    blank = State(
        seats=seats, options=opts, seed=seed, round_no=0, dealer=(dealer - 1) % seats,
        hands=((),) * seats, phase=PAYOUT, to_act=None, leader=0, table=None, owner=None,
        passed=(False,) * seats, out_order=(), played=(), opening=True, exchange=None,
        scores=(0,) * seats, target=FIRST_TARGET, turns=0, result=None, winners=(),
    )
    state, _ = _deal(blank)
    return state


def _deal(state: State) -> tuple[State, list[Event]]:
    """Deal the next round (the deal passes to the left) and do the exchange's automatic part."""
    n = state.seats
    round_no = state.round_no + 1
    dealer = (state.dealer + 1) % n
    deck = list(DECK)
    _rng(state.seed, round_no).shuffle(deck)
    dealt: list[list[Card]] = [[] for _ in range(n)]
    for i, c in enumerate(deck):  # one at a time from the dealer's left: seats +1, +2 get 14
        dealt[(dealer + 1 + i) % n].append(c)
    events: list[Event] = []
    exchange = None
    ph = TURN
    prev = state.result
    if prev is None:  # first round: the holder of 3♠ leads and must play it
        leader = next(s for s in range(n) if THREE_OF_SPADES in dealt[s])
        to_act = leader
    else:
        first, last = prev.order[0], prev.order[-1]
        if BLACK_JOKER_CARD in dealt[last] and RED_JOKER_CARD in dealt[last]:
            exchange = Exchange(first, last, None, None, "jokers")
            leader = to_act = first
        else:
            top = max(dealt[last], key=sort_key)
            dealt[last].remove(top)
            dealt[first].append(top)
            leader = last
            if any(RANK[c.id] in GIVE_BACK_RANKS for c in dealt[first]):
                exchange = Exchange(first, last, top, None, "pending")
                ph, to_act = EXCHANGE, first
            else:
                exchange = Exchange(first, last, top, None, "no_back")
                to_act = last
    hands = tuple(sort_cards(h) for h in dealt)
    new = state._replace(
        round_no=round_no, dealer=dealer, hands=hands, phase=ph, to_act=to_act, leader=leader,
        table=None, owner=None, passed=(False,) * n, out_order=(), played=(),
        opening=prev is None, exchange=exchange, turns=0, result=None,
    )
    events.append(Event("deal", None, {"round": round_no, "dealer": dealer, "leader": leader}))
    if exchange is not None:
        events.append(Event("exchange", exchange.last, {"to": exchange.first,
                                                        "status": exchange.status}))
    return new, events


def _next_active(hands: tuple[tuple[Card, ...], ...], seat: int) -> int:
    n = len(hands)
    nxt = (seat + 1) % n
    while not hands[nxt]:
        nxt = (nxt + 1) % n
    return nxt


# ---------------------------------------------------------------------------------------------
# Legal moves


# For each rank position and suit bit set (♣ 1, ♠ 2, ♥ 4, ♦ 8; a joker counts as bit 1): the
# cards, and the group plays of each size (index 1..4) in suit order — move generation looks
# these up instead of building combinations.
_SUIT_BIT = [1 << (c.suit if c.suit < 4 else 0) for c in CARDS]
_CARDS_OF: list[list[tuple[Card, ...]]] = []
_SUB: list[list[tuple[tuple[ClimbAction, ...], ...]]] = []
for _r in range(15):
    _rank_cards = [c for c in DECK if RANK[c.id] == _r]
    _CARDS_OF.append([])
    _SUB.append([])
    for _m in range(16):
        _have = tuple(c for c in _rank_cards if _SUIT_BIT[c.id] & _m)
        _CARDS_OF[_r].append(_have)
        _SUB[_r].append(tuple(
            tuple(_BY_MASK[_mask(cs)] for cs in itertools.combinations(_have, n)) if n else ()
            for n in range(5)))


def _suit_masks(hand: Sequence[Card]) -> list[int]:
    """The suit bit set the hand holds of each rank position."""
    sm = [0] * 15
    for c in hand:
        sm[RANK[c.id]] |= _SUIT_BIT[c.id]
    return sm


def _group_plays(sm: list[int], size: int, above: int = -1) -> list[ClimbAction]:
    """Every set of ``size`` cards of one rank above rank position ``above``."""
    out: list[ClimbAction] = []
    sub = _SUB
    for r in range(above + 1, 15 if size == 1 else 13):
        m = sm[r]
        if m:
            out.extend(sub[r][m][size])
    return out


def _straight_plays(sm: list[int], length: int | None = None,
                    highs: range | None = None) -> list[ClimbAction]:
    """Every straight in the hand, optionally of one length and with its top in ``highs``."""
    out: list[ClimbAction] = []
    present = [False] + [sm[_VALUE_RANK[v]] != 0 for v in range(1, 15)]
    for low in range(1, 11):
        if not present[low]:
            continue
        top = max_high(low)
        high = low
        while high < top and present[high + 1]:
            high += 1
        if high - low + 1 < 5:
            continue
        lengths = range(5, high - low + 2) if length is None else (length,)
        for n in lengths:
            hi = low + n - 1
            if hi > high or (highs is not None and hi not in highs):
                continue
            columns = [_CARDS_OF[r][sm[r]] for r in (_VALUE_RANK[v] for v in range(low, hi + 1))]
            for ordered in itertools.product(*columns):
                out.append(_straight_action(ordered, hi, _mask(ordered)))
    return out


def plays(hand: Sequence[Card], table: Any = None, straight_step: str = "exact",
          must: Card | None = None) -> list[ClimbAction]:
    """Every play from ``hand`` that beats ``table`` (``None``: a lead), each card set once;
    with ``must``, only plays that include that card."""
    sm = _suit_masks(hand)
    if table is None:
        out = []
        for size in (1, 2, 3, 4):
            out.extend(_group_plays(sm, size))
        out.extend(_straight_plays(sm))
    else:
        kind = table.kind
        if kind == "four":
            out = _group_plays(sm, 4, table.rank)
        else:
            if kind == "straight":
                n = table.length
                highs = range(table.rank + 1, table.rank + 2) if straight_step == "exact" \
                    else range(table.rank + 1, 15)
                out = _straight_plays(sm, n, highs)
            else:
                out = _group_plays(sm, table.length, table.rank)
            out.extend(_group_plays(sm, 4))
    if must is not None:
        bit = 1 << must.id
        out = [a for a in out if a.mask & bit]
    return out


def to_act(state: State) -> int | None:
    """The seat on turn, or ``None`` between rounds and after the game."""
    return state.to_act


def phase(state: State) -> str:
    """``exchange``, ``turn``, ``payout`` (round over, ``deal`` pending) or ``finished``."""
    return state.phase


def is_over(state: State) -> bool:
    return state.phase == FINISHED


def winners(state: State) -> list[int]:
    """The game's winners (several on a shared win at 51); empty while it goes on."""
    return list(state.winners)


def legal_actions(state: State) -> tuple[ClimbAction, ...]:
    """Every legal action: each distinct play once, then ``pass`` (not when leading)."""
    ph = state.phase
    if ph == TURN:
        hand = state.hands[state.to_act]  # type: ignore[index]
        out = plays(hand, state.table, state.straight_step,
                    THREE_OF_SPADES if state.opening else None)
        if state.table is not None:
            out.append(PASS)
        return tuple(out)
    if ph == EXCHANGE:
        hand = state.hands[state.to_act]  # type: ignore[index]
        return tuple(_GIVES[c.id] for c in hand if c.id in _GIVES)
    if ph == PAYOUT:
        return (DEAL,)
    return ()


def why_illegal(state: State, action: ClimbAction) -> str | None:
    """``None`` when the action is legal, else the reason in plain words."""
    ph = state.phase
    if ph == FINISHED:
        return "the game is over"
    if action.kind == "deal":
        return None if ph == PAYOUT else "the round is still being played"
    if ph == PAYOUT:
        return "the round is over; the next one must be dealt first"
    seat = state.to_act
    assert seat is not None
    hand = state.hands[seat]
    if ph == EXCHANGE:
        if action.kind != "give":
            return "first the exchange: give back one card ranked 4 to 10"
        if action.cards[0] not in hand:
            return f"{action.cards[0]} is not in your hand"
        return None
    if action.kind == "give":
        return "there is no exchange now"
    if action.kind == "pass":
        return None if state.table is not None else "you lead: play a card or a combination"
    missing = [c for c in action.cards if c not in hand]
    if missing:
        return f"{' '.join(map(str, missing))} not in your hand"
    if state.opening and THREE_OF_SPADES not in action.cards:
        return "the first play of the game must include 3♠"
    table = state.table
    if table is None or beats(action, table, state.straight_step):
        return None
    if table.kind == "four":
        return "only a higher four of a kind beats a four of a kind"
    if action.kind != table.kind or action.length != table.length:
        return (f"a {_kind_words(table)} must be beaten by a {_kind_words(table)} "
                "or a four of a kind")
    if table.kind == "straight" and state.straight_step == "exact":
        return "a straight is only beaten by the straight of the same length exactly one higher"
    return "that is not higher than the play on the table"


def _kind_words(combo: Any) -> str:
    return f"straight of {combo.length}" if combo.kind == "straight" else combo.kind


def can_apply(state: State, action: ClimbAction | str) -> bool:
    try:
        act = parse_action(action) if isinstance(action, str) else action
    except IllegalAction:
        return False
    return why_illegal(state, act) is None


def apply(state: State, action: ClimbAction | str) -> tuple[State, list[Event]]:
    """Play ``action`` (or its code); returns the new state and the public events.
    Raises ``IllegalAction`` with the reason and changes nothing."""
    act = action if type(action) is ClimbAction else parse_action(getattr(action, "code", action))
    reason = why_illegal(state, act)
    if reason is not None:
        raise IllegalAction(reason)
    kind = act.kind
    if kind == "deal":
        return _deal(state)
    seat: int = state.to_act  # type: ignore[assignment]
    if kind == "give":
        return _give_back(state, seat, act)
    hands = state.hands
    n = state.seats
    if kind == "pass":
        passed = state.passed[:seat] + (True,) + state.passed[seat + 1:]
        owner: int = state.owner  # type: ignore[assignment]
        events = [Event("pass", seat, {})]
        nxt = _next_active(hands, seat)
        # everybody else holding cards has passed once the turn would reach the owner, or,
        # when the owner is out, a player who has passed already
        if nxt == owner or passed[nxt]:
            leader = owner if hands[owner] else _next_active(hands, owner)
            events.append(Event("trick", owner, {"leader": leader}))
            table, owner_, passed = None, None, (False,) * n
        else:
            leader, table, owner_ = nxt, state.table, owner
        return State(
            n, state.options, state.seed, state.round_no, state.dealer, hands, TURN, leader,
            state.leader, table, owner_, passed, state.out_order, state.played, state.opening,
            state.exchange, state.scores, state.target, state.turns + 1, None, (),
        ), events
    mask = act.mask
    hand = tuple(c for c in hands[seat] if not (mask >> c.id) & 1)
    hands = hands[:seat] + (hand,) + hands[seat + 1:]
    out_order = state.out_order
    data: dict[str, Any] = {"cards": [c.code for c in act.cards], "kind": kind}
    if not hand:
        out_order = out_order + (seat,)
        data["out"] = len(out_order)
    events = [Event("play", seat, data)]
    last_out = len(out_order) == n - 1
    new = State(
        n, state.options, state.seed, state.round_no, state.dealer, hands, TURN,
        seat if last_out else _next_active(hands, seat), state.leader, act, seat, (False,) * n,
        out_order, state.played + act.cards, False, state.exchange, state.scores, state.target,
        state.turns + 1, None, (),
    )
    if last_out:
        return _end_round(new, events)
    return new, events


def _give_back(state: State, seat: int, act: ClimbAction) -> tuple[State, list[Event]]:
    ex = state.exchange
    assert ex is not None and ex.first == seat
    c = act.cards[0]
    hands = list(state.hands)
    hands[seat] = tuple(x for x in hands[seat] if x is not c)
    hands[ex.last] = sort_cards(hands[ex.last] + (c,))
    new = state._replace(hands=tuple(hands), phase=TURN, to_act=ex.last,
                         exchange=ex._replace(back=c, status="done"), turns=state.turns + 1)
    return new, [Event("give_back", seat, {"to": ex.last})]


def _end_round(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """Score 3/2/1/0 by the order of going out; raise the target or end the game."""
    n = state.seats
    last = next(s for s in range(n) if state.hands[s])
    order = state.out_order + (last,)
    points = [0] * n
    for place, s in enumerate(order):
        points[s] = POINTS[place]
    scores = tuple(state.scores[s] + points[s] for s in range(n))
    target = state.target
    reached = [s for s in range(n) if scores[s] >= target]
    won: tuple[int, ...] = ()
    new_target = target
    if len(reached) == 1:
        won = (reached[0],)
    elif reached:
        if target >= MAX_TARGET:
            best = max(scores)
            won = tuple(s for s in range(n) if scores[s] == best)
        else:
            new_target = target + TARGET_STEP
    result = RoundResult(state.round_no, order, tuple(points), scores, target, new_target, won)
    events = events + [
        Event("showdown", None, {"order": list(order), "points": points}),
        Event("payout", None, {"scores": list(scores), "target": new_target,
                               "raised": new_target != target}),
    ]
    if won:
        events.append(Event("game_over", won[0], {"winners": list(won),
                                                  "scores": list(scores)}))
    new = state._replace(phase=FINISHED if won else PAYOUT, to_act=None, out_order=order,
                         table=None, owner=None, passed=(False,) * n, scores=scores,
                         target=new_target, result=result, winners=won)
    return new, events


# ---------------------------------------------------------------------------------------------
# Observations


def _exchange_for(ex: Exchange | None, seat: int) -> Exchange | None:
    if ex is None or seat in (ex.first, ex.last):
        return ex
    return ex._replace(given=None, back=None)


def observation(state: State, seat: int) -> Observation:
    """What ``seat`` may know: its own hand, card counts, the table, everything public."""
    if not 0 <= seat < state.seats:
        raise GameError(f"no seat {seat}")
    legal = legal_actions(state) if state.to_act == seat else ()
    return Observation(
        seat=seat, seats=state.seats, phase=state.phase, round_no=state.round_no,
        to_act=state.to_act, dealer=state.dealer, leader=state.leader, hand=state.hands[seat],
        counts=tuple(len(h) for h in state.hands), table=state.table, owner=state.owner,
        passed=state.passed, out_order=state.out_order, played=state.played,
        opening=state.opening, exchange=_exchange_for(state.exchange, seat),
        scores=state.scores, target=state.target, turns=state.turns,
        straight_step=state.straight_step, result=state.result, winners=state.winners,
        legal=legal,
    )


def public_view(state: State) -> Observation:
    """What everybody may know (no hand, no exchanged card): for group tables."""
    obs = observation(state, 0)
    return replace(obs, seat=-1, hand=(), legal=(),
                   exchange=_exchange_for(state.exchange, -1))


def hidden_cards(state: State) -> set[Card]:
    """Cards nobody but their holder may see: every card in a hand (all 54 are dealt)."""
    return {c for h in state.hands for c in h}


# ---------------------------------------------------------------------------------------------
# JSON


def _card(c: Card | None) -> str | None:
    return None if c is None else c.code


def _uncard(code: str | None) -> Card | None:
    return None if code is None else from_codes([code])[0]


def to_json(state: State) -> str:
    """The state as compact JSON (exact round trip with ``from_json``)."""
    ex = state.exchange
    r = state.result
    return json.dumps({
        "game": GAME_ID, "seats": state.seats, "options": dict(state.options),
        "seed": state.seed, "round_no": state.round_no, "dealer": state.dealer,
        "hands": [[c.code for c in h] for h in state.hands], "phase": state.phase,
        "to_act": state.to_act, "leader": state.leader,
        "table": None if state.table is None else state.table.code, "owner": state.owner,
        "passed": list(state.passed), "out_order": list(state.out_order),
        "played": [c.code for c in state.played], "opening": state.opening,
        "exchange": None if ex is None else [ex.first, ex.last, _card(ex.given),
                                             _card(ex.back), ex.status],
        "scores": list(state.scores), "target": state.target, "turns": state.turns,
        "result": None if r is None else {
            "round_no": r.round_no, "order": list(r.order), "points": list(r.points),
            "scores": list(r.scores), "target": r.target, "new_target": r.new_target,
            "winners": list(r.winners)},
        "winners": list(state.winners),
    }, separators=(",", ":"))


def from_json(text: str) -> State:
    """The state from ``to_json`` output."""
    try:
        d = json.loads(text)
        if d.get("game") != GAME_ID:
            raise GameError("not a climbing state")
        ex = d["exchange"]
        r = d["result"]
        return State(
            seats=d["seats"], options=_options(d["options"]), seed=d["seed"],
            round_no=d["round_no"], dealer=d["dealer"],
            hands=tuple(from_codes(h) for h in d["hands"]), phase=d["phase"],
            to_act=d["to_act"], leader=d["leader"],
            table=None if d["table"] is None else parse_action(d["table"]), owner=d["owner"],
            passed=tuple(d["passed"]), out_order=tuple(d["out_order"]),
            played=from_codes(d["played"]), opening=d["opening"],
            exchange=None if ex is None else Exchange(ex[0], ex[1], _uncard(ex[2]),
                                                      _uncard(ex[3]), ex[4]),
            scores=tuple(d["scores"]), target=d["target"], turns=d["turns"],
            result=None if r is None else RoundResult(
                r["round_no"], tuple(r["order"]), tuple(r["points"]), tuple(r["scores"]),
                r["target"], r["new_target"], tuple(r["winners"])),
            winners=tuple(d["winners"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        if isinstance(exc, GameError):
            raise
        raise GameError(f"bad climbing state JSON: {exc}") from exc
