"""Issue 51: the Mini App for a player who uses the keyboard, a screen reader or a large zoom,
in the real Chromium against the real server.

* A whole Schwimmen turn and a Run Fast play by keyboard alone (a desktop Telegram client: the
  page's own Play button): only cards that can be played are Tab stops, the focus ring is not
  the selection's, and after each move — the person's own and the others' — the focus stays in
  the table (never on the page's body); the others' moves are read out.
* Every card's spoken name in German and English, in the hand, the middle and the replay.
* 200 % zoom and a 200 % text size: no card's rank or suit is covered by another card
  (the bounding boxes compared), nothing to scroll sideways, the replay's middle in sight.
* The four-colour decks and large cards chosen on the page, kept for the person; screenshots
  to docs/screenshots/ when STAMMTISCH_SCREENSHOTS=1 (else to a temporary directory).
"""

from __future__ import annotations

import json
import os
import random
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from chatbot.presenters.cards import card_name

from .conftest import (
    ANNA,
    BEN,
    CEM,
    DARK,
    GROUP,
    LIGHT,
    Live,
    Person,
    group_game,
    needs_playwright,
    state_of,
    to_a_turn,
)
from .test_replay_view import _round_over

needs_playwright()
from playwright.sync_api import Page, expect  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
FOCUSED = """() => { const e = document.activeElement;
  return e === document.body || !e ? 'body' : e.dataset.code ? 'card:' + e.dataset.code
    : e.dataset.move ? 'move:' + e.dataset.move : e.id || e.tagName; }"""
COVERED = """(sel) => {
  // each card's corner (its rank and small suit) against every card drawn above it
  const cards = [...document.querySelectorAll(sel)];
  const z = (el) => Number(getComputedStyle(el).zIndex) || 0;
  const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
    && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const out = [];
  cards.forEach((card, i) => {
    for (const part of card.querySelectorAll('.rank, .suit-small')) {
      const r = part.getBoundingClientRect();
      cards.forEach((other, j) => {
        const above = z(other) > z(card) || (z(other) === z(card) && j > i);
        if (other !== card && above && hit(r, other.getBoundingClientRect())) {
          out.push(card.dataset.code + ' under ' + other.dataset.code);
        }
      });
    }
  });
  return out; }"""


