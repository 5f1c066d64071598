"""The Helm chart (`chart/roombot`): rendered by the real `helm` (scripts/install-helm puts it in
.tools/bin), every manifest validated offline against the Kubernetes schemas, and its settings
read back by the bot's own configuration."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from bot.config import Settings
from tests.conftest import ROOT

CHART = ROOT / "chart" / "roombot"
#: the oldest Kubernetes the chart declares (Chart.yaml's kubeVersion) and the newest schemas shipped
KUBERNETES = ["1.25.0", kubernetes_validate.latest_version()]

SECRETS = {
    "SLACK_BOT_TOKEN": "xoxb-chart-test-token",
    "SLACK_SIGNING_SECRET": "chart-signing-secret",
    "MEET_CLIENT_SECRET": "chart-client-secret",
    "REDIS_URL": "redis://:chart-redis-password@redis:6379/0",
}
BASE: dict[str, Any] = {
    "config": {"MEET_API_URL": "https://visio.example.gouv.fr/external-api/v1.0", "MEET_CLIENT_ID": "roombot"},
    "secrets": {"values": SECRETS},
}


def _helm() -> str:
    found = ROOT / ".tools" / "bin" / "helm"
    if found.exists():
        return str(found)
    on_path = shutil.which("helm")
    if on_path is None:
        pytest.fail("helm is not installed: run scripts/install-helm (CI's .ci/run does)")
    return on_path


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """`base` with `extra` laid over it, as Helm merges values files; None removes a key."""
    merged = dict(base)
    for name, value in extra.items():
        if value is None:
            merged.pop(name, None)
        elif isinstance(value, dict) and isinstance(merged.get(name), dict):
            merged[name] = _merge(merged[name], value)
        else:
            merged[name] = value
    return merged


def helm(tmp_path: Path, *args: str, values: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    file = tmp_path / "values.json"  # JSON is YAML
    file.write_text(json.dumps(values))
    return subprocess.run([_helm(), *args, "-f", str(file)], capture_output=True, text=True, timeout=60)


def render(tmp_path: Path, extra: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The rendered manifests, by kind."""
    done = helm(tmp_path, "template", "roombot", str(CHART), values=_merge(BASE, extra or {}))
    assert done.returncode == 0, done.stderr
    documents = [d for d in yaml.safe_load_all(done.stdout) if d]
    kinds = {d["kind"]: d for d in documents}
    assert len(kinds) == len(documents), "one manifest of each kind"
    return kinds


def environment(kinds: dict[str, dict[str, Any]]) -> dict[str, str]:
    """What the pod's environment would hold: the ConfigMap, then the Secret (envFrom order)."""
    secret = kinds.get("Secret", {}).get("stringData") or {}
    return {**kinds["ConfigMap"]["data"], **secret}


KEY = "7sE2a4fZ1oQk3hV9yC0pX5nB8mW6tR2uJ4gL1dA0iY8="  # a Fernet key, as `python -m bot keys` would make
MODES: dict[str, dict[str, Any]] = {
    "url": {},
    "cluster": {"redis": {"mode": "cluster", "url": "redis://redis-cluster-0.redis:6379"}, "secrets": {"values": {"REDIS_URL": None}}},
    "sentinel": {"redis": {"mode": "sentinel", "sentinels": ["sentinel-0:26379", "sentinel-1:26379"], "sentinelMaster": "bot"}},
    "autoscaled": {"autoscaling": {"enabled": True}},
    # many workspaces: installed by OAuth, no bot token
    "oauth": {"config": {"SLACK_CLIENT_ID": "1234.5678"},
              "secrets": {"values": {"SLACK_BOT_TOKEN": None, "SLACK_CLIENT_SECRET": "chart-oauth-secret", "TOKEN_ENCRYPTION_KEY": KEY}}},
    "socket": {"secrets": {"values": {"SLACK_SIGNING_SECRET": None, "SLACK_APP_TOKEN": "xapp-1-chart"}}},
    "existing secret": {"secrets": {"existingSecret": "roombot-managed", "values": None}},
    "one pod, network policy": {"replicaCount": 1, "networkPolicy": {"enabled": True}, "config": {"SERVE_PROCESSES": "4"}},
}


