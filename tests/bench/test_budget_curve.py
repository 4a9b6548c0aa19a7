"""bench/budget_curve.py: the kept games of a match are merged only while the Experte's code is
the same — the same syntax tree; a changed docstring or comment keeps them, a changed line of
code sets them aside — and the table reads them back."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import budget_curve  # noqa: E402

CODE = '''"""A module."""

def keep(x):
    """Keeps x."""
    return x  # a comment
'''


def _dump(source: str) -> str:
    return ast.dump(budget_curve._without_docstrings(ast.parse(source)))


def test_a_docstring_or_comment_changes_no_version() -> None:
    edited = CODE.replace("A module.", "Another text.").replace("Keeps x.", "").replace(
        "# a comment", "# another")
    assert _dump(edited) == _dump(CODE)


def test_a_changed_line_of_code_is_another_version() -> None:
    assert _dump(CODE.replace("return x", "return -x")) != _dump(CODE)


def test_games_of_another_version_are_not_merged(tmp_path: Path) -> None:
    kept = sorted((ROOT / "bench" / "results" / "budget").glob("scat-0.1-*.json"))[0]
    run = json.loads(kept.read_text())
    run["version"] = budget_curve.VERSIONS["scat"]  # (as played with today's code)
    (tmp_path / kept.name).write_text(json.dumps(run))
    games = len(budget_curve.load(str(tmp_path))[("scat", 0.1)])
    assert games == run["games"]
    run["version"] = "0" * 12
    (tmp_path / kept.name).write_text(json.dumps(run))
    assert ("scat", 0.1) not in budget_curve.load(str(tmp_path))
