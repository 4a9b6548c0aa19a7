"""Issue 19, item 4: initData validated as Telegram documents it,
and a seat's board (hand, middle, counts) never holds another seat's hidden cards, over full random games of
every game and player count."""

from __future__ import annotations

import json
import random
import re

import pytest

from chatbot.webapp.boards import BOARDS, codes
from chatbot.webapp.initdata import InvalidInitData, sign, validate
from engine import GAMES

TOKEN = "123456:TEST-token"
NOW = 1_800_000_000.0


def _data(**extra: str) -> dict[str, str]:
    return {"auth_date": str(int(NOW) - 60), "query_id": "AAH",
            "user": json.dumps({"id": 42, "first_name": "Ida", "language_code": "de"}),
            **extra}


def test_valid_init_data_gives_the_user():
    user = validate(sign(_data(start_param="t7"), TOKEN), TOKEN, now=NOW)
    assert (user.id, user.first_name, user.language_code, user.start_param) == \
        (42, "Ida", "de", "t7")


def test_a_known_signature_as_telegram_computes_it():
    # secret = HMAC_SHA256("WebAppData", token); hash = HMAC_SHA256(secret, sorted lines)
    import hashlib
    import hmac
    fields = _data()
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    assert f"hash={hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()}" in \
        sign(fields, TOKEN)


@pytest.mark.parametrize("forge", [
    lambda s: s.replace("Ida", "Eve"),                       # a field changed
    lambda s: re.sub(r"hash=[0-9a-f]+", "hash=" + "0" * 64, s),  # a made-up hash
    lambda s: re.sub(r"&?hash=[0-9a-f]+", "", s),            # no hash
    lambda s: s + "&user=%7B%22id%22%3A1%7D",                # a field twice
    lambda s: "%%%",                                          # garbage
])
def test_forged_init_data_is_refused(forge):
    with pytest.raises(InvalidInitData):
        validate(forge(sign(_data(), TOKEN)), TOKEN, now=NOW)


def test_other_bots_and_old_init_data_are_refused():
    good = sign(_data(), TOKEN)
    with pytest.raises(InvalidInitData):
        validate(good, "654321:OTHER", now=NOW)
    with pytest.raises(InvalidInitData, match="expired"):
        validate(good, TOKEN, max_age=30, now=NOW)


@pytest.mark.parametrize(("game_id", "seats"), [
    (g, n) for g in sorted(GAMES) for n in range(GAMES[g].MIN_SEATS, GAMES[g].MAX_SEATS + 1)])
def test_a_seats_view_never_holds_another_seats_hidden_cards(game_id, seats):
    game = GAMES[game_id]
    rng = random.Random(f"{game_id}{seats}")
    state = game.new_game(seats, {}, rng.randrange(10**6))
    names = [f"P{i}" for i in range(seats)]
    for _ in range(400):
        if game.is_over(state):
            break
        hidden = game.hidden_cards(state)
        for seat in [None, *range(seats)]:
            board = BOARDS[game_id].board(state, seat, names, "de", {})
            text = json.dumps({"hand": codes(board.hand), "middle": codes(board.middle),
                               "cards": board.cards})
            # what the engine says this seat may know (its hand, a card it gave away, …)
            obs = game.public_view(state) if seat is None else game.observation(state, seat)
            leaked = {c.code for c in hidden} - {c.code for c in obs.visible_cards()}
            found = {code for code in re.findall(r'"([0-9TJQKA]{1,2}[CSHD]|BJ|RJ)"', text)}
            assert not found & leaked, (game_id, seat, found & leaked)
        state, _ = game.apply(state, rng.choice(list(game.legal_actions(state))))
