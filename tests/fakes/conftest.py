"""Fixtures of the fake Bot API's tests: ``fake``, the in-process fake with each HTTP front end."""

from __future__ import annotations

import pytest

from tests.fakes.ptb_helpers import TOKEN
from tests.fakes.telegram_api import FakeBotApi


@pytest.fixture(params=["threaded", "aiohttp"])
def fake(request):
    with FakeBotApi(token=TOKEN, http=request.param) as server:
        yield server
