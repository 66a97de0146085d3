/**
 * An etcd lock provider whose grants carry the lock key's create revision as their fencing
 * token, over jetcd: {@link dev.fencing.etcd.EtcdLockProvider}.
 */
package dev.fencing.etcd;
