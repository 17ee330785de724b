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

package dev.mcpstdio.core.server.io;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.core.support.Threads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Logs the stderr lines of MCP servers, sanitized and rate-limited per server.
 *
 * @author mcp-stdio authors
 */
final class StderrLog {

	// Each under dev.mcpstdio.server.<name> at INFO, never on the thread that reads
	// stderr: a line goes to one logging thread through a bounded queue, or is counted as
	// not logged when its server is over its rate or the queue is full (a stuck
	// appender); every REPORT_INTERVAL the count is logged at WARN, so a flood costs a
	// few lines a second.

	/** Lines a second each server may log once its burst is spent. */
	static final int LINES_PER_SECOND = 100;

	/** Lines a server may log at once: a start-up banner, a stack trace. */
	static final int BURST = 200;

	/** How often the count of lines not logged is reported. */
	static final Duration REPORT_INTERVAL = Duration.ofSeconds(5);

	/** Lines waiting for the logging thread, all servers together. */
	static final int QUEUE_CAPACITY = 1024;

	/** How long a shutdown waits for the last lines to be logged. */
	static final Duration LAST_LINES_BOUND = Duration.ofSeconds(2);

	private final int linesPerSecond;

	private final double linesPerNano;

	private final int burst;

	private final long reportIntervalNanos;

	private final long lastLinesMillis;

	private final BlockingQueue<Line> queue;

	private final Set<Channel> channels = ConcurrentHashMap.newKeySet();

	private final Thread thread;

	StderrLog(int linesPerSecond, int burst, Duration reportInterval, int queueCapacity, Duration lastLinesBound) {
		this.linesPerSecond = linesPerSecond;
		this.linesPerNano = linesPerSecond / 1e9;
		this.burst = burst;
		this.reportIntervalNanos = reportInterval.toNanos();
		this.lastLinesMillis = lastLinesBound.toMillis();
		this.queue = new ArrayBlockingQueue<>(queueCapacity);
		this.thread = Threads.daemon(this::run, "mcp-stdio-stderr-log");
		this.thread.start();
	}

	/**
	 * Create the log with the default rates.
	 * @return a new log, whose thread runs until {@link #shutdown()}
	 */
	static StderrLog withDefaults() {
		return new StderrLog(LINES_PER_SECOND, BURST, REPORT_INTERVAL, QUEUE_CAPACITY, LAST_LINES_BOUND);
	}

	/**
	 * Open the channel of one server's stderr, whose secret values are masked.
	 * @param serverName the server
	 * @param secrets its secret values
	 * @return its channel, to be closed when its stderr ends
	 */
	Channel open(String serverName, SecretValues secrets) {
		Channel channel = new Channel(LogFactory.getLog("dev.mcpstdio.server." + serverName), serverName, secrets);
		this.channels.add(channel);
		return channel;
	}

	/**
	 * Stop the logging thread, once no server of its host runs. It logs the lines still
	 * queued and the last counts of lines not logged before it ends, which this waits for
	 * (bounded): the thread is a daemon, so a JVM that exits next would cut it short.
	 */
	void shutdown() {
		this.thread.interrupt();
		try {
			// bounded: a stuck appender must not hold the application's stop
			this.thread.join(this.lastLinesMillis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void run() {
		long nextReport = System.nanoTime() + this.reportIntervalNanos;
		try {
			while (!Thread.currentThread().isInterrupted()) {
				Line line = this.queue.poll(Math.max(0, nextReport - System.nanoTime()), TimeUnit.NANOSECONDS);
				if (line != null) {
					log(line);
				}
				if (System.nanoTime() - nextReport >= 0) {
					nextReport = System.nanoTime() + this.reportIntervalNanos;
					report();
				}
			}
		}
		catch (InterruptedException ex) {
			// shut down: the last lines follow
		}
		// A stop waits for the end of its server's stderr, so the servers' last words may
		// still be queued when the host shuts down. Log them without the interrupt (an
		// appender may take it for a failure), at most a queue's worth
		Thread.interrupted();
		List<Line> last = new ArrayList<>();
		this.queue.drainTo(last);
		last.forEach(this::log);
		report();
	}

	private void log(Line line) {
		try {
			line.channel.log.info(SecretSanitizer.text(line.text, line.channel.secrets));
		}
		catch (RuntimeException ex) {
			// A failing appender must not end the one thread that logs stderr
		}
	}

	private void report() {
		for (Channel channel : this.channels) {
			// A closed channel gets no more lines: its count is final once read
			boolean closed = channel.closed;
			long skipped = channel.skipped.getAndSet(0);
			if (skipped > 0) {
				try {
					channel.log.warn(skipped + " stderr lines of " + McpStdioException.describe(channel.serverName)
							+ " were not logged (more than " + this.linesPerSecond
							+ " lines a second, or the log could not keep up); its last lines are still kept for"
							+ " errors and the endpoint");
				}
				catch (RuntimeException ex) {
					// as for a line
				}
			}
			if (closed) {
				this.channels.remove(channel);
			}
		}
	}

	/**
	 * The stderr of one server: {@link #line(String)} is called by its reader thread only
	 * and never blocks.
	 */
	final class Channel {

		private final Log log;

		private final String serverName;

		/** The server's secret values, masked in its stderr wherever it goes. */
		final SecretValues secrets;

		private final AtomicLong skipped = new AtomicLong();

		private double permits = StderrLog.this.burst;

		private long refilledAt = System.nanoTime();

		private volatile boolean closed;

		private Channel(Log log, String serverName, SecretValues secrets) {
			this.log = log;
			this.serverName = serverName;
			this.secrets = secrets;
		}

		/**
		 * Log a line, or count it as not logged.
		 * @param text the line as the server wrote it (it is sanitized before it is
		 * logged)
		 */
		void line(String text) {
			if (!this.log.isInfoEnabled()) {
				return;
			}
			if (!takePermit() || !StderrLog.this.queue.offer(new Line(this, text))) {
				this.skipped.incrementAndGet();
			}
		}

		private boolean takePermit() {
			long now = System.nanoTime();
			this.permits = Math.min(StderrLog.this.burst,
					this.permits + (now - this.refilledAt) * StderrLog.this.linesPerNano);
			this.refilledAt = now;
			if (this.permits < 1) {
				return false;
			}
			this.permits--;
			return true;
		}

		/**
		 * Say that the server's stderr ended: the next report is this channel's last.
		 */
		void close() {
			this.closed = true;
		}

	}

	private record Line(Channel channel, String text) {

	}

}