@pytest.mark.parametrize("mode", MODES)
def test_every_rendered_manifest_is_valid_kubernetes(tmp_path: Path, mode: str):
    values = _merge(BASE, MODES[mode])
    lint = helm(tmp_path, "lint", "--strict", str(CHART), values=values)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    kinds = render(tmp_path, MODES[mode])
    for version in KUBERNETES:
        for manifest in kinds.values():
            kubernetes_validate.validate(manifest, version, strict=True)  # raises with the faulty field
    assert ("HorizontalPodAutoscaler" in kinds) == (mode == "autoscaled")
    assert ("replicas" in kinds["Deployment"]["spec"]) == (mode != "autoscaled")  # the autoscaler owns it
    # a budget keeping the only pod would block every drain
    assert ("PodDisruptionBudget" in kinds) == (mode != "one pod, network policy")
    assert ("NetworkPolicy" in kinds) == (mode == "one pod, network policy")


@pytest.mark.parametrize("mode", ["oauth", "socket"])
def test_the_bot_starts_in_the_slack_mode_the_release_says(tmp_path: Path, mode: str, monkeypatch):
    for name, value in environment(render(tmp_path, MODES[mode])).items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None)
    assert settings.oauth is (mode == "oauth") and settings.socket_mode is (mode == "socket")
    settings.require_for("serve")  # nothing left for `serve` to ask for (else ConfigError)


@pytest.mark.parametrize("mode", ["url", "cluster", "sentinel"])
def test_the_bot_reads_each_redis_mode_from_the_rendered_environment(tmp_path: Path, mode: str, monkeypatch):
    env = environment(render(tmp_path, MODES[mode]))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None)
    assert settings.meet_client_secret is not None and settings.meet_client_secret.get_secret_value() == "chart-client-secret"
    if mode == "sentinel":
        assert settings.redis_sentinels == [("sentinel-0", 26379), ("sentinel-1", 26379)]
        assert settings.redis_sentinel_master == "bot"
        assert settings.redis_url is not None and "chart-redis-password" in settings.redis_url.get_secret_value()
    else:
        assert settings.redis_cluster is (mode == "cluster")
        assert settings.redis_url is not None and settings.redis_sentinels == []


def test_pods_are_probed_kept_available_and_hold_no_secret_in_their_spec(tmp_path: Path):
    kinds = render(tmp_path)
    pod = kinds["Deployment"]["spec"]["template"]
    [container] = pod["spec"]["containers"]
    # not ready without Redis (nor, in Socket Mode, Slack); alive as long as the process answers, so
    # a Redis or Slack outage restarts nothing
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/metrics"
    assert container["resources"]["requests"] and container["resources"]["limits"]["memory"]
    assert kinds["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    assert kinds["Service"]["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    assert {ref.get("secretRef", {}).get("name") for ref in container["envFrom"]} >= {kinds["Secret"]["metadata"]["name"]}
    outside_the_secret = json.dumps([m for kind, m in kinds.items() if kind != "Secret"])
    assert not [name for name, value in SECRETS.items() if value in outside_the_secret]

    mine = render(tmp_path, {"secrets": {"existingSecret": "roombot-managed", "values": None}})
    assert "Secret" not in mine
    [container] = mine["Deployment"]["spec"]["template"]["spec"]["containers"]
    assert {"secretRef": {"name": "roombot-managed"}} in container["envFrom"]


def test_pods_grow_with_their_processes_and_show_metrics_apart_from_slacks_port(tmp_path: Path, monkeypatch):
    kinds = render(tmp_path, {"config": {"SERVE_PROCESSES": "3"}})
    [container] = kinds["Deployment"]["spec"]["template"]["spec"]["containers"]
    assert container["resources"] == {"requests": {"cpu": "300m", "memory": "576Mi"}, "limits": {"memory": "1536Mi"}}
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    assert container["livenessProbe"]["httpGet"]["port"] == "metrics"
    assert {port["name"]: port["targetPort"] for port in kinds["Service"]["spec"]["ports"]} == {"http": "http", "metrics": "metrics"}
    for name, value in environment(kinds).items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None)  # the bot listens where the pod's ports say
    assert (settings.port, settings.metrics_port, settings.serve_processes) == (ports["http"], ports["metrics"], 3)


