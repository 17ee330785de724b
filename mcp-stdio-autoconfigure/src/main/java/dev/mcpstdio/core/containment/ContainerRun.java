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
import java.util.Set;

import dev.mcpstdio.core.process.ProcessMarkers;
import org.jspecify.annotations.Nullable;

/**
 * A server command line recognised as a container run ({@code docker} or {@code podman}
 * with {@code run} or {@code container run}, global options before it allowed), which
 * knows where our own options go: right after {@code run}, so that the user's arguments
 * keep their meaning. It refuses what cannot serve MCP over stdio ({@code -t}, {@code
 * -d}, no {@code -i}, an {@code --attach} without stdout, our markers or labels set by
 * the user) and lists the options that give the container the host.
 *
 * @author mcp-stdio authors
 */
public final class ContainerRun {

	/** Global options of docker and podman that take a value (the rest are flags). */
	private static final Set<String> GLOBAL_VALUE_OPTIONS = Set.of("--config", "--context", "--host", "--log-level",
			"--tlscacert", "--tlscert", "--tlskey", "--cgroup-manager", "--conmon", "--connection", "--events-backend",
			"--hooks-dir", "--identity", "--imagestore", "--module", "--network-cmd-path", "--network-config-dir",
			"--out", "--root", "--runroot", "--runtime", "--runtime-flag", "--ssh", "--storage-driver", "--storage-opt",
			"--tmpdir", "--url", "--volumepath", "--cdi-spec-dir");

	private static final String GLOBAL_VALUE_SHORT = "Hcl";

	/**
	 * Options of {@code docker run} and {@code podman run} that take no value; any other
	 * long option takes one (as {@code --opt=value} or {@code --opt value}).
	 */
	private static final Set<String> RUN_FLAGS = Set.of("--detach", "--disable-content-trust", "--help", "--init",
			"--interactive", "--no-healthcheck", "--oom-kill-disable", "--privileged", "--publish-all", "--quiet",
			"--read-only", "--rm", "--sig-proxy", "--tty", "--use-api-socket", "--env-host", "--http-proxy",
			"--no-hosts", "--passwd", "--read-only-tmpfs", "--replace", "--rmi", "--rootfs", "--tls-verify",
			"--no-hostname", "--init-ctr");

	/** Short flags of {@code run}: -d -i -P -q -t. */
	private static final String RUN_SHORT_FLAGS = "diPqt";

	/** The engines recognised, by the file name of the command. */
	public enum Engine {

		/** Docker's CLI (also Docker Desktop). */
		DOCKER,

		/** Podman's CLI. */
		PODMAN

	}

	private final Engine engine;

	private final String command;

	private final List<String> args;

	private final int runIndex;

	private final @Nullable String name;

	private final @Nullable String cidfile;

	private final boolean init;

	private final boolean autoRemove;

	private final String image;

	private final List<String> hostAccess;

	private ContainerRun(Engine engine, String command, List<String> args, int runIndex, RunOptions options,
			String image) {
		this.engine = engine;
		this.command = command;
		this.args = args;
		this.runIndex = runIndex;
		this.name = options.name;
		this.cidfile = options.cidfile;
		this.init = options.init;
		this.autoRemove = options.autoRemove;
		this.image = image;
		this.hostAccess = List.copyOf(options.hostAccess);
	}

	/**
	 * Recognise a container run.
	 * @param command the server's command as configured
	 * @param args its arguments
	 * @return the container run, or {@code null} when the command is not one
	 * @throws InvalidContainerCommandException when it is one that cannot serve MCP over
	 * stdio
	 */
	public static @Nullable ContainerRun recognise(String command, List<String> args) {
		Engine engine = engineOf(command);
		if (engine == null) {
			return null;
		}
		List<String> copy = List.copyOf(args);
		int runIndex = findRun(copy);
		if (runIndex < 0) {
			return null;
		}
		RunOptions options = new RunOptions();
		int imageIndex = parseRunOptions(copy, runIndex + 1, options);
		if (imageIndex >= copy.size()) {
			throw new InvalidContainerCommandException(
					"'" + copy.get(runIndex) + "' has no image to run; name the image after the options", -1);
		}
		options.check();
		return new ContainerRun(engine, command, copy, runIndex, options, copy.get(imageIndex));
	}

	static @Nullable Engine engineOf(String command) {
		// either separator: a Windows path is read the same on any OS
		int slash = Math.max(command.lastIndexOf('/'), command.lastIndexOf('\\'));
		String name = command.substring(slash + 1).toLowerCase(Locale.ROOT);
		if (name.endsWith(".exe")) {
			name = name.substring(0, name.length() - 4);
		}
		return switch (name) {
			case "docker" -> Engine.DOCKER;
			case "podman" -> Engine.PODMAN;
			default -> null;
		};
	}

	/** Return the index of the {@code run} subcommand, or -1. */
	private static int findRun(List<String> args) {
		int i = 0;
		while (i < args.size()) {
			String arg = args.get(i);
			if (arg.equals("--")) {
				return -1;
			}
			if (!arg.startsWith("-") || arg.equals("-")) {
				break;
			}
			i += takesGlobalValue(arg) ? 2 : 1;
		}
		if (i < args.size() && args.get(i).equals("run")) {
			return i;
		}
		if (i + 1 < args.size() && args.get(i).equals("container") && args.get(i + 1).equals("run")) {
			return i + 1;
		}
		return -1;
	}

