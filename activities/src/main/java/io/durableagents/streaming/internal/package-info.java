/** Implementation details of delta streaming; not an API, may change without notice. */
package io.durableagents.streaming.internal;
