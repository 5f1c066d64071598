"""A dossier as an instructeur works it: its card, read in one request, and the acts the service
takes from an instructeur (ds-graphql.md §9).

The service trusts the `instructeurId` an administrator's token sends (§9.1): whoever calls `act`
must have matched the acting person with one of the card's group instructeurs, read again just
before. The card reads who the applicant is only to tell their messages from the service's copies
and from instructeurs' messages; it never selects a field's value. A refused act says why in the
payload (`errors`); the reason is read from the dossier as it is afterwards where the text would
have to be parsed (`Le dossier est déjà …` in whichever language), never guessed.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import Field, ValidationError
from typing_extensions import TypedDict  # pydantic reads typing's own only from Python 3.12

from clients.dossiers import errors
from clients.dossiers.access import DemarcheAccess
from clients.dossiers.annotations import GET_ANNOTATIONS, AnnotationField, fields_of
from clients.dossiers.models import DECIDED, Dossier, GroupRef, moment_of
from clients.dossiers.queries import CARD_FIELDS, GET_DOSSIER_CARD
from clients.dossiers.service import DossierService
from clients.dossiers.uploads import CREATE_DIRECT_UPLOAD, Upload, upload
from clients.retry import RetryPolicy
from clients.tolerant import Tolerant

GET_DEMARCHE_CHOICES = """query getDemarcheChoices($demarcheNumber: Int!) {
  demarche(number: $demarcheNumber) {
    labels { id name color }
    groupeInstructeurs(closed: false) { id number label }
  }
}"""

#: an instructeur's own messages on a dossier, to choose one to delete (the others' bodies are never shown)
GET_DOSSIER_MESSAGES = """query getDossierMessages($dossierNumber: Int!) {
  dossier(number: $dossierNumber) {
    id number groupeInstructeur { number instructeurs { id email } }
    messages { id email body createdAt discardedAt attachments { filename } }
  }
}"""


class Act(StrEnum):
    """What an instructeur does to a dossier, by the mutation that does it."""

    START = "dossierPasserEnInstruction"
    ACCEPT = "dossierAccepter"
    REFUSE = "dossierRefuser"
    CLOSE = "dossierClasserSansSuite"
    REOPEN = "dossierRepasserEnConstruction"
    MESSAGE = "dossierEnvoyerMessage"
    FOLLOW = "dossierBasculeSuivi"
    ADD_LABEL = "dossierAjouterLabel"  # no instructeurId: the service checks only the token's scope (§10.4)
    REMOVE_LABEL = "dossierSupprimerLabel"  # idem
    REGROUP = "dossierChangerGroupeInstructeur"  # idem
    ANNOTATE = "dossierModifierAnnotations"
    REINSTRUCT = "dossierRepasserEnInstruction"
    ARCHIVE = "dossierArchiver"
    UNARCHIVE = "dossierDesarchiver"
    CANCEL_CORRECTION = "dossierAnnulerDemandeCorrection"
    DELETE_MESSAGE = "dossierSupprimerMessage"


DECISIONS = (Act.ACCEPT, Act.REFUSE, Act.CLOSE)
#: the acts each state allows (Message, Follow, labels, group and annotations: any state; archiving: a
#: decided dossier, not archived yet)
BY_STATE = {"en_construction": (Act.START,), "en_instruction": (Act.ACCEPT, Act.REFUSE, Act.CLOSE, Act.REOPEN),
            **{state: (Act.REINSTRUCT,) for state in DECIDED}}
#: the states a successful act leaves the dossier in
LEADS_TO = {Act.START: "en_instruction", Act.ACCEPT: "accepte", Act.REFUSE: "refuse", Act.CLOSE: "sans_suite",
            Act.REOPEN: "en_construction", Act.REINSTRUCT: "en_instruction"}
#: the acts on one message of the dossier: their input names the message, not the dossier
ON_MESSAGE = (Act.CANCEL_CORRECTION, Act.DELETE_MESSAGE)
#: whether the dossier is archived after each archiving act
ARCHIVES = {Act.ARCHIVE: True, Act.UNARCHIVE: False}
CORRECTIONS = ("incorrect", "incomplete", "outdated")
#: the acts of any state, after those of the dossier's state
ANY_STATE = (Act.MESSAGE, Act.FOLLOW, Act.ADD_LABEL, Act.REMOVE_LABEL, Act.REGROUP, Act.ANNOTATE)
#: the acts the service checks no instructeur for: the bot's own check (an instructeur of the group now) is the only one
UNCHECKED = (Act.ADD_LABEL, Act.REMOVE_LABEL, Act.REGROUP)
#: the acts whose answer is the dossier as they left it (the card's fields), so that nothing is read again
RETURN_CARD = (*UNCHECKED,)


def _mutation(act: Act, selected: str) -> str:
    name = act.value
    kind = name[0].upper() + name[1:]
    return f"""mutation {name}($input: {kind}Input!) {{
  {name}(input: $input) {{ {selected} errors {{ message }} }}
}}"""


def _selected(act: Act) -> str:
    if act is Act.MESSAGE or act in ON_MESSAGE:
        return "message { id }"
    if act is Act.ANNOTATE:
        return "annotations { id }"
    if act in RETURN_CARD:
        return f"dossier {{ {CARD_FIELDS} }}"
    return "dossier { id state archived }" if act in ARCHIVES else "dossier { id state }"


MUTATIONS = {act: _mutation(act, _selected(act)) for act in Act}
#: the documents the desk sends, by operation name (the tests validate each against the schema)
DOCUMENTS = {"getDossierCard": GET_DOSSIER_CARD, "getDemarcheChoices": GET_DEMARCHE_CHOICES,
             "getDossierAnnotations": GET_ANNOTATIONS, "getDossierMessages": GET_DOSSIER_MESSAGES,
             "createDirectUpload": CREATE_DIRECT_UPLOAD, **{act.value: document for act, document in MUTATIONS.items()}}
#: the addresses of the service's own copies of its e-mails in a messagerie (§9.3)
SERVICE_SENDERS = frozenset({"contact@demarche.numerique.gouv.fr", "contact@demarches-simplifiees.fr",
                             "contact@tps.apientreprise.fr", "contact@demarches.numerique.gouv.fr"})


class Person(Tolerant):
    id: str = ""
    email: str = ""


class Member(TypedDict, total=False):
    """One of a group's instructeurs as the service lists them: kept as a dict, for a group may list
    hundreds, and a model each was most of a card's validation (21 of 24 µs for a group of 50)."""

    id: str
    email: str


