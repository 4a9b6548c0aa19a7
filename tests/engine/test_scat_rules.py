"""Scat / Einunddreißig: one test per rule decision of RULES.md §2 (seed 002_d824b4ec1557a23f.txt)
and of docs/rules-scat.md.

Positions are built by hand with ``State._replace``; deals are rigged by replacing the per-round
RNG (``S._rng``) with one whose shuffle lays out a chosen deck. Every test asserts concrete
outcomes (phase, seat on turn, losers, tokens, events).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

import engine
from engine import GAMES, GameError, IllegalAction
from engine import scat as S
from engine.cards import parse_card, parse_cards
from engine.protocol import FINAL_ROUND, FINISHED, PAYOUT, TURN

# ---------------------------------------------------------------------------------------------
# helpers


def position(hands, discard="3H", stock="", to_act=0, options=None, empty_stock=False,
             **changes) -> S.State:
    """A round in progress: these hands ('' = not in the round), this discard pile (top last);
    ``stock`` lists the next stock cards in drawing order (the rest of the deck lies below).
    With ``empty_stock`` the stock is empty and the rest of the deck lies in the discard pile."""
    n = len(hands)
    hs = tuple(parse_cards(h) if h else () for h in hands)
    disc = parse_cards(discard)
    top = parse_cards(stock)
    used = [c for h in hs for c in h] + list(disc) + list(top)
    assert len(used) == len(set(used)), "a card is used twice in the position"
    rest = tuple(c for c in S.DECK if c not in set(used))
    if empty_stock:
        assert not top
        disc, stock_t = rest + disc, ()
    else:
        stock_t = rest + tuple(reversed(top))
    fields = {
        "hands": hs, "discard": disc, "stock": stock_t, "to_act": to_act,
        "players": tuple(s for s in range(n) if hs[s]), "out": tuple(not h for h in hs),
        "phase": TURN, "drawn": None, "from_pile": False, "knocker": None, "final_left": 0,
        "moved": (True,) * n, "turns": n, "result": None, "winner": None,
        "lives": tuple(3 if h else 0 for h in hs), "dealer": (to_act - 1) % n,
    }
    fields.update(changes)
    state = S.new_game(n, options, seed=1)._replace(**fields)
    check_cards(state)
    return state


def check_cards(state: S.State) -> None:
    every = [c for h in state.hands for c in h] + list(state.discard) + list(state.stock)
    assert len(every) == 52 and set(every) == set(S.DECK)


def play(state: S.State, *codes: str) -> tuple[S.State, list[engine.Event]]:
    """Apply moves in order; return the final state and all events."""
    events: list[engine.Event] = []
    for code in codes:
        state, evs = S.apply(state, code)
        events.extend(evs)
        check_cards(state)
    return state, events


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def value(text: str, trio: bool = True) -> float:
    return S.hand_value(parse_cards(text), trio)


def assert_illegal(state: S.State, code: str, match: str) -> None:
    """``code`` raises IllegalAction with a reason and leaves the state as it was."""
    before_json = S.to_json(state)
    before = state
    with pytest.raises(IllegalAction, match=match) as info:
        S.apply(state, code)
    assert str(info.value)
    assert state == before
    assert S.to_json(state) == before_json


class Rigged:
    """Stands in for the per-round RNG: the shuffle lays out a fixed deck."""

    def __init__(self, order) -> None:
        self.order = list(order)

    def shuffle(self, deck) -> None:
        deck[:] = self.order

    def randrange(self, n: int) -> int:
        return 0


def rigged_deck(hands_in_deal_order, discard: str):
    """A deck that deals these hands (first hand = the player left of the dealer) one card at
    a time, then ``discard`` face up; the rest of the deck is the stock."""
    hs = [parse_cards(h) for h in hands_in_deal_order]
    order = [h[i] for i in range(len(hs[0])) for h in hs]
    order.append(parse_card(discard))
    return order + [c for c in S.DECK if c not in set(order)]


def rig(monkeypatch, order) -> None:
    monkeypatch.setattr(S, "_rng", lambda seed, round_no: Rigged(order))


def between_rounds(state: S.State, dealer: int) -> S.State:
    """The round is over; ``dealer`` dealt it (the next deal passes to the next seat)."""
    return state._replace(phase=PAYOUT, to_act=None, dealer=dealer)


def deal_rigged(monkeypatch, state: S.State, hands_by_seat, discard: str):
    """Apply ``deal`` with a deck that gives each seat of the round these cards."""
    players = state.tiebreak or tuple(state.remaining)
    starter = S.seat_after(players, S.seat_after(players, state.dealer))
    i = players.index(starter)
    order = players[i:] + players[:i]
    rig(monkeypatch, rigged_deck([hands_by_seat[s] for s in order], discard))
    return S.apply(state, "deal")


# Hands without any chance of 31 in one draw (no two cards of one suit with 21+ and an ace).
LOW = ("5H 6C 7D", "8S 9H 2D", "3C 4S 6H", "7C 8D 2S", "9C 3D 4H", "5S 6D 2H", "7S 8H 3S")


# ---------------------------------------------------------------------------------------------
# players, deck, values


def test_rule_registered_as_scat():
    assert GAMES["scat"] is S
    assert S.GAME_ID == "scat"
    from chatbot.presenters import PRESENTERS
    assert PRESENTERS["scat"].GAME_ID == "scat"
    from engine.bots import levels_for
    assert levels_for("scat") == ["anfaenger", "normal", "experte"]


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6, 7])
def test_rule_two_to_seven_players(seats):
    state = S.new_game(seats, seed=3)
    assert state.seats == seats
    assert state.players == tuple(range(seats))
    assert (S.MIN_SEATS, S.MAX_SEATS) == (2, 7)


@pytest.mark.parametrize("seats", [0, 1, 8, -2, "3", 2.0, None, True])
def test_rule_two_to_seven_players_only(seats):
    with pytest.raises(GameError, match="2 to 7"):
        S.new_game(seats, seed=1)


def test_rule_deck_52_cards_no_jokers():
    assert len(S.DECK) == 52 and len(set(S.DECK)) == 52
    assert not any(c.is_joker for c in S.DECK)
    assert {c.rank for c in S.DECK} == set(range(2, 15))
    with pytest.raises(GameError, match="jokers"):
        S.hand_value(parse_cards("BJ AH KH"))


def test_rule_card_values_ace_11_pictures_10_else_face():
    expected = {2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9, 10: 10, 11: 10, 12: 10, 13: 10,
                14: 11}
    for c in S.DECK:
        assert S.CARD_VALUE[c.id] == expected[c.rank]


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("2H 3H 4H", 9),
        ("10H JH QH", 30),
        ("AH 7H 8H", 26),
        ("AH KS QC", 11),  # three suits: the best single card
        ("AH 7H KS", 18),  # two hearts beat the lone king
        ("2C 3D 4S", 4),
        ("9H 7H AS", 16),
        ("8S 8C 9S", 17),  # a pair is nothing special
    ],
)
def test_rule_hand_value_best_single_suit_sum(hand, expected):
    assert value(hand) == expected


@pytest.mark.parametrize("suit", ["C", "S", "H", "D"])
@pytest.mark.parametrize("tens", [("K", "Q"), ("10", "J"), ("K", "10"), ("Q", "J")])
def test_rule_31_is_ace_plus_two_ten_valued_cards_of_one_suit(suit, tens):
    assert value(f"A{suit} {tens[0]}{suit} {tens[1]}{suit}") == 31


@pytest.mark.parametrize("rank", ["2", "7", "10", "K", "A"])
def test_rule_trio_is_thirty_and_a_half(rank):
    assert value(f"{rank}H {rank}S {rank}D") == 30.5
    assert value("AH KH QH") > value(f"{rank}C {rank}S {rank}D") > value("10D JD QD")


def test_rule_trio_bonus_in_the_showdown():
    state = position(["2H 2S 2D", "10S JS QS", "KH QH 9H"], to_act=0)
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.values2 == (61, 60, 58)
    assert state.result.losers == (2,)


def test_rule_option_no_trio_bonus():
    assert value("2H 2S 2D", trio=False) == 2
    assert value("AH AS AD", trio=False) == 11
    assert value("AH KH QH", trio=False) == 31
    state = position(["2H 2S 2D", "10S JS QS", "KH QH 9H"], to_act=0,
                     options={"trio_bonus": False})
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.values2 == (4, 60, 58)
    assert state.result.losers == (0,)
    assert state.lives[0] == 1  # the knocker, strictly lowest, loses two


def test_hand_value_needs_three_or_four_cards():
    for bad in ("AH KH", "AH KH QH JH 10H", "AH AH KH"):
        with pytest.raises(GameError):
            S.hand_value(parse_cards(bad))
    assert value("AH KH QH") == 31 and isinstance(value("AH KH QH"), int)
    assert S.format_value(62) == "31" and S.format_value(61) == "30½"


# ---------------------------------------------------------------------------------------------
# tokens, dealer, deal


@pytest.mark.parametrize("seats", [2, 5, 7])
def test_rule_three_tokens_each(seats):
    state = S.new_game(seats, seed=11)
    if state.phase == TURN:
        assert state.lives == (3,) * seats
    assert S.LIVES == 3
    assert state.out == (False,) * seats


def test_rule_first_dealer_random_player_left_of_dealer_starts():
    for seats in (2, 4, 7):
        dealers = [S.new_game(seats, seed=s).dealer for s in range(500)]
        counts = Counter(dealers)
        assert set(counts) == set(range(seats))
        assert min(counts.values()) > 500 / seats / 2, counts
        assert [S.new_game(seats, seed=s).dealer for s in range(20)] == dealers[:20]
    for seed in range(40):
        state = S.new_game(5, seed=seed)
        if state.phase == TURN:
            assert state.to_act == (state.dealer + 1) % 5


@pytest.mark.parametrize("seats", [2, 4, 7])
@pytest.mark.parametrize("seed", [0, 17, 123456789])
def test_rule_deal_three_each_one_at_a_time_then_discard_then_stock(seats, seed):
    state = S.new_game(seats, seed=seed)
    deck = list(S.DECK)
    S._rng(seed, 1).shuffle(deck)  # white box: the round's deck
    starter = (state.dealer + 1) % seats
    order = [(starter + i) % seats for i in range(seats)]
    for i, seat in enumerate(order):
        assert state.hands[seat] == (deck[i], deck[i + seats], deck[i + 2 * seats])
    assert state.discard == (deck[3 * seats],)  # the next card face up
    assert state.stock == tuple(deck[3 * seats + 1:])  # the rest is the stock
    assert len(state.stock) == 52 - 3 * seats - 1
    check_cards(state)


def test_rule_deal_rotates_clockwise_player_left_of_dealer_starts():
    state = between_rounds(position(list(LOW[:4])), dealer=1)
    state, events = S.apply(state, "deal")
    assert state.dealer == 2 and state.to_act == 3
    assert events[0].kind == "deal"
    assert events[0].data["dealer"] == 2 and events[0].data["starter"] == 3
    state, _ = S.apply(between_rounds(state, state.dealer), "deal")
    assert state.dealer == 3 and state.to_act == 0  # wraps around
    state, _ = S.apply(between_rounds(state, state.dealer), "deal")
    assert state.dealer == 0 and state.to_act == 1


def test_rule_deal_skips_eliminated_players():
    state = between_rounds(position(["5H 6C 7D", "", "3C 4S 6H", "7C 8D 2S"]), dealer=0)
    state, _ = S.apply(state, "deal")
    assert state.players == (0, 2, 3)
    assert state.dealer == 2 and state.to_act == 3
    assert state.hands[1] == ()
    assert len(state.stock) == 52 - 9 - 1
    state, _ = S.apply(between_rounds(state, 0), "deal")
    assert state.dealer == 2  # seat 1 is out: the deal passes from 0 to 2


# ---------------------------------------------------------------------------------------------
# the turn: draw, then discard


def test_rule_turn_is_draw_then_discard_by_the_same_seat():
    state = position(list(LOW[:3]), discard="KC", stock="QD")
    assert set(S.legal_actions(state)) == {S.DRAW, S.TAKE, S.KNOCK}
    state, events = S.apply(state, "draw")
    assert events == [engine.Event("draw", 0, {"stock": len(state.stock)})]
    assert state.phase == TURN and state.to_act == 0  # same seat, same phase
    assert state.drawn == parse_card("QD") and not state.from_pile
    assert len(state.hands[0]) == 4
    assert {a.kind for a in S.legal_actions(state)} == {"drop"}
    assert len(S.legal_actions(state)) == 4  # a card drawn from the stock may go again
    state, events = S.apply(state, "drop.QD")
    assert events == [engine.Event("discard", 0, {"card": "QD"})]
    assert state.to_act == 1 and state.drawn is None
    assert state.discard[-1] == parse_card("QD")
    assert state.hands[0] == parse_cards(LOW[0])
    assert state.turns == 4


def test_rule_stock_draw_is_private_discard_is_public():
    state = position(list(LOW[:3]), discard="KC", stock="QD")
    state, events = S.apply(state, "draw")
    text = json.dumps([e.to_dict() for e in events])
    assert "QD" not in text and "Q♦" not in text  # nobody learns the drawn card
    me = S.observation(state, 0)
    assert me.drawn == parse_card("QD") and parse_card("QD") in me.hand
    for seat in (1, 2):
        other = S.observation(state, seat)
        assert other.drawn is None and other.mid_turn
        assert parse_card("QD") not in other.visible_cards()
    assert S.public_view(state).drawn is None
    _, events = S.apply(state, "drop.5H")
    assert events[0].data == {"card": "5H"}


def test_rule_take_discard_top_then_discard_another():
    state = position(list(LOW[:3]), discard="9S KC")
    state, events = S.apply(state, "take")
    assert events == [engine.Event("take", 0, {"card": "KC"})]
    assert state.drawn == parse_card("KC") and state.from_pile
    assert state.discard[-1] == parse_card("9S")
    state, _ = S.apply(state, "drop.7D")
    assert parse_card("KC") in state.hands[0]
    assert state.discard[-1] == parse_card("7D")


def test_rule_discard_pile_card_not_discarded_again_same_turn():
    state = position(list(LOW[:3]), discard="KC")
    state, _ = S.apply(state, "take")
    assert S.drop(parse_card("KC")) not in S.legal_actions(state)
    assert len(S.legal_actions(state)) == 3
    assert_illegal(state, "drop.KC", "discard pile")
    # a card drawn from the stock may be discarded at once
    state = position(list(LOW[:3]), stock="KD")
    state, _ = S.apply(state, "draw")
    state, _ = S.apply(state, "drop.KD")
    assert state.discard[-1] == parse_card("KD")


def test_rule_discard_needs_a_draw_first_and_only_one_draw():
    state = position(list(LOW[:3]))
    assert_illegal(state, "drop.5H", "draw a card first")
    state, _ = S.apply(state, "draw")
    assert_illegal(state, "draw", "discard one card")
    assert_illegal(state, "take", "discard one card")
    assert_illegal(state, "knock", "discard one card")
    assert_illegal(state, "pass", "discard one card")
    assert_illegal(state, "drop.9C", "not in your hand")


def test_apply_accepts_codes_and_actions_and_rejects_garbage():
    state = position(list(LOW[:3]), stock="QD")
    a, _ = S.apply(state, "draw")
    b, _ = S.apply(state, S.DRAW)
    c, _ = S.apply(state, engine.Action("draw", "draw"))
    assert a == b == c
    for bad in ("", "drop", "drop.XX", "drop.BJ", "swap.AH.KH", "DRAW", "v1:1:2:draw", "x" * 80):
        with pytest.raises(IllegalAction):
            S.parse_action(bad)
        assert_illegal(state, bad, "unknown move")
    assert all(len(a.code.encode()) <= 10 for a in S._BY_CODE.values())
    assert S.parse_action(" drop.10H ") is S.drop(parse_card("10H"))


# ---------------------------------------------------------------------------------------------
# knocking and the final round


def test_rule_knock_instead_of_drawing_then_every_other_player_one_last_turn():
    state = position(list(LOW[:4]), to_act=1, stock="4C 10C")
    state, events = S.apply(state, "knock")
    assert events == [engine.Event("knock", 1, {"stock_empty": False})]
    assert state.phase == FINAL_ROUND and state.knocker == 1
    assert state.to_act == 2 and state.final_left == 3
    assert set(S.legal_actions(state)) == {S.DRAW, S.TAKE, S.PASS}  # no second knock
    assert_illegal(state, "knock", "already knocked")
    state, _ = play(state, "draw", "drop.4C")  # seat 2: draw and discard
    assert state.phase == FINAL_ROUND and state.to_act == 3 and state.final_left == 2
    state, _ = S.apply(state, "pass")  # seat 3 passes
    assert state.to_act == 0 and state.final_left == 1
    state, events = play(state, "take", "drop.5H")  # seat 0 takes 4C
    assert state.phase == PAYOUT  # the knocker does not move again
    assert kinds(events)[-2:] == ["showdown", "payout"]
    assert state.result.reason == "knock" and state.result.knocker == 1


def test_rule_no_pass_before_a_knock_while_the_stock_lasts():
    state = position(list(LOW[:3]))
    assert S.PASS not in S.legal_actions(state)
    assert_illegal(state, "pass", "only allowed after a knock")


def test_rule_no_knock_on_the_very_first_turn_by_default():
    state = position(list(LOW[:3]), moved=(False, False, False))
    assert S.KNOCK not in S.legal_actions(state)
    assert_illegal(state, "knock", "first turn")
    state, _ = play(state, "draw", "drop.5H", "draw")
    state, _ = S.apply(state, S.legal_actions(state)[0])
    assert state.to_act == 2 and S.KNOCK not in S.legal_actions(state)
    state, _ = play(state, "draw")
    state, _ = S.apply(state, S.legal_actions(state)[0])
    assert state.to_act == 0
    assert S.KNOCK in S.legal_actions(state)  # the second turn: knocking is fine
    # a new game: nobody may knock on the first turn
    for seed in range(10):
        start = S.new_game(4, seed=seed)
        if start.phase == TURN:
            assert S.KNOCK not in S.legal_actions(start)


def test_rule_option_first_turn_knock_allowed():
    state = position(list(LOW[:3]), moved=(False, False, False),
                     options={"no_first_turn_knock": False})
    assert S.KNOCK in S.legal_actions(state)
    state, _ = S.apply(state, "knock")
    assert state.phase == FINAL_ROUND


# ---------------------------------------------------------------------------------------------
# blitz


def test_rule_blitz_after_the_deal_every_other_player_loses_one(monkeypatch):
    state = between_rounds(position(list(LOW[:3])), dealer=2)
    state, events = deal_rigged(monkeypatch, state, ["5H 6C 7D", "AS KS QS", "8S 9H 2D"], "3C")
    assert kinds(events) == ["deal", "blitz", "showdown", "payout"]
    assert events[1] == engine.Event("blitz", 1, {"when": "deal", "value": 31})
    assert state.phase == PAYOUT and state.to_act is None and state.turns == 0
    r = state.result
    assert r.reason == "dealt_blitz" and r.blitz == (1,)
    assert r.losers == (0, 2) and state.lives == (2, 3, 2)
    assert S.legal_actions(state) == (S.DEAL,)


def test_rule_blitz_after_the_deal_found_by_seed():
    for seed in range(20_000):
        state = S.new_game(6, seed=seed)
        if state.phase == PAYOUT:
            break
    else:
        raise AssertionError("no dealt blitz found")
    r = state.result
    assert r.reason == "dealt_blitz"
    for s in r.blitz:
        assert S.hand_value(state.hands[s]) == 31
    assert r.losers == tuple(s for s in range(6) if s not in r.blitz)
    assert all(state.lives[s] == 2 for s in r.losers)


def test_rule_blitz_after_the_deal_two_players_both_safe(monkeypatch):
    state = between_rounds(position(list(LOW[:4])), dealer=3)
    state, _ = deal_rigged(monkeypatch, state, ["AS KS QS", "5H 6C 7D", "AH 10H JH", "8S 9H 2D"],
                           "3C")
    assert state.result.blitz == (0, 2)
    assert state.result.losers == (1, 3)
    assert state.lives == (3, 2, 3, 2)


def test_rule_blitz_right_after_drawing_from_stock_before_discarding():
    state = position(["AH KH 2C", "5S 6C 7D", "8S 9H 2D"], stock="QH")
    state, events = S.apply(state, "draw")
    assert kinds(events) == ["draw", "blitz", "showdown", "payout"]
    assert "QH" not in json.dumps(events[0].to_dict())
    r = state.result
    assert r.reason == "blitz" and r.blitz == (0,) and r.values2[0] == 62
    assert r.hands[0] == parse_cards("AH KH 2C QH")  # shown as held, the extra card included
    assert r.losers == (1, 2) and state.lives == (3, 2, 2)
    assert state.phase == PAYOUT and state.drawn is None
    check_cards(state)


def test_rule_blitz_right_after_taking_the_discard_top():
    state = position(["5S 6C 7D", "AD 2C KD", "8S 9H 2D"], discard="10D", to_act=1)
    state, events = S.apply(state, "take")
    assert kinds(events) == ["take", "blitz", "showdown", "payout"]
    assert state.result.blitz == (1,)
    assert state.lives == (2, 3, 2)


def test_rule_blitz_only_before_a_knock():
    state = position(["5S 6C 7D", "AH KH 2C", "8S 9H 2D"], stock="QH", to_act=0)
    state, _ = play(state, "knock", "draw")  # seat 1 draws to 31 in its last turn
    assert state.phase == FINAL_ROUND and state.to_act == 1 and len(state.hands[1]) == 4
    state, _ = play(state, "drop.2C", "pass")
    r = state.result
    assert r.reason == "knock" and r.blitz == ()
    assert r.values2 == (14, 62, 18)
    assert r.losers == (0,) and state.lives == (1, 3, 3)  # only the knocker, strictly lowest


# ---------------------------------------------------------------------------------------------
# showdown


def test_rule_showdown_lowest_loses_one_token():
    state = position(["KH QH 2S", "KS 8S 3D", "AD 9D 4C"])
    state, events = play(state, "knock", "pass", "pass")
    assert state.result.values2 == (40, 36, 40)
    assert state.result.losers == (1,) and state.lives == (3, 2, 3)
    payout = events[-1]
    assert payout.kind == "payout" and payout.data["lost"] == {"1": 1}


def test_rule_showdown_all_tied_at_the_bottom_lose_one_each():
    state = position(["KH QH 2S", "KS 8S 3D", "KC 8C 4D", "AD 9D 4S"])
    state, _ = play(state, "knock", "pass", "pass", "pass")
    assert state.result.losers == (1, 2)
    assert state.lives == (3, 2, 2, 3)


def test_rule_knocker_tie_protection():
    state = position(["KH QH 2S", "KS QS 3D", "AD 10D 5C"])
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.values2[:2] == (40, 40)
    assert state.result.losers == (1,)  # the knocker ties for lowest and is safe
    assert state.lives == (3, 2, 3)
    # everybody tied: the knocker is safe, all the others lose
    state = position(["KH QH 2S", "KS QS 3D", "KD QD 5C"])
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.losers == (1, 2) and state.lives == (3, 2, 2)


def test_rule_knocker_strictly_lowest_loses_two():
    state = position(["KH 5H 2S", "KS QS 3D", "AD 10D 5C"])
    state, events = play(state, "knock", "pass", "pass")
    assert state.result.losers == (0,)
    assert state.result.lost == (2, 0, 0)
    assert state.lives == (1, 3, 3)
    assert events[-1].data["lost"] == {"0": 2}


def test_rule_the_bus_last_token_lost_survives_next_loss_eliminates():
    state = position(["KH 5H 2S", "KS QS 3D", "AD 10D 5C"], lives=(1, 3, 3), to_act=1)
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.losers == (0,) and state.result.bus == (0,)
    assert state.lives == (0, 3, 3) and state.out == (False, False, False)
    assert state.on_bus == (True, False, False)
    assert state.phase == PAYOUT
    state, _ = S.apply(state, "deal")
    assert 0 in state.players  # on the bus and still playing
    # on the bus and losing again: out
    state = position(["KH 5H 2S", "KS QS 3D", "AD 10D 5C"], lives=(0, 3, 3), to_act=1)
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.eliminated == (0,) and state.out == (True, False, False)
    state, _ = S.apply(state, "deal")
    assert state.players == (1, 2) and state.hands[0] == ()


def test_rule_never_straight_out_knocker_with_one_token_loses_two():
    state = position(["KH 5H 2S", "KS QS 3D", "AD 10D 5C"], lives=(1, 3, 3))
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.lost == (1, 0, 0)  # at most down to the bus
    assert state.result.bus == (0,) and state.result.eliminated == ()
    assert state.lives == (0, 3, 3) and not state.out[0]


def test_rule_blitz_puts_bus_riders_out_and_others_on_the_bus():
    state = position(["AH KH 2C", "5S 6C 7D", "8S 9H 2D"], stock="QH", lives=(3, 0, 1))
    state, _ = S.apply(state, "draw")
    assert state.result.eliminated == (1,) and state.result.bus == (2,)
    assert state.out == (False, True, False) and state.lives == (3, 0, 0)


# ---------------------------------------------------------------------------------------------
# empty stock


def test_rule_stock_exhausted_take_knock_or_pass():
    state = position(list(LOW[:3]), discard="KC", empty_stock=True)
    assert set(S.legal_actions(state)) == {S.TAKE, S.KNOCK, S.PASS}
    assert_illegal(state, "draw", "stock is empty")
    state, _ = play(state, "take", "drop.5H")  # taking the discard top goes on as usual
    assert state.phase == TURN and state.to_act == 1


def test_rule_stock_exhausted_pass_ends_round_at_once_without_knocker():
    state = position(["KH QH 2S", "KS 8S 3D", "AD 9D 4C"], empty_stock=True)
    state, events = S.apply(state, "pass")
    assert kinds(events) == ["pass", "showdown", "payout"]
    assert state.result.reason == "stock_pass" and state.result.knocker is None
    assert state.result.losers == (1,) and state.lives == (3, 2, 3)


def test_rule_stock_exhausted_knock_ends_round_at_once_knocker_rules_apply():
    state = position(["KH 5H 2S", "KS 8S 3D", "AD 9D 4C"], empty_stock=True)
    state, events = S.apply(state, "knock")
    assert kinds(events) == ["knock", "showdown", "payout"]
    assert events[0].data == {"stock_empty": True}
    assert state.result.reason == "stock_knock" and state.result.knocker == 0
    assert state.result.losers == (0,) and state.lives == (1, 3, 3)  # strictly lowest: two


def test_rule_stock_exhausted_by_the_last_draw():
    state = position(list(LOW[:3]), stock="KD")
    state = state._replace(discard=state.discard + state.stock[:-1], stock=state.stock[-1:])
    state, _ = play(state, "draw", "drop.KD")
    assert state.stock == () and state.to_act == 1
    assert set(S.legal_actions(state)) == {S.TAKE, S.KNOCK, S.PASS}


def test_rule_empty_stock_after_a_knock_last_turns_still_played():
    state = position(["KH QH 2S", "KS 8S 3D", "AD 9D 4C"], empty_stock=True,
                     phase=FINAL_ROUND, knocker=2, final_left=2, to_act=0)
    assert set(S.legal_actions(state)) == {S.TAKE, S.PASS}
    state, _ = S.apply(state, "pass")
    assert state.phase == FINAL_ROUND and state.to_act == 1  # no early end after a knock
    state, _ = S.apply(state, "pass")
    assert state.phase == PAYOUT and state.result.reason == "knock"


# ---------------------------------------------------------------------------------------------
# game end, tie-break, re-entry


def test_rule_last_player_not_eliminated_wins():
    state = position(["KH 5H 2S", "KS QS 3D", ""], lives=(0, 2, 0), to_act=1)
    state, events = play(state, "knock", "pass")
    assert state.phase == FINISHED and S.is_over(state)
    assert state.winner == 1 and state.out == (True, False, True)
    assert events[-1] == engine.Event("game_over", 1, {})
    assert S.legal_actions(state) == () and state.to_act is None
    assert_illegal(state, "deal", "game is over")


def test_rule_no_tiebreak_while_someone_remains():
    state = position(["KH QH 2S", "KS QS 3D", "AD 10D 5C"], lives=(0, 0, 2), empty_stock=True)
    state, _ = S.apply(state, "pass")
    assert state.result.losers == (0, 1)
    assert state.result.eliminated == (0, 1) and state.result.tiebreak == ()
    assert state.phase == FINISHED and state.winner == 2


def test_rule_tiebreak_round_when_all_remaining_would_go_out_together():
    state = position(["KH QH 2S", "KS QS 3D", ""], lives=(0, 0, 0), empty_stock=True)
    state, events = S.apply(state, "pass")
    r = state.result
    assert r.losers == (0, 1) and r.eliminated == () and r.tiebreak == (0, 1)
    assert not r.tiebreak_round
    assert events[-1].data["tiebreak"] == [0, 1]
    assert state.phase == PAYOUT and state.winner is None
    assert state.out == (False, False, True) and state.tiebreak == (0, 1)
    # only those players play the tie-break round
    state, events = S.apply(state, "deal")
    assert events[0].data["tiebreak"] is True
    assert state.players == (0, 1) and state.tiebreak == (0, 1) and state.hands[2] == ()
    # the lowest there is eliminated: the other one wins
    state = state._replace(hands=(parse_cards("KH 5H 2S"), parse_cards("KS QS 3D"), ()),
                           discard=(), stock=())
    state = state._replace(discard=tuple(c for c in S.DECK if c not in
                                         set(state.hands[0]) | set(state.hands[1])))
    state = state._replace(moved=(True, True, True), to_act=0)
    state, _ = play(state, "knock")
    assert state.phase == FINISHED and state.winner == 1
    assert state.result.tiebreak_round and state.result.eliminated == (0,)
    assert state.out == (True, False, True)


def test_rule_tiebreak_repeats_on_ties_among_the_tied():
    tb = dict(lives=(0, 0, 0, 0), tiebreak=(0, 1, 2), empty_stock=True)
    state = position(["KH QH 2S", "KS QS 3D", "AD 10D 5C", ""], **tb)
    state, _ = S.apply(state, "pass")
    r = state.result
    assert r.tiebreak_round and r.losers == (0, 1)
    assert r.tiebreak == (0, 1) and r.eliminated == ()
    assert state.out == (False, False, False, True)
    state, _ = S.apply(state, "deal")
    assert state.players == (0, 1)  # seat 2 is safe and sits this one out
    assert state.hands[2] == ()
    # all tied again: the same tie-break once more
    state = position(["KH QH 2S", "KS QS 3D", "", ""], lives=(0, 0, 0, 0), tiebreak=(0, 1),
                     out=(False, False, False, True), empty_stock=True)
    state, _ = S.apply(state, "pass")
    assert state.result.tiebreak == (0, 1) and state.phase == PAYOUT
    # a single lowest: out; the safe players go on with normal rounds
    state = position(["KH 5H 2S", "KS QS 3D", "", ""], lives=(0, 0, 0, 0), tiebreak=(0, 1),
                     out=(False, False, False, True), empty_stock=True)
    state, _ = S.apply(state, "pass")
    assert state.result.eliminated == (0,) and state.tiebreak == ()
    assert state.phase == PAYOUT
    state, _ = S.apply(state, "deal")
    assert state.players == (1, 2) and state.tiebreak == ()


def test_rule_tiebreak_knocker_and_blitz_rules_apply():
    state = position(["KH QH 2S", "KS QS 3D"], lives=(0, 0), tiebreak=(0, 1))
    state, _ = play(state, "knock", "pass")
    assert state.result.eliminated == (1,) and state.winner == 0  # the tied knocker is safe
    state = position(["AH KH 2C", "5S 6C 7D"], lives=(0, 0), tiebreak=(0, 1), stock="QH")
    state, _ = S.apply(state, "draw")
    assert state.result.eliminated == (1,) and state.winner == 0


def test_rule_reentry_option_off_by_default():
    state = position(["KH 5H 2S", "KS QS 3D", "AD 10D 5C"], lives=(0, 3, 3), to_act=1)
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.eliminated == (0,) and state.result.reentered == ()
    assert state.out[0]


def test_rule_reentry_once_with_full_tokens():
    opts = {"reentry": True}
    state = position(["KH 5H 2S", "KS QS 3D"], lives=(0, 1), to_act=1, options=opts)
    state, _ = play(state, "knock", "pass")
    r = state.result
    assert r.reentered == (0,) and r.eliminated == ()
    assert state.lives == (3, 1) and state.out == (False, False)
    assert state.reentered == (True, False)
    assert state.phase == PAYOUT  # the game goes on
    state, _ = S.apply(state, "deal")
    assert state.players == (0, 1)
    # the second time is final
    state = position(["KH 5H 2S", "KS QS 3D"], lives=(0, 1), to_act=1, options=opts,
                     reentered=(True, False))
    state, _ = play(state, "knock", "pass")
    assert state.result.eliminated == (0,) and state.result.reentered == ()
    assert state.phase == FINISHED and state.winner == 1


def test_rule_reentry_prevents_a_tiebreak():
    opts = {"reentry": True}
    state = position(["KH QH 2S", "KS QS 3D"], lives=(0, 0), options=opts,
                     reentered=(True, False), empty_stock=True)
    state, _ = S.apply(state, "pass")
    r = state.result
    assert r.tiebreak == () and r.eliminated == (0,) and r.reentered == (1,)
    assert state.phase == FINISHED and state.winner == 1 and state.lives[1] == 3


# ---------------------------------------------------------------------------------------------
# four-card Scat


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("AH KH QH JH", 41),
        ("AH KH QH 2C", 31),
        ("10H JH QH KH", 40),
        ("AH AS AD AC", 11),  # no trio bonus with four cards
        ("2H 2S 2D 9C", 9),
        ("AH 9H 2S 3S", 20),
    ],
)
def test_rule_four_card_scat_best_suit_sum_up_to_41(hand, expected):
    assert value(hand) == expected


def test_rule_four_card_scat_deal_and_blitz_at_41(monkeypatch):
    opts = {"four_cards": True}
    state = S.new_game(7, opts, seed=5)
    assert all(len(state.hands[s]) == 4 for s in range(7))
    assert len(state.discard) == 1 and len(state.stock) == 52 - 28 - 1
    # blitz at 41 right after drawing
    state = position(["AH KH QH 2C", "5S 6C 7D 8D", "8S 9H 2D 3D"], stock="JH", options=opts)
    state, events = S.apply(state, "draw")
    assert kinds(events) == ["draw", "blitz", "showdown", "payout"]
    assert events[1].data == {"when": "draw", "value": 41}
    assert state.result.values2[0] == 82 and state.lives == (3, 2, 2)
    # 31 is no blitz in four-card Scat
    state = position(["AH KH 2C 3D", "5S 6C 7D 8D", "8S 9H 2D 4D"], stock="QH", options=opts)
    state, _ = S.apply(state, "draw")
    assert state.phase == TURN and state.drawn == parse_card("QH")
    state, _ = S.apply(state, "drop.2C")
    assert S.hand_value(state.hands[0]) == 31 and state.phase == TURN
    # blitz at 41 after the deal
    state = between_rounds(position(["5H 6C 7D 8S", "9S 9H 2D 3D"], options=opts), dealer=1)
    state, _ = deal_rigged(monkeypatch, state, ["5S 6C 7D 8D", "AS KS QS JS"], "3C")
    assert state.result.reason == "dealt_blitz" and state.result.blitz == (1,)


# ---------------------------------------------------------------------------------------------
# options, observation, JSON


def test_options_defaults_and_validation():
    state = S.new_game(3, seed=1)
    assert dict(state.options) == {"no_first_turn_knock": True, "trio_bonus": True,
                                   "reentry": False, "four_cards": False}
    with pytest.raises(GameError, match="unknown Scat option"):
        S.new_game(3, {"coins": 3}, seed=1)
    with pytest.raises(GameError, match="true or false"):
        S.new_game(3, {"reentry": "yes"}, seed=1)
    with pytest.raises(GameError, match="true or false"):
        S.new_game(3, {"four_cards": 1}, seed=1)
    assert S.new_game(3, {"four_cards": True}, seed=1).options != state.options


def test_observation_shows_own_hand_discard_and_public_facts_only():
    state = position(list(LOW[:3]), discard="9S KC", stock="QD", lives=(3, 0, 2))
    state, _ = S.apply(state, "draw")
    obs = S.observation(state, 1)
    assert obs.hand == state.hands[1] and obs.drawn is None and obs.legal == ()
    assert obs.discard == state.discard and obs.stock_size == len(state.stock)
    assert obs.lives == (3, 0, 2) and obs.to_act == 0 and obs.mid_turn
    assert not obs.visible_cards() & (set(state.hands[0]) | set(state.hands[2]) |
                                       set(state.stock))
    assert S.hidden_cards(state) == set(state.stock) | {c for h in state.hands for c in h}
    me = S.observation(state, 0)
    assert me.legal == S.legal_actions(state)
    with pytest.raises(GameError):
        S.observation(state, 3)


def test_json_round_trip_mid_turn_and_after_showdown():
    state = position(list(LOW[:3]), discard="KC")
    state, _ = S.apply(state, "take")
    assert S.from_json(S.to_json(state)) == state
    state, _ = play(state, "drop.5H", "knock", "pass", "pass")
    assert state.phase == PAYOUT
    assert S.from_json(S.to_json(state)) == state
    with pytest.raises(GameError):
        S.from_json('{"game": "schwimmen"}')
    with pytest.raises(GameError):
        S.from_json("not json")
