/**
 * The receiving side over Jakarta Servlet: {@link dev.fencing.propagation.servlet.FencingTokenFilter}.
 * Needs {@code jakarta.servlet-api} 6.
 */
@NullMarked
package dev.fencing.propagation.servlet;

import org.jspecify.annotations.NullMarked;
