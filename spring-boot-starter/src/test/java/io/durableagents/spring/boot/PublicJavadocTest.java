package io.durableagents.spring.boot;

import io.durableagents.testing.PublicJavadoc;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** This module's public declarations all have a javadoc comment (its libraries are its own). */
class PublicJavadocTest {
  @Test
  void everyPublicDeclarationHasAComment(@TempDir Path output) throws Exception {
    PublicJavadoc.assertEveryPublicDeclarationHasAComment(
        PublicJavadocTest.class, "spring-boot-starter", output);
  }
}
