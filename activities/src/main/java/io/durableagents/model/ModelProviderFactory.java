package io.durableagents.model;

import java.util.Map;

/**
 * Makes the providers of one kind of model spec, such as {@code openai:MODEL}, for {@link
 * ModelProviders#fromSpec}. A jar offers its own by naming the implementation class in {@code
 * META-INF/services/io.durableagents.model.ModelProviderFactory}: {@link java.util.ServiceLoader}
 * finds it on the classpath, so a provider that lives in its own artifact works as soon as the
 * artifact is added.
 *
 * <p>Implementations need a public no-argument constructor.
 */
public interface ModelProviderFactory {
  /** The start of the specs this factory takes, colon included, e.g. {@code "openai:"}. */
  String prefix();

  /** The form of those specs as error messages show it, e.g. {@code "openai:MODEL"}. */
  String form();

  /**
   * A provider for the spec {@code prefix() + argument}.
   *
   * @param env the environment variables the provider may read (API keys, base URLs)
   * @throws IllegalArgumentException if the spec or the environment cannot give a provider
   */
  ModelProvider create(String argument, Map<String, String> env);
}
