/**
 * The protocol between the session workflow and the plugin's activities: activity interfaces and
 * the records that cross them. Internal: not API, and may change between releases in ways a release
 * note names (a worker of the previous release must read what the next one sends during a rolling
 * deploy). Every activity type name carries the {@value ActivityNames#PREFIX} prefix so it cannot
 * collide with a team's own activities in a shared worker.
 */
package io.durableagents.workflow.internal.activity;
