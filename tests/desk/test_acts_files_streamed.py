"""A file's bytes go to the storage from the temporary file, as they are read back: exactly the file's, with
their length declared (S3 refuses a signed PUT without one: 411 MissingContentLength), never with the service's
token, never held whole in memory; a storage that hangs up mid-body is told as before."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import tracemalloc
from collections.abc import AsyncIterator

import pytest
from pydantic import SecretStr

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from clients.dossiers.desk import DossierDesk
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.service import DossierService
from clients.dossiers.uploads import MOST_BYTES, Upload, upload
from clients.retry import RetryPolicy
from tests.conftest import Bot
from tests.desk.test_acts import heard
from tests.desk.test_acts_files import _dropped_files, _submit
from tests.fakes.slack import FakeSlack

STEP = 64 * 1024


class Storage:
    """A storage on loopback, over raw HTTP/1.1 as S3 takes a signed PUT: the body read as it comes (its length
    and MD5 kept, never the bytes), refused without a Content-Length or chunked (411), with a token besides the
    signature (400), or when the bytes are not what their Content-MD5 says (400 BadDigest). `hang_ups`: the first
    PUTs whose connection is dropped once 64 KiB of their body came."""

    def __init__(self, hang_ups: int = 0) -> None:
        self.hang_ups = hang_ups
        self.heard: list[dict[str, str]] = []  # each PUT's headers, their names lowercased
        self.received: list[tuple[int, str]] = []  # each body's length and base64 MD5
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Storage:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/bucket"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")[1:]
            headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in head if line)}
            self.heard.append(headers)
            if "content-length" not in headers or "transfer-encoding" in headers:
                return self._answer(writer, 411)
            if "authorization" in headers:
                return self._answer(writer, 400)
            length, got, digest = int(headers["content-length"]), 0, hashlib.md5()
            while got < length:
                chunk = await reader.read(min(STEP, length - got))
                if not chunk:
                    return writer.transport.abort()
                got += len(chunk)
                digest.update(chunk)
                if len(self.heard) <= self.hang_ups and got >= STEP:
                    return writer.transport.abort()
            checksum = base64.b64encode(digest.digest()).decode()
            self.received.append((got, checksum))
            self._answer(writer, 200 if checksum == headers.get("content-md5") else 400)
            await writer.drain()
        finally:
            writer.close()

    @staticmethod
    def _answer(writer: asyncio.StreamWriter, status: int) -> None:
        writer.write(f"HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())


def _file(size: int) -> tuple[AsyncIterator[bytes], str]:
    """`size` bytes as Slack's download hands them (64 KiB steps, the same block again: nothing held), and their MD5."""
    block = bytes(range(256)) * (STEP // 256)
    digest = hashlib.md5()
    for start in range(0, size, STEP):
        digest.update(block[:min(STEP, size - start)])

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, size, STEP):
            yield block[:min(STEP, size - start)]

    return chunks(), base64.b64encode(digest.digest()).decode()


async def _uploaded(ds: FakeDS, size: int) -> tuple[str, str]:
    """The signed id of a file of `size` bytes uploaded for a dossier, and its MD5."""
    service = DossierService(ds.url, SecretStr(ds.token), limiter=RateLimiter(1_000_000))
    file = Upload("gros.pdf", "application/pdf")
    try:
        card = await DossierDesk(service).card(ds.deposit(101, "en_instruction").number)
        chunks, checksum = _file(size)
        await file.take(chunks)
        return await upload(service, card.id, file, RetryPolicy(attempts=1, budget=30)), checksum
    finally:
        file.close()
        await service.aclose()


async def test_the_storage_gets_the_files_bytes_with_their_length_unchunked_and_no_token(
        ds: FakeDS, demarche: FakeDemarche) -> None:
    async with Storage() as storage:
        ds.acts.blobs.storage = storage.url
        signed, checksum = await _uploaded(ds, 3 * 1024 * 1024 + 17)
    assert signed
    [headers] = storage.heard
    assert headers["content-length"] == str(3 * 1024 * 1024 + 17) and "transfer-encoding" not in headers
    assert "authorization" not in headers and ds.token not in str(headers)
    assert headers["content-md5"] == checksum and headers["content-type"] == "application/pdf"  # the service's own
    assert storage.received == [(3 * 1024 * 1024 + 17, checksum)]


async def test_a_file_is_never_held_whole_on_its_way_to_the_storage(ds: FakeDS, demarche: FakeDemarche) -> None:
    """The largest file taken, spooled and PUT: the memory it costs stays a few steps of 64 KiB, not its size
    (held whole, as before, it cost 2-3 times its 20 MiB). Python's own allocations, traced: no timing."""
    async with Storage() as storage:
        ds.acts.blobs.storage = storage.url
        tracemalloc.start()
        try:
            _, checksum = await _uploaded(ds, MOST_BYTES - 1)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert storage.received == [(MOST_BYTES - 1, checksum)]
    assert peak < 4 * 1024 * 1024, f"{peak / 2**20:.1f} MiB traced for a {MOST_BYTES / 2**20:.0f} MiB file"


async def test_a_put_cut_once_mid_body_is_sent_again_whole_from_the_start(ds: FakeDS, demarche: FakeDemarche) -> None:
    """The same bytes to the same signed address: aiohttp sends an idempotent PUT once more on a connection lost,
    and the file is read again from its start (handed as a generator of its chunks instead, the PUT was not sent
    again: the person was told of a failure a second PUT mends)."""
    async with Storage(hang_ups=1) as storage:
        ds.acts.blobs.storage = storage.url
        signed, checksum = await _uploaded(ds, 2 * 1024 * 1024)
    assert signed and len(storage.heard) == 2 and storage.received == [(2 * 1024 * 1024, checksum)]


@pytest.mark.parametrize("act", ["MESSAGE", "REFUSE"])
async def test_a_storage_that_hangs_up_mid_body_is_told_and_nothing_is_done(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche, act: str) -> None:
    """Twice (the PUT sent once more, as aiohttp does on a connection lost): the words are the same as when the
    file was held whole, and no act reaches the service."""
    found = ds.deposit(101, "en_instruction")
    shared = slack.share_file("U0ALICE", "gros.pdf", "application/pdf", bytes(range(256)) * 4096)  # 1 MiB
    async with Storage(hang_ups=2) as storage:
        ds.acts.blobs.storage = storage.url
        callback = "dossier_message_modal" if act == "MESSAGE" else "dossier_decision"
        with _dropped_files() as dropped:
            await _submit(digest_bot, callback, f"{act}:{found.number}", "Hors délai", shared, f"V0H{act}")
    assert len(storage.heard) == 2 and storage.received == [] and ds.acts.done == []
    assert found.state == "en_instruction" and found.messages == [] and dropped == []
    [said] = heard(slack)
    assert "The dossier service did not answer in time: nothing was done. Try again in a minute." in said
