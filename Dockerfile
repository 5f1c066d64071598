# syntax=docker/dockerfile:1
# Build: docker build -t roombot .   Run: docker run --env-file .env -p 3000:3000 -v roombot-data:/data roombot

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
COPY pyproject.toml README.md requirements.lock ./
COPY bot ./bot
COPY handlers ./handlers
COPY clients ./clients
# the versions the tests ran with; test-only packages in the lock are not installed
RUN pip install -c requirements.lock .

FROM python:3.11-slim
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin roombot \
    && mkdir /data && chown roombot:roombot /data
COPY --from=build /opt/venv /opt/venv
USER 10001:10001
WORKDIR /home/roombot
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen(f\"http://127.0.0.1:{os.environ.get('PORT', '3000')}/healthz\", timeout=3)"]
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot", "serve"]
