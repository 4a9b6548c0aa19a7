"""Issue 19 through real HTTP on loopback (aiohttp's test server, a real SQLite file): the
page's view of every game as a player reads it (German and English), what a selection of
cards plays (named, legal or refused with the engine's reason), and a whole game of each kind
played through the API in which no response ever holds a card another seat hides."""

from __future__ import annotations

import json
import random
import re
import time
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy.engine import Engine

from chatbot.service import ChatRef, Service, UserRef
from chatbot.webapp.boards import BOARDS
from chatbot.webapp.initdata import sign
from engine import GAMES

from .api import TOKEN, run_api, view_on_turn

NEW = {"runfast": "runfast 2 anfänger", "schwimmen": "schwimmen 1 anfänger",
       "scat": "scat 2 anfänger", "climbing": "climbing 3 anfänger"}


def _init(user_id: int, lang: str | None = None) -> dict[str, str]:
    user: dict[str, Any] = {"id": user_id, "first_name": f"U{user_id}"}
    if lang:
        user["language_code"] = lang
    data = sign({"auth_date": str(int(time.time())), "user": json.dumps(user)}, TOKEN)
    return {"X-Telegram-Init-Data": data}



def _new(service: Service, user_id: int, game: str) -> int:
    me = UserRef(str(user_id), f"U{user_id}")
    assert service.command(ChatRef("telegram", str(user_id), "private"), me, "new",
                           NEW[game]).ok
    return service.unfinished_tables("telegram", str(user_id))[0].id  # type: ignore[return-value]


def _state(service: Service, table_id: int) -> Any:
    table = service.table(table_id)
    return GAMES[table.game].from_json(table.state_json)  # type: ignore[union-attr,arg-type]


@pytest.mark.parametrize(("lang", "words"), [
    ("de", {"title": "Run Fast", "hand": "Deine Karten", "middle": "Tisch", "by": " von "}),
    ("en", {"title": "Run Fast", "hand": "Your cards", "middle": "Table", "by": " by "})])
def test_the_run_fast_view_as_the_player_reads_it(sqlite_engine: Engine, lang: str,
                                                   words: dict[str, str]) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        table_id = _new(service, 42, "runfast")
        view = await (await client.get(f"/webapp/api/table?t={table_id}",
                                       headers=_init(42, lang))).json()
        assert view["lang"] == lang and view["title"].startswith(words["title"])
        assert view["texts"]["hand"] == words["hand"]
        assert [p["name"] for p in view["players"]][0] == "U42"
        assert view["players"][0]["you"] and view["players"][1]["cpu"]
        state = _state(service, table_id)
        assert view["hand"] == [c.code for c in state.hand_cards(0)]
        assert view["middle"]["label"] == words["middle"]
        if view["middle"]["cards"]:  # a CPU led: the play and whose it is
            assert words["by"] in view["middle"]["text"]
        assert view["turn"]["seat"] == 0 and view["turn"]["yours"]
        legal = GAMES["runfast"].legal_actions(state)
        assert set(view["selectable"]) == {c.code for a in legal for c in BOARDS["runfast"]
                                           .cards_of(a)}
        assert any("Run Fast" in line for line in view["lines"])

    run_api(sqlite_engine, scenario)


