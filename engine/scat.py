"""Einunddreißig / Scat / Blitz, docs/rules-scat.md — game id ``scat``.

A state is a frozen value (a named tuple). One round: deal three (four-card Scat: four) cards to
every player of the round, one at a time from the left of the dealer; the next card face up starts
the discard pile, the rest is the face-down stock. A turn is two moves by the same seat: draw
(``draw`` from the stock, ``take`` the discard top), then ``drop.<card>``; instead of drawing a
player may ``knock`` (not on their very first turn of the round by default). After a knock every
other player has one last turn (draw and discard, or ``pass``), then the showdown. 31 (41) held
before any knock ends the round at once: a blitz, every other player loses a token. The lowest
hand loses a token (ties: all of them; a tied knocker is safe; a knocker strictly lowest loses
two). Out of tokens a player is "on the bus"; losing on the bus eliminates (re-entry option: once,
with full tokens). If all remaining players would go out together, they play a tie-break round.
A round ends in phase ``payout``; the action ``deal`` deals the next one. Values are kept in half
points internally (31 → 62, 30½ → 61). The rules and the project's decisions: docs/rules-scat.md.
What Scat shares with Schwimmen (card and hand values, the deal, the lowest hands at the
showdown) is in ``engine.thirty_one``; this module holds what is Scat's own.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, NamedTuple

from .cards import CARDS, Card, from_codes, full_deck, shuffled
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
    seat_after,
    shown_hands,
    three_card_half_points,
    value_table,
)
from .thirty_one import format_value as format_value  # one of this game's public names

GAME_ID = "scat"
MIN_SEATS = 2
MAX_SEATS = 7
LIVES = 3
DEFAULT_OPTIONS: dict[str, bool] = {
    "no_first_turn_knock": True,  # no knock on a player's very first turn of the round
    "trio_bonus": True,  # three of a rank = 30½ (three-card hands)
    "reentry": False,  # "Einstieg": an eliminated player comes back once with full tokens
    "four_cards": False,  # four-card Scat: 4 hand cards, blitz at 41
}

DECK: tuple[Card, ...] = tuple(full_deck())
CARD_VALUE = value_table(DECK)  # by card id: A 11; K Q J 10; 2..10 face value
_BLITZ2 = {3: THIRTY_ONE, 4: 82}  # 31 and 41 in half points


# ---------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class ScatAction(Action):
    """A Scat move; ``card`` is set for a discard (``drop.<card>``)."""

    card: Card | None = None


DRAW = ScatAction("draw", "draw")  # top card of the stock
TAKE = ScatAction("take", "take")  # top card of the discard pile
KNOCK = ScatAction("knock", "knock")
PASS = ScatAction("pass", "pass")
DEAL = ScatAction("deal", "deal")
_DROPS: list[ScatAction | None] = [None] * len(CARDS)
for _c in DECK:
    _DROPS[_c.id] = ScatAction(f"drop.{_c.code}", "drop", _c)
_BY_CODE: dict[str, ScatAction] = {a.code: a for a in (DRAW, TAKE, KNOCK, PASS, DEAL)}
_BY_CODE.update({a.code: a for a in _DROPS if a is not None})


def drop(card: Card) -> ScatAction:
    """The action that discards ``card``."""
    action = _DROPS[card.id]
    if action is None:
        raise GameError(f"no such card in Scat: {card}")
    return action


def parse_action(code: str) -> ScatAction:
    """The action for a code (``draw``, ``take``, ``drop.QH``, ``knock``, ``pass``, ``deal``)."""
    if not isinstance(code, str):
        raise IllegalAction(f"unknown move {code!r}")
    action = _BY_CODE.get(code.strip())
    if action is None:
        raise IllegalAction(f"unknown move {code!r}")
    return action


# ---------------------------------------------------------------------------------------------
# Hand values


def half_points(hand: Sequence[Card], trio: bool = True) -> int:
    """Showdown value in half points: three of a rank 61 (three cards, with the trio bonus),
    else twice the best single-suit sum of all the cards."""
    if len(hand) == 3:
        c1, c2, c3 = hand
        return three_card_half_points(c1, c2, c3, CARD_VALUE, trio)
    sums = [0, 0, 0, 0]
    for c in hand:
        sums[c.suit] += CARD_VALUE[c.id]
    return 2 * max(sums)


def best_discard(hand: Sequence[Card], trio: bool = True,
                 keep: Card | None = None) -> tuple[int, Card]:
    """For a hand holding one card too many: the best value (half points) after discarding one
    card, and that card (never ``keep``; ties: the lowest card goes)."""
    best: tuple[int, int, Card] | None = None
    for c in hand:
        if c is keep:
            continue
        v = half_points([d for d in hand if d is not c], trio)
        key = (v, -CARD_VALUE[c.id], c)
        if best is None or key[:2] > best[:2]:
            best = key
    assert best is not None
    return best[0], best[2]


def _blitz_after_draw(hand: tuple[Card, ...], card: Card, size: int) -> bool:
    """After drawing ``card``: can ``size`` cards of its suit make 31 (41)? A hand without the
    new card cannot: it would have ended the round before."""
    suit = card.suit
    vals = sorted((CARD_VALUE[c.id] for c in hand if c.suit == suit), reverse=True)
    return len(vals) >= size and 2 * sum(vals[:size]) == _BLITZ2[size]


def hand_value(cards: Sequence[Card], trio_bonus: bool = True) -> float:
    """Value of a three-card hand (31, 30½ for three of a rank, 30, …) or of a four-card Scat hand
    (best single-suit sum of up to four cards, at most 41; no trio bonus)."""
    cards = tuple(cards)
    if len(cards) not in (3, 4) or len(set(cards)) != len(cards):
        raise GameError("a Scat hand has three (four-card Scat: four) different cards")
    if any(c.is_joker for c in cards):
        raise GameError("Scat is played without jokers")
    return points(half_points(cards, trio_bonus))


# ---------------------------------------------------------------------------------------------
# State


@dataclass(frozen=True, slots=True)
class RoundResult:
    """The public outcome of a round: every hand shown, values, who lost what."""

    round_no: int
    reason: str  # "knock", "blitz", "dealt_blitz", "stock_knock", "stock_pass"
    hands: tuple[tuple[Card, ...] | None, ...]  # None for seats not in the round
    values2: tuple[int | None, ...]
    knocker: int | None
    blitz: tuple[int, ...]  # seats that held 31 (41)
    losers: tuple[int, ...]
    lost: tuple[int, ...]  # tokens lost per seat (0, 1 or 2)
    bus: tuple[int, ...]  # got on the bus in this round
    eliminated: tuple[int, ...]
    reentered: tuple[int, ...]  # eliminated, and back in at once with full tokens
    tiebreak: tuple[int, ...]  # these seats play a tie-break round next
    tiebreak_round: bool  # this round was a tie-break round


class State(NamedTuple):
    """A Scat game at one moment: an immutable value."""

    seats: int
    options: tuple[tuple[str, Any], ...]
    seed: int
    round_no: int
    dealer: int
    lives: tuple[int, ...]
    out: tuple[bool, ...]
    reentered: tuple[bool, ...]  # the re-entry has been used
    players: tuple[int, ...]  # seats dealt in this round, in seat order
    tiebreak: tuple[int, ...]  # seats of the current (or next) tie-break round; () if none
    hands: tuple[tuple[Card, ...], ...]  # () for seats not in the round
    stock: tuple[Card, ...]  # face down; the top card is the last
    discard: tuple[Card, ...]  # face up; the top card is the last
    phase: str
    to_act: int | None
    drawn: Card | None  # the card the seat on turn has just drawn (it must discard now)
    from_pile: bool  # ``drawn`` came from the discard pile (may not go back this turn)
    knocker: int | None
    final_left: int  # last turns still to play after the knock
    moved: tuple[bool, ...]  # seats that have finished a turn in this round
    turns: int  # finished turns in this round
    result: RoundResult | None
    winner: int | None
    # the public moves of this round, "seat:code" ("seat:take.<card>" names the card taken from
    # the discard pile; a draw from the stock stays "seat:draw") — what an attentive player
    # remembers
    history: tuple[str, ...] = ()

    @property
    def remaining(self) -> list[int]:
        """Seats not eliminated."""
        return [s for s in range(self.seats) if not self.out[s]]

    @property
    def on_bus(self) -> tuple[bool, ...]:
        return tuple(not o and lv == 0 for o, lv in zip(self.out, self.lives, strict=True))


@dataclass(frozen=True, slots=True)
class Observation:
    """Exactly what one seat may know."""

    seat: int
    seats: int
    phase: str
    round_no: int
    to_act: int | None
    hand: tuple[Card, ...]  # own cards, the just-drawn card included
    drawn: Card | None  # own just-drawn card (only for the seat on turn, mid-turn)
    from_pile: bool
    mid_turn: bool  # the seat on turn has drawn and must discard now
    discard: tuple[Card, ...]  # the whole face-up pile, top last
    stock_size: int
    lives: tuple[int, ...]
    out: tuple[bool, ...]
    reentered: tuple[bool, ...]
    players: tuple[int, ...]
    tiebreak: tuple[int, ...]
    dealer: int
    knocker: int | None
    final_left: int
    moved: tuple[bool, ...]
    turns: int
    result: RoundResult | None
    winner: int | None
    options: tuple[tuple[str, Any], ...]
    legal: tuple[ScatAction, ...]
    history: tuple[str, ...] = ()  # the public moves of this round (see ``State.history``)

    @property
    def hand_size(self) -> int:
        return 4 if dict(self.options)["four_cards"] else 3

    @property
    def trio_bonus(self) -> bool:
        return bool(dict(self.options)["trio_bonus"])

    def visible_cards(self) -> set[Card]:
        """Every card this observation shows."""
        seen = set(self.hand) | set(self.discard)
        if self.result is not None:
            for h in self.result.hands:
                seen.update(h or ())
        return seen


def _options(raw: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    opts: dict[str, Any] = dict(DEFAULT_OPTIONS)
    for key, value in (raw or {}).items():
        if key not in DEFAULT_OPTIONS:
            raise GameError(f"unknown Scat option {key!r}")
        if not isinstance(value, bool):
            raise GameError(f"Scat option {key!r} must be true or false")
        opts[key] = value
    return tuple(sorted(opts.items()))


@lru_cache(maxsize=64)
def _flags(options: tuple[tuple[str, Any], ...]) -> tuple[bool, bool, bool, int]:
    """(no first-turn knock, trio bonus, re-entry, hand size) of an options tuple."""
    o = dict(options)
    return (o["no_first_turn_knock"], o["trio_bonus"], o["reentry"], 4 if o["four_cards"] else 3)


def _rng(seed: int, round_no: int) -> random.Random:
    return random.Random(seed * 1_000_003 + round_no)


def new_game(seats: int, options: Mapping[str, Any] | None = None,
             seed: int | None = None) -> State:
    """A new game for 2–7 seats, with the first round dealt (the first dealer is random)."""
    if type(seats) is not int or not MIN_SEATS <= seats <= MAX_SEATS:
        raise GameError(f"Scat needs {MIN_SEATS} to {MAX_SEATS} players")
    opts = _options(options)
    if seed is None:
        seed = random.SystemRandom().randrange(2**53)
    dealer = _rng(seed, 0).randrange(seats)
    everybody = tuple(range(seats))
    blank = State(
        seats=seats, options=opts, seed=seed, round_no=0, dealer=dealer, lives=(LIVES,) * seats,
        out=(False,) * seats, reentered=(False,) * seats, players=everybody, tiebreak=(),
        hands=((),) * seats, stock=(), discard=(), phase=PAYOUT, to_act=None, drawn=None,
        from_pile=False, knocker=None, final_left=0, moved=(False,) * seats, turns=0,
        result=None, winner=None,
    )
    state, _ = _deal(blank, dealer, everybody)
    return state


def _deal(state: State, dealer: int, players: tuple[int, ...]) -> tuple[State, list[Event]]:
    """Deal a round to ``players``; a blitz in a dealt hand ends it at once."""
    round_no = state.round_no + 1
    _, trio, _, size = _flags(state.options)
    n = state.seats
    starter = seat_after(players, dealer)
    order = clockwise_from(players, starter)
    hands, rest = deal(shuffled(DECK, _rng(state.seed, round_no)), order, n, size)
    new = state._replace(
        round_no=round_no, dealer=dealer, players=players, hands=hands,
        stock=tuple(rest[1:]), discard=(rest[0],), phase=TURN, to_act=starter,
        drawn=None, from_pile=False, knocker=None, final_left=0, moved=(False,) * n, turns=0,
        result=None, history=(),
    )
    events = [Event("deal", None, {
        "round": round_no, "dealer": dealer, "starter": starter, "players": list(players),
        "discard": rest[0].code, "tiebreak": bool(state.tiebreak)})]
    blitz2 = _BLITZ2[size]
    blitzers = tuple(s for s in order if half_points(hands[s], trio) == blitz2)
    if blitzers:
        events += [Event("blitz", s, {"when": "deal", "value": blitz2 // 2})
                   for s in sorted(blitzers)]
        return _showdown(new, "dealt_blitz", None, tuple(sorted(blitzers)), events)
    return new, events


# ---------------------------------------------------------------------------------------------
# Protocol


def to_act(state: State) -> int | None:
    """The seat on turn (also between its draw and its discard), or ``None`` between rounds."""
    return state.to_act


def phase(state: State) -> str:
    """``turn``, ``final_round`` (after a knock), ``payout`` (round over) or ``finished``."""
    return state.phase


def is_over(state: State) -> bool:
    return state.phase == FINISHED


def _may_knock(state: State, seat: int) -> bool:
    return state.phase == TURN and (state.moved[seat] or not _flags(state.options)[0])


def legal_actions(state: State) -> tuple[ScatAction, ...]:
    """Before drawing: draw, take, knock, pass as allowed; after drawing: the discards."""
    ph = state.phase
    if ph == PAYOUT:
        return (DEAL,)
    if ph == FINISHED:
        return ()
    seat: int = state.to_act  # type: ignore[assignment]
    drawn = state.drawn
    if drawn is not None:
        if state.from_pile:
            return tuple(_DROPS[c.id] for c in state.hands[seat] if c is not drawn)  # type: ignore[misc]
        return tuple(_DROPS[c.id] for c in state.hands[seat])  # type: ignore[misc]
    out = [DRAW, TAKE] if state.stock else [TAKE]
    if ph == TURN:
        if _may_knock(state, seat):
            out.append(KNOCK)
        if not state.stock:
            out.append(PASS)
    else:
        out.append(PASS)
    return tuple(out)


def why_illegal(state: State, action: ScatAction) -> str | None:
    """``None`` when the action is legal, else the reason in plain words."""
    ph = state.phase
    if ph == FINISHED:
        return "the game is over"
    kind = action.kind
    if kind == "deal":
        return None if ph == PAYOUT else "the round is still being played"
    if ph == PAYOUT:
        return "the round is over; the next one must be dealt first"
    seat: int = state.to_act  # type: ignore[assignment]
    if state.drawn is not None:
        if kind != "drop":
            return "you have drawn a card: now discard one card"
        if action.card not in state.hands[seat]:
            return f"{action.card} is not in your hand"
        if state.from_pile and action.card is state.drawn:
            return (f"{action.card} was taken from the discard pile and may not be discarded "
                    "again in the same turn")
        return None
    if kind == "drop":
        return "draw a card first (stock or discard pile), then discard"
    if kind == "draw":
        return None if state.stock else "the stock is empty"
    if kind == "take":
        return None if state.discard else "the discard pile is empty"
    if kind == "knock":
        if ph == FINAL_ROUND:
            return "somebody has already knocked"
        if not _may_knock(state, seat):
            return "no knocking on your very first turn of the round"
        return None
    # pass
    if ph == TURN and state.stock:
        return "passing is only allowed after a knock or when the stock is empty"
    return None


def can_apply(state: State, action: ScatAction | str) -> bool:
    act = parse_action(action) if isinstance(action, str) else action
    return why_illegal(state, act) is None


def apply(state: State, action: ScatAction | str) -> tuple[State, list[Event]]:
    """Play ``action``; returns the new state and the public events. Raises ``IllegalAction``."""
    act = action if type(action) is ScatAction else parse_action(getattr(action, "code", action))
    reason = why_illegal(state, act)
    if reason is not None:
        raise IllegalAction(reason)
    kind = act.kind
    if kind == "deal":
        return _next_round(state)
    seat: int = state.to_act  # type: ignore[assignment]
    hands = state.hands
    if kind == "draw" or kind == "take":
        if kind == "draw":
            stock, discard = state.stock[:-1], state.discard
            card = state.stock[-1]
            event = Event("draw", seat, {"stock": len(stock)})  # the card stays private
            public = f"{seat}:draw"
        else:
            stock, discard = state.stock, state.discard[:-1]
            card = state.discard[-1]
            event = Event("take", seat, {"card": card.code})
            public = f"{seat}:take.{card.code}"
        hand = hands[seat] + (card,)
        new = State(
            state.seats, state.options, state.seed, state.round_no, state.dealer, state.lives,
            state.out, state.reentered, state.players, state.tiebreak,
            hands[:seat] + (hand,) + hands[seat + 1:], stock, discard, state.phase, seat, card,
            kind == "take", state.knocker, state.final_left, state.moved, state.turns,
            state.result, state.winner, state.history + (public,),
        )
        if state.phase == TURN and _blitz_after_draw(hand, card, _flags(state.options)[3]):
            blitz = Event("blitz", seat, {"when": "draw", "value": 41 if len(hand) > 4 else 31})
            return _showdown(new, "blitz", None, (seat,), [event, blitz])
        return new, [event]
    if kind == "drop":
        card = act.card  # type: ignore[assignment]
        hand = tuple(c for c in hands[seat] if c is not card)
        moved = state.moved
        if not moved[seat]:
            moved = moved[:seat] + (True,) + moved[seat + 1:]
        new = State(
            state.seats, state.options, state.seed, state.round_no, state.dealer, state.lives,
            state.out, state.reentered, state.players, state.tiebreak,
            hands[:seat] + (hand,) + hands[seat + 1:], state.stock, state.discard + (card,),
            state.phase, seat, None, False, state.knocker, state.final_left, moved,
            state.turns, state.result, state.winner, state.history + (f"{seat}:{act.code}",),
        )
        return _end_turn(new, seat, [Event("discard", seat, {"card": card.code})])
    if kind == "knock":
        event = Event("knock", seat, {"stock_empty": not state.stock})
        new = state._replace(knocker=seat, turns=state.turns + 1,
                             history=state.history + (f"{seat}:knock",))
        if not state.stock:  # empty stock: the knock ends the round at once
            return _showdown(new, "stock_knock", seat, (), [event])
        new = new._replace(phase=FINAL_ROUND, final_left=len(state.players) - 1,
                           to_act=seat_after(state.players, seat))
        return new, [event]
    # pass
    event = Event("pass", seat, {"stock_empty": True} if state.phase == TURN else {})
    state = state._replace(history=state.history + (f"{seat}:pass",))
    if state.phase == TURN:  # only with an empty stock: the round ends at once
        return _showdown(state._replace(turns=state.turns + 1), "stock_pass", None, (), [event])
    return _end_turn(state, seat, [event])


def _end_turn(state: State, seat: int, events: list[Event]) -> tuple[State, list[Event]]:
    """A turn is over: count it; after a knock, the last last turn leads to the showdown."""
    if state.phase == FINAL_ROUND:
        left = state.final_left - 1
        if left == 0:
            return _showdown(state._replace(final_left=0, turns=state.turns + 1), "knock",
                             state.knocker, (), events)
        return state._replace(final_left=left, turns=state.turns + 1,
                              to_act=seat_after(state.players, seat)), events
    return State(
        state.seats, state.options, state.seed, state.round_no, state.dealer, state.lives,
        state.out, state.reentered, state.players, state.tiebreak, state.hands, state.stock,
        state.discard, state.phase, seat_after(state.players, seat), None, False, state.knocker,
        state.final_left, state.moved, state.turns + 1, state.result, state.winner,
        state.history,
    ), events


def _next_round(state: State) -> tuple[State, list[Event]]:
    """Deal the next round: the tie-break players if a tie-break is due, else everybody left.
    The deal passes clockwise to the next seat of the new round after the last dealer."""
    players = state.tiebreak or tuple(state.remaining)
    return _deal(state, seat_after(players, state.dealer), players)


def round_losses(values2: Sequence[int | None], players: Sequence[int], knocker: int | None,
                 blitz: Sequence[int] = ()) -> dict[int, int]:
    """Tokens each losing seat loses in a showdown (docs/rules-scat.md §6, §8)."""
    if blitz:
        return {s: 1 for s in players if s not in blitz}
    bottom = lowest_seats(values2, players)
    if knocker is not None and knocker in bottom:
        if len(bottom) == 1:
            return {knocker: 2}  # a knocker strictly lowest loses two tokens
        return {s: 1 for s in bottom if s != knocker}  # a tied knocker is safe
    return {s: 1 for s in bottom}


def _showdown(state: State, reason: str, knocker: int | None, blitz: tuple[int, ...],
              events: list[Event]) -> tuple[State, list[Event]]:
    """Show all hands, settle tokens, the bus, eliminations and tie-breaks; ends in ``payout``."""
    n = state.seats
    players = state.players
    _, trio, reentry, size = _flags(state.options)
    values2: list[int | None] = [None] * n
    for s in players:
        hand = state.hands[s]
        values2[s] = half_points(hand, trio) if len(hand) == size else best_discard(hand, trio)[0]
    losses = round_losses(values2, players, knocker, blitz)
    losers = tuple(sorted(losses))
    lives, out, reentered = list(state.lives), list(state.out), list(state.reentered)
    lost = [0] * n
    bus: list[int] = []
    eliminated: list[int] = []
    back: list[int] = []
    tiebreak: tuple[int, ...] = ()
    if state.tiebreak:
        # A tie-break round: everybody in it is on the bus. The lowest goes out; on a tie at the
        # bottom the tied players play the tie-break again.
        if len(losers) == 1:
            eliminated.append(losers[0])
            out[losers[0]] = True
        else:
            tiebreak = losers
    else:
        going: list[int] = []
        for s in losers:
            if lives[s] > 0:
                lost[s] = min(lives[s], losses[s])
                lives[s] -= lost[s]
                if lives[s] == 0:
                    bus.append(s)  # never straight out: the bus first
            else:
                going.append(s)
        back = [s for s in going if reentry and not reentered[s]]
        final = [s for s in going if s not in back]
        if final and all(out[s] or s in final for s in range(n)):
            tiebreak = tuple(final)  # all remaining would go out together: a tie-break round
        else:
            for s in final:
                out[s] = True
                eliminated.append(s)
            for s in back:
                lives[s] = LIVES
                reentered[s] = True
    result = RoundResult(
        round_no=state.round_no, reason=reason,
        hands=tuple(state.hands[s] if s in players else None for s in range(n)),
        values2=tuple(values2), knocker=knocker, blitz=blitz, losers=losers, lost=tuple(lost),
        bus=tuple(bus), eliminated=tuple(eliminated), reentered=tuple(back), tiebreak=tiebreak,
        tiebreak_round=bool(state.tiebreak),
    )
    events = events + [
        Event("showdown", blitz[0] if blitz else knocker, {
            "reason": reason, "knocker": knocker, "blitz": list(blitz),
            **shown_hands(state.hands, values2, players),
        }),
        Event("payout", None, {
            "losers": list(losers), "lost": {str(s): lost[s] for s in losers if lost[s]},
            "bus": bus, "eliminated": eliminated, "reentered": back, "tiebreak": list(tiebreak),
        }),
    ]
    remaining = [s for s in range(n) if not out[s]]
    winner = None
    ph = PAYOUT
    if len(remaining) == 1:
        winner = remaining[0]
        ph = FINISHED
        events.append(Event("game_over", winner, {}))
    new = state._replace(lives=tuple(lives), out=tuple(out), reentered=tuple(reentered),
                         tiebreak=tiebreak, phase=ph, to_act=None, drawn=None, from_pile=False,
                         knocker=knocker, result=result, winner=winner)
    return new, events


def observation(state: State, seat: int) -> Observation:
    """What ``seat`` may know: its own hand (with a just-drawn card) and everything public."""
    if not 0 <= seat < state.seats:
        raise GameError(f"no seat {seat}")
    mine = state.to_act == seat
    legal = legal_actions(state) if mine else ()
    return Observation(
        seat=seat, seats=state.seats, phase=state.phase, round_no=state.round_no,
        to_act=state.to_act, hand=state.hands[seat], drawn=state.drawn if mine else None,
        from_pile=state.from_pile, mid_turn=state.drawn is not None, discard=state.discard,
        stock_size=len(state.stock), lives=state.lives, out=state.out,
        reentered=state.reentered, players=state.players, tiebreak=state.tiebreak,
        dealer=state.dealer, knocker=state.knocker, final_left=state.final_left,
        moved=state.moved, turns=state.turns, result=state.result, winner=state.winner,
        options=state.options, legal=legal, history=state.history,
    )


def public_view(state: State) -> Observation:
    """What everybody may know (an observation without any hand): for group tables."""
    obs = observation(state, 0)
    return replace(obs, seat=-1, hand=(), drawn=None, legal=())


def hidden_cards(state: State) -> set[Card]:
    """Cards nobody but their holder may see right now: the hands in play and the stock."""
    hidden = set(state.stock)
    if state.phase not in (PAYOUT, FINISHED):  # at the showdown every hand is shown
        for h in state.hands:
            hidden.update(h)
    return hidden


# ---------------------------------------------------------------------------------------------
# JSON


def _result_to_dict(r: RoundResult | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "round_no": r.round_no, "reason": r.reason,
        "hands": hands_to_codes(r.hands),
        "values2": list(r.values2), "knocker": r.knocker, "blitz": list(r.blitz),
        "losers": list(r.losers), "lost": list(r.lost), "bus": list(r.bus),
        "eliminated": list(r.eliminated), "reentered": list(r.reentered),
        "tiebreak": list(r.tiebreak), "tiebreak_round": r.tiebreak_round,
    }


def _result_from_dict(d: dict[str, Any] | None) -> RoundResult | None:
    if d is None:
        return None
    return RoundResult(
        round_no=d["round_no"], reason=d["reason"],
        hands=hands_from_codes(d["hands"]),
        values2=tuple(d["values2"]), knocker=d["knocker"], blitz=tuple(d["blitz"]),
        losers=tuple(d["losers"]), lost=tuple(d["lost"]), bus=tuple(d["bus"]),
        eliminated=tuple(d["eliminated"]), reentered=tuple(d["reentered"]),
        tiebreak=tuple(d["tiebreak"]), tiebreak_round=d["tiebreak_round"],
    )


def to_json(state: State) -> str:
    """The state as compact JSON (exact round trip with ``from_json``)."""
    return state_to_json(GAME_ID, {
        "seats": state.seats, "options": dict(state.options),
        "seed": state.seed, "round_no": state.round_no, "dealer": state.dealer,
        "lives": list(state.lives), "out": list(state.out), "reentered": list(state.reentered),
        "players": list(state.players), "tiebreak": list(state.tiebreak),
        "hands": [[c.code for c in h] for h in state.hands],
        "stock": [c.code for c in state.stock], "discard": [c.code for c in state.discard],
        "phase": state.phase, "to_act": state.to_act,
        "drawn": None if state.drawn is None else state.drawn.code,
        "from_pile": state.from_pile, "knocker": state.knocker, "final_left": state.final_left,
        "moved": list(state.moved), "turns": state.turns,
        "result": _result_to_dict(state.result), "winner": state.winner,
        "history": list(state.history),
    })


def from_json(text: str) -> State:
    """The state from ``to_json`` output."""
    return state_from_json(text, GAME_ID, "Scat", _state_from_dict)


def _state_from_dict(d: dict[str, Any]) -> State:
    return State(
        seats=d["seats"], options=_options(d["options"]), seed=d["seed"],
        round_no=d["round_no"], dealer=d["dealer"], lives=tuple(d["lives"]),
        out=tuple(d["out"]), reentered=tuple(d["reentered"]), players=tuple(d["players"]),
        tiebreak=tuple(d["tiebreak"]), hands=tuple(from_codes(h) for h in d["hands"]),
        stock=from_codes(d["stock"]), discard=from_codes(d["discard"]), phase=d["phase"],
        to_act=d["to_act"], drawn=None if d["drawn"] is None else from_codes([d["drawn"]])[0],
        from_pile=d["from_pile"], knocker=d["knocker"], final_left=d["final_left"],
        moved=tuple(d["moved"]), turns=d["turns"], result=_result_from_dict(d["result"]),
        winner=d["winner"], history=tuple(d.get("history", ())),
    )
