"""Cards and the card notation of docs/rules.md §2 (engine/cards.py)."""

from __future__ import annotations

import copy
import pickle

import pytest

from engine.cards import (
    BLACK_JOKER,
    CARDS,
    JOKER_SUIT,
    RED_JOKER,
    CardError,
    card,
    codes,
    from_codes,
    full_deck,
    parse_card,
    parse_cards,
    piquet_deck,
    show,
)


@pytest.mark.parametrize(
    ("symbol", "ascii_code", "rank", "suit"),
    [
        ("A♥", "AH", 14, 2),
        ("K♠", "KS", 13, 1),
        ("Q♦", "QD", 12, 3),
        ("J♣", "JC", 11, 0),
        ("10♠", "10S", 10, 1),
        ("7♥", "7H", 7, 2),
        ("2♣", "2C", 2, 0),
    ],
)
def test_symbol_and_ascii_forms_give_the_same_card(symbol, ascii_code, rank, suit):
    (a,) = parse_cards(symbol)
    (b,) = parse_cards(ascii_code)
    assert a is b
    assert (a.rank, a.suit) == (rank, suit)
    assert a is card(rank, suit)
    assert a.code == ascii_code
    assert a.symbol == symbol
    assert str(a) == symbol


def test_parse_list_in_symbol_form():
    hand = parse_cards("A♥ K♥ Q♥")
    assert [c.code for c in hand] == ["AH", "KH", "QH"]
    assert isinstance(hand, tuple)


def test_parse_list_separators_commas_and_extra_space():
    assert parse_cards("  AH,KS;  10D\tQC ") == parse_cards("A♥ K♠ 10♦ Q♣")


def test_lower_case_is_accepted():
    assert parse_cards("ah 10s qd jc") == parse_cards("AH 10S QD JC")
    assert parse_cards("a♥ k♠") == parse_cards("A♥ K♠")


def test_hollow_suit_symbols_are_aliases():
    assert parse_cards("A♡ K♤ Q♢ J♧") == parse_cards("AH KS QD JC")


def test_jokers():
    bj, rj = parse_cards("BJ RJ")
    assert bj.rank == BLACK_JOKER and rj.rank == RED_JOKER
    assert bj.suit == rj.suit == JOKER_SUIT
    assert bj.is_joker and rj.is_joker
    assert not parse_card("AH").is_joker
    assert str(bj) == "BJ" and str(rj) == "RJ"
    assert parse_cards("bj rj") == (bj, rj)


def test_empty_text_is_no_cards():
    assert parse_cards("") == ()
    assert parse_cards("   ") == ()


@pytest.mark.parametrize(
    "garbage",
    ["XX", "1H", "11H", "0S", "AX", "A", "10", "BJH", "RJ♥", "ZZ", "AH KH ??", "H", "♥"],
)
def test_garbage_raises_card_error(garbage):
    with pytest.raises(CardError):
        parse_cards(garbage)


def test_card_error_is_a_value_error_with_the_bad_token():
    with pytest.raises(ValueError, match="XX"):
        parse_cards("AH XX")


def test_parse_card_wants_exactly_one():
    assert parse_card("10♠") is card(10, 1)
    with pytest.raises(CardError):
        parse_card("AH KH")
    with pytest.raises(CardError):
        parse_card("")


def test_show_uses_symbols():
    assert show(parse_cards("AH 10S QD BJ")) == "A♥ 10♠ Q♦ BJ"


def test_codes_round_trip():
    cards = parse_cards("AH 10S QD 7C BJ RJ")
    assert codes(cards) == ["AH", "10S", "QD", "7C", "BJ", "RJ"]
    assert from_codes(codes(cards)) == cards
    with pytest.raises(CardError):
        from_codes(["AH", "nope"])


def test_all_cards_interned_and_unique():
    assert len(CARDS) == 54
    assert len({c.code for c in CARDS}) == 54
    assert len({c.symbol for c in CARDS}) == 54
    assert [c.id for c in CARDS] == list(range(54))
    for c in CARDS:
        assert parse_card(c.code) is c
        assert parse_card(c.symbol) is c
        assert copy.copy(c) is c
        assert copy.deepcopy(c) is c
        assert pickle.loads(pickle.dumps(c)) is c


def test_sorting_by_id_sorts_by_rank():
    assert sorted(parse_cards("AH 7C RJ 10S BJ 2D")) == list(parse_cards("2D 7C 10S AH BJ RJ"))


def test_piquet_deck_is_32_cards_seven_to_ace():
    deck = piquet_deck()
    assert len(deck) == 32
    assert len(set(deck)) == 32
    assert {c.rank for c in deck} == set(range(7, 15))
    for suit in range(4):
        assert sum(1 for c in deck if c.suit == suit) == 8
    assert not any(c.is_joker for c in deck)


def test_full_deck_sizes():
    assert len(full_deck()) == 52
    assert len(set(full_deck())) == 52
    assert not any(c.is_joker for c in full_deck())
    assert len(full_deck(1)) == 53
    assert full_deck(1)[-1].rank == BLACK_JOKER
    deck54 = full_deck(2)
    assert len(deck54) == 54
    assert {c.code for c in deck54 if c.is_joker} == {"BJ", "RJ"}


def test_decks_are_fresh_lists():
    d = piquet_deck()
    d.pop()
    assert len(piquet_deck()) == 32
