"""Who may set up a team space, read again at each run and each click from the person's Slack profile
and the service's lists now: an administrator of the démarche; for a group's space, an instructeur of it."""

from __future__ import annotations

from bot.demo.ds import FakeDS
from tests.conftest import text_of
from tests.fakes.slack import FakeSlack
from tests.team.conftest import ADA, SUD, click, made_channels, team


async def test_an_instructeur_of_another_group_cannot_set_up_a_groups_space(digest_bot, demarche, slack: FakeSlack):
    said = text_of(await team(digest_bot, "101 group 1", user="U0SUD"))
    assert "Only an administrator of démarche n° 101, or an instructeur of this group" in said
    assert not made_channels(slack)


async def test_an_instructeur_sets_up_their_groups_space_named_after_it(digest_bot, demarche, slack: FakeSlack, meet, redis):
    meet.add_user(SUD)
    said = text_of(await team(digest_bot, "101 group 2", user="U0SUD"))
    assert "ready" in said
    [info] = made_channels(slack).values()
    assert info["name"] == "dn-101-subvention-velo-sud"
    assert set(info["members"]) - {"U0BOT"} == {"U0SUD"}  # the group's instructeurs only


async def test_an_instructeur_cannot_set_up_the_whole_demarches_space(digest_bot, demarche, slack: FakeSlack):
    said = text_of(await team(digest_bot, "101", user="U0ALICE"))
    assert "Only an administrator of démarche n° 101" in said and not made_channels(slack)


async def test_a_removed_administrator_can_no_longer_complete_or_call(digest_bot, demarche, ds: FakeDS, slack: FakeSlack):
    await team(digest_bot, "101")
    [channel] = made_channels(slack)
    ds.demarches[101].administrateurs.remove(ADA)
    said = text_of(await team(digest_bot, "101"))
    assert "Only an administrator" in said
    refused = text_of(await click(digest_bot, "team_call", "101:", channel=channel))
    assert "Only someone who works on démarche n° 101" in refused
    assert not [m for m in slack.posted(channel) if "<!channel>" in str(m)]


async def test_a_group_the_demarche_does_not_have_is_named(digest_bot, demarche, slack: FakeSlack):
    said = text_of(await team(digest_bot, "101 group 7"))
    assert "no group n° 7 (its groups: 1, 2)" in said


async def test_a_groups_team_is_called_by_its_instructeurs_not_by_another_groups(digest_bot, demarche, slack: FakeSlack):
    await team(digest_bot, "101 group 1")
    [channel] = made_channels(slack)
    refused = text_of(await click(digest_bot, "team_call", "101:1", user="U0SUD", channel=channel))  # group 2's
    assert "Only someone who works on démarche n° 101" in refused
    assert not [m for m in slack.posted(channel) if "<!channel>" in str(m)]
    await click(digest_bot, "team_call", "101:1", user="U0BOB", channel=channel)  # group 1's, its address in another case
    assert len([m for m in slack.posted(channel) if "<!channel>" in str(m)]) == 1
