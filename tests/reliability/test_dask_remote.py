"""A ``file.py:attr`` target audited on a Dask cluster that shares neither the file system nor
the working directory with the client; schedulers that cannot be reached, stop answering or die.

The cluster is real: ``dask scheduler`` and two ``dask worker`` processes, each started in a
fresh folder of its own.  They run on this machine, so "another machine" is simulated: the
scheduler's and workers' processes get a ``sitecustomize`` that installs an audit hook refusing
to open or list anything in the folder that holds the target (as if it did not exist there).
The target imports a sibling module and a sibling package from its folder, which the client
must ship with it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

#: the folder the cluster's processes cannot see (the audit hook's environment variable)
HIDDEN = "DP_AUDIT_TEST_HIDDEN_FOLDER"

SITECUSTOMIZE = f'''
"""Test cluster processes: the folder in ${HIDDEN} is not on this "machine"."""
import errno
import os
import sys

_HIDDEN = os.path.realpath(os.environ["{HIDDEN}"])


def _hidden(path):
    if isinstance(path, int):
        return False
    try:
        where = os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return False
    return where == _HIDDEN or where.startswith(_HIDDEN + os.sep)


def _hook(event, args):
    if event in ("open", "os.listdir", "os.scandir") and args and _hidden(args[0]):
        raise FileNotFoundError(errno.ENOENT, "not on this machine (test)", args[0])


sys.addaudithook(_hook)
'''

TARGET = '''
"""Adapters for the remote test; they import a sibling module and a sibling package."""
import os
import time

import numpy as np

import remote_noise
from remote_claims.values import CLAIMED_EPSILON


class Geometric:
    family = "additive"
    delta = 0.0
    sensitivity = 1
    integer_queries = True

    def __init__(self, name, true_epsilon):
        self.name, self.epsilon, self._true = name, CLAIMED_EPSILON, true_epsilon
        self._rng = np.random.default_rng(0)

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        return int(query) + remote_noise.two_sided_geometric(self._rng, self._true, n)


class Slow(Geometric):
    """Sleeps in every call, after touching the file the test watches."""

    def sample(self, query, n):
        open(os.environ["DP_AUDIT_TEST_MARKER"], "a").close()
        time.sleep(0.3)
        return super().sample(query, n)


#: exact discrete Laplace, and one with four times too little noise for its claim
adapters = [
    Geometric("remote.correct", CLAIMED_EPSILON),
    Geometric("remote.broken", 4 * CLAIMED_EPSILON),
]
slow = [Slow("remote.slow", CLAIMED_EPSILON)]
'''

NOISE = """
import math


def two_sided_geometric(rng, epsilon, n):
    g = rng.geometric(1.0 - math.exp(-epsilon), size=(2, n))
    return g[0] - g[1]
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


