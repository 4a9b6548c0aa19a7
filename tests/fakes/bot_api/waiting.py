"""Waiting for calls and conditions: the helpers shared by the in-process fake
(``FakeBotApi``) and its remote control (``RemoteFakeBotApi``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from tests.fakes.bot_api.records import _format_call

# --------------------------------------------------------------------------------------------
# Waiting helpers shared by the in-process and the remote API


class _WaitMixin:
    def calls(self, method: str | None = None, since: int = 0) -> list[dict]:  # pragma: no cover
        raise NotImplementedError

    def state(self) -> dict:  # pragma: no cover
        raise NotImplementedError

    def _idle(self, seconds: float) -> None:
        time.sleep(seconds)

    def summary(self, last: int = 15) -> str:
        """Human-readable summary of the latest calls and the server state."""
        try:
            calls = self.calls()
            st = self.state()
        except Exception as exc:  # pragma: no cover - e.g. remote process died
            return f"(no summary: {exc!r})"
        lines = [f"{len(calls)} recorded calls, last {min(last, len(calls))}:"]
        lines += [_format_call(c) for c in calls[-last:]]
        lines.append(
            f"pending updates: {st['pending_update_ids']}; webhook: {st['webhook'].get('url') or '-'}; "
            f"fail rules: {st['fail_rules']}; forbidden: {st['forbidden']}"
        )
        return "\n".join(lines)

    def _timeout_error(self, timeout: float, what: str, last_exc: BaseException | None):
        extra = f" (last predicate error: {last_exc!r})" if last_exc else ""
        return AssertionError(
            f"timed out after {timeout}s waiting for {what}{extra}\n{self.summary()}"
        )

    def wait_for(
        self,
        predicate: Callable[[], Any],
        timeout: float = 10.0,
        *,
        message: str | None = None,
        interval: float = 0.02,
    ) -> Any:
        """Poll ``predicate()`` (no arguments) until it returns something truthy, which is
        returned. Exceptions inside the predicate count as "not yet". On timeout raises
        AssertionError with a summary of recent calls. Do NOT use from inside the event loop
        that runs the bot (it blocks the loop) - use ``async_wait_for`` there."""
        deadline = time.monotonic() + timeout
        last_exc = None
        while True:
            try:
                result = predicate()
            except Exception as exc:
                last_exc, result = exc, None
            if result:
                return result
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._timeout_error(timeout, message or repr(predicate), last_exc)
            self._idle(min(interval, remaining))

    async def async_wait_for(
        self,
        predicate: Callable[[], Any],
        timeout: float = 10.0,
        *,
        message: str | None = None,
        interval: float = 0.01,
    ) -> Any:
        """Like ``wait_for`` but awaits ``asyncio.sleep`` between polls."""
        deadline = time.monotonic() + timeout
        last_exc = None
        while True:
            try:
                result = predicate()
            except Exception as exc:
                last_exc, result = exc, None
            if result:
                return result
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._timeout_error(timeout, message or repr(predicate), last_exc)
            await asyncio.sleep(min(interval, remaining))

    def _call_matcher(self, method: str | None, predicate, since: int):
        cursor = [since]

        def check():
            for c in self.calls(method, since=cursor[0]):
                cursor[0] = c["seq"]
                if predicate is None or predicate(c):
                    return c
            return None

        return check

    def wait_for_call(
        self,
        method: str | None,
        predicate: Callable[[dict], Any] | None = None,
        timeout: float = 10.0,
        since: int = 0,
    ) -> dict:
        """Wait for the first recorded call (seq > since) of ``method`` (None = any) for which
        ``predicate(call)`` is truthy; returns the call record."""
        what = f"a {method or 'any'} call (since seq {since})"
        return self.wait_for(self._call_matcher(method, predicate, since), timeout, message=what)

    async def async_wait_for_call(
        self,
        method: str | None,
        predicate: Callable[[dict], Any] | None = None,
        timeout: float = 10.0,
        since: int = 0,
    ) -> dict:
        what = f"a {method or 'any'} call (since seq {since})"
        return await self.async_wait_for(
            self._call_matcher(method, predicate, since), timeout, message=what
        )

    def last_seq(self) -> int:
        """Sequence number of the latest recorded call (use as ``since=``)."""
        return int(self.state()["seq"])
