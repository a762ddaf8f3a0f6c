/**
 * Hazelcast's Portable format: the codec (factories, class definitions registered, derived or
 * read), the writer and reader given to {@code Portable}s, and records read in place through the
 * field table. Portable objects nest portable objects only.
 *
 * <p>Internal to the SDK, like {@code internal/serialization/portable} in the Go module: not part
 * of its API. Applications use {@code io.atoll.client.serialization}.
 */
package io.atoll.client.serialization.internal.portable;
