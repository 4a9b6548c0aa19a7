"""Forged button data (issue 15, item 1): every part is checked before it reaches the
database; a forged button gets the same short answer as a stale one, changes nothing and
leaves no traceback in the log, on SQLite and PostgreSQL."""

from __future__ import annotations

import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot import buttons
from chatbot.i18n import tr
from chatbot.service import ChatRef, Service, UserRef
from storage.models import Outbox, ProcessedUpdate

ALICE = UserRef("alice", "Alice", language="en")
CHAT = ChatRef("telegram", "alice", "private")
FORGED = [
    "v1:99999999999999999999:1:x",  # the OverflowError of the issue
    "v1:2147483648:1:knock",  # one past INTEGER
    "v1:1:99999999999999999999:knock",
    "v1:-1:0:knock", "v1:+1:0:knock", "v1:1_0:0:knock", "v1: 1:0:knock", "v1:01:0:knock",
    "v1:١:0:knock",  # Arabic-Indic digit one: int() would take it
    "v1:1:0:", "v1:1:0:kn ock", "v1:1:0:knöck", "v1:1:0:" + "x" * 60, "v2:1:0:knock",
    "v1:1:0", "", "\x00", "v1:1:0:knock\n",
]


def _counts(engine: Engine) -> tuple[int, int]:
    with Session(engine) as session:
        return (session.exec(select(func.count()).select_from(Outbox)).one(),
                session.exec(select(func.count()).select_from(ProcessedUpdate)).one())


@pytest.mark.parametrize("data", FORGED)
def test_forged_button_data_is_refused_before_the_database(data: str) -> None:
    with pytest.raises(buttons.BadButton):
        buttons.decode(data)


def test_the_largest_ids_still_decode() -> None:
    assert buttons.decode(f"v1:{buttons.MAX_ID}:{buttons.MAX_ID}:swap.1.2") == \
        buttons.Press(buttons.MAX_ID, buttons.MAX_ID, "swap.1.2")


@given(st.text(max_size=80))
@settings(max_examples=500, deadline=None)
def test_any_text_decodes_to_a_valid_press_or_is_refused(data: str) -> None:
    try:
        press = buttons.decode(data)
    except buttons.BadButton:
        return
    assert 0 <= press.table_id <= buttons.MAX_ID and 0 <= press.version <= buttons.MAX_ID
    assert press.code.isascii() and press.code.isprintable() and " " not in press.code


def test_a_forged_button_gets_the_stale_answer_and_changes_nothing(
        db_engine: Engine, caplog: pytest.LogCaptureFixture) -> None:
    service = Service(db_engine)
    service.command(CHAT, ALICE, "help", update_key="u0")
    before = _counts(db_engine)
    with caplog.at_level(logging.DEBUG):
        for i, data in enumerate(FORGED):
            out = service.press(CHAT, ALICE, data, update_key=f"f{i}")
            assert (out.ok, out.alert, out.text) == (False, True, tr("en", "stale_button"))
    assert _counts(db_engine) == before
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
