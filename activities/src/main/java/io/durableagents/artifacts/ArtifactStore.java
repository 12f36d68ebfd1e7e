package io.durableagents.artifacts;

/**
 * Where attachment bytes live. Transcripts and Temporal payloads only carry references; a model
 * turn reads the bytes of each attachment it shows the model, for that call only.
 */
public interface ArtifactStore {

  /** Stores bytes and returns the new artifact's id. */
  String put(byte[] bytes, String mediaType);

  /**
   * The bytes of an artifact.
   *
   * @throws ArtifactNotFoundException when there is no such artifact (deleted, or never stored)
   */
  byte[] read(String artifactId);

  /** Removes an artifact; a no-op when it does not exist. */
  void delete(String artifactId);
}
