"""Keyboard pieces shared by the games whose moves are picked from many plays (Run Fast, the
climbing game): buttons in rows for a phone, one page of plays with its ◀ n/m ▶ row, and the
two selection steps every such keyboard has, ``k.<tab>`` and ``p.<page>``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

Button = tuple[str, str]  # (label, code)
T = TypeVar("T")


def in_rows(buttons: Sequence[Button], per_row: int) -> list[list[Button]]:
    """The buttons, at most ``per_row`` a row."""
    return [list(buttons[i:i + per_row]) for i in range(0, len(buttons), per_row)]


def page_of(items: Sequence[T], ui: dict[str, Any] | None, size: int
            ) -> tuple[Sequence[T], list[Button]]:
    """The items of the selection's page (``ui["p"]``, kept within the pages) and the row that
    turns pages (``ui.p.<n>``; empty when all fit on one page)."""
    pages = max(1, (len(items) + size - 1) // size)
    page = min(max(int((ui or {}).get("p") or 0), 0), pages - 1)
    nav: list[Button] = []
    if pages > 1:
        if page > 0:
            nav.append(("◀", f"ui.p.{page - 1}"))
        nav.append((f"{page + 1}/{pages}", f"ui.p.{page}"))
        if page < pages - 1:
            nav.append(("▶", f"ui.p.{page + 1}"))
    return items[page * size:(page + 1) * size], nav


def tab_or_page(ui: dict[str, Any], head: str, rest: str, tabs: Sequence[str],
                forget: Sequence[str] = ()) -> dict[str, Any] | None:
    """The steps ``k.<tab>`` (another tab: first page, the picked cards kept only for the hand
    tab ``sel``, the ``forget`` keys dropped) and ``p.<n>`` (another page); the new selection,
    or ``None`` when ``head``/``rest`` is another step."""
    if head == "k" and rest in tabs:
        ui = {k: v for k, v in ui.items() if k not in forget}
        ui["k"], ui["p"] = rest, 0
        if rest != "sel":
            ui["s"] = []
        return ui
    if head == "p" and rest.isascii() and rest.isdigit() and len(rest) <= 3:
        return {**ui, "p": int(rest)}
    return None
