"""The bot scopes the app asks for: what `check` expects a token to have and what an OAuth
install requests (manifest.yml lists the same; a test keeps them equal)."""

REQUIRED_SCOPES = frozenset({
    "commands", "chat:write", "chat:write.public", "im:write", "links:read", "links:write", "users:read",
    "users:read.email", "channels:read", "groups:read", "files:write", "channels:join",
    "channels:manage", "groups:write", "pins:write",
})
#: what only team spaces (`/dossier team`) need: an install without them still does the rest
TEAM_SPACE_SCOPES = frozenset({"channels:manage", "groups:write", "pins:write", "users:read.email"})
