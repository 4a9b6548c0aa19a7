"""Issue 18, items 15 and 18 on the real Synapse: what Matrix users expect of the bot. A display
name and an avatar (uploaded once, not again after a restart), the direct rooms it opens in its
``m.direct`` account data, read receipts for what it handled, and a typing notice while a CPU
thinks."""

from __future__ import annotations

import asyncio
import time
from typing import Any
from urllib.parse import quote

import pytest
from nio import ProfileGetResponse, ReceiptEvent, TypingNoticeEvent

from .harness import WAIT, Person, move_choices, wait_for

pytestmark = pytest.mark.e2e


def _media(matrix: Any) -> int:
    """How many files the bot account has uploaded (Synapse's admin API)."""
    answer = matrix.synapse.request(
        "GET", f"/_synapse/admin/v1/users/{quote(matrix.bot_id)}/media",
        token=matrix.synapse.admin_token)
    return int(answer["total"])


def _stored_avatar(matrix: Any) -> list[str]:
    return [r["value"] for r in matrix.db().rows(
        "SELECT value FROM key_value WHERE key LIKE :k", k="matrix:%:avatar")]


def test_display_name_and_avatar_are_set_once(matrix) -> None:
    bot = matrix.start_bot()
    uid, pw = matrix.account("petra")

    async def profile() -> ProfileGetResponse:
        petra = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        try:
            resp = await petra.client.get_profile(matrix.bot_id)
            assert isinstance(resp, ProfileGetResponse), resp
            return resp
        finally:
            await petra.stop()

    first = asyncio.run(profile())
    assert first.displayname == "Stammtisch"
    assert (first.avatar_url or "").startswith("mxc://")
    assert _media(matrix) == 1
    stored = _stored_avatar(matrix)
    assert len(stored) == 1 and stored[0].endswith(" " + first.avatar_url)

    # a restart with another name: the name changes, the avatar is not uploaded again
    bot.stop()
    bot = matrix.start_bot(MATRIX_DISPLAY_NAME="Kartenrunde")
    second = asyncio.run(profile())
    assert second.displayname == "Kartenrunde"
    assert second.avatar_url == first.avatar_url
    assert _media(matrix) == 1
    assert _stored_avatar(matrix) == stored
    assert "avatar uploaded" not in bot.run_log()

    # an avatar someone else gave the account is left alone
    bot.stop()
    other = "mxc://example.org/chosen-by-the-operator"
    matrix.synapse.request("PUT", f"/_matrix/client/v3/profile/{quote(matrix.bot_id)}/avatar_url",
                           {"avatar_url": other}, token=matrix.bot_token)
    bot = matrix.start_bot(MATRIX_DISPLAY_NAME="Kartenrunde")
    third = asyncio.run(profile())
    assert third.avatar_url == other and third.displayname == "Kartenrunde"
    assert _media(matrix) == 1
    assert bot.alive()


def _typing(person: Person, room: str, user: str) -> list[bool]:
    """Whether ``user`` was typing in ``room``, notice by notice, as ``person`` saw it."""
    return [user in event.users for r, event in person.ephemeral
            if r == room and isinstance(event, TypingNoticeEvent)]


def _read_by(person: Person, room: str, user: str) -> set[str]:
    """The events ``user``'s read receipts in ``room`` pointed at, as ``person`` saw them."""
    return {receipt.event_id for r, event in person.ephemeral
            if r == room and isinstance(event, ReceiptEvent)
            for receipt in event.receipts if receipt.user_id == user}


def test_direct_rooms_read_receipts_and_typing(matrix) -> None:
    # (an Experte thinks at most three budgets in real time on a busy machine: 1.5 s here,
    # well inside the 4 s the test gives the notice to end before its own 5 s timeout)
    matrix.start_bot(EXPERTE_BUDGET="0.5", CPU_DELAY="0.3")
    (uid, pw), (uid2, pw2) = matrix.account("hanna"), matrix.account("ida")

    async def scenario() -> None:
        hanna = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        ida = await Person(matrix.synapse.url, uid2, pw2, matrix.bot_id).start()
        try:
            # a group game: the bot opens Hanna's direct room and lists it in m.direct
            group = await hanna.create_room([matrix.bot_id, ida.user_id], name="Skatrunde")
            await hanna.joined(group, ida.user_id)
            await hanna.joined(group, matrix.bot_id)
            await wait_for(lambda: hanna.said(group, "Stammtisch"), WAIT, "the greeting")
            new = await hanna.say(group, "!neu schwimmen")
            await wait_for(lambda: hanna.newest(group, lambda m: m.choice("Mitmachen")), WAIT,
                           "the lobby")
            dm = await wait_for(hanna.direct_room, WAIT, "the direct room the bot opened")

            def direct() -> dict[str, list[str]]:
                return matrix.synapse.request(
                    "GET", f"/_matrix/client/v3/user/{quote(matrix.bot_id)}/account_data/"
                    "m.direct", token=matrix.bot_token)

            await wait_for(lambda: dm in direct().get(hanna.user_id, []), WAIT,
                           "the direct room in m.direct", every=0.5)
            assert direct() == {hanna.user_id: [dm]}

            # the bot read what it handled: its receipt on Hanna's command, and on a
            # reply in the direct room (both people see it)
            await wait_for(lambda: new in _read_by(ida, group, matrix.bot_id), WAIT,
                           "the bot's read receipt on !neu")
            asked = await hanna.say(dm, "!hilfe")
            await wait_for(lambda: asked in _read_by(hanna, dm, matrix.bot_id), WAIT,
                           "the bot's read receipt in the direct room")

            # a private game against an Experte: the bot types while the CPU thinks
            own = await ida.create_room([matrix.bot_id], direct=True)
            await ida.joined(own, matrix.bot_id)
            await wait_for(lambda: ida.said(own, "Stammtisch"), WAIT, "the greeting")
            await ida.say(own, "!neu schwimmen 1 experte")
            table = await wait_for(lambda: ida.newest(own, lambda m: m.body.startswith("🃏")),
                                   WAIT, "the table")
            deadline = time.monotonic() + 120
            seen = None
            while True not in _typing(ida, own, matrix.bot_id):
                assert time.monotonic() < deadline, "no typing notice while the CPU played"
                snap = (table.body, len(table.versions))
                if snap != seen and (n := table.choice("Nächste Runde", "Nochmal spielen")
                                     or table.choice("Schieben", "Behalten")
                                     or next(iter(move_choices(table)), None)):
                    seen = snap
                    await ida.say(own, str(n))
                await asyncio.sleep(0.05)
            # ... and stops typing after the move, long before the notice's own timeout
            await wait_for(lambda: _typing(ida, own, matrix.bot_id)[-1] is False, 4.0,
                           "the typing notice to end")
            assert not [e for r, e in hanna.ephemeral if r == group
                        and isinstance(e, TypingNoticeEvent) and matrix.bot_id in e.users]
        finally:
            await hanna.stop()
            await ida.stop()

    asyncio.run(scenario())
