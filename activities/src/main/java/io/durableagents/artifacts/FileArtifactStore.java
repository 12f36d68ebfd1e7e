package io.durableagents.artifacts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Artifacts as files in one directory (default {@code .agents/artifacts}), named by random ids.
 * Workers and clients that share the directory share the artifacts; for several machines, point it
 * at shared storage or implement {@link ArtifactStore} on your object store.
 */
public final class FileArtifactStore implements ArtifactStore {
  private static final Pattern VALID_ID = Pattern.compile("[A-Za-z0-9_-]{1,128}");

  private final Path directory;

  /** A store of the files in {@code directory}, created when the first artifact is written. */
  public FileArtifactStore(Path directory) {
    this.directory = directory;
  }

  /** A store in {@code .agents/artifacts} under the working directory. */
  public static FileArtifactStore defaultStore() {
    return new FileArtifactStore(Path.of(".agents", "artifacts"));
  }

  @Override
  public String put(byte[] bytes, String mediaType) {
    String id = UUID.randomUUID().toString();
    try {
      Files.createDirectories(directory);
      Path temporary = Files.createTempFile(directory, id, ".part");
      Files.write(temporary, bytes);
      Files.move(temporary, file(id), StandardCopyOption.ATOMIC_MOVE);
      return id;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot store an artifact in " + directory, e);
    }
  }

  @Override
  public byte[] read(String artifactId) {
    try {
      return Files.readAllBytes(file(artifactId));
    } catch (NoSuchFileException e) {
      throw new ArtifactNotFoundException(artifactId);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read artifact " + artifactId, e);
    }
  }

  @Override
  public void delete(String artifactId) {
    try {
      Files.deleteIfExists(file(artifactId));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete artifact " + artifactId, e);
    }
  }

  private Path file(String artifactId) {
    if (artifactId == null || !VALID_ID.matcher(artifactId).matches()) {
      throw new ArtifactNotFoundException(String.valueOf(artifactId));
    }
    return directory.resolve(artifactId + ".bin");
  }
}
