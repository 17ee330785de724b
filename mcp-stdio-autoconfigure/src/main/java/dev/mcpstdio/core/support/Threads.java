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

package dev.mcpstdio.core.support;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

/**
 * The daemon threads of mcp-stdio, their pools, and the one wait on a monitor they share.
 *
 * @author mcp-stdio authors
 */
public final class Threads {

	private Threads() {
	}

	/**
	 * Return a daemon thread, not yet started.
	 * @param runnable what it runs
	 * @param name its name
	 * @return the thread
	 */
	public static Thread daemon(Runnable runnable, String name) {
		Thread thread = new Thread(runnable, name);
		thread.setDaemon(true);
		return thread;
	}

	/**
	 * Return a pool of daemon threads for tasks that may block: a thread for each task,
	 * kept for 30 seconds once idle; past the most threads, the caller runs the task.
	 * @param prefix the names of its threads, before their number
	 * @param maxThreads the most threads at once
	 * @return the pool
	 */
	public static ExecutorService pool(String prefix, int maxThreads) {
		AtomicInteger threads = new AtomicInteger();
		return new ThreadPoolExecutor(0, maxThreads, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
				(runnable) -> daemon(runnable, prefix + threads.incrementAndGet()),
				new ThreadPoolExecutor.CallerRunsPolicy());
	}

	/**
	 * Return one daemon thread for timed tasks.
	 * @param name its name
	 * @return the timer
	 */
	public static ScheduledExecutorService timer(String name) {
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (runnable) -> daemon(runnable, name));
		// a cancelled check (an idle stop, a restart) leaves the queue at once, and what
		// it holds with it: not when it would have been due
		timer.setRemoveOnCancelPolicy(true);
		return Executors.unconfigurableScheduledExecutorService(timer);
	}

	/**
	 * Start a daemon thread running a loop, unless one runs it: that one is woken.
	 * @param running the thread that ran the loop last, or {@code null}
	 * @param loop the loop
	 * @param name the name of a new thread
	 * @return the thread that runs the loop
	 */
	public static Thread startOrWake(@Nullable Thread running, Runnable loop, String name) {
		if (running != null && running.isAlive()) {
			LockSupport.unpark(running);
			return running;
		}
		Thread started = daemon(loop, name);
		started.start();
		return started;
	}

	/**
	 * Wait on a monitor, which its notifier notifies, until a condition read under it
	 * holds.
	 * @param monitor the monitor
	 * @param deadlineNanos the {@link System#nanoTime()} to give up at
	 * @param maxWaitMillis the longest wait before the condition is read again
	 * @param condition what is waited for
	 * @return whether it holds, {@code false} once the deadline passed or on an interrupt
	 */
	public static boolean awaitOn(Object monitor, long deadlineNanos, long maxWaitMillis, BooleanSupplier condition) {
		synchronized (monitor) {
			while (!condition.getAsBoolean()) {
				long left = deadlineNanos - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				try {
					monitor.wait(Math.max(1, Math.min(left / 1_000_000L, maxWaitMillis)));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			}
			return true;
		}
	}

}
