"""Home's "What the bot keeps about me" (`privacy_show`: the list on Home, with Erase) and Erase
(`privacy_forget`, after Slack's confirm dialog), clicked under `/room forget me`'s answer or on
Home. Erasing twice erases nothing more."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View
from slack_sdk.web.async_client import AsyncWebClient

from handlers.blocks import Message
from handlers.core.privacy import FORGET, SHOW, erase, home_section, kept_message
from handlers.core.slack_refusals import attempted
from handlers.on_behalf import reply_privately, run_for, who
from handlers.services import Services


def register(app: AsyncApp, services: Services) -> None:
    async def section(team: str, user: str, email: str, lang: str) -> list[Block]:
        return home_section(lang)

    async def show(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)

        async def work(email: str, lang: str) -> Message:
            return await kept_message(services, asker, email, lang)

        _, said = await run_for(services, client, asker, name="privacy_show", work=work)
        if services.home.refresh is not None:
            await services.home.refresh(client, asker.team_id, asker.user_id, said)

    async def forget(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient, respond: AsyncRespond) -> None:
        await ack()
        asker = who(body)

        async def work(email: str, lang: str) -> Message:
            return await erase(services, asker, email, lang)

        _, said = await run_for(services, client, asker, name="privacy_forget", work=work)
        if said is None:
            return
        if body.get("response_url"):  # under /room forget me's answer
            await reply_privately(client, respond, asker.user_id, said, replace_original=True)
            return
        # on Home: the erased line alone, read from nothing (publishing Home as usual would read the
        # profile and get a token again); Home is built afresh the next time it is opened
        await attempted(client.views_publish(user_id=asker.user_id, view=View(type="home", blocks=said.blocks)), "views.publish")

    services.home.sections.append(section)
    app.action(SHOW)(show)
    app.action(FORGET)(forget)
