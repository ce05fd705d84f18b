"""Chapter 05's class-loading pins on both JDKs (snippet S31, alias class-init-pinning): waiting for another
thread's static initializer, Class.forName through a slow class loader, and that loader's loadClass called from
Java, each with 2 virtual threads on one carrier."""
from __future__ import annotations

from test_internals import _runs
from conftest import report

# 2 threads x 200 ms per case: about 1 s of cases per JDK; wide enough that a busy machine can't fake a pin.
ARGS = ["--threads", "2", "--sleep-ms", "200"]


def test_class_initialization_and_loading_pins_on_jdk_21_and_the_course_jdk():
    """init-wait: both threads wait for one initializer (~1 x the sleep either way); if the first pins, the second
    waits for the carrier until the initializer is done (~1 x), else ~0. forName: the VM calls the slow loader, a
    VM frame under the sleep: 2 x on every JDK so far. loadClass from Java: only a synchronized block, so 2 x before
    JDK 24 (a monitor held pins) and 1 x after JEP 491. JDK 26 (JDK-8369238) unmounts init-wait's invokestatic."""
    runs = _runs("class-init-pinning", ARGS)
    figures = []
    for name, r in runs.items():
        by = {c["case"]: c for c in r["cases"]}
        wait, forname, loadclass = by["init-wait"], by["forname-slow-loader"], by["loadclass-slow-loader"]
        s, feature = r["sleepMs"], r["feature"]
        assert wait["elapsedMs"] >= s and wait["ratioToSleep"] < 1.9, wait  # one initializer, waited for together
        if feature < 26:
            assert wait["pins"] and wait["carrierWaitMsMax"] > s / 2, wait
        if feature < 24:  # like Object.wait on 21: the VM waits on the carrier, and no event says so
            assert wait["pinnedEvents"] == 0, wait
        elif feature < 26:  # the first waiter's: the second finds the class initialized when it gets the carrier
            assert wait["pinnedEvents"] == 1 and any("initialization" in why for why in wait["reasons"]), wait
        assert forname["ratioToSleep"] >= 1.9 and forname["pinnedEvents"] >= 2, forname
        if feature < 24:
            assert loadclass["ratioToSleep"] >= 1.9 and loadclass["pinnedEvents"] >= 2, loadclass
        else:
            assert loadclass["ratioToSleep"] < 1.5 and loadclass["pinnedEvents"] == 0, loadclass
        figures.append(f"JDK {feature}: init-wait {wait['ratioToSleep']:.2f} x, carrier wait"
                       f" {wait['carrierWaitMsMax'] / s:.2f} x, {wait['pinnedEvents']} pinned events; forName"
                       f" {forname['ratioToSleep']:.2f} x, {forname['pinnedEvents']} events; loadClass"
                       f" {loadclass['ratioToSleep']:.2f} x, {loadclass['pinnedEvents']} events")
    report("05 class init and loading, 2 virtual threads x 200 ms on 1 carrier (elapsed / sleep): "
           + "; ".join(figures))
