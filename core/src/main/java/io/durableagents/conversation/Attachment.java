package io.durableagents.conversation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A file part of a message: a reference to an artifact, never its bytes. The bytes are read from
 * the worker's artifact store for each model call only.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Attachment(
    @JsonProperty("artifactId") String artifactId,
    @JsonProperty("name") String name,
    @JsonProperty("mediaType") String mediaType) {}
