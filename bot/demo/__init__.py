"""Stand-ins of the room, dossier and inference services, served on loopback: what `python -m bot
shell --demo` runs the bot against when nothing is configured, and what the tests run it against.
They behave like the real services (meet-api.md, ds-graphql.md, albert-api.md), awkward parts
included, and refuse what those refuse."""
