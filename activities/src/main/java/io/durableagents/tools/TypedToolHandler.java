package io.durableagents.tools;

/** A tool handler that receives its arguments bound to a Java type (a record, usually). */
@FunctionalInterface
public interface TypedToolHandler<T> {
  /** Runs the call with its arguments bound to {@code T}; returns its result. */
  Object execute(T input, ToolContext context) throws Exception;
}
