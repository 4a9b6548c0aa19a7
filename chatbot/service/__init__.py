"""The application service: commands and button presses in, views out (through the outbox).

Transport-agnostic. ``Service`` is the façade the adapters call; the modules beside it hold
one concern each:

- ``api``: what goes in and out (``ChatRef``, ``UserRef``, ``Outcome``, ``Settings``, ``Change``)
- ``transaction``: an input's transaction, its queued rows and the update-id check
- ``store``: the chat, person, table and seat rows an input works on
- ``commands``: slash commands; ``menus``: choosing a game, opening tables
- ``lobby``: table buttons that are not moves; ``play``: moves and the round's end
- ``cpu``: CPU turns; ``deadlines``: the turn clock and every other deadline
- ``outgoing``: views and announcements; ``queries``: reading tables outside an input
"""

from .api import Change, ChatRef, Outcome, Refusal, Settings, UserRef
from .facade import Service
from .lobby import TIMEOUT_CHOICES, UI
from .menus import CPU_NAMES

__all__ = ["CPU_NAMES", "TIMEOUT_CHOICES", "UI", "Change", "ChatRef", "Outcome", "Refusal",
           "Service", "Settings", "UserRef"]
