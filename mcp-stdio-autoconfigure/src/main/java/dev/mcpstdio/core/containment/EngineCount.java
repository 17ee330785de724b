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

package dev.mcpstdio.core.containment;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessTree;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The figures of one container as its engine counts them, for where this host cannot see
 * its processes (an engine in a VM): asked in the background, reused a few seconds.
 *
 * @author mcp-stdio authors
 */
final class EngineCount {

	// logged under the container's name, as its count always was
	private static final Log logger = LogFactory.getLog(Container.class);

	/** How long the engine's figures of a container are reused. */
	private static final long ENGINE_COUNT_MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(5);

	private final ContainerEngine engine;

	private final String server;

	private final String instance;

	private final Containments host;

	/** The container's id, when known without asking the engine. */
	private final Supplier<@Nullable String> knownId;

	/** Whether the container is known to be gone. */
	private final BooleanSupplier ended;

	/**
	 * Whether the container's processes, with our markers, are in this host's
	 * {@code /proc}; {@code null} until the engine has told.
	 */
	private volatile @Nullable Boolean visibleOnHost;

	/** Counted through the engine whatever the host sees, as for an engine in a VM. */
	private volatile boolean engineOnly;

	private volatile ProcessTree.Stats engineStats = Containment.NOTHING;

	private volatile long engineCountedAt = System.nanoTime() - ENGINE_COUNT_MAX_AGE_NANOS;

	private final AtomicBoolean counting = new AtomicBoolean();

	EngineCount(ContainerEngine engine, String server, String instance, Containments host,
			Supplier<@Nullable String> knownId, BooleanSupplier ended) {
		this.engine = engine;
		this.server = server;
		this.instance = instance;
		this.host = host;
		this.knownId = knownId;
		this.ended = ended;
	}

	/**
	 * Return the container's figures as the engine counts them where this host cannot see
	 * its processes (an engine in a VM); zero where it can, since the census finds them
	 * by marker. Never waits: the figures (one call takes seconds) are refreshed in the
	 * background and may be a few seconds old.
	 * @return the figures
	 */
	ProcessTree.Stats unseen() {
		boolean onlyEngine = this.engineOnly;
		if (this.ended.getAsBoolean() || (Boolean.TRUE.equals(this.visibleOnHost) && !onlyEngine)) {
			return Containment.NOTHING;
		}
		if (System.nanoTime() - this.engineCountedAt >= ENGINE_COUNT_MAX_AGE_NANOS
				&& this.counting.compareAndSet(false, true)) {
			try {
				this.host.tasks().execute(this::count);
			}
			catch (RejectedExecutionException ex) {
				this.counting.set(false);
			}
		}
		return (onlyEngine || Boolean.FALSE.equals(this.visibleOnHost)) ? this.engineStats : Containment.NOTHING;
	}

	private void count() {
		try {
			String known = this.knownId.get();
			if (known == null || this.ended.getAsBoolean()) {
				return;
			}
			if (this.visibleOnHost == null && !this.engineOnly) {
				long pid = this.engine.mainPid(known);
				if (pid <= 0) {
					// not running (yet): ask again later
					return;
				}
				// false for an engine in a VM (Docker Desktop, podman machine): its
				// processes, with their markers, are not in this host's /proc
				ProcessMarkers markers = this.host.proc().markers(pid);
				this.visibleOnHost = markers != null && this.instance.equals(markers.instance());
				if (this.visibleOnHost) {
					return;
				}
			}
			this.engineStats = this.engine.stats(known);
		}
		catch (RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Could not count the container of " + McpStdioException.describe(this.server) + ": " + ex);
			}
		}
		finally {
			this.engineCountedAt = System.nanoTime();
			this.counting.set(false);
		}
	}

	/**
	 * Count the container through the engine even where this host sees its processes, as
	 * for an engine in a VM: for tests of that path on a machine that has none.
	 */
	void engineOnly() {
		this.engineOnly = true;
		this.engineCountedAt = System.nanoTime() - ENGINE_COUNT_MAX_AGE_NANOS;
	}

}
