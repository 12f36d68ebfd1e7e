/**
 * A model provider for OpenAI-compatible Chat Completions servers, streaming, built on the JDK HTTP
 * client and Jackson: {@link io.durableagents.model.openai.OpenAiModelProvider}.
 */
package io.durableagents.model.openai;
