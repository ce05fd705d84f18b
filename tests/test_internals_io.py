"""Chapter 04's I/O path, timer path and unblocker on both JDKs (snippet S29, alias io-path): who wakes a virtual
thread that waits for a socket, a sleep or a monitor, seen in the thread dumps its JVM takes of itself."""
from __future__ import annotations

from conftest import report
from test_internals import _runs

# Quick sizes: 200 readers, 200 sleepers, 50 contenders, on 2 carriers: a few seconds per JDK. The result's JSON
# leaves out null fields (Gson): .get() for the figures a JDK does not have.
IO_ARGS = ["--clients", "200", "--sleepers", "200", "--contenders", "50", "--carriers", "2"]


def _check_sockets(r: dict) -> str:
    s, feature = r["sockets"], r["feature"]
    names = {p["name"]: p["virtual"] for p in s["pollers"]}
    # Every client was parked in a socket read at once (Poller.poll under the read), far more than the carriers:
    # they unmounted, and the carriers were free while the reads waited.
    assert s["clientsDumped"] == s["clients"] == 200, s
    assert s["readersParked"] == s["clients"] > 10 * r["carriers"], s
    assert s["carriersBusy"] <= r["carriers"], s
    assert s.get("pollerModeProperty") is None, s
    if feature >= 25:  # Poller.Pollers: jdk.pollerMode unset -> DefaultPollerProvider's VTHREAD_POLLERS on Linux
        assert s["pollerMode"] == "VTHREAD_POLLERS" and names.get("MasterPoller") is False, s
        sub = [n for n, virtual in names.items() if n.startswith("SubPoller-")]
        assert len(sub) >= 2 and all(names[n] for n in sub), s  # at least one read and one write sub-poller
        assert s["vthreadPollers"] and s["pollerRegistered"] >= s["clients"], s
    else:  # JDK 21: one mode, platform threads; no Thread.vthread_pollers
        assert names == {"Read-Poller": False, "Write-Poller": False, "Read-Updater": False,
                         "Write-Updater": False}, s
        assert s["pollerMode"] == "SYSTEM_THREADS" and s.get("vthreadPollers") is None, s
    kinds = ", ".join(f"{n} ({'virtual' if v else 'platform'})" for n, v in names.items())
    registered = "" if s.get("pollerRegistered") is None else f", vthread_pollers {s['pollerRegistered']} fds"
    return (f"{s['readersParked']} of {s['clients']} readers parked vs {r['carriers']} carriers"
            f" ({s['carriersBusy']} busy); pollers {kinds}, mode {s['pollerMode']}{registered}")


def _check_timers(r: dict) -> str:
    t, feature = r["timers"], r["feature"]
    assert t["sleepersWaiting"] == t["sleepers"] == 200, t
    assert t.get("pending") is not None and t["pending"] >= t["sleepers"], t  # every wake-up waits in the queue
    w = t["wakeUp"]
    assert w["wakeUps"] == t["sleepers"] and w["samples"] > 0, w
    cpu = w["timerCpuNanos"]
    if feature >= 25:  # ForkJoinPool.schedule: the scheduler's own DelayScheduler thread; no unparker
        assert t["delaySchedulerThread"] and not t["unparkerThread"], t
        assert t["pendingFrom"].startswith("the scheduler's ForkJoinPool"), t
        timer = next(n for n in cpu if n.endswith("-delayScheduler"))
        # parkTimeoutExpired, submitted when due, runs on a carrier: any unpark caught is on a carrier
        assert all("-worker-" in thread for thread in w["caughtBy"]), w
    else:  # VirtualThread.UNPARKER, a ScheduledThreadPoolExecutor: its thread runs every unpark
        assert t["unparkerThread"] and not t["delaySchedulerThread"], t
        timer = "VirtualThread-unparker"
        assert set(w["caughtBy"]) <= {timer}, w
    assert cpu[timer] > 0, w  # the timer thread worked while the sleepers woke
    caught = ", ".join(f"{n} {c}x" for n, c in w["caughtBy"].items()) or "none"
    return (f"timer {timer} holding {t['pending']} wake-ups, {cpu[timer] / 1e3:,.0f} µs CPU for"
            f" {w['wakeUps']} wake-ups; unpark caught on: {caught} in {w['samples']:,} samples")


def _check_unblocker(r: dict) -> str:
    u, feature = r["unblocker"], r["feature"]
    if feature >= 24:  # JEP 491: contenders unmount; VirtualThread's static initializer starts the unblocker
        assert u["present"] and "takeVirtualThreadListToUnblock" in u["top"], u
        assert u["blockedAtOnce"] == u["contenders"] > r["carriers"], u
        assert u["cpuNanosDuring"] > 0, u  # it did the unblocking when main let go
        return (f"unblocker present, {u['blockedAtOnce']} of {u['contenders']} contenders BLOCKED,"
                f" {u['cpuNanosDuring'] / 1e3:,.0f} µs of its CPU for the release")
    assert not u["present"] and u.get("cpuNanosDuring") is None, u
    assert u["blockedAtOnce"] <= r["carriers"], u  # pinned: one blocked contender per carrier at most
    return f"no unblocker, {u['blockedAtOnce']} of {u['contenders']} contenders BLOCKED (pinned)"


def test_pollers_timers_and_the_unblocker_wake_virtual_threads_on_jdk_21_and_the_course_jdk():
    """A socket read parks its virtual thread (Poller.poll) and a poller wakes it: every reader parked at once, far
    more than the carriers, with the JDK's poller threads in the dump (21: platform Read-/Write-Poller; 25: a
    platform MasterPoller and virtual SubPollers). A sleep's wake-up waits in the unparker's queue (21) or the
    scheduler's delay queue (25); a monitor's contenders are unblocked by VirtualThread-unblocker (24+ only)."""
    runs = _runs("io-path", IO_ARGS)
    lines = []
    for r in runs.values():
        assert r["carriers"] == 2, r
        lines.append(f"JDK {r['feature']}: " + "; ".join(
            [_check_sockets(r), _check_timers(r), _check_unblocker(r)]))
    report("04 pollers, 200 readers / 200 sleepers / 50 contenders on 2 carriers: " + " | ".join(lines))
