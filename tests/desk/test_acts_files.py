"""A file shared in Slack, given with a message or a decision: read from Slack with the bot's token
(files:read), uploaded to the dossier service as it asks (createDirectUpload, the PUT, the signed
id), refused in words before anything is read when the service would refuse it, no copy kept."""

from __future__ import annotations

import base64
import contextlib
import gc
import hashlib
import os
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from clients.dossiers import errors
from clients.dossiers.desk import DossierDesk
from clients.dossiers.rate_limit import RateLimiter
from tests.conftest import Bot
from tests.desk.conftest import acts, click
from tests.desk.test_acts import dms, heard
from tests.fakes.slack import FakeSlack
from tests.slack_requests import view_submission_body

PDF = b"%PDF-1.7\n" + bytes(range(256)) * 40 + b"\n%%EOF"


async def _submit(bot: Bot, callback: str, metadata: str, words: str, file: dict | None, view_id: str) -> dict:
    values: dict = {"words": {"words": {"type": "plain_text_input", "value": words}}}
    if file is not None:
        values["file"] = {"file": {"type": "file_input", "files": [file]}}
    answer = await bot.post(view_submission_body(callback, values, metadata, "U0ALICE", view_id=view_id))
    assert answer.status_code == 200
    await bot.runtime.tasks.drain(20)
    return answer.json() if answer.text else {}


def _operations(ds: FakeDS) -> list[str]:
    return [str(body.get("operationName")) for body in ds.queries]


