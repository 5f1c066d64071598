"""The dossier service's stand-in's resolvers: what a query reads of its démarches and dossiers.

Apart from the HTTP gates (ds_http) and the acts (ds_acts) because this is the reading side, as
the service pages it: keyset pagination on (deposit, id) — or (update, id) with `updatedSince` —
with real-looking cursors, `deletedDossiers`, `not_found` and `unauthorized` as the service words
them, and the hostile pages a test asks for.
"""

from __future__ import annotations

import base64
import datetime as dt
from bisect import bisect_right
from collections.abc import Callable
from typing import Any, Protocol

from graphql import GraphQLError

from bot.demo.ds_acts import group_id, typed_id
from bot.demo.ds_data import FakeAnnotation, FakeDemarche, FakeDossier, FakeMessage


class People(Protocol):
    def person(self, email: str) -> dict[str, str]: ...


class Store(Protocol):
    """What the resolvers read of the stand-in (bot.demo.ds.FakeDS)."""

    demarches: dict[int, FakeDemarche]
    now: dt.datetime
    hostile: dict[int, str]
    null_deleted_nodes: bool
    _next_id: int

    @property
    def acts(self) -> People: ...

    def hidden(self) -> set[int]: ...


class Graph:
    """The resolvers of `Query.demarche`, `Query.dossier` and a démarche's (deleted) dossiers."""

    def __init__(self, ds: Store) -> None:
        self.ds = ds

    def demarche(self, number: int) -> dict[str, Any]:
        if number in self.ds.hidden():
            raise GraphQLError("An object of type Demarche was hidden due to permissions", extensions={"code": "unauthorized"})
        demarche = self.ds.demarches.get(number)
        if demarche is None:
            raise GraphQLError("Demarche not found", extensions={"code": "not_found"})
        person = self.ds.acts.person
        return {"number": number, "title": demarche.title, "state": "publiee", "_fake": self,
                "administrateurs": [{"id": typed_id("Administrateur", index), "email": email}
                                    for index, email in enumerate(demarche.administrateurs, 1)],
                "labels": [_label(label) for label in demarche.labels],
                "activeRevision": _revision(demarche),
                "groupeInstructeurs": lambda info, closed=None: [
                    {"id": group_id(number, g.number), "number": g.number, "label": g.label, "closed": g.closed,
                     "instructeurs": [person(email) for email in g.instructeurs]}
                    for g in demarche.groups if closed is None or g.closed == closed]}

    def dossiers(self, number: int, first: int | None = None, after: str | None = None,
                 updatedSince: str | None = None, createdSince: str | None = None, state: str | None = None,
                 **_: Any) -> dict[str, Any]:
        hostile = self.ds.hostile.get(number)
        if hostile in ("loop", "endless", "too_many"):
            return self._hostile_page(number, hostile, after)
        demarche = self.ds.demarches[number]
        if updatedSince:
            since = _parse_time(updatedSince)
            keyed = sorted(((d.updated, d.id), d) for d in demarche.dossiers if d.updated >= since)
            keys, items = [k for k, _ in keyed], [d for _, d in keyed]
        else:
            keys, items = demarche.keys(), demarche.dossiers
            if createdSince:
                start = bisect_right(keys, (_parse_time(createdSince), -1))
                keys, items = keys[start:], items[start:]
        if state:  # `state:`: only the dossiers in that state, in the same order
            kept = [(k, d) for k, d in zip(keys, items, strict=True) if d.state == state]
            keys, items = [k for k, _ in kept], [d for _, d in kept]
        return _connection(keys, items, first, after, lambda d: self.node(demarche, d))

    def dossier(self, number: int) -> dict[str, Any]:
        """`dossier(number)`: as the service, not_found for an unknown one, unauthorized outside the token's démarches."""
        for demarche in self.ds.demarches.values():
            for dossier in demarche.dossiers:
                if dossier.number == number:
                    if demarche.number in self.ds.hidden():
                        raise GraphQLError("An object of type Dossier was hidden due to permissions",
                                           extensions={"code": "unauthorized"})
                    return self.node(demarche, dossier)
        raise GraphQLError("Dossier not found", extensions={"code": "not_found"})

    def node(self, demarche: FakeDemarche, d: FakeDossier) -> dict[str, Any]:
        group = next((g for g in demarche.groups if g.number == d.group), None)
        person = self.ds.acts.person
        return {
            "id": typed_id("Dossier", d.id), "number": d.number, "state": d.state, "archived": d.archived,
            **_dates(d),
            "datePassageEnConstruction": d.deposited.isoformat(),
            "datePassageEnInstruction": d.instructed.isoformat() if d.instructed else None,
            "dateTraitement": d.decided.isoformat() if d.decided else None,
            "datePrevisionnelleDecisionSVASVR": d.sva.isoformat() if d.sva else None,
            "groupeInstructeur": {"id": group_id(demarche.number, d.group), "number": d.group,
                                  "label": group.label if group else "défaut", "closed": False,
                                  "instructeurs": [person(email) for email in (group.instructeurs if group else [])]},
            **self._instruction(demarche, d),
            "usager": {"id": typed_id("User", d.id), "email": d.usager},
            "demarche": {"id": typed_id("Procedure", demarche.number), "number": demarche.number, "title": demarche.title,
                         "revision": _revision(demarche)},
            "instructeurs": [person(email) for email in sorted(d.followers)],
            "messages": [_message(m) for m in d.messages],
            "traitements": [{"id": typed_id("Traitement", index), "event": event, "emailAgentTraitant": agent,
                             "dateTraitement": when.isoformat()} for index, (event, agent, when) in enumerate(d.traitements, 1)],
            "motivation": d.motivation,
        }

    def _instruction(self, demarche: FakeDemarche, d: FakeDossier) -> dict[str, Any]:
        """What instructeurs keep on a dossier: labels, private annotations, avis, routings, the decision's read receipt."""
        person = self.ds.acts.person
        return {
            "labels": [_label(demarche.label(name)) for name in d.labels],
            "annotations": [_champ(a, d) for a in demarche.annotations],
            "avis": [{"id": typed_id("Avis", index), "question": "Votre avis ?", "questionLabel": None,
                      "dateQuestion": avis.asked.isoformat(), "dateReponse": avis.answered.isoformat() if avis.answered else None,
                      "reponse": None, "claimant": None, "expert": person(avis.expert), "attachments": []}
                     for index, avis in enumerate(d.avis, 1)],
            "assignments": lambda info, mode=None: [
                {"assignedAt": a.when.isoformat(), "assignedBy": None, "groupeInstructeurLabel": a.group,
                 "groupeInstructeurNumber": None, "mode": a.mode, "previousGroupeInstructeurLabel": a.previous,
                 "previousGroupeInstructeurNumber": None} for a in d.assignments if mode is None or a.mode == mode],
            "dateAccuseLectureAgreement": d.decision_read.isoformat() if d.decision_read else None,
        }

    def deleted(self, number: int, *, pending: bool, first: int | None = None, after: str | None = None,
                deletedSince: str | None = None, **_: Any) -> dict[str, Any]:
        since = _parse_time(deletedSince) if deletedSince else dt.datetime.min.replace(tzinfo=dt.UTC)
        rows = [(n, state, when) for n, state, when, is_pending in self.ds.demarches[number].deleted
                if is_pending == pending and when >= since]
        page = _connection([(when, n) for n, _, when in rows], rows, first, after, lambda d: {
            "id": str(d[0]), "number": d[0], "state": d[1], "reason": "user_request", "dateSupression": d[2].isoformat()})
        return page | {"nodes": None} if self.ds.null_deleted_nodes and not rows else page

    def _hostile_page(self, number: int, kind: str, after: str | None) -> dict[str, Any]:
        size = 150 if kind == "too_many" else 100
        nodes = []
        ds = self.ds
        for _ in range(size):  # new dossiers on every page: a store that keeps them grows without end
            ds._next_id += 1
            dossier = FakeDossier(ds._next_id, ds._next_id, "en_construction", ds.now, ds.now)
            nodes.append(self.node(ds.demarches.get(number) or FakeDemarche(number, ""), dossier))
        cursor = "Y3Vyc29y" if kind == "loop" else _cursor((ds.now, ds._next_id))
        return {"nodes": nodes, "pageInfo": {"hasNextPage": True, "endCursor": cursor, "hasPreviousPage": bool(after),
                                             "startCursor": cursor}}


