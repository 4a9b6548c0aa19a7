"""The table machine (fsm/table.py): transitions, guards that ask the engine, and the diagram."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import fsm
from engine import schwimmen as S
from engine.bots import LEVELS

ROOT = Path(__file__).resolve().parents[2]


def started(seats: int = 3, seed: int = 7) -> fsm.TableModel:
    """A table that has been started and settled into its first turn."""
    model = fsm.TableModel("schwimmen", seats=seats, seed=seed)
    fsm.fire(model, "start")
    fsm.settle(model)
    assert model.state == fsm.TURN, "pick a seed whose first deal is not a 31"
    return model


def snapshot(model: fsm.TableModel) -> tuple:
    return (model.state, model.engine_state, model.seats, dict(model.options), model.seed)


def illegal_swap(state: S.State) -> S.SwimAction:
    """A swap that gives away a card the player on turn does not hold."""
    hand = set(state.hands[state.to_act])
    give = next(c for c in S.DECK if c not in hand and c not in state.middle)
    return S.swap(give, state.middle[0])


def dealt_31_seed(seats: int = 2) -> int:
    return next(s for s in range(100_000) if S.new_game(seats, seed=s).phase == S.PAYOUT)


# ---------------------------------------------------------------------------------- start


@pytest.mark.parametrize("seats", [0, 1, 5, 7])
def test_start_refused_without_two_to_four_seats(seats: int) -> None:
    model = fsm.TableModel("schwimmen", seats=seats, seed=1)
    with pytest.raises(fsm.TransitionRefused):
        fsm.fire(model, "start")
    assert model.state == fsm.LOBBY
    assert model.engine_state is None


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_start_deals_and_settles_into_the_first_turn(seats: int) -> None:
    model = fsm.TableModel("schwimmen", seats=seats, seed=11)
    events = fsm.fire(model, "start")
    assert model.state == fsm.DEALING
    assert [e.kind for e in events] == ["game_start"]
    assert model.engine_state == S.new_game(seats, seed=11)
    fsm.settle(model)
    assert model.state == fsm.TURN
    assert S.to_act(model.engine_state) is not None


def test_a_31_dealt_at_once_goes_through_showdown_to_payout() -> None:
    model = fsm.TableModel("schwimmen", seats=2, seed=dealt_31_seed())
    fsm.fire(model, "start")
    fsm.settle(model)
    assert model.state == fsm.PAYOUT
    assert model.engine_state.result.reason == "dealt_31"


def test_act_in_lobby_is_refused() -> None:
    model = fsm.TableModel("schwimmen", seats=3, seed=1)
    with pytest.raises(fsm.TransitionRefused, match="lobby"):
        fsm.fire(model, "act", action="knock")
    assert model.state == fsm.LOBBY


def test_unknown_trigger_is_refused() -> None:
    model = started()
    before = snapshot(model)
    with pytest.raises(fsm.TransitionRefused, match="unknown trigger"):
        fsm.fire(model, "cheat")
    assert snapshot(model) == before


# ---------------------------------------------------------------------------------- moves


def test_every_legal_action_is_accepted_as_the_engine_applies_it() -> None:
    model = started()
    for action in S.legal_actions(model.engine_state):
        probe = fsm.TableModel("schwimmen", state=fsm.TURN, seats=3, seed=7,
                               engine_state=model.engine_state)
        events = fsm.fire(probe, "act", action=action.code)
        expected_state, expected_events = S.apply(model.engine_state, action)
        assert probe.engine_state == expected_state
        assert events == expected_events
        assert probe.state == {S.TURN: fsm.TURN, S.FINAL_ROUND: fsm.FINAL_ROUND,
                               S.PAYOUT: fsm.SHOWDOWN}[expected_state.phase]


def test_illegal_move_is_refused_with_the_engines_reason_and_changes_nothing() -> None:
    model = started()
    action = illegal_swap(model.engine_state)
    reason = S.why_illegal(model.engine_state, action)
    assert reason
    before = snapshot(model)
    with pytest.raises(fsm.TransitionRefused) as info:
        fsm.fire(model, "act", action=action.code)
    assert str(info.value) == reason
    assert snapshot(model) == before


def test_pass_twice_is_refused_with_the_engines_reason() -> None:
    model = started(seats=2)
    first = S.to_act(model.engine_state)
    fsm.fire(model, "act", action="pass")
    fsm.fire(model, "act", action="pass")  # the other player passes too: first is on turn again
    assert S.to_act(model.engine_state) == first
    before = snapshot(model)
    with pytest.raises(fsm.TransitionRefused, match="already passed"):
        fsm.fire(model, "act", action="pass")
    assert snapshot(model) == before


def test_unknown_move_code_is_refused() -> None:
    model = started()
    before = snapshot(model)
    with pytest.raises(fsm.TransitionRefused, match="unknown move"):
        fsm.fire(model, "act", action="swap.ZZ.QQ")
    assert snapshot(model) == before


def test_knock_leads_to_the_final_round_and_the_last_turn_to_showdown_and_payout() -> None:
    model = started(seats=3)
    fsm.fire(model, "act", action="knock")
    assert model.state == fsm.FINAL_ROUND
    with pytest.raises(fsm.TransitionRefused, match="pass"):
        fsm.fire(model, "act", action="pass")  # nobody may pass after a knock
    assert model.state == fsm.FINAL_ROUND
    fsm.fire(model, "act", action="knock")  # knocking again: a turn that changes nothing
    assert model.state == fsm.FINAL_ROUND
    events = fsm.fire(model, "act", action="knock")  # the last of the final turns
    assert model.state == fsm.SHOWDOWN
    assert "showdown" in [e.kind for e in events]
    fsm.settle(model)
    assert model.state == fsm.PAYOUT
    assert model.engine_state.result.reason == "knock"


def test_timeout_trigger_plays_a_move_like_act() -> None:
    model = started()
    fsm.fire(model, "timeout", action="knock")
    assert model.state == fsm.FINAL_ROUND
    with pytest.raises(fsm.TransitionRefused):
        fsm.fire(model, "timeout", action=illegal_swap(model.engine_state).code)


def test_next_round_deals_again_and_finish_ends_the_game() -> None:
    model = started(seats=2, seed=3)
    rng = random.Random(3)
    rounds = 0
    for _ in range(5_000):
        if model.state == fsm.FINISHED:
            break
        if model.state == fsm.PAYOUT:
            round_before = model.engine_state.round_no
            with pytest.raises(fsm.TransitionRefused):
                fsm.fire(model, "finish")  # the game goes on: finish is not possible yet
            fsm.fire(model, "next_round")
            assert model.state == fsm.DEALING
            assert model.engine_state.round_no == round_before + 1
            fsm.settle(model)
            rounds += 1
            continue
        assert model.state in (fsm.TURN, fsm.FINAL_ROUND)
        with pytest.raises(fsm.TransitionRefused):
            fsm.fire(model, "next_round")
        code = fsm.cpu_action(model, rng.choice(LEVELS), rng, budget=0.01)
        assert code in {a.code for a in S.legal_actions(model.engine_state)}
        fsm.fire(model, "act", action=code)
        fsm.settle(model)
    assert model.state == fsm.FINISHED
    assert S.is_over(model.engine_state)
    assert rounds >= 2
    with pytest.raises(fsm.TransitionRefused):
        fsm.fire(model, "next_round")
    with pytest.raises(fsm.TransitionRefused):
        fsm.fire(model, "stop")


def test_settle_from_payout_finishes_a_game_that_is_over() -> None:
    model = started(seats=2, seed=5)
    while not S.is_over(model.engine_state):
        state = model.engine_state
        action = "deal" if state.phase == S.PAYOUT else "knock"
        model.engine_state, _ = S.apply(state, action)
    model.state = fsm.PAYOUT
    fsm.settle(model)
    assert model.state == fsm.FINISHED


@pytest.mark.parametrize("state", list(fsm.OPEN))
def test_stop_from_every_open_state(state: str) -> None:
    model = fsm.TableModel("schwimmen", state=state, seats=3, seed=1)
    fsm.fire(model, "stop")
    assert model.state == fsm.ABANDONED


@pytest.mark.parametrize("state", [fsm.FINISHED, fsm.ABANDONED])
def test_closed_tables_take_no_trigger(state: str) -> None:
    model = fsm.TableModel("schwimmen", state=state, seats=3, seed=1)
    for trigger in ("start", "stop", "next_round", "finish", "settle"):
        with pytest.raises(fsm.TransitionRefused):
            fsm.fire(model, trigger)
    with pytest.raises(fsm.TransitionRefused):
        fsm.fire(model, "act", action="knock")
    assert model.state == state


def test_cpu_action_needs_a_player_on_turn() -> None:
    model = fsm.TableModel("schwimmen", seats=2, seed=dealt_31_seed())
    fsm.fire(model, "start")
    fsm.settle(model)
    with pytest.raises(fsm.TransitionRefused):
        fsm.cpu_action(model, "normal", random.Random(1))


def test_cpu_action_hands_budget_and_load_to_the_experte(monkeypatch) -> None:
    """The service's Experte budget and load factor reach the bot that decides."""
    from engine.bots import get_bot

    made = []

    def recording_get_bot(game_id: str, level: str):
        bot = get_bot(game_id, level)
        made.append(bot)
        return bot

    monkeypatch.setattr(fsm.table, "get_bot", recording_get_bot)
    model = started(seats=3, seed=7)
    legal = {a.code for a in S.legal_actions(model.engine_state)}
    assert fsm.cpu_action(model, "experte", random.Random(1), budget=0.6, load=4.0) in legal
    assert made[-1].budget == 0.6 and made[-1].load == 4.0
    assert made[-1].time_budget() == pytest.approx(0.15)
    assert fsm.cpu_action(model, "normal", random.Random(1), budget=0.2, load=4.0) in legal
    assert not hasattr(made[-1], "budget")  # Normal does not think against a clock


