package io.durableagents.artifacts;

/** An attachment refers to an artifact the store does not have. */
public class ArtifactNotFoundException extends RuntimeException {
  private final String artifactId;

  public ArtifactNotFoundException(String artifactId) {
    super("No artifact '" + artifactId + "' in the artifact store.");
    this.artifactId = artifactId;
  }

  public String artifactId() {
    return artifactId;
  }
}