def _label(label: Any) -> dict[str, Any]:
    return {"id": typed_id("Label", label.id), "name": label.name, "color": label.color}


def _revision(demarche: FakeDemarche) -> dict[str, Any]:
    return {"id": typed_id("ProcedureRevision", demarche.number), "annotationDescriptors": [
        {"__typename": f"{a.kind}ChampDescriptor", "id": typed_id("TypeDeChamp", a.stable), "label": a.label,
         "description": None, "required": a.required, "options": a.options, "otherOption": False}
        for a in demarche.annotations]}


#: each kind's champ: its GraphQL type (a long text is a TextChamp) and the field its value is read from
CHAMPS = {"Text": ("TextChamp", "value"), "Textarea": ("TextChamp", "value"), "Checkbox": ("CheckboxChamp", "value"),
          "YesNo": ("YesNoChamp", "value"), "Date": ("DateChamp", "date"), "Datetime": ("DatetimeChamp", "datetime"),
          "IntegerNumber": ("IntegerNumberChamp", "value"), "DecimalNumber": ("DecimalNumberChamp", "value"),
          "DropDownList": ("DropDownListChamp", "value"), "MultipleDropDownList": ("MultipleDropDownListChamp", "values"),
          "Repetition": ("RepetitionChamp", "rows"), "PieceJustificative": ("PieceJustificativeChamp", "files")}


