"""The Matrix device store is private (issue 15, item 9): its folder 0700 and files 0600, also
when they were looser before, and the store key comes from ``MATRIX_STORE_KEY`` — matrix-nio's
default key is refused."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from chatbot.matrix.app import MatrixBot, private_store
from chatbot.runtime.config import load
from chatbot.service import Service
from storage.db import make_engine, migrate


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_store_is_made_private(tmp_path: Path) -> None:
    store = tmp_path / "matrix-store"
    (store / "sub").mkdir(parents=True)
    store.chmod(0o755)
    (store / "keys.db").write_text("x")
    (store / "keys.db").chmod(0o644)
    (store / "sub" / "credentials.json").write_text("{}")
    private_store(store)
    assert _mode(store) == 0o700 and _mode(store / "sub") == 0o700
    assert _mode(store / "keys.db") == 0o600
    assert _mode(store / "sub" / "credentials.json") == 0o600
    private_store(tmp_path / "new" / "store")
    assert _mode(tmp_path / "new" / "store") == 0o700


@pytest.mark.parametrize("key", [None, "DEFAULT_KEY"])
def test_the_default_store_key_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          key: str | None) -> None:
    monkeypatch.setenv("MATRIX_HOMESERVER", "http://127.0.0.1:9")
    monkeypatch.setenv("MATRIX_USER", "@bot:localhost")
    monkeypatch.setenv("MATRIX_PASSWORD", "pw")
    monkeypatch.delenv("MATRIX_STORE_KEY", raising=False)
    if key:
        monkeypatch.setenv("MATRIX_STORE_KEY", key)
    monkeypatch.chdir(tmp_path)
    engine = make_engine(f"sqlite:///{tmp_path / 'bot.db'}")
    migrate(engine)
    with pytest.raises(SystemExit, match="MATRIX_STORE_KEY"):
        MatrixBot(load(None), Service(engine))
