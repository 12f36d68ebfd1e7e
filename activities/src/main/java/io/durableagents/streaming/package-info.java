/**
 * Live output of model turns: {@link io.durableagents.streaming.DeltaListener} receives each text
 * and reasoning {@link io.durableagents.streaming.Delta} in the worker process that runs the turn.
 * Deltas are a view of work in progress; the recorded model turn is the source of truth.
 */
package io.durableagents.streaming;
