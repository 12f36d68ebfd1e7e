package io.durableagents.cli;

import picocli.CommandLine.Command;

/** {@code agents reject SESSION APPROVAL_ID}: the call's result becomes a rejection. */
@Command(
    name = "reject",
    description = {
      "Reject a pending tool call; its result becomes {\"error\": \"rejected\", \"note\": ...}",
      "and the run resumes. Waits for the run to settle again, unless --no-wait."
    },
    footer = {
      "",
      "Exit codes: 0 finished, 1 failed or already decided, 3 awaiting the next approval,",
      "4 no such session or approval."
    })
public class RejectCommand extends DecideCommand {
  @Override
  boolean approved() {
    return false;
  }
}
