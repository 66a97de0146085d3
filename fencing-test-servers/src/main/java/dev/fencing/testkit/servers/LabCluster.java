package dev.fencing.testkit.servers;

import java.time.Duration;
import java.util.List;

/**
 * Servers of one kind, each a {@link LabMember} in a network namespace of its own in a
 * {@link NetworkLab}: a quorum (etcd, ZooKeeper) that elects a leader, or independent servers
 * (Redlock's masters) that do not. {@link #close()} kills every member.
 */
public interface LabCluster extends AutoCloseable {

    /** The members, in the order of their names. */
    List<? extends LabMember> members();

    /** Whether the members elect a leader that the others follow. */
    boolean electsLeader();

    /**
     * Waits up to {@code timeout} for a running member that says it is the leader and returns it.
     *
     * @throws IllegalStateException if none is within {@code timeout}, or the cluster elects none
     */
    LabMember awaitLeader(Duration timeout);

    /** A short description: the members and their addresses. */
    String describe();

    @Override
    void close();
}
