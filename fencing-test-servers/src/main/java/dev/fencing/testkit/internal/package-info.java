/** Process and port plumbing behind the testkit's servers; not an API. */
@NullMarked
package dev.fencing.testkit.internal;

import org.jspecify.annotations.NullMarked;