class CardGroup(GroupRef):
    id: str = ""
    instructeurs: list[Member] = Field(default_factory=list)

    def id_of(self, email: str) -> str | None:
        """The id of the first person listed with this e-mail."""
        wanted = email.strip().lower()
        return next((person["id"] for person in self.instructeurs
                     if person.get("id") and person.get("email", "").strip().lower() == wanted), None)


class Correction(Tolerant):
    reason: str = ""
    dateResolution: str | None = None


class CardMessage(Tolerant):
    id: str = ""
    email: str = ""
    createdAt: str | None = None
    discardedAt: str | None = None
    correction: Correction | None = None


class Attachment(Tolerant):
    filename: str = ""


class Written(CardMessage):
    body: str = ""
    attachments: list[Attachment] = Field(default_factory=list)  # a message may be a file alone


class Label(Tolerant):
    id: str = ""
    name: str = ""
    color: str = ""  # LabelColorEnum; a colour added later is shown by its value


class Avis(Tolerant):
    dateQuestion: str | None = None
    dateReponse: str | None = None


class Assignment(Tolerant):
    assignedAt: str | None = None
    groupeInstructeurLabel: str = ""
    previousGroupeInstructeurLabel: str | None = None


class DossierCard(Dossier):
    """One dossier as its card shows it, and what acting on it needs."""

    id: str = ""
    groupeInstructeur: CardGroup | None = None  # the group's people, with their ids
    instructeurs: list[Person] = Field(default_factory=list)  # who follows it
    usager: Person | None = None
    archived: bool = False
    messages: list[CardMessage] = Field(default_factory=list)
    labels: list[Label] = Field(default_factory=list)  # type: ignore[assignment]  # with their ids and colours
    avis: list[Avis] = Field(default_factory=list)
    assignments: list[Assignment] = Field(default_factory=list)
    dateAccuseLectureAgreement: str | None = None  # when the applicant read the decision (a démarche that asks)

    def instructeur_id(self, email: str) -> str | None:
        """The id of the dossier's group instructeur with this e-mail: the only id an act may carry."""
        return self.groupeInstructeur.id_of(email) if self.groupeInstructeur else None

    def instructeur(self, instructeur_id: str) -> Person | None:
        """The dossier's group instructeur with this id: whom an act was done as."""
        group = self.groupeInstructeur.instructeurs if self.groupeInstructeur else []
        return next((Person(id=instructeur_id, email=person.get("email", "")) for person in group
                     if person.get("id") == instructeur_id), None)

    def followed_by(self, email: str) -> bool:
        wanted = email.strip().lower()
        return any(person.email.strip().lower() == wanted for person in self.instructeurs)

    def from_applicant(self, message: CardMessage) -> bool:
        applicant = (self.usager.email if self.usager else "").strip().lower()
        return bool(applicant) and message.email.strip().lower() == applicant and not message.discardedAt

    @property
    def applicant_wrote(self) -> dt.datetime | None:
        """When the applicant last wrote (the service's copies and instructeurs' messages aside)."""
        return max((when for m in self.messages if self.from_applicant(m) and (when := moment_of(m.createdAt))), default=None)

    @property
    def unanswered(self) -> bool:
        """The last message that is not the service's own copy is the applicant's."""
        people = [m for m in self.messages if m.email.strip().lower() not in SERVICE_SENDERS and not m.discardedAt]
        return bool(people) and self.from_applicant(people[-1])

    @property
    def pending_correction(self) -> CardMessage | None:
        """The message that asked the applicant for a correction not made, cancelled or deleted yet."""
        return next((m for m in reversed(self.messages)
                     if m.id and m.correction and not m.correction.dateResolution and not m.discardedAt), None)

    def own_messages(self, email: str) -> list[CardMessage]:
        """The person's messages on the dossier that are still there (the only ones they may delete)."""
        wanted = email.strip().lower()
        return [m for m in self.messages if m.id and not m.discardedAt and m.email.strip().lower() == wanted]

    @property
    def rerouted(self) -> Assignment | None:
        """The last time the dossier went from one group to another (its first routing is none)."""
        moves = [a for a in self.assignments if a.previousGroupeInstructeurLabel and moment_of(a.assignedAt)]
        return max(moves, key=lambda a: moment_of(a.assignedAt) or dt.datetime.min.replace(tzinfo=dt.UTC), default=None)

    @property
    def decision_read(self) -> dt.datetime | None:
        return moment_of(self.dateAccuseLectureAgreement) if self.state in DECIDED else None

    def acts_for(self, email: str) -> tuple[Act, ...]:
        """What this person may do here: nothing unless an instructeur of its group. Back to
        construction is not offered on a démarche with "silence vaut accord / rejet", which the
        service does not allow (it fails there, §9.2)."""
        if self.instructeur_id(email) is None:
            return ()
        acts = [act for act in BY_STATE.get(self.state, ()) if not (act is Act.REOPEN and self.decision_due is not None)]
        if self.archived:
            acts.append(Act.UNARCHIVE)
        elif self.state in DECIDED:
            acts.append(Act.ARCHIVE)
        if self.pending_correction is not None:
            acts.append(Act.CANCEL_CORRECTION)
        if self.own_messages(email):
            acts.append(Act.DELETE_MESSAGE)
        return (*acts, *ANY_STATE)


