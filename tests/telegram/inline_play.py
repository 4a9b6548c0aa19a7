"""Playing a table in an inline message through the Telegram end-to-end harness, the way
people do it in a chat the bot is not in: ``@bot`` offers the games, a chosen invitation is
posted "via" the bot, people press its buttons, and each person picks their moves from the
inline results only they see (``#<table>``: their hand, then one result per move).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.fakes.telegram_api import FakeBotApi
from tests.telegram.bot_process import WAIT
from tests.telegram.keyboards import answer_text, buttons, codes, snapshot, table_of


def answered(fake: FakeBotApi, update_id: int) -> dict:
    """The bot's answer to an inline query (waited for)."""
    return fake.wait_for(lambda: fake.inline_answer(update_id), WAIT,
                         message=f"the answer to inline query {update_id}")


def ask(fake: FakeBotApi, user: int, query: str = "", offset: str = "",
        lang: str = "de") -> tuple[int, dict]:
    """``@bot query`` typed by ``user``: (the query's update id, the bot's answer)."""
    uid = fake.inline_query(user, query, offset=offset, language_code=lang)
    return uid, answered(fake, uid)


def invite(fake: FakeBotApi, chat: int, user: int, result_id: str,
           name: str | None = None, lang: str = "de") -> str:
    """``user`` picks an invitation (``g.<game>.<seats>``) in ``chat``: its inline_message_id,
    once the bot made the table (the invitation became its lobby)."""
    uid = fake.inline_query(user, "", language_code=lang, user_first_name=name)
    answer = answered(fake, uid)
    assert result_id in [r["id"] for r in answer["results"]], answer
    _, imid, chosen = fake.choose_inline_result(uid, result_id, chat)
    assert imid is not None and chosen is not None
    fake.wait_for(lambda: "join" in codes(fake.inline_message(imid)), WAIT,
                  message="the invitation to become the table's lobby")
    return imid


def press(fake: FakeBotApi, user: int, imid: str, data: str,
          check_data: bool = True) -> str | None:
    """A press on the inline message; the answer's text (``None``: answered without one)."""
    uid = fake.press_inline(user, imid, data, check_data=check_data)
    return answer_text(fake, uid)


def press_and_wait(fake: FakeBotApi, user: int, imid: str, data: str) -> str | None:
    """``press``, and once it was answered without a refusal, the message's change."""
    before = snapshot(fake.inline_message(imid))
    answer = press(fake, user, imid, data)
    fake.wait_for(lambda: snapshot(fake.inline_message(imid)) != before, WAIT,
                  message=f"the inline message to change after {data}")
    return answer


@dataclass
class InlineTable:
    """A table played in one inline message by people who pick moves from their results."""

    fake: FakeBotApi
    chat: int
    imid: str
    users: list[int]
    rng: random.Random
    chosen: list[str] = field(default_factory=list)  # the move results picked, in order
    looked: int = 0  # queries answered with a hand
    first: int = 0  # whom to ask first (the one after the last mover: likely on turn)
    greedy: float = 0.0  # how often the biggest play is picked (shorter climbing rounds)

    def message(self) -> dict:
        return self.fake.inline_message(self.imid)

    @property
    def table_id(self) -> int:
        table = table_of(self.message())
        assert table is not None, self.message()
        return table

    def finished(self) -> bool:
        return "again" in codes(self.message())

    def step(self) -> bool:
        """Every person looks at their results once; the one on turn picks a move (or the
        table's "next round" is pressed). ``True`` when something was done."""
        msg = self.message()
        table = table_of(msg)
        found = codes(msg, table)
        if "next" in found:
            press(self.fake, self.rng.choice(self.users), self.imid, found["next"], False)
            return True
        order = self.users[self.first:] + self.users[:self.first]
        for user in order:
            uid, answer = ask(self.fake, user, f"#{table}")
            results = answer["results"]
            assert answer["is_personal"] and results, answer
            self.looked += 1
            moves = [r for r in results if r["id"].startswith("m.")]
            if not moves:
                continue
            knocks = [r for r in moves if r["id"].endswith(".knock")]
            pick = knocks[0] if knocks and self.rng.random() < 0.3 else self.rng.choice(moves)
            plays = [r for r in moves if not r["id"].endswith(".pass")]
            if plays and self.rng.random() < self.greedy:
                pick = max(plays, key=lambda r: len(r["title"]))
            self.first = (self.users.index(user) + 1) % len(self.users)
            before = snapshot(self.message())
            posted, _, chosen = self.fake.choose_inline_result(uid, pick["id"], self.chat)
            assert chosen is not None
            self.chosen.append(pick["id"])
            assert not set(posted["text"]) & set("♣♠♥♦"), posted["text"]  # (no card)
            self.fake.wait_for(lambda b=before: snapshot(self.message()) != b, WAIT,
                               message=f"the table to move after {pick['id']}")
            return True
        return False

    def play(self, moves: int | None = None, timeout: float = 240.0,
             until: Callable[[], bool] | None = None) -> None:
        """Play until the game ends (or ``moves`` more moves were made, or ``until`` holds)."""
        deadline, made = time.monotonic() + timeout, 0
        while not self.finished() and (moves is None or made < moves) \
                and not (until is not None and until()):
            assert time.monotonic() < deadline, f"the game did not end\n{self.fake.summary()}"
            if self.step():
                made += 1
            else:
                time.sleep(0.02)


def labels(msg: dict) -> list[str]:
    return [label for label, _ in buttons(msg)]
