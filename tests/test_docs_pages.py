"""The pages in ``docs/`` say what the project does now (a README sentence is a promise): every
test they cite is there, and a feature built does not stay listed as missing (issue 47, 14:
``docs/long-games.md`` said forum topics were not there yet after they were)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
CITED = re.compile(r"tests/[A-Za-z0-9_/]+\.py")


def test_every_test_a_page_cites_is_there() -> None:
    missing = {(page.name, path) for page in PAGES
               for path in CITED.findall(page.read_text(encoding="utf-8"))
               if not (ROOT / path).exists()}
    assert missing == set()


def test_the_long_games_page_describes_forum_topics_as_built() -> None:
    page = (ROOT / "docs" / "long-games.md").read_text(encoding="utf-8")
    assert "## Not there yet" not in page
    assert "## Forum topics" in page
    topics = page.split("## Forum topics", 1)[1].split("\n## ", 1)[0]
    for what in ("closed", "reopen", "General topic"):  # the closed topic and its reopening
        assert what in topics, what
    assert "tests/telegram/test_forum_topics.py" in page
