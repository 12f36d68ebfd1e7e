/** Implementation details of the testing module; not an API, may change without notice. */
package io.durableagents.testing.internal;