def test_a_changed_secret_rolls_the_pods(tmp_path: Path):
    """With the chart's Secret its content is hashed; an existingSecret is read from the cluster at
    upgrade, and where the chart is rendered without one (here) `secrets.revision` rolls them."""
    def pod_annotations(extra: dict[str, Any]) -> dict[str, str]:
        return dict(render(tmp_path, extra)["Deployment"]["spec"]["template"]["metadata"]["annotations"])

    before = pod_annotations({})
    assert pod_annotations({"secrets": {"values": {"MEET_CLIENT_SECRET": "rotated"}}}) != before
    managed = {"secrets": {"existingSecret": "roombot-managed", "values": None}}
    assert pod_annotations(managed) != pod_annotations(_merge(managed, {"secrets": {"revision": 2}}))


@pytest.mark.parametrize(("extra", "says"), [
    ({"secrets": {"values": {"REDIS_URL": None}}}, "a shared Redis is required: set redis.url, or REDIS_URL in the Secret"),
    ({"redis": {"mode": "sentinel"}}, "list the Sentinels in redis.sentinels"),
    ({"redis": {"mode": "single"}}, 'redis.mode must be url, cluster or sentinel, not "single"'),
    ({"config": {"MEET_CLIENT_ID": ""}}, "set config.MEET_CLIENT_ID"),
    ({"secrets": {"values": {"SLACK_BOT_TOKEN": ""}}}, "set secrets.values.SLACK_BOT_TOKEN"),
    ({"config": {"DS_API_TOKEN": "ds-token"}}, "config.DS_API_TOKEN is a secret: it would land in the ConfigMap"),
    ({"config": {"slack_app_token": "xapp-1-chart"}},  # the bot reads settings whatever their case
     "config.slack_app_token is a secret: it would land in the ConfigMap; put it in secrets.values.SLACK_APP_TOKEN"),
    ({"config": {"Albert_Api_Key": "sk-chart"}}, "config.Albert_Api_Key is a secret"),
    ({"config": {"PORT": "8080"}}, "config.PORT is set by the chart"),
    ({"config": {"redis_url": "redis://redis:6379/0"}}, "config.redis_url is set by the chart"),
    *[({"redis": {"url": url}, "secrets": {"values": {"REDIS_URL": None}}},
       "redis.url holds a password: it would land in the ConfigMap; put the URL in secrets.values.REDIS_URL")
      for url in ("redis://:chart-pw@redis:6379/0", "rediss://roombot:chart-pw@redis:6380/0", "redis://redis:6379/0?password=chart-pw")],
    ({"config": {"REDIS_CLUSTER": "1"}}, "config.REDIS_CLUSTER is set by the chart"),
    ({"secrets": {"values": {"SLACK_SIGNING_SECRET": None}}}, "set secrets.values.SLACK_SIGNING_SECRET (HTTP mode), or SLACK_APP_TOKEN"),
    (_merge(MODES["oauth"], {"secrets": {"values": {"SLACK_BOT_TOKEN": "xoxb-1"}}}), "leave secrets.values.SLACK_BOT_TOKEN unset"),
    (_merge(MODES["oauth"], {"secrets": {"values": {"SLACK_CLIENT_SECRET": None}}}), "set secrets.values.SLACK_CLIENT_SECRET"),
    (_merge(MODES["oauth"], {"secrets": {"values": {"TOKEN_ENCRYPTION_KEY": None}}}), "set secrets.values.TOKEN_ENCRYPTION_KEY"),
])
def test_a_release_that_could_not_work_is_refused_with_what_to_set(tmp_path: Path, extra: dict[str, Any], says: str):
    """Replicas without a shared Redis would each post the digest: the chart does not render."""
    done = helm(tmp_path, "template", "roombot", str(CHART), values=_merge(BASE, extra))
    assert done.returncode != 0
    assert says in done.stderr
