"""Which code a kept bench result was played with: a digest of the Experte's code for a game
(its search, its game module, Normal and the game's rules), of the syntax trees without
docstrings — a changed comment or docstring keeps the games played, a changed line of code
sets them aside (``bench/budget_curve.py``)."""

from __future__ import annotations

import ast
import hashlib
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def version(game_id: str) -> str:
    """A digest of the code the Experte of ``game_id`` plays with (its search, its game
    module, Normal and the game's rules) — of its syntax tree without docstrings, so that
    a change of a comment or a docstring does not cost the games played: runs of another
    version are not merged."""
    names = ["engine/bots/experte.py", f"engine/bots/{game_id}_experte.py",
             f"engine/bots/{game_id}.py", f"engine/{game_id}.py"]
    digest = hashlib.sha1()
    for name in names:
        with open(os.path.join(ROOT, name), "rb") as f:
            digest.update(ast.dump(without_docstrings(ast.parse(f.read()))).encode())
    return digest.hexdigest()[:12]


def without_docstrings(tree: ast.Module) -> ast.Module:
    """``tree`` with the docstring of every module, class and function taken out."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return tree
