/**
 * The testing guide's example of a third party's store and its test: it extends
 * {@code FencedStoreContract} with nothing but fencing-testkit as a test dependency, and runs in this
 * module's build. docs/testing.md shows these files; {@code DocsSnippetsTest} checks that it does.
 */
package com.example.mapstore;
