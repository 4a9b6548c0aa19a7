"""Flood control (issue 15, item 10): the same command again within a few seconds is answered
once; a person over the input rate gets one short "slow down" and is then ignored for a
moment; other people are not affected."""

from __future__ import annotations

import pytest
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.i18n import tr
from chatbot.service import ChatRef, Service, Settings, UserRef
from chatbot.service.core.flood import QUIET_SECONDS, REPEAT_SECONDS, Flood, Verdict
from storage.models import Outbox

ALICE = UserRef("alice", "Alice", language="de")
BOB = UserRef("bob", "Bob", language="en")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_same_command_again_is_answered_once() -> None:
    clock = Clock()
    flood = Flood(None, clock)
    cmd = ("chat", "help", "")
    assert flood.check("t", "alice", cmd) is Verdict.OK
    assert flood.check("t", "alice", cmd) is Verdict.REPEAT
    assert flood.check("t", "alice", ("chat", "rules", "")) is Verdict.OK  # another command
    assert flood.check("t", "bob", cmd) is Verdict.OK  # another person
    clock.now += REPEAT_SECONDS + 0.1
    assert flood.check("t", "alice", cmd) is Verdict.OK


def test_over_the_rate_one_slow_down_then_quiet() -> None:
    clock = Clock()
    flood = Flood("5/minute", clock)
    assert [flood.check("t", "alice") for _ in range(5)] == [Verdict.OK] * 5
    assert flood.check("t", "alice") is Verdict.SLOW_DOWN
    assert flood.check("t", "alice") is Verdict.IGNORE
    assert flood.check("t", "bob") is Verdict.OK
    clock.now += QUIET_SECONDS + 0.1
    assert flood.check("t", "alice") is Verdict.SLOW_DOWN  # still over the minute's rate


def test_people_held_back_are_forgotten_once_their_quiet_is_over() -> None:
    """Issue 38, item 13: a thousand people each warned once and never back: once their
    quiet is over, the next input (anyone's) drops them; who is still quiet is kept."""
    clock = Clock()
    flood = Flood("1/minute", clock)
    for i in range(1000):
        assert flood.check("t", f"p{i}") is Verdict.OK
        assert flood.check("t", f"p{i}") is Verdict.SLOW_DOWN
    assert len(flood._quiet) == 1000
    clock.now += QUIET_SECONDS + 0.1
    assert flood.check("t", "late") is Verdict.OK
    assert flood.check("t", "late") is Verdict.SLOW_DOWN
    assert flood.check("t", "someone") is Verdict.OK
    assert list(flood._quiet) == [("t", "late")]
    assert flood.check("t", "late") is Verdict.IGNORE


def _outbox(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(Outbox)).one()


@pytest.mark.parametrize("flooding", ["help", "commands", "garbage"])
def test_a_flooding_person_is_held_back_and_others_still_answered(
        db_engine: Engine, flooding: str) -> None:
    service = Service(db_engine, Settings(input_rate="10/minute"))
    alice = ChatRef("test", "alice", "private")
    outcomes = []
    for i in range(40):
        if flooding == "help":  # the same command: answered once
            outcomes.append(service.command(alice, ALICE, "help", update_key=f"h{i}"))
        elif flooding == "commands":  # all different: over the rate
            outcomes.append(service.command(alice, ALICE, "rules", f"x{i}", update_key=f"r{i}"))
        else:  # garbage buttons: over the rate
            outcomes.append(service.press(alice, ALICE, f"v1:9:9:x{i}", update_key=f"g{i}"))
    said = _outbox(db_engine)
    slow = [i for i, o in enumerate(outcomes) if o.text == tr("de", "slow_down")]
    if flooding == "help":
        assert said == 1 and not slow
    else:
        assert slow == [10]  # told once, after ten inputs ...
        assert all(not o.text for o in outcomes[11:])  # ... then ignored
        assert said == (10 if flooding == "commands" else 0)
    out = service.command(ChatRef("test", "bob", "private"), BOB, "help", update_key="b")
    assert out.ok and _outbox(db_engine) == said + 1
