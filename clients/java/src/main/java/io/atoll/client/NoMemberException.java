package io.atoll.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * No member could be reached: what happened at each address, grouped in a short message
 * ("no member reachable: 127.0.0.1:5701, 127.0.0.1:5702 refused the connection: is a member
 * running there?"), as the Go client says it. The failure of each address is a suppressed
 * exception, for logs.
 */
final class NoMemberException extends UnavailableException {
    private static final long serialVersionUID = 1L;
    /** How many addresses the message names per reason. */
    private static final int MAX_ADDRESSES = 5;

    final transient List<Throwable> errors;

    NoMemberException(List<String> addresses, List<Throwable> errors) {
        super(message(addresses, errors), null, -1, true, null);
        this.errors = errors;
        for (Throwable t : errors) {
            addSuppressed(t);
        }
    }

    private static String message(List<String> addresses, List<Throwable> errors) {
        if (addresses.isEmpty()) {
            return "no member reachable: no address to try";
        }
        Map<String, List<String>> byReason = new LinkedHashMap<>();
        List<String> others = new ArrayList<>();
        for (int i = 0; i < errors.size(); i++) {
            Throwable t = errors.get(i);
            String prefix = "member " + addresses.get(i) + " ";
            String m = String.valueOf(t.getMessage());
            if (t instanceof MemberConnectionException && m.startsWith(prefix)) {
                byReason.computeIfAbsent(m.substring(prefix.length()), k -> new ArrayList<>()).add(addresses.get(i));
            } else {
                others.add(m);
            }
        }
        if (byReason.size() == 1 && others.isEmpty() && byReason.keySet().iterator().next().startsWith("refused")) {
            return "no member reachable: every address refused the connection (is a member running there?): " + list(addresses);
        }
        List<String> parts = new ArrayList<>();
        byReason.forEach((reason, addrs) -> parts.add(list(addrs) + " " + reason));
        if (others.size() > MAX_ADDRESSES) {
            int more = others.size() - MAX_ADDRESSES;
            others = new ArrayList<>(others.subList(0, MAX_ADDRESSES));
            others.add("and " + more + " more");
        }
        parts.addAll(others);
        return "no member reachable: " + String.join("; ", parts);
    }

    /** Addresses, at most {@link #MAX_ADDRESSES} of them named. */
    static String list(List<String> addresses) {
        if (addresses.size() <= MAX_ADDRESSES) {
            return String.join(", ", addresses);
        }
        return String.join(", ", addresses.subList(0, MAX_ADDRESSES)) + " and " + (addresses.size() - MAX_ADDRESSES) + " more";
    }
}
