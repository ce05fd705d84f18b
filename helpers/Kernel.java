///usr/bin/env jbang "$0" "$@" ; exit $?
// The entry point that gathers the shared helpers for the notebook kernel:
// `make setup` runs `jbang info classpath helpers/Kernel.java` and puts the result
// (helpers jar + pinned dependencies) on the course kernel's classpath.
// Running it prints the helpers' view of this machine.
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES unpinned/core/*.java
//SOURCES unpinned/running/*.java
//SOURCES unpinned/showing/*.java
//SOURCES unpinned/workloads/*.java
//SOURCES unpinned/experiments/*.java
//SOURCES unpinned/course/*.java
// core's Show draws a run's samples with showing's LiveChart, found through ServiceLoader (no import going up)
//FILES META-INF/services/unpinned.core.Show$SampleChart=unpinned/showing/LiveChart.service
// Reactor for chapter 02's demonstration cells: the version reactor-netty-http 1.2.12 brings to the snippets.
//DEPS io.projectreactor:reactor-core:3.7.13

public class Kernel {
    public static void main(String... args) {
        System.out.println(unpinned.core.Machine.describe());
    }
}
