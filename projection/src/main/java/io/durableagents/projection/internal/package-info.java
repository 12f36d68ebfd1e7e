/** Implementation details of the projection read model; not an API, may change without notice. */
package io.durableagents.projection.internal;
