/**
 * Durable agents in a Spring Boot application: {@link
 * io.durableagents.spring.boot.DurableAgentsAutoConfiguration} on Temporal's starter, configured by
 * {@link io.durableagents.spring.boot.DurableAgentsProperties} ({@code durable-agents.*}). See
 * {@code docs/spring-boot.md}.
 */
package io.durableagents.spring.boot;
