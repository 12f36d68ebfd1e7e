package io.durableagents.metrics;

import java.time.Duration;

/**
 * The approvals of every session in the projection that wait for a decision: how many, and how long
 * the oldest has waited ({@link Duration#ZERO} when none waits).
 */
public record WaitingApprovals(long count, Duration oldestWait) {}
