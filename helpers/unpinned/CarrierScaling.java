package unpinned;

import com.google.gson.JsonObject;
import java.util.List;

/**
 * One run of snippet S14 (alias carrier-scaling) on P carriers, in its own JVM: a sleeping batch and a computing
 * batch, each with its bound. Chapter 04 draws them; chapter 08 runs one fresh to compare machines. Medians.
 * Needs ChildRun.java (and what it needs) alongside.
 */
public record CarrierScaling(int carriers, double ioWallMs, double ioBoundMs, double cpuWallMs,
                             double cpuWallMinMs, double cpuBoundMs, double carrierCpuMs)
        implements Measurement.Measured {

    /**
     * Each batch's wall time against the time it can't beat: one sleep for the sleeping batch, the carriers' CPU
     * time / min(P, cores) for the computing one (chapter 08 compares machines by these shares).
     */
    @Override
    public List<Measurement> measurements() {
        String p = "P=" + carriers;
        return List.of(Measurement.of(p + " · io", ioWallMs, "ms").bound(ioBoundMs, Measurement.Bound.LOWER_TIME),
                Measurement.of(p + " · cpu", cpuWallMs, "ms").bound(cpuBoundMs, Measurement.Bound.LOWER_TIME));
    }

    /** Runs S14 with {@code --carriers carriers} in a child JVM. */
    public static CarrierScaling run(int carriers) {
        if (carriers < 1 || carriers > 256) {
            throw new IllegalArgumentException("carriers must be between 1 and 256, got " + carriers);
        }
        return of(ChildRun.json("S14_CarrierScaling.java", "--carriers", Integer.toString(carriers)));
    }

    /** Reads the snippet's JSON: the parallelism its scheduler reported, then each batch's times. */
    static CarrierScaling of(JsonObject r) {
        JsonObject io = r.getAsJsonObject("io");
        JsonObject cpu = r.getAsJsonObject("cpu");
        return new CarrierScaling(r.get("parallelismSeen").getAsInt(), io.get("wallMs").getAsDouble(),
                io.get("boundMs").getAsDouble(), cpu.get("wallMs").getAsDouble(),
                cpu.get("wallMsMin").getAsDouble(), cpu.get("carrierBoundMs").getAsDouble(),
                cpu.get("carrierCpuMs").getAsDouble());
    }
}