def _champ(annotation: FakeAnnotation, d: FakeDossier) -> dict[str, Any]:
    kind, field = CHAMPS.get(annotation.kind, ("TextChamp", "value"))
    value = d.annotations.get(annotation.stable)
    if kind == "CheckboxChamp":
        value = bool(value)
    elif kind == "IntegerNumberChamp" and value is not None:
        value = str(value)  # BigInt
    elif field in ("values", "rows", "files"):
        value = value or []
    return {"__typename": kind, "id": typed_id("Champ", annotation.stable), "champDescriptorId": typed_id("TypeDeChamp", annotation.stable),
            "label": annotation.label, "stringValue": None if value is None else str(value), "updatedAt": d.updated.isoformat(),
            field: value}


def _connection(keys: list[Any], items: list[Any], first: int | None, after: str | None,
                node: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """A page of `items` (sorted by `keys`) after the cursor, as graphql-ruby's keyset pagination."""
    if after:
        try:
            stamp, _, ident = base64.urlsafe_b64decode(after + "=" * (-len(after) % 4)).decode().partition(";")
            position = (dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%f000Z").replace(tzinfo=dt.UTC), int(ident))
        except (ValueError, UnicodeDecodeError):
            raise GraphQLError(f'Invalid input: "{after}"') from None
        start = bisect_right(keys, position)
    else:
        start = 0
    size = min(first or 100, 100)
    window = keys[start : start + size]
    return {"nodes": [node(item) for item in items[start : start + size]],
            "pageInfo": {"hasNextPage": start + size < len(keys), "endCursor": _cursor(window[-1]) if window else None,
                         "hasPreviousPage": bool(after), "startCursor": _cursor(window[0]) if window else None}}


def _cursor(position: tuple[dt.datetime, int]) -> str:
    stamp = position[0].astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f") + "000Z"
    return base64.urlsafe_b64encode(f"{stamp};{position[1]}".encode()).decode().rstrip("=")


def _parse_time(value: str) -> dt.datetime:
    parsed = dt.datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)



def _dates(d: FakeDossier) -> dict[str, Any]:
    """When the applicant or an instructeur last changed the dossier, its pending correction, its expiry."""
    pending = [m.created for m in d.messages if m.correction and not m.resolved]
    return {
        "dateDepot": d.deposited.isoformat(), "dateDerniereModification": d.updated.isoformat(),
        "dateDerniereModificationChamps": (d.modified or d.deposited).isoformat(),
        "dateDerniereModificationAnnotations": (d.annotated or d.deposited).isoformat(),
        "dateDerniereCorrectionEnAttente": max(pending).isoformat() if pending else None,
        "dateExpiration": d.expires.isoformat() if d.expires else None,
    }


def _message(m: FakeMessage) -> dict[str, Any]:
    correction = {"reason": m.correction, "dateResolution": m.resolved.isoformat() if m.resolved else None}
    return {"id": typed_id("Commentaire", m.id), "email": m.email, "body": m.body, "createdAt": m.created.isoformat(),
            "discardedAt": m.discarded.isoformat() if m.discarded else None,
            "attachments": [{"filename": name, "contentType": "application/octet-stream", "checksum": "", "byteSize": 0,
                             "byteSizeBigInt": "0", "createdAt": m.created.isoformat(), "url": "", "virusScanResult": "safe"}
                            for name in m.attachments],
            "correction": correction if m.correction else None}
