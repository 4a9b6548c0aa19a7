"""The application service: commands and button presses in, views out (through the outbox).

Transport-agnostic. ``Service`` is the façade the adapters call. Below it the modules form a
ladder, each importing only rungs below it (kept by the import-linter contract in
``pyproject.toml``), bottom to top:

1. ``api`` (what goes in and out), ``words`` (game and level names as people write them),
   ``flood`` (the per-person input rate), ``quiet`` (when a person may be reminded)
2. ``transaction`` (an input's transaction, queued rows, the update-id check), then ``store``
   (the rows an input works on, a table's machine, options, version and move log)
3. ``outgoing`` (views and announcements into the outbox), then ``history`` (the round's
   log on request); ``queries`` (reading tables outside an input), ``ratings`` (the derived
   stats and rating tables, caught up from the results)
4. ``cpu`` (deciding CPU moves), ``replays`` (``/replay``: a finished round move by move,
   every hand open, rebuilt from the seed and move log), ``clock`` (a table's next deadline, the half-time reminder)
5. ``play`` (moves, rounds, the result, stopping; CPU turns and chaining)
6. ``tables`` (opening and setting up tables), then ``seating`` (leaving, CPU fill, rematch,
   resigning)
7. ``lobby`` (lobby and table buttons), ``menus`` (the game menu), ``spectate`` (skipping to
   the result), ``stats`` (``/stats``, ``/top``), ``people`` (``/games``, ``/reminders``)
8. ``commands`` (slash commands, the chat's language)
9. ``router`` (where a decoded press goes), ``deadlines`` (firing what is due), ``reads``
   (what the service answers without changing anything)
10. ``facade`` (``Service``)
"""

from ..table_options import CPU_NAMES
from .api import Change, ChatRef, Outcome, Refusal, Settings, UserRef
from .facade import Service
from .lobby import TIMEOUT_CHOICES
from .queries import NotYourTable, TableSight, TableSnapshot
from .replays import Replayed
from .router import UI
from .spectate import SKIP_CODES

__all__ = ["CPU_NAMES", "TIMEOUT_CHOICES", "UI", "Change", "ChatRef", "NotYourTable",
           "Outcome", "Refusal", "Replayed", "SKIP_CODES", "Service", "Settings", "TableSight",
           "TableSnapshot", "UserRef"]