def test_a_selection_is_named_and_only_a_legal_one_can_be_played(sqlite_engine: Engine
                                                                 ) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        table_id = _new(service, 42, "runfast")
        game = GAMES["runfast"]
        view = await (await client.get(f"/webapp/api/table?t={table_id}",
                                       headers=_init(42))).json()
        while [a.code for a in game.legal_actions(_state(service, table_id))] == ["pass"]:
            view = await (await client.post("/webapp/api/move", headers=_init(42), json={
                "table": table_id, "version": view["version"], "code": "pass"})).json()
        state = _state(service, table_id)

        async def select(cards: list[str], lang: str = "de") -> dict[str, Any]:
            resp = await client.post("/webapp/api/select", headers=_init(42, lang), json={
                "table": table_id, "version": view["version"], "cards": cards})
            assert resp.status == 200, await resp.text()
            return await resp.json()

        play = next(a for a in game.legal_actions(state) if a.code != "pass")
        picked = await select([c.code for c in play.cards])
        assert picked["move"]["code"] == play.code
        kind = "Einzelkarte" if len(play.cards) == 1 else ""
        beats = state.current is not None  # a CPU's play is on the table, or this seat leads
        assert kind in picked["text"]
        assert picked["text"].endswith("schlägt den Tisch" if beats else "spielt aus"), picked
        english = await select([c.code for c in play.cards], "en")
        assert english["text"].endswith("beats the table" if beats else "leads"), english
        # two cards of different ranks are no combination
        hand = state.hand_cards(0)
        odd = next((a, b) for a in hand for b in hand if a.rank != b.rank)
        nothing = await select([odd[0].code, odd[1].code])
        assert nothing == {"text": "Keine Kombination", "move": None}
        assert (await select([odd[0].code, odd[1].code], "en"))["text"] == "No combination"
        # a card not in the hand: the engine's reason, nothing to play
        other = next(c for c in game.DECK if c not in hand)
        refused = await select([other.code])
        assert refused["move"] is None and " – " in refused["text"]
        # forged lists and a stale version
        for bad in (["ZZ"], "5S", [1, 2], ["5S", "5S"], ["5S"] * 30):
            resp = await client.post("/webapp/api/select", headers=_init(42), json={
                "table": table_id, "version": view["version"], "cards": bad})
            assert resp.status == 400
        resp = await client.post("/webapp/api/select", headers=_init(42), json={
            "table": table_id, "version": view["version"] + 5, "cards": []})
        assert resp.status == 409
        # somebody else: not their table (issue 38), so neither their turn nor their cards
        watcher = await client.post("/webapp/api/select", headers=_init(7), json={
            "table": table_id, "version": view["version"], "cards": [c.code for c in play.cards]})
        assert watcher.status == 403

    run_api(sqlite_engine, scenario)


def test_schwimmen_and_scat_say_what_to_choose_and_offer_their_moves(sqlite_engine: Engine
                                                                      ) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        for person in range(42, 52):  # a table where the person's turn may still pass:
            swim = _new(service, person, "schwimmen")  # (not when the CPU knocked first,
            view = await (await client.get(  # about one deal in fifty: the final round)
                f"/webapp/api/table?t={swim}", headers=_init(person))).json()
            view = await view_on_turn(client, swim, _init(person), view)  # (a 31 dealt)
            if GAMES["schwimmen"].phase(_state(service, swim)) == "turn":
                break
        assert {m["code"] for m in view["moves"]} >= {"pass", "knock", "all"}
        assert {m["label"] for m in view["moves"]} >= {"Schieben", "Klopfen"}
        assert set(view["selectable"]) == set(view["hand"]) | set(view["middle"]["cards"])
        one = await (await client.post("/webapp/api/select", headers=_init(person), json={
            "table": swim, "version": view["version"], "cards": view["hand"][:1]})).json()
        assert one["move"] is None and "Mitte" in one["text"]
        give, take = view["hand"][0], view["middle"]["cards"][0]
        two = await (await client.post("/webapp/api/select", headers=_init(person), json={
            "table": swim, "version": view["version"], "cards": [give, take]})).json()
        assert two["move"]["code"] == f"swap.{give}.{take}" and "⇄" in two["text"]
        for person in range(143, 153):  # a draw that does not end the round: a card that
            scat = _new(service, person, "scat")  # makes 31 ends it at once (a blitz, a few %)
            view = await (await client.get(f"/webapp/api/table?t={scat}",
                                           headers=_init(person))).json()
            view = await view_on_turn(client, scat, _init(person), view)  # (a 31 on the deal)
            assert {m["code"] for m in view["moves"]} >= {"draw", "take"}
            assert view["selectable"] == [] and view["middle"]["stack"] > 0
            drawn = await (await client.post("/webapp/api/move", headers=_init(person), json={
                "table": scat, "version": view["version"], "code": "draw", "key": "k1"})).json()
            assert drawn["ok"]
            if GAMES["scat"].phase(_state(service, scat)) == "turn":
                break
        assert len(drawn["hand"]) == 4 and set(drawn["selectable"]) == set(drawn["hand"])

    run_api(sqlite_engine, scenario)