def _stop(proc: subprocess.Popen) -> None:
    """Stop a process started in a session of its own, and its children (a worker's nanny
    starts the worker process), by its process group's id."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # the group: children that outlived it too
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


@pytest.fixture
def adapter_folder(tmp_path_factory) -> Path:
    """The target, a sibling module and a sibling package, in a folder of their own."""
    folder = tmp_path_factory.mktemp("client-adapters")
    _write(folder / "remote_adapters.py", TARGET)
    _write(folder / "remote_noise.py", NOISE)
    _write(folder / "remote_claims" / "__init__.py", "")
    _write(folder / "remote_claims" / "values.py", "CLAIMED_EPSILON = 1.0\n")
    return folder


@pytest.fixture
def cluster(tmp_path_factory, adapter_folder) -> Iterator[dict]:
    """A scheduler and two workers, separate processes each in a fresh folder, that cannot see
    ``adapter_folder``; always stopped at the end."""
    pytest.importorskip("distributed")
    hook = tmp_path_factory.mktemp("cluster-site")
    _write(hook / "sitecustomize.py", SITECUSTOMIZE)
    marker = hook / "sampling"  # a Slow adapter has sampled on a worker
    env = {
        **os.environ,
        "PYTHONPATH": str(hook),
        HIDDEN: str(adapter_folder),
        "DP_AUDIT_TEST_MARKER": str(marker),
    }
    env.pop("PYTHONWARNINGS", None)
    # the simulation works: a cluster process cannot read the target
    probe = subprocess.run(
        [sys.executable, "-c", f"open({str(adapter_folder / 'remote_adapters.py')!r})"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert probe.returncode != 0 and "not on this machine" in probe.stderr, probe.stderr
    procs: list[subprocess.Popen] = []
    logs: list[Path] = []

    def start(args: list[str], name: str) -> Path:
        folder = tmp_path_factory.mktemp(name)
        log = folder / "log.txt"
        with log.open("wb") as out:
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", *args],
                    cwd=folder,
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        logs.append(log)
        return folder

    try:
        home = start(
            ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
             "--no-dashboard", "--scheduler-file", "scheduler.json"],
            "scheduler",
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while not (home / "scheduler.json").exists():
            assert time.monotonic() < deadline, logs[0].read_text()
            assert procs[0].poll() is None, logs[0].read_text()
            time.sleep(0.1)
        time.sleep(0.2)  # written in one go, but give it the time to be complete
        address = json.loads((home / "scheduler.json").read_text())["address"]
        for i in (1, 2):
            start(
                ["distributed.cli.dask_worker", address, "--nthreads", "1", "--name", f"w{i}",
                 "--no-dashboard", "--local-directory", "dask-space"],
                f"worker{i}",
            )  # fmt: skip
        from distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=90)
        yield {"address": address, "scheduler": procs[0], "logs": logs, "marker": marker}
    finally:
        for proc in reversed(procs):
            _stop(proc)


def dp_audit(*args: str, cwd: Path, env: dict | None = None, timeout: float = 300):
    return subprocess.run(
        [sys.executable, "-m", "dp_audit", "run", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def _audit_on(cluster: dict, adapter_folder: Path, out: Path) -> dict:
    """``dp-audit run`` of the target's ``adapters`` on the cluster: {adapter: result}."""
    client_folder = out.parent / f"{out.name}-client"
    client_folder.mkdir()
    # the client imports the target's sibling module and package from its folder
    env = {**os.environ, "PYTHONPATH": str(adapter_folder)}
    start = time.monotonic()
    proc = dp_audit(
        "--adapter", f"{adapter_folder / 'remote_adapters.py'}:adapters",
        "--backend", "dask", "--scheduler", cluster["address"],
        "--attack", "black-box", "--budget", "20000", "--timeout", "60", "--out", str(out),
        cwd=client_folder, env=env,
    )  # fmt: skip
    seconds = time.monotonic() - start
    logs = "\n".join(log.read_text(errors="replace")[-3000:] for log in cluster["logs"])
    assert proc.returncode == 1, proc.stderr + logs  # a violation, and no error
    assert "Traceback" not in proc.stderr
    assert seconds < 120
    results = {r["adapter"]: r for r in json.loads((out / "report.json").read_text())["results"]}
    for r in results.values():  # sampled on the cluster, not in the client
        assert not [n for n in r["notes"] if "in this process" in n or "Dask" in n], r["notes"]
    return results


def test_a_file_target_with_sibling_imports_runs_on_workers_that_cannot_see_it(
    cluster, adapter_folder, tmp_path
):
    results = _audit_on(cluster, adapter_folder, tmp_path / "first")
    assert results["remote.correct"]["verdict"] == "no_violation", results["remote.correct"]
    assert results["remote.broken"]["verdict"] == "violation", results["remote.broken"]
    # the workers outlive the run: an edited helper module is what the next run audits
    noise = adapter_folder / "remote_noise.py"
    noise.write_text(noise.read_text().replace("-epsilon", "-4 * epsilon"))
    results = _audit_on(cluster, adapter_folder, tmp_path / "second")
    assert results["remote.correct"]["verdict"] == "violation", results["remote.correct"]
    assert results["remote.broken"]["verdict"] == "violation", results["remote.broken"]


