package io.durableagents.agent;

import io.durableagents.session.Approval;

/**
 * Tells people that a decision is waiting (a chat message, an e-mail, a ticket). Called from an
 * activity and retried until it returns normally, so it may run more than once for one approval:
 * use {@code approval.approvalId()} to de-duplicate.
 */
@FunctionalInterface
public interface ApprovalNotifier {
  /**
   * Tells people that {@code approval} in session {@code sessionId} of {@code agent} waits for a
   * decision; throw to be called again.
   */
  void notify(String sessionId, String agent, Approval approval) throws Exception;
}
