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

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ExitClassifier}.
 *
 * @author mcp-stdio authors
 */
class ExitClassifierTests {

	private final ExitClassifier classifier = classifier();

	@Test
	void anExitNobodyAskedForIsUnexpectedWhateverItsCode() {
		assertThat(this.classifier.classify(0, true)).isEqualTo(ExitCause.UNEXPECTED);
		assertThat(this.classifier.classify(3, true)).isEqualTo(ExitCause.UNEXPECTED);
	}

	@Test
	void aStopIsCleanOnlyForExitCodeZeroAfterStdinWasClosed() {
		this.classifier.stopRequested = true;
		assertThat(this.classifier.classify(0, false)).isEqualTo(ExitCause.UNEXPECTED);
		assertThat(this.classifier.classify(0, true)).as("stdin being closed").isEqualTo(ExitCause.CLEAN);
		assertThat(this.classifier.classify(1, true)).isEqualTo(ExitCause.UNEXPECTED);
		this.classifier.stdinClosedByStop = true;
		assertThat(this.classifier.classify(0, false)).as("stdin closed by the stop").isEqualTo(ExitCause.CLEAN);
	}

	@Test
	void aSigkillIsRememberedOverALaterSigterm() {
		this.classifier.signalled(false);
		assertThat(this.classifier.classify(143, false)).isEqualTo(ExitCause.TERMINATED);
		this.classifier.signalled(true);
		this.classifier.signalled(false);
		assertThat(this.classifier.classify(137, false)).isEqualTo(ExitCause.KILLED);
		this.classifier.stopRequested = true;
		assertThat(this.classifier.classify(0, true)).as("signalled by the stop").isEqualTo(ExitCause.KILLED);
	}

	@Test
	void theCauseOfAStopForAReasonOfItsOwnWinsOverTheSignalOnceTheStopBegan() {
		// as StdioServerProcess.prepareStop leaves it
		this.classifier.stopReason = "512 MB over max-memory 256 MB";
		this.classifier.stopCause = ExitCause.MEMORY_LIMIT;
		this.classifier.signalled(true);
		assertThat(this.classifier.classify(137, false)).as("before the stop").isEqualTo(ExitCause.KILLED);
		assertThat(this.classifier.reason()).isNull();
		this.classifier.stopRequested = true;
		assertThat(this.classifier.classify(137, false)).isEqualTo(ExitCause.MEMORY_LIMIT);
		assertThat(this.classifier.reason()).isEqualTo("512 MB over max-memory 256 MB");
	}

	@Test
	void aFailureIsTheReasonBeforeTheReasonOfAStop() {
		this.classifier.stopReason = "idle";
		this.classifier.stopCause = ExitCause.IDLE;
		this.classifier.failure = "it closed its stdout while the process kept running";
		this.classifier.stopRequested = true;
		assertThat(this.classifier.failure).isEqualTo("it closed its stdout while the process kept running");
		assertThat(this.classifier.reason()).isEqualTo("it closed its stdout while the process kept running");
	}

	@Test
	void theStartupHintNamesAWithheldVariableOnlyBeforeTheProcessSpokeAndWithoutAStop() {
		List<String> stderr = List.of("error: API_TOKEN is not set");
		assertThat(this.classifier.startupHint(stderr)).contains("API_TOKEN")
			.endsWith("pass it with mcp.stdio.servers.files.env.API_TOKEN=${API_TOKEN} or set "
					+ "mcp.stdio.servers.files.inherit-env=true");
		assertThat(this.classifier.startupHint(List.of("error: OTHER_TOKEN is not set"))).isNull();
		ExitClassifier spoke = classifier();
		spoke.spoke = true;
		assertThat(spoke.startupHint(stderr)).isNull();
		ExitClassifier stopped = classifier();
		stopped.stopRequested = true;
		assertThat(stopped.startupHint(stderr)).isNull();
	}

	private static ExitClassifier classifier() {
		return new ExitClassifier(Set.of("API_TOKEN"), StdioServerSpec.Origin.of("files"));
	}

}
