"""Issue 19: the visual table in headless Chromium against the real server. Two people play a
Run Fast hand to its end by tapping cards (each sees the other's move live, no reload); a
forged initData gets no table; the other three games open and take a move by tapping."""

from __future__ import annotations

import json
import re
from typing import Any

from tests import dealing

from .conftest import (
    ANNA,
    BEN,
    CEM,
    DARK,
    GROUP,
    Live,
    back_button,
    group_game,
    main_button,
    needs_playwright,
    press_main_button,
    state_of,
    to_a_turn,
)

needs_playwright()
from playwright.sync_api import Page, expect  # noqa: E402

MAIN_ACTIVE = """() => {
  const s = window.__tg.filter(e => e[0] === 'web_app_setup_main_button').pop();
  return !!s && JSON.parse(s[1]).is_active === true && JSON.parse(s[1]).is_visible === true;
}"""


def version(live: Live, table: int) -> int:
    return live.service.table(table).version  # type: ignore[union-attr]


def tap(page: Page, code: str) -> None:
    """Tap a card at its top-left corner (it shows even where the hand overlaps)."""
    page.locator(f'.card[data-code="{code}"]').click(position={"x": 6, "y": 12})


def tap_and_play(page: Page, cards: list[str], *, telegram: bool = True) -> None:
    before = page.locator("#app").get_attribute("data-version")
    for code in cards:
        tap(page, code)
    expect(page.locator("#seltext")).to_have_attribute("data-ready", "1")
    expect(page.locator("#seltext")).not_to_have_text("")
    if telegram:
        page.wait_for_function(MAIN_ACTIVE)
        assert main_button(page)["text"] not in ("", "Continue")  # the move's label
        press_main_button(page)
    else:
        expect(page.locator("#play")).to_be_enabled()
        page.locator("#play").click()
    expect(page.locator("#app")).not_to_have_attribute("data-version", before or "")


def test_two_people_play_a_run_fast_hand_by_tapping(open_page: Any, live: Live) -> None:
    table = group_game(live.service, "runfast", [ANNA, BEN], cpus=1)
    pages = {0: open_page(table, ANNA), 1: open_page(table, BEN)}
    for page in pages.values():
        expect(page.locator("#app")).to_have_attribute("data-version", str(version(live, table)))
        page.evaluate("window.__same = true")  # gone if the page were loaded again
    tapped: set[int] = set()  # a person who could only pass never tapped a card
    for _ in range(80):
        game, state = state_of(live.service, table)
        seat = game.to_act(state)
        if game.phase(state) != "turn" or seat is None:
            break
        assert seat in pages, "the CPU seat moves within the people's moves (cpu_delay 0)"
        page, other = pages[seat], pages[1 - seat]
        plays = [a for a in game.legal_actions(state) if a.kind not in ("pass", "deal")]
        if plays:
            best = max(plays, key=lambda a: len(a.cards))  # the longest: the hand ends sooner
            tap_and_play(page, [c.code for c in best.cards])
            tapped.add(seat)
        else:
            before = page.locator("#app").get_attribute("data-version")
            page.locator('#moves button[data-move="pass"]').click()
            expect(page.locator("#app")).not_to_have_attribute("data-version", before or "")
        now = str(version(live, table))
        for p in pages.values():  # the other one sees it live
            expect(p.locator("#app")).to_have_attribute("data-version", now)
        assert other.evaluate("window.__same") is True
    else:
        raise AssertionError("the hand did not end in 80 moves")
    assert tapped, "somebody played a card"
    for seat, page in pages.items():
        haptics = {json.loads(d).get("type") + ":" + str(json.loads(d).get("notification_type"))
                   for t, d in page.evaluate("window.__tg")
                   if t == "web_app_trigger_haptic_feedback"}
        assert "notification:success" in haptics, haptics  # the move was accepted
        if seat in tapped:
            assert "selection_change:None" in haptics, haptics  # a tapped card ticks
        expect(page.locator("#result")).to_be_visible()
        assert page.evaluate("window.__same") is True
        assert not page.js_errors
    # the hand is over: somebody has no card left
    game, state = state_of(live.service, table)
    assert 0 in state.hands  # a hand played out (card masks)


