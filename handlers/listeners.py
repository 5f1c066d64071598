"""Registers every listener module on the app, in the style of Slack's bolt-python template."""

from slack_bolt.async_app import AsyncApp

from handlers import request_ids
from handlers.core import fallback
from handlers.desk import buttons as desk_buttons
from handlers.desk import command as desk_command
from handlers.desk import editing as desk_editing
from handlers.desk import hearing as desk_hearing
from handlers.desk import hearing_home as desk_hearing_home
from handlers.desk import mine as desk_home
from handlers.digest import command as digest_command
from handlers.digest import needs as digest_needs
from handlers.digest.job import DigestJob
from handlers.home import settings as home_settings
from handlers.home import tab as home_tab
from handlers.home import upcoming as home_upcoming
from handlers.installs import uninstall
from handlers.new_room import from_message, modal, workflow_step
from handlers.previews import rooms as room_previews
from handlers.privacy import buttons as privacy_buttons
from handlers.rooms import buttons as room_buttons
from handlers.rooms import command as room_command
from handlers.services import Services
from handlers.sharing import buttons as sharing_buttons
from handlers.team import buttons as team_buttons
from handlers.team import command as team_command
from handlers.team import home as team_home


def register_listeners(app: AsyncApp, services: Services, digests: DigestJob | None) -> None:
    request_ids.register(app)  # first: every later log line of the request carries its id
    fallback.register(app, services)  # what a listener let escape still gets its person an answer
    room_command.register(app, services)
    room_buttons.register(app, services)
    sharing_buttons.register(app, services)
    home_tab.register(app, services)
    modal.register(app, services)
    from_message.register(app, services)
    workflow_step.register(app, services)
    home_upcoming.register(app, services)
    home_settings.register(app, services)
    room_previews.register(app, services)
    digest_command.register(app, services, digests)
    digest_needs.register(app, services, digests)
    desk_command.register(app, services)
    desk_buttons.register(app, services)
    desk_editing.register(app, services)
    desk_home.register(app, services)
    desk_hearing.register(app, services)
    desk_hearing_home.register(app, services)
    privacy_buttons.register(app, services)
    uninstall.register(app, services)
    team_command.register(app, services)
    team_buttons.register(app, services)
    team_home.register(app, services)
