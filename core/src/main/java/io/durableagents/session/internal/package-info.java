/** Session records shared between modules; not an API, may change without notice. */
package io.durableagents.session.internal;
