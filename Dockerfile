# syntax=docker/dockerfile:1
# Build: docker build -t roombot .   Run: docker run --env-file .env -p 3000:3000 -v roombot-data:/data roombot
# /data is the one folder written (the embedded Redis, the chart's font cache): mount a volume
# there, and the root can be read-only (--read-only). No VOLUME: with REDIS_URL set, nothing is
# kept, and an anonymous volume would be left behind.

# BASE: any image with Python 3.11 and its venv module (Debian's python3 and python3-venv do)
ARG BASE=python:3.11-slim
FROM ${BASE} AS build
# behind a TLS-inspecting proxy: mount its CA bundle into the build and name it here, e.g.
# podman build -v /etc/ssl/certs/ca-certificates.crt:/etc/ssl/proxy-ca.crt:ro --build-arg PIP_CERT=/etc/ssl/proxy-ca.crt .
ARG PIP_CERT
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python3 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
COPY pyproject.toml README.md requirements.lock ./
COPY bot ./bot
COPY handlers ./handlers
COPY clients ./clients
# the versions the tests ran with; test-only packages in the lock are not installed
RUN pip install -c requirements.lock . && pip uninstall -q -y pip  # pip itself is not needed to run (15 MB)

FROM ${BASE}
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    MPLCONFIGDIR=/data/.matplotlib
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin roombot \
    && mkdir /data && chown roombot:roombot /data
COPY --from=build /opt/venv /opt/venv
USER 10001:10001
WORKDIR /home/roombot
EXPOSE 3000
# asks where serve listens (HOST, PORT), on loopback when HOST is a wildcard
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["python", "-m", "bot.healthcheck"]
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot", "serve"]
