package io.durableagents.cli;

import picocli.CommandLine.Command;

/** {@code agents approve SESSION APPROVAL_ID}: the gated call runs, the run resumes. */
@Command(
    name = "approve",
    description = {
      "Approve a pending tool call; the call runs and the run resumes.",
      "Waits for the run to settle again and prints its result, unless --no-wait."
    },
    footer = {
      "",
      "Exit codes: 0 finished, 1 failed or already decided, 3 awaiting the next approval,",
      "4 no such session or approval."
    })
public class ApproveCommand extends DecideCommand {
  @Override
  boolean approved() {
    return true;
  }
}
