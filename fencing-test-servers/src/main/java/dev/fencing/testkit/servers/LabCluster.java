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

    /**
     * Whether a leader that dies stays dead until someone promotes another member in its place
     * ({@link #promoteReplica}), as with PostgreSQL's streaming replicas, rather than the members
     * electing one among themselves.
     */
    default boolean promotesReplicas() {
        return false;
    }

    /**
     * Promotes a running replica to leader, as an operator or a failover manager would once the
     * leader is gone, and returns it once it serves as one.
     *
     * @throws UnsupportedOperationException if the cluster elects its leaders ({@link #promotesReplicas()})
     */
    default LabMember promoteReplica(Duration timeout) {
        throw new UnsupportedOperationException(describe() + " elects its leaders; nothing is promoted by hand");
    }

    /** A short description: the members and their addresses. */
    String describe();

    @Override
    void close();
}
