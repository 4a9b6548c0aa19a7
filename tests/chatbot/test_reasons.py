"""A refused move is explained in the chat's language: every reason the engines give has German
words (found by trying illegal moves in random positions of every game)."""

from __future__ import annotations

import random

import pytest

from chatbot.i18n import engine_reason
from engine import GAMES, IllegalAction

SEATS = {"schwimmen": 3, "scat": 3, "runfast": 3, "climbing": 4}


def reasons_of(game_id: str, games: int = 6, probes: int = 25) -> set[str]:
    game = GAMES[game_id]
    rng = random.Random(1)
    codes: set[str] = set()
    reasons: set[str] = set()
    for g in range(games):
        state = game.new_game(SEATS[game_id], seed=g)
        for _ in range(3000):
            if game.is_over(state):
                break
            legal = list(game.legal_actions(state))
            codes |= {a.code for a in legal}
            for code in rng.sample(sorted(codes), min(probes, len(codes))):
                if code in {a.code for a in legal}:
                    continue
                try:
                    game.apply(state, code)
                except IllegalAction as exc:
                    reasons.add(str(exc))
            state, _ = game.apply(state, rng.choice(legal))
    return reasons


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_every_refusal_reason_has_german_words(game_id):
    reasons = reasons_of(game_id)
    assert len(reasons) >= 3
    for reason in reasons:
        german = engine_reason("de", reason)
        assert german != "nicht erlaubt", reason
        assert german != reason, reason
        assert engine_reason("en", reason) == reason


def test_parameterised_reasons_keep_the_cards():
    assert engine_reason("de", "Q♥ is not in your hand") == "Q♥ ist nicht in deiner Hand"
    assert engine_reason("de", "K♠ is not in the middle") == "K♠ liegt nicht in der Mitte"
    assert engine_reason("de", "something new") == "nicht erlaubt"
    assert engine_reason(None, "the game is over") == "das Spiel ist vorbei"
