"""Schwimmen (31 with three open middle cards), docs/rules-schwimmen.md — game id ``schwimmen``.

A state is a frozen value. One round: deal three cards to every active player and three face up
to the middle; players swap one card, swap all three, pass (once per round) or knock; after a knock
every other active player has one last turn; 31 ends the round at once. The lowest hands pay a
coin into the pot; a player with no coin left swims, and a swimming loser is out. The round ends
in phase ``payout``; the action ``deal`` (by nobody in particular: ``to_act`` is ``None``) deals
the next round. Values are kept internally in half points (31 → 62, 30½ → 61). What Schwimmen
shares with Scat (card and hand values, the deal, the lowest hands at the showdown) is in
``engine.thirty_one``; this module holds what is Schwimmen's own.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from .cards import CARDS, Card, from_codes, piquet_deck, shuffled
from .protocol import (
    FINAL_ROUND,
    FINISHED,
    PAYOUT,
    TURN,
    Action,
    Event,
    GameError,
    IllegalAction,
    state_from_json,
    state_to_json,
)
from .thirty_one import (
    THIRTY_ONE,
    clockwise_from,
    deal,
    hands_from_codes,
    hands_to_codes,
    lowest_seats,
    points,
    shown_hands,
    three_card_half_points,
    value_table,
)
from .thirty_one import format_value as format_value  # one of this game's public names

GAME_ID = "schwimmen"
MIN_SEATS = 2
MAX_SEATS = 4
DEFAULT_OPTIONS: dict[str, Any] = {"coins": 3}

DECK: tuple[Card, ...] = tuple(piquet_deck())
CARD_VALUE = value_table(DECK)  # by card id: A 11; 10 J Q K 10; 7 8 9 face value; others 0
_IN_DECK = frozenset(DECK)


# ---------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class SwimAction(Action):
    """A Schwimmen move; ``give``/``take`` are set for a one-card swap."""

    give: Card | None = None
    take: Card | None = None


PASS = SwimAction("pass", "pass")
KNOCK = SwimAction("knock", "knock")
SWAP_ALL = SwimAction("all", "swap_all")
DEAL = SwimAction("deal", "deal")
_SIMPLE = {a.code: a for a in (PASS, KNOCK, SWAP_ALL, DEAL)}
# One interned swap action per (hand card, middle card) pair, indexed by card ids.
_SWAPS: list[list[SwimAction | None]] = [[None] * len(CARDS) for _ in CARDS]
for _g in DECK:
    for _t in DECK:
        if _g is not _t:
            _SWAPS[_g.id][_t.id] = SwimAction(f"swap.{_g.code}.{_t.code}", "swap", _g, _t)
_BY_CODE: dict[str, SwimAction] = dict(_SIMPLE)
for _row in _SWAPS:
    for _a in _row:
        if _a is not None:
            _BY_CODE[_a.code] = _a


def swap(give: Card, take: Card) -> SwimAction:
    """The action that swaps hand card ``give`` for middle card ``take``."""
    action = _SWAPS[give.id][take.id]
    if action is None:
        raise GameError(f"no such swap: {give} for {take}")
    return action


def parse_action(code: str) -> SwimAction:
    """The action for a code (``swap.AH.KS``, ``all``, ``pass``, ``knock``, ``deal``)."""
    action = _BY_CODE.get(code.strip())
    if action is None:
        raise IllegalAction(f"unknown move {code!r}")
    return action


# ---------------------------------------------------------------------------------------------
# Hand values


def half_points(c1: Card, c2: Card, c3: Card) -> int:
    """Hand value in half points: 62 for 31, 61 for three of a rank, else 2 × best suit sum."""
    return three_card_half_points(c1, c2, c3, CARD_VALUE)


def hand_value(cards: Sequence[Card]) -> float:
    """Value of a three-card hand: 31, 30.5 (three of a rank), 30, … (best single-suit sum)."""
    cards = tuple(cards)
    if len(cards) != 3 or len(set(cards)) != 3:
        raise GameError("a Schwimmen hand has three different cards")
    if any(c not in _IN_DECK for c in cards):
        raise GameError("Schwimmen is played with the 32 cards from 7 to ace")
    return points(half_points(*cards))


# ---------------------------------------------------------------------------------------------
# State


@dataclass(frozen=True, slots=True)
class RoundResult:
    """The public outcome of a round: every hand shown, values, who lost and what it cost."""

    round_no: int
    reason: str  # "knock", "31", "dealt_31"
    hands: tuple[tuple[Card, ...] | None, ...]  # None for players who were out
    values2: tuple[int | None, ...]
    losers: tuple[int, ...]
    paid: tuple[int, ...]
    swimming: tuple[int, ...]  # started swimming this round
    eliminated: tuple[int, ...]
    draw: bool
    thirty_one: int | None = None  # the seat that reached 31, if any
    thirty_ones: tuple[int, ...] = ()  # every seat with 31 (on the deal, several may have it)
    pot_won: int = 0  # what the winner took from the pot when this round ended the game


class State(NamedTuple):
    """A Schwimmen game at one moment: an immutable value (a named tuple, cheap to build)."""

    seats: int
    options: tuple[tuple[str, Any], ...]
    seed: int
    round_no: int
    coins: tuple[int, ...]
    out: tuple[bool, ...]
    pot: int
    hands: tuple[tuple[Card, ...], ...]  # () for players who are out
    middle: tuple[Card, ...]
    phase: str
    to_act: int | None
    starter: int
    passed: tuple[bool, ...]
    knocker: int | None
    final_left: int
    turns: int  # moves made this round
    result: RoundResult | None
    winner: int | None
    # the public moves of this round, "seat:code" ("seat:all.<taken cards>" for a swap of all
    # three: everybody saw the middle that was taken) — what an attentive player remembers
    history: tuple[str, ...] = ()

    @property
    def active(self) -> list[int]:
        return [s for s in range(self.seats) if not self.out[s]]


@dataclass(frozen=True, slots=True)
class Observation:
    """Exactly what one seat may know."""

    seat: int
    seats: int
    phase: str
    round_no: int
    to_act: int | None
    hand: tuple[Card, ...]
    middle: tuple[Card, ...]
    coins: tuple[int, ...]
    out: tuple[bool, ...]
    pot: int
    passed: tuple[bool, ...]
    knocker: int | None
    final_left: int
    starter: int
    turns: int
    result: RoundResult | None
    winner: int | None
    legal: tuple[SwimAction, ...]
    history: tuple[str, ...] = ()  # the public moves of this round (see ``State.history``)

    def visible_cards(self) -> set[Card]:
        """Every card this observation shows."""
        seen = set(self.hand) | set(self.middle)
        if self.result is not None and self.phase in (PAYOUT, FINISHED):
            for h in self.result.hands:
                seen.update(h or ())
        return seen


_new_state = tuple.__new__


def _options(raw: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    opts = dict(DEFAULT_OPTIONS)
    for key, value in (raw or {}).items():
        if key not in DEFAULT_OPTIONS:
            raise GameError(f"unknown Schwimmen option {key!r}")
        opts[key] = value
    coins = opts["coins"]
    if not isinstance(coins, int) or isinstance(coins, bool) or not 1 <= coins <= 9:
        raise GameError("coins must be a whole number from 1 to 9")
    return tuple(sorted(opts.items()))


def _rng(seed: int, round_no: int) -> random.Random:
    return random.Random(seed * 1_000_003 + round_no)


def new_game(seats: int, options: Mapping[str, Any] | None = None,
             seed: int | None = None) -> State:
    """A new game for 2–4 seats, with the first round dealt."""
    if not isinstance(seats, int) or not MIN_SEATS <= seats <= MAX_SEATS:
        raise GameError(f"Schwimmen needs {MIN_SEATS} to {MAX_SEATS} players")
    opts = _options(options)
    if seed is None:
        seed = random.SystemRandom().randrange(2**53)
    coins = dict(opts)["coins"]
    starter = _rng(seed, 0).randrange(seats)
    blank = State(
        seats=seats, options=opts, seed=seed, round_no=0, coins=(coins,) * seats,
        out=(False,) * seats, pot=0, hands=((),) * seats, middle=(), phase=PAYOUT, to_act=None,
        starter=starter, passed=(False,) * seats, knocker=None, final_left=0, turns=0,
        result=None, winner=None,
    )
    state, _ = _deal(blank, starter)
    return state


def _deal(state: State, starter: int) -> tuple[State, list[Event]]:
    """Deal a new round beginning at ``starter``; ends it at once if someone holds 31."""
    round_no = state.round_no + 1
    n = state.seats
    order = clockwise_from(state.active, starter)
    hands, rest = deal(shuffled(DECK, _rng(state.seed, round_no)), order, n, 3)
    middle = tuple(rest[:3])
    new = state._replace(
        round_no=round_no, hands=hands, middle=middle, phase=TURN, to_act=starter,
        starter=starter, passed=(False,) * n, knocker=None, final_left=0, turns=0, result=None,
        history=(),
    )
    events = [Event("deal", None, {"round": round_no, "starter": starter,
                                    "middle": [c.code for c in middle]})]
    thirty_one = [s for s in order if half_points(*hands[s]) == THIRTY_ONE]
    if thirty_one:
        return _showdown(new, "dealt_31", thirty_one[0], events, tuple(thirty_one))
    return new, events


def _next_active(state: State, seat: int) -> int:
    n = state.seats
    nxt = (seat + 1) % n
    while state.out[nxt]:
        nxt = (nxt + 1) % n
    return nxt


# ---------------------------------------------------------------------------------------------
# Protocol


def to_act(state: State) -> int | None:
    """The seat on turn, or ``None`` between rounds and after the game."""
    return state.to_act


def phase(state: State) -> str:
    """``turn``, ``final_round``, ``payout`` (round over, next ``deal`` pending) or ``finished``."""
    return state.phase


def is_over(state: State) -> bool:
    return state.phase == FINISHED


def legal_actions(state: State) -> tuple[SwimAction, ...]:
    """Every legal action: swaps (hand × middle), swap all, pass, knock; or ``deal``."""
    ph = state.phase
    if ph == PAYOUT:
        return (DEAL,)
    if ph == FINISHED:
        return ()
    hand = state.hands[state.to_act]  # type: ignore[index]
    out = [_SWAPS[g.id][t.id] for g in hand for t in state.middle]
    out.append(SWAP_ALL)
    if ph == TURN and not state.passed[state.to_act]:  # type: ignore[index]
        out.append(PASS)
    out.append(KNOCK)
    return tuple(out)  # type: ignore[arg-type]


def why_illegal(state: State, action: SwimAction) -> str | None:
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
    if action.kind == "swap":
        if action.give not in state.hands[seat]:
            return f"{action.give} is not in your hand"
        if action.take not in state.middle:
            return f"{action.take} is not in the middle"
        return None
    if action.kind == "pass":
        if ph == FINAL_ROUND:
            return "nobody may pass after a knock"
        if state.passed[seat]:
            return "you have already passed this round"
        return None
    return None  # swap_all and knock are always allowed on turn


def can_apply(state: State, action: SwimAction | str) -> bool:
    act = parse_action(action) if isinstance(action, str) else action
    return why_illegal(state, act) is None


def apply(state: State, action: SwimAction | str) -> tuple[State, list[Event]]:
    """Play ``action``; returns the new state and the public events. Raises ``IllegalAction``."""
    act = action if type(action) is SwimAction else parse_action(getattr(action, "code", action))
    reason = why_illegal(state, act)
    if reason is not None:
        raise IllegalAction(reason)
    if act is DEAL:
        return _deal(state, _next_active(state, state.starter))
    seat: int = state.to_act  # type: ignore[assignment]
    hands = state.hands
    hand = hands[seat]
    middle = state.middle
    passed = state.passed
    knocker = state.knocker
    final_left = state.final_left
    ph = state.phase
    kind = act.kind
    if kind == "swap":
        give, take = act.give, act.take
        i, j = hand.index(give), middle.index(take)
        hand = hand[:i] + (take,) + hand[i + 1:]
        middle = middle[:j] + (give,) + middle[j + 1:]
        event = Event("swap", seat, {"give": give.code, "take": take.code})  # type: ignore[union-attr]
        public = f"{seat}:{act.code}"
    elif kind == "swap_all":
        hand, middle = middle, hand
        event = Event("swap_all", seat, {"give": [c.code for c in middle],
                                         "take": [c.code for c in hand]})
        public = f"{seat}:all." + ".".join(c.code for c in hand)
    elif kind == "pass":
        passed = passed[:seat] + (True,) + passed[seat + 1:]
        event = Event("pass", seat, {})
        public = f"{seat}:pass"
    elif ph == TURN:  # knock
        knocker = seat
        final_left = len(state.active) - 1
        ph = FINAL_ROUND
        event = Event("knock", seat, {})
        public = f"{seat}:knock"
    else:  # knock again in the final round: a turn that changes nothing
        event = Event("knock", seat, {"again": True})
        public = f"{seat}:knock"
    if kind in ("swap", "swap_all"):
        hands = hands[:seat] + (hand,) + hands[seat + 1:]
    if state.phase == FINAL_ROUND:
        final_left -= 1
    # Built positionally (field order of ``State``): the cheapest way on the hot path.
    new = _new_state(State, (
        state.seats, state.options, state.seed, state.round_no, state.coins, state.out,
        state.pot, hands, middle, ph, _next_active(state, seat), state.starter, passed, knocker,
        final_left, state.turns + 1, state.result, state.winner, state.history + (public,),
    ))
    events = [event]
    if kind in ("swap", "swap_all") and half_points(*hand) == THIRTY_ONE:
        return _showdown(new, "31", seat, events)
    if ph == FINAL_ROUND and final_left == 0:
        return _showdown(new, "knock", None, events)
    return new, events


def _showdown(state: State, reason: str, thirty_one: int | None,
              events: list[Event], thirty_ones: tuple[int, ...] | None = None
              ) -> tuple[State, list[Event]]:
    """Compare all hands, settle coins and eliminations; the round ends in ``payout``."""
    n = state.seats
    active = state.active
    values2: list[int | None] = [None] * n
    for s in active:
        values2[s] = half_points(*state.hands[s])
    losers = lowest_seats(values2, active)
    draw = len(losers) == len(active)
    if draw:
        losers = []
    coins = list(state.coins)
    out = list(state.out)
    paid, swimming, eliminated = [], [], []
    pot = state.pot
    for s in losers:
        if coins[s] > 0:
            coins[s] -= 1
            pot += 1
            paid.append(s)
            if coins[s] == 0:
                swimming.append(s)
        else:
            out[s] = True
            eliminated.append(s)
    remaining = [s for s in range(n) if not out[s]]
    result = RoundResult(
        round_no=state.round_no, reason=reason,
        hands=tuple(state.hands[s] if not state.out[s] else None for s in range(n)),
        values2=tuple(values2), losers=tuple(losers), paid=tuple(paid),
        swimming=tuple(swimming), eliminated=tuple(eliminated), draw=draw,
        thirty_one=thirty_one,
        thirty_ones=thirty_ones if thirty_ones is not None else
        (() if thirty_one is None else (thirty_one,)),
        pot_won=pot if len(remaining) == 1 else 0,
    )
    events = events + [
        Event("showdown", thirty_one, {
            "reason": reason, **shown_hands(state.hands, values2, active),
        }),
        Event("payout", None, {"losers": losers, "paid": paid, "swimming": swimming,
                               "eliminated": eliminated, "draw": draw}),
    ]
    winner = None
    ph = PAYOUT
    if len(remaining) == 1:
        winner = remaining[0]
        coins[winner] += pot
        events.append(Event("game_over", winner, {"pot": pot}))
        pot = 0
        ph = FINISHED
    new = state._replace(coins=tuple(coins), out=tuple(out), pot=pot, phase=ph, to_act=None,
                  result=result, winner=winner)
    return new, events


def observation(state: State, seat: int) -> Observation:
    """What ``seat`` may know: its own hand, the middle and everything public."""
    if not 0 <= seat < state.seats:
        raise GameError(f"no seat {seat}")
    legal = legal_actions(state) if state.to_act == seat else ()
    return Observation(
        seat=seat, seats=state.seats, phase=state.phase, round_no=state.round_no,
        to_act=state.to_act, hand=state.hands[seat], middle=state.middle, coins=state.coins,
        out=state.out, pot=state.pot, passed=state.passed, knocker=state.knocker,
        final_left=state.final_left, starter=state.starter, turns=state.turns,
        result=state.result, winner=state.winner, legal=legal, history=state.history,
    )


def public_view(state: State) -> Observation:
    """What everybody may know (an observation without any hand): for group tables."""
    obs = observation(state, 0)
    return replace(obs, seat=-1, hand=(), legal=())


def hidden_cards(state: State) -> set[Card]:
    """Cards nobody but their holder may see right now (hands during play, undealt deck)."""
    if state.phase in (PAYOUT, FINISHED):
        shown = set(state.middle)
        if state.result is not None:
            for h in state.result.hands:
                shown.update(h or ())
        return set(DECK) - shown
    return set(DECK) - set(state.middle)


# ---------------------------------------------------------------------------------------------
# JSON


def _result_to_dict(r: RoundResult | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "round_no": r.round_no, "reason": r.reason,
        "hands": hands_to_codes(r.hands),
        "values2": list(r.values2), "losers": list(r.losers), "paid": list(r.paid),
        "swimming": list(r.swimming), "eliminated": list(r.eliminated), "draw": r.draw,
        "thirty_one": r.thirty_one, "thirty_ones": list(r.thirty_ones), "pot_won": r.pot_won,
    }


def _result_from_dict(d: dict[str, Any] | None) -> RoundResult | None:
    if d is None:
        return None
    return RoundResult(
        round_no=d["round_no"], reason=d["reason"],
        hands=hands_from_codes(d["hands"]),
        values2=tuple(d["values2"]), losers=tuple(d["losers"]), paid=tuple(d["paid"]),
        swimming=tuple(d["swimming"]), eliminated=tuple(d["eliminated"]), draw=d["draw"],
        thirty_one=d["thirty_one"],
        thirty_ones=tuple(d.get("thirty_ones") or (() if d["thirty_one"] is None
                                                     else (d["thirty_one"],))),
        pot_won=d.get("pot_won", 0),
    )


def to_json(state: State) -> str:
    """The state as compact JSON (exact round trip with ``from_json``)."""
    return state_to_json(GAME_ID, {
        "seats": state.seats, "options": dict(state.options),
        "seed": state.seed, "round_no": state.round_no, "coins": list(state.coins),
        "out": list(state.out), "pot": state.pot,
        "hands": [[c.code for c in h] for h in state.hands],
        "middle": [c.code for c in state.middle], "phase": state.phase,
        "to_act": state.to_act, "starter": state.starter, "passed": list(state.passed),
        "knocker": state.knocker, "final_left": state.final_left, "turns": state.turns,
        "result": _result_to_dict(state.result), "winner": state.winner,
        "history": list(state.history),
    })


def from_json(text: str) -> State:
    """The state from ``to_json`` output."""
    return state_from_json(text, GAME_ID, "Schwimmen", _state_from_dict)


def _state_from_dict(d: dict[str, Any]) -> State:
    return State(
        seats=d["seats"], options=_options(d["options"]), seed=d["seed"],
        round_no=d["round_no"], coins=tuple(d["coins"]), out=tuple(d["out"]), pot=d["pot"],
        hands=tuple(from_codes(h) for h in d["hands"]), middle=from_codes(d["middle"]),
        phase=d["phase"], to_act=d["to_act"], starter=d["starter"],
        passed=tuple(d["passed"]), knocker=d["knocker"], final_left=d["final_left"],
        turns=d["turns"], result=_result_from_dict(d["result"]), winner=d["winner"],
        history=tuple(d.get("history", ())),
    )
