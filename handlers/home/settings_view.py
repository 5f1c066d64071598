"""What Home's Settings section and its token modal show (handlers.home.settings acts on them)."""

from __future__ import annotations

from babel.dates import format_date
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    HeaderBlock,
    InputBlock,
    PlainTextInputElement,
    SectionBlock,
)
from slack_sdk.models.views import View

from clients.dossiers.accounts import DossierAccounts
from handlers.blocks import mrkdwn
from handlers.i18n import Mrkdwn, text
from handlers.on_behalf import Asker
from handlers.services import Services

SET_TOKEN = "ds_token_set"
REMOVE_TOKEN = "ds_token_remove"
TOKEN_MODAL = "ds_token_modal"
TOKEN_INPUT = "ds_token"
CHECK_SECONDS = 1.5  # the service's answer and Slack's, inside the 3 s a modal's answer has (network included)
MAX_TOKEN = 200


async def settings_blocks(services: Services, asker: Asker, lang: str) -> list[Block]:
    """The section, for an administrator; the caller decides who sees it."""
    accounts = accounts_of(services)
    if accounts is None:
        return []
    own = await accounts.tokens.about(asker.team_id)
    buttons = [ButtonElement(text=text(lang, "settings.replace" if own else "settings.give"), action_id=SET_TOKEN)]
    if own is not None:
        said = text(lang, "settings.own", person=Mrkdwn(f"<@{own.by}>"), date=format_date(own.at.date(), "long", locale=lang))
        buttons.append(ButtonElement(
            text=text(lang, "settings.remove"), action_id=REMOVE_TOKEN, style="danger",
            confirm=ConfirmObject(title=text(lang, "settings.remove_confirm_title"), text=text(lang, "settings.remove_confirm"),
                                  confirm=text(lang, "settings.remove_yes"), deny=text(lang, "settings.cancel"))))
    elif accounts.operator_serves(asker.team_id, await services.workspaces.enterprise_of(asker.team_id)):
        said = text(lang, "settings.operator")
    else:
        said = text(lang, "settings.none")
    return [HeaderBlock(text=text(lang, "settings.title")), SectionBlock(text=mrkdwn(said)), ActionsBlock(elements=buttons),
            ContextBlock(elements=[mrkdwn(text(lang, "settings.only_admins"))])]


def accounts_of(services: Services) -> DossierAccounts | None:
    return services.accounts.tokens



def token_modal(lang: str) -> View:
    return View(type="modal", callback_id=TOKEN_MODAL, title=text(lang, "settings.modal_title"),
                submit=text(lang, "settings.modal_submit"), close=text(lang, "settings.cancel"), blocks=[
                    InputBlock(block_id=TOKEN_INPUT, label=text(lang, "settings.modal_label"), hint=text(lang, "settings.modal_hint"),
                               element=PlainTextInputElement(action_id=TOKEN_INPUT, max_length=MAX_TOKEN))])
