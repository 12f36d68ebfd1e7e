/**
 * The model provider SPI: a {@link io.durableagents.model.ModelProvider} answers a {@link
 * io.durableagents.model.ModelRequest} with a {@link io.durableagents.model.ModelResponse},
 * streaming through a {@link io.durableagents.model.ModelStream}. {@link
 * io.durableagents.model.ModelProviders#fromSpec} makes one from a spec such as {@code
 * scripted:PATH} or {@code openai:MODEL}; a jar adds specs with a {@link
 * io.durableagents.model.ModelProviderFactory}.
 */
package io.durableagents.model;
