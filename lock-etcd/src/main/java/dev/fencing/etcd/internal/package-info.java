/** Implementation details of the etcd provider: not API. */
package dev.fencing.etcd.internal;
