"""A 200-person tournament's round change (issue 48): the time from the last table of a round
finishing to every table of the next round dealt and every message about it queued, against
what Telegram's limits allow for those messages (about 30 a second for one bot).

    python bench/tournament_round.py [--people 200] [--game schwimmen] [--repeat 3]
                                     [--postgres]

A group of ``--people`` people (each with a private chat) opens a tournament of two rounds;
round 1 is drawn and dealt (its tables played in the people's private chats); every table but
the last is then ended (scored as it stood) and, measured, the last one ends: the round's end
runs as the tick's step runs it — the standings, the Swiss draw of round 2, its tables dealt,
every view queued in the outbox. Prints the step's wall and CPU time, the messages it queued,
Telegram's floor for them (messages ÷ 30 per second) and the ratio. Asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import func  # noqa: E402
from sqlmodel import Session, select  # noqa: E402

from chatbot import buttons  # noqa: E402
from chatbot.service import ChatRef, Service, Settings, UserRef  # noqa: E402
from storage.db import make_engine, migrate  # noqa: E402
from storage.models import Outbox, Tournament, TournamentTable  # noqa: E402

TELEGRAM_PER_SECOND = 30  # what one bot may send in all, about (Telegram's FAQ)
PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def _pending(engine) -> int:  # type: ignore[no-untyped-def]
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(Outbox).where(
            Outbox.status == "pending")).one()


def _drain(engine) -> None:  # type: ignore[no-untyped-def]
    """Everything queued so far counts as sent (the bench measures the round change only)."""
    with Session(engine) as session, session.begin():
        for row in session.exec(select(Outbox).where(Outbox.status == "pending")).all():
            row.status = "sent"


def one_round_change(url: str, people: int, game: str) -> tuple[float, float, int, int]:
    engine = make_engine(url)
    migrate(engine)
    service = Service(engine, Settings(cpu_delay=0, next_round_delay=0, input_rate=None))
    group = ChatRef("telegram", "-100200", "group", "Turnier")
    users = [UserRef(str(1000 + i), f"P{i}", language="de") for i in range(people)]
    for i, user in enumerate(users):
        service.command(ChatRef("telegram", user.external_id, "private"), user, "start",
                        update_key=f"s{i}")
    opener = users[0]
    out = service.command(group, opener, "turnier", f"{game} 2", update_key="open")
    assert out.ok, out.text
    with Session(engine) as session:
        tournament = session.exec(select(Tournament)).one()
    for i, user in enumerate(users):
        out = service.press(group, user, buttons.encode(0, 0, f"tn.j.{tournament.id}"),
                            update_key=f"j{i}")
        assert out.ok, out.text
    out = service.press(group, opener, buttons.encode(0, 0, f"tn.s.{tournament.id}"),
                        update_key="start")
    assert out.ok, out.text
    _refuse_topics(engine)  # (a plain group: Telegram refuses to make topics there)
    time.sleep(2.1)  # (the round looks again for its topics every 2 s)
    assert service.fire_tournaments() == 1  # round 1 dealt, played in private chats
    with Session(engine) as session:
        rows = session.exec(select(TournamentTable).where(
            TournamentTable.round_no == 1)).all()
        table_ids = [r.table_id for r in rows]
    _end_tables(service, table_ids[:-1])
    _drain(engine)
    _end_tables(service, table_ids[-1:])  # the last table of round 1 ends: the round is done
    _drain(engine)
    wall, cpu = time.perf_counter(), time.process_time()
    fired = service.fire_tournaments()  # the round's end and round 2, as the tick runs it
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert fired == 1, fired
    queued = _pending(engine)
    with Session(engine) as session:
        tables = session.exec(select(func.count()).select_from(TournamentTable).where(
            TournamentTable.round_no == 2, TournamentTable.state == "playing")).one()
    engine.dispose()
    return wall, cpu, queued, tables


def _refuse_topics(engine) -> None:  # type: ignore[no-untyped-def]
    with Session(engine) as session, session.begin():
        for row in session.exec(select(Outbox).where(Outbox.action == "thread")).all():
            row.status, row.error = "failed", "Bad Request: the chat is not a forum"


def _end_tables(service: Service, table_ids: list[int | None]) -> None:
    """Tables ended as an administrator ends them (each scored as it stood)."""
    from chatbot.service.core import play, records  # (the bench reaches in: no command)
    for table_id in table_ids:
        with service.tx.tx() as session:
            table = records.lock_table(session, table_id)  # type: ignore[arg-type]
            ctx = service.ctx(session, "telegram", "de")
            play.stop_table(ctx, table, "stopped")  # type: ignore[arg-type]
        service.notify(ctx)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--people", type=int, default=200)
    parser.add_argument("--game", default="schwimmen")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args(argv)
    runs = []
    for i in range(args.repeat):
        url = _fresh_pg(i) if args.postgres else f"sqlite:///{tempfile.mkdtemp()}/t.db"
        runs.append(one_round_change(url, args.people, args.game))
    walls = [r[0] for r in runs]
    cpus = [r[1] for r in runs]
    queued, tables = runs[-1][2], runs[-1][3]
    floor = queued / TELEGRAM_PER_SECOND
    db = "PostgreSQL" if args.postgres else "SQLite"
    print(f"{args.people} people, {args.game}, {db}: round 2 has {tables} tables; the round "
          f"change queued {queued} messages (Telegram's floor {floor:.1f} s at "
          f"{TELEGRAM_PER_SECOND}/s)")
    print(f"round change: wall {statistics.median(walls):.2f} s (runs {', '.join(f'{w:.2f}' for w in walls)}), "
          f"CPU {statistics.median(cpus):.2f} s; ratio to Telegram's floor "
          f"{statistics.median(walls) / floor:.2f}")


def _fresh_pg(i: int) -> str:
    import psycopg  # (the benches create their own databases, as bench/telegram.py does)
    name = f"bench_tournament_{i}"
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return PG.rsplit("/", 1)[0] + f"/{name}"


if __name__ == "__main__":
    main()