# ---------------------------------------------------------------------------------- diagram


def test_mermaid_names_every_state_and_trigger() -> None:
    text = fsm.mermaid()
    assert text.startswith("stateDiagram-v2\n")
    for state in fsm.STATES:
        assert state in text
    for t in fsm.TRANSITIONS:
        assert f": {t['trigger']}" in text


def test_diagram_is_current() -> None:
    committed = (ROOT / "docs" / "table-machine.md").read_text(encoding="utf-8")
    assert committed == fsm.diagram_markdown(), (
        "docs/table-machine.md is out of date: run `stammtisch diagram` and commit the result"
    )


def _dealt(game: str, seats: int, seed: int) -> fsm.TableModel:
    """A table of ``game`` started and settled (its first deal may end a round at once)."""
    model = fsm.TableModel(game, seats=seats, seed=seed)
    fsm.fire(model, "start")
    fsm.settle(model)
    return model


def _replayed(game: str, seats: int, seed: int, version: int, steps: dict[int, str]
              ) -> fsm.TableModel:
    """A fresh table started like the one played out, its steps taken again in order."""
    model = _dealt(game, seats, seed)
    for v in sorted(steps):
        assert v == version, "the steps follow each other, one version each"
        if steps[v] == "deal":
            fsm.fire(model, "next_round")
        else:
            fsm.fire(model, "act", action=steps[v])
        fsm.settle(model)
        version += 1
    return model


