"""Issue 18, items 12 and 14 on the real Synapse: in Run Fast's pick tab several cards are
chosen in one message - by name ("7s 7h", "K♥ 10♦") or by several numbers ("3, 4") - all read
from the same choice list; a message that mentions the bot with a pill is read as addressed to
it; the hand is listed in the order of the card choices."""

from __future__ import annotations

import asyncio
import re

import pytest
from nio import RoomSendResponse

from .harness import WAIT, Msg, Person, wait_for

pytestmark = pytest.mark.e2e

_CARD = re.compile(r"✅?((?:10|[2-9JQKA])[♣♠♥♦])")
_ASCII = {"♠": "s", "♥": "h", "♦": "d", "♣": "c"}


def hand_choices(msg: Msg) -> list[tuple[int, str, bool]]:
    """The card choices of the pick tab: (number, card, picked)."""
    out = []
    for n, label in msg.choices():
        m = _CARD.fullmatch(label)
        if m:
            out.append((n, m.group(1), label.startswith("✅")))
    return out


def picked(msg: Msg) -> set[str]:
    return {card for _, card, on in hand_choices(msg) if on}


def ascii_name(card: str) -> str:
    """"K♥" → "kh", "10♦" → "10d": as people type a card."""
    return card[:-1].lower() + _ASCII[card[-1]]


def test_several_cards_by_name_and_by_number_in_the_pick_tab(matrix) -> None:
    matrix.start_bot()
    uid, pw = matrix.account("rita")

    async def scenario() -> None:
        rita = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        try:
            room = await rita.create_room([matrix.bot_id], direct=True)
            await rita.joined(room, matrix.bot_id)
            await wait_for(lambda: rita.said(room, "Stammtisch"), WAIT, "the greeting")
            await rita.say(room, "!neu runfast 2 anfänger")
            table = await wait_for(lambda: rita.newest(room, lambda m: m.body.startswith(
                "🃏 Run Fast")), WAIT, "the Run Fast table")
            while not table.choice("✋ Wählen"):  # (Rita's turn with more than a pass)
                await wait_for(lambda: "Du bist am Zug" in table.body and table.choices(),
                               WAIT, "Rita on turn")
                only_pass = table.choice("Passen")
                if only_pass is not None and not table.choice("✋ Wählen"):
                    versions = len(table.versions)
                    await rita.say(room, str(only_pass))
                    await wait_for(lambda v=versions: len(table.versions) > v, WAIT, "a pass")
            assert not any(re.fullmatch(r"\d+/\d+", label) for _, label in table.choices()), \
                "a page marker is no choice"
            await rita.say(room, str(table.choice("✋ Wählen")))
            await wait_for(lambda: table.choice("• ✋ Wählen"), WAIT, "the pick tab")
            hand = [card for _, card, _ in hand_choices(table)]
            assert not picked(table)
            # item 14: the hand is listed in the order of the card choices
            line = next(x for x in table.body.split("\n") if x.startswith("Deine Karten"))
            assert re.findall(r"(?:10|[2-9JQKA])[♣♠♥♦]", line) == hand, table.body

            # cards by name, as people type them: "7s 7h"
            first = [hand[0], hand[-1]]
            edits = len(table.versions)
            await rita.say(room, " ".join(ascii_name(c) for c in first))
            await wait_for(lambda: picked(table) == set(first), WAIT,
                           f"{first} picked by name")
            assert len(table.versions) > edits
            assert table.choice("▶ Spielen: ") is not None  # the selection to play

            # the same cards again, in symbols: both picked off again
            await rita.say(room, f"{first[1]}  {first[0]}")
            await wait_for(lambda: not picked(table), WAIT, "the cards picked off")

            # several numbers in one message, all read from the same list
            numbers = {card: n for n, card, _ in hand_choices(table)}
            second = hand[1:3]
            await rita.say(room, ", ".join(str(numbers[c]) for c in second))
            await wait_for(lambda: picked(table) == set(second), WAIT, f"{second} by number")

            # a pill to the bot (with m.mentions) addresses it, whatever name the pill shows
            third = hand[3]
            content = {"msgtype": "m.text", "body": f"Kartenbot {ascii_name(third)}",
                       "format": "org.matrix.custom.html",
                       "formatted_body": f'<a href="https://matrix.to/#/{matrix.bot_id}">'
                                         f"Kartenbot</a> {ascii_name(third)}",
                       "m.mentions": {"user_ids": [matrix.bot_id]}}
            resp = await rita.client.room_send(room, "m.room.message", content)
            assert isinstance(resp, RoomSendResponse), resp
            await wait_for(lambda: picked(table) == {*second, third}, WAIT, "picked by mention")

            # a card that is not among the choices changes nothing and says so
            missing = next(f"{r}{s}" for r in ("A", "K", "Q", "J", "10", "9", "8", "7")
                           for s in "♠♥♦♣" if f"{r}{s}" not in hand)
            since, versions = rita.count(room), len(table.versions)
            await rita.say(room, f"{ascii_name(missing)} {ascii_name(hand[4])}")
            said = await wait_for(lambda: rita.said(room, missing, since), WAIT, "the answer")
            assert "Nicht unter den Wahlmöglichkeiten" in said.body  # (the German catalog)
            await asyncio.sleep(1)
            assert picked(table) == {*second, third} and len(table.versions) == versions
        finally:
            await rita.stop()

    asyncio.run(scenario())
