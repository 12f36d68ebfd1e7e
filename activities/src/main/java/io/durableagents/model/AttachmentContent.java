package io.durableagents.model;

/** The bytes of one attachment, loaded for one model call only. */
// The bytes are a payload handed to the provider, never compared or hashed; copying them would
// cost an attachment's size per call for nothing.
@SuppressWarnings("ArrayRecordComponent")
public record AttachmentContent(String artifactId, String name, String mediaType, byte[] bytes) {}
