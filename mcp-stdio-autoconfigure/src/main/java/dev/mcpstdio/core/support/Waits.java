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

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The two small waits that several classes share: a pause that an interrupt does not cut
 * short, for an ending that must finish, and a bounded wait for a latch that an interrupt
 * does end. Either way the interrupt is restored for the caller.
 *
 * @author mcp-stdio authors
 */
public final class Waits {

	private Waits() {
	}

	/**
	 * Sleep even when interrupted: an ending (a stop's escalation, a cgroup emptied) must
	 * finish, and the interrupt is restored for the caller.
	 * @param nanos how long
	 */
	public static void sleepNanos(long nanos) {
		boolean interrupted = Thread.interrupted();
		try {
			Thread.sleep(nanos / 1_000_000L, (int) (nanos % 1_000_000L));
		}
		catch (InterruptedException ex) {
			interrupted = true;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Wait, bounded, for a latch; an interrupt ends the wait and is restored.
	 * @param latch the latch
	 * @param millis the longest wait
	 * @return whether the latch reached zero
	 */
	public static boolean await(CountDownLatch latch, long millis) {
		try {
			return latch.await(millis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
