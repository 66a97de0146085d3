/**
 * Micrometer metrics for the fencing toolkit: {@link dev.fencing.micrometer.MicrometerFencingListener},
 * a listener for lock providers and fenced stores whose meters carry low-cardinality tags only.
 */
@NullMarked
package dev.fencing.micrometer;

import org.jspecify.annotations.NullMarked;
