package io.durableagents.artifacts;

/** An attachment refers to an artifact the store does not have. */
public class ArtifactNotFoundException extends RuntimeException {
  /** The id that was not found. */
  private final String artifactId;

  /** An artifact that {@code artifactId} names is not in the store. */
  public ArtifactNotFoundException(String artifactId) {
    super("No artifact '" + artifactId + "' in the artifact store.");
    this.artifactId = artifactId;
  }

  /** The id that was not found. */
  public String artifactId() {
    return artifactId;
  }
}
