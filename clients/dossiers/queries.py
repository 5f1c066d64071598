"""The GraphQL documents the dossier client sends (each validated against the service's schema
by the tests), and the page size they ask for."""

PAGE_SIZE = 100  # the server's maximum; larger values are silently capped

# the dates of what needs doing (how long in this state, the decision's date, the expected one under
# "silence vaut accord / rejet") and the group come with each dossier the walks read anyway
_DOSSIER_PAGE = """
    pageInfo { hasNextPage endCursor }
    nodes {
      number state dateDepot datePassageEnConstruction datePassageEnInstruction dateTraitement
      datePrevisionnelleDecisionSVASVR groupeInstructeur { number }
    }"""
_DELETED_PAGE = """
    pageInfo { hasNextPage endCursor }
    nodes { number }"""

GET_DEMARCHE = f"""query getDemarche($demarcheNumber: Int!, $after: String) {{
  demarche(number: $demarcheNumber) {{
    number title state
    dossiers(first: {PAGE_SIZE}, after: $after) {{{_DOSSIER_PAGE}
    }}
  }}
}}"""

GET_UPDATED_DOSSIERS = f"""query getUpdatedDossiers($demarcheNumber: Int!, $updatedSince: ISO8601DateTime!, $after: String) {{
  demarche(number: $demarcheNumber) {{
    number title state
    dossiers(first: {PAGE_SIZE}, after: $after, updatedSince: $updatedSince) {{{_DOSSIER_PAGE}
    }}
  }}
}}"""



def _deleted_query(operation: str, connection: str) -> str:
    """Deleted and pending-deleted dossiers are two connections with the same arguments."""
    return f"""query {operation}($demarcheNumber: Int!, $deletedSince: ISO8601DateTime!, $after: String) {{
  demarche(number: $demarcheNumber) {{
    number title state
    {connection}(first: {PAGE_SIZE}, after: $after, deletedSince: $deletedSince) {{{_DELETED_PAGE}
    }}
  }}
}}"""


GET_DELETED_DOSSIERS = _deleted_query("getDeletedDossiers", "deletedDossiers")
GET_PENDING_DELETED_DOSSIERS = _deleted_query("getPendingDeletedDossiers", "pendingDeletedDossiers")

GET_DEMARCHE_TITLE = """query getDemarcheTitle($demarcheNumber: Int!) {
  demarche(number: $demarcheNumber) { number title }
}"""

GET_DEMARCHE_MEMBERS = """query getDemarcheMembers($demarcheNumber: Int!) {
  demarche(number: $demarcheNumber) {
    number title
    administrateurs { email }
    groupeInstructeurs { number label closed instructeurs { email } }
  }
}"""

# A dossier link's preview: what the instructeur's own list shows, never the usager (no name, no
# e-mail, no field value is selected)
GET_DOSSIER = """query getDossier($dossierNumber: Int!) {
  dossier(number: $dossierNumber) {
    number state dateDepot dateDerniereModification datePassageEnConstruction datePassageEnInstruction dateTraitement
    demarche { number title }
    groupeInstructeur { number label }
    labels { name }
  }
}"""

#: what the desk's card shows (`clients/dossiers/desk.py`), read by the look-up and by the acts' answers that
#: return the dossier (labels, group, annotations): what the service shows an instructeur, never a field the
#: applicant filled in. Here, with nothing imported, so that `bench/twin_app.py` sends the very same document
CARD_FIELDS = """id number state dateDepot datePassageEnConstruction datePassageEnInstruction dateTraitement
    datePrevisionnelleDecisionSVASVR dateAccuseLectureAgreement
    demarche { number title }
    groupeInstructeur { id number label instructeurs { id email } }
    instructeurs { email }
    usager { email }
    labels { id name color }
    avis { dateQuestion dateReponse }
    assignments { assignedAt groupeInstructeurLabel previousGroupeInstructeurLabel }
    archived
    messages { id email createdAt discardedAt correction { reason dateResolution } }"""
GET_DOSSIER_CARD = f"""query getDossierCard($dossierNumber: Int!) {{
  dossier(number: $dossierNumber) {{
    {CARD_FIELDS}
  }}
}}"""

#: Every document the client can send, by operation name (the tests validate each against the schema).
QUERIES = {
    "getDemarcheTitle": (GET_DEMARCHE_TITLE, ""),
    "getDemarcheMembers": (GET_DEMARCHE_MEMBERS, ""),
    "getDossier": (GET_DOSSIER, ""),
    "getDemarche": (GET_DEMARCHE, "dossiers"),
    "getUpdatedDossiers": (GET_UPDATED_DOSSIERS, "dossiers"),
    "getDeletedDossiers": (GET_DELETED_DOSSIERS, "deletedDossiers"),
    "getPendingDeletedDossiers": (GET_PENDING_DELETED_DOSSIERS, "pendingDeletedDossiers"),
}
