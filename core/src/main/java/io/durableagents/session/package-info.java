/**
 * The states of a session's runs and approvals: {@link io.durableagents.session.RunStatus}, {@link
 * io.durableagents.session.Approval} and {@link io.durableagents.session.ApprovalStatus}. Jackson
 * only.
 */
package io.durableagents.session;
