"""The process's Prometheus metrics (``prometheus-client``, on its default registry).

Every metric is named ``stammtisch_…``; ``chatbot.runtime.health`` serves them on ``/metrics``. The
helpers below keep each call site to one line; they only count and time, never raise on odd
label values, and cost a few microseconds (a dictionary look-up and a lock), so they may sit
on the hot path. ``observe_outbox`` runs one SQL query and is meant for a scrape, not for
the hot path.

What is counted:

* ``stammtisch_inputs_total{platform,kind,outcome}`` and ``stammtisch_input_seconds{platform,
  kind}``: inputs through the service (``kind`` press, command …; ``outcome`` what the service
  decided: ok, refused, stale, duplicate, error), with their time in the service (from the
  call to the commit, or, in a batch of presses, to the press's savepoint).
* ``stammtisch_outbox_pending{platform}``, ``stammtisch_outbox_oldest_pending_seconds{platform}``:
  the outbox's backlog, set on each scrape.
* ``stammtisch_outbox_delivered_total{platform,result}``: what came of each delivery
  (sent, kept, retry, failed).
* ``stammtisch_bot_api_calls_total{method,status}`` and ``stammtisch_bot_api_429_total{method}``:
  Telegram Bot API calls by method and HTTP status ("network": no answer).
* ``stammtisch_deadlines_fired_total{kind}``: deadlines claimed and run (remind, timeout, cpu,
  next).
* ``stammtisch_experte_decision_seconds{game}``: how long the Experte thought per decision.
* ``stammtisch_thinking_fallbacks_total{kind}``: slow decisions whose thinking place (the task
  queue's workers) did not answer in time, so a fallback was played (``decide``: a Normal
  move; ``advise``: a shorter hint thought here; ``play_out``: a ⏩ play-out at Normal).
* ``stammtisch_leader{role}``: 1 while this process holds the leader lock of ``role``
  (``telegram-poll``, ``matrix-sync``), else 0.
"""

from __future__ import annotations

from datetime import UTC, datetime

from prometheus_client import Counter, Gauge, Histogram
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from storage.models import Outbox

# ms to s: an input is a few ms, a slow commit or an Experte decision up to seconds
BUCKETS = (.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1.0, 2.5, 5.0)
INPUT_OUTCOMES = ("ok", "refused", "stale", "duplicate", "error")
DELIVERY_RESULTS = ("sent", "kept", "retry", "failed")

INPUTS = Counter("stammtisch_inputs_total", "Inputs through the service, by what it decided",
                 ["platform", "kind", "outcome"])
INPUT_SECONDS = Histogram("stammtisch_input_seconds", "Time of an input in the service",
                          ["platform", "kind"], buckets=BUCKETS)
OUTBOX_BACKLOG = Gauge("stammtisch_outbox_pending", "Outbox rows waiting to be delivered",
                       ["platform"])
OUTBOX_OLDEST = Gauge("stammtisch_outbox_oldest_pending_seconds",
                      "Age of the oldest outbox row waiting to be delivered (0: none)",
                      ["platform"])
OUTBOX_DELIVERED = Counter("stammtisch_outbox_delivered_total",
                           "Outbox deliveries by result (sent, kept, retry, failed)",
                           ["platform", "result"])
BOT_API_CALLS = Counter("stammtisch_bot_api_calls_total",
                        "Telegram Bot API calls by method and HTTP status (network: no answer)",
                        ["method", "status"])
RATE_LIMITED = Counter("stammtisch_bot_api_429_total",
                       "Telegram Bot API calls answered 429 (too many requests)", ["method"])
DEADLINES_FIRED = Counter("stammtisch_deadlines_fired_total", "Deadlines claimed and run",
                          ["kind"])
EXPERTE_DECISIONS = Histogram("stammtisch_experte_decision_seconds",
                              "Time the Experte CPU thought per decision", ["game"],
                              buckets=BUCKETS)
THINKING_FALLBACKS = Counter("stammtisch_thinking_fallbacks_total",
                             "Slow CPU decisions not answered in time by their thinking place, "
                             "so a fallback was played", ["kind"])
THOUGHT_AHEAD = Counter("stammtisch_thought_ahead_total",
                        "CPU decisions started during the CPU's visible delay, by what became "
                        "of them (used, stale, not_begun, failed, dropped)", ["outcome"])
LEADER = Gauge("stammtisch_leader", "1 while this process holds the leader lock of the role",
               ["role"])

_OUTBOX = Outbox.__table__  # type: ignore[attr-defined]


def observe_input(platform: str, kind: str, outcome: str, seconds: float) -> None:
    """An input through the service: what it decided and how long it took there."""
    INPUTS.labels(platform, kind, outcome).inc()
    INPUT_SECONDS.labels(platform, kind).observe(seconds)


def observe_call(method: str, status: int | str) -> None:
    """A Bot API call and its HTTP status (``"network"``: the call got no answer)."""
    status = str(status)
    if not (method.isascii() and method.isalpha() and len(method) <= 40):
        method = "other"  # (a file download's path, say: not a label value of its own)
    BOT_API_CALLS.labels(method, status).inc()
    if status == "429":
        RATE_LIMITED.labels(method).inc()


def observe_deadline(kind: str | None) -> None:
    """A deadline claimed and run (``kind``: remind, timeout, cpu, next)."""
    DEADLINES_FIRED.labels(kind or "none").inc()


def observe_experte(game: str, seconds: float) -> None:
    """One decision of the Experte at a table of ``game``."""
    EXPERTE_DECISIONS.labels(game).observe(seconds)


def observe_thinking_fallback(kind: str) -> None:
    """A decision (``decide``, ``advise``, ``play_out``) that fell back: no answer in time."""
    THINKING_FALLBACKS.labels(kind).inc()


def observe_thought_ahead(outcome: str) -> None:
    """A decision thought ahead (``core.ahead``): used when its deadline fired, or not."""
    THOUGHT_AHEAD.labels(outcome).inc()


def observe_delivery(platform: str, result: str) -> None:
    """An outbox row's delivery: ``sent``, ``kept`` (nothing to change), ``retry`` (tried
    again later) or ``failed`` (given up)."""
    OUTBOX_DELIVERED.labels(platform, result).inc()


def set_leader(role: str, held: bool) -> None:
    """Whether this process holds the leader lock of ``role`` now."""
    LEADER.labels(role).set(1 if held else 0)


def outbox_backlog(engine: Engine, platform: str,
                   now: datetime | None = None) -> tuple[int, float]:
    """The platform's pending outbox rows and the age of the oldest in seconds (0 for none),
    in one query."""
    with engine.connect() as conn:
        count, oldest = conn.execute(select(func.count(), func.min(_OUTBOX.c.created_at))
                                     .where(_OUTBOX.c.status == "pending",
                                            _OUTBOX.c.platform == platform)).one()
    if not count or oldest is None:
        return int(count or 0), 0.0
    if oldest.tzinfo is None:  # SQLite hands back naive UTC
        oldest = oldest.replace(tzinfo=UTC)
    age = ((now or datetime.now(UTC)) - oldest).total_seconds()
    return int(count), max(age, 0.0)


def observe_outbox(engine: Engine, platform: str, now: datetime | None = None) -> None:
    """Set the outbox gauges of ``platform`` from the database (one cheap query; call it
    when scraped, off the event loop)."""
    count, age = outbox_backlog(engine, platform, now)
    OUTBOX_BACKLOG.labels(platform).set(count)
    OUTBOX_OLDEST.labels(platform).set(age)
