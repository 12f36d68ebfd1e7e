package io.durableagents.spring.boot.internal;

import io.durableagents.model.ModelProvider;
import io.durableagents.model.springai.SpringAiModelProvider;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The application's Spring AI {@link ChatModel} as the agents' model provider, when {@code
 * durable-agents-spring-ai} is on the classpath: only touched after {@link #available} said so, so
 * that an application without Spring AI never loads its types. Looked up when the plugin is made,
 * not by a bean condition, so that it does not depend on the order of Spring AI's
 * auto-configurations.
 */
public final class SpringAiModels {
  private static final String PROVIDER_CLASS =
      "io.durableagents.model.springai.SpringAiModelProvider";
  private static final String CHAT_MODEL_CLASS = "org.springframework.ai.chat.model.ChatModel";

  private SpringAiModels() {}

  /** Whether durable-agents-spring-ai and Spring AI are on the classpath. */
  public static boolean available(ClassLoader loader) {
    return ClassUtils.isPresent(PROVIDER_CLASS, loader)
        && ClassUtils.isPresent(CHAT_MODEL_CLASS, loader);
  }

  /**
   * A provider on the one {@link ChatModel} bean (or the primary one), or null when there is none.
   *
   * @throws IllegalStateException when there are several and none is primary
   */
  public static ModelProvider of(ListableBeanFactory beans) {
    ChatModel chatModel = beans.getBeanProvider(ChatModel.class).getIfUnique();
    if (chatModel == null && beans.getBeanNamesForType(ChatModel.class).length > 1) {
      throw new IllegalStateException(
          "Several Spring AI ChatModel beans "
              + java.util.List.of(beans.getBeanNamesForType(ChatModel.class))
              + " and no ModelProvider bean: mark one ChatModel @Primary, or declare the"
              + " ModelProvider (SpringAiModelProvider.of(chatModel))");
    }
    return chatModel == null ? null : SpringAiModelProvider.of(chatModel);
  }
}
