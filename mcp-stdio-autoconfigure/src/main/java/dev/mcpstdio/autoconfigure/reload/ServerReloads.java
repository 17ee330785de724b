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

package dev.mcpstdio.autoconfigure.reload;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import dev.mcpstdio.McpStdioConfigurationException;
import dev.mcpstdio.autoconfigure.config.ConfiguredServers;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.support.Waits;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import dev.mcpstdio.lifecycle.McpStdioServers.Outcome;
import dev.mcpstdio.lifecycle.McpStdioServers.Reload;
import dev.mcpstdio.lifecycle.McpStdioServers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.log.LogMessage;

/**
 * Rebuilds the server set from the configuration and applies the difference by name.
 *
 * @author mcp-stdio authors
 */
public final class ServerReloads implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(ServerReloads.class);

	/** How often the servers files are looked at; a change is applied once it settles. */
	private static final Duration WATCH_INTERVAL = Duration.ofMillis(500);

	/** The longest a reload waits for the one under way. */
	private static final Duration LOCK_WAIT = Duration.ofMinutes(2);

	private final McpStdioServers servers;

	private final ServerHost host;

	/** The configuration read at start-up, which a reload reads again. */
	private final ConfiguredServers startup;

	private final ReentrantLock lock = new ReentrantLock();

	/** The servers' beans a reload changes. */
	private final ReloadedServers beans;

	/** The watch of the servers files, used under the lock. */
	private final FileWatch files;

	private final boolean watch;

	private volatile @Nullable ScheduledFuture<?> watching;

	private volatile boolean started;

	private volatile boolean closing;

	/**
	 * Create the reloads of a server set.
	 * @param servers the servers
	 * @param host their host
	 * @param beanFactory the context's bean factory, which holds the servers' beans
	 * @param startup the configuration read at start-up
	 */
	public ServerReloads(McpStdioServers servers, ServerHost host, DefaultListableBeanFactory beanFactory,
			ConfiguredServers startup) {
		this.servers = servers;
		this.host = host;
		this.startup = startup;
		this.beans = new ReloadedServers(servers, host, beanFactory);
		this.watch = startup.properties().getReload().isEnabled();
		// what the files were when read: a write from now on is a change
		this.files = new FileWatch(startup.files());
		servers.setReloader(() -> reload("the endpoint"));
	}

	/**
	 * Reload in the background, for a change an event announced.
	 * @param trigger what asked for it, for the log
	 */
	public void reloadLater(String trigger) {
		if (this.watch && !this.closing) {
			this.host.tasks().execute(() -> reload(trigger));
		}
	}

	/**
	 * Read the configuration again and apply it: servers added, removed and changed by
	 * name, each change by the ordered stop and a start as the server's mode says.
	 * Reloads run one at a time.
	 * @param trigger what asked for it, for the log
	 * @return how it went, or {@code null} when the application is stopping or another
	 * reload did not end in time
	 */
	public @Nullable Reload reload(String trigger) {
		if (this.closing) {
			return null;
		}
		try {
			if (!this.lock.tryLock(LOCK_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
				logger
					.warn(LogMessage.format("MCP servers not reloaded (%s): the reload under way did not end within %s",
							trigger, Waits.format(LOCK_WAIT)));
				return null;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		try {
			return this.closing ? null : apply(trigger);
		}
		finally {
			this.lock.unlock();
		}
	}

	private Reload apply(String trigger) {
		ConfiguredServers configured;
		try {
			// the files looked at before they are read: a write during the read is a
			// change
			configured = this.files.rewatch(() -> this.startup.readAgain(logger), ConfiguredServers::files);
		}
		catch (McpStdioConfigurationException ex) {
			String problem = SecretSanitizer.text(McpStdioConfigurationException.printable(ex.getMessage()));
			logger.error(LogMessage.format("MCP servers not reloaded (%s); the running servers go on unchanged. %s",
					trigger, problem));
			return record(new Reload(Instant.now(), Outcome.REJECTED, List.of(), List.of(), List.of(), problem));
		}
		Map<String, McpStdioServerDefinition> wanted = new LinkedHashMap<>();
		configured.definitions().forEach((definition) -> wanted.put(definition.name(), definition));
		List<McpStdioServer> stopping = new ArrayList<>();
		List<String> removed = new ArrayList<>();
		List<String> changed = new ArrayList<>();
		for (McpStdioServer server : this.servers.list()) {
			McpStdioServerDefinition definition = wanted.get(server.name());
			if (definition == null || !definition.equals(server.definition())) {
				stopping.add(server);
				((definition == null) ? removed : changed).add(server.name());
			}
		}
		List<String> added = wanted.keySet().stream().filter((name) -> this.servers.find(name) == null).toList();
		List<McpStdioServerDefinition> starting = wanted.values()
			.stream()
			.filter((definition) -> added.contains(definition.name()) || changed.contains(definition.name()))
			.toList();
		if (stopping.isEmpty() && starting.isEmpty()) {
			return record(new Reload(Instant.now(), Outcome.UNCHANGED, List.of(), List.of(), List.of(), null));
		}
		inParallel(stopping, this.beans::retire);
		List<McpStdioServer> created = this.closing ? List.of() : starting.stream().map(this.beans::register).toList();
		inParallel(created, ReloadedServers::start);
		if (this.closing) {
			// the shutdown began meanwhile and may not know these: they go with it
			inParallel(created, McpStdioServer::stopServer);
		}
		logger.info(LogMessage.format("MCP servers reloaded (%s): added %s, removed %s, changed %s", trigger, added,
				removed, changed));
		return record(new Reload(Instant.now(), Outcome.APPLIED, added, removed, changed, null));
	}

	private Reload record(Reload reload) {
		this.servers.reloaded(reload);
		return reload;
	}

	private void inParallel(List<McpStdioServer> targets, Consumer<McpStdioServer> action) {
		List<CompletableFuture<Void>> done = new ArrayList<>();
		Duration bound = Duration.ZERO;
		for (McpStdioServer server : targets) {
			done.add(CompletableFuture.runAsync(() -> action.accept(server), this.host.tasks()));
			StdioServerSpec spec = server.definition().spec();
			Duration worst = spec.startupTimeout().plus(spec.shutdown().worstCase().multipliedBy(2));
			bound = (worst.compareTo(bound) > 0) ? worst : bound;
		}
		try {
			CompletableFuture.allOf(done.toArray(CompletableFuture[]::new))
				.get(bound.plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (Exception ex) {
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			logger.warn(LogMessage.format("MCP servers reload: not every stop or start ended in time: %s", ex));
		}
	}

	// The servers files are looked at every WATCH_INTERVAL on the host's scheduler; a
	// change (size, time, file key) is applied once two looks in a row agree, so an
	// editor's several writes apply once
	private void look() {
		if (this.closing || !this.lock.tryLock()) {
			return;
		}
		try {
			if (this.files.look()) {
				reloadLater("a servers file changed");
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void start() {
		this.started = true;
		if (this.watch && this.watching == null) {
			long interval = WATCH_INTERVAL.toMillis();
			this.watching = this.host.scheduler()
				.scheduleWithFixedDelay(() -> this.host.tasks().execute(this::look), interval, interval,
						TimeUnit.MILLISECONDS);
		}
	}

	@Override
	public void stop() {
		// a reload during shutdown does nothing; one under way ends before the servers
		// stop
		this.closing = true;
		ScheduledFuture<?> scheduled = this.watching;
		if (scheduled != null) {
			scheduled.cancel(false);
		}
		try {
			if (this.lock.tryLock(LOCK_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
				this.lock.unlock();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public boolean isRunning() {
		return this.started && !this.closing;
	}

	@Override
	public int getPhase() {
		// stopped before the servers
		return McpStdioServer.PHASE + 1;
	}

}