_CODE = re.compile(r'"((?:10|[2-9JQKA])[CSHD]|BJ|RJ)"')


def _leaks(body: str, state: Any, game_id: str, seat: int | None) -> set[str]:
    """Codes and symbols of cards this seat may not know that the response shows."""
    game = GAMES[game_id]
    obs = game.public_view(state) if seat is None else game.observation(state, seat)
    hidden = set(game.hidden_cards(state)) - obs.visible_cards()
    found = {c for c in hidden if c.code in set(_CODE.findall(body))}
    lines = json.loads(body).get("lines") or []
    text = "\n".join(lines)
    found |= {c for c in hidden if c.code not in ("BJ", "RJ")
              and re.search(rf"(?<![0-9]){re.escape(c.symbol)}", text)}
    return {c.code for c in found}


@pytest.mark.parametrize("game_id", sorted(NEW))
def test_no_response_of_a_whole_game_shows_a_hidden_card(sqlite_engine: Engine,
                                                         game_id: str) -> None:
    """Every response the player and a watcher get, over a whole game played through the
    API (each move chosen by selecting its cards, as the page does)."""
    async def scenario(service: Service, client: TestClient) -> None:
        table_id = _new(service, 42, game_id)
        game, spec = GAMES[game_id], BOARDS[game_id]
        rng = random.Random(game_id)
        responses = 0
        for step in range(3000):
            resp = await client.get(f"/webapp/api/table?t={table_id}", headers=_init(42))
            body = await resp.text()
            view = json.loads(body)
            state = _state(service, table_id)
            assert not _leaks(body, state, game_id, 0), step
            watched = await (await client.get(f"/webapp/api/table?t={table_id}",
                                              headers=_init(7))).text()
            assert not _leaks(watched, state, game_id, None), step
            responses += 2
            if view["over"]:
                break
            if view["turn"]["yours"]:
                action = rng.choice(list(game.legal_actions(state)))
                cards = [c.code for c in spec.cards_of(action)]
                if cards:
                    sel = await client.post("/webapp/api/select", headers=_init(42), json={
                        "table": table_id, "version": view["version"], "cards": cards})
                    sel_body = await sel.text()
                    assert not _leaks(sel_body, state, game_id, 0)
                    assert json.loads(sel_body)["move"]["code"] == action.code
                code = action.code
            else:
                code = next((m["code"] for m in view["moves"] if m["code"] in ("next", "deal", "skip")),
                            None)
                if code is None:  # CPUs play on by their clock (the player is out)
                    due = service.due()
                    assert due, (view["state"], view["turn"], view["moves"])
                    for table, version in due:
                        service.fire_due(table, version)
                    continue
            moved = await client.post("/webapp/api/move", headers=_init(42), json={
                "table": table_id, "version": view["version"], "code": code,
                "key": f"s{step}"})
            moved_body = await moved.text()
            assert moved.status == 200, moved_body
            assert not _leaks(moved_body, _state(service, table_id), game_id, 0)
            responses += 2
        else:
            pytest.fail("the game did not end")
        assert responses > 20
        # "play again" from the page: the old table's view names the new one (the page follows)
        again = next(m for m in view["moves"] if m["code"] == "again")
        resp = await client.post("/webapp/api/move", headers=_init(42), json={
            "table": table_id, "version": view["version"], "code": again["code"], "key": "a"})
        assert resp.status == 200, await resp.text()
        old = await (await client.get(f"/webapp/api/table?t={table_id}", headers=_init(42))).json()
        following = service.unfinished_tables("telegram", "42")[0].id
        assert following != table_id and old["next_table"] == following
        new = await (await client.get(f"/webapp/api/table?t={following}",
                                      headers=_init(42))).json()
        assert new["seat"] == 0 and not new["over"] and new["next_table"] is None
        assert abs(new["now"] - time.time()) < 3600  # the server's clock, for the turn clock

    run_api(sqlite_engine, scenario)
