"""Registers every listener module on the app, in the style of Slack's bolt-python template."""

from slack_bolt.async_app import AsyncApp

from handlers import (
    digest_command,
    home,
    new_room,
    request_ids,
    room_actions,
    room_command,
    share,
    unfurl,
)
from handlers.services import Services


def register_listeners(app: AsyncApp, services: Services) -> None:
    request_ids.register(app)  # first: every later log line of the request carries its id
    room_command.register(app, services)
    room_actions.register(app, services)
    share.register(app, services)
    home.register(app, services)
    new_room.register(app, services)
    unfurl.register(app, services)
    digest_command.register(app, services)