class Choices(Tolerant):
    """What a démarche offers a dossier: its labels, its open groups."""

    labels: list[Label] = Field(default_factory=list)
    groupeInstructeurs: list[CardGroup] = Field(default_factory=list)


@dataclass(frozen=True)
class AnnotationEdit:
    """One private annotation's new value, as `dossierModifierAnnotations` takes it: the champ's id,
    the key of `AnnotationValueInput` its type takes (@oneOf: exactly one), the value."""

    id: str
    label: str  # to name it in what is said
    key: str
    value: Any


class _Messages(DossierCard):
    messages: list[Written] = Field(default_factory=list)  # type: ignore[assignment]


@dataclass(frozen=True)
class Seen:
    """A dossier as one person may see it: an administrator of its démarche, or an instructeur of
    its current group (who alone may act: `instructeur_id`)."""

    card: DossierCard
    instructeur_id: str | None
    administrator: bool


#: a refusal (no such dossier, or not theirs) is answered no sooner than this after the look-up began:
#: a stranger's look-up of an existing dossier reads the démarche's member list too (a second request),
#: which would otherwise tell them by its delay that the dossier exists (the two take 0.1–1 s each)
REFUSAL_FLOOR = 2.0


class DossierDesk:
    def __init__(self, service: DossierService, policy: RetryPolicy | None = None, refusal_floor: float = REFUSAL_FLOOR) -> None:
        self.service = service
        self.refusal_floor = refusal_floor
        # a person waits for an act: a 429 is waited out for half a minute at most, then said
        self._policy = policy or RetryPolicy(attempts=3, budget=30.0, base_delay=1.0, max_delay=10.0)

    async def card(self, number: int) -> DossierCard:
        """The dossier; `DemarcheNotFound` for one that does not exist or that the service does not
        show to an administration, `DemarcheForbidden` for one outside the token's démarches."""
        data = await self.service.query("getDossierCard", GET_DOSSIER_CARD, {"dossierNumber": number})
        try:
            return DossierCard.model_validate(data.get("dossier") or {})
        except ValidationError:
            raise errors.DossierServiceUnavailable("the dossier service sent a dossier we cannot read") from None

    async def choices(self, demarche: int) -> Choices:
        """The démarche's labels and open groups, as the service lists them now."""
        data = await self.service.query("getDemarcheChoices", GET_DEMARCHE_CHOICES, {"demarcheNumber": demarche})
        try:
            return Choices.model_validate(data.get("demarche") or {})
        except ValidationError:
            raise errors.DossierServiceUnavailable("the dossier service sent a démarche we cannot read") from None

    async def annotations(self, number: int) -> tuple[int, list[AnnotationField]]:
        """(its démarche, the dossier's private annotations now): to be shown only to an instructeur of its group."""
        return fields_of(await self.service.query("getDossierAnnotations", GET_ANNOTATIONS, {"dossierNumber": number}))

    async def messages_of(self, number: int, email: str) -> list[Written]:
        """The person's messages on the dossier still there, newest first — none unless they are an
        instructeur of its group now (read here, as every act reads it), and none for a dossier that
        does not exist or is outside the token's démarches: the same answer, so that it reveals nothing."""
        try:
            data = await self.service.query("getDossierMessages", GET_DOSSIER_MESSAGES, {"dossierNumber": number})
        except (errors.DemarcheNotFound, errors.DemarcheForbidden):
            return []
        try:
            found = _Messages.model_validate(data.get("dossier") or {})
        except ValidationError:
            raise errors.DossierServiceUnavailable("the dossier service sent a dossier we cannot read") from None
        if found.instructeur_id(email) is None:
            return []
        own = {m.id for m in found.own_messages(email)}
        return [m for m in reversed(found.messages) if m.id in own]

    async def seen_by(self, number: int, email: str, access: DemarcheAccess) -> Seen | None:
        """The dossier when `email` may see it, read now (the card, and the démarche's member list
        unless they are an instructeur of its group); None for anyone else — and for a dossier that
        does not exist, after the same delay (`refusal_floor`), so that the answer reveals nothing."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        seen = await self._seen_by(number, email, access)
        if seen is None:
            await asyncio.sleep(max(0.0, started + self.refusal_floor - loop.time()))
        return seen

    async def _seen_by(self, number: int, email: str, access: DemarcheAccess) -> Seen | None:
        try:
            card = await self.card(number)
        except (errors.DemarcheNotFound, errors.DemarcheForbidden):
            return None
        if card.demarche is None:
            return None
        instructeur = card.instructeur_id(email)
        administrator = instructeur is None and (await access.membership(card.demarche.number)).administrator(email)
        if instructeur is None and not administrator:
            return None
        return Seen(card, instructeur, administrator)

    async def act(self, act: Act, card: DossierCard, instructeur_id: str, *, text: str = "", correction: str | None = None,
                  follow: bool = True, choice: str = "", edits: tuple[AnnotationEdit, ...] = (), message_id: str = "",
                  file: Upload | None = None) -> DossierCard | None:
        """Does `act` as the instructeur `instructeur_id`; the dossier as the act left it (None after a
        correction asked, which may have changed its state: to be read again). `choice`: the label or
        group id; `edits`: the annotations' new values; `message_id`: the message an act on one acts
        on, read from the dossier by the caller; `file`: uploaded first, given as a message's attachment
        or a decision's justificatif. Raises the service's refusal, typed; a failure after the mutation
        left as `OutcomeUnknown` (it may have been done), any other as itself (nothing was done)."""
        payload = _payload(act, card, instructeur_id, text=text, correction=correction, follow=follow, choice=choice, edits=edits,
                           message_id=message_id)
        if file is not None and (act in DECISIONS or act is Act.MESSAGE):
            signed = await upload(self.service, card.id, file, self._policy)
            payload["justificatif" if act in DECISIONS else "attachment"] = signed
        answer = await self._sent(act, payload)
        said = "; ".join(str(problem.get("message", "")) for problem in answer.get("errors") or [])[:300]
        if act is Act.ANNOTATE and not _whole_refusal(said, answer):
            return _annotated(card, edits, answer, said)
        if said:
            raise await self._refusal(act, card, said)
        if act in RETURN_CARD:
            return _card_of(answer.get("dossier"))
        return _left(act, card, instructeur_id, answer, correction=correction, follow=follow, message_id=message_id)

    async def _sent(self, act: Act, payload: dict[str, Any]) -> dict[str, Any]:
        """The mutation sent: its payload's answer; the failures typed as `act` says what they mean."""
        try:
            data = await self.service.query(act.value, MUTATIONS[act], {"input": payload}, policy=self._policy)
        except NOT_SENT:
            raise  # it never reached the service, or was refused unread: nothing was done
        except (errors.DemarcheNotFound, errors.DemarcheForbidden) as error:
            # the dossier was just read: the label or group is nowhere. Only the message tells which object it
            # was: the service gives the dossier's and the label's or group's the same code (`not_found`,
            # `unauthorized`); its text names the type (ds-graphql.md §9.1, §10.1)
            if act in UNCHECKED and "dossier" not in str(error).lower():
                raise errors.NotOfDemarche(str(error)) from None
            raise
        except errors.DossierServiceUnavailable as error:  # a 5xx, an unreadable answer, or none: it may be done
            raise errors.OutcomeUnknown(str(error), answered=not isinstance(error, errors.NoAnswer)) from None
        return data.get(act.value) or {}

    async def may_write(self) -> bool:
        """Whether the token may act, asked without changing anything: a follow of a dossier that
        exists nowhere is refused for a read-only token before the dossier is looked for (§9.1)."""
        nowhere = {"dossierId": typed_id("Dossier", 0), "instructeurId": typed_id("Instructeur", 0), "follow": True}
        try:
            data = await self.service.query(Act.FOLLOW.value, MUTATIONS[Act.FOLLOW], {"input": nowhere})
        except errors.DemarcheNotFound:
            return True
        return not any(READ_ONLY in _said(problem.get("message")) for problem in (data.get(Act.FOLLOW.value) or {}).get("errors") or [])

    async def _refusal(self, act: Act, card: DossierCard, said: str) -> errors.ActRefused:
        text = _said(said)
        own = _own_refusal(act, text, said)
        if own is not None:
            return own
        if READ_ONLY in text:
            return errors.ReadOnlyToken(said)
        if act in UNCHECKED:
            return _unchecked_refusal(said)
        if NO_RIGHTS in text:
            return errors.NotInstructeur(said)
        if "attente de correction" in text:
            return errors.CorrectionPending(said)
        if "siret" in text:
            return errors.SiretIncomplete(said)
        if "message" in text and ("vide" in text or "pas possible" in text):
            return errors.MessagingClosed(said)
        if "déjà" in text or "already" in text:
            return await self._moved_on(act, card, said)
        return errors.ActRefused(said)

    async def _moved_on(self, act: Act, card: DossierCard, said: str) -> errors.ActRefused:
        """`Le dossier est déjà …`: what the dossier's state now says of it, rather than the text's words."""
        now = await self.card(card.number)
        if act in DECISIONS and now.state == "en_instruction":
            return errors.AnnotationsMissing(said)
        if act is Act.REINSTRUCT and now.state in DECIDED:  # decided still: the applicant's account is gone (§9.2)
            return errors.ApplicantGone(said)
        return errors.WrongState(now.state)


