import gc
import sys

# Loading serve's modules makes 150,000 objects the collector tracks, all living as long as the
# process, and the collector walked them over and over meanwhile (a tenth of a start's CPU: 1.69 →
# 1.51 s for serve's imports, median of 10). Off until the command starts its work: bot/cli.py
# `started`, or `serve` once it has built its app (bot/serving/server.py).
gc.disable()
# httpx imports its own command line (click, pygments, rich: 41 ms of every start) unless that
# import fails; the bot never runs it
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

from bot.cli import main  # noqa: E402  (after the line above, which must come first)

sys.exit(main())
