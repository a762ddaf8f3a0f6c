/**
 * Hazelcast's IdentifiedDataSerializable format: the codec (factories and layouts) and records
 * read in place through a layout. Its writeObject fields hold values of any format, which it
 * reads and writes through the service's
 * {@link io.atoll.client.serialization.internal.core.Context}.
 *
 * <p>Internal to the SDK, like {@code internal/serialization/identified} in the Go module: not
 * part of its API. Applications use {@code io.atoll.client.serialization}.
 */
package io.atoll.client.serialization.internal.identified;
