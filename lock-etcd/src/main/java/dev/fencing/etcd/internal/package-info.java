/** Implementation details of the etcd provider: not API. */
@NullMarked
package dev.fencing.etcd.internal;

import org.jspecify.annotations.NullMarked;
