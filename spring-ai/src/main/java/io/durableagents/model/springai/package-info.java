/**
 * Any Spring AI {@code ChatModel} as a streaming model provider: {@link
 * io.durableagents.model.springai.SpringAiModelProvider}.
 */
package io.durableagents.model.springai;
