/** Implementation details shared by the toolkit's modules; not an API, may change without notice. */
@NullMarked
package dev.fencing.core.internal;

import org.jspecify.annotations.NullMarked;
