"""The shipped proxy configuration (``deploy/Caddyfile``) and what docs/deploy.md tells an
operator to set in front of the bots: slow clients are cut off, the event stream is not.

No Caddy runs here (the CI machines have none): the Caddyfile is read by a small reader of its
block syntax (lines of words, ``{ … }`` blocks, ``#`` comments)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DURATION = re.compile(r"^\d+(ms|s|m|h|d)$")


@dataclass
class Line:
    """One directive: its words and, if it opens a block, the lines inside."""

    words: list[str]
    block: list[Line] = field(default_factory=list)

    def find(self, *path: str) -> Line | None:
        """The line reached by following the first words ``path`` into nested blocks."""
        here: Line | None = self
        for word in path:
            assert here is not None
            here = next((line for line in here.block if line.words[:1] == [word]), None)
            if here is None:
                return None
        return here


def parse(text: str) -> Line:
    """The Caddyfile as a tree of lines under one root."""
    root = Line([])
    stack = [root]
    for raw in text.splitlines():
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if words == ["}"]:
            stack.pop()
            continue
        opens = words[-1] == "{"
        line = Line(words[:-1] if opens else words)
        stack[-1].block.append(line)
        if opens:
            stack.append(line)
    assert stack == [root], "unbalanced braces"
    return root


def caddyfile() -> Line:
    return parse((ROOT / "deploy" / "Caddyfile").read_text())


def test_caddy_times_out_slow_clients_but_not_the_event_stream() -> None:
    """The global options block (the first, keyless one) sets header, body and idle
    timeouts; no total write timeout, which would cut /webapp/api/events."""
    root = caddyfile()
    first = root.block[0]
    assert first.words == [], "the global options block must come first"
    timeouts = first.find("servers", "timeouts")
    assert timeouts is not None, "no servers { timeouts { … } } in the global options"
    set_ = {line.words[0]: line.words[1:] for line in timeouts.block}
    for name in ("read_header", "read_body", "idle"):
        assert name in set_, name
        assert len(set_[name]) == 1 and DURATION.match(set_[name][0]), set_[name]
    assert "write" not in set_
    assert [line.words for line in root.block[1:]][0] == ["{$BOT_DOMAIN}"]


def test_caddy_limits_request_bodies() -> None:
    site = caddyfile().find("{$BOT_DOMAIN}")
    assert site is not None
    webhook = next(line for line in site.block if line.words == ["handle", "@webhook"])
    webapp = next(line for line in site.block if line.words == ["handle", "/webapp*"])
    for handle in (webhook, webapp):
        size = handle.find("request_body", "max_size")
        assert size is not None, handle.words


def test_deploy_doc_says_what_a_proxy_in_front_must_set() -> None:
    doc = (ROOT / "docs" / "deploy.md").read_text()
    section = doc.split("## What a reverse proxy in front must set", 1)[1].split("\n## ", 1)[0]
    for needed in ("read_header", "read_body", "client_header_timeout", "client_body_timeout",
                   "client_max_body_size", "proxy_buffering off", "/webapp/api/events",
                   "write"):
        assert needed in section, needed
