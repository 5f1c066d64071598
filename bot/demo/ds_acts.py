"""The dossier service's fake, acting on dossiers as the real one does (ds-graphql.md §9): typed ids,
a read-only token's refusal in the payload, ids that do not load as top-level `not_found` /
`unauthorized`, the state check then the instructeur's rights, the exact French texts (with their
typographic apostrophes), the misleading "déjà en instruction" of a decision that a required
annotation blocks, the 500 of "repasser en construction" on an SVA/SVR démarche, and the side
effects: passing into review follows the dossier, each state change but going back to construction
posts the service's own copy of its e-mail into the messagerie.

Like the real service, it can fail around an act (`failures`, one per mutation request, in order):
a 429 before the request is read, a bare 500 before anything is done or after the act is done, or
an answer so late that the caller has given up, the act done before the wait (`late-after`) or
after it (`late-before`)."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
from typing import Any, Protocol

from graphql import GraphQLError

from bot.demo.ds_blobs import Blobs
from bot.demo.ds_data import FakeAssignment, FakeDemarche, FakeDossier, FakeLabel, FakeMessage


class Nodes(Protocol):
    """How a dossier reads in an act's answer (bot.demo.ds_graph.Graph)."""

    def node(self, demarche: FakeDemarche, d: FakeDossier) -> dict[str, Any]: ...


class Service(Protocol):
    """The stand-in's side the acts need (bot.demo.ds.FakeDS)."""

    demarches: dict[int, FakeDemarche]
    now: dt.datetime
    read_only: set[str]

    url: str

    def current_token(self) -> str: ...

    def hidden(self) -> set[int]: ...

    def change(self, number: int, dossier_number: int, state: str) -> None: ...

    @property
    def graph(self) -> Nodes: ...

CONTACT = "contact@demarche.numerique.gouv.fr"
DISPLAY = {"brouillon": "brouillon", "en_construction": "en construction", "en_instruction": "en instruction",
           "accepte": "accepté", "refuse": "refusé", "sans_suite": "classé sans suite"}
#: each mutation: the states it accepts, the state it leads to, the traitement event it records
TRANSITIONS = {
    "dossierPasserEnInstruction": (("en_construction",), "en_instruction", "passe_en_instruction"),
    "dossierRepasserEnConstruction": (("en_instruction",), "en_construction", None),
    "dossierAccepter": (("en_instruction",), "accepte", "accepte"),
    "dossierRefuser": (("en_instruction",), "refuse", "refuse"),
    "dossierClasserSansSuite": (("en_instruction",), "sans_suite", "classe_sans_suite"),
    "dossierRepasserEnInstruction": (("accepte", "refuse", "sans_suite"), "en_instruction", "passe_en_instruction"),
}
#: the acts on one message: their input names the message (`messageId`), not the dossier
ON_MESSAGE = ("dossierAnnulerDemandeCorrection", "dossierSupprimerMessage")
ARCHIVING = ("dossierArchiver", "dossierDesarchiver")
READ_ONLY = "Le jeton utilisé est configuré seulement en lecture"
NO_RIGHTS = "L\u2019instructeur n\u2019a pas les droits d\u2019accès à ce dossier"
EMPTY = "Votre message ne peut être vide"
CLOSED = "Dossier Il n\u2019est pas possible d\u2019envoyer un message sur un dossier supprimé, à archiver ou en brouillon"
NOT_ARCHIVABLE = "Un dossier ne peut être déplacé dans « à archiver » qu\u2019une fois le traitement terminé"
NOT_ARCHIVED = "Un dossier non archivé ne peut pas être désarchivé"
NOT_CANCELLABLE = "La demande de correction ne peut pas être annulée"
NOT_DELETABLE = "Le message ne peut pas être supprimé"
SIRET = "Les informations du SIRET du dossier ne sont pas complètes. Veuillez réessayer plus tard."
LABEL_ON = "Ce label est déjà associé au dossier"
LABEL_OFF = "Ce label n\u2019est pas associé au dossier"
LABEL_ELSEWHERE = "Ce label n\u2019appartient pas à la même démarche que le dossier"
GROUP_SAME = "Le dossier est déjà avec le groupe instructeur: '{label}'"
GROUP_ELSEWHERE = "Le groupe instructeur '{label}' n\u2019appartient pas à la même démarche que le dossier"
NO_ANNOTATION = "L\u2018annotation \"{id}\" n\u2019existe pas"  # U+2018 here, as the service writes it (§9.1)
WRONG_KIND = "L\u2018annotation \"{id}\" n\u2019est pas de type attendu"
#: each annotation kind → the one key of AnnotationValueInput it takes
ANNOTATION_KEYS = {"Text": "text", "Textarea": "textarea", "Checkbox": "checkbox", "YesNo": "yesNo", "Date": "date",
                   "Datetime": "datetime", "IntegerNumber": "integerNumber", "DecimalNumber": "decimalNumber",
                   "DropDownList": "dropDownList", "MultipleDropDownList": "multipleDropDownList", "Repetition": "repetition"}
