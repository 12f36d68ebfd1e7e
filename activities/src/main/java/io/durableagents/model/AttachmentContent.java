package io.durableagents.model;

/** The bytes of one attachment, loaded for one model call only. */
public record AttachmentContent(String artifactId, String name, String mediaType, byte[] bytes) {}
