"""bench/code_version.py, which keeps bench/budget_curve.py's matches together: the kept games
of a match are merged only while the Experte's code is the same syntax tree — a changed
docstring or comment keeps them, a changed line of code sets them aside."""

from __future__ import annotations

import ast

from bench import code_version

CODE = '''"""A module."""

def keep(x):
    """Keeps x."""
    return x  # a comment
'''


def _dump(source: str) -> str:
    return ast.dump(code_version.without_docstrings(ast.parse(source)))


def test_a_docstring_or_comment_changes_no_version() -> None:
    edited = CODE.replace("A module.", "Another text.").replace("Keeps x.", "").replace(
        "# a comment", "# another")
    assert _dump(edited) == _dump(CODE)


def test_a_changed_line_of_code_is_another_version() -> None:
    assert _dump(CODE.replace("return x", "return -x")) != _dump(CODE)


def test_every_game_has_a_version_of_its_own() -> None:
    versions = {g: code_version.version(g) for g in ("schwimmen", "scat", "runfast", "climbing")}
    assert len(set(versions.values())) == 4
    assert versions["scat"] == code_version.version("scat")  # (stable)
