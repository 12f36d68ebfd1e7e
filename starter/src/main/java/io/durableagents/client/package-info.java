/**
 * Starting and continuing sessions from your code: {@link io.durableagents.client.AgentClient}
 * ({@code AgentClient.newInstance(workflowClient, options)}) sends messages, decides approvals,
 * cancels and forks; {@link io.durableagents.client.ProjectionReader} reads sessions, history and
 * approvals from the projection. Failures are {@link
 * io.durableagents.client.AgentClientException}s.
 */
package io.durableagents.client;
