/**
 * Leader election for Spring applications: {@link dev.fencing.spring.leader.LeaderOnly} runs a
 * method (a {@code @Scheduled} job) only while this instance leads, with the term's epoch bound for
 * the call; {@link dev.fencing.spring.leader.LeadershipGrantedEvent} and
 * {@link dev.fencing.spring.leader.LeadershipRevokedEvent} tell the application of its terms. The
 * Spring Boot auto-configuration sets them up from {@code fencing.leadership.*}; see
 * {@code docs/leader-election.md}.
 */
@NullMarked
package dev.fencing.spring.leader;

import org.jspecify.annotations.NullMarked;
