"""The Mini App's API served on loopback for a test (aiohttp's test server and client)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.engine import Engine

from chatbot.service import Service, Settings
from chatbot.webapp.server import mounted

TOKEN = "123456:TEST-token"
Scenario = Callable[[Service, TestClient], Awaitable[None]]


def run_api(engine: Engine, scenario: Scenario) -> None:
    """Run ``scenario(service, client)`` against the API of a service on ``engine``."""
    service = Service(engine, Settings(cpu_delay=0))

    async def main() -> None:
        async with TestClient(TestServer(mounted(service, TOKEN, max_age=3600))) as client:
            await scenario(service, client)

    asyncio.run(main())
