"""Issue 51: a person's cards (``/karten``, ``/cards``) through the service on both databases —
the choice as buttons and typed words, kept on the person's row, refused where it does not
belong; a four-colour deck in the person's chat views (a colour square after every card of the
text and the buttons, the button data unchanged), the classic deck for everybody else; each
card's spoken name in German and English; Matrix's ``!karten`` (the move word "my cards") and
``!karten <words>``."""

from __future__ import annotations

import re

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from chatbot.matrix.render import Intent, card_of_label, cards_of_label, choice_items, parse
from chatbot.presenters.cards import card_name, plain, styled
from chatbot.service import ChatRef, UserRef
from engine.cards import CARDS, RANK_NAMES_DE, SUIT_NAMES_DE
from storage.models import GameTable
from tests.chatbot.service.harness import ALICE, BOB, GROUP, Harness, new_private_game, private
from tests.conftest import FakeClock, Message

CEM = UserRef("cem", "Cem", language="en")
SEED = 1  # (the group game's deal: Alice holds cards after it)
CARD = re.compile(r"(10|[2-9JQKA])[♣♠♥♦]")


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    return Harness(db_engine, FakeClock(), cpu_delay=0, next_round_delay=0)


def _menu(h: Harness, chat: ChatRef) -> tuple[str, dict[str, str]]:
    shown = [m for m in h.messages(chat) if any(d.endswith(":deck.large") for r in m.rows
                                                 for _, d in r)][-1]
    return shown.text, {d.rsplit(":", 1)[1]: label for row in shown.rows for label, d in row}


def test_karten_offers_the_decks_and_large_cards_and_keeps_the_choice(h: Harness) -> None:
    chat = private(ALICE)
    h.command(chat, ALICE, "start")
    out = h.command(chat, ALICE, "karten")
    assert out.ok
    text, labels = _menu(h, chat)
    assert text.startswith("🃏 Deine Karten\nFarben: Klassisch: ♠ ♣ schwarz, ♥ ♦ rot\n"
                           "Große Karten in der Mini-App: aus\nBeispiel: A♠ 10♥ Q♦ 7♣\n")
    assert labels == {"deck.classic": "✅ Klassisch: ♠ ♣ schwarz, ♥ ♦ rot",
                      "deck.tournament": "Turnierfarben: ♠ grün, ♦ gelb",
                      "deck.poker": "Poker-Vierfarben: ♣ grün, ♦ blau",
                      "deck.large": "Große Karten: aus"}
    buttons = {d.rsplit(":", 1)[1]: d for m in h.messages(chat) for r in m.rows for _, d in r}
    out = h.press(chat, ALICE, buttons["deck.tournament"])
    assert (out.ok, out.text) == (True, "Gespeichert.")
    assert h.press(chat, ALICE, buttons["deck.large"]).ok
    text, labels = _menu(h, chat)
    assert "Beispiel: A♠🟩 10♥🟥 Q♦🟨 7♣⬛" in text and "Mini-App: an" in text
    assert labels["deck.tournament"].startswith("✅ ") and labels["deck.large"] == \
        "Große Karten: an"
    got = h.service.card_settings("test", "alice")
    assert (got.deck, got.large) == ("tournament", True)
    # typed: the poker deck and small cards at once
    out = h.command(chat, ALICE, "karten", "poker klein")
    assert (out.ok, out.text) == (True, "Gespeichert.")
    got = h.service.card_settings("test", "alice")
    assert (got.deck, got.large) == ("poker", False)


def test_karten_refuses_an_unknown_word_and_a_group_and_a_forged_button(h: Harness) -> None:
    chat = private(ALICE)
    h.command(chat, ALICE, "start")
    out = h.command(chat, ALICE, "karten", "lila")
    assert not out.ok and out.text == (
        "„lila“ kenne ich nicht. Probier: /karten klassisch · /karten turnier · "
        "/karten poker · /karten groß · /karten klein")
    assert h.service.card_settings("test", "alice").deck == "classic"  # nothing changed
    out = h.command(GROUP, ALICE, "karten")
    assert not out.ok and out.text == "/karten geht in deinem privaten Chat mit mir."
    out = h.press(chat, ALICE, "v1:0:0:deck.purple")
    assert not out.ok and "Traceback" not in (out.text or "")
    out = h.press(GROUP, ALICE, "v1:0:0:deck.poker")  # a menu's button pressed in a group
    assert not out.ok
    assert h.service.card_settings("test", "alice").deck == "classic"


def test_cards_in_english(h: Harness) -> None:
    chat = private(CEM)
    h.command(chat, CEM, "start")
    assert h.command(chat, CEM, "cards", "tournament large").text == "Saved."
    text, labels = _menu(h, chat)
    assert text.startswith("🃏 Your cards\nColours: Tournament colours: ♠ green, ♦ yellow\n"
                           "Large cards in the Mini App: on\n")
    assert labels["deck.poker"] == "Poker four colours: ♣ green, ♦ blue"


