"""The course's diagrams, drawn as plain SVG files in notebooks/figures/ from the descriptions below.

SVG renders in JupyterLab (a Markdown image), and the book and the slides inline each one as a data URI
(book_text.inline_figures), so all three work offline with no diagram library. Edit a description, then run
`python3 tools/course.py nav`, which writes them; `nav --check` (run by the tests) fails when a file is stale.
Every fact a diagram states comes from the JDK source named in its caption in the notebook.
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from pathlib import Path

HOME = Path(__file__).resolve().parent.parent
FIGURES = HOME / "notebooks" / "figures"
FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif'"
FILL = {"mounted": "#dbe9f6", "waiting": "#fde2c8", "runnable": "#d9f0d3", "end": "#eeeeee", "thread": "#f3e5f5",
        "queue": "#fff9c4"}


@dataclass
class Box:
    key: str
    label: str          # lines split at "|"
    x: float            # centre
    y: float
    kind: str = "mounted"
    w: float = 130
    h: float = 40
    dashed: bool = False


@dataclass
class Arrow:
    a: str
    b: str
    label: str = ""
    dashed: bool = False
    bend: float = 0     # sideways offset of the label, px
    at: float = 0.5     # where along the line the label sits (0: the start)


@dataclass
class Diagram:
    name: str
    title: str
    width: int
    height: int
    boxes: list[Box]
    arrows: list[Arrow]
    legend: list[tuple[str, str]] = field(default_factory=list)   # (kind, text)
    notes: list[str] = field(default_factory=list)                 # lines under the drawing


def _edge(box: Box, tx: float, ty: float) -> tuple[float, float]:
    """Where the line from the box's centre towards (tx, ty) leaves the box."""
    dx, dy = tx - box.x, ty - box.y
    if dx == 0 and dy == 0:
        return box.x, box.y
    sx = (box.w / 2) / abs(dx) if dx else math.inf
    sy = (box.h / 2) / abs(dy) if dy else math.inf
    s = min(sx, sy)
    return box.x + dx * s, box.y + dy * s


