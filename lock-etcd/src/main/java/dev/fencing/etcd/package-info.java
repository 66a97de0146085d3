/**
 * An etcd lock provider whose grants carry the lock key's create revision as their fencing
 * token, over jetcd: {@link dev.fencing.etcd.EtcdLockProvider}.
 */
@NullMarked
package dev.fencing.etcd;

import org.jspecify.annotations.NullMarked;
