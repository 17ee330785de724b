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

import java.util.concurrent.TimeUnit;

import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The race from the field: many threads start a server that exits at once, send to it and
 * stop it. Every send must end, and end with the exit's facts. Its figures are measured
 * by the bench module ({@code -Dbench.only=lifecycle}).
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class StartSendStopRaceTests {

	private static final int THREADS = 16;

	private static final int ROUNDS = Integer.getInteger("mcp.stdio.race.rounds", 200);

	private final Fixtures fixtures;

	StartSendStopRaceTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	// 3,200 rounds; its own bound of a thread is 10 minutes
	@Timeout(value = 10, unit = TimeUnit.MINUTES)
	void sixteenThreadsStartSendAndStopAServerThatExitsAtOnce() throws Exception {
		StartSendStopRace.Outcome outcome = StartSendStopRace.run(this.fixtures, THREADS, ROUNDS);
		assertThat(outcome.hungThreads()).as("%s", outcome).isZero();
		assertThat(outcome.otherErrors()).as("%s", outcome).isEmpty();
		assertThat(outcome.exitedWithCode3()).isEqualTo(THREADS * ROUNDS);
	}

}
