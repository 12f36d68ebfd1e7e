package io.durableagents.store.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.workflow.Approval;
import io.durableagents.workflow.activity.ApprovalRecord;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Maps rows of {@code agent_approvals} to records. */
public final class ApprovalRows {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ApprovalRows() {}

  public static ApprovalRecord read(ResultSet row) throws SQLException {
    Approval approval =
        new Approval(
            row.getString("approval_id"),
            row.getString("tool_call_id"),
            row.getString("tool_name"),
            parse(row.getString("input")),
            row.getLong("requested_at"),
            row.getLong("expires_at"));
    return new ApprovalRecord(
        approval,
        row.getInt("run"),
        row.getInt("step"),
        row.getString("status"),
        row.getLong("decided_at"),
        row.getString("decided_by"),
        row.getString("note"),
        row.getLong("notified_at"));
  }

  private static JsonNode parse(String json) {
    if (json == null) {
      return null;
    }
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      return JSON.getNodeFactory().textNode(json);
    }
  }
}
