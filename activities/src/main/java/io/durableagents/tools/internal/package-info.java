/**
 * Implementation details of tools (schemas and their validation); not an API, may change without
 * notice.
 */
package io.durableagents.tools.internal;
