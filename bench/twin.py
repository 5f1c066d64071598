"""The bot beside its twin (`bench/twin_app.py`: a bare Bolt app doing the same outside work and
nothing else), in one run, against the same loopback fakes and one Redis (issue 46).

1. CPU a command, ack to reply, of `/room list`, `/room new` and `/dossier <n>`: bursts of 300 at
   concurrency 50, the bot and the twin alternated over seven rounds (median shown; for `/dossier`
   also the twin replying with the same card as JSON with its limits checked by hand,
   `TWIN_CARD=checked`, unchecked, `TWIN_CARD=json`, and with its short card of before,
   `TWIN_CARD=short`); in the first three rounds, bursts of 100 `/room list` give the burst ack p99
   beside a bare app that only acks.
2. Ack p99 of `/room list` at 100/s, open loop (median of three interleaved 10 s runs).
3. The highest steady `/room list` rate of each (the capacity bench's steps and rule).
4. `serve` ready beside a bare Bolt app listening (the start-up bench's measure).
5. The twin with each idea of issue 46 item 4 (`TWIN_IDEAS`), alternated with the plain twin:
   CPU of `/room list` bursts.
"""

from __future__ import annotations

import os
import statistics

import redis.asyncio as aioredis

from bench.capacity import COMPARE_RATE, ROUNDS, drained, highest_steady_rate, ms
from bench.load import generate
from bench.progress import step
from bench.rooms import CONCURRENCY, REQUESTS, SERVICE_DELAY, World, cpu_seconds, wait_for
from bench.startup import ready_while_silent
from bot.demo.ds import SCHEMA, FakeDS, load_schema
from bot.demo.loopback import LoopbackServer
from bot.demo.meet import FakeMeet
from clients.dossiers.rate_limit import quota_key
from domain.dossiers.lookup import LOOKUPS
from tests.fakes.slack import FakeSlack

#: people who make rooms and who look dossiers up, in turn (the listing person's list stays empty);
#: their look-ups a minute are counted afresh before each burst (`_lookups_anew`)
PEOPLE = 50
MAKERS = [f"U0NEW{i:03d}" for i in range(PEOPLE)]
INSTRUCTEURS = [f"U0DS{i:03d}" for i in range(PEOPLE)]
#: each command: who sends it, its command and text
COMMANDS = {
    "/room list": ("U0BENCH", "/room", "list"),
    "/room new": (",".join(MAKERS), "/room", "new"),
    "/dossier <n>": (",".join(INSTRUCTEURS), "/dossier", ""),
}
#: a burst for the CPU a command (the CPU counted in nanoseconds, `cpu_seconds`)
CPU_BURST = 300
#: rounds of the CPU bursts: one burst's CPU a command moves by 10-15 % from the next's, the same
#: server's as much as two (a twin beside a copy of itself, 2026-11-28: rounds 0.85-1.02)
CPU_ROUNDS = 7
#: the ideas of issue 46 item 4, each alone, then all three
IDEAS = ("pipeline", "orjson", "lean", "pipeline,orjson,lean")
DS_LATENCY = 0.1
#: the twin's other replies to /dossier (`TWIN_CARD`), measured beside its card made with slack_sdk.models
CARDS = {"checked": "the twin with the same card as Slack's JSON, its limits checked by hand",
         "json": "the twin with the same card unchecked (Slack's JSON)", "short": "the twin with its short card of before"}


async def main() -> list[tuple[str, str, str]]:
    meet, slack, ds = FakeMeet(delay=SERVICE_DELAY), FakeSlack(), FakeDS(load_schema(SCHEMA))
    emails = {user: f"{user.lower()}@example.gouv.fr" for user in ("U0BENCH", *MAKERS, *INSTRUCTEURS)}
    for user, email in emails.items():
        slack.add_user(user, email, locale="en-US")
        meet.add_user(email)
    ds.add_demarche(101, "Démarche 101", groups={1: ("G", [emails[user] for user in INSTRUCTEURS])})
    number = ds.deposit(101).number
    commands = {name: (user, command, text or str(number)) for name, (user, command, text) in COMMANDS.items()}
    ds_server = LoopbackServer(ds.asgi()).start()
    ds.latency = DS_LATENCY
    # the bot paces its dossier requests at the service's allowance (400 a minute): not what is measured here
    dossiers = {"DS_API_URL": f"{ds_server.url}/api/v2/graphql", "DS_API_TOKEN": ds.token, "DS_REQUESTS_PER_MINUTE": "100000"}
    try:
        with World(meet, slack) as world:
            return await _measure(world, slack, commands, dossiers)
    finally:
        ds_server.stop()


