"""What operators see of the calls we make: Prometheus series and the request id of log lines."""

from contextvars import ContextVar

from prometheus_client import Counter, Histogram

#: The Slack request being served ("-" outside one); set by a Bolt middleware, read by the log format.
REQUEST_ID: ContextVar[str] = ContextVar("request_id", default="-")

UPSTREAM_CALLS = Counter(
    "roombot_upstream_requests_total",
    "HTTP attempts to outside services, by service and status (or transport error).",
    ["service", "status"],
)
UPSTREAM_SECONDS = Histogram(
    "roombot_upstream_request_seconds",
    "Duration of HTTP attempts to outside services.",
    ["service"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16),
)
