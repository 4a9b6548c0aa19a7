"""The Experte as it was before issue 49 made it cheaper — the arena's yardstick, level
``experte_2026``: ``search.py`` (the search) and one module per game, copied unchanged but for
the level's name and a fixed default budget of 1 s. Like ``ismcts.py`` it is not offered in
chat: only the arena (``bench/budget_curve.py``, ``bench/arena.py``) and the ISMCTS player,
which samples its worlds the 2026 way, import it; it registers its bots with ``register(*BOTS)``.
"""

from __future__ import annotations

from .climbing import ClimbingExperte
from .runfast import RunFastExperte
from .scat import ScatExperte
from .schwimmen import SchwimmenExperte
from .search import LEVEL

BOTS = (ClimbingExperte, RunFastExperte, ScatExperte, SchwimmenExperte)

__all__ = ["BOTS", "LEVEL"]
