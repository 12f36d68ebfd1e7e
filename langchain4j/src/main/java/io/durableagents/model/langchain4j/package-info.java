/**
 * Any LangChain4j chat model, streaming or blocking, as a model provider: {@link
 * io.durableagents.model.langchain4j.LangChain4jModelProvider}.
 */
package io.durableagents.model.langchain4j;
