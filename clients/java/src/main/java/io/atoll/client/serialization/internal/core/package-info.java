/**
 * What the formats share: the byte buffers ({@link io.atoll.client.serialization.internal.core.BufferInput},
 * {@link io.atoll.client.serialization.internal.core.BufferOutput}), the built-in types, the
 * generic record base and builder, the field kinds' Java types, and the
 * {@link io.atoll.client.serialization.internal.core.Context} through which the codecs reach
 * the serialization service (and values of other formats).
 *
 * <p>Internal to the SDK, like {@code internal/serialization/core} in the Go module: not part of
 * its API, and free to change. Applications use {@code io.atoll.client.serialization}.
 */
package io.atoll.client.serialization.internal.core;
