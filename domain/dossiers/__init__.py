"""Dossiers: look-ups, acts, news, counts, digests' content, rights, and which token reads for a
workspace — as data for the surfaces."""
