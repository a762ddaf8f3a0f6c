package io.atoll.client;

import com.google.protobuf.ByteString;
import io.atoll.client.proto.ConnectResponse;
import io.atoll.client.proto.Entry;
import io.atoll.client.proto.PipelineRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * The sizes a member accepts, as it reported them when the client connected (its
 * {@code limits.*} settings), bounded by {@link AtollClientConfig#setMaxMessageSize}. The
 * connection refuses a request over them before anything is sent (the call's future fails with
 * a {@link TooLargeException} naming the limit; the calls sharing the connection carry on), and
 * putAll and getAll split their batches to fit (as the Go client's limits).
 */
final class Limits {
    /** What an entry adds to a batch request beyond its key and value bytes, as the member counts it. */
    static final int ENTRY_OVERHEAD = 16;

    final int maxMessage;
    private final String maxMessageSetting;
    private final long maxKey;   // 0: not reported
    private final long maxValue; // 0: not reported
    private final long maxBatch; // 0: not reported

    private Limits(int maxMessage, String maxMessageSetting, long maxKey, long maxValue, long maxBatch) {
        this.maxMessage = maxMessage;
        this.maxMessageSetting = maxMessageSetting;
        this.maxKey = maxKey;
        this.maxValue = maxValue;
        this.maxBatch = maxBatch;
    }

    /** The client's own limit, before any member reported its limits. */
    static Limits of(AtollClientConfig cfg) {
        return new Limits(cfg.getMaxMessageSize(), "AtollClientConfig.setMaxMessageSize", 0, 0, 0);
    }

    /** The limits a member reported, bounded by the client's own. */
    static Limits of(AtollClientConfig cfg, ConnectResponse hello) {
        if (!hello.hasLimits()) {
            return of(cfg);
        }
        io.atoll.client.proto.Limits l = hello.getLimits();
        int max = cfg.getMaxMessageSize();
        String setting = "AtollClientConfig.setMaxMessageSize";
        if (l.getMaxMessageSize() > 0 && l.getMaxMessageSize() < max) {
            max = (int) l.getMaxMessageSize();
            setting = "the member's limits.max-message-size";
        }
        return new Limits(max, setting, l.getMaxKeySize(), l.getMaxValueSize(), l.getMaxBatchEntries());
    }

    /** The failure of a message of {@code size} bytes over the limit; null when it fits. */
    TooLargeException message(int size) {
        if (size <= maxMessage) {
            return null;
        }
        return new TooLargeException("request not sent: the message has " + size + " bytes, more than the limit of " + maxMessage
                + " (" + maxMessageSetting + ")", null, -1, false, null, maxMessage);
    }

    /**
     * The failure of a request whose keys or values are over the member's limits, or whose
     * message is over the message limit; null when it fits.
     */
    TooLargeException check(PipelineRequest req) {
        TooLargeException e = fields(req);
        return e != null ? e : message(req.getSerializedSize());
    }

    /** The failure of a request whose keys or values are over the member's limits; null when they fit. */
    private TooLargeException fields(PipelineRequest req) {
        switch (req.getOpCase()) {
            case PUT:
                return entry(req.getPut().getKey(), "value", req.getPut().getValue());
            case PUT_IF_ABSENT:
                return entry(req.getPutIfAbsent().getKey(), "value", req.getPutIfAbsent().getValue());
            case REPLACE:
                return entry(req.getReplace().getKey(), "value", req.getReplace().getValue());
            case SET:
                return entry(req.getSet().getKey(), "value", req.getSet().getValue());
            case REPLACE_IF_SAME: {
                TooLargeException e = entry(req.getReplaceIfSame().getKey(), "value", req.getReplaceIfSame().getValue());
                return e != null ? e : value("oldValue", req.getReplaceIfSame().getExpected());
            }
            case REMOVE_IF_SAME:
                return entry(req.getRemoveIfSame().getKey(), "value", req.getRemoveIfSame().getExpected());
            case GET:
                return key("key", req.getGet().getKey());
            case REMOVE:
                return key("key", req.getRemove().getKey());
            case DELETE:
                return key("key", req.getDelete().getKey());
            case CONTAINS_KEY:
                return key("key", req.getContainsKey().getKey());
            case EVICT:
                return key("key", req.getEvict().getKey());
            case GET_ENTRY_VIEW:
                return key("key", req.getGetEntryView().getKey());
            case SET_TTL:
                return key("key", req.getSetTtl().getKey());
            case PUT_ALL:
                for (int i = 0; i < req.getPutAll().getEntriesCount(); i++) {
                    Entry en = req.getPutAll().getEntries(i);
                    TooLargeException e = key("entry " + i + " key", en.getKey());
                    if (e == null) {
                        e = value("entry " + i + " value", en.getValue());
                    }
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            case GET_ALL:
                for (int i = 0; i < req.getGetAll().getKeysCount(); i++) {
                    TooLargeException e = key("key " + i, req.getGetAll().getKeys(i));
                    if (e != null) {
                        return e;
                    }
                }
                return null;
            default:
                return null;
        }
    }

    private TooLargeException entry(ByteString k, String valueField, ByteString v) {
        TooLargeException e = key("key", k);
        return e != null ? e : value(valueField, v);
    }

    private TooLargeException key(String field, ByteString k) {
        return tooLarge(field, "key", k.size(), maxKey, "limits.max-key-size");
    }

    private TooLargeException value(String field, ByteString v) {
        return tooLarge(field, "value", v.size(), maxValue, "limits.max-value-size");
    }

    private static TooLargeException tooLarge(String field, String what, int size, long limit, String setting) {
        if (limit <= 0 || size <= limit) {
            return null;
        }
        return new TooLargeException("request not sent: " + field + ": the " + what + " has " + size
                + " bytes, more than the member's limit of " + limit + " (" + setting + ")", null, -1, false, null, limit);
    }

    /**
     * Splits {@code idx}, the indexes of a batch's entries, into runs that fit in one request
     * ({@code size} gives the bytes an entry adds) and hold at most the member's limit of batch
     * entries. The request's other fields get room for a map name at its longest.
     */
    List<List<Integer>> batches(List<Integer> idx, IntUnaryOperator size) {
        long budget = maxMessage - RequestChecks.MAX_MAP_NAME - 64;
        List<List<Integer>> out = new ArrayList<>();
        List<Integer> cur = new ArrayList<>();
        long bytes = 0;
        for (int i : idx) {
            int n = size.applyAsInt(i);
            if (!cur.isEmpty() && (bytes + n > budget || maxBatch > 0 && cur.size() >= maxBatch)) {
                out.add(cur);
                cur = new ArrayList<>();
                bytes = 0;
            }
            cur.add(i);
            bytes += n;
        }
        out.add(cur);
        return out;
    }
}
