/**
 * Implementation details of the console (handlers, pages, views); not an API, may change without
 * notice.
 */
package io.durableagents.console.internal;
