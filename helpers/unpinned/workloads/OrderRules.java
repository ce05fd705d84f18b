package unpinned.workloads;

import java.util.NoSuchElementException;

/**
 * The order service's business rules, one copy for chapter 02's three versions (snippet S06) and chapter 06's Spring
 * Boot ones (S22): an item's price and stock, the order's JSON answer, and the id as the query gives it. The
 * dependencies (100 ms for the price, 10 ms for the stock) wrap these; what differs between the versions is how
 * they wait, never what they compute.
 */
public final class OrderRules {
    private OrderRules() {}

    /** Items with a stock record: 0 .. ITEMS - 1. Asking for another one fails deep in the stock lookup. */
    public static final long ITEMS = 1_000_000;
    /** The answer to an id that is not a whole number (status 400). */
    public static final String BAD_ID = "{\"error\":\"id must be a number\"}";

    public static double price(long id) {
        return 10 + id % 90;
    }

    public static int stock(long id) {
        if (id < 0 || id >= ITEMS) throw new NoSuchElementException("no stock record for item " + id);
        return (int) (id % 7);
    }

    /** The order's JSON answer. */
    public static String orderJson(long id, double price, int stock) {
        return "{\"id\":" + id + ",\"price\":" + price + ",\"stock\":" + stock + "}";
    }

    /** The id as the service reads it: absent is 0, anything but a whole number is -1 (refused with 400). */
    public static long id(String value) {
        if (value == null) return 0;
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