def test_a_forged_init_data_gets_no_table(open_page: Any, live: Live) -> None:
    table = group_game(live.service, "runfast", [ANNA, BEN], cpus=1)
    forged = ANNA.init().replace("Anna", "Eve")  # another user: the hash does not fit
    statuses: list[int] = []
    page = open_page(table, ANNA, init=forged,
                     on_response=lambda r: statuses.append(r.status) if "/api/" in r.url else None)
    expect(page.locator("#error")).to_be_visible()
    assert statuses and set(statuses) == {401}
    expect(page.locator("#hand .card")).to_have_count(0)
    expect(page.locator("#felt")).to_be_hidden()
    assert "Eve" not in page.content() and "Anna" not in page.locator("body").inner_text()


def test_schwimmen_swaps_a_hand_card_for_a_middle_card(open_page: Any, live: Live) -> None:
    """A hand card and a middle card tapped; the first press gets no answer (the network),
    the second sends the same key again, and the swap is played once."""
    table = group_game(live.service, "schwimmen", [ANNA, BEN], cpus=1)
    game, state, seat = to_a_turn(live.service, table)
    person = (ANNA, BEN)[seat]
    page = open_page(table, person)
    swap = next(a for a in game.legal_actions(state) if a.code.startswith("swap."))
    expect(page.locator("#middle-cards .card")).to_have_count(3)
    sent: list[dict[str, Any]] = []

    def flaky(route: Any) -> None:
        sent.append(json.loads(route.request.post_data or "{}"))
        if len(sent) == 1:
            route.abort("connectionreset")
        else:
            route.continue_()

    # Telegram's BackButton shows with a selection and clears it
    tap(page, swap.give.code)
    expect(page.locator(".card.on")).to_have_count(1)
    assert back_button(page) is True
    page.evaluate("Telegram.WebView.receiveEvent('back_button_pressed')")
    expect(page.locator(".card.on")).to_have_count(0)
    assert back_button(page) is False
    page.route("**/webapp/api/move", flaky)
    before = version(live, table)
    for code in (swap.give.code, swap.take.code):
        tap(page, code)
    page.wait_for_function(MAIN_ACTIVE)
    press_main_button(page)
    expect(page.locator("#toast")).to_be_visible()
    assert version(live, table) == before  # nothing played yet
    page.wait_for_function(MAIN_ACTIVE)
    press_main_button(page)
    expect(page.locator("#app")).not_to_have_attribute("data-version", str(before))
    assert len(sent) == 2 and sent[0] == sent[1] and sent[0]["code"] == swap.code
    _, after = state_of(live.service, table)
    assert swap.take in after.hands[seat]
    assert len([m for m in live.service.moves(table) if m.actor == "player"]) == 1


def scat_turn_before_a_draw(live: Live) -> tuple[int, int]:
    """A group Scat table with a person on turn whose next card does not make 31 (a blitz:
    the round would end on the draw): (table, seat)."""
    for _ in range(10):
        table = group_game(live.service, "scat", [ANNA, BEN], cpus=1)
        game, state, seat = to_a_turn(live.service, table)
        if game.phase(game.apply(state, "draw")[0]) == "turn":
            return table, seat
        out = live.service.command(GROUP, ANNA.ref, "stop")
        assert out.ok, out.text
    raise AssertionError("ten Scat tables in a row would blitz on the draw")


def test_scat_draws_then_discards(open_page: Any, live: Live) -> None:
    table, seat = scat_turn_before_a_draw(live)
    page = open_page(table, (ANNA, BEN)[seat])
    before = page.locator("#app").get_attribute("data-version")
    page.locator('#moves button[data-move="draw"]').click()
    expect(page.locator("#app")).not_to_have_attribute("data-version", before or "")
    game, state = state_of(live.service, table)
    drop = next(a for a in game.legal_actions(state) if a.code.startswith("drop."))
    tap_and_play(page, [drop.card.code])
    _, after = state_of(live.service, table)
    assert drop.card not in after.hands[seat]


