"""Run Fast: classification and beating of every combination, by name (docs/rules-runfast.md §2, §4–§6)."""

from __future__ import annotations

import pytest

from engine import GameError, IllegalAction
from engine import runfast as R
from engine.cards import parse_cards


def c(text: str, final: bool = False, against: str | None = None) -> R.Combo | None:
    cur = None if against is None else R.classify(parse_cards(against), final=True)
    return R.classify(parse_cards(text), final=final, against=cur)


def kind(text: str, final: bool = False) -> tuple[str, int, int] | None:
    combo = c(text, final)
    return None if combo is None else (combo.kind, combo.rank, combo.length)


def beats(a: str, b: str, final_a: bool = False) -> bool:
    pa, pb = c(a, final_a), c(b, True)
    assert pa is not None and pb is not None
    return R.beats(pa, pb)


# --------------------------------------------------------------------------------- the deck


def test_deck_has_48_cards_without_three_twos_and_the_ace_of_spades():
    assert len(R.DECK) == 48
    codes = {card.code for card in R.DECK}
    for gone in ("2C", "2H", "2D", "AS"):
        assert gone not in codes
    assert "2S" in codes and {"AC", "AH", "AD"} <= codes
    assert sum(1 for card in R.DECK if card.rank == 14) == 3


def test_rank_order_three_lowest_two_highest():
    order = [R.power_of(r) for r in (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 2)]
    assert order == list(range(13))
    assert beats("2S", "AH")
    assert beats("4C", "3S")
    assert not beats("3S", "2S")


def test_suits_never_rank():
    assert not beats("9S", "9H")
    assert not beats("9H", "9S")
    assert not beats("KC KS", "KH KD")


# --------------------------------------------------------------------------------- kinds


def test_single():
    assert kind("7H") == ("single", 7, 1)
    assert kind("2S") == ("single", 2, 1)


def test_pair():
    assert kind("QS QD") == ("pair", 12, 1)
    assert kind("QS KD") is None


def test_consecutive_pairs_two_or_more_pairs():
    assert kind("3C 3S 4H 4D") == ("pair_chain", 4, 2)
    assert kind("9C 9S 10H 10D JC JS") == ("pair_chain", 11, 3)
    assert kind("KC KS AH AD") == ("pair_chain", 14, 2)
    assert kind("3C 3S 5H 5D") is None  # not consecutive
    assert kind("3C 3S 4H 4D 5C") is None  # two pairs and a single
    assert kind("3C 3S 4H 4D 4C") == ("triple_two", 4, 1)  # 444 with the kickers 33


def test_consecutive_pairs_never_contain_a_two():
    # only one 2 exists, so a pair of 2s (and a chain through A-2) can never be formed
    assert kind("AC AH 2S") is None


def test_straight_five_or_more_up_to_the_ace():
    assert kind("3C 4S 5H 6D 7C") == ("straight", 7, 5)
    assert kind("10C JS QH KD AC") == ("straight", 14, 5)
    assert kind("3C 4S 5H 6D 7C 8C 9C 10C JC QC KC AC") == ("straight", 14, 12)
    assert kind("3C 4S 5H 6D") is None  # four cards are no straight
    assert kind("3C 4S 5H 6D 8C") is None  # a gap


def test_straight_never_contains_a_two():
    assert kind("JC QS KH AD 2S") is None
    assert kind("2S 3C 4S 5H 6D") is None


def test_triple_with_two_any_kickers():
    assert kind("8C 8S 8H 3D 3C") == ("triple_two", 8, 1)
    assert kind("8C 8S 8H 3D KC") == ("triple_two", 8, 1)  # kickers need not be a pair
    assert kind("8C 8S 8H 2S AH") == ("triple_two", 8, 1)


def test_bare_triple_and_triple_with_one_are_no_combination():
    assert kind("8C 8S 8H") is None
    assert kind("8C 8S 8H 4D") is None
    assert kind("8C 8S 8H 4D 5D 6D") is None


def test_final_play_triple_with_one_or_no_kicker():
    assert kind("8C 8S 8H", final=True) == ("triple_two", 8, 1)
    assert kind("8C 8S 8H 4D", final=True) == ("triple_two", 8, 1)


def test_airplane_consecutive_triples_each_with_two_kickers():
    assert kind("5C 5S 5H 6C 6S 6H 9D 10C JH QS") == ("airplane", 6, 2)
    assert kind("5C 5S 5H 6C 6S 6H 9D 9C JH JS") == ("airplane", 6, 2)  # wings as pairs
    assert kind("KC KS KH AC AD AH 3C 4C 5C 6C") == ("airplane", 14, 2)
    assert kind("5C 5S 5H 6C 6S 6H 7C 7S 7H 3C 4C 8C 9C 10C JC") == ("airplane", 7, 3)
    assert kind("5C 5S 5H 7C 7S 7H 9D 10C JH QS") is None  # triples not consecutive
    assert kind("5C 5S 5H 6C 6S 6H") is None  # without kickers only as the last cards
    assert kind("5C 5S 5H 6C 6S 6H 9D 10C JH") is None  # three kickers


def test_airplane_reads_as_its_highest_run():
    # 555 666 777 + 8: the triples 666 777 with kickers 555 8 (higher than 555 666 + 7778)
    assert kind("5C 5S 5H 6C 6S 6H 7C 7S 7H 8D") == ("airplane", 7, 2)


def test_final_play_airplane_with_fewer_kickers():
    assert kind("5C 5S 5H 6C 6S 6H", final=True) == ("airplane", 6, 2)
    assert kind("5C 5S 5H 6C 6S 6H 9D", final=True) == ("airplane", 6, 2)
    assert kind("5C 5S 5H 6C 6S 6H 7C 7S 7H", final=True) == ("airplane", 7, 3)
    assert kind("5C 5S 5H 6C 6S 6H 9D 10C JH QS KS", final=True) is None  # five kickers


