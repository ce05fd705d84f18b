///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES Worked.java
//SOURCES ../helpers/unpinned/core/Bounds.java
//SOURCES ../helpers/unpinned/core/Profile.java
package unpinned.solutions;

/*
 * Worked solutions to the exercises of chapter 08 (notebooks/08-how-does-my-machine-compare.ipynb).
 * Try them in the notebook first: the reasoning is the point, not the number.
 *
 * A figure compares across machines as a share of its own bound: measured / bound for a
 * throughput, bound / measured for a time (a time can't be shorter than its bound).
 */

import unpinned.core.Bounds;
import unpinned.core.Profile;

public class Chapter08 {

    public static void main(String[] args) {
        Profile.announce();
        Worked worked = new Worked("08");

        worked.exercise("08.1", "Share of a time bound: the pool of 8 at 3,300 ms per batch");
        // The wave bound: ceil(500 / 8) = 63 waves of 50 ms; a time's share is bound / measured.
        double boundMs = Bounds.makespanMs(500, 8, 50);
        double share = boundMs / 3_300;
        System.out.println("ceil(500 / 8) x 50 ms = " + Worked.num(boundMs) + " ms; "
                + Worked.num(boundMs) + " / 3,300 ms = " + Worked.ratio(share));
        worked.check("08.1", share, "of the bound", 3_300 / boundMs,
                "measured / bound: for a time, upside down");

        worked.exercise("08.2", "Same share, other machine: 16 cores, pool of 50, share 0.99");
        // The pool caps the requests in service on any machine: min(500, 50) / 0.100 s = 500 req/s.
        double bound = Bounds.closedLoopThroughput(500, 50, 0.100);
        double measured = 0.99 * bound;
        System.out.println("0.99 x min(500, 50) / 0.100 s = 0.99 x " + Worked.num(bound) + " = "
                + Worked.num(measured) + " req/s");
        worked.check("08.2", measured, "req/s", measured * 16 / 2, "scaled by the cores, 16 / 2");
        worked.finish();
    }
}
