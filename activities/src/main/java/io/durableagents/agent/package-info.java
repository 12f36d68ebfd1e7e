/**
 * Agents: {@link io.durableagents.agent.Agent} (built with {@code Agent.newBuilder(name)}) names a
 * model, its instructions, tools and budgets; {@link io.durableagents.agent.AgentFactory} builds
 * one per run from the run configuration (a dynamic agent). {@link
 * io.durableagents.agent.DriftPolicy} says what a run does when its agent changed since it started,
 * and {@link io.durableagents.agent.ApprovalNotifier} hears of approvals that wait for a decision.
 */
package io.durableagents.agent;
