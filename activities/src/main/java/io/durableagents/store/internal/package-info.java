/** Implementation details of the session store; not an API, may change without notice. */
package io.durableagents.store.internal;
