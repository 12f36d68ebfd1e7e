/** Implementation details of the client; not an API, may change without notice. */
package io.durableagents.client.internal;
