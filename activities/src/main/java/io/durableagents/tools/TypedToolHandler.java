package io.durableagents.tools;

/** A tool handler that receives its arguments bound to a Java type (a record, usually). */
@FunctionalInterface
public interface TypedToolHandler<T> {
  Object execute(T input, ToolContext context) throws Exception;
}
