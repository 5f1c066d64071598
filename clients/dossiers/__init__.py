"""The dossier service (démarche.numérique's GraphQL API): client, pacing, counts, the digest's memory."""
