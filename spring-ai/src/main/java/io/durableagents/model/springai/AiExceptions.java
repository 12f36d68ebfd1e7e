package io.durableagents.model.springai;

import org.springframework.ai.retry.NonTransientAiException;
import org.springframework.ai.retry.TransientAiException;

/** Spring AI's retry exceptions; loaded only when {@code spring-ai-retry} is on the classpath. */
final class AiExceptions {
  private AiExceptions() {}

  static boolean isAiException(Throwable t) {
    return t instanceof TransientAiException || t instanceof NonTransientAiException;
  }

  static boolean isTransient(Throwable t) {
    return t instanceof TransientAiException;
  }
}