def _held_temporary_files() -> int:
    """The files this process holds open under the temporary directory (an unnamed one shows as such)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        count += target.startswith(("/tmp", str(Path(os.environ.get("TMPDIR", "/tmp")))))
    return count


@contextlib.contextmanager
def _dropped_files() -> Iterator[list[str]]:
    """The files left open for the collector to close within the block (CPython warns of each): a temporary file
    no longer referenced is closed by the collector anyway, so only this tells that the code closed it."""
    dropped: list[str] = []
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always", ResourceWarning)
        yield dropped
        gc.collect()
    dropped += [str(w.message) for w in warned if str(w.message).startswith("unclosed file")]


async def test_a_file_goes_with_a_message_as_the_service_asks_and_no_copy_is_kept(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    await click(digest_bot, "dossier_message", str(found.number))
    [opened] = slack.called("views.open")
    assert '"file_input"' in str(opened.args["view"]).replace("'", '"')
    shared = slack.share_file("U0ALICE", "attestation.pdf", "application/pdf", PDF)
    held = _held_temporary_files()
    with _dropped_files() as dropped:
        answer = await _submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "Voici l'attestation.", shared,
                               "V0F1")
    assert answer == {}  # the window closed: nothing refused
    assert slack.downloads == [shared["id"]]
    upload = next(body for body in ds.queries if body.get("operationName") == "createDirectUpload")["variables"]["input"]
    assert upload["byteSize"] == len(PDF) and upload["checksum"] == base64.b64encode(hashlib.md5(PDF).digest()).decode()
    assert upload["contentType"] == "application/pdf" and upload["filename"] == "attestation.pdf"
    [(name, given)] = acts(ds)
    assert name == "dossierEnvoyerMessage" and given["attachment"] and found.messages[-1].attachments == ["attestation.pdf"]
    assert ds.acts.blobs.kept[1].data == PDF
    assert _held_temporary_files() == held and dropped == []  # the bytes went with the temporary file, closed
    assert any(f"Your message on dossier n° {found.number} was sent" in line for line in dms(slack))


async def test_a_decisions_justificatif(digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    shared = slack.share_file("U0ALICE", "decision.pdf", "application/pdf", PDF)
    await _submit(digest_bot, "dossier_decision", f"REFUSE:{found.number}", "Hors délai", shared, "V0F2")
    [(name, given)] = acts(ds)
    assert name == "dossierRefuser" and given["justificatif"] and found.justificatif == "decision.pdf"
    assert found.state == "refuse"


async def test_a_file_that_does_not_arrive_whole_is_refused_in_words(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                    demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    ds.acts.blobs.corrupt = True  # the storage keeps other bytes than it was sent: the service's hash check fails
    shared = slack.share_file("U0ALICE", "decision.pdf", "application/pdf", PDF)
    with _dropped_files() as dropped:
        await _submit(digest_bot, "dossier_decision", f"ACCEPT:{found.number}", "", shared, "V0F3")
    assert [name for name, _ in acts(ds)] == ["dossierAccepter"] and found.state == "en_instruction"
    assert any(f"refused the file for dossier n° {found.number}: it did not arrive whole" in line for line in heard(slack))
    assert dropped == []  # and the temporary file closed once the act was refused


async def test_the_storage_refuses_bytes_that_are_not_what_was_declared(ds: FakeDS, demarche: FakeDemarche) -> None:
    from clients.dossiers.service import DossierService
    from clients.dossiers.uploads import Upload, upload
    from clients.retry import RetryPolicy

    found = ds.deposit(101, "en_instruction")
    service = DossierService(ds.url, SecretStr(ds.token), limiter=RateLimiter(1_000_000))
    card = await DossierDesk(service).card(found.number)
    file = Upload("a.pdf", "application/pdf")

    async def chunks():
        yield PDF

    await file.take(chunks())
    file.checksum = base64.b64encode(hashlib.md5(b"other bytes").digest()).decode()  # a bad checksum
    with pytest.raises(errors.UploadRefused):
        await upload(service, card.id, file, RetryPolicy(attempts=1, budget=5))
    file.close()
    await service.aclose()
    assert ds.acts.blobs.puts == []


@pytest.mark.parametrize(("size", "mimetype", "said"), [
    (25 * 1024 * 1024, "application/pdf", "takes files under 20 MB"),
    (1000, "application/x-msdownload", "does not take files of this type (application/x-msdownload)"),
])
async def test_a_file_the_service_would_refuse_is_refused_in_the_window_before_it_is_read(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche, size: int, mimetype: str, said: str) -> None:
    found = ds.deposit(101, "en_instruction")
    shared = slack.share_file("U0ALICE", "gros.bin", mimetype, b"x" * 100)
    slack.shared_files[shared["id"]]["size"] = size  # as Slack describes it
    answer = await _submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "Voici", shared, "V0F4")
    assert answer["response_action"] == "errors" and said in answer["errors"]["file"]
    assert slack.downloads == [] and "createDirectUpload" not in _operations(ds) and acts(ds) == []


async def test_without_files_read_the_person_is_told_and_may_act_without_the_file(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    slack.scopes.discard("files:read")
    found = ds.deposit(101, "en_instruction")
    shared = slack.share_file("U0ALICE", "attestation.pdf", "application/pdf", PDF)
    answer = await _submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "Voici", shared, "V0F5")
    assert answer["response_action"] == "errors" and "files:read" in answer["errors"]["file"]
    assert "Remove the file to act without it" in answer["errors"]["file"] and acts(ds) == []
    await _submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "Voici", None, "V0F6")
    assert [name for name, _ in acts(ds)] == ["dossierEnvoyerMessage"] and slack.downloads == []


async def test_the_bots_token_goes_only_where_slack_says_the_file_is(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                     demarche: FakeDemarche) -> None:
    """A forged submission's file description is not read: only its id, and Slack's own description."""
    found = ds.deposit(101, "en_instruction")
    shared = slack.share_file("U0ALICE", "a.pdf", "application/pdf", PDF)
    forged = {**shared, "url_private": "https://attacker.example/steal", "url_private_download": "https://attacker.example/steal",
              "size": 1, "mimetype": "application/pdf"}
    await _submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "Voici", forged, "V0F7")
    assert slack.downloads == [shared["id"]] and found.messages[-1].attachments == ["a.pdf"]
    slack.shared_files[shared["id"]]["url_private_download"] = "https://attacker.example/steal"  # Slack itself, pointing away
    answer = await _submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "Encore", shared, "V0F8")
    assert slack.downloads == [shared["id"]] and len(acts(ds)) == 1
    assert "Slack did not describe this file" in answer["errors"]["file"]


async def test_a_replayed_submission_uploads_and_acts_once_and_a_read_only_token_is_said(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    import asyncio

    found = ds.deposit(101, "en_instruction")
    shared = slack.share_file("U0ALICE", "attestation.pdf", "application/pdf", PDF)
    await asyncio.gather(*(_submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "Voici", shared, "V0SAME")
                           for _ in range(3)))
    assert _operations(ds).count("createDirectUpload") == 1 and len(ds.acts.blobs.puts) == 1
    assert [name for name, _ in acts(ds)] == ["dossierEnvoyerMessage"]
    ds.read_only.add(ds.token)
    await _submit(digest_bot, "dossier_decision", f"ACCEPT:{found.number}", "", shared, "V0RO")
    assert found.state == "en_instruction" and len(ds.acts.blobs.puts) == 1
    assert any("may only read, not act" in line for line in heard(slack))


async def test_a_file_goes_with_no_words_and_no_words_without_a_file_is_refused_in_the_window(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    """The service takes an empty body with an attachment (§10.4 `Votre message ne peut être vide`)."""
    found = ds.deposit(101, "en_instruction")
    await click(digest_bot, "dossier_message", str(found.number))
    [opened] = slack.called("views.open")
    [words] = [b for b in opened.args["view"]["blocks"] if b.get("block_id") == "words"]
    assert words["optional"] is True  # else Slack itself refuses a window with a file and no words
    answer = await _submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "", None, "V0E1")
    assert answer["response_action"] == "errors" and "or attach a file" in answer["errors"]["words"] and acts(ds) == []
    shared = slack.share_file("U0ALICE", "attestation.pdf", "application/pdf", PDF)
    answer = await _submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "", shared, "V0E2")
    assert answer == {}
    [(name, given)] = acts(ds)
    assert name == "dossierEnvoyerMessage" and given["body"] == "" and found.messages[-1].attachments == ["attestation.pdf"]
    assert any(f"Your message on dossier n° {found.number} was sent" in line for line in dms(slack))
    await click(digest_bot, "dossier_delete_message", str(found.number))  # the message of a file alone, named by its file
    [updated] = slack.called("views.update")
    assert "📎 attestation.pdf" in str(updated.args["view"])
