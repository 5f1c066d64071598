"""Registers every listener module on the app, in the style of Slack's bolt-python template."""

from slack_bolt.async_app import AsyncApp

from handlers import room_actions, room_command, share
from handlers.services import Services


def register_listeners(app: AsyncApp, services: Services) -> None:
    room_command.register(app, services)
    room_actions.register(app, services)
    share.register(app, services)
