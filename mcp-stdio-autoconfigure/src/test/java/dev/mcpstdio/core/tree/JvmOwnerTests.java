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

package dev.mcpstdio.core.tree;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ProcessMarkers.Owner}: a dead owner is told from a live one and from
 * another process that reused its pid.
 *
 * @author mcp-stdio authors
 */
class JvmOwnerTests {

	@Test
	void thisJvmIsALiveLocalOwner() {
		ProcessMarkers.Owner current = ProcessMarkers.Owner.current();
		assertThat(current.pid()).isEqualTo(ProcessMarkers.CURRENT_PID);
		assertThat(current.isLocal()).isTrue();
		assertThat(current.isAlive()).isTrue();
		assertThat(ProcessMarkers.Owner.parse(current.id(), current.host())).isEqualTo(current);
	}

	@Test
	void anOwnerWhosePidEndedIsDead() throws Exception {
		Process process = new ProcessBuilder("sleep", "60").start();
		ProcessMarkers.Owner owner = ProcessMarkers.Owner.of(process.pid());
		assertThat(owner.isAlive()).isTrue();
		process.destroyForcibly();
		assertThat(process.waitFor(5, TimeUnit.SECONDS)).isTrue();
		assertThat(owner.isAlive()).isFalse();
	}

	@Test
	void aLiveProcessStartedAtAnotherTimeIsNotTheOwner() throws Exception {
		Process process = new ProcessBuilder("sleep", "60").start();
		try {
			ProcessMarkers.Owner real = ProcessMarkers.Owner.of(process.pid());
			ProcessMarkers.Owner reused = new ProcessMarkers.Owner(process.pid(), real.start() + "1", real.host());
			assertThat(reused.isAlive()).isFalse();
			ProcessMarkers.Owner millis = new ProcessMarkers.Owner(process.pid(), "1000ms", real.host());
			assertThat(millis.isAlive()).isFalse();
			long startMillis = ProcessHandle.of(process.pid()).get().info().startInstant().get().toEpochMilli();
			assertThat(new ProcessMarkers.Owner(process.pid(), startMillis + "ms", real.host()).isAlive()).isTrue();
		}
		finally {
			process.destroyForcibly();
		}
	}

	@Test
	void anotherHostsOwnerIsNotLocal() {
		assertThat(new ProcessMarkers.Owner(1, "1", "elsewhere-" + ProcessMarkers.Owner.current().host()).isLocal())
			.isFalse();
		assertThat(ProcessMarkers.Owner.parse("x@1", "h")).isNull();
		assertThat(ProcessMarkers.Owner.parse("12@", "h")).isNull();
		assertThat(ProcessMarkers.Owner.parse("12@5", null)).isNull();
	}

}
