package dev.fencing.cli.backends;

import java.lang.management.ManagementFactory;
import java.util.Set;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The {@code expire-zookeeper-session} fault: the embedded ZooKeeper server (curator-test's, in
 * this JVM) ends the sessions of its clients, as it does when a session times out. It uses the
 * server's own management interface, {@code ConnectionMXBean.terminateSession()} on each client
 * connection, which closes the session on the server: its ephemeral znodes — every lock holder's
 * and every waiter's ticket — are deleted, and the client learns on reconnecting that its session
 * has expired (Curator's {@code LOST}), so the lock provider reports those leases lost and carries
 * on in a new session. The only ZooKeeper client of a CLI run is its lock provider, so the sessions
 * ended are the holders'.
 */
final class ZooKeeperSessions {

    private final int port;

    /** The sessions of the in-JVM server listening on {@code port}. */
    ZooKeeperSessions(int port) {
        this.port = port;
    }

    /**
     * Ends every client session of the server now.
     *
     * @return how many sessions were ended (none if no client is connected)
     * @throws IllegalStateException if the management interface refuses
     */
    int expireAll() {
        MBeanServer beans = ManagementFactory.getPlatformMBeanServer();
        try {
            Set<ObjectName> connections = beans.queryNames(new ObjectName("org.apache.ZooKeeperService:name0="
                    + "StandaloneServer_port" + port + ",name1=Connections,*"), null);
            int ended = 0;
            for (ObjectName connection : connections) {
                beans.invoke(connection, "terminateSession", null, null);
                ended++;
            }
            return ended;
        } catch (JMException e) {
            throw new IllegalStateException("cannot end the sessions of the embedded ZooKeeper on port " + port + ": "
                    + e.getMessage(), e);
        }
    }
}