def test_a_card_tapped_on_the_live_view_counts_while_the_move_is_answered(
        open_page: Any, live: Live) -> None:
    """The live stream can show the table after a move before the move's own answer is
    back (a slow answer on a phone, or a busy server): the drawn card shows and is tapped
    then. The tap counts and the discard plays; the draw's answer, coming last, does not take
    the page back."""
    table, seat = scat_turn_before_a_draw(live)
    page = open_page(table, (ANNA, BEN)[seat])
    held: list[Any] = []  # the draw's route and answer: the server has it, the page not yet

    def hold_the_first(route: Any) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)
            held.append(route.fetch())

    page.route("**/webapp/api/move", hold_the_first)
    logged = len(live.service.moves(table))
    before = page.locator("#app").get_attribute("data-version")
    page.locator('#moves button[data-move="draw"]').click()
    # the drawn card shows: by the stream (the page has not had the draw's answer)
    expect(page.locator("#app")).not_to_have_attribute("data-version", before or "")
    game, state = state_of(live.service, table)
    drop = next(a for a in game.legal_actions(state) if a.code.startswith("drop."))
    tap_and_play(page, [drop.card.code])
    _, after = state_of(live.service, table)
    assert drop.card not in after.hands[seat]
    shown = str(version(live, table))
    expect(page.locator("#app")).to_have_attribute("data-version", shown)
    for _ in range(250):  # (the answer reaches the test's route at once; 5 s at most)
        if len(held) == 2:
            break
        page.wait_for_timeout(20)
    route, answer = held
    assert answer.ok, answer.text()
    route.fulfill(response=answer)  # the draw's answer at last
    page.wait_for_function("""() => window.__tg.filter(e => e[0] ===
        'web_app_trigger_haptic_feedback' && JSON.parse(e[1]).notification_type ===
        'success').length === 2""")  # (the draw's and the discard's)
    expect(page.locator("#app")).to_have_attribute("data-version", shown)
    assert [m.code for m in live.service.moves(table)[logged:] if m.actor == "player"] \
        == ["draw", drop.code]  # each once
    assert not page.js_errors


def test_climbing_plays_by_tapping_with_the_page_button(open_page: Any, live: Live) -> None:
    table = group_game(live.service, "climbing", [ANNA, BEN, CEM], cpus=1)
    people = {0: ANNA, 1: BEN, 2: CEM}
    for _ in range(40):  # a person on turn who can only pass passes (in the chat) first
        game, state, seat = to_a_turn(live.service, table)
        assert seat in people, json.dumps(game.phase(state))
        plays = [a for a in game.legal_actions(state) if getattr(a, "cards", ())]
        if plays:
            break
        mover = people[seat]
        assert live.service.press(mover.chat, mover.ref,
                                  f"v1:{table}:{version(live, table)}:pass").ok
    assert plays, "nobody could play a card in 40 turns"
    page = open_page(table, people[seat], platform="unknown")
    play = max(plays, key=lambda a: len(a.cards))
    tap_and_play(page, [c.code for c in play.cards], telegram=False)
    assert main_button(page) == {}  # outside Telegram: the page's own button, no MainButton
    # Cem's page speaks English (his Telegram language), Anna's German
    texts = {}
    for person in (ANNA, CEM):  # (the table by the link's start parameter this time)
        other = open_page(None, person, init=person.init(start_param=f"t{table}"))
        expect(other.locator("#app")).to_have_attribute("data-version", str(version(live, table)))
        texts[person.name] = other.locator("#log summary").inner_text()
    assert texts == {"Anna": "Tisch und Züge", "Cem": "Table and moves"}, texts


def test_the_stream_comes_back_and_a_chat_move_shows(open_page: Any, live: Live) -> None:
    """The event stream drops once: "offline" shows until the page reconnects (by itself);
    then a move made in the chat (a button press, not the page) appears without reload."""
    table = group_game(live.service, "schwimmen", [ANNA, BEN], cpus=1)
    game, state, seat = to_a_turn(live.service, table)
    watcher = (BEN, ANNA)[seat]  # the one not on turn watches
    tries: list[str] = []
    down = [True]

    def drop_while_down(route: Any) -> None:
        tries.append(route.request.url)
        if down[0]:
            route.abort("connectionreset")
        else:
            route.continue_()

    page = open_page(None, watcher)  # no table named: the person's newest open table
    page.route("**/webapp/api/events*", drop_while_down)
    page.reload()
    expect(page.locator("#offline")).to_be_visible()
    down[0] = False  # the page tries again by itself (1 s, 2 s, 4 s … apart)
    expect(page.locator("#offline")).to_be_hidden(timeout=20_000)
    assert len(tries) >= 2
    before = version(live, table)
    expect(page.locator("#app")).to_have_attribute("data-version", str(before))
    page.evaluate("window.__same = true")
    code = next(a.code for a in game.legal_actions(state) if a.code.startswith("swap."))
    mover = (ANNA, BEN)[seat]
    assert live.service.press(mover.chat, mover.ref, f"v1:{table}:{before}:{code}").ok
    expect(page.locator("#app")).not_to_have_attribute("data-version", str(before))
    assert page.evaluate("window.__same") is True
    # Telegram switches to its dark theme: the page follows
    expect(page.locator("html")).to_have_attribute("data-scheme", "light")
    page.evaluate("theme => Telegram.WebView.receiveEvent('theme_changed', {theme_params: theme})",
                  DARK)
    expect(page.locator("html")).to_have_attribute("data-scheme", "dark")