def _unchecked_refusal(said: str) -> errors.ActRefused:
    """A label's or a group's refusal (§10.4): another démarche's, or already so. Told by its words: a
    payload's `ValidationError` has a message and no code."""
    text = _said(said)
    if "même démarche" in text:
        return errors.NotOfDemarche(said)
    if "associé" in text or "déjà avec" in text:  # "Ce label est déjà / n'est pas associé", "déjà avec le groupe"
        return errors.AlreadySo(said)
    return errors.ActRefused(said)


def _payload(act: Act, card: DossierCard, instructeur_id: str, *, text: str, correction: str | None, follow: bool, choice: str,
             edits: tuple[AnnotationEdit, ...], message_id: str) -> dict[str, Any]:
    """The mutation's input: the dossier (or the message), the instructeur — but labels and groups carry
    none (the service takes none, §10.4) — and what the act sends beyond."""
    if act in ON_MESSAGE:
        return {"messageId": message_id, "instructeurId": instructeur_id}
    payload: dict[str, Any] = {"dossierId": card.id}
    if act not in UNCHECKED:
        payload["instructeurId"] = instructeur_id
    if act in (Act.ADD_LABEL, Act.REMOVE_LABEL):
        payload["labelId"] = choice
    elif act is Act.REGROUP:
        payload["groupeInstructeurId"] = choice
    elif act is Act.ANNOTATE:
        payload["annotations"] = [{"id": edit.id, "value": {edit.key: edit.value}} for edit in edits]
    elif act in DECISIONS:
        payload["motivation"] = text
    elif act is Act.MESSAGE:
        payload["body"] = text
        if correction in CORRECTIONS:
            payload["correction"] = correction
    elif act is Act.FOLLOW:
        payload["follow"] = follow
    return payload


