"""The team-space wing: a démarche's (or a group's) channel, standing room, digest and people, as plain data."""
