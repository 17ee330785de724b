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

package dev.mcpstdio.test;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.slf4j.LoggerFactory;

/**
 * Captures what one logger logs, through the real Logback, instead of printing it; can
 * hold the logging thread as a stuck appender would.
 *
 * @author mcp-stdio authors
 */
public final class LogCapture extends AppenderBase<ILoggingEvent> implements AutoCloseable {

	private final Logger logger;

	private final ConcurrentLinkedQueue<ILoggingEvent> events = new ConcurrentLinkedQueue<>();

	private final CountDownLatch entered = new CountDownLatch(1);

	private final CountDownLatch release;

	private LogCapture(String category, boolean stuck) {
		this.logger = (Logger) LoggerFactory.getLogger(category);
		this.release = new CountDownLatch(stuck ? 1 : 0);
		start();
		this.logger.addAppender(this);
		this.logger.setAdditive(false);
	}

	/**
	 * Capture a logger's events.
	 * @param category the logger
	 * @return the capture, to be closed
	 */
	public static LogCapture of(String category) {
		return new LogCapture(category, false);
	}

	/**
	 * Capture a logger's events with an appender that blocks on its first event until
	 * {@link #release()}.
	 * @param category the logger
	 * @return the capture, to be closed
	 */
	public static LogCapture stuck(String category) {
		return new LogCapture(category, true);
	}

	@Override
	protected void append(ILoggingEvent event) {
		this.entered.countDown();
		try {
			// bounded: a test that forgets to release must not hang the JVM
			this.release.await(120, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.events.add(event);
	}

	public boolean awaitEntered(long seconds) throws InterruptedException {
		return this.entered.await(seconds, TimeUnit.SECONDS);
	}

	public void release() {
		this.release.countDown();
	}

	public List<String> messages(Level level) {
		return this.events.stream()
			.filter((event) -> event.getLevel() == level)
			.map(ILoggingEvent::getFormattedMessage)
			.toList();
	}

	@Override
	public void close() {
		release();
		this.logger.detachAppender(this);
		this.logger.setAdditive(true);
		stop();
	}

}
