package io.atoll.client;

import io.atoll.client.proto.MapKey;
import io.atoll.client.proto.PipelineRequest;
import io.atoll.client.proto.PipelineResponse;
import io.atoll.client.proto.RenewLocksRequest;
import io.atoll.client.serialization.Data;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The locks a client holds for its session (taken without a lease of their own): it renews
 * their leases every third of the session lease while it lives, as the Go client does.
 */
final class SessionLocks {
    private static final System.Logger LOG = System.getLogger(SessionLocks.class.getName());

    private final AtollClient client;
    private final Map<Key, Integer> held = new ConcurrentHashMap<>();

    private record Key(String map, Data key) {
    }

    SessionLocks(AtollClient client) {
        this.client = client;
    }

    void add(String map, Data key) {
        held.merge(new Key(map, key), 1, Integer::sum);
    }

    void remove(String map, Data key) {
        held.computeIfPresent(new Key(map, key), (k, n) -> n > 1 ? n - 1 : null);
    }

    /** Renews every session lock held; those the members no longer know are forgotten. */
    void renew() {
        List<Key> keys = new ArrayList<>(held.keySet());
        if (keys.isEmpty()) {
            return;
        }
        List<Data> data = new ArrayList<>(keys.size());
        for (Key k : keys) {
            data.add(k.key());
        }
        long leaseMs = client.config.getLockSessionLease().toMillis();
        OwnerBatches.run(client, data, i -> keys.get(i).map().length() + data.get(i).totalSize() + Limits.ENTRY_OVERHEAD, true, idx -> {
            RenewLocksRequest.Builder req = RenewLocksRequest.newBuilder().setLeaseMs(leaseMs);
            for (int i : idx) {
                req.addKeys(MapKey.newBuilder().setMap(keys.get(i).map()).setKey(ClientMap.bytes(keys.get(i).key())));
            }
            return PipelineRequest.newBuilder().setRenewLocks(req).build();
        }, null).whenComplete((resps, err) -> {
            if (err != null) {
                LOG.log(System.Logger.Level.WARNING, "renewing session locks failed; they end with their lease unless the next renewal succeeds", err);
                return;
            }
            for (PipelineResponse r : resps) {
                for (MapKey k : r.getRenewLocks().getLostList()) {
                    LOG.log(System.Logger.Level.WARNING, "a session lock of map " + k.getMap() + " was lost (its lease ended, or it was force-unlocked)");
                    held.remove(new Key(k.getMap(), ClientMap.data(k.getKey())));
                }
            }
        });
    }
}