def test_play_again_on_the_page_goes_on_at_the_new_table(open_page: Any, live: Live) -> None:
    """A finished private game: "Nochmal spielen" on the page opens the next table, and the
    page follows it (its own stream, the URL names it)."""
    service = live.service
    assert service.command(ANNA.chat, ANNA.ref, "start").ok
    assert service.command(ANNA.chat, ANNA.ref, "new", "schwimmen 1 anfänger").ok
    table = service.unfinished_tables("telegram", ANNA.chat.external_id)[0].id
    for code in ("resign", "resign.y"):  # (the quickest way to a finished game)
        assert service.press(ANNA.chat, ANNA.ref,
                             f"v1:{table}:{version(live, table)}:{code}").ok, code
    page = open_page(table, ANNA)
    page.locator('#moves button[data-move="again"]').click()
    expect(page).to_have_url(re.compile(rf"[?&]t=(?!{table}\b)\d+"))
    following = service.unfinished_tables("telegram", ANNA.chat.external_id)[0].id
    assert following != table and f"t={following}" in page.url
    app = page.locator("#app")

    def on_turn() -> bool:
        expect(app).to_have_attribute("data-version", str(version(live, following)))
        return dealing.seat_on_turn(service, following) is not None

    def deal_on() -> None:  # a 31 on the deal ended the new table's round: on, as she would
        shown = str(version(live, following))
        page.locator('#moves button[data-move="next"]').click()
        expect(app).not_to_have_attribute("data-version", shown)

    dealing.until_a_turn(on_turn, deal_on)
    assert page.locator("#hand .card").count() == 3 and not page.js_errors


HELD_STREAM = """const Stream = window.EventSource; window.__views = 0; window.__held = [];
window.EventSource = class {  // the page's stream, opened only when the test says so
  constructor(url) { this.url = url; this.on = []; this.real = null; window.__held.push(this); }
  addEventListener(kind, f) { this.on.push([kind, f]); if (this.real) this.real.addEventListener(kind, f); }
  close() { this.closed = true; if (this.real) this.real.close(); }
  open() {
    if (this.closed || this.real) return;
    this.real = new Stream(this.url);
    for (const [kind, f] of this.on) this.real.addEventListener(kind, f);
    this.real.addEventListener("view", () => { window.__views++; });
  }
};
window.__release = () => window.__held.forEach((s) => s.open());"""


def test_the_same_view_again_leaves_the_hand_as_it_is(open_page: Any, live: Live) -> None:
    """The stream's first event repeats the view the page fetched: the hand is not drawn anew
    (a tap that began on a card drawn anew was lost: its press and release met two cards)."""
    table = group_game(live.service, "schwimmen", [ANNA, BEN], cpus=1)
    _game, _state, seat = to_a_turn(live.service, table)
    page = open_page(table, (ANNA, BEN)[seat], client=HELD_STREAM)
    expect(page.locator("#hand .card").first).to_be_visible()  # (drawn from the page's fetch)
    page.evaluate("document.querySelector('#hand .card').__first = true")
    page.evaluate("window.__release()")
    page.wait_for_function("window.__views >= 1")
    assert page.evaluate("document.querySelector('#hand .card').__first === true")
    # and a tap on a card selects it
    code = page.locator("#hand .card.can").first.get_attribute("data-code")
    page.locator(f'#hand .card[data-code="{code}"]').click(position={"x": 6, "y": 12})
    expect(page.locator("#hand .card.on")).to_have_count(1)
    assert not page.js_errors
