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
import java.util.List;
import java.util.Locale;

import dev.mcpstdio.core.process.ProcessMarkers;
import org.jspecify.annotations.Nullable;

/**
 * The options of one {@code docker run} or {@code podman run} that mcp-stdio reads, as
 * {@link ContainerRun} parses them, and the checks that refuse a run that cannot carry
 * MCP over stdio.
 *
 * @author mcp-stdio authors
 */
final class RunOptions {

	private boolean interactive;

	private int tty = -1;

	private int detach = -1;

	boolean init;

	boolean autoRemove;

	@Nullable String name;

	@Nullable String cidfile;

	private final List<String> attach = new ArrayList<>();

	private int attachIndex = -1;

	private int reservedIndex = -1;

	final List<String> hostAccess = new ArrayList<>();

	private @Nullable String reserved;

	void flag(String option, boolean on, int index) {
		switch (option) {
			case "--interactive" -> this.interactive = on;
			case "--tty" -> this.tty = on ? index : -1;
			case "--detach" -> this.detach = on ? index : -1;
			case "--init" -> this.init = on;
			case "--rm" -> this.autoRemove = on;
			case "--privileged" -> {
				if (on) {
					this.hostAccess.add("--privileged");
				}
			}
			default -> {
			}
		}
	}

	void value(String option, String value, int index) {
		switch (option) {
			case "--name" -> this.name = value;
			case "--cidfile" -> this.cidfile = value;
			case "--attach" -> {
				this.attach.add(value.toLowerCase(Locale.ROOT));
				this.attachIndex = index;
			}
			case "--env" -> {
				String variable = value.contains("=") ? value.substring(0, value.indexOf('=')) : value;
				if (variable.equals(ProcessMarkers.SERVER) || variable.equals(ProcessMarkers.OWNER_PID)
						|| variable.equals(ProcessMarkers.INSTANCE)) {
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
				if (value.startsWith(ContainerLabels.PREFIX)) {
					reserve("--label " + (value.contains("=") ? value.substring(0, value.indexOf('=')) : value), index);
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

	void check() {
		if (this.tty >= 0) {
			throw new InvalidContainerCommandException(
					"-t (--tty) cannot carry MCP over stdio: a terminal rewrites the JSON messages (line endings, echo); remove it",
					this.tty);
		}
		if (this.detach >= 0) {
			throw new InvalidContainerCommandException(
					"-d (--detach) cuts the container off from the command's stdin and stdout, so the server would never get a message; remove it",
					this.detach);
		}
		if (!this.interactive) {
			throw new InvalidContainerCommandException(
					"without -i (--interactive) the container's stdin is not connected and the server reads end-of-file at once; add -i after 'run'",
					-1);
		}
		if (!this.attach.isEmpty() && !this.attach.contains("stdout")) {
			throw new InvalidContainerCommandException(
					"-a (--attach) without stdout: the server's answers would never arrive; attach stdout or remove -a",
					this.attachIndex);
		}
		if (this.reserved != null) {
			throw new InvalidContainerCommandException(this.reserved
					+ " is set by mcp-stdio for every container it starts (it finds and ends the container by it); remove it",
					this.reservedIndex);
		}
	}

}