def render(d: Diagram) -> str:
    by = {b.key: b for b in d.boxes}
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{d.width}' height='{d.height}' "
           f"viewBox='0 0 {d.width} {d.height}' {FONT} font-size='12'>",
           "<defs><marker id='arrow' viewBox='0 0 10 10' refX='9' refY='5' markerWidth='7' markerHeight='7' "
           "orient='auto-start-reverse'><path d='M0,0 L10,5 L0,10 z' fill='#444'/></marker></defs>",
           f"<rect width='{d.width}' height='{d.height}' fill='white'/>",
           f"<text x='12' y='22' font-size='15' font-weight='bold'>{html.escape(d.title)}</text>"]
    for a in d.arrows:
        if a.a not in by or a.b not in by:
            raise ValueError(f"{d.name}: arrow {a.a} -> {a.b} names a box that does not exist")
        s, t = by[a.a], by[a.b]
        x1, y1 = _edge(s, t.x, t.y)
        x2, y2 = _edge(t, s.x, s.y)
        dash = " stroke-dasharray='5,4'" if a.dashed else ""
        out.append(f"<line x1='{x1:.1f}' y1='{y1:.1f}' x2='{x2:.1f}' y2='{y2:.1f}' stroke='#444' stroke-width='1.4'"
                   f"{dash} marker-end='url(#arrow)'/>")
        if a.label:
            mx, my = x1 + (x2 - x1) * a.at, y1 + (y2 - y1) * a.at
            length = math.hypot(x2 - x1, y2 - y1) or 1
            nx, ny = -(y2 - y1) / length, (x2 - x1) / length   # normal: the label sits beside the line
            off = a.bend or 9
            lx, ly = mx + nx * off, my + ny * off
            anchor = "middle" if abs(nx) < 0.3 else ("start" if nx * off > 0 else "end")
            for k, line in enumerate(a.label.split("|")):
                out.append(f"<text x='{lx:.1f}' y='{ly + 4 + 13 * k:.1f}' text-anchor='{anchor}' fill='#333' "
                           f"font-size='11'>{html.escape(line)}</text>")
    for b in d.boxes:
        dash = " stroke-dasharray='5,4'" if b.dashed else ""
        out.append(f"<rect x='{b.x - b.w / 2:.1f}' y='{b.y - b.h / 2:.1f}' width='{b.w}' height='{b.h}' rx='7' "
                   f"fill='{FILL[b.kind]}' stroke='#555'{dash}/>")
        lines = b.label.split("|")
        for k, line in enumerate(lines):
            y = b.y + 4 + 14 * (k - (len(lines) - 1) / 2)
            weight = " font-weight='bold'" if k == 0 else ""
            out.append(f"<text x='{b.x:.1f}' y='{y:.1f}' text-anchor='middle'{weight}>{html.escape(line)}</text>")
    lx = 12
    for kind, text in d.legend:
        y = d.height - 16 - 16 * len(d.notes)
        out.append(f"<rect x='{lx}' y='{y - 10}' width='14' height='12' rx='3' fill='{FILL[kind]}' stroke='#555'/>")
        out.append(f"<text x='{lx + 19}' y='{y}'>{html.escape(text)}</text>")
        lx += 30 + 7 * len(text)
    for k, note in enumerate(d.notes):
        out.append(f"<text x='12' y='{d.height - 10 - 16 * (len(d.notes) - 1 - k)}' fill='#333' font-size='11'>"
                   f"{html.escape(note)}</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---- the diagrams ----------------------------------------------------------------------------------------------

LIFE_CYCLE = Diagram(
    "life-cycle", "A virtual thread's states (java.lang.VirtualThread.state), JDK 21 and JDK 25", 1040, 590,
    boxes=[
        Box("new", "NEW", 110, 90, "end", 100),
        Box("started", "STARTED|queued to run", 110, 230, "runnable", 140, 46),
        Box("running", "RUNNING|mounted on a carrier", 420, 230, "mounted", 180, 46),
        Box("terminated", "TERMINATED", 420, 90, "end"),
        Box("parking", "PARKING|TIMED_PARKING", 700, 90, "mounted", 150, 46),
        Box("pinned", "PINNED / TIMED_PINNED|parks the carrier too;|unparked, runs on in place", 720, 185, "mounted", 200, 60),
        Box("parked", "PARKED|TIMED_PARKED", 950, 90, "waiting", 130, 46),
        Box("unparked", "UNPARKED|queued to run", 950, 230, "runnable", 130, 46),
        Box("yielding", "YIELDING", 760, 340, "mounted", 120),
        Box("yielded", "YIELDED|queued to run", 600, 440, "runnable", 140, 46),
        Box("blocking", "BLOCKING (24+)", 190, 340, "mounted", 150, 40, True),
        Box("blocked", "BLOCKED (24+)|waits for a monitor", 190, 440, "waiting", 170, 46, True),
        Box("unblocked", "UNBLOCKED (24+)|queued to run", 400, 440, "runnable", 150, 46, True),
    ],
    arrows=[
        Arrow("new", "started", "start(): submitted", bend=-10),
        Arrow("started", "running", "a carrier mounts it", bend=-10),
        Arrow("started", "terminated", "failed to start", bend=12, at=0.6),
        Arrow("running", "terminated", "run() ends"),
        Arrow("running", "parking", "park, sleep", bend=-12),
        Arrow("parking", "parked", "unmounts", bend=-10),
        Arrow("parking", "pinned", "can't yield"),
        Arrow("pinned", "running", ""),
        Arrow("parked", "unparked", "unpark, timer:|submitted"),
        Arrow("unparked", "running", "mounted again", bend=-10),
        Arrow("running", "yielding", "Thread.yield", bend=-10),
        Arrow("yielding", "yielded", "unmounts", bend=-10),
        Arrow("yielded", "running", "", True),
        Arrow("yielding", "running", "yield failed", bend=-14, at=0.55),
        Arrow("running", "blocking", "monitor busy", True, bend=-10),
        Arrow("blocking", "blocked", "unmounts (JEP 491)", True),
        Arrow("blocked", "unblocked", "", True),
        Arrow("unblocked", "running", "", True),
    ],
    legend=[("mounted", "mounted (holds a carrier)"), ("waiting", "unmounted, waiting"),
            ("runnable", "unmounted, queued to run"), ("end", "not started / ended")],
    notes=["Unmounting moves the frames to the heap. Dashed: JDK 24+ only (BLOCKED -> UNBLOCKED: the unblocker thread).",
           "JDK 25 also has WAITING / WAIT and TIMED_WAITING / TIMED_WAIT for Object.wait; on JDK 21 a busy monitor or",
           "Object.wait pins instead. Source: java.lang.VirtualThread, the int constants NEW ... TERMINATED (JDK 21: 0-11",
           "and 99; JDK 25: 0-18 and 99); methods park, parkNanos, yieldContinuation, afterYield, unpark."],
)

SUBMISSION = Diagram(
    "submission-paths", "Where a runnable virtual thread waits: the scheduler's queues (JDK 21 and 25)", 900, 470,
    boxes=[
        Box("spawner", "a virtual thread|calls start() or unpark()", 130, 90, "thread", 200, 46),
        Box("timer25", "JDK 25: a carrier runs|an expired timer task", 130, 195, "thread", 200, 46, True),
        Box("platform", "a platform thread|(main, a timer on 21)", 130, 300, "thread", 200, 46),
        Box("own", "carrier A's own queue|(a work queue, FIFO)", 470, 90, "queue", 200, 46),
        Box("sub", "submission queues|(shared, external)", 470, 300, "queue", 200, 46),
        Box("carrierA", "carrier A|runs the waker", 780, 90, "mounted", 160, 46),
        Box("carrierB", "carrier B|idle: scans every queue", 780, 300, "mounted", 180, 46),
    ],
    arrows=[
        Arrow("spawner", "own", "unpark()", bend=-10),
        Arrow("timer25", "own", "lazy: no signal", True, bend=12, at=0.45),
        Arrow("spawner", "sub", "start()", bend=-12),
        Arrow("platform", "sub", "start() / unpark()"),
        Arrow("own", "carrierA", "takes, oldest first", bend=-10),
        Arrow("own", "carrierB", "steals", bend=12, at=0.25),
        Arrow("sub", "carrierB", "takes"),
        Arrow("sub", "carrierA", "takes", bend=-12, at=0.25),
    ],
    legend=[("thread", "who makes it runnable"), ("queue", "where it waits"), ("mounted", "a carrier")],
    notes=["Unpark from a virtual thread: JDK 21 switchToCarrierThread, then submit; JDK 25 Continuation.pin, then execute;",
           "poolSubmit reads the carrier (JLA.currentCarrierThread). Timers: JDK 21's VirtualThread-unparker (a platform",
           "thread: submission queues); JDK 25's timer task (ForkJoinPool.schedule) runs on a carrier, and parkTimeoutExpired",
           "-> unpark(true) -> lazySubmitRunContinuation pushes the sleeper to that carrier's own queue, waking no other.",
           "Sources: VirtualThread.start, unpark, submitRunContinuation, afterYield; ForkJoinPool.poolSubmit, lazySubmit,",
           "runWorker. Measured: snippets S27 (which-queue) and S37 (unpark-stealing)."],
)

IO_TIMER = Diagram(
    "io-timer-unblocker", "Who wakes a parked virtual thread: pollers, timers, the unblocker", 960, 530,
    boxes=[
        Box("vt", "virtual thread|parked, unmounted", 105, 205, "waiting", 170, 46),
        Box("poller", "pollers: a socket is ready|21: Read-Poller (platform)|25: MasterPoller + SubPoller-N (virtual)",
            480, 80, "thread", 290, 60),
        Box("timer", "timer: a wake-up is due|21: VirtualThread-unparker|25: ForkJoinPool-1-delayScheduler", 480, 205,
            "thread", 290, 60),
        Box("unblocker", "VirtualThread-unblocker (24+)|a monitor was released", 480, 330, "thread", 250, 46, True),
        Box("queues", "the scheduler's queues|(diagram above)", 860, 205, "queue", 180, 46),
    ],
    arrows=[
        Arrow("vt", "poller", "socket read: register fd, park"),
        Arrow("vt", "timer", "sleep, timed park", bend=-10),
        Arrow("vt", "unblocker", "monitor busy (24+)", True),
        Arrow("poller", "queues", "unpark (which queue:|see the notes)"),
        Arrow("timer", "queues", "unpark", bend=-10),
        Arrow("unblocker", "queues", "unblock: submit", True),
    ],
    legend=[("waiting", "waits, holds no carrier"), ("thread", "what wakes it"), ("queue", "where it waits to run")],
    notes=["JDK 21: the pollers and the unparker are platform threads, so their unparks go to the submission queues. JDK 25:",
           "the sub-pollers are virtual threads (the default on Linux only, DefaultPollerProvider.defaultPollerMode), which need a",
           "free carrier too, and their unparks go to their carrier's own queue; an expired timer task runs on a carrier, which",
           "pushes the sleeper to its own queue (lazySubmitRunContinuation).",
           "Sources: sun.nio.ch.Poller (poll, wakeup; JDK 25: jdk.pollerMode, DefaultPollerProvider), VirtualThread.parkNanos",
           "(21: scheduleUnpark; 25: ForkJoinPool.schedule, DelayScheduler.loop), VirtualThread.unblockVirtualThreads (JEP 491).",
           "Measured: snippet S29 (alias io-path), from thread dumps the JVM takes of itself."],
)

DIAGRAMS = [LIFE_CYCLE, SUBMISSION, IO_TIMER]


def stale() -> list[str]:
    """The figures whose file differs from what its description draws."""
    return [f"notebooks/figures/{d.name}.svg" for d in DIAGRAMS
            if not (FIGURES / f"{d.name}.svg").is_file()
            or (FIGURES / f"{d.name}.svg").read_text(encoding="utf-8") != render(d)]


def write() -> list[Path]:
    FIGURES.mkdir(parents=True, exist_ok=True)
    written = []
    for d in DIAGRAMS:
        path = FIGURES / f"{d.name}.svg"
        text = render(d)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            tmp = path.with_suffix(".svg.tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)
            written.append(path)
    return written


if __name__ == "__main__":
    for p in write():
        print(f"wrote {p.relative_to(HOME)}")