#: the acts the service checks only the token's scope for (no instructeurId, §10.4)
UNCHECKED = ("dossierAjouterLabel", "dossierSupprimerLabel", "dossierChangerGroupeInstructeur")


class ServerError(Exception):
    """What the service answers as a bare HTTP 500 (an unrescued exception)."""


FAILURES = ("429", "500-before", "500-after", "late-before", "late-after")


def typed_id(kind: str, number: int) -> str:
    return base64.b64encode(f"{kind}-{number}".encode()).decode()


def group_id(demarche: int, number: int) -> str:
    """A group's id: unique across démarches, as the service's are (its number is per démarche)."""
    return typed_id("GroupeInstructeur", demarche * 100 + number)


def read_id(value: str, kind: str) -> int | None:
    """A typed id, padded or not, plain or URL-safe base64, as the service decodes them."""
    try:
        text = base64.urlsafe_b64decode(value.replace("+", "-").replace("/", "_") + "=" * (-len(value) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    name, _, number = text.partition("-")
    return int(number) if name == kind and number.isdecimal() else None


def wire(schema: Any) -> None:
    for name in (*TRANSITIONS, *ON_MESSAGE, *ARCHIVING, "dossierEnvoyerMessage", "dossierBasculeSuivi", *UNCHECKED,
                 "dossierModifierAnnotations"):
        schema.mutation_type.fields[name].resolve = lambda root, info, input, _name=name: root.acts.mutate(_name, input)
    schema.mutation_type.fields["createDirectUpload"].resolve = lambda root, info, input: root.acts.direct_upload(input)


class Acts:
    def __init__(self, ds: Service) -> None:
        self.ds = ds
        self.done: list[tuple[str, dict[str, Any]]] = []  # every mutation that reached its resolver
        self._people: dict[str, int] = {}
        self._next_message = 1
        self.failures: list[str] = []  # the next mutations' failures, one each (FAILURES)
        self.late = 2.0  # how late a late answer comes, in seconds
        self._late_after = False
        self.blobs = Blobs()

    # --- failing around an act (the HTTP side, bot.demo.ds_http, asks) ----------------------
    def refused_unread(self, body: dict[str, Any]) -> bool:
        """Whether this request is a mutation refused with 429 before the service reads it (`429`)."""
        if self.failures and self.failures[0] == "429" and _mutation(body):
            self.failures.pop(0)
            return True
        return False

    def wait_before(self, body: dict[str, Any]) -> float:
        """Seconds to wait before acting on this request (a mutation with `late-before` next)."""
        if self.failures and self.failures[0] == "late-before" and _mutation(body):
            self.failures.pop(0)
            return self.late
        return 0.0

    def wait_after(self) -> float:
        """Seconds to wait before answering the act just done (`late-after`)."""
        late, self._late_after = self._late_after, False
        return self.late if late else 0.0

    # --- people and ids ---------------------------------------------------------------
    def instructeur_id(self, email: str) -> str:
        number = self._people.setdefault(email.lower(), len(self._people) + 1)
        return typed_id("Instructeur", number)

    def email_of(self, instructeur: str) -> str | None:
        number = read_id(instructeur, "Instructeur")
        return next((email for email, n in self._people.items() if n == number), None) if number else None

    def person(self, email: str) -> dict[str, str]:
        return {"id": self.instructeur_id(email), "email": email}

    def write(self, demarche: FakeDemarche, dossier: FakeDossier, email: str, body: str, **more: Any) -> FakeMessage:
        """A message in the dossier's messagerie (the applicant's, an instructeur's, or the service's copy)."""
        self.ds.now += dt.timedelta(seconds=1)
        message = FakeMessage(self._next_message, email, body, self.ds.now, **more)
        self._next_message += 1
        dossier.messages.append(message)
        dossier.updated = self.ds.now
        return message

    # --- mutations ---------------------------------------------------------------------
    def mutate(self, name: str, given: dict[str, Any]) -> dict[str, Any]:
        failure = self.failures.pop(0) if self.failures else ""
        if failure == "500-before":
            raise ServerError("failed before acting")
        self.done.append((name, given))
        answer = self._mutate(name, given)
        if failure == "500-after":
            raise ServerError("failed after acting")
        self._late_after = failure == "late-after"
        return answer

    def direct_upload(self, given: dict[str, Any]) -> dict[str, Any]:
        """`createDirectUpload`: a blob declared for a dossier the token reads (its payload has no
        `errors`: a read-only token's refusal comes as a top-level error)."""
        if self.ds.current_token() in self.ds.read_only:
            raise GraphQLError(READ_ONLY)
        self._load(given["dossierId"])
        return self.blobs.create(given, self.blobs.storage or self.ds.url.replace("/api/v2/graphql", "/storage"))

    def _mutate(self, name: str, given: dict[str, Any]) -> dict[str, Any]:
        if self.ds.current_token() in self.ds.read_only:
            return _refused(READ_ONLY)
        signed = given.get("justificatif") or given.get("attachment")
        blob_refused = self.blobs.refusal(str(signed)) if signed else None
        if blob_refused is not None:  # the blob is checked before anything else
            return _refused(blob_refused, field="message" if name == "dossierEnvoyerMessage" else "dossier")
        if name in ON_MESSAGE:
            return self._on_message(name, given)
        demarche, dossier = self._load(given["dossierId"])
        if name in UNCHECKED:
            return self._unchecked(name, demarche, dossier, given)
        email = self.email_of(given["instructeurId"])
        if email is None:
            raise GraphQLError("Instructeur not found", extensions={"code": "not_found"})
        refused = _state_refusal(name, dossier)
        if refused is not None:
            return _refused(refused)
        if not self._in_group(demarche, dossier, email):
            return _refused(NO_RIGHTS)
        return self._as_instructeur(name, demarche, dossier, email, given)

    def _as_instructeur(self, name: str, demarche: FakeDemarche, dossier: FakeDossier, email: str,
                        given: dict[str, Any]) -> dict[str, Any]:
        """A mutation whose rights and state were checked: what it does."""
        if name in TRANSITIONS:
            return self._transition(name, demarche, dossier, email, given)
        if name == "dossierModifierAnnotations":
            return self._annotate(demarche, dossier, given["annotations"])
        if name in ARCHIVING:
            dossier.archived, dossier.updated = name == "dossierArchiver", self.ds.now
            return {"dossier": self.ds.graph.node(demarche, dossier), "errors": None}
        if name == "dossierBasculeSuivi":
            (dossier.followers.add if given.get("follow", True) else dossier.followers.discard)(email.lower())
            dossier.updated = self.ds.now
            return {"dossier": self.ds.graph.node(demarche, dossier), "instructeur": self.person(email), "errors": None}
        return self._message(demarche, dossier, email, given)

    def _transition(self, name: str, demarche: FakeDemarche, dossier: FakeDossier, email: str,
                    given: dict[str, Any]) -> dict[str, Any]:
        _, state, event = TRANSITIONS[name]
        if name in ("dossierAccepter", "dossierRefuser", "dossierClasserSansSuite"):
            if dossier.siret_incomplete:
                return _refused(SIRET)
            if dossier.annotations_missing:  # `can_terminer?` fails: the service's text misleads
                return _refused(f"Le dossier est déjà {DISPLAY[dossier.state]}")
        if name == "dossierRepasserEnConstruction" and dossier.sva is not None:
            raise ServerError("AASM::InvalidTransition")
        self.ds.change(demarche.number, dossier.number, state)
        dossier.motivation = given.get("motivation")
        dossier.justificatif = self.blobs.name(given["justificatif"]) if given.get("justificatif") else None
        if event is not None:
            dossier.traitements.append((event, email, self.ds.now))
            self.write(demarche, dossier, CONTACT, f"<p>[Votre dossier nº {dossier.number} est {DISPLAY[state]}]</p>")
        if name == "dossierPasserEnInstruction":
            dossier.followers.add(email.lower())
        if name == "dossierRepasserEnInstruction":  # the decision's motivation goes, and the dossier leaves the archive
            dossier.motivation, dossier.archived = None, False
        return {"dossier": self.ds.graph.node(demarche, dossier), "errors": None}

    def _unchecked(self, name: str, demarche: FakeDemarche, dossier: FakeDossier, given: dict[str, Any]) -> dict[str, Any]:
        """Labels and groups: the token's scope is the only check on who acts (§10.4)."""
        if name == "dossierChangerGroupeInstructeur":
            return self._regroup(demarche, dossier, given["groupeInstructeurId"])
        owner, label = self._load_label(given["labelId"])
        if owner is not demarche:
            return _refused(LABEL_ELSEWHERE)
        on = label.name in dossier.labels
        if name == "dossierAjouterLabel" and on:
            return _refused(LABEL_ON)
        if name == "dossierSupprimerLabel" and not on:
            return _refused(LABEL_OFF)
        (dossier.labels.append if name == "dossierAjouterLabel" else dossier.labels.remove)(label.name)
        # a label change does not touch the dossier (its updatedAt stays, §9.3)
        return {"dossier": self.ds.graph.node(demarche, dossier), "label": {"id": given["labelId"], "name": label.name,
                                                                          "color": label.color}, "errors": None}

    def _regroup(self, demarche: FakeDemarche, dossier: FakeDossier, group: str) -> dict[str, Any]:
        ident = read_id(group, "GroupeInstructeur")
        owner = self.ds.demarches.get(ident // 100) if ident else None
        target = next((g for g in owner.groups if g.number == ident % 100), None) if owner and ident else None
        if owner is None or target is None:
            raise GraphQLError(f"GroupeInstructeur not found: {group}", extensions={"code": "not_found"})
        if owner.number in self.ds.hidden():
            raise GraphQLError("An object of type GroupeInstructeur was hidden due to permissions", extensions={"code": "unauthorized"})
        if owner is not demarche:
            return _refused(GROUP_ELSEWHERE.format(label=target.label))
        if target.number == dossier.group:
            return _refused(GROUP_SAME.format(label=target.label))
        before = next((g.label for g in demarche.groups if g.number == dossier.group), None)
        self.ds.now += dt.timedelta(seconds=1)
        dossier.group, dossier.updated = target.number, self.ds.now
        dossier.assignments.append(FakeAssignment(self.ds.now, target.label, before))
        return {"dossier": self.ds.graph.node(demarche, dossier), "errors": None}

    def _load_label(self, label_id: str) -> tuple[FakeDemarche, FakeLabel]:
        ident = read_id(label_id, "Label")
        for demarche in self.ds.demarches.values():
            for label in demarche.labels:
                if label.id == ident:
                    if demarche.number in self.ds.hidden():
                        raise GraphQLError("An object of type Label was hidden due to permissions",
                                           extensions={"code": "unauthorized"})
                    return demarche, label
        raise GraphQLError(f"Label not found: {label_id}", extensions={"code": "not_found"})

    def _annotate(self, demarche: FakeDemarche, dossier: FakeDossier, annotations: list[dict[str, Any]]) -> dict[str, Any]:
        """Each annotation on its own: those that fit are saved, the others said; both can come back (§10.4)."""
        saved, problems = [], []
        for given in annotations:
            stable = read_id(given["id"], "Champ")
            found = next((a for a in demarche.annotations if a.stable == stable), None)
            if found is None:
                problems.append({"message": NO_ANNOTATION.format(id=given["id"])})
                continue
            [(key, value)] = given["value"].items()  # @oneOf: the schema lets exactly one through
            if ANNOTATION_KEYS.get(found.kind) != key:
                problems.append({"message": WRONG_KIND.format(id=given["id"])})
                continue
            dossier.annotations[found.stable] = value.isoformat() if isinstance(value, (dt.date, dt.datetime)) else value
            saved.append(found)
        if saved:
            self.ds.now += dt.timedelta(seconds=1)
            dossier.updated = self.ds.now
        champs = {champ["id"]: champ for champ in self.ds.graph.node(demarche, dossier)["annotations"]}
        return {"annotations": [champs[typed_id("Champ", a.stable)] for a in saved], "errors": problems or None}

    def _message(self, demarche: FakeDemarche, dossier: FakeDossier, email: str, given: dict[str, Any]) -> dict[str, Any]:
        if not given.get("body", "").strip() and not given.get("attachment"):  # "" goes with a file (commentaire.rb)
            return _refused(EMPTY, field="message")
        if dossier.archived or dossier.usager_deleted:
            return _refused(CLOSED, field="message")
        correction = given.get("correction")
        message = self.write(demarche, dossier, email, given["body"])
        if given.get("attachment"):
            message.attachments.append(self.blobs.name(given["attachment"]))
        if correction and dossier.state in ("en_construction", "en_instruction") and not dossier.pending_correction:
            message.correction = correction  # elsewhere the service drops it silently (§9.2)
            dossier.pending_correction = True
            if dossier.state == "en_instruction":
                self.ds.change(demarche.number, dossier.number, "en_construction")
        return {"message": {"id": typed_id("Commentaire", message.id), "email": email, "body": message.body,
                            "createdAt": message.created.isoformat(), "attachments": []}, "errors": None}

    def _on_message(self, name: str, given: dict[str, Any]) -> dict[str, Any]:
        """Cancel a correction request, or delete a message: by their sender only, while it stands."""
        demarche, dossier, message = self._load_message(given["messageId"])
        email = self.email_of(given["instructeurId"])
        if email is None:
            raise GraphQLError("Instructeur not found", extensions={"code": "not_found"})
        if not self._in_group(demarche, dossier, email):
            return _refused(NO_RIGHTS, field="message")
        mine = message.email.lower() == email.lower() and message.discarded is None
        if name == "dossierAnnulerDemandeCorrection":
            if not mine or message.correction is None or message.resolved is not None:
                return _refused(NOT_CANCELLABLE, field="message")
        elif not mine:
            return _refused(NOT_DELETABLE, field="message")
        else:
            message.body, message.discarded = "", self.ds.now
        if message.correction is not None and message.resolved is None:  # cancelled, or resolved with its message
            message.resolved = self.ds.now
            dossier.pending_correction = False
        self.ds.now += dt.timedelta(seconds=1)
        dossier.updated = self.ds.now
        return {"message": {"id": typed_id("Commentaire", message.id), "email": message.email, "body": message.body,
                            "createdAt": message.created.isoformat(), "attachments": []}, "errors": None}

    def _load_message(self, message_id: str) -> tuple[FakeDemarche, FakeDossier, FakeMessage]:
        ident = read_id(message_id, "Commentaire")
        for demarche in self.ds.demarches.values():
            for dossier in demarche.dossiers:
                for message in dossier.messages:
                    if message.id == ident:
                        if demarche.number in self.ds.hidden():
                            raise GraphQLError("An object of type Message was hidden due to permissions",
                                               extensions={"code": "unauthorized"})
                        return demarche, dossier, message
        raise GraphQLError(f"Message not found: {message_id}", extensions={"code": "not_found"})

    def _load(self, dossier_id: str) -> tuple[FakeDemarche, FakeDossier]:
        ident = read_id(dossier_id, "Dossier")
        for demarche in self.ds.demarches.values():
            for dossier in demarche.dossiers:
                if dossier.id == ident:
                    if demarche.number in self.ds.hidden():
                        raise GraphQLError("An object of type Dossier was hidden due to permissions",
                                           extensions={"code": "unauthorized"})
                    return demarche, dossier
        raise GraphQLError(f"Dossier not found: {dossier_id}", extensions={"code": "not_found"})

    @staticmethod
    def _in_group(demarche: FakeDemarche, dossier: FakeDossier, email: str) -> bool:
        group = next((g for g in demarche.groups if g.number == dossier.group), None)
        return group is not None and email.lower() in {person.lower() for person in group.instructeurs}


def _state_refusal(name: str, dossier: FakeDossier) -> str | None:
    """The mutation's state check (its `authorized?`, before the instructeur's rights): the refusal's text, or None."""
    if name in TRANSITIONS:
        accepted, _, _ = TRANSITIONS[name]
        if dossier.state not in accepted or (name == "dossierRepasserEnInstruction" and dossier.usager_deleted):
            return f"Le dossier est déjà {DISPLAY[dossier.state]}"  # can_repasser_en_instruction? too
        if name == "dossierPasserEnInstruction" and dossier.pending_correction:
            return "Le dossier est en attente de correction"
    if name == "dossierArchiver" and dossier.state not in ("accepte", "refuse", "sans_suite"):
        return NOT_ARCHIVABLE
    if name == "dossierDesarchiver" and not dossier.archived:
        return NOT_ARCHIVED
    return None


def _mutation(body: dict[str, Any]) -> bool:
    return str(body.get("query", "")).lstrip().startswith("mutation")


def _refused(message: str, field: str = "dossier") -> dict[str, Any]:
    return {field: None, "errors": [{"message": message}]}
