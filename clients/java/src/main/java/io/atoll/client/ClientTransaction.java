package io.atoll.client;

import com.google.protobuf.ByteString;
import io.atoll.client.proto.MapKey;
import io.atoll.client.proto.PipelineRequest;
import io.atoll.client.proto.PipelineResponse;
import io.atoll.client.proto.TxCommitRequest;
import io.atoll.client.proto.TxExpect;
import io.atoll.client.proto.TxIntent;
import io.atoll.client.proto.TxLockEntry;
import io.atoll.client.proto.TxLockRequest;
import io.atoll.client.proto.TxReadRequest;
import io.atoll.client.proto.TxReadResponse;
import io.atoll.client.proto.TxReleaseRequest;
import io.atoll.client.proto.TxValidateEntry;
import io.atoll.client.proto.TxValidateRequest;
import io.atoll.client.serialization.Data;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The client's {@link Transaction}: the same protocol as the Go client's (pkg/client/txn.go),
 * call for call, so that transactions of both SDKs on the same keys conflict correctly.
 */
final class ClientTransaction implements Transaction {
    private static final System.Logger LOG = System.getLogger(ClientTransaction.class.getName());
    private static final SecureRandom RANDOM = new SecureRandom();

    private final AtollClient client;
    private final TransactionOptions options;
    private final ByteString id;
    private final Map<Key, Read> reads = new HashMap<>();
    private final Map<Key, Write> writes = new HashMap<>();
    private final Set<Key> held = new HashSet<>();
    private Key primaryKey;
    private boolean done;

    /** A key of a map, by its serialized bytes. */
    private static final class Key {
        final String map;
        final Data key;

        Key(String map, Data key) {
            this.map = map;
            this.key = key;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && ((Key) o).map.equals(map) && ((Key) o).key.equals(key);
        }

        @Override
        public int hashCode() {
            return map.hashCode() * 31 + key.hashCode();
        }
    }

    private static final class Read {
        final boolean found;
        final ByteString value;
        final int version;

        Read(TxReadResponse r) {
            this.found = r.getFound();
            this.value = r.getValue();
            this.version = r.getVersion();
        }
    }

    private static final class Write {
        final TxIntent intent;
        final Data value;

        Write(TxIntent intent, Data value) {
            this.intent = intent;
            this.value = value;
        }
    }

    ClientTransaction(AtollClient client, TransactionOptions options) {
        this.client = client;
        this.options = options;
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        this.id = ByteString.copyFrom(b);
    }

    @Override
    public <K, V> TransactionalMap<K, V> getMap(String name) {
        RequestChecks.mapName(name);
        return new Tmap<>(name);
    }

    private void checkOpen() {
        if (done) {
            throw new IllegalStateException("the transaction was committed or rolled back already");
        }
    }

