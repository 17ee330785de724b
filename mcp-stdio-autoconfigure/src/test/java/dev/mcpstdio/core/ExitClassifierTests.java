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

package dev.mcpstdio.core;

import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ExitClassifier}: how what mcp-stdio did to a process (a stop and its
 * cause, the signals sent to its root, stdin closed) classifies its exit, and what its
 * message and hint say.
 *
 * @author mcp-stdio authors
 */
class ExitClassifierTests {

	private final ExitClassifier classifier = new ExitClassifier(Set.of("API_TOKEN"));

	@Test
	void anExitNobodyAskedForIsUnexpectedWhateverItsCode() {
		assertThat(this.classifier.classify(0, () -> true)).isEqualTo(ExitCause.UNEXPECTED);
		assertThat(this.classifier.classify(3, () -> true)).isEqualTo(ExitCause.UNEXPECTED);
	}

	@Test
	void aStopIsCleanOnlyForExitCodeZeroAfterStdinWasClosed() {
		this.classifier.requestStop();
		assertThat(this.classifier.classify(0, () -> false)).isEqualTo(ExitCause.UNEXPECTED);
		assertThat(this.classifier.classify(0, () -> true)).as("stdin being closed").isEqualTo(ExitCause.CLEAN);
		assertThat(this.classifier.classify(1, () -> true)).isEqualTo(ExitCause.UNEXPECTED);
		this.classifier.stdinClosedByStop();
		assertThat(this.classifier.classify(0, () -> false)).as("stdin closed by the stop").isEqualTo(ExitCause.CLEAN);
	}

	@Test
	void stdinIsAskedAboutOnlyForAnExitCodeZeroAfterAStop() {
		AtomicInteger asked = new AtomicInteger();
		this.classifier.classify(0, () -> asked.incrementAndGet() > 0);
		this.classifier.requestStop();
		this.classifier.classify(3, () -> asked.incrementAndGet() > 0);
		assertThat(asked).hasValue(0);
		this.classifier.classify(0, () -> asked.incrementAndGet() > 0);
		assertThat(asked).hasValue(1);
	}

	@Test
	void aSigkillIsRememberedOverALaterSigterm() {
		this.classifier.signalled(false);
		assertThat(this.classifier.classify(143, () -> false)).isEqualTo(ExitCause.TERMINATED);
		this.classifier.signalled(true);
		this.classifier.signalled(false);
		assertThat(this.classifier.classify(137, () -> false)).isEqualTo(ExitCause.KILLED);
		this.classifier.requestStop();
		assertThat(this.classifier.classify(0, () -> true)).as("signalled by the stop").isEqualTo(ExitCause.KILLED);
	}

	@Test
	void theCauseOfAStopForAReasonOfItsOwnWinsOverTheSignalOnceTheStopBegan() {
		this.classifier.prepareStop(ExitCause.MEMORY_LIMIT, "512 MB over max-memory 256 MB");
		this.classifier.signalled(true);
		assertThat(this.classifier.classify(137, () -> false)).as("before the stop").isEqualTo(ExitCause.KILLED);
		assertThat(this.classifier.reason()).isNull();
		this.classifier.requestStop();
		assertThat(this.classifier.classify(137, () -> false)).isEqualTo(ExitCause.MEMORY_LIMIT);
		assertThat(this.classifier.reason()).isEqualTo("512 MB over max-memory 256 MB");
	}

	@Test
	void aFailureIsTheReasonBeforeTheReasonOfAStop() {
		this.classifier.prepareStop(ExitCause.IDLE, "idle");
		this.classifier.failed("it closed its stdout while the process kept running");
		this.classifier.requestStop();
		assertThat(this.classifier.failure()).isEqualTo("it closed its stdout while the process kept running");
		assertThat(this.classifier.reason()).isEqualTo("it closed its stdout while the process kept running");
	}

	@Test
	void theStartupHintNamesAWithheldVariableOnlyBeforeTheProcessSpokeAndWithoutAStop() {
		List<String> stderr = List.of("error: API_TOKEN is not set");
		assertThat(this.classifier.startupHint(stderr)).contains("API_TOKEN");
		assertThat(this.classifier.startupHint(List.of("error: OTHER_TOKEN is not set"))).isNull();
		ExitClassifier spoke = new ExitClassifier(Set.of("API_TOKEN"));
		spoke.spoke();
		assertThat(spoke.startupHint(stderr)).isNull();
		ExitClassifier stopped = new ExitClassifier(Set.of("API_TOKEN"));
		stopped.requestStop();
		assertThat(stopped.startupHint(stderr)).isNull();
	}

}
