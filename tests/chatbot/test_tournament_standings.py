"""A tournament's points and standings (``standings`` and ``core.ranking``, pure): points by
place at a table add up to what its places give (n−1 … 0, CPU seats taking theirs), ties share
the points of their places; the standings by points, then Buchholz (the points of everybody
one sat with, once per table of a round), then the game's own points; people equal in all
three share a rank. The worked example is the one docs/tournaments.md shows."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from chatbot.service.core.ranking import seat_points
from chatbot.service.tournament.standings import Scored, met, standings
from chatbot.service.tournament.texts import standings_table

ALMA, BRUNO, CEM, DORA, EDE, FRITZI = 1, 2, 3, 4, 5, 6
NAMES = {ALMA: "Alma", BRUNO: "Bruno", CEM: "Cem", DORA: "Dora", EDE: "Ede", FRITZI: "Fritzi"}


def table(round_no: int, table_no: int, results: list[tuple[int, int, float]],
          game_no: int = 0) -> list[Scored]:
    """One table's scores: (person, points, game points) each; everybody sat with the rest."""
    people = [p for p, _pts, _g in results]
    return [Scored(round_no, table_no, p, Fraction(pts), game,
                   tuple(o for o in people if o != p)) for p, pts, game in results]


def worked_example() -> list[Scored]:
    """Six people, two rounds, tables of three (docs/tournaments.md)."""
    return [
        *table(1, 1, [(ALMA, 2, 2), (BRUNO, 1, 0), (CEM, 0, 0)]),
        *table(1, 2, [(DORA, 2, 3), (EDE, 1, 0), (FRITZI, 0, 0)]),
        *table(2, 1, [(DORA, 2, 1), (ALMA, 1, 0), (EDE, 0, 0)]),
        *table(2, 2, [(BRUNO, 2, 2), (FRITZI, 1, 0), (CEM, 0, 0)]),
    ]


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.integers(0, 3), min_size=2, max_size=7), data=st.data())
def test_points_at_a_table_add_up_to_its_places_and_ties_share(values: list[int],
                                                               data: st.DataObject) -> None:
    n = len(values)
    winners = data.draw(st.lists(st.integers(0, n - 1), max_size=1))
    rows = [{"seat": s, "coins": v} for s, v in enumerate(values)]
    points = seat_points(winners, rows)
    assert sum(points.values()) == Fraction(n * (n - 1), 2)
    for a in range(n):
        for b in range(n):
            if values[a] == values[b] and (a in winners) == (b in winners):
                assert points[a] == points[b], "a tie shares"
            if values[a] > values[b] and not winners:
                assert points[a] > points[b], "the better standing gets more"
    if winners:
        assert points[winners[0]] == max(points.values())


def test_two_tied_for_second_of_four_share_its_points() -> None:
    points = seat_points([0], [{"seat": 0, "coins": 2}, {"seat": 1, "coins": 0},
                               {"seat": 2, "coins": 0}, {"seat": 3, "coins": -1}])
    assert points == {0: 3, 1: Fraction(3, 2), 2: Fraction(3, 2), 3: 0}


def test_the_worked_example_ranks_by_points_then_buchholz() -> None:
    rows = standings(NAMES, worked_example())
    assert [(rank, s.name, s.points, s.buchholz, s.game_points) for rank, s in rows] == [
        (1, "Dora", 4, 1 + 1 + 3 + 1, 4.0),    # sat with Ede, Fritzi; then Alma, Ede
        (2, "Alma", 3, 3 + 0 + 4 + 1, 2.0),    # Bruno, Cem; Dora, Ede
        (3, "Bruno", 3, 3 + 0 + 1 + 0, 2.0),   # Alma, Cem; Fritzi, Cem
        (4, "Ede", 1, 4 + 1 + 4 + 3, 0.0),     # Dora, Fritzi; Dora, Alma
        (5, "Fritzi", 1, 4 + 1 + 3 + 0, 0.0),  # Dora, Ede; Bruno, Cem
        (6, "Cem", 0, 3 + 3 + 3 + 1, 0.0),     # Alma, Bruno; Bruno, Fritzi
    ]
    assert all(s.played == 2 for _rank, s in rows)


