/**
 * Where attachment bytes live: transcripts and Temporal payloads carry only references. {@link
 * io.durableagents.artifacts.ArtifactStore} is the interface, {@link
 * io.durableagents.artifacts.FileArtifactStore} keeps the bytes in a directory.
 */
package io.durableagents.artifacts;
