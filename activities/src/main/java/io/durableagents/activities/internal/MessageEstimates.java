package io.durableagents.activities.internal;

import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the model's view needs of each message, worked out once per message: the message as the view
 * shows it (a long tool result cut), its estimated tokens and those of its cleared form. A worker's
 * transcript cache hands the same message objects to every turn of a session, so they are kept by
 * identity, for a bounded number of messages: without this a turn would estimate the whole
 * transcript again, which for a long session with large results costs more than the turn's own
 * work.
 */
final class MessageEstimates {
  /** The messages kept; each entry holds references only (the transcript cache holds them too). */
  private static final int MAX_MESSAGES = 50_000;

  /** One message's figures for a result limit of {@code maxChars}. */
  record Estimate(Message shown, long tokens, long clearedTokens, int maxChars) {}

  /** A message by identity: equal messages of two sessions are two entries. */
  private record Key(Message message) {
    @Override
    public boolean equals(Object other) {
      return other instanceof Key key && key.message == message;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(message);
    }
  }

  private final Map<Key, Estimate> byMessage =
      new LinkedHashMap<>(1_024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Estimate> eldest) {
          return size() > MAX_MESSAGES;
        }
      };

  /** The figures of {@code message} under a result limit of {@code maxChars} characters. */
  Estimate of(Message message, int maxChars) {
    Key key = new Key(message);
    synchronized (this) {
      Estimate known = byMessage.get(key);
      if (known != null && known.maxChars() == maxChars) {
        return known;
      }
    }
    Message shown = ModelView.cut(message, maxChars);
    Estimate estimate =
        new Estimate(
            shown,
            TokenEstimate.of(shown),
            message.role() == Role.TOOL ? TokenEstimate.of(ModelView.cleared(message)) : 0,
            maxChars);
    synchronized (this) {
      byMessage.put(key, estimate);
    }
    return estimate;
  }
}