def test_bomb_four_of_a_rank():
    assert kind("9C 9S 9H 9D") == ("bomb", 9, 1)
    assert kind("3C 3S 3H 3D") == ("bomb", 3, 1)


def test_four_with_kickers_is_no_combination():
    assert kind("9C 9S 9H 9D 3C") is None
    assert kind("9C 9S 9H 9D 3C 4C") is None
    assert kind("9C 9S 9H 9D 3C", final=True) is None


def test_classify_rejects_cards_outside_the_deck_and_doubles():
    with pytest.raises(GameError):
        R.classify(parse_cards("2H"))
    with pytest.raises(GameError):
        R.classify(parse_cards("AS"))
    with pytest.raises(GameError):
        R.classify(parse_cards("5C 5C"))


# --------------------------------------------------------------------------------- beating


def test_beat_single_and_pair_by_rank():
    assert beats("10C", "9D")
    assert not beats("9C", "10D")
    assert beats("AC AH", "KC KD")
    assert not beats("AC AH", "KC")  # a pair does not beat a single


def test_beat_consecutive_pairs_needs_the_same_number_of_pairs():
    assert beats("4C 4S 5H 5D", "3C 3S 4H 4D")
    assert not beats("4C 4S 5H 5D 6C 6S", "3C 3S 4H 4D")
    assert not beats("4C 4S 5H 5D", "3C 3S 4H 4D 5C 5S")


def test_beat_straight_needs_the_same_length():
    assert beats("4C 5S 6H 7D 8C", "3C 4S 5H 6D 7C")
    assert not beats("4C 5S 6H 7D 8C 9C", "3C 4S 5H 6D 7C")
    assert not beats("3C 4S 5H 6D 7C", "3D 4D 5D 6C 7D")  # same top: no


def test_beat_triple_with_two_by_its_triple():
    assert beats("9C 9S 9H 3D 3C", "8C 8S 8H AD AC")
    assert not beats("7C 7S 7H AD AC", "8C 8S 8H 3D 4C")


def test_beat_airplane_needs_the_same_number_of_triples():
    two = "5C 5S 5H 6C 6S 6H 9D 10C JH QS"
    assert beats("7C 7S 7H 8C 8S 8H 3D 3C 4H 4S", two)
    three = "7C 7S 7H 8C 8S 8H 9C 9S 9H 3D 3C 4H 4S 10C 10S"
    assert not beats(three, two)
    assert not beats("QC QS QH 3D 4C", two)


def test_bomb_beats_every_non_bomb():
    for other in ("2S", "AC AH", "3C 4S 5H 6D 7C 8C 9C 10C JC QC KC AC",
                  "KC KS KH AC AD AH 3C 4C 5C 6C", "QC QS QH 3D 4C", "3C 3S 4H 4D"):
        assert beats("3C 3S 3H 3D", other)
        assert not beats(other, "3C 3S 3H 3D")


def test_higher_bomb_beats_lower_bomb():
    assert beats("KC KS KH KD", "QC QS QH QD")
    assert not beats("QC QS QH QD", "KC KS KH KD")


def test_short_final_triple_beats_a_triple_with_two():
    assert beats("9C 9S 9H 4D", "8C 8S 8H 3D 3C", final_a=True)
    assert beats("9C 9S 9H", "8C 8S 8H 3D 3C", final_a=True)
    assert not beats("7C 7S 7H", "8C 8S 8H 3D 3C", final_a=True)


def test_short_final_airplane_beats_an_airplane_of_as_many_triples():
    table = "3C 3S 3H 4C 4S 4H 9D 10C JH QS"
    assert beats("5C 5S 5H 6C 6S 6H 8D", table, final_a=True)
    assert c("5C 5S 5H 6C 6S 6H 7C 7S 7H", final=True, against=table) is not None


def test_classify_against_finds_the_reading_that_beats():
    # 555666777 as the last cards: three triples, or the triples 666 777 with kickers 555
    play = c("5C 5S 5H 6C 6S 6H 7C 7S 7H", final=True,
             against="3C 3S 3H 4C 4S 4H 9D 10C JH QS")
    assert play is not None and (play.kind, play.length, play.rank) == ("airplane", 2, 7)


# --------------------------------------------------------------------------------- codes


def test_action_codes_are_short_and_round_trip():
    hand = parse_cards("3C 3S 3H 4C 4S 4H 5C 5S 5H 6C 6S 6H 7C 7S 7H 8D")
    act = R.play(hand)
    assert act.code.startswith("p.") and len(act.code) <= 14
    assert R.parse_action(act.code) == act
    assert set(act.cards) == set(hand)
    assert len(f"v1:123456:99999:{act.code}".encode()) <= 64


@pytest.mark.parametrize("code", ["", "p.", "p.0", "p.00a", "p.ZZ", "p.-1", "p.1 ", "x",
                                  "p." + "z" * 13, "p.1", "pass2", "p.abc!", "deal ", None])
def test_parse_action_rejects_garbage(code):
    with pytest.raises(IllegalAction):
        R.parse_action(code)


def test_parse_action_rejects_cards_outside_the_deck():
    two_of_hearts = parse_cards("2H")[0]
    with pytest.raises(IllegalAction):
        R.parse_action(R.play_code(1 << two_of_hearts.id))


def test_parse_action_rejects_non_combinations():
    with pytest.raises(IllegalAction):
        R.parse_action(R.play_code(R.mask_of(parse_cards("3C 5D"))))
