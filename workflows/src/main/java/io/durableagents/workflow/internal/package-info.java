/** The session workflow's implementation; not an API, may change without notice. */
package io.durableagents.workflow.internal;
