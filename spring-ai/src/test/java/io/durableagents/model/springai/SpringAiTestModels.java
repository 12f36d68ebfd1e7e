package io.durableagents.model.springai;

import io.durableagents.model.openai.FakeChatCompletionsServer;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.api.OpenAiApi;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.retry.support.RetryTemplate;
import org.springframework.web.reactive.function.client.WebClient;

/** Spring AI chat models for the tests, all talking to a {@link FakeChatCompletionsServer}. */
final class SpringAiTestModels {
  /** The model the chat model's default options name. */
  static final String DEFAULT_MODEL = "gpt-4o-mini";

  private SpringAiTestModels() {}

  /**
   * Spring AI's OpenAI chat model on the fake server, with usage in streams and Spring AI's retries
   * off (one attempt), as the provider's documentation asks; its streams go through Reactor Netty,
   * as in a Spring Boot WebFlux application.
   */
  static OpenAiChatModel openAi(FakeChatCompletionsServer server) {
    return openAi(server, new ReactorClientHttpConnector());
  }

  /** The same through Spring's connector for the JDK's HttpClient (its fallback). */
  static OpenAiChatModel openAiOnJdkHttpClient(FakeChatCompletionsServer server) {
    return openAi(server, new JdkClientHttpConnector());
  }

  private static OpenAiChatModel openAi(
      FakeChatCompletionsServer server, ClientHttpConnector connector) {
    OpenAiApi api =
        OpenAiApi.builder()
            .baseUrl(server.rootUrl())
            .apiKey("sk-test-key")
            .webClientBuilder(WebClient.builder().clientConnector(connector))
            .build();
    return OpenAiChatModel.builder()
        .openAiApi(api)
        .defaultOptions(OpenAiChatOptions.builder().model(DEFAULT_MODEL).streamUsage(true).build())
        .retryTemplate(RetryTemplate.builder().maxAttempts(1).build())
        .build();
  }

  /** A chat model that cannot stream: its blocking calls go to {@code delegate}. */
  static ChatModel blockingOnly(ChatModel delegate) {
    return new ChatModel() {
      @Override
      public ChatResponse call(Prompt prompt) {
        return delegate.call(prompt);
      }
    };
  }
}
