package io.atoll.client;

import io.atoll.client.proto.ErrorCode;
import io.atoll.client.proto.ErrorDetail;
import io.grpc.Status;

import java.net.ConnectException;
import java.time.Duration;

/**
 * What happened to a member's connection, in words a user can act on ("member 127.0.0.1:5702
 * closed the connection; it may have stopped"), as the Go client's connReason says it. The
 * transport's own exception stays the cause, for logs at debug level.
 */
final class ConnectionFailures {
    private ConnectionFailures() {
    }

    /** The message of a failure of the connection to {@code address}. */
    static String message(String address, Throwable t) {
        return "member " + address + " " + reason(t);
    }

    /** What happened, after "member ADDRESS ". */
    static String reason(Throwable t) {
        t = Errors.unwrap(t);
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ConnectException) {
                return "refused the connection: is a member running there?";
            }
            if (c instanceof ClientNotActiveException) {
                return "was disconnected: the client is closed";
            }
            if (c instanceof ConnectTimeout) {
                return "did not answer within " + format(((ConnectTimeout) c).timeout) + " (AtollClientConfig.setConnectTimeout)";
            }
            if (c instanceof MemberLeft) {
                return "left the cluster: the partition table no longer names it";
            }
        }
        ErrorDetail d = Errors.detailOf(t);
        if (d != null && d.getCode() == ErrorCode.ERROR_CODE_SHUTTING_DOWN) {
            return "is shutting down";
        }
        Status s = Status.fromThrowable(t);
        String desc = s.getDescription() == null ? "" : s.getDescription();
        String all = desc + " " + String.valueOf(t.getMessage());
        for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
            all += " " + c.getMessage();
        }
        if (all.contains("eepalive")) {
            return "stopped answering: no answer to the heartbeat within AtollClientConfig.setHeartbeatTimeout";
        }
        if (s.getCode() == Status.Code.DEADLINE_EXCEEDED) {
            return "did not answer in time";
        }
        if (s.getCode() == Status.Code.UNAVAILABLE || t instanceof IllegalStateException
                || all.contains("closed") || all.contains("reset") || all.contains("Broken pipe")) {
            return "closed the connection; it may have stopped";
        }
        if (t instanceof AtollException) {
            return "failed: " + ((AtollException) t).rawMessage();
        }
        return "failed: " + (desc.isEmpty() ? s.getCode().toString() : desc);
    }

    /** A duration as people write it: 500ms, 2s, 1.5s, 2m. */
    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0);
    }

    /** A member that did not answer the client's Connect within the connect timeout. */
    static final class ConnectTimeout extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient Duration timeout;

        ConnectTimeout(Duration timeout) {
            super("no answer within " + format(timeout), null, false, false);
            this.timeout = timeout;
        }
    }

    /** A member that a new partition table no longer names. */
    static final class MemberLeft extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MemberLeft() {
            super("the partition table no longer names the member", null, false, false);
        }
    }
}
