"""A stranger's `/dossier <n>` tells nothing by its delay either (issue 40 item 11): the look-up of an
existing dossier of the token's démarches reads the member list too, a second request, so every
refusal is answered no sooner than the desk's floor after the look-up began."""

from __future__ import annotations

import asyncio

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from tests.conftest import Bot, text_of
from tests.desk.conftest import dossier

FLOOR = 0.5  # seconds; the bot's is REFUSAL_FLOOR


async def test_a_refusal_comes_after_the_same_floor_whether_the_dossier_exists_or_not(
        digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    account = digest_bot.runtime.digests.operator
    assert account is not None and account.desk is not None
    account.desk.refusal_floor = FLOOR
    ds.latency = 0.1  # each request to the service takes a tenth of a second, as a real one would at least
    existing = ds.deposit(101)
    loop = asyncio.get_running_loop()
    said, took, members = {}, {}, {}
    for label, number in (("missing", 999999), ("existing", existing.number)):
        asked = sum(1 for q in ds.queries if q.get("operationName") == "getDemarcheMembers")
        started = loop.time()
        said[label] = text_of(await dossier(digest_bot, str(number), user="U0MAL")).replace(str(number), "N")
        took[label] = loop.time() - started
        members[label] = sum(1 for q in ds.queries if q.get("operationName") == "getDemarcheMembers") - asked
    assert said["missing"] == said["existing"]
    assert members == {"missing": 0, "existing": 1}  # what the delay would have told
    assert took["missing"] >= FLOOR and took["existing"] >= FLOOR, took  # a floor: never shorter, however fast the machine
