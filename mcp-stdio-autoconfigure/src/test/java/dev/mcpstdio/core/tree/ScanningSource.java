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

import org.jspecify.annotations.Nullable;

/**
 * A process source of tests that answers every read with a whole scan and holds no
 * process.
 *
 * @author mcp-stdio authors
 */
abstract class ScanningSource implements ProcessSource {

	/**
	 * Read every process.
	 * @return a snapshot
	 */
	public abstract ProcessTable scan();

	@Override
	public ProcessTable scan(long freshSince) {
		return scan();
	}

	@Override
	public ProcessTable reread(ProcessTable table) {
		return scan();
	}

	@Override
	public ProcessTable lineage(long pid) {
		return scan();
	}

	@Override
	public Pidfds.@Nullable Pidfd hold(long pid) {
		return null;
	}

}