    /** The 64-bit FNV-1a hash of a serialized value, as members and the Go client compute it (0: none). */
    static long contentHash(ByteString value) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < value.size(); i++) {
            h ^= value.byteAt(i) & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    private Read read(Key k) {
        Read r = reads.get(k);
        if (r != null) {
            return r;
        }
        PipelineRequest req = PipelineRequest.newBuilder().setTxRead(TxReadRequest.newBuilder()
                .setTxnId(id).setMap(k.map).setKey(ClientMap.bytes(k.key))).build();
        PipelineResponse resp = AtollClient.await(Invocation.onPartition(client, client.partitionOf(k.key), true, req));
        r = new Read(resp.getTxRead());
        reads.put(k, r);
        return r;
    }

    private void lockForUpdate(Key k) {
        if (held.contains(k)) {
            return;
        }
        Key primary = primaryKey != null ? primaryKey : k;
        TxLockRequest req = TxLockRequest.newBuilder().setTxnId(id).setLeaseMs(options.getLease().toMillis())
                .setPrimary(mapKey(primary)).addEntries(TxLockEntry.newBuilder().setMap(k.map).setKey(ClientMap.bytes(k.key)))
                .setWaitMs(options.getLockWait().toMillis()).setRead(true).build();
        PipelineResponse resp = AtollClient.await(Invocation.onPartition(client, client.partitionOf(k.key), true,
                PipelineRequest.newBuilder().setTxLock(req).build()));
        held.add(k);
        if (primaryKey == null) {
            primaryKey = k;
        }
        if (resp.getTxLock().getValuesCount() == 1) {
            reads.put(k, new Read(resp.getTxLock().getValues(0)));
        }
    }

    private static MapKey mapKey(Key k) {
        return MapKey.newBuilder().setMap(k.map).setKey(ClientMap.bytes(k.key)).build();
    }

    /** A key of a commit, with its partition. */
    private final class Item {
        final Key k;
        final int pid;
        final Write w;     // null: read only
        final Read read;   // null: written without reading

        Item(Key k, Write w) {
            this.k = k;
            this.pid = client.partitionOf(k.key);
            this.w = w;
            this.read = reads.get(k);
        }

        TxExpect expect() {
            if (!read.found) {
                return TxExpect.getDefaultInstance();
            }
            return TxExpect.newBuilder().setVersion(read.version).setValueHash(contentHash(read.value)).build();
        }

        TxLockEntry lockEntry() {
            TxLockEntry.Builder b = TxLockEntry.newBuilder().setMap(k.map).setKey(ClientMap.bytes(k.key));
            if (read != null) {
                b.setExpect(expect());
            }
            if (w != null) {
                b.setIntent(w.intent);
                if (w.value != null) {
                    b.setValue(ClientMap.bytes(w.value));
                }
            }
            return b.build();
        }

        TxValidateEntry validateEntry() {
            return TxValidateEntry.newBuilder().setMap(k.map).setKey(ClientMap.bytes(k.key)).setExpect(expect()).build();
        }
    }

    /** The global lock order: partition, key bytes (unsigned), map. */
    private static final Comparator<Item> ORDER = Comparator.<Item>comparingInt(it -> it.pid)
            .thenComparing((a, b) -> Arrays.compareUnsigned(a.k.key.toByteArray(), b.k.key.toByteArray()))
            .thenComparing(it -> it.k.map);

    @Override
    public void commit() {
        checkOpen();
        done = true;
        List<Item> writeItems = new ArrayList<>();
        List<Item> readOnly = new ArrayList<>();
        List<Item> heldItems = new ArrayList<>();
        for (Map.Entry<Key, Write> e : writes.entrySet()) {
            writeItems.add(new Item(e.getKey(), e.getValue()));
        }
        for (Key k : reads.keySet()) {
            if (!writes.containsKey(k)) {
                (held.contains(k) ? heldItems : readOnly).add(new Item(k, null));
            }
        }
        writeItems.sort(ORDER);
        readOnly.sort(ORDER);
        if (writeItems.isEmpty()) {
            // Nothing to write: the keys read are checked, those locked by getForUpdate could
            // not change, and their locks go.
            try {
                validate(readOnly);
            } finally {
                release(heldItems);
            }
            client.stats.txCommits.increment();
            return;
        }
        if (writeItems.size() == 1 && primaryKey == null && sameOwner(writeItems.get(0), readOnly)) {
            TxCommitRequest.Builder req = TxCommitRequest.newBuilder().setTxnId(id).setOnePhase(writeItems.get(0).lockEntry());
            for (Item it : readOnly) {
                req.addValidate(it.validateEntry());
            }
            commitCall(writeItems.get(0).pid, writeItems.get(0).k.map, req.build());
            client.stats.txCommits.increment();
            return;
        }
        // Two phases: lock, validate, commit at the primary, apply.
        List<Item> locked = new ArrayList<>(writeItems);
        locked.addAll(heldItems);
        locked.sort(ORDER);
        Item p = Objects.requireNonNull(choosePrimary(locked, writeItems, readOnly), "primary");
        String owner = client.ownerOf(p.pid);
        List<Item> atPrimary = new ArrayList<>();
        List<Item> elsewhere = new ArrayList<>();
        for (Item it : readOnly) {
            (Objects.equals(client.ownerOf(it.pid), owner) ? atPrimary : elsewhere).add(it);
        }
        List<Item> secondaries = new ArrayList<>();
        boolean allLocal = true;
        for (Item it : locked) {
            if (it != p) {
                secondaries.add(it);
                allLocal &= Objects.equals(client.ownerOf(it.pid), owner);
            }
        }
        // The primary's owner locks its own keys in the Commit call, unless keys read elsewhere
        // must be validated after every lock is taken.
        List<Item> localWrites = new ArrayList<>();
        List<Item> remoteWrites = new ArrayList<>();
        for (Item it : writeItems) {
            (Objects.equals(client.ownerOf(it.pid), owner) && elsewhere.isEmpty() ? localWrites : remoteWrites).add(it);
        }
        try {
            byOwner(remoteWrites, idx -> {
                TxLockRequest.Builder lr = TxLockRequest.newBuilder().setTxnId(id).setLeaseMs(options.getLease().toMillis())
                        .setPrimary(mapKey(p.k));
                for (int i : idx) {
                    lr.addEntries(remoteWrites.get(i).lockEntry());
                }
                return PipelineRequest.newBuilder().setTxLock(lr).build();
            });
            validate(elsewhere);
        } catch (RuntimeException e) {
            release(locked);
            throw e;
        }
        TxCommitRequest.Builder req = TxCommitRequest.newBuilder().setTxnId(id).setPrimary(mapKey(p.k))
                .setLeaseMs(options.getLease().toMillis()).setFinish(allLocal);
        for (Item it : secondaries) {
            req.addSecondaries(mapKey(it.k));
        }
        for (Item it : atPrimary) {
            req.addValidate(it.validateEntry());
        }
        for (Item it : localWrites) {
            req.addLock(it.lockEntry());
        }
        boolean finishing;
        try {
            try {
                finishing = commitPrimary(p, req.build());
            } catch (WrongOwnerException e) {
                if (e.isRetryable() || localWrites.isEmpty() && atPrimary.isEmpty()) {
                    throw e;
                }
                // Partitions moved since the commit was planned: lock and validate the primary
                // owner's keys where they live now, then commit at the primary alone.
                byOwner(localWrites, idx -> {
                    TxLockRequest.Builder lr = TxLockRequest.newBuilder().setTxnId(id).setLeaseMs(options.getLease().toMillis())
                            .setPrimary(mapKey(p.k));
                    for (int i : idx) {
                        lr.addEntries(localWrites.get(i).lockEntry());
                    }
                    return PipelineRequest.newBuilder().setTxLock(lr).build();
                });
                validate(atPrimary);
                finishing = commitPrimary(p, req.clearLock().clearValidate().build());
            }
        } catch (ConflictException e) {
            release(locked);
            throw e;
        }
        client.stats.txCommits.increment();
        if (finishing) {
            return;
        }
        // Committed: the writes to the other keys are applied, then the locks released (the
        // primary's last), in the background: the transaction took effect at its commit, and a
        // reader or writer of one of its keys meanwhile waits for the key's lock (or rolls the
        // transaction forward itself). A failure leaves the locks to whoever meets them.
        applyAllAsync(secondaries, true)
                .thenCompose(v -> applyAllAsync(List.of(p), true))
                .exceptionally(e -> {
                    LOG.log(System.Logger.Level.DEBUG, "finishing a committed transaction failed; its locks roll it forward", e);
                    return null;
                });
    }

    /**
     * Commits at the primary and returns whether the primary's owner finishes the transaction
     * (see {@link #commitCall}).
     */
    private boolean commitPrimary(Item p, TxCommitRequest req) {
        return commitCall(p.pid, p.k.map, req).getFinishing();
    }

    /**
     * Sends a Commit to the owner of {@code pid}, one attempt at a time, as the Go client does.
     * An attempt that may have run (its connection broke after the request went out, or the
     * member failed after it started) is asked again, as committing is idempotent; but once one
     * may have run, neither a conflict nor a transaction the member no longer knows can tell a
     * commit that happened (and was finished, its keys taken by others since) from one that did
     * not: the outcome is then unknown, never a conflict, which would run the transaction again.
     * Attempts that did not run (a member that did not own the partition or was shutting down, a
     * request never sent) are tried again freely.
     */
    private io.atoll.client.proto.TxCommitResponse commitCall(int pid, String map, TxCommitRequest req) {
        PipelineRequest call = PipelineRequest.newBuilder().setTxCommit(req).build();
        long deadline = client.invocationDeadline();
        boolean mayHaveRun = false;
        while (true) {
            AtollException err;
            try {
                return AtollClient.await(Invocation.once(client, pid, false, call, deadline)).getTxCommit();
            } catch (ConflictException e) {
                if (!mayHaveRun) {
                    throw e;
                }
                throw unknown(e);
            } catch (NotFoundException e) {
                if (!mayHaveRun) {
                    throw new ConflictException(e.getMessage(), e.getMemberAddress(), e.getGrpcCode(), false, e,
                            ConflictException.Cause.ABORTED, map);
                }
                throw unknown(e);
            } catch (WrongOwnerException | ShuttingDownException e) {
                if (!e.isRetryable()) {
                    if (mayHaveRun) {
                        throw unknown(e);
                    }
                    throw e; // the keys moved: the caller plans again
                }
                err = e; // refused before it ran
            } catch (MemberConnectionException e) {
                mayHaveRun |= e.isSent();
                err = e;
            } catch (AtollException e) {
                if (!e.isRetryable()) {
                    if (mayHaveRun || e instanceof OperationTimeoutException || e instanceof InternalException
                            || e instanceof UnavailableException) {
                        throw unknown(e); // it may have committed before it failed
                    }
                    throw e; // refused as such (an invalid request): nothing was committed
                }
                mayHaveRun = true; // it may have committed before it failed
                err = e;
            }
            if (System.nanoTime() - deadline >= 0 || client.isClosed()) {
                if (mayHaveRun) {
                    throw unknown(err);
                }
                throw err;
            }
            try {
                AtollClient.await(client.prepareRetry(err));
                Thread.sleep(client.jitter(client.retry.getInitialBackoff().toNanos()) / 1_000_000 + 1);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw unknown(err);
            }
        }
    }

    private static TransactionOutcomeUnknownException unknown(AtollException e) {
        return new TransactionOutcomeUnknownException("the transaction's commit could not be confirmed: " + e.getMessage(), e);
    }

    /**
     * The primary: the first key getForUpdate locked, else the written key whose owner owns the
     * most of the keys only read (the commit validates those itself, which saves a Validate
     * call), the first in the global order among equals, as the Go client chooses.
     */
    private Item choosePrimary(List<Item> locked, List<Item> writeItems, List<Item> readOnly) {
        if (primaryKey != null) {
            for (Item it : locked) {
                if (it.k.equals(primaryKey)) {
                    return it;
                }
            }
        }
        Item best = null;
        int bestScore = -1;
        for (Item w : writeItems) {
            int score = 0;
            for (Item r : readOnly) {
                if (Objects.equals(client.ownerOf(r.pid), client.ownerOf(w.pid))) {
                    score++;
                }
            }
            if (score > bestScore) {
                best = w;
                bestScore = score;
            }
        }
        return best;
    }

    private boolean sameOwner(Item w, List<Item> others) {
        for (Item it : others) {
            if (!Objects.equals(client.ownerOf(it.pid), client.ownerOf(w.pid))) {
                return false;
            }
        }
        return true;
    }

    private CompletableFuture<List<PipelineResponse>> byOwnerAsync(List<Item> items, Function<List<Integer>, PipelineRequest> build) {
        List<Data> keys = new ArrayList<>(items.size());
        for (Item it : items) {
            keys.add(it.k.key);
        }
        // What item i adds to a request (its map's name, key and written value), for splitting
        // a batch by size.
        java.util.function.IntUnaryOperator size = i -> {
            Item it = items.get(i);
            int n = it.k.map.length() + it.k.key.totalSize() + Limits.ENTRY_OVERHEAD;
            return it.w != null && it.w.value != null ? n + it.w.value.totalSize() : n;
        };
        return OwnerBatches.run(client, keys, size, true, build, null);
    }

    private void byOwner(List<Item> items, Function<List<Integer>, PipelineRequest> build) {
        if (!items.isEmpty()) {
            AtollClient.await(byOwnerAsync(items, build));
        }
    }

    private void validate(List<Item> items) {
        byOwner(items, idx -> {
            TxValidateRequest.Builder req = TxValidateRequest.newBuilder().setTxnId(id);
            for (int i : idx) {
                req.addEntries(items.get(i).validateEntry());
            }
            return PipelineRequest.newBuilder().setTxValidate(req).build();
        });
    }

    private CompletableFuture<List<PipelineResponse>> applyAllAsync(List<Item> items, boolean apply) {
        if (items.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        return byOwnerAsync(items, idx -> {
            TxReleaseRequest.Builder req = TxReleaseRequest.newBuilder().setTxnId(id);
            for (int i : idx) {
                req.addKeys(mapKey(items.get(i).k));
            }
            return apply ? PipelineRequest.newBuilder().setTxApply(req).build() : PipelineRequest.newBuilder().setTxRollback(req).build();
        });
    }

    private void applyAll(List<Item> items, boolean apply) {
        AtollClient.await(applyAllAsync(items, apply));
    }

    /** Rolls back the transaction's locks of items; a failure leaves them to their lease. */
    private void release(List<Item> items) {
        try {
            applyAll(items, false);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "rolling back a transaction's locks failed; their lease ends them", e);
        }
    }

    @Override
    public void rollback() {
        checkOpen();
        abort();
    }

    /** Ends the transaction without effect (also after a failure of its task). */
    void abort() {
        if (done) {
            return;
        }
        done = true;
        List<Item> items = new ArrayList<>();
        for (Key k : held) {
            items.add(new Item(k, null));
        }
        release(items);
    }

    /** The transaction's view of a map. */
    private final class Tmap<K, V> implements TransactionalMap<K, V> {
        private final String name;

        Tmap(String name) {
            this.name = name;
        }

        @Override
        public String getName() {
            return name;
        }

        private Key key(K key) {
            checkOpen();
            return new Key(name, client.toData(key, "key"));
        }

        /** The key's serialized value as the transaction sees it, or null. */
        private ByteString lookup(Key k) {
            Write w = writes.get(k);
            if (w != null) {
                return w.intent == TxIntent.TX_INTENT_PUT ? ClientMap.bytes(w.value) : null;
            }
            Read r = read(k);
            return r.found ? r.value : null;
        }

        private V decode(ByteString v) {
            return v == null ? null : AtollClient.await(client.metadata.toObject(ClientMap.data(v)));
        }

        @Override
        public V get(K key) {
            return decode(lookup(key(key)));
        }

        @Override
        public V getForUpdate(K key) {
            Key k = key(key);
            lockForUpdate(k);
            return decode(lookup(k));
        }

        @Override
        public boolean containsKey(K key) {
            return lookup(key(key)) != null;
        }

        @Override
        public V put(K key, V value) {
            V old = get(key);
            set(key, value);
            return old;
        }

        @Override
        public void set(K key, V value) {
            Key k = key(key);
            Data vd = client.toData(value, "value");
            AtollClient.await(client.metadata.flush());
            writes.put(k, new Write(TxIntent.TX_INTENT_PUT, vd));
        }

        @Override
        public V remove(K key) {
            V old = get(key);
            writes.put(key(key), new Write(TxIntent.TX_INTENT_REMOVE, null));
            return old;
        }

        @Override
        public boolean delete(K key) {
            boolean existed = containsKey(key);
            writes.put(key(key), new Write(TxIntent.TX_INTENT_REMOVE, null));
            return existed;
        }
    }
}
