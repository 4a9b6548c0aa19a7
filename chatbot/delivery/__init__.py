"""Delivering the outbox: pending views in order, slots edited in place, failures retried.

A platform adapter supplies a transport: ``send`` (post a new message, return its id),
``edit`` (change a message; "not modified" counts as success), ``delete`` and, where the
platform has them, ``pin``/``unpin``. This package decides what to do with each row:
superseded views of the same slot are dropped, unchanged ones are skipped, failed ones are
retried with backoff, and the slot's message id is remembered in the database. It knows no
platform: limits and what counts as a group are given by the adapter (``SendLimits``).

* ``items`` – the ``Item`` (one row as a transport sees it), its ``plan``, the exceptions;
* ``rows`` – the pending query, the row → item mapping, the backoff, slot upkeep;
* ``store`` – ``OutboxStore``: one process reads due items and records outcomes;
* ``send`` – one item through a transport (``deliver`` blocking, ``deliver_async``);
* ``claim`` – ``ClaimingOutbox``: processes sharing the outbox (send windows, outcomes);
* ``leases`` – the lease statements, on the database's clock;
* ``worker`` – ``Worker``: the loop of the bots' background tasks.
"""

from .claim import CHATS_PER_PASS, LEASE_SECONDS, Claim, ClaimingOutbox, Delivered, SendLimits
from .items import (
    LEAVE,
    THREAD_NAME,
    TOPIC,
    CannotPin,
    Item,
    MessageGone,
    Permanent,
    Retry,
    Transport,
    plan,
    topic_slot,
)
from .plain import OutboxStore
from .rows import MAX_ATTEMPTS, PER_CHAT
from .send import SlotMessages, deliver, deliver_async, record
from .worker import Worker

__all__ = [
    "CHATS_PER_PASS", "LEASE_SECONDS", "LEAVE", "MAX_ATTEMPTS", "PER_CHAT", "CannotPin", "Claim",
    "ClaimingOutbox", "Item", "MessageGone", "Delivered", "OutboxStore", "Permanent", "Retry", "SendLimits",
    "SlotMessages", "THREAD_NAME", "TOPIC", "Transport", "Worker", "deliver", "deliver_async",
    "plan", "record", "topic_slot",
]
