/**
 * A ZooKeeper lock provider (Apache Curator): each contender is an ephemeral sequential znode
 * under the resource's parent, the lowest holds, waiters watch their predecessor, and the
 * holder's {@code czxid} — a zxid of ZooKeeper's replicated log — is the fencing token.
 */
@NullMarked
package dev.fencing.zookeeper;

import org.jspecify.annotations.NullMarked;
