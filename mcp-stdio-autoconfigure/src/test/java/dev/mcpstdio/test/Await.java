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

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The one way tests wait for something: a condition looked at again and again, in the
 * test's own thread, until it holds or a bound is over. A condition that never holds
 * fails the test, naming what it waited for; it never hangs it.
 *
 * @author mcp-stdio authors
 */
public final class Await {

	/**
	 * How long to wait when the test says nothing else: generous for a loaded machine.
	 */
	public static final Duration DEFAULT_BOUND = Duration.ofSeconds(30);

	private static final Duration DEFAULT_POLL = Duration.ofMillis(10);

	private final Duration bound;

	private final Duration poll;

	private Await(Duration bound, Duration poll) {
		this.bound = bound;
		this.poll = poll;
	}

	/**
	 * Wait at most the given time.
	 * @param bound the longest wait
	 * @return the wait
	 */
	public static Await within(Duration bound) {
		return new Await(bound, DEFAULT_POLL);
	}

	/**
	 * Wait, at most {@link #DEFAULT_BOUND}, until a condition holds.
	 * @param what what is waited for, for the failure
	 * @param condition the condition
	 */
	public static void that(String what, BooleanSupplier condition) {
		within(DEFAULT_BOUND).until(what, condition);
	}

	/**
	 * Look this often (by default every 10 ms): for conditions that cost more to look at,
	 * such as a scan of every process or a call to a container engine.
	 * @param poll the time between looks
	 * @return a wait with the same bound
	 */
	public Await every(Duration poll) {
		return new Await(this.bound, poll);
	}

	/**
	 * Wait until a condition holds.
	 * @param what what is waited for, for the failure
	 * @param condition the condition
	 * @throws AssertionError if it does not hold within the bound
	 */
	public void until(String what, BooleanSupplier condition) {
		if (!holds(condition)) {
			throw new AssertionError("Not within " + this.bound + ": " + what);
		}
	}

	/**
	 * Wait until a condition holds, and say whether it did: for a caller that fails with
	 * facts of its own, or for whom the bound is an answer too.
	 * @param condition the condition
	 * @return whether it held within the bound
	 */
	public boolean holds(BooleanSupplier condition) {
		long deadline = System.nanoTime() + this.bound.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline >= 0) {
				// one last look: the sleep may have overslept the bound
				return condition.getAsBoolean();
			}
			Fixtures.sleep(this.poll.toMillis());
			if (Thread.currentThread().isInterrupted()) {
				throw new AssertionError("Interrupted while waiting (a timeout of the test?)");
			}
		}
		return true;
	}

	/**
	 * Read a value until it is as wanted, and return the last one read, whether it is or
	 * not: the caller asserts on it, and its assertion says what was seen.
	 * @param <T> the value's type
	 * @param value reads the value
	 * @param wanted whether it is as wanted
	 * @return the last value read
	 */
	public <T> T value(Supplier<T> value, Predicate<? super T> wanted) {
		AtomicReference<T> last = new AtomicReference<>();
		holds(() -> {
			T read = value.get();
			last.set(read);
			return wanted.test(read);
		});
		return last.get();
	}

}
