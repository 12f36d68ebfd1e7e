package io.durableagents.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.DocumentationTool;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The check that every public and protected declaration of a public package (one without an {@code
 * internal} segment) has a javadoc comment: the JDK's javadoc with {@code -Xdoclint:missing}
 * reports "no comment" for none of them. Its missing {@code @param} and {@code @return} warnings
 * are not required. Javadoc resolves the sources' types on the calling test's class path, so a
 * module whose libraries no other module has runs the check on its own sources.
 */
public final class PublicJavadoc {
  private PublicJavadoc() {}

  /**
   * The checkout's root, for a test class of a module: {@code <module>/target/test-classes/../..}.
   */
  public static Path projectRoot(Class<?> testClass) throws URISyntaxException {
    Path testClasses =
        Path.of(testClass.getProtectionDomain().getCodeSource().getLocation().toURI());
    return testClasses.getParent().getParent().getParent();
  }

  /** Fails naming each public declaration under {@code sourceRoots} without a comment. */
  public static void assertEveryPublicDeclarationHasAComment(
      Path root, List<Path> sourceRoots, Path output) throws IOException {
    List<Path> files = publicSources(sourceRoots);
    assertTrue(!files.isEmpty(), "no public sources in " + sourceRoots);

    DocumentationTool javadoc = ToolProvider.getSystemDocumentationTool();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    StringWriter log = new StringWriter();
    boolean succeeded;
    try (StandardJavaFileManager fileManager =
        javadoc.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      List<String> options =
          List.of(
              "-quiet",
              "-locale",
              "en",
              "-encoding",
              "UTF-8",
              "-Xdoclint:missing",
              "-Xmaxwarns",
              "100000",
              // Internal types and libraries: the compiled modules on the test's class path.
              "--class-path",
              System.getProperty("java.class.path"),
              "-d",
              output.toString());
      succeeded =
          javadoc
              .getTask(
                  log,
                  fileManager,
                  diagnostics,
                  null,
                  options,
                  fileManager.getJavaFileObjectsFromPaths(files))
              .call();
    }
    assertTrue(succeeded, "javadoc failed:\n" + errors(diagnostics) + log);

    Set<String> missing = new TreeSet<>();
    for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
      if (diagnostic.getSource() == null
          || !diagnostic.getMessage(Locale.ROOT).equals("no comment")) {
        continue;
      }
      Path file = Path.of(diagnostic.getSource().toUri());
      String relative = root.relativize(file).toString().replace(File.separatorChar, '/');
      int line = (int) diagnostic.getLineNumber();
      missing.add(relative + ":" + line + ": " + Files.readAllLines(file).get(line - 1).strip());
    }
    assertEquals("", String.join("\n", missing), "public declarations without a javadoc comment");
  }

  /** The module's own sources: {@code <root>/<module>/src/main/java}. */
  public static void assertEveryPublicDeclarationHasAComment(
      Class<?> testClass, String module, Path output) throws IOException, URISyntaxException {
    Path root = projectRoot(testClass);
    assertEveryPublicDeclarationHasAComment(
        root, List.of(root.resolve(module).resolve("src/main/java")), output);
  }

  /** The Java files of the source roots outside an {@code internal} package. */
  private static List<Path> publicSources(List<Path> sourceRoots) throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path sourceRoot : sourceRoots) {
      try (Stream<Path> walk = Files.walk(sourceRoot)) {
        walk.filter(path -> path.toString().endsWith(".java"))
            .filter(path -> !isInternal(sourceRoot.relativize(path)))
            .forEach(files::add);
      }
    }
    return files;
  }

  private static boolean isInternal(Path relative) {
    Path packageDirectory = relative.getParent();
    if (packageDirectory != null) {
      for (Path segment : packageDirectory) {
        if (segment.toString().equals("internal")) {
          return true;
        }
      }
    }
    return false;
  }

  private static String errors(DiagnosticCollector<JavaFileObject> diagnostics) {
    return diagnostics.getDiagnostics().stream()
        .filter(diagnostic -> diagnostic.getKind() == Diagnostic.Kind.ERROR)
        .map(Object::toString)
        .collect(Collectors.joining("\n", "", "\n"));
  }
}