@pytest.mark.parametrize(("game", "seats"), [
    ("schwimmen", 2), ("schwimmen", 4), ("scat", 3), ("scat", 5), ("runfast", 3),
    ("climbing", 4)])
@pytest.mark.parametrize("seed", [1, 2])
def test_play_out_plays_the_game_to_its_end_and_its_steps_replay_to_the_same_state(
        game: str, seats: int, seed: int) -> None:
    """A ⏩ skip's play-out thought in the pool (``fsm.play_out_from_json``): every step keyed
    by the table version it is taken at, deals included, and taken again through the machine
    they give the same finished table (the service plays them so)."""
    model = _dealt(game, seats, seed)
    levels = ["anfaenger", *["normal"] * (seats - 1)]
    steps = fsm.play_out_from_json(game, model.state, seats, {}, seed,
                                   model.game.to_json(model.engine_state), levels, 5)
    assert steps and min(steps) == 5 and sorted(steps) == list(range(5, 5 + len(steps)))
    again = _replayed(game, seats, seed, 5, steps)
    assert again.state == fsm.FINISHED
    model_played = _dealt(game, seats, seed)
    fsm.play_out(model_played, levels, 5)
    assert model_played.state == fsm.FINISHED
    assert again.game.to_json(again.engine_state) == \
        model_played.game.to_json(model_played.engine_state)


def test_play_out_decides_like_the_service_seeded_by_table_and_version() -> None:
    """Each move is the one ``cpu_action`` picks with the generator seeded ``seed:version``,
    as the service seeds a CPU decision (so a quick level plays the same game either way)."""
    model = started()
    first_version = 9
    steps = fsm.play_out(started(), ["normal"] * 3, first_version)
    first = steps[first_version]
    assert first == fsm.cpu_action(model, "normal", random.Random(f"7:{first_version}"))


def test_play_out_stops_at_its_bound_and_leaves_closed_tables_alone() -> None:
    assert len(fsm.play_out(started(), ["normal"] * 3, 1, max_moves=4)) == 4
    done = started()
    fsm.fire(done, "stop")
    assert fsm.play_out(done, ["normal"] * 3, 1) == {}
