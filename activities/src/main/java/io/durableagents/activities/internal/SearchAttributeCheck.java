package io.durableagents.activities.internal;

import io.durableagents.plugin.SearchAttributeUpserts;
import io.durableagents.workflow.SessionSearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.common.SearchAttributeKey;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this worker's sessions upsert their search attributes: decided once, when the workers
 * start, and handed to the workflow in the recorded results of agent resolution and fork
 * preparation, never read by workflow code directly.
 */
public final class SearchAttributeCheck {
  private static final Logger log = LoggerFactory.getLogger(SearchAttributeCheck.class);
  private static final long LIST_TIMEOUT_SECONDS = 10;

  private final SearchAttributeUpserts mode;
  private volatile boolean upserts;
  private boolean decided;

  public SearchAttributeCheck(SearchAttributeUpserts mode) {
    this.mode = mode;
    this.upserts = mode == SearchAttributeUpserts.ALWAYS;
  }

  /** True when sessions may upsert their search attributes. */
  public boolean upserts() {
    return upserts;
  }

  /**
   * In {@link SearchAttributeUpserts#WHEN_REGISTERED} mode, lists the custom search attributes of
   * the client's namespace (once; later calls keep the first answer) and allows upserts only if
   * every session attribute is there with its type; otherwise logs one warning saying how to
   * register them.
   */
  public synchronized void decide(WorkflowClient client) {
    if (decided || mode != SearchAttributeUpserts.WHEN_REGISTERED) {
      return;
    }
    decided = true;
    String namespace = client.getOptions().getNamespace();
    Map<String, IndexedValueType> registered;
    try {
      registered = customAttributes(client.getWorkflowServiceStubs(), namespace);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        // The SDK's in-memory test server: no listing, and nothing registered unless a test did.
        log.info(
            "The server cannot list search attributes; sessions run without theirs"
                + " (AgentsPluginOptions searchAttributeUpserts ALWAYS upserts them where they are registered).");
      } else {
        log.warn(
            "Sessions on namespace '{}' run without their search attributes: listing them failed ({}). "
                + "Once they are registered, restart the workers; to register them:\n{}",
            namespace,
            e.getStatus(),
            commands(namespace));
      }
      return;
    }
    List<String> missing = missing(registered);
    if (missing.isEmpty()) {
      upserts = true;
      return;
    }
    log.warn(
        "Sessions on namespace '{}' run without their search attributes: {} not registered (with these types). "
            + "Register them, then restart the workers:\n{}",
        namespace,
        String.join(", ", missing),
        commands(namespace));
  }

  /** The session attributes that {@code registered} lacks, or has with another type. */
  static List<String> missing(Map<String, IndexedValueType> registered) {
    List<String> missing = new ArrayList<>();
    for (SearchAttributeKey<?> key : SessionSearchAttributes.ALL) {
      if (registered.get(key.getName()) != key.getValueType()) {
        missing.add(key.getName());
      }
    }
    return missing;
  }

  private static String commands(String namespace) {
    return "  " + String.join("\n  ", SessionSearchAttributes.createCommands(namespace));
  }

  /** The namespace's custom search attributes, asked over the client's own connection. */
  private static Map<String, IndexedValueType> customAttributes(
      WorkflowServiceStubs service, String namespace) {
    OperatorServiceStubs operator =
        OperatorServiceStubs.newServiceStubs(
            OperatorServiceStubsOptions.newBuilder(service.getOptions())
                .setTarget(null)
                .setSslContext(null)
                .setChannelInitializer(null)
                .setEnableHttps(false)
                .setChannel(service.getRawChannel())
                .validateAndBuildWithDefaults());
    try {
      return operator
          .blockingStub()
          .withDeadlineAfter(LIST_TIMEOUT_SECONDS, TimeUnit.SECONDS)
          .listSearchAttributes(
              ListSearchAttributesRequest.newBuilder().setNamespace(namespace).build())
          .getCustomAttributesMap();
    } finally {
      operator.shutdown();
    }
  }
}
