/**
 * Hazelcast's Compact format: the codec (serializers, schemas learned from first writes), the
 * writer and reader given to {@code CompactSerializer}s, and records read in place by offset.
 * Compact objects nest compact objects only.
 *
 * <p>Internal to the SDK, like {@code internal/serialization/compact} in the Go module: not part
 * of its API. Applications use {@code io.atoll.client.serialization}.
 */
package io.atoll.client.serialization.internal.compact;
