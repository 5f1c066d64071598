import sys

# httpx imports its own command line (click, pygments, rich: 41 ms of every start) unless that
# import fails; the bot never runs it
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

from bot.cli import main  # noqa: E402  (after the line above, which must come first)

sys.exit(main())
