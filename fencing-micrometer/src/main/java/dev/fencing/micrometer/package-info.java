/**
 * Micrometer metrics for the fencing toolkit: {@link dev.fencing.micrometer.MicrometerFencingListener},
 * a listener for lock providers and fenced stores whose meters carry low-cardinality tags only.
 */
package dev.fencing.micrometer;
