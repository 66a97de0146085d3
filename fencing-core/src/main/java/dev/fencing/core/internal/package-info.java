/** Implementation details shared by the toolkit's modules; not an API, may change without notice. */
package dev.fencing.core.internal;
