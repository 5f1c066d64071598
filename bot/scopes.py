"""The bot scopes the app asks for: what `check` expects a token to have and what an OAuth
install requests (manifest.yml lists the same; a test keeps them equal)."""

REQUIRED_SCOPES = frozenset({
    "commands", "chat:write", "chat:write.public", "im:write", "links:read", "links:write", "users:read",
    "users:read.email", "channels:read", "groups:read", "files:write", "channels:join",
})
