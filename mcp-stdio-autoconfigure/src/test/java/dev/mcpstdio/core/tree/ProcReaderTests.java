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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;

/**
 * Tests for {@link ProcReader}'s listing of processes.
 *
 * @author mcp-stdio authors
 */
class ProcReaderTests {

	@Test
	void pidsAreTheNamesMadeOfDigitsOnly(@TempDir Path root) throws IOException {
		for (String name : new String[] { "1", "4194304", "self", "thread-self", "12a", "a12", "sys",
				"1234567890123456789", "123456789012345678" }) {
			Files.createDirectory(root.resolve(name));
		}
		Files.createFile(root.resolve("77"));
		assertThat(new ProcReader(root).pids()).containsExactlyInAnyOrder(1L, 4194304L, 77L, 123456789012345678L);
	}

	@Test
	void pidsOfThisMachineIncludeThisJvm() throws IOException {
		assertThat(ProcReader.system().pids()).contains(ProcessHandle.current().pid());
	}

	@Test
	void aRootThatCannotBeListedFailsSaying(@TempDir Path root) {
		assertThatIOException().isThrownBy(() -> new ProcReader(root.resolve("absent")).pids())
			.withMessageContaining("absent");
	}

}
