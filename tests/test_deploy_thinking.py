"""The shipped compose file's thinking workers (``deploy/compose.yml``, profile ``think``): a
broker, a ``think`` service that ``docker compose up --scale think=N`` can run N times, and bots
that reach the same broker. No Docker engine runs here: the file is read as YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[1]


def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "deploy" / "compose.yml").read_text())


def test_the_think_service_starts_scalable_workers_on_the_broker() -> None:
    services = compose()["services"]
    think = services["think"]
    assert think["command"] == ["stammtisch", "think"]
    assert think["profiles"] == ["think"]
    assert "container_name" not in think and "ports" not in think  # N of them may run
    assert think["depends_on"]["broker"]["condition"] == "service_healthy"
    url = urlsplit(think["environment"]["THINKING_URL"])
    assert (url.scheme, url.hostname, url.port) == ("amqp", "broker", 5672)
    broker = services["broker"]
    assert broker["profiles"] == ["think"] and broker["healthcheck"]["test"]
    env = broker["environment"]
    assert (url.username, url.password) == (env["RABBITMQ_DEFAULT_USER"],
                                            env["RABBITMQ_DEFAULT_PASS"])
    assert all(str(p).startswith("127.0.0.1:") for p in broker.get("ports", []))


def test_the_bots_send_their_decisions_to_the_same_broker() -> None:
    services = compose()["services"]
    assert services["telegram"]["environment"]["THINKING_URL"] \
        == services["think"]["environment"]["THINKING_URL"]


def test_the_image_holds_the_queue_client() -> None:
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "'.[queue]'" in dockerfile
