"""The card offers every dossier-level mutation the service has (issue 44's target: 17 of 17).

The service's list is read from its September 2026 schema (bot/demo/ds-schema.graphql, the stand-in's): the
mutations not deprecated whose input names a dossier or one of its messages. What the card offers
is each act's button (`ACTION_IDS`) and what its windows send besides (a file's direct upload); the
stand-in must run each one (else the tests could not act on it)."""

from __future__ import annotations

from graphql import build_schema, get_named_type

from bot.demo.ds import SCHEMA, FakeDS
from handlers.desk.card import ACTION_IDS

#: sent from the card otherwise than as an act's own button
BESIDE_BUTTONS = {"createDirectUpload": "the Message and decision windows' file input",
                  "dossierSupprimerLabel": "the Labels window (it adds and removes)"}


def dossier_mutations() -> set[str]:
    schema = build_schema(SCHEMA.read_text())
    assert schema.mutation_type is not None
    return {name for name, field in schema.mutation_type.fields.items() if not field.deprecation_reason
            and {"dossierId", "messageId"} & set(get_named_type(field.args["input"].type).fields)}


def test_the_card_offers_every_dossier_mutation_of_the_service(ds: FakeDS) -> None:
    service = dossier_mutations()
    assert len(service) == 17, sorted(service)
    offered = {act.value for act in ACTION_IDS} | set(BESIDE_BUTTONS)
    assert not offered - service, f"offered but not (or no longer) in the service's schema: {sorted(offered - service)}"
    missing = service - offered
    assert not missing, f"not offered from the card: {sorted(missing)}"
    assert ds.schema.mutation_type is not None
    unrun = sorted(name for name in offered if ds.schema.mutation_type.fields[name].resolve is None)
    assert not unrun, f"the stand-in does not run {unrun}"