async def _burst(base: str, process, slack: FakeSlack, command: tuple[str, str, str], *, wait: bool,
                 count: int = REQUESTS, server: str = "") -> tuple[dict, float]:
    """One closed-loop burst of `server`; the ack latencies and the CPU a command (until every reply when `replies`).
    Every server's replies land in the one fake Slack: a shortfall names the server it was counted for."""
    user, name, text = command
    answered, used = replies(slack), cpu_seconds(process)
    result = await generate(base, 1, 1, slack.response_url(), "--burst", str(count), "--command", name, "--text", text,
                            connections=CONCURRENCY, user=user)
    if wait:
        try:
            await wait_for(lambda: replies(slack) >= answered + count, timeout=60)
        except RuntimeError:
            raise RuntimeError(f"{server}: {replies(slack) - answered} replies to {count} {name} {text} within 60 s; acked "
                               f"{result['answered']}, the generator's failures {result['failures']}, Slack's "
                               f"refusals {slack.refusals[-3:]}") from None
    else:  # what came within 10 s, said beside the figure
        await drained(slack, answered + count, 10)
        result["replies"] = replies(slack) - answered
    return result, (cpu_seconds(process) - used) / count


async def _lookups_anew(redis_url: str) -> None:
    """Forget each person's look-ups this minute: a round asks the bot for 6 cards a person, five
    quick rounds within a minute pass its 30 (`LOOKUPS_PER_MINUTE`), and a refusal costs less than a
    card — it was counted as the bot's CPU a card until 2026-11-28 (a quicker round's last burst
    was all refusals)."""
    redis = aioredis.Redis.from_url(redis_url)
    try:
        spent = [name async for name in redis.scan_iter(match=quota_key("*", LOOKUPS, "*"))]
        if spent:
            await redis.delete(*spent)
    finally:
        await redis.aclose()


def _all_cards(server: str, bodies: list[dict]) -> None:
    """A burst's replies are all cards (a card has buttons; a refusal, a line), else its figure is not a card's CPU."""
    lines = [body for body in bodies if not any(block.get("type") == "actions" for block in body.get("blocks") or ())]
    if lines:
        raise RuntimeError(f"{server}: {len(lines)} of {len(bodies)} /dossier replies were not cards, e.g. {lines[0]}")


def replies(slack: FakeSlack) -> int:
    """Replies through `response_url`, and the private messages a reply falls back to when Slack
    (here, its fake, in this busy process) does not take one there."""
    return len(slack.responses) + len(slack.messages)


