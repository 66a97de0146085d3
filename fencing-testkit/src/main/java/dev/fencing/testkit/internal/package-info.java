/** Process and port plumbing behind the testkit's servers; not an API. */
package dev.fencing.testkit.internal;
