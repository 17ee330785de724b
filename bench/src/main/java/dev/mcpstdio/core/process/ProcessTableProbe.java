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

package dev.mcpstdio.core.process;

/**
 * Lets the benchmark time one full {@code /proc} scan, the work behind every census that
 * finds no shared snapshot. It lives in the core package only to reach the
 * package-private {@link ProcessScanner}.
 *
 * @author mcp-stdio authors
 */
public final class ProcessTableProbe {

	private static final ProcessScanner scanner = new ProcessScanner(Platform.current(), ProcReader.system());

	private ProcessTableProbe() {
	}

	/**
	 * Scan {@code /proc} once.
	 * @return how many live processes the scan found
	 */
	public static int scan() {
		return scanner.scan().all().size();
	}

}
