"""The daily digest as Slack messages: one compact section per démarche, split under the block cap."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from babel.dates import format_date
from babel.numbers import format_decimal
from slack_sdk.models.blocks import (
    Block,
    ButtonElement,
    ContextBlock,
    HeaderBlock,
    SectionBlock,
)

from clients.dossiers.models import DECIDED, STATES
from clients.dossiers.records import Needs
from domain.dossiers.lines import DigestFailure, DigestLine
from handlers.blocks import MAX_BLOCKS, Message, mrkdwn
from handlers.i18n import LANGUAGES, Mrkdwn, counted, text

BARS = "▁▂▃▄▅▆▇█"
SHOW_NEEDS = "digest_show_needs"
SECTIONS_PER_MESSAGE = MAX_BLOCKS - 3  # room for a header, the summary and a "part n of m" line


def named_demarches(lang: str, numbers: Sequence[int], *, of: bool = False) -> Mrkdwn:
    """Démarches named in a sentence, with the article the language needs: `la démarche n° 101`,
    `les démarches n° 101 et n° 102`; `of` after "a digest": `de la démarche n° 101`, `des démarches …`."""
    return named_labels(lang, [f"n° {n}" for n in numbers], of=of)


def named_labels(lang: str, labels: Sequence[str], *, of: bool = False) -> Mrkdwn:
    """The same for démarches already written as Slack text (`n° 101 (groupe Nord)`)."""
    from babel.lists import format_list

    listed = format_list(list(labels), locale=lang if lang in LANGUAGES else "en")
    return Mrkdwn(counted(lang, "demarches.of" if of else "demarches.named", len(labels), numbers=Mrkdwn(listed)))


def sparkline(values: list[int | None]) -> str:
    """`▁▂▃▄▅▆▇█` from the lowest to the highest known value; a gap where a day is unknown."""
    known = [value for value in values if value is not None]
    if not known:
        return ""
    low, span = min(known), max(known) - min(known)
    return "".join(" " if v is None else BARS[round((v - low) * (len(BARS) - 1) / span) if span else 0] for v in values)


def digest_messages(lang: str, day: dt.date, lines: list[DigestLine], failures: list[DigestFailure],
                    summary: str | None = None) -> list[Message]:
    title = text(lang, "digest.title", date=format_date(day, format="long", locale=lang))
    sections: list[Block] = [SectionBlock(text=mrkdwn(_line(lang, line)), accessory=_show_button(lang, line)) for line in lines]
    sections += [SectionBlock(text=mrkdwn(text(lang, "digest.failed", number=f.number,
                                                                reason=text(lang, f"digest.reason.{f.reason}"))))
                 for f in failures]
    if not sections:
        sections = [SectionBlock(text=mrkdwn(text(lang, "digest.nothing")))]
    chunks = [sections[i : i + SECTIONS_PER_MESSAGE] for i in range(0, len(sections), SECTIONS_PER_MESSAGE)]
    messages = []
    for index, chunk in enumerate(chunks, start=1):
        lead: list[Block] = [HeaderBlock(text=title[:150])] if index == 1 else []
        if index == 1 and summary:
            lead.append(ContextBlock(elements=[mrkdwn(summary)]))
        if len(chunks) > 1:
            lead.append(ContextBlock(elements=[mrkdwn(text(lang, "digest.part", part=index, parts=len(chunks)))]))
        messages.append(Message(text=title if index == 1 else f"{title} ({index}/{len(chunks)})", blocks=lead + chunk))
    return messages


def ai_line(lang: str, sentence: str | None) -> str | None:
    """The AI's sentence (domain/dossiers/summary.py) as the digest shows it, marked as written by it."""
    return text(lang, "digest.ai_line", line=sentence) if sentence else None


def _show_button(lang: str, line: DigestLine) -> ButtonElement | None:
    """"Show them": the dossiers behind the to-do line, listed to whoever clicks if they work on
    the démarche (the value names what to list, never who may see it)."""
    needs = line.counts.needs
    if not (needs.late or needs.due_soon or needs.overdue):
        return None
    group = "" if line.group_number is None else str(line.group_number)
    return ButtonElement(text=text(lang, "digest.show_them"), action_id=SHOW_NEEDS, value=f"{line.counts.number}:{group}")


def _line(lang: str, line: DigestLine) -> str:
    counts, previous = line.counts, line.previous
    total = counted(lang, "digest.total", counts.total, total=Mrkdwn(_number(counts.total, lang)))
    if previous is not None:
        total += " " + text(lang, "digest.change", delta=_delta(counts.total - previous.total, lang),
                            deposited=Mrkdwn(_number(counts.deposited_since, lang)))
    states = " · ".join(
        f"{text(lang, f'state.{state}')} {_number(counts.by_state.get(state, 0), lang)}"
        + (f" ({_delta(counts.by_state.get(state, 0) - previous.by_state.get(state, 0), lang)})"
           if previous is not None and counts.by_state.get(state, 0) != previous.by_state.get(state, 0) else "")
        for state in STATES
    )
    title = text(lang, "digest.demarche", title=counts.title, number=counts.number)
    if line.group is not None:
        title += " · " + text(lang, "digest.group", group=line.group)
    parts = [title, total, states]
    if counts.needs.anything:
        parts.append(needs_line(lang, counts.needs, line.late_days))
    trend = sparkline(line.history)
    if trend.strip():
        parts.append(text(lang, "digest.trend", days=len(line.history), spark=Mrkdwn(f"`{trend}`")))
    return "\n".join(parts)


def needs_line(lang: str, needs: Needs, late_days: int) -> str:
    """One line of what needs doing: late dossiers, decisions since the last digest, SVA/SVR dates."""
    items = [text(lang, "digest.late", count=Mrkdwn(_number(count, lang)), state=text(lang, f"state.{state}"),
                  days=late_days, oldest=Mrkdwn(_number(needs.oldest.get(state, 0), lang)))
             for state, count in sorted(needs.late.items(), key=lambda item: STATES.index(item[0]) if item[0] in STATES else 9)]
    decided = [f"{_number(needs.decided[state], lang)} {text(lang, f'state.{state}')}" for state in DECIDED if needs.decided.get(state)]
    if decided:
        items.append(text(lang, "digest.decided", decisions=Mrkdwn(", ".join(decided))))
    if needs.due_soon or needs.overdue:
        items.append(text(lang, "digest.sva", due=Mrkdwn(_number(needs.due_soon, lang)), overdue=Mrkdwn(_number(needs.overdue, lang))))
    return text(lang, "digest.needs", items=Mrkdwn(" · ".join(items)))


def _number(value: int, lang: str) -> str:
    return format_decimal(value, locale=lang)


def _delta(value: int, lang: str) -> Mrkdwn:
    if value == 0:
        return Mrkdwn("±0")
    return Mrkdwn(("+" if value > 0 else "−") + _number(abs(value), lang))


