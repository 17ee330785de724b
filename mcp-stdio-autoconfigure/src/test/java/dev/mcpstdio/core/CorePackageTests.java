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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core must stay usable without Spring: no class of it may import Spring.
 *
 * @author mcp-stdio authors
 */
class CorePackageTests {

	@Test
	void coreNeverImportsSpring() throws IOException {
		Path core = Path.of("src/main/java/dev/mcpstdio/core");
		List<Path> sources;
		try (Stream<Path> files = Files.walk(core)) {
			sources = files.filter((file) -> file.toString().endsWith(".java")).toList();
		}
		assertThat(sources).hasSizeGreaterThan(10);
		for (Path source : sources) {
			assertThat(Files.readAllLines(source)).as(source.toString())
				.noneMatch((line) -> line.startsWith("import org.springframework"));
		}
	}

}