def _card_of(dossier: object) -> DossierCard:
    try:
        return DossierCard.model_validate(dossier or {})
    except ValidationError:
        raise errors.OutcomeUnknown("the dossier service sent a dossier we cannot read", answered=True) from None


def _annotated(card: DossierCard, edits: tuple[AnnotationEdit, ...], answer: dict[str, Any], said: str) -> DossierCard:
    """The annotations' answer: all saved (the card, which shows none of them, unchanged), or which
    were and which not, with the service's words (its ids named by their labels)."""
    if not said:
        return card
    kept = {str(champ.get("id")) for champ in answer.get("annotations") or [] if isinstance(champ, dict)}
    for edit in edits:
        said = said.replace(f'"{edit.id}"', f"« {edit.label} »")
    saved = tuple(edit.label for edit in edits if edit.id in kept)
    raise errors.AnnotationsRefused(said, saved=saved, unsaved=tuple(edit.label for edit in edits if edit.id not in kept))


def _whole_refusal(said: str, answer: dict[str, Any]) -> bool:
    """Whether the service refused the annotations as a whole (the token, the instructeur), not field by field."""
    text = _said(said)
    return not answer.get("annotations") and (READ_ONLY in text or NO_RIGHTS in text)


def _own_refusal(act: Act, text: str, said: str) -> errors.ActRefused | None:
    """The refusals of a file given with an act, and of the acts on the archive and on one message."""
    if any(blob in text for blob in BLOB_REFUSALS):
        return errors.UploadRefused(said)
    if act in ARCHIVES and "archiv" in text:
        return errors.NotArchivable(said)
    if act is Act.CANCEL_CORRECTION and "correction" in text:
        return errors.CorrectionNotCancellable(said)
    if act is Act.DELETE_MESSAGE and "supprimé" in text:
        return errors.MessageNotDeletable(said)
    return None