async def _measure(world: World, slack: FakeSlack, commands: dict, dossiers: dict[str, str]) -> list[tuple[str, str, str]]:
    load = f"load {os.getloadavg()[0]:.1f}"
    servers = {"roombot": world.start(["-m", "bot", "serve"], extra=dossiers),
               "twin": world.start(["bench/twin_app.py"], extra=dossiers),
               "bare": world.start(["bench/bare_app.py", "aiohttp"], bare=True)}
    processes = dict(zip(servers, world.processes, strict=True))
    # the twin's other replies to /dossier: the same card unchecked, and the three small blocks it sent before
    cards = {}
    for card, name in CARDS.items():
        cards[name] = (world.start(["bench/twin_app.py"], extra={**dossiers, "TWIN_CARD": card}), world.processes[-1])
    for name, base in servers.items():  # warm: Bolt's auth.test, each person's profile and token
        for user, command, text in commands.values():
            before, count = replies(slack), len(user.split(","))
            await generate(base, 1, 1, slack.response_url(), "--burst", str(count), "--command", command, "--text", text,
                           user=user)
            if name != "bare":
                try:
                    await wait_for(lambda before=before, count=count: replies(slack) >= before + count, timeout=60)
                except RuntimeError:
                    raise RuntimeError(f"{name} answered {replies(slack) - before} of {count} {command} {text} "
                                       "within 60 s") from None

    user, command, text = commands["/dossier <n>"]
    for base, _ in cards.values():
        before, count = replies(slack), len(user.split(","))
        await generate(base, 1, 1, slack.response_url(), "--burst", str(count), "--command", command, "--text", text,
                       user=user)
        await wait_for(lambda before=before, count=count: replies(slack) >= before + count, timeout=60)

    cpu: dict[tuple[str, str], list[float]] = {}
    acks: dict[str, list[dict]] = {name: [] for name in servers}
    for round_ in range(CPU_ROUNDS):
        step("twin", f"bursts of {CPU_BURST} of each command (roombot, twin), then of {REQUESTS} /room list (and the bare "
                     f"app) in the first {ROUNDS}, round {round_ + 1} of {CPU_ROUNDS}")
        for label, command in commands.items():
            for name in ("roombot", "twin"):
                if label == "/dossier <n>":
                    await _lookups_anew(world.env["REDIS_URL"])
                answered = len(slack.responses)
                _, per_command = await _burst(servers[name], processes[name], slack, command, wait=True, count=CPU_BURST,
                                              server=name)
                if label == "/dossier <n>":
                    _all_cards(name, slack.responses[answered:])
                cpu.setdefault((name, label), []).append(per_command * 1000)
            if label == "/dossier <n>":
                for name, (base, process) in cards.items():
                    _, per_command = await _burst(base, process, slack, command, wait=True, count=CPU_BURST, server=name)
                    cpu.setdefault((name, label), []).append(per_command * 1000)
        for name in servers if round_ < ROUNDS else ():
            acks[name].append((await _burst(servers[name], processes[name], slack, commands["/room list"],
                                            wait=name != "bare"))[0])

    steady_runs: dict[str, list[dict]] = {"roombot": [], "twin": []}
    for round_ in range(ROUNDS):
        step("twin", f"roombot and twin at {COMPARE_RATE}/s for 10 s, round {round_ + 1} of {ROUNDS}")
        for name in steady_runs:
            before = len(slack.responses)
            steady_runs[name].append(await generate(servers[name], COMPARE_RATE, 10, slack.response_url()))
            await drained(slack, before + steady_runs[name][-1]["answered"], 30)
    at_rate = {name: sorted(runs, key=lambda r: r["p99_ms"] or float("inf"))[ROUNDS // 2] for name, runs in steady_runs.items()}
    capacity = {name: await highest_steady_rate(name, servers[name], slack, replies=True, suite="twin") for name in ("roombot", "twin")}

    ideas: dict[str, list[float]] = {}
    short: dict[str, list[int]] = {}  # replies missing after 10 s, per burst
    twins = {"twin": (servers["twin"], processes["twin"])}
    for idea in IDEAS:
        base = world.start(["bench/twin_app.py"], extra={**dossiers, "TWIN_IDEAS": idea})
        twins[idea] = (base, world.processes[-1])
        before = len(slack.responses)
        await generate(base, 5, 1, slack.response_url())
        await wait_for(lambda before=before: len(slack.responses) >= before + 5, timeout=60)
    for round_ in range(ROUNDS):
        step("twin", f"the twin with each idea of issue 46 item 4, /room list bursts, round {round_ + 1} of {ROUNDS}")
        for name, (base, process) in twins.items():
            result, per_command = await _burst(base, process, slack, commands["/room list"], wait=False, count=CPU_BURST)
            ideas.setdefault(name, []).append(per_command * 1000)
            # a late reply of the burst before lands in this one's 10 s: counted there, never as a negative here
            short.setdefault(name, []).append(max(0, CPU_BURST - result["replies"]))
    load += f" → {os.getloadavg()[0]:.1f}"

    step("twin", "serve until /healthz answers, beside bare Bolt apps")
    ready = ready_while_silent()
    load += f" → {os.getloadavg()[0]:.1f}"

    def median_cpu(name: str, label: str) -> float:
        return statistics.median(cpu[(name, label)])

    def against(name: str, label: str) -> str:
        """The ratio of the medians, and how far the rounds' own ratios (each burst beside the other's) spread."""
        rounds = [ours / theirs for ours, theirs in zip(cpu[("roombot", label)], cpu[(name, label)], strict=True)]
        return (f"{median_cpu(name, label):.2f} ms: {median_cpu('roombot', label) / median_cpu(name, label):.2f}× "
                f"(rounds {min(rounds):.2f}–{max(rounds):.2f})")

    def _other_cards(label: str) -> str:
        return "".join(f"; {name} {against(name, label)}" for name in CARDS.values() if (name, label) in cpu)

    def median_ack(name: str, key: str = "p99_ms") -> float:
        return statistics.median(result[key] for result in acks[name])

    faster = min(ready["uvicorn"][0], ready["aiohttp"][0])
    rows = [(f"CPU a command, ack to reply, {label} (bursts of {CPU_BURST} at concurrency {CONCURRENCY}, median of {CPU_ROUNDS}; "
             f"{load} over the suite)",
             f"roombot {median_cpu('roombot', label):.2f} ms",
             f"twin {against('twin', label)} (target ≤ 1.2×)" + _other_cards(label)) for label in commands]
    rows += [
        (f"ack p99 of /room list at {COMPARE_RATE}/s, open loop (median of {ROUNDS} × 10 s)",
         f"roombot {ms(at_rate['roombot'])} (p50 {ms(at_rate['roombot'], 'p50_ms')})",
         f"twin {ms(at_rate['twin'])} (p50 {ms(at_rate['twin'], 'p50_ms')}): "
         f"{at_rate['roombot']['p99_ms'] / at_rate['twin']['p99_ms']:.2f}× (target ≤ 1.2×)"),
        ("highest steady /room list rate, ack p99 < 500 ms, every reply within 10 s",
         f"roombot {capacity['roombot'][0]}/s (p99 {ms(capacity['roombot'][1])})",
         f"twin {capacity['twin'][0]}/s (p99 {ms(capacity['twin'][1])}) (target: at least the twin's)"),
        (f"burst ack p99 of /room list, {REQUESTS} at concurrency {CONCURRENCY} (median of {ROUNDS})",
         f"roombot {median_ack('roombot'):.0f} ms · twin {median_ack('twin'):.0f} ms",
         f"bare Bolt (aiohttp, ack only) {median_ack('bare'):.0f} ms: {median_ack('roombot') / median_ack('bare'):.2f}× "
         "(target ≤ 1.2×)"),
        ("serve until /healthz answers 200 (median of 7 starts)", f"{ready['roombot'][0]:.2f} s",
         f"bare Bolt listening: uvicorn {ready['uvicorn'][0]:.2f} s · aiohttp {ready['aiohttp'][0]:.2f} s: "
         f"{ready['roombot'][0] / faster:.2f}× the faster (target ≤ 1.5×)"),
        ("the same starts until /readyz answers 200 (the app built)", f"{ready['roombot ready'][0]:.2f} s",
         f"{ready['roombot ready'][0] / faster:.2f}× the faster bare app"),
    ]
    plain = statistics.median(ideas["twin"])
    rows += [(f"the twin with TWIN_IDEAS={idea}: CPU a /room list (median of {ROUNDS} alternated bursts)",
              f"{statistics.median(ideas[idea]):.2f} ms (replies missing: {sum(short[idea])})",
              f"the plain twin {plain:.2f} ms (replies missing: {sum(short['twin'])}): "
              f"{statistics.median(ideas[idea]) / plain:.2f}×") for idea in IDEAS]
    return rows
