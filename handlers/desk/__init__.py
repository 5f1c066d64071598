"""The instructeur's desk: look a dossier up, act on it as yourself, hear what concerns you (`/dossier`)."""
