/**
 * A model provider for Anthropic's Messages API, streaming, built on Anthropic's Java SDK: {@link
 * io.durableagents.model.anthropic.AnthropicModelProvider}, and the {@code anthropic:MODEL} model
 * spec.
 */
package io.durableagents.model.anthropic;
