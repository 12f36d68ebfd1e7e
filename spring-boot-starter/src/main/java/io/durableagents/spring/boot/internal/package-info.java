/** The starter's internals: not an API, may change in any release. */
package io.durableagents.spring.boot.internal;