def test_the_worked_example_as_the_group_reads_it() -> None:
    rows = standings(NAMES, worked_example())
    assert standings_table(rows, "de").splitlines() == [
        "```",
        "#   Name          Pkt  Bhz  Spiel",
        " 1. Dora            4    6     4",
        " 2. Alma            3    8     2",
        " 3. Bruno           3    4     2",
        " 4. Ede             1   12     0",
        " 5. Fritzi          1    8     0",
        " 6. Cem             0   10     0",
        "```",
    ]
    assert standings_table(rows, "en").splitlines()[1] == "#   Name          Pts  Opp  Game"


def test_equal_points_and_buchholz_go_by_the_games_own_points() -> None:
    rows = standings({ALMA: "Alma", BRUNO: "Bruno"}, [
        *table(1, 1, [(ALMA, 1, 0), (BRUNO, 1, 5)]),  # tied at their table
    ])
    assert [(rank, s.name) for rank, s in rows] == [(1, "Bruno"), (2, "Alma")]


def test_people_equal_in_all_three_share_a_rank_and_the_next_skips() -> None:
    rows = standings({ALMA: "Alma", BRUNO: "Bruno", CEM: "Cem"}, [
        *table(1, 1, [(BRUNO, 1, 2), (ALMA, 1, 2), (CEM, 0, 0)]),
    ])
    assert [(rank, s.name) for rank, s in rows] == [(1, "Alma"), (1, "Bruno"), (3, "Cem")]
    assert rows[0][1].buchholz == rows[1][1].buchholz == 1


def test_points_rank_before_buchholz_and_buchholz_before_the_games_points() -> None:
    rows = standings(NAMES, [
        *table(1, 1, [(ALMA, 2, 0), (BRUNO, 1, 0), (CEM, 0, 9)]),
        *table(1, 2, [(DORA, 1, 9), (EDE, 1, 0)]),
    ])
    order = [s.name for _rank, s in rows]
    assert order.index("Alma") < order.index("Bruno") < order.index("Dora")  # 2 > 1, 1
    assert order.index("Dora") > order.index("Bruno")  # Bruno's Buchholz 2 beats Dora's 1


def test_two_games_at_one_table_count_its_people_once_for_buchholz() -> None:
    rows = standings({ALMA: "Alma", BRUNO: "Bruno"}, [
        *table(1, 1, [(ALMA, 1, 0), (BRUNO, 0, 0)], game_no=0),
        *table(1, 1, [(ALMA, 1, 0), (BRUNO, 0, 0)], game_no=1),
    ])
    alma = next(s for _r, s in rows if s.name == "Alma")
    bruno = next(s for _r, s in rows if s.name == "Bruno")
    assert (alma.points, alma.played, alma.buchholz) == (2, 2, 0)
    assert bruno.buchholz == 2  # Alma's two points, once


def test_a_person_no_longer_counted_adds_nothing_to_buchholz() -> None:
    rows = standings({ALMA: "Alma"}, table(1, 1, [(ALMA, 0, 0), (BRUNO, 1, 0)]))
    assert [(s.name, s.points, s.buchholz) for _r, s in rows] == [("Alma", 0, 0)]


def test_met_counts_each_table_once() -> None:
    scored = [*table(1, 1, [(ALMA, 1, 0), (BRUNO, 0, 0)], game_no=0),
              *table(1, 1, [(ALMA, 1, 0), (BRUNO, 0, 0)], game_no=1),
              *table(2, 1, [(BRUNO, 1, 0), (ALMA, 0, 0), (CEM, 0, 0)])]
    assert met(scored) == {(ALMA, BRUNO): 2, (ALMA, CEM): 1, (BRUNO, CEM): 1}
