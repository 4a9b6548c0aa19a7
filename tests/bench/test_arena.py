"""The arena and tuning scripts run and report what they promise (tiny runs; figures unchecked)."""

from __future__ import annotations

import json

import pytest

from bench import arena, tune
from engine.bots import NORMAL, get_bot


def test_wilson_interval_contains_the_share_and_narrows():
    lo, hi = arena.wilson(30, 100)
    assert lo < 0.3 < hi
    lo2, hi2 = arena.wilson(300, 1000)
    assert hi2 - lo2 < hi - lo
    assert arena.wilson(0, 0) == (0.0, 1.0)


def test_mean_interval_uses_student_t():
    m, lo, hi = arena.mean_ci([1.0, 2.0, 3.0, 4.0])
    assert m == 2.5 and lo < 2.5 < hi
    assert arena.t_quantile(1000) == pytest.approx(1.962, abs=1e-3)


@pytest.mark.parametrize("game_id,seats", [("schwimmen", ["experte", "normal", "anfaenger"]),
                                           ("runfast", ["experte", "normal", "normal"])])
def test_arena_rotates_seats_and_reports_every_level(game_id, seats, tmp_path, capsys):
    out = tmp_path / "summary.json"
    arena.main(["--game", game_id, "--seats", *seats, "--games", "3", "--seed", "2",
                "--playouts", "1", "--json", str(out)])
    text = capsys.readouterr().out
    for level in set(seats):
        assert f"  {level}" in text
    assert "games won" in text and "decision p50" in text
    summary = json.loads(out.read_text())
    assert summary["games"] == 3
    shares = sum(e["win_share"] for e in summary["levels"].values())
    assert shares == pytest.approx(1.0)  # every game has exactly one winner's share
    if game_id == "runfast":
        assert summary["levels"]["experte"]["hands"] > 0


def test_rotation_puts_every_level_in_every_seat():
    results = [arena.play_one("schwimmen", ["normal", "anfaenger", "anfaenger"], i, 3, None, 1,
                              None) for i in range(3)]
    assert {r["levels"].index("normal") for r in results} == {0, 1, 2}


def test_tune_variant_changes_only_the_named_threshold():
    base = type(get_bot("schwimmen", NORMAL))
    bot = tune.variant("schwimmen", "KNOCK_AT", 3, 62)
    assert isinstance(bot, base)
    assert bot.KNOCK_AT[3] == 62 and bot.KNOCK_AT[4] == base.KNOCK_AT[4]
    assert get_bot("schwimmen", NORMAL).KNOCK_AT[3] != 62  # the Normal bot is untouched
    assert tune.variant("scat", "POSITION_SHIFT", 3, 1).POSITION_SHIFT == 1
    assert 0.0 <= tune.play(("scat", "KNOCK_AT", 3, 25, 1, 0)) <= 1.0


def test_split_runs_merge_to_the_single_run(tmp_path, capsys):
    args = ["--game", "schwimmen", "--seats", "normal", "anfaenger", "anfaenger", "--seed", "4"]
    arena.main(args + ["--games", "4", "--json", str(tmp_path / "all.json")])
    whole = capsys.readouterr().out.splitlines()[1:]
    arena.main(args + ["--games", "2", "--json", str(tmp_path / "a.json")])
    arena.main(args + ["--games", "2", "--first", "2", "--json", str(tmp_path / "b.json")])
    capsys.readouterr()
    arena.main(["--merge", str(tmp_path / "a.json"), str(tmp_path / "b.json")])
    merged = capsys.readouterr().out.splitlines()[1:]
    strip = [line.split("; decision")[0] for line in whole]  # times differ between runs
    assert [line.split("; decision")[0] for line in merged] == strip
    with pytest.raises(SystemExit):
        arena.main(["--merge", str(tmp_path / "a.json"), str(tmp_path / "a.json")])


