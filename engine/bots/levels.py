"""The names of the CPU levels offered in chat, weakest first: ``LEVELS``.

The lowest module of ``engine.bots``: the bot modules take their ``level`` names from here, and
the registry (``registry.py``) orders its bots by ``LEVELS``.
"""

from __future__ import annotations

ANFAENGER = "anfaenger"
NORMAL = "normal"
EXPERTE = "experte"
LEVELS = (ANFAENGER, NORMAL, EXPERTE)
