/** The plugin's activity implementations; not an API, may change without notice. */
package io.durableagents.activities.internal;