def _after(act: Act, card: DossierCard, state: str, instructeur_id: str) -> DossierCard:
    """The card as the act left it, without reading it again: its new state since now (and, for a
    review started, followed by whoever started it, as the service does)."""
    now = dt.datetime.now(dt.UTC).isoformat()
    changed: dict[str, Any] = {"state": state}
    if state == "en_instruction":
        changed["datePassageEnInstruction"] = now
    elif state == "en_construction":
        changed["datePassageEnConstruction"] = now
    else:
        changed["dateTraitement"] = now
    if act is Act.START:
        me = card.instructeur(instructeur_id)
        changed["instructeurs"] = [*card.instructeurs, *([Person(email=me.email)] if me and not card.followed_by(me.email) else [])]
    return card.model_copy(update=changed)


def _left(act: Act, card: DossierCard, instructeur_id: str, answer: dict[str, Any], *, correction: str | None,
          follow: bool, message_id: str) -> DossierCard | None:
    """The dossier as the act left it; None when only reading it again can tell."""
    if act in LEADS_TO:
        return _after(act, card, str((answer.get("dossier") or {}).get("state") or LEADS_TO[act]), instructeur_id)
    if act is Act.MESSAGE and correction in CORRECTIONS:
        return None  # a correction may have moved the dossier back to construction
    return _without_state(act, card, instructeur_id, answer, follow=follow, message_id=message_id)


