"""Chapter 03's internals measured on both JDKs: the stack chunks parked virtual threads hold (snippet S30, alias
stack-chunks) and one virtual thread's life cycle: its states, its stacks and the reasons a continuation is pinned
(snippet S32, alias life-cycle)."""
from __future__ import annotations

from conftest import report
from test_internals import _runs

# Quick sizes: 1,000 threads at four depths, three cases: a few seconds per JDK.
CHUNK_ARGS = ["--threads", "1000", "--depths", "1,16,64,256"]
# Over 500 words (thaw_fast's threshold), a resumed thread thaws only its top frame: the rest stays in the chunk.
THAW_WHOLE_BYTES = 500 * 8


def test_parked_virtual_threads_hold_at_least_one_stack_chunk_each_growing_with_depth():
    """Every parked virtual thread holds at least one jdk.internal.vm.StackChunk (exactly one after one park);
    bytes per chunk grow with the depth it parked at; a thread whose chunk was too big to thaw whole holds two
    after parking again deeper. On both JDKs."""
    runs = _runs("stack-chunks", CHUNK_ARGS)
    lines = []
    for r in runs.values():
        assert r["threads"] == 1000, r
        for row in r["rows"]:
            assert row["chunks"] >= row["parked"] == 1000, row
        park = [row for row in r["rows"] if row["case"] == "park"]
        assert [p["depth"] for p in park] == [1, 16, 64, 256], park
        assert all(p["chunksPerThread"] == 1.0 for p in park), park
        sizes = [p["bytesPerChunk"] for p in park]
        assert sizes[1] < sizes[2] < sizes[3] and sizes[0] < sizes[3] / 2, sizes  # 1 vs 16: too close to order
        deeper = {row["depth"]: row for row in r["rows"] if row["case"] == "park-again-deeper"}
        for p in park:
            if p["bytesPerChunk"] > THAW_WHOLE_BYTES + 200:  # header and metadata included: clearly over
                assert deeper[p["depth"]]["chunksPerThread"] >= 1.95, (p, deeper[p["depth"]])
        per_frame = (sizes[-1] - sizes[0]) / (256 - 1)
        lines.append(f"JDK {r['feature']}: park 1.00 chunk/thread, bytes/chunk " + " / ".join(
            f"{s:,.0f}" for s in sizes) + f" at depth 1/16/64/256 ({per_frame:.0f} B per frame); chunks/thread "
            + "; ".join(f"{case} " + "/".join(f"{row['chunksPerThread']:.2f}" for row in r["rows"]
                                                if row["case"] == case)
                        for case in ("park-again-same", "park-again-deeper")))
    report("03 stack chunks, 1,000 virtual threads parked per count: " + " | ".join(lines))


def test_a_virtual_threads_states_stacks_and_pinning_reasons_on_each_jdk():
    """The state names and values each JDK declares; the states one thread is seen in as it starts, parks,
    sleeps, blocks on a monitor, waits and ends; hidden frames at mount and unmount; onPinned's reasons."""
    runs = _runs("life-cycle", [])
    lines = []
    for r in runs.values():
        feature, c = r["feature"], r["constants"]
        base = {"NEW": 0, "STARTED": 1, "RUNNING": 2, "PARKING": 3, "PARKED": 4, "PINNED": 5, "TIMED_PARKING": 6,
                "TIMED_PARKED": 7, "TIMED_PINNED": 8, "UNPARKED": 9, "YIELDING": 10, "YIELDED": 11,
                "TERMINATED": 99}
        monitors = {"BLOCKING": 12, "BLOCKED": 13, "UNBLOCKED": 14, "WAITING": 15, "WAIT": 16, "TIMED_WAITING": 17,
                    "TIMED_WAIT": 18}
        assert c == (base | monitors if feature >= 24 else base), c
        phases = {p["phase"]: p["states"] for p in r["phases"]}
        seen = {s for states in phases.values() for s in states}
        # held 100 ms each: a sampler on a busy machine still sees them
        assert {"NEW", "STARTED", "RUNNING", "PARKED", "UNPARKED", "TIMED_PARKED", "TERMINATED"} <= seen, phases
        assert phases["new"] == ["NEW"] and "STARTED" in phases["start"], phases
        if feature >= 24:  # JEP 491: monitor enter and Object.wait unmount; parking in synchronized too
            assert "BLOCKED" in phases["monitor enter"] and "WAIT" in phases["wait"], phases
            assert "PARKED" in phases["park in monitor"] and "PINNED" not in seen, phases
        else:  # pinned: the carrier is held, the internal state stays RUNNING
            assert phases["monitor enter"] == ["RUNNING"] and phases["wait"] == ["RUNNING"], phases
            assert "PINNED" in phases["park in monitor"], phases
        traces = {t["when"]: t for t in r["traces"]}
        mounted = traces["the thread itself, mounted"]["frames"]
        parked = traces["the thread, parked (its frozen frames)"]["frames"]
        carrier = traces["its carrier, while the thread is mounted"]["frames"]
        assert mounted[-2:] == ["jdk.internal.vm.Continuation.enter0", "jdk.internal.vm.Continuation.enter"], mounted
        assert "jdk.internal.vm.Continuation.yield" in parked[:2] and parked[-1] == mounted[-1], parked
        assert carrier[0] == "jdk.internal.vm.Continuation.run", carrier
        pins = {p["case"]: p["outcome"] for p in r["pins"]}
        assert pins["nothing held"] == "yielded" and pins["class initializer"] == "NATIVE", pins
        assert pins["pin() .. unpin()"] == "CRITICAL_SECTION", pins
        assert pins["synchronized"] == ("yielded" if feature >= 24 else "MONITOR"), pins
        assert set(pins.values()) - {"yielded"} <= set(r["pinnedReasons"]), r["pinnedReasons"]
        lines.append(f"JDK {feature}: {len(c)} states; " + "; ".join(
            f"{name} {'>'.join(states)}" for name, states in phases.items()) + "; pinned: " + ", ".join(
            f"{k} {v}" for k, v in pins.items()) + f"; parked trace {len(parked)} frames, "
            f"{len(traces['the thread, parked (its frozen frames)']['hidden'])} hidden by default")
    report("03 life cycle, one virtual thread on 1 carrier: " + " | ".join(lines))
