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
package dev.mcpstdio.core.server;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import dev.mcpstdio.core.server.io.JsonRpcLine;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RequestTimeouts}: the sweep that ends the observation of a request its
 * client stopped waiting for, on a timer like the host's (a cancelled task leaves its
 * queue at once).
 *
 * @author mcp-stdio authors
 */
class RequestTimeoutsTests {

	private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);

	private final RequestLedger ledger = new RequestLedger(new RequestTimeouts(this.timer));

	RequestTimeoutsTests() {
		this.timer.setRemoveOnCancelPolicy(true);
	}

	@AfterEach
	void stopTimer() throws InterruptedException {
		this.timer.shutdownNow();
		assertThat(this.timer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void anEndedProcessLeavesNoSweepOnTheTimer() {
		// the sweep holds the ledger, its entries and their clients: until it was
		// due (the client's timeout, 20 s by default) an ended process stayed
		// reachable
		this.ledger.clientTimeout(TimeUnit.HOURS.toNanos(1));
		this.ledger.open(observed("1", (ended) -> {
		}));
		assertThat(this.timer.getQueue()).hasSize(1);
		this.ledger.closeAll();
		assertThat(this.timer.getQueue()).isEmpty();
	}

	@Test
	void aRequestEnteredWhileTheSweepWalksTheLedgerIsSweptToo() {
		// "5" and "1" fall into the 5th and 1st bins of the ledger's map: the walk has
		// passed the 1st when the end of "5"'s observation enters "1", which finds the
		// sweep still scheduled and schedules none
		this.ledger.clientTimeout(TimeUnit.MILLISECONDS.toNanos(50));
		CompletableFuture<@Nullable Throwable> second = new CompletableFuture<>();
		this.ledger.open(observed("5", (ended) -> this.ledger.open(observed("1", second::complete))));
		assertThat(second).succeedsWithin(Duration.ofSeconds(30)).isInstanceOf(TimeoutException.class);
	}

	private static InFlightRequest observed(String id, Consumer<@Nullable Throwable> ends) {
		InFlightRequest request = InFlightRequest.of(id,
				JsonRpcLine.of("{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"hang\"}"), null);
		request.observe(new InFlightRequest.Observer() {

			@Override
			public JsonRpcLine opened(InFlightRequest opened) {
				return opened.request();
			}

			@Override
			public void ended(InFlightRequest ended, @Nullable JsonRpcLine response, @Nullable Throwable failure) {
				ends.accept(failure);
			}

		});
		return request;
	}

}
