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

package dev.mcpstdio.core.containment;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import dev.mcpstdio.core.tree.ProcessMarkers;
import org.jspecify.annotations.Nullable;

/**
 * The options of a {@code docker run} or {@code podman run} that matter to mcp-stdio,
 * read as the engines read them: the last wins.
 *
 * @author mcp-stdio authors
 */
final class RunOptions {

	private boolean interactive;

	private int tty = -1;

	private int detach = -1;

	private boolean init;

	private @Nullable String cidfile;

	private final List<String> attach = new ArrayList<>();

	private int attachIndex = -1;

	private @Nullable String reserved;

	private int reservedIndex = -1;

	private final List<String> hostAccess = new ArrayList<>();

	/**
	 * Take a flag of {@code run}.
	 * @param option its long name
	 * @param on whether it is set
	 * @param index where it is in the server's {@code args}
	 */
	void flag(String option, boolean on, int index) {
		switch (option) {
			case "--interactive" -> this.interactive = on;
			case "--tty" -> this.tty = on ? index : -1;
			case "--detach" -> this.detach = on ? index : -1;
			case "--init" -> this.init = on;
			case "--privileged" -> {
				if (on) {
					this.hostAccess.add("--privileged");
				}
			}
			default -> {
			}
		}
	}

	/**
	 * Take an option of {@code run} with its value.
	 * @param option its long name
	 * @param value its value
	 * @param index where it is in the server's {@code args}
	 */
	void value(String option, String value, int index) {
		switch (option) {
			case "--cidfile" -> this.cidfile = value;
			case "--attach" -> {
				this.attach.add(value.toLowerCase(Locale.ROOT));
				this.attachIndex = index;
			}
			case "--env" -> {
				String variable = value.split("=", 2)[0];
				if (List.of(ProcessMarkers.SERVER, ProcessMarkers.OWNER_PID, ProcessMarkers.INSTANCE)
					.contains(variable)) {
					reserve("-e " + variable, index);
				}
			}
			case "--pid", "--network", "--net", "--uts", "--ipc", "--userns", "--cgroupns" -> {
				if (value.equals("host")) {
					this.hostAccess.add(option + "=host");
				}
			}
			case "--volume", "-v" -> {
				if (value.equals("/") || value.startsWith("/:")) {
					this.hostAccess.add(option + " " + value);
				}
			}
			case "--mount" -> {
				if (mountsHostRoot(value)) {
					this.hostAccess.add("--mount " + value);
				}
			}
			case "--label" -> {
				if (value.startsWith(ContainerEngine.LABEL_PREFIX)) {
					reserve("--label " + value.split("=", 2)[0], index);
				}
			}
			default -> {
			}
		}
	}

	/** A bind mount whose source is the host's {@code /}. */
	private static boolean mountsHostRoot(String spec) {
		boolean bind = false;
		boolean root = false;
		for (String field : spec.split(",")) {
			String[] pair = field.split("=", 2);
			String key = pair[0].strip().toLowerCase(Locale.ROOT);
			String value = (pair.length > 1) ? pair[1].strip() : "";
			if (key.equals("type")) {
				bind = value.equals("bind");
			}
			else if (key.equals("source") || key.equals("src")) {
				root = value.equals("/");
			}
		}
		return bind && root;
	}

	private void reserve(String what, int index) {
		if (this.reserved == null) {
			this.reserved = what;
			this.reservedIndex = index;
		}
	}

	/**
	 * Refuse a run that cannot serve MCP over stdio.
	 * @throws ContainerRun.InvalidCommandException naming what to change
	 */
	void check() {
		ContainerRun.refuse(this.tty >= 0,
				"-t (--tty) cannot carry MCP over stdio: a terminal rewrites the JSON messages (line endings, echo); remove it",
				this.tty);
		ContainerRun.refuse(this.detach >= 0,
				"-d (--detach) cuts the container off from the command's stdin and stdout, so the server would never get a message; remove it",
				this.detach);
		ContainerRun.refuse(!this.interactive,
				"without -i (--interactive) the container's stdin is not connected and the server reads end-of-file at once; add -i after 'run'",
				-1);
		ContainerRun.refuse(!this.attach.isEmpty() && !this.attach.contains("stdout"),
				"-a (--attach) without stdout: the server's answers would never arrive; attach stdout or remove -a",
				this.attachIndex);
		ContainerRun.refuse(this.reserved != null, this.reserved
				+ " is set by mcp-stdio for every container it starts (it finds and ends the container by it); remove it",
				this.reservedIndex);
	}

	List<String> hostAccess() {
		return Collections.unmodifiableList(this.hostAccess);
	}

	@Nullable String cidfile() {
		return this.cidfile;
	}

	boolean init() {
		return this.init;
	}

}
