"""Issue 18, item 3: every word people type after /new (!neu) is taken as written - the game
by any of its names in German or English, the level as "Anfänger", "anfänger", "beginner",
"Experte", "expert", upper or lower case."""

from __future__ import annotations

import pytest

from chatbot.service.core.typed_names import game_of, level_of


@pytest.mark.parametrize(("text", "game", "rest"), [
    ("schwimmen", "schwimmen", ""),
    ("Schwimmen 2 Anfänger", "schwimmen", "2 anfänger"),
    ("runfast 2 anfänger", "runfast", "2 anfänger"),
    ("Run Fast", "runfast", ""),
    ("Run Fast (Pao De Kuai) 2", "runfast", "2"),
    ("pao de kuai", "runfast", ""),
    ("Einunddreißig 3 experte", "scat", "3 experte"),
    ("einunddreissig", "scat", ""),
    ("SCAT", "scat", ""),
    ("Joker-Aufstieg 3", "climbing", "3"),
    ("joker climb", "climbing", ""),
    ("climbing", "climbing", ""),
])
def test_a_game_by_any_of_its_names(text, game, rest):
    assert game_of(text) == (game, rest)


def test_no_game_is_guessed_from_other_words():
    assert game_of("skat") is None and game_of("schwimmbad") is None and game_of("") is None


@pytest.mark.parametrize(("word", "level"), [
    ("Anfänger", "anfaenger"), ("anfänger", "anfaenger"), ("ANFÄNGER", "anfaenger"),
    ("anfaenger", "anfaenger"), ("beginner", "anfaenger"), ("Beginner", "anfaenger"),
    ("Normal", "normal"), ("normal", "normal"),
    ("Experte", "experte"), ("expert", "experte"), ("Expert", "experte"),
])
def test_a_level_as_it_is_written(word, level):
    assert level_of(word) == level


def test_an_unknown_level_is_none():
    assert level_of("großmeister") is None


def test_cpu_names_never_clash_with_a_persons_name():
    """Issue 18, item 14: "🤖 Anna" next to a person called "anna" - another name then."""
    from chatbot.table_options import cpu_names

    assert cpu_names(3, ["Ida"]) == ["Anna", "Bernd", "Clara"]
    assert cpu_names(3, ["anna"]) == ["Bernd", "Clara", "Dieter"]
    assert cpu_names(2, ["ANNA", " bernd "]) == ["Clara", "Dieter"]
