"""The bot scopes the app asks for: what `check` expects a token to have and what an OAuth
install requests (manifest.yml lists the same; a test keeps them equal). An optional scope's
feature works without it in part: `check` warns (⚠) and says what it gives."""

REQUIRED_SCOPES = frozenset({
    "commands", "chat:write", "chat:write.public", "im:write", "links:read", "links:write", "users:read",
    "users:read.email", "channels:read", "groups:read", "files:write", "channels:join",
})
#: the scopes one feature needs, with what they give: the rest works without them
OPTIONAL_SCOPES = {
    "files:read": "a file shared in a /dossier window is read with it to go to the dossier service; "
                  "without it, acts go without files",
    "groups:write": "/dossier team makes a team's private channel and invites its instructeurs into it",
    "channels:manage": "/dossier team … here invites the instructeurs into the public channel it is typed in",
    "pins:write": "/dossier team pins the team's standing room",
}
ALL_SCOPES = REQUIRED_SCOPES | frozenset(OPTIONAL_SCOPES)
