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
import java.util.concurrent.ExecutionException;

import dev.mcpstdio.core.server.io.JsonRpcLine;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RequestLedger}: one entry per request in flight, closed by its
 * response, its client's cancellation or the process's end.
 *
 * @author mcp-stdio authors
 */
class RequestLedgerTests {

	private final RequestLedger ledger = new RequestLedger();

	@Test
	void anEntryKeepsItsRequestsMethodAndOneIdIsOneRequest() {
		JsonRpcLine call = JsonRpcLine.of("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\"}");
		assertThat(this.ledger.open(7, call, null)).isEqualTo(RequestLedger.Opened.OPEN);
		// "7" and 7 are one id
		assertThat(this.ledger.open("7", call, null)).isEqualTo(RequestLedger.Opened.DUPLICATE);
		RequestLedger.Entry entry = this.ledger.close("7");
		assertThat(entry).isNotNull();
		assertThat(entry.id()).isEqualTo(7);
		assertThat(entry.method()).isEqualTo("tools/call");
		assertThat(this.ledger.close("7")).isNull();
		assertThat(this.ledger.size()).isZero();
	}

	@Test
	void theClientsCancellationClosesTheRequestItNames() {
		this.ledger.open("a", null, null);
		this.ledger.open("b", null, null);
		this.ledger.notifying(JsonRpcLine
			.of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"a\"}}"));
		this.ledger.notifying(JsonRpcLine.of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}"));
		assertThat(this.ledger.size()).isOne();
		assertThat(this.ledger.close("b")).isNotNull();
	}

	@Test
	void theEndTellsTheListenersRequestsAndFailsTheFutures() {
		CompletableFuture<JsonRpcLine> awaited = new CompletableFuture<>();
		this.ledger.open("listener", null, null);
		this.ledger.open("future", null, awaited);
		RequestLedger.Ended ended = this.ledger.closeAll();
		assertThat(this.ledger.size()).isZero();
		assertThat(ended.unanswered()).containsExactly("listener");
		assertThat(awaited).isNotDone();
		ended.fail((id) -> new IllegalStateException("ended before answering " + id));
		assertThat(awaited).failsWithin(Duration.ZERO)
			.withThrowableOfType(ExecutionException.class)
			.withMessageContaining("ended before answering future");
	}

	@Test
	void aGivenUpRequestHoldsNoDrain() {
		CompletableFuture<JsonRpcLine> givenUp = new CompletableFuture<>();
		this.ledger.open("given-up", null, givenUp);
		givenUp.cancel(false);
		assertThat(this.ledger.awaitEmpty(System.nanoTime() + 5_000_000_000L, Long.MAX_VALUE)).isTrue();
		this.ledger.open("awaited", null, null);
		assertThat(this.ledger.awaitEmpty(System.nanoTime() + 50_000_000L, Long.MAX_VALUE)).isFalse();
	}

	@Test
	void aRequestOpenedOnceTheExitClosedEveryEntryIsTheSendersToFail() {
		// the exit closes all, tells its listener, then fails the writes: a request
		// opened
		// between, found by no one, left its caller waiting when its write still went
		// through (StartSendStopRaceTests, one request of 3,200, under load in CI)
		this.ledger.open("before", null, null);
		assertThat(this.ledger.closeAll().entries()).extracting(RequestLedger.Entry::id).containsExactly("before");
		assertThat(this.ledger.open("after", null, null)).isEqualTo(RequestLedger.Opened.AFTER_EXIT);
		assertThat(this.ledger.size()).isZero();
	}

}
