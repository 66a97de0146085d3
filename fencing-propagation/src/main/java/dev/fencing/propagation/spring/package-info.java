/**
 * Spring: clients ({@link dev.fencing.propagation.spring.FencingTokenInterceptor} for
 * {@code RestClient}, {@link dev.fencing.propagation.spring.FencingExchangeFilter} for
 * {@code WebClient}) and Spring MVC handlers
 * ({@link dev.fencing.propagation.spring.FencingTokenArgumentResolver},
 * {@link dev.fencing.propagation.spring.FencingProblemAdvice}). Needs {@code spring-web}, and
 * {@code spring-webmvc} or {@code spring-webflux} for the pieces that use them.
 */
@NullMarked
package dev.fencing.propagation.spring;

import org.jspecify.annotations.NullMarked;
