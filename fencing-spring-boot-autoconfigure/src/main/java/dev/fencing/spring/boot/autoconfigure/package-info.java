/**
 * Spring Boot auto-configuration of the fencing toolkit: a lock provider from
 * {@code fencing.lock.type}, the toolkit's tables in the application's Flyway run, JDBC and Jdbi
 * fences, a {@code fencing} health indicator and Micrometer metrics. Every bean backs off when the
 * application defines its own.
 */
@NullMarked
package dev.fencing.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
