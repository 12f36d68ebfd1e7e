/**
 * Activity interfaces of the session workflow and the records that cross them. Every activity
 * type name carries the {@value io.durableagents.workflow.activity.ActivityNames#PREFIX} prefix so it
 * cannot collide with a team's own activities in a shared worker.
 */
package io.durableagents.workflow.activity;
