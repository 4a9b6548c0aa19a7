"""Matrix speaks playing alone's words as typed (issue 41): ``!tagesspiel`` / ``!daily``,
``!tipps`` / ``!tips`` as commands; ``!tipp``, ``!gleich``, ``!besser`` (``!tip``,
``!same``, ``!review``) press the buttons of that name; the texts' ``/daily`` and ``/tips``
read as ``!daily`` and ``!tips``."""

from __future__ import annotations

from chatbot.matrix.inputs import Intent, parse
from chatbot.matrix.render import bang


def test_the_commands_by_their_german_and_english_words() -> None:
    for word in ("!tagesspiel", "!daily"):
        assert parse(f"{word} schwimmen") == Intent("command", "daily", "schwimmen")
    for word in ("!tipps", "!tips"):
        assert parse(word) == Intent("command", "tips")


def test_the_buttons_by_their_words() -> None:
    for words, code in ((("!tipp", "!tip", "!hint"), "tip"),
                        (("!gleich", "!gleiche", "!same"), "again.same"),
                        (("!besser", "!review"), "review")):
        for word in words:
            assert parse(word) == Intent("move", code), word


def test_the_texts_commands_read_as_bang_commands() -> None:
    assert bang("Play it privately with me: /daily") == "Play it privately with me: !daily"
    assert bang("Start a private game first (/new), then /tips.") == \
        "Start a private game first (!new), then !tips."
    assert bang("Spiel es privat mit mir: /tagesspiel, dann /tipps") == \
        "Spiel es privat mit mir: !tagesspiel, dann !tipps"
