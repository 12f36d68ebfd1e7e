package io.durableagents.spring.boot.sample;

import io.durableagents.agent.Agent;
import io.durableagents.model.ModelProvider;
import io.durableagents.testing.ConciergeAgent;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A minimal application of the starter: the demo agent as an {@link Agent} bean and its scripted
 * model as the {@link ModelProvider} bean; the rest is properties (see the tests).
 */
@SpringBootApplication
public class SampleApplication {
  /** The concierge: get_weather, find_restaurant, and book_table, which needs an approval. */
  @Bean
  Agent concierge() {
    return ConciergeAgent.create();
  }

  /** The concierge's scripted conversation, standing in for a real model. */
  @Bean
  ModelProvider scriptedModel() {
    return ConciergeAgent.defaultScript();
  }

  /** Runs the sample. */
  public static void main(String[] args) {
    SpringApplication.run(SampleApplication.class, args);
  }
}
