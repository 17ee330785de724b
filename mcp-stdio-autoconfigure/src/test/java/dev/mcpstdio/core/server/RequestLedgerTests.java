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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import dev.mcpstdio.core.server.io.JsonRpcLine;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RequestLedger}: one entry per request in flight, closed by its
 * response, its client's cancellation or the process's end, and bounded.
 *
 * @author mcp-stdio authors
 */
class RequestLedgerTests {

	private final RequestLedger ledger = new RequestLedger(null);

	@Test
	void anEntryKeepsItsRequestsMethodAndOneIdIsOneRequest() {
		JsonRpcLine call = JsonRpcLine.of("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\"}");
		InFlightRequest first = InFlightRequest.of(7, call, null);
		assertThat(this.ledger.open(first)).isEqualTo(RequestLedger.Opened.OPEN);
		// "7" and 7 are one id
		assertThat(this.ledger.open(InFlightRequest.of("7", call, null))).isEqualTo(RequestLedger.Opened.DUPLICATE);
		InFlightRequest entry = this.ledger.close("7");
		assertThat(entry).isSameAs(first);
		assertThat(entry.id()).isEqualTo(7);
		assertThat(entry.method()).isEqualTo("tools/call");
		assertThat(this.ledger.close("7")).isNull();
		assertThat(this.ledger.size()).isZero();
	}

	@Test
	void aRefusedDuplicateLeavesTheFirstRequestAndItsObservation() {
		Ends first = new Ends();
		Ends second = new Ends();
		InFlightRequest original = request("d", first);
		this.ledger.open(original);
		InFlightRequest duplicate = request("d", second);
		assertThat(this.ledger.open(duplicate)).isEqualTo(RequestLedger.Opened.DUPLICATE);
		duplicate.failed(new IllegalArgumentException("refused"));
		assertThat(this.ledger.contains("d")).isTrue();
		assertThat(this.ledger.close("d")).isSameAs(original);
		assertThat(first.failures).isEmpty();
		assertThat(original.observer()).isSameAs(first);
	}

	@Test
	void theClientsCancellationClosesTheRequestItNamesAndEndsItsObservationOnce() {
		Ends ends = new Ends();
		this.ledger.open(request("a", ends));
		this.ledger.open(request("b", null));
		this.ledger.notifying(JsonRpcLine
			.of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"a\"}}"));
		this.ledger.notifying(JsonRpcLine.of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}"));
		assertThat(this.ledger.size()).isOne();
		assertThat(this.ledger.close("b")).isNotNull();
		assertThat(ends.failures).singleElement(org.assertj.core.api.InstanceOfAssertFactories.THROWABLE)
			.isInstanceOf(CancellationException.class)
			.hasMessage("Cancelled by the client");
		// a late answer finds no entry: the observation ended once
		assertThat(this.ledger.close("a")).isNull();
	}

	@Test
	void theEndTellsTheListenersRequestsAndFailsEveryOneOnce() {
		Ends ends = new Ends();
		InFlightRequest awaited = InFlightRequest.awaited("future", line("future"));
		awaited.observe(ends);
		InFlightRequest listened = request("listener", ends);
		this.ledger.open(listened);
		this.ledger.open(awaited);
		RequestLedger.Ended ended = this.ledger.closeAll();
		assertThat(this.ledger.size()).isZero();
		assertThat(ended.unanswered()).containsExactly(listened);
		assertThat(ended.awaited()).containsExactly(awaited);
		assertThat(awaited.future()).isNotDone();
		ended.failUnanswered(() -> new IllegalStateException("exited"));
		ended.failAwaited((id) -> new IllegalStateException("ended before answering " + id));
		assertThat(awaited.future()).failsWithin(Duration.ZERO)
			.withThrowableOfType(ExecutionException.class)
			.withMessageContaining("ended before answering future");
		assertThat(ends.failures).extracting(Throwable::getMessage)
			.containsExactlyInAnyOrder("exited", "ended before answering future");
	}

	@Test
	void aGivenUpRequestHoldsNoDrain() {
		InFlightRequest givenUp = InFlightRequest.awaited("given-up", line("given-up"));
		this.ledger.open(givenUp);
		givenUp.future().cancel(false);
		assertThat(this.ledger.awaitEmpty(System.nanoTime() + 5_000_000_000L)).isTrue();
		this.ledger.open(request("awaited", null));
		assertThat(this.ledger.awaitEmpty(System.nanoTime() + 50_000_000L)).isFalse();
	}

	@Test
	void aRequestOpenedOnceTheExitClosedEveryEntryIsTheSendersToFail() {
		// the exit closes all, tells its listener, then fails the writes: a request
		// opened between, found by no one, left its caller waiting when its write
		// still went through (StartSendStopRaceTests, one request of 3,200, under load
		// in CI)
		this.ledger.open(request("before", null));
		assertThat(this.ledger.closeAll().unanswered()).extracting(InFlightRequest::id).containsExactly("before");
		assertThat(this.ledger.open(request("after", null))).isEqualTo(RequestLedger.Opened.AFTER_EXIT);
		assertThat(this.ledger.size()).isZero();
	}

	@Test
	void aFullLedgerForgetsTheRequestsGivenUpOnAndRefusesWhenNoneWas() {
		Ends ends = new Ends();
		for (int i = 0; i < RequestLedger.CAPACITY; i++) {
			assertThat(this.ledger.open(request("r-" + i, (i == 0) ? ends : null)))
				.isEqualTo(RequestLedger.Opened.OPEN);
		}
		// all awaited: the next is refused, and none is forgotten
		assertThat(this.ledger.open(request("r-more", null))).isEqualTo(RequestLedger.Opened.FULL);
		assertThat(this.ledger.size()).isEqualTo(RequestLedger.CAPACITY);
		// once the client gave up on them (its timeout passed), they make room: a late
		// answer is then one to an id never sent
		this.ledger.clientTimeout(1);
		assertThat(this.ledger.open(request("r-more", null))).isEqualTo(RequestLedger.Opened.OPEN);
		assertThat(this.ledger.size()).isOne();
		assertThat(this.ledger.close("r-0")).isNull();
		assertThat(ends.failures).singleElement().isInstanceOf(TimeoutException.class);
	}

	private static InFlightRequest request(String id, InFlightRequest.@Nullable Observer observer) {
		InFlightRequest request = InFlightRequest.of(id, line(id), null);
		if (observer != null) {
			request.observe(observer);
		}
		return request;
	}

	private static JsonRpcLine line(String id) {
		return JsonRpcLine.of("{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"hang\"}");
	}

	/** Records how the requests it observes ended. */
	private static final class Ends implements InFlightRequest.Observer {

		private final List<Throwable> failures = new ArrayList<>();

		@Override
		public JsonRpcLine opened(InFlightRequest request) {
			return request.request();
		}

		@Override
		public synchronized void ended(InFlightRequest request, @Nullable JsonRpcLine response,
				@Nullable Throwable failure) {
			this.failures.add(failure);
		}

	}

}
