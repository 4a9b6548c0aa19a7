"""Loopback servers for the HTTP client tests: a scripted HTTP/1.1 server (plain or TLS), a
tiny forwarding proxy, and a self-signed certificate. Everything listens on 127.0.0.1 only and
connects nowhere else."""

from __future__ import annotations

import asyncio
import datetime as dtm
import ipaddress
import json
import ssl
from collections.abc import Callable
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

LOOPBACK = "127.0.0.1"
ME = {"id": 1, "is_bot": True, "first_name": "Stammtisch", "username": "stammtisch_bot"}
Action = Literal["answer", "answer-close", "drop"]


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (its own CA) and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, LOOPBACK)])
    now = dtm.datetime.now(dtm.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dtm.timedelta(hours=1))
            .not_valid_after(now + dtm.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address(LOOPBACK))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def server_tls(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


def _answer(result: object) -> bytes:
    body = json.dumps({"ok": True, "result": result}).encode()
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: keep-alive\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)) + body


async def _read_request(reader: asyncio.StreamReader) -> bytes:
    """One request's head (its body is read and dropped); raises at the connection's end."""
    head = await reader.readuntil(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and int(value):
            await reader.readexactly(int(value))
    return head


class ScriptedServer:
    """An HTTP/1.1 server on loopback doing for the n-th request (from 1) what ``script(n)``
    says: ``answer`` (a getMe answer with ``Connection: keep-alive``), ``answer-close`` (that
    answer, then the socket closed right away), ``drop`` (the request read, then the socket
    closed without an answer). ``requests`` holds every request line it read."""

    def __init__(self, script: Callable[[int], Action],
                 tls: ssl.SSLContext | None = None) -> None:
        self.script, self.tls = script, tls
        self.requests: list[str] = []
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"{'https' if self.tls else 'http'}://{LOOPBACK}:{port}"

    async def __aenter__(self) -> ScriptedServer:
        self._server = await asyncio.start_server(self._serve, LOOPBACK, 0, ssl=self.tls)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await _read_request(reader)
                self.requests.append(head.split(b"\r\n", 1)[0].decode())
                action = self.script(len(self.requests))
                if action == "drop":
                    break
                writer.write(_answer(ME))
                await writer.drain()
                if action == "answer-close":
                    break
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass  # the client went away (or refused our certificate)
        finally:
            writer.close()


class LoopbackProxy:
    """A tiny HTTP proxy on loopback: ``CONNECT`` tunnels and absolute-form requests, to
    127.0.0.1 only (anything else is refused). ``heads`` holds the head of every request it
    was asked to carry."""

    def __init__(self) -> None:
        self.heads: list[str] = []
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://{LOOPBACK}:{self._server.sockets[0].getsockname()[1]}"

    async def __aenter__(self) -> LoopbackProxy:
        self._server = await asyncio.start_server(self._serve, LOOPBACK, 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
            return
        self.heads.append(head.decode("latin-1"))
        method, target, _version = head.split(b"\r\n", 1)[0].decode().split(" ", 2)
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
        else:
            parts = urlsplit(target)
            host, port = parts.hostname or "", str(parts.port or 80)
        if host != LOOPBACK:
            writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection(LOOPBACK, int(port))
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            up_writer.write(head)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()
