"""The room service (La Suite Meet's external API): client, tokens, what the bot remembers of rooms."""