@pytest.fixture(autouse=True)
def seeded_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same deals every run (table seeds come from ``SystemRandom``)."""
    seeds = random.Random(5151)
    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(seeds.random()))


def version(live: Live, table: int) -> int:
    return live.service.table(table).version  # type: ignore[union-attr]


def tab_to(page: Page, target: str, back: bool = False, limit: int = 40) -> list[str]:
    """Press Tab (Shift+Tab) until ``target`` (as FOCUSED names it) has the focus: the stops
    passed on the way."""
    passed = []
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        now = page.evaluate(FOCUSED)
        passed.append(now)
        if now == target:
            return passed
    raise AssertionError(f"{target} not reached by the keyboard: {passed}")


def first_box(page: Page, selector: str) -> dict[str, float]:
    """The box of the first element ``selector`` finds, once it is drawn (read in the page in
    one go: the live stream may draw the hand anew between finding an element and measuring
    it, and a replaced element has no box)."""
    return page.wait_for_function("""sel => {
        const e = document.querySelector(sel), r = e && e.getBoundingClientRect();
        return r && r.width > 0 ? {x: r.x, y: r.y, width: r.width, height: r.height} : null;
    }""", arg=selector).json_value()  # type: ignore[no-any-return]


def play_by_keyboard(page: Page, cards: list[str]) -> list[str]:
    """Select each card with the space bar (reached by Tab), then Shift+Tab to the page's Play
    button and Enter; the stops passed."""
    page.locator("#title").focus()
    stops: list[str] = []
    for code in cards:
        try:
            stops += tab_to(page, f"card:{code}")
        except AssertionError:
            stops += tab_to(page, f"card:{code}", back=True)
        page.keyboard.press("Space")
        expect(page.locator(f'.card[data-code="{code}"]')).to_have_attribute(
            "aria-pressed", "true")
    expect(page.locator("#play")).to_be_enabled()
    stops += tab_to(page, "play", back=True)
    before = page.locator("#app").get_attribute("data-version")
    page.keyboard.press("Enter")
    expect(page.locator("#app")).not_to_have_attribute("data-version", before or "")
    return stops


def test_a_schwimmen_turn_by_keyboard_alone(open_page: Any, live: Live) -> None:
    table = group_game(live.service, "schwimmen", [ANNA, BEN], cpus=1)
    game, state, seat = to_a_turn(live.service, table)
    person = (ANNA, BEN)[seat]
    page = open_page(table, person, platform="tdesktop")
    swap = next(a for a in game.legal_actions(state) if a.code.startswith("swap."))
    stops = play_by_keyboard(page, [swap.give.code, swap.take.code])
    playable = {f"card:{c.code}" for c in (*state.hands[seat], *state.middle)}
    assert {s for s in stops if s.startswith("card:")} <= playable
    _, after = state_of(live.service, table)
    assert swap.take in after.hands[seat]
    assert page.evaluate(FOCUSED) != "body"  # the focus stayed in the table
    assert not page.js_errors


def test_a_run_fast_play_by_keyboard_and_the_others_moves_read_out(
        open_page: Any, live: Live) -> None:
    table = group_game(live.service, "runfast", [ANNA, BEN], cpus=1)
    for _ in range(20):
        game, state, seat = to_a_turn(live.service, table)
        plays = [a for a in game.legal_actions(state) if a.kind not in ("pass", "deal")]
        if plays and seat in (0, 1):
            break
        person = (ANNA, BEN)[seat]
        assert live.service.press(person.chat, person.ref,
                                  f"v1:{table}:{version(live, table)}:pass").ok
    person, other = (ANNA, BEN)[seat], (BEN, ANNA)[seat]
    page = open_page(table, person, platform="tdesktop")
    # only the cards that can be played now are Tab stops (all of the hand on a lead; fewer
    # when a play is to be beaten)
    stops = page.evaluate("""() => [...document.querySelectorAll('.card')]
        .filter(c => c.tabIndex >= 0).map(c => c.dataset.code)""")
    can = page.evaluate("() => [...document.querySelectorAll('.card.can')]"
                        ".map(c => c.dataset.code)")
    assert stops == can and can
    # the focus ring and the selection ring differ
    page.locator("#title").focus()
    first = can[0]
    tab_to(page, f"card:{first}")
    # (read from the focused card itself: the live stream may draw the hand anew meanwhile,
    # and a card element it replaced has no style left)
    focus_ring = page.wait_for_function("""code => {
        const e = document.activeElement, s = e && getComputedStyle(e);
        return e && e.dataset.code === code && s.outlineStyle
            ? s.outlineStyle + ' ' + s.outlineColor : null; }""", arg=first).json_value()
    page.keyboard.press("Space")
    selected = page.wait_for_function("""code => {
        const e = document.querySelector(`.card[data-code="${code}"]`);
        return e && getComputedStyle(e).boxShadow; }""", arg=first).json_value()
    assert focus_ring.startswith("solid") and focus_ring.split(" ", 1)[1] not in selected
    page.keyboard.press("Space")  # (unselected again)
    play = max(plays, key=lambda a: len(a.cards))
    play_by_keyboard(page, [c.code for c in play.cards])
    focus = page.evaluate(FOCUSED)
    assert focus != "body", focus
    _, after = state_of(live.service, table)
    assert all(c not in after.hand_cards(seat) for c in play.cards)
    # the other person moves (from the chat): the page reads it out, the focus stays
    for _ in range(10):
        game, state = state_of(live.service, table)
        if game.to_act(state) == 1 - seat:
            break
        other_seat = game.to_act(state)
        mover = (ANNA, BEN)[other_seat]
        live.service.press(mover.chat, mover.ref, f"v1:{table}:{version(live, table)}:pass")
    assert game.to_act(state) == 1 - seat, "the other person's turn came"
    code = "pass" if any(a.code == "pass" for a in game.legal_actions(state)) \
        else next(a.code for a in game.legal_actions(state))
    assert live.service.press(other.chat, other.ref,
                              f"v1:{table}:{version(live, table)}:{code}").ok
    expect(page.locator("#app")).to_have_attribute("data-version", str(version(live, table)))
    expect(page.locator("#said")).to_contain_text(other.name)
    assert page.evaluate(FOCUSED) == focus  # the same element as before
    assert not page.js_errors


def _names_shown(page: Page, selector: str) -> dict[str, str]:
    """Each card's name as the accessibility tree has it (Playwright's aria snapshot reads the
    same name a screen reader is given)."""
    return page.evaluate("""(sel) => Object.fromEntries([...document.querySelectorAll(sel)]
        .map(e => [e.dataset.code, e.querySelector('.sr-only').textContent]))""", selector)


def test_every_card_is_named_as_it_is_spoken_in_german_and_english(
        open_page: Any, live: Live) -> None:
    table = group_game(live.service, "schwimmen", [ANNA, CEM], cpus=1)
    _game, state, seat = to_a_turn(live.service, table)
    token = live.service.table(table).token  # type: ignore[union-attr]
    for person, lang in ((ANNA, "de"), (CEM, "en")):
        page = open_page(token, person)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        hand = state.hands[(ANNA, CEM).index(person)]
        names = _names_shown(page, "#hand .card")
        assert names == {c.code: card_name(c, lang) for c in hand}
        assert _names_shown(page, "#middle-cards .card") == {
            c.code: card_name(c, lang) for c in state.middle}
        # a screen reader's view: the hand a list of buttons named like "Dame Pik"
        first = hand[0]
        expect(page.get_by_role("button", name=card_name(first, lang), exact=True)).to_have_count(1)
        labels = page.evaluate("""() => ({players: document.getElementById('opponents')
            .getAttribute('aria-label'), hand: document.getElementById('hand')
            .getAttribute('aria-label')})""")
        assert labels == ({"players": "Spieler", "hand": "Deine Karten"} if lang == "de"
                          else {"players": "Players", "hand": "Your cards"})
        count = page.locator("#opponents .count .sr-only").first.text_content()
        assert count == ("3 Karten" if lang == "de" else "3 cards")
    # the replay: every seat's hand a list of named cards, the controls named
    _round_over(live.service, table, [ANNA, CEM, ANNA], seed=2)
    for person, lang in ((ANNA, "de"), (CEM, "en")):
        page = open_page(f"{token}&r=1", person)
        expect(page.locator("#replay")).to_be_visible()
        hands = page.evaluate("""() => [...document.querySelectorAll('.rp-hand')].map(u =>
            [u.getAttribute('aria-label'), [...u.querySelectorAll('li')].map(
              li => li.textContent)])""")
        assert len(hands) == 3 and all(len(cards) == 3 for _, cards in hands)
        words = ("Karten von", "Zug", "Einen Zug weiter") if lang == "de" \
            else ("Cards of", "Move", "One move on")
        assert all(label.startswith(words[0]) for label, _ in hands)
        shown = [name for _, cards in hands for name in cards]
        assert all(" " in name for name in shown)  # "Dame Pik", "Queen of spades"
        expect(page.locator("#rp-slider")).to_have_attribute("aria-label", words[1])
        expect(page.locator("#rp-next")).to_have_attribute("aria-label", words[2])
        expect(page.locator("html")).to_have_attribute("lang", lang)


def test_at_200_percent_zoom_and_text_size_no_card_hides_a_rank(
        browser: Any, open_page: Any, live: Live) -> None:
    table = group_game(live.service, "runfast", [ANNA, BEN], cpus=1)
    _game, _state, seat = to_a_turn(live.service, table)
    person = (ANNA, BEN)[seat]
    zoomed = open_page(table, person, viewport={"width": 180, "height": 370})  # 200 % zoom
    bigger = open_page(table, person)
    bigger.add_style_tag(content="html { font-size: 200% !important; }")  # the text size
    bigger.evaluate("window.dispatchEvent(new Event('resize'))")
    for page, width in ((zoomed, 180), (bigger, 360)):
        expect(page.locator("#hand .card")).to_have_count(16)
        page.evaluate("document.getAnimations().forEach(a => a.finish())")
        assert page.evaluate(COVERED, "#hand .card") == []
        assert page.evaluate("document.scrollingElement.scrollWidth") <= width
        w = first_box(page, "#hand .card")["width"]
        assert w >= 59  # (3.75 rem: never smaller at any zoom)
    assert first_box(bigger, "#hand .card")["width"] >= 118  # grows
    # the replay at 200 %: nothing to scroll sideways, the middle's first card in sight
    assert live.service.command(GROUP, ANNA.ref, "stop").ok
    table = group_game(live.service, "schwimmen", [ANNA, CEM], cpus=1)
    _round_over(live.service, table, [ANNA, CEM, ANNA], seed=2)
    token = live.service.table(table).token  # type: ignore[union-attr]
    page = open_page(f"{token}&r=1", ANNA, viewport={"width": 180, "height": 370})
    expect(page.locator("#replay")).to_be_visible()
    page.locator("#rp-next").click()
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 180
    assert first_box(page, "#rp-middle .rp-card")["x"] >= 0
    assert first_box(page, ".rp-card")["width"] >= 44
    for sel in (".rp-hand", "#rp-middle"):
        for group in page.locator(sel).all():
            assert group.evaluate(COVERED.replace("document.querySelectorAll(sel)",
                                                  "sel.querySelectorAll('.rp-card')"),
                                  group.element_handle()) == []


def _cards_api(live: Live, person: Person, body: dict[str, Any] | None = None) -> Any:
    request = urllib.request.Request(
        f"{live.base}/webapp/api/cards", method="POST" if body is not None else "GET",
        data=None if body is None else json.dumps(body).encode(),
        headers={"X-Telegram-Init-Data": person.init(), "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_four_colours_and_large_cards_chosen_on_the_page_are_kept(
        open_page: Any, live: Live, tmp_path: Path) -> None:
    out = DOCS if os.environ.get("STAMMTISCH_SCREENSHOTS") == "1" else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    table = group_game(live.service, "schwimmen", [ANNA, BEN], cpus=1)
    _game, _state, seat = to_a_turn(live.service, table)
    person = (ANNA, BEN)[seat]
    page = open_page(table, person)
    expect(page.locator("#deck-open")).to_be_visible()
    expect(page.locator("#deck-open")).to_have_attribute("aria-label", "Karten: Farben und Größe")
    page.locator("#deck-open").click()
    expect(page.locator("#deck")).to_be_visible()
    page.get_by_label("Turnierfarben: ♠ grün, ♦ gelb").check()
    page.get_by_label("Große Karten").check()
    expect(page.locator("html")).to_have_attribute("data-deck", "tournament")
    expect(page.locator("html")).to_have_attribute("data-large", "1")
    page.keyboard.press("Escape")
    expect(page.locator("#deck")).to_be_hidden()
    for _ in range(50):  # (saved as the answer comes)
        if live.service.card_settings("telegram", str(person.id)).large:
            break
        page.wait_for_timeout(20)
    kept = live.service.card_settings("telegram", str(person.id))
    assert (kept.deck, kept.large) == ("tournament", True)
    # a new page shows them at once: ♠ green, ♦ amber; the cards larger
    for deck, scheme, theme in (("tournament", "light", LIGHT), ("poker", "dark", DARK)):
        assert _cards_api(live, person, {"deck": deck, "large": True})[0] == 200
        page = open_page(table, person, theme=theme, color_scheme=scheme)
        expect(page.locator("html")).to_have_attribute("data-deck", deck)
        fills = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
            '#app .card-svg[class*="s-"]')].map(s => [s.classList[2],
            getComputedStyle(s.querySelector('text')).fill]))""")
        colours = {"s-H": "rgb(200, 16, 46)"}
        if deck == "tournament":
            colours.update({"s-S": "rgb(23, 128, 58)", "s-D": "rgb(161, 92, 0)",
                            "s-C": "rgb(26, 26, 26)"})
        else:
            colours.update({"s-C": "rgb(23, 128, 58)", "s-D": "rgb(29, 95, 196)",
                            "s-S": "rgb(26, 26, 26)"})
        assert {k: v for k, v in fills.items() if k in colours} == \
            {k: colours[k] for k in fills if k in colours}
        assert first_box(page, "#hand .card")["width"] >= 77
        page.evaluate("document.getAnimations().forEach(a => a.finish())")
        page.screenshot(path=str(out / f"cards-{deck}-large-phone-{scheme}.png"))
        assert not page.js_errors
    # the choice dialog itself, in English
    assert _cards_api(live, CEM, {"deck": "poker"})[0] == 200
    status, body = _cards_api(live, CEM)
    assert status == 200 and (body["deck"], body["large"]) == ("poker", False)
    assert body["texts"]["tournament"] == "Tournament colours: ♠ green, ♦ yellow"
    assert _cards_api(live, CEM, {"deck": "purple"})[0] == 400
    assert _cards_api(live, CEM, {"large": "yes"})[0] == 400
    assert _cards_api(live, CEM)[1]["deck"] == "poker"  # nothing changed
    assert live.service.command(GROUP, CEM.ref, "help").ok  # (Cem is seen in the group)
    page = open_page(token_of(live, table), CEM)
    page.locator("#deck-open").click()
    expect(page.locator("#deck")).to_be_visible()
    page.evaluate("document.getAnimations().forEach(a => a.finish())")
    page.screenshot(path=str(out / "cards-choice-phone-light.png"))


def token_of(live: Live, table: int) -> str:
    return live.service.table(table).token  # type: ignore[union-attr]
