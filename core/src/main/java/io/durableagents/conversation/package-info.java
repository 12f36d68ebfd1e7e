/**
 * A conversation's values, as the transcript, the client and the model providers see them: {@link
 * io.durableagents.conversation.Message}, {@link io.durableagents.conversation.ToolCall}, {@link
 * io.durableagents.conversation.Attachment}, {@link io.durableagents.conversation.Usage} and {@link
 * io.durableagents.conversation.FinishReason}. Jackson only.
 */
package io.durableagents.conversation;
