package io.durableagents.app.api;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durableagents.testing.PublicJavadoc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every public and protected declaration of a public package of every module has a javadoc comment
 * ({@link PublicJavadoc}). A module with a {@code PublicJavadocTest} of its own (an integration
 * whose libraries are not on this module's class path) is checked there instead.
 */
class PublicJavadocTest {

  private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");

  @Test
  void everyPublicDeclarationHasAComment(@TempDir Path output) throws Exception {
    Path root = PublicJavadoc.projectRoot(PublicJavadocTest.class);
    List<Path> sourceRoots = sourceRoots(root);
    assertTrue(sourceRoots.size() > 8, "modules found: " + sourceRoots);
    PublicJavadoc.assertEveryPublicDeclarationHasAComment(root, sourceRoots, output);
  }

  /** {@code <module>/src/main/java} of each module of the root pom that has no check of its own. */
  private static List<Path> sourceRoots(Path root) throws IOException {
    Matcher modules = MODULE.matcher(Files.readString(root.resolve("pom.xml")));
    List<Path> roots = new ArrayList<>();
    while (modules.find()) {
      Path module = root.resolve(modules.group(1).strip());
      Path sources = module.resolve("src/main/java");
      if (Files.isDirectory(sources) && !hasOwnCheck(module)) {
        roots.add(sources);
      }
    }
    return roots;
  }

  private static boolean hasOwnCheck(Path module) throws IOException {
    Path tests = module.resolve("src/test/java");
    if (!Files.isDirectory(tests)) {
      return false;
    }
    try (var walk = Files.walk(tests)) {
      return walk.anyMatch(path -> path.getFileName().toString().equals("PublicJavadocTest.java"));
    }
  }
}
