/*
 * Copyright 2026 the mcp-stdio authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

/**
 * Per-request telemetry after the OpenTelemetry MCP semantic conventions: a Micrometer
 * {@link io.micrometer.observation.Observation} {@code mcp.client.operation.duration} for
 * every JSON-RPC request sent to a server, a client span with its {@code traceparent} in
 * the request's {@code params._meta} when a tracer is present. Used only when
 * Micrometer's observation API is on the class path.
 */
@NullMarked
package dev.mcpstdio.lifecycle.observation;

import org.jspecify.annotations.NullMarked;