def _refused_address() -> str:
    """A local TCP port nobody listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"tcp://127.0.0.1:{port}"


def test_an_unreachable_scheduler_is_a_quick_one_line_usage_error(tmp_path):
    pytest.importorskip("distributed")
    address = _refused_address()
    start = time.monotonic()
    proc = dp_audit(
        "--adapter", "textbook.*", "--backend", "dask", "--scheduler", address,
        "--budget", "1000", "--quiet", "--out", str(tmp_path / "report"),
        cwd=tmp_path, timeout=120,
    )  # fmt: skip
    seconds = time.monotonic() - start
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("dp-audit: error: ") and address in lines[0], lines
    assert "cannot connect to the Dask scheduler" in lines[0]
    # the refused connection is not retried until Dask's connect timeout (a loaded machine may
    # take several seconds just to start the command)
    from auditor.engine.backends.dask_backend import CONNECT_TIMEOUT

    assert seconds < CONNECT_TIMEOUT


def test_a_scheduler_lost_during_the_run_ends_the_adapter_as_an_error(
    cluster, adapter_folder, tmp_path
):
    env = {**os.environ, "PYTHONPATH": str(adapter_folder)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "dp_audit", "run",
         "--adapter", f"{adapter_folder / 'remote_adapters.py'}:slow",
         "--backend", "dask", "--scheduler", cluster["address"],
         "--attack", "black-box", "--budget", "100000", "--timeout", "60",
         "--out", str(tmp_path / "report")],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not cluster["marker"].exists():  # sampling on the cluster has begun
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        os.killpg(cluster["scheduler"].pid, signal.SIGKILL)
        killed = time.monotonic()
        _, stderr = proc.communicate(timeout=180)
        seconds = time.monotonic() - killed
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 2, stderr
    assert "Traceback" not in stderr, stderr
    (result,) = json.loads((tmp_path / "report" / "report.json").read_text())["results"]
    assert result["verdict"] == "error"
    assert "lost the connection to the Dask scheduler" in result["error"], result["error"]
    assert seconds < 60


def test_a_scheduler_that_accepts_but_never_answers_is_given_up_after_the_timeout(
    monkeypatch,
):
    pytest.importorskip("distributed")
    from auditor import InvalidArgument
    from auditor.engine.backends import dask_backend

    monkeypatch.setattr(dask_backend, "CONNECT_TIMEOUT", 1.0)
    with socket.socket() as silent:  # accepts connections (the kernel does), never speaks
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        start = time.monotonic()
        with pytest.raises(InvalidArgument, match="no answer within 1 s"):
            dask_backend.DaskSampler(1, 60.0, scheduler=address)
    assert time.monotonic() - start < 5  # Dask's own connect timeout misses this case


class _SilentClient:
    """A client whose scheduler stopped answering: every question waits for ever."""

    status = "running"

    def __init__(self) -> None:
        self.stop = threading.Event()

    def run(self, function):
        self.stop.wait()

    def nthreads(self):
        self.stop.wait()


@pytest.mark.parametrize("timeout", [60.0, None])
def test_a_scheduler_that_stops_answering_during_a_wait_is_an_error_not_a_hang(
    monkeypatch, timeout
):
    """With a timeout the workers are asked about the chunk every second; without one, the
    scheduler is asked whether it is there every ``CALL_TIMEOUT`` seconds."""
    from auditor.core.errors import BackendUnavailable
    from auditor.engine.backends import dask_backend

    class Pending:
        key = "run_on_cluster-1"

        def result(self, timeout=None):
            time.sleep(timeout)
            raise TimeoutError

        def done(self):
            return False

    monkeypatch.setattr(dask_backend, "CALL_TIMEOUT", 0.3)
    monkeypatch.setattr(dask_backend, "PROBE_INTERVAL", 0.05)
    sampler = dask_backend.DaskSampler.__new__(dask_backend.DaskSampler)  # no cluster
    client = _SilentClient()
    sampler._client, sampler.timeout, sampler._scheduler = client, timeout, "tcp://gone:8786"
    start = time.monotonic()
    try:
        with pytest.raises(BackendUnavailable, match="'tcp://gone:8786' did not answer within"):
            sampler._wait(dask_backend.Group(Pending(), []), "adapter 'x'")
    finally:
        client.stop.set()
    assert time.monotonic() - start < 3


def test_a_file_target_ships_with_the_modules_it_imported_from_its_folder(tmp_path, monkeypatch):
    """Its sibling module and package (the parts it imported), nothing installed, nothing
    it did not import."""
    from auditor.core.targets import load_target
    from auditor.engine.backends.chunked import absolute_target
    from auditor.engine.backends.dask_shipping import shipment

    _write(tmp_path / "remote_adapters.py", TARGET)
    _write(tmp_path / "remote_noise.py", NOISE)
    _write(tmp_path / "remote_claims" / "__init__.py", "")
    _write(tmp_path / "remote_claims" / "values.py", "CLAIMED_EPSILON = 1.0\n")
    _write(tmp_path / "remote_claims" / "unused.py", "raise RuntimeError\n")
    _write(tmp_path / "notes.txt", "data files are not shipped\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("remote_noise", "remote_claims", "remote_claims.values"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    target = absolute_target(f"{tmp_path / 'remote_adapters.py'}:adapters")
    before = set(sys.modules)
    try:
        assert len(load_target(target)) == 2
        found = shipment(target)
    finally:
        for name in set(sys.modules) - before:
            del sys.modules[name]
    assert found is not None and found.target == target
    assert [relative for relative, _ in found.files] == [
        "remote_adapters.py",
        os.path.join("remote_claims", "__init__.py"),
        os.path.join("remote_claims", "values.py"),
        "remote_noise.py",
    ]
    assert found.files[0][1] == (tmp_path / "remote_adapters.py").read_bytes()
    assert found.module.startswith("dp_audit_user_remote_adapters")  # the client's name for it
    assert shipment("auditor.adapters.textbook:ADAPTERS") is None  # installed: not shipped


def test_a_worker_loads_a_shipment_where_the_client_has_it_or_from_its_scratch_folder(
    tmp_path, monkeypatch
):
    import dataclasses

    from auditor.core.targets import load_target
    from auditor.engine.backends import dask_shipping

    client = tmp_path / "client"
    _write(client / "remote_adapters.py", TARGET)
    _write(client / "remote_noise.py", NOISE)
    _write(client / "remote_claims" / "__init__.py", "")
    _write(client / "remote_claims" / "values.py", "CLAIMED_EPSILON = 1.0\n")
    target = f"{client / 'remote_adapters.py'}:adapters"
    names = ("remote_noise", "remote_claims", "remote_claims.values")
    for name in names:
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(sys, "path", [str(client), *sys.path])
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    before = set(sys.modules)
    try:
        load_target(target)
        ship = dask_shipping.shipment(target)
        assert ship is not None
        # the worker's side, in this process
        monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(client)])
        monkeypatch.setattr(dask_shipping, "_UNPACKED", {})
        monkeypatch.setattr(dask_shipping, "_SHIPPED_NAMES", set())
        monkeypatch.setattr(dask_shipping, "_FINDER", dask_shipping._ShippedModules())
        # the same files at the same path (a shared file system): loaded there, as before
        assert dask_shipping._unpack(ship, str(tmp_path / "scratch")) == (target, None)
        assert sys.path[0] == str(client)
        # elsewhere: written to the worker's scratch folder, which goes first on sys.path
        away = dataclasses.replace(ship, folder=str(tmp_path / "not-here"), digest="other")
        load_by, copy = dask_shipping._unpack(away, str(tmp_path / "scratch"))
        assert copy == str(tmp_path / "scratch" / "dp-audit-targets" / "other")
        assert load_by == f"{Path(copy) / 'remote_adapters.py'}:adapters"
        assert sys.path[0] == copy
        for relative, data in ship.files:
            assert (Path(copy) / relative).read_bytes() == data
        for name in names:  # imported afresh from the copy by the next run
            sys.modules.pop(name, None)
        assert [a.name for a in load_target(load_by)] == ["remote.correct", "remote.broken"]
        assert sys.modules["remote_noise"].__file__ == str(Path(copy) / "remote_noise.py")
        # a pickle naming the client's module for the file finds the shipped copy
        assert dask_shipping._FINDER.find_spec(ship.module).origin == load_by.rpartition(":")[0]
    finally:
        for name in set(sys.modules) - before:
            del sys.modules[name]


def test_a_worker_running_another_dp_audit_version_refuses_the_task(monkeypatch):
    import pickle
    import types

    from auditor.core.errors import BackendUnavailable
    from auditor.engine.backends import dask_shipping

    class FakeWorker:
        address = "tcp://10.0.0.7:40000"

    # a stand-in for distributed (an optional extra): only get_worker is used
    monkeypatch.setitem(sys.modules, "distributed", types.SimpleNamespace(get_worker=FakeWorker))
    monkeypatch.setattr(dask_shipping, "_VERSION", ["0.2.0"])
    with pytest.raises(
        BackendUnavailable,
        match=r"Dask worker \(tcp://10\.0\.0\.7:40000\) runs dp-audit 0\.2\.0, the client 0\.0\.1",
    ):
        dask_shipping.run_on_cluster("0.0.1", "run", {}, pickle.dumps([]))