	private static boolean takesGlobalValue(String arg) {
		if (arg.startsWith("--")) {
			return !arg.contains("=") && GLOBAL_VALUE_OPTIONS.contains(arg);
		}
		return arg.length() == 2 && GLOBAL_VALUE_SHORT.indexOf(arg.charAt(1)) >= 0;
	}

	/**
	 * Read the options of {@code run} from {@code start}.
	 * @return the index of the image
	 */
	private static int parseRunOptions(List<String> args, int start, RunOptions options) {
		int i = start;
		while (i < args.size()) {
			String arg = args.get(i);
			if (arg.equals("--")) {
				return i + 1;
			}
			if (!arg.startsWith("-") || arg.equals("-")) {
				return i;
			}
			if (arg.startsWith("--")) {
				int eq = arg.indexOf('=');
				String option = (eq < 0) ? arg : arg.substring(0, eq);
				String inline = (eq < 0) ? null : arg.substring(eq + 1);
				if (RUN_FLAGS.contains(option)) {
					options.flag(option, (inline != null) ? parseBoolean(inline, arg, i) : true, i);
					i++;
				}
				else if (inline != null) {
					options.value(option, inline, i);
					i++;
				}
				else {
					options.value(option, (i + 1 < args.size()) ? args.get(i + 1) : "", i);
					i += 2;
				}
			}
			else {
				i += parseShortGroup(args, i, options);
			}
		}
		return i;
	}

	/**
	 * Read a group of short options such as {@code -it}, {@code -i=false},
	 * {@code -eNAME=value} or {@code -e NAME=value}.
	 * @return how many arguments it used
	 */
	private static int parseShortGroup(List<String> args, int index, RunOptions options) {
		String arg = args.get(index);
		for (int j = 1; j < arg.length(); j++) {
			char letter = arg.charAt(j);
			String option = longName(letter);
			if (RUN_SHORT_FLAGS.indexOf(letter) >= 0) {
				if (j + 1 < arg.length() && arg.charAt(j + 1) == '=') {
					options.flag(option, parseBoolean(arg.substring(j + 2), arg, index), index);
					return 1;
				}
				options.flag(option, true, index);
				continue;
			}
			// a short option with a value takes the rest of the group, or the next
			// argument
			String rest = arg.substring(j + 1);
			if (rest.startsWith("=")) {
				rest = rest.substring(1);
			}
			if (!rest.isEmpty()) {
				options.value(option, rest, index);
				return 1;
			}
			options.value(option, (index + 1 < args.size()) ? args.get(index + 1) : "", index);
			return 2;
		}
		return 1;
	}

	private static String longName(char letter) {
		return switch (letter) {
			case 'a' -> "--attach";
			case 'd' -> "--detach";
			case 'e' -> "--env";
			case 'i' -> "--interactive";
			case 'l' -> "--label";
			case 't' -> "--tty";
			default -> "-" + letter;
		};
	}

	/** Go's strconv.ParseBool, which the engines' flag parsers use. */
	private static boolean parseBoolean(String value, String arg, int index) {
		return switch (value) {
			case "1", "t", "T", "true", "TRUE", "True" -> true;
			case "0", "f", "F", "false", "FALSE", "False" -> false;
			default -> throw new InvalidContainerCommandException(
					"'" + arg + "' is not a boolean flag value (true or false)", index);
		};
	}

	/**
	 * Return the arguments with ours inserted right after {@code run}: the user's options
	 * all come after ours, and what follows the image is untouched.
	 * @param additions our options
	 * @return the arguments to run
	 */
	public List<String> argsWith(List<String> additions) {
		List<String> result = new ArrayList<>(this.args.size() + additions.size());
		result.addAll(this.args.subList(0, this.runIndex + 1));
		result.addAll(additions);
		result.addAll(this.args.subList(this.runIndex + 1, this.args.size()));
		return result;
	}

	public Engine engine() {
		return this.engine;
	}

	/**
	 * Return the command as configured.
	 * @return the engine command
	 */
	public String command() {
		return this.command;
	}

	/**
	 * Return the user's arguments, unchanged: what logs and the endpoint show.
	 * @return the arguments
	 */
	public List<String> args() {
		return this.args;
	}

	/**
	 * Return the options given before the subcommand ({@code --context x},
	 * {@code -H tcp://…}), which every later call of the engine needs too.
	 * @return the global options
	 */
	public List<String> globalOptions() {
		int end = this.runIndex;
		if (end > 0 && this.args.get(end - 1).equals("container")) {
			end--;
		}
		return this.args.subList(0, end);
	}

	/**
	 * Return the container name the user gave.
	 * @return the name or {@code null}
	 */
	public @Nullable String name() {
		return this.name;
	}

	/**
	 * Return the cidfile the user gave.
	 * @return the path or {@code null}
	 */
	public @Nullable String cidfile() {
		return this.cidfile;
	}

	/**
	 * Return whether the user's options already ask for an init process.
	 * @return whether {@code --init} is given
	 */
	public boolean init() {
		return this.init;
	}

	/**
	 * Return whether the engine removes the container when it exits ({@code --rm}).
	 * @return whether {@code --rm} is given
	 */
	public boolean autoRemove() {
		return this.autoRemove;
	}

	/**
	 * Return the options that give the container the host itself: {@code --privileged},
	 * the host's pid or network namespace, a mount of the host's {@code /}. Each as the
	 * configuration wrote it, for a warning: the configuration is trusted.
	 * @return the options, in order, possibly none
	 */
	public List<String> hostAccess() {
		return this.hostAccess;
	}

	public String image() {
		return this.image;
	}

	/**
	 * The options of {@code run} that matter to us, last one winning like the engines.
	 */

}
