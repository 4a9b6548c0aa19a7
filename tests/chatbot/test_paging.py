"""The keyboard pieces Run Fast and the climbing game share: rows for a phone, pages of plays
with their ◀ n/m ▶ row, and the tab and page steps."""

from chatbot.presenters.paging import in_rows, page_of, tab_or_page


def test_buttons_go_in_rows_of_at_most_so_many():
    buttons = [(str(i), f"c{i}") for i in range(7)]
    assert [len(r) for r in in_rows(buttons, 3)] == [3, 3, 1]
    assert in_rows([], 4) == []


def test_a_page_of_plays_and_the_row_that_turns_pages():
    items = list(range(20))
    assert page_of(items, {}, 8) == ([0, 1, 2, 3, 4, 5, 6, 7], [("1/3", "ui.p.0"),
                                                                 ("▶", "ui.p.1")])
    shown, nav = page_of(items, {"p": 1}, 8)
    assert shown == list(range(8, 16))
    assert nav == [("◀", "ui.p.0"), ("2/3", "ui.p.1"), ("▶", "ui.p.2")]
    assert page_of(items, {"p": 999}, 8) == ([16, 17, 18, 19], [("◀", "ui.p.1"),
                                                                 ("3/3", "ui.p.2")])
    assert page_of(items, {"p": -4}, 8)[0] == list(range(8))  # a stale page: the first
    assert page_of(items[:5], None, 8) == ([0, 1, 2, 3, 4], [])  # one page: no row


def test_tab_and_page_steps_and_other_steps_left_alone():
    ui = {"k": "sel", "p": 2, "s": ["AS"], "t": "9", "x": ["3H"]}
    assert tab_or_page(ui, "k", "pair", ("pair", "sel"), forget=("t", "x")) == {
        "k": "pair", "p": 0, "s": []}
    assert tab_or_page(ui, "k", "sel", ("pair", "sel"))["s"] == ["AS"]  # picked cards kept
    assert tab_or_page(ui, "p", "3", ("pair",)) == {**ui, "p": 3}
    assert tab_or_page(ui, "k", "nonsense", ("pair",)) is None
    assert tab_or_page(ui, "p", "1234", ("pair",)) is None  # no page that far
    assert tab_or_page(ui, "p", "²", ("pair",)) is None  # a digit, but not an ASCII one
    assert tab_or_page(ui, "t", "AS", ("pair",)) is None
    assert ui == {"k": "sel", "p": 2, "s": ["AS"], "t": "9", "x": ["3H"]}  # not changed
