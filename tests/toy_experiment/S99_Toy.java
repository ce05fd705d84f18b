///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/Toy.java
//SOURCES ../helpers/unpinned/core/Experiment.java
package unpinned.snippets;

/* S99: how long do 1,000 virtual threads take to start and finish? The pitfall: none, it is a toy; the bound is a
 * loose one millisecond per thread. */

import unpinned.core.Experiment;
import unpinned.experiments.Toy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

public class S99_Toy {
    static double round(int threads) throws InterruptedException {
        long start = System.nanoTime();
        List<Thread> started = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) started.add(Thread.ofVirtual().start(() -> { }));
        for (Thread t : started) t.join();
        return (System.nanoTime() - start) / 1e6;
    }

    public static void main(String[] args) {
        Experiment.named("S99", "virtual threads started and joined", "s99-toy")
                .count("--threads", 1_000, 10_000, 1, 1_000_000, "virtual threads started per round")
                .count("--rounds", 5, 20, 2, 1_000, "rounds measured")
                .takes(Duration.ofMinutes(1), a -> Experiment.Time.of(a.count("--rounds") * 0.1,
                        "%d rounds of about 0.1 s", a.count("--rounds")))
                .run(args, S99_Toy::measure);
    }

    static Toy.Run measure(Experiment.Args a) throws InterruptedException {
        int threads = a.intCount("--threads");
        round(threads); // warm-up: class loading and the carriers' start are not the threads' cost
        double[] ms = new double[a.intCount("--rounds")];
        for (int i = 0; i < ms.length; i++) ms[i] = round(threads);
        Toy.Run run = new Toy.Run(threads, ms);
        System.out.println(Toy.EXPECTED.judge(run).text());
        return run;
    }
}
/* How to run: tools/jbang toy --threads 1000
 * What you should see (any machine, JDK 21+): each round well under a millisecond per thread, judged confirmed. */
