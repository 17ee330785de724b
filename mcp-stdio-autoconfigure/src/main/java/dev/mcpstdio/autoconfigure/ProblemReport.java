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

package dev.mcpstdio.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.autoconfigure.McpStdioConfigurationException.Problem;

/**
 * Collects the configuration errors of every check, so that one start-up report lists
 * them all.
 *
 * @author mcp-stdio authors
 */
final class ProblemReport {

	private final List<Problem> problems = new ArrayList<>();

	void add(String server, String property, String problem, String action) {
		add(new Problem(server, property, problem, action));
	}

	void add(Problem problem) {
		this.problems.add(problem);
	}

	int count() {
		return this.problems.size();
	}

	boolean concern(String property) {
		return this.problems.stream().anyMatch((problem) -> problem.property().equals(property));
	}

	/**
	 * Throw when any error was found.
	 * @throws McpStdioConfigurationException listing every error
	 */
	void throwIfAny() {
		if (!this.problems.isEmpty()) {
			throw new McpStdioConfigurationException(this.problems);
		}
	}

}