def test_a_four_colour_deck_marks_every_card_of_the_persons_views(h: Harness) -> None:
    chat = private(ALICE)
    h.command(chat, ALICE, "start")
    h.command(chat, ALICE, "karten", "turnier")
    table_id = new_private_game(h)

    def latest() -> Message:
        return [m for m in h.messages(chat) if f":{table_id}:" in "".join(
            d for r in m.rows for _, d in r)][-1]

    view = latest()
    for _ in range(5):  # (the CPUs may have closed round 1 before Alice's turn: next round)
        if CARD.search(view.text) or "next" not in h.buttons(chat, table_id):
            break
        assert h.press(chat, ALICE, h.buttons(chat, table_id)["next"]).ok
        view = latest()
    cards = CARD.findall(view.text)
    assert cards, view.text
    for m in CARD.finditer(view.text):  # every card of the text with its suit's square
        assert view.text[m.end()] in "⬛🟩🟥🟨", view.text
    swaps = [(label, d) for row in view.rows for label, d in row if ":swap." in d]
    assert swaps and all("🟩" in label or "⬛" in label or "🟥" in label or "🟨" in label
                         for label, _ in swaps)
    # the button data stay the engine's codes: pressing one plays the move
    out = h.press(chat, ALICE, swaps[0][1])
    assert out.ok, out.text
    # the classic deck again: the running table is drawn anew at once, the symbols as before

    def table_view() -> str:
        return latest().text

    for _ in range(5):  # (a CPU may have closed the round: its summary in the deck, then on)
        if CARD.search(table_view()):
            break
        summary = [m.text for m in h.messages(chat) if " = " in m.text][-1]
        assert CARD.search(summary) and all(summary[m.end()] in "⬛🟩🟥🟨"
                                            for m in CARD.finditer(summary)), summary
        assert h.press(chat, ALICE, h.buttons(chat, table_id)["next"]).ok
    assert re.search("[⬛🟩🟥🟨]", table_view())
    moves = len(h.moves(table_id))
    h.command(chat, ALICE, "karten", "normal")
    assert CARD.search(table_view()) and not re.search("[⬛🟩🟥🟨🟦]", table_view())
    h.press(chat, ALICE, [d for m in h.messages(chat) for r in m.rows for _, d in r
                          if d.endswith(":deck.poker")][-1])
    assert "🟦" in table_view() or "🟩" in table_view()
    assert len(h.moves(table_id)) == moves  # (drawn anew: nothing played)


def test_another_persons_deck_does_not_touch_the_group_message(h: Harness) -> None:
    for user in (ALICE, BOB):
        h.command(private(user), user, "start")
    h.command(private(ALICE), ALICE, "karten", "poker")
    table_id = h.command(GROUP, ALICE, "new", "schwimmen").table_id
    assert table_id
    with Session(h.engine) as session, session.begin():  # a deal that starts a round
        session.get(GameTable, table_id).seed = SEED  # type: ignore[union-attr]
    for code, user in (("join", BOB), ("start", ALICE)):
        assert h.press(GROUP, user, h.buttons(GROUP, table_id)[code]).ok
    group_text = "\n".join(m.text for m in h.messages(GROUP))
    assert not re.search("[⬛🟩🟥🟨🟦]", group_text)
    bob_text = "\n".join(m.text for m in h.messages(private(BOB)))
    assert not re.search("[⬛🟩🟥🟨🟦]", bob_text)
    alice_text = h.messages(private(ALICE))[-1].text
    assert CARD.search(alice_text) and re.search("[⬛🟩🟥🟦]", alice_text), alice_text
    # "my cards" under the group's table: the alert in each person's own deck
    alert = h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["cards"])
    assert alert.alert and re.search("[⬛🟩🟥🟦]", alert.text or ""), alert.text
    alert = h.press(GROUP, BOB, h.buttons(GROUP, table_id)["cards"])
    assert CARD.search(alert.text or "") and not re.search("[⬛🟩🟥🟨🟦]", alert.text or "")


def test_every_card_has_its_spoken_name_in_german_and_english() -> None:
    assert card_name("QS", "de") == "Dame Pik" and card_name("QS", "en") == "Queen of spades"
    assert card_name("10H", "de") == "10 Herz" and card_name("10H", "en") == "10 of hearts"
    assert card_name("BJ", "de") == "Schwarzer Joker" and card_name("RJ", "en") == "Red joker"
    for card in CARDS[:52]:  # German as the engine names the ranks and suits
        rank = RANK_NAMES_DE.get(card.rank, str(card.rank))
        assert card_name(card, "de") == f"{rank} {SUIT_NAMES_DE[card.suit]}"


def test_matrix_karten_is_my_cards_at_a_table_and_the_deck_with_words() -> None:
    assert parse("!karten") == Intent("move", "cards", "")
    assert parse("!cards") == Intent("move", "cards", "")
    assert parse("!karten turnier") == Intent("command", "cards", "turnier")
    assert parse("!deck") == Intent("command", "cards", "")
    # a four-colour deck's squares do not stop a card typed or shown from being read
    assert choice_items("7♠🟩 7♥🟥") == ("7♠", "7♥")
    assert card_of_label("✅7♠🟩") == "7♠" and cards_of_label("7♠⬛ 7♥🟥") == ["7♠", "7♥"]
    assert plain(styled("Q♦ ⇄ 10♣", "poker")) == "Q♦ ⇄ 10♣"
    assert styled("Q♦ ⇄ 10♣", "poker") == "Q♦🟦 ⇄ 10♣🟩"


def test_a_private_rounds_summary_shows_the_persons_deck(h: Harness) -> None:
    chat = private(ALICE)
    h.command(chat, ALICE, "start")
    h.command(chat, ALICE, "karten", "turnier")
    table_id = new_private_game(h)
    for _ in range(40):  # Alice knocks (or swaps) until the round is over
        if "next" in h.buttons(chat, table_id) or h.table(table_id).fsm_state == "finished":
            break
        moves = h.buttons(chat, table_id)
        code = "knock" if "knock" in moves else next(c for c in moves if c.startswith("swap."))
        assert h.press(chat, ALICE, moves[code]).ok
    summary = [m.text for m in h.messages(chat) if " = " in m.text][-1]
    assert CARD.search(summary), summary
    for m in CARD.finditer(summary):
        assert summary[m.end()] in "⬛🟩🟥🟨", summary
