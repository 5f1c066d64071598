"""The demo's world: the three stand-ins on loopback, with what the README and the user guide's
examples need — the person's room-service account, démarche n° 12345 (two groups, a few hundred
dossiers, some late, some with a "silence vaut accord" date, dossier n° 24680 among them with a
message from its applicant) and démarche n° 678, both administered and instructed by the person,
and an inference model that answers. Dossier numbers are the service's own, apart from démarche
numbers (n° 20001 and on), as on the real service: no number names both. Nothing leaves the machine."""

from __future__ import annotations

import contextlib
import datetime as dt
import random
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bot.demo.albert import BOOTSTRAP, FakeAlbert
from bot.demo.ds import FakeDS, load_schema
from bot.demo.ds_data import FakeAnnotation
from bot.demo.loopback import LoopbackServer
from bot.demo.meet import FakeMeet

DEMARCHE, OTHER, DOSSIER = 12345, 678, 24680
#: the first dossier's number: past every démarche's, so that no number names both
FIRST_DOSSIER = 20001


@dataclass(frozen=True)
class Demo:
    """Where the stand-ins listen, and what the bot needs set to use them."""

    environment: dict[str, str]
    folder: Path


@contextlib.contextmanager
def demo_world(email: str) -> Iterator[Demo]:
    meet, ds, albert = FakeMeet(), FakeDS(load_schema()), FakeAlbert()
    albert.replies = {"en": "Demo: more dossiers deposited than decided this week; the late ones are the first to look at.",
                      "fr": "Démo : plus de dossiers déposés que traités cette semaine ; les retards d'abord."}
    meet.add_user(email)
    _demarches(ds, email)
    servers = [LoopbackServer(app).start() for app in (meet.asgi(), ds.asgi(), albert.asgi())]
    meet.base = servers[0].url
    ds.url = f"{servers[1].url}/api/v2/graphql"
    albert.url = servers[2].url
    with tempfile.TemporaryDirectory(prefix="roombot-demo-") as folder:
        try:
            yield Demo({
                "MEET_API_URL": f"{meet.base}/external-api/v1.0", "MEET_CLIENT_ID": meet.app_config.client_id,
                "MEET_CLIENT_SECRET": meet.app_config.client_secret, "DS_API_URL": ds.url, "DS_API_TOKEN": ds.token,
                "ALBERT_API_URL": albert.url, "ALBERT_API_KEY": BOOTSTRAP, "DATA_DIR": folder,
            }, Path(folder))
        finally:
            for server in servers:
                server.stop()


def _demarches(ds: FakeDS, email: str) -> None:
    """The démarches of the examples, with dossiers of every state deposited over the last weeks."""
    now = dt.datetime.now(dt.UTC)
    ds.now = now - dt.timedelta(days=40)
    demarche = ds.add_demarche(DEMARCHE, "Aides aux associations (démo)", admins=(email,),
                               groups={1: ("Nord", [email]), 2: ("Sud", [email, "sud@example.gouv.fr"])})
    ds.add_demarche(OTHER, "Subventions vélo (démo)", admins=(email,), groups={1: ("Tous", [email])})
    demarche.label("Urgent").color = "pink_macaron"
    demarche.label("À relancer").color = "blue_ecume"
    demarche.annotations = [FakeAnnotation(1, "Text", "Suivi"), FakeAnnotation(2, "YesNo", "Pièces complètes"),
                            FakeAnnotation(3, "Date", "Visite sur place"), FakeAnnotation(4, "DecimalNumber", "Montant accordé"),
                            FakeAnnotation(5, "DropDownList", "Priorité", ["haute", "normale", "basse"]),
                            FakeAnnotation(6, "Repetition", "Versements")]
    rng = random.Random(DEMARCHE)
    ds._next_id = FIRST_DOSSIER
    states = ("en_construction", "en_instruction", "accepte", "refuse", "sans_suite")
    for index in range(240):
        # every 4 hours, 2 hours off the day: no dossier turns 7 days old (late) between two counts of the demo
        ds.now = now - dt.timedelta(days=40) + dt.timedelta(minutes=120 + index * 240)
        sva = (now + dt.timedelta(days=rng.randint(-3, 20))).date() if index % 9 == 0 else None
        ds.deposit(DEMARCHE, rng.choices(states, weights=(4, 3, 2, 1, 1))[0], group=1 + index % 2, sva=sva)
    for _ in range(30):
        ds.deposit(OTHER, rng.choice(states[:2]))
    ds._next_id = DOSSIER  # the dossier the README looks up: `/dossier 24680`
    ds.now = now - dt.timedelta(days=2)
    found = ds.deposit(DEMARCHE, "en_instruction", group=1, labels=("Urgent",))
    ds.acts.write(demarche, found, found.usager, "Bonjour, voici la pièce demandée.")
    ds.now = now