def test_arena_table_merges_kept_runs_into_one_row_per_match(tmp_path, capsys):
    from bench import arena_table

    seats = ["experte", "ismcts", "ismcts"]
    for first in (0, 3):
        arena.main(["--game", "schwimmen", "--seats", *seats, "--games", "3", "--seed", "2",
                    "--playouts", "1", "--first", str(first),
                    "--json", str(tmp_path / f"run-{first}.json")])
    capsys.readouterr()
    text = arena_table.table(str(tmp_path))
    rows = [line for line in text.splitlines() if line.startswith("| schwimmen")]
    assert rows and rows[0].startswith("| schwimmen, 3 | one Experte, 2 ISMCTS | 6 | **")
    assert "33.3 %" in rows[0] and "coins left/game" in rows[0]
    doc = tmp_path / "arena.md"  # --write: the tables between the markers, the rest kept
    doc.write_text("# Arena\n\nbefore\n<!-- arena_table -->\nold table\n<!-- /arena_table -->\n"
                   "after\n")
    arena_table.main(["--write", str(doc), str(tmp_path)])
    written = doc.read_text()
    assert written.startswith("# Arena\n\nbefore\n<!-- arena_table -->\n\n**")
    assert "old table" not in written and rows[0] in written
    assert written.endswith("\n<!-- /arena_table -->\nafter\n")
    doc.write_text("no markers\n")
    with pytest.raises(SystemExit, match="needs one"):
        arena_table.main(["--write", str(doc), str(tmp_path)])
    again = tmp_path / "run-again.json"  # the same games once more: refused
    again.write_text((tmp_path / "run-3.json").read_text())
    with pytest.raises(SystemExit, match="overlap"):
        arena_table.table(str(tmp_path))


def test_arena_table_enough_once_the_interval_is_seven_points(tmp_path):
    """A match is long enough when half its first seat's 95 % interval is at most 7 points:
    an even share needs about 200 games (±12.3 at 60, ±6.9 at 200); a clear one stops at 60."""
    from bench import arena_table

    seats = ["experte", "ismcts", "ismcts"]

    def keep(name, first, winners):
        games = [{"levels": seats, "winners": [w], "points": [0.0, 0.0, 0.0], "hands": [],
                  "times": {}} for w in winners]
        (tmp_path / name).write_text(json.dumps(
            {"game": "scat", "seats": seats, "games": len(games), "seed": 1, "budget": 1.0,
             "playouts": None, "ismcts": None, "first": first, "results": games}))

    def enough(games_, half):
        g, h = arena_table.half_width(str(tmp_path), "scat", 1.0, seats)
        assert (g, round(100 * h, 1)) == (games_, half)
        return arena_table.enough(str(tmp_path), "scat", 1.0, seats)

    assert not enough(0, 50.0)
    keep("a.json", 0, [0, 1] * 30)  # 50 % of 60
    assert not enough(60, 12.3)
    keep("b.json", 60, [0, 2] * 70)  # 50 % of 200
    assert enough(200, 6.9)
    assert not arena_table.half_width(str(tmp_path), "scat", 0.25, seats)[0]  # other budget
    for f in tmp_path.iterdir():
        f.unlink()
    keep("c.json", 0, [0] * 59)  # clear, but fewer than 60 games
    assert not enough(59, 3.1)
    keep("d.json", 59, [0])
    assert enough(60, 3.0)


def test_docs_arena_table_is_the_kept_runs():
    """docs/arena.md shows what bench/results/ismcts holds: after adding runs, regenerate it
    with ``python bench/arena_table.py --write docs/arena.md``."""
    from pathlib import Path

    from bench import arena_table

    doc = (Path(__file__).resolve().parents[2] / "docs" / "arena.md").read_text()
    shown = doc.split(arena_table.BEGIN + "\n", 1)[1].split("\n" + arena_table.END, 1)[0]
    assert shown.strip() == arena_table.table(arena_table.DEFAULT_DIR).strip()