def _without_state(act: Act, card: DossierCard, instructeur_id: str, answer: dict[str, Any], *, follow: bool,
                   message_id: str) -> DossierCard:
    """The card as an act that changes no state left it, without reading it again (one request
    fewer): archived or not, followed or not, a message added, deleted, or its correction cancelled."""
    now = dt.datetime.now(dt.UTC).isoformat()
    acting = card.instructeur(instructeur_id)
    me = acting.email if acting else ""
    if act in ARCHIVES:
        return card.model_copy(update={"archived": ARCHIVES[act]})
    if act is Act.FOLLOW:
        others = [p for p in card.instructeurs if p.email.strip().lower() != me.strip().lower()]
        return card.model_copy(update={"instructeurs": [*others, *([Person(email=me)] if follow else [])]})
    if act is Act.MESSAGE:
        sent = CardMessage(id=str((answer.get("message") or {}).get("id") or ""), email=me, createdAt=now)
        return card.model_copy(update={"messages": [*card.messages, sent]})
    return card.model_copy(update={"messages": [_message_after(act, m, now) if m.id == message_id else m for m in card.messages]})


def _message_after(act: Act, message: CardMessage, now: str) -> CardMessage:
    """A message deleted (its correction resolved with it), or its correction request cancelled."""
    changed: dict[str, Any] = {"discardedAt": now} if act is Act.DELETE_MESSAGE else {}
    if message.correction is not None:
        changed["correction"] = message.correction.model_copy(update={"dateResolution": now})
    return message.model_copy(update=changed)


#: failures of a mutation that never reached the service or were refused unread (a 429)
NOT_SENT = (errors.DossierServiceUnreachable, errors.RateLimited, errors.OverShare)
READ_ONLY = "configuré seulement en lecture"
NO_RIGHTS = "n'a pas les droits"
#: the service's refusals of a file given with an act (`validate_blob`, §10.4), lower case
BLOB_REFUSALS = ("correctement téléversé", "identifiant du fichier téléversé", "hash du fichier téléversé")


def _said(text: object) -> str:
    """The service's text, lower case, with its typographic apostrophes (’ and ‘) made plain."""
    return str(text or "").replace("\u2019", "'").replace("\u2018", "'").lower()


def typed_id(kind: str, number: int) -> str:
    """The service's ids: padded base64 of `<Class>-<db id>` (§9.3)."""
    return base64.b64encode(f"{kind}-{number}".encode()).decode()

