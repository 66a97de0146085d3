package dev.fencing.zookeeper;

import java.io.IOException;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * A ZooKeeper handle that tells the last zxid its client saw: every reply carries the server's
 * last processed zxid, which the client keeps (and offers the server on reconnecting, which then
 * refuses a server behind it) but does not expose. The provider's high-water mark reads it.
 */
@SuppressWarnings("try") // ZooKeeper.close() throws InterruptedException; Curator closes these handles
final class ZxidZooKeeper extends ZooKeeper {

    /** Curator's factory for these handles: a handle Curator makes again after a session ended is one too. */
    static final ZookeeperFactory FACTORY = new ZookeeperFactory() {
        @Override
        public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly)
                throws IOException {
            return new ZxidZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly, new ZKClientConfig());
        }

        @Override
        public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly,
                ZKClientConfig config) throws IOException {
            return new ZxidZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly, config);
        }
    };

    private ZxidZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly,
            ZKClientConfig config) throws IOException {
        super(connectString, sessionTimeout, watcher, canBeReadOnly, config);
    }

    /** The zxid of the last reply this handle got (0 before the first). */
    long lastZxid() {
        return cnxn.getLastZxid();
    }

    /** The last zxid {@code handle} saw, if it is one of these; else 0. */
    static long lastZxidOf(ZooKeeper handle) {
        return handle instanceof ZxidZooKeeper tracked ? tracked.lastZxid() : 0;
    }
}
