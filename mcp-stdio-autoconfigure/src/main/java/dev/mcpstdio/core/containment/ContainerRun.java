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

import org.jspecify.annotations.Nullable;

/**
 * A server command line recognised as {@code docker run} or {@code podman run}.
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

	private final List<String> args;

	private final int runIndex;

	/** The options of run that matter to mcp-stdio. */
	private final RunOptions options = new RunOptions();

	private ContainerRun(List<String> args, int runIndex) {
		this.args = args;
		this.runIndex = runIndex;
	}

	/**
	 * Recognise a container run.
	 * @param command the server's command
	 * @param args its arguments
	 * @return the container run, or {@code null} when the command is not one
	 * @throws ContainerRun.InvalidCommandException when it is one that cannot serve MCP
	 * over stdio ({@code -t}, {@code -d}, no {@code -i}, our markers or labels set by the
	 * user)
	 */
	public static @Nullable ContainerRun recognise(String command, List<String> args) {
		List<String> copy = List.copyOf(args);
		int runIndex = findRun(copy);
		if (engineOf(command) == null || runIndex < 0) {
			return null;
		}
		ContainerRun run = new ContainerRun(copy, runIndex);
		int imageIndex = run.parseRunOptions(runIndex + 1);
		refuse(imageIndex >= copy.size(),
				"'" + copy.get(runIndex) + "' has no image to run; name the image after the options", -1);
		run.options.check();
		return run;
	}

	/**
	 * Return {@code docker} or {@code podman}, by the file name of the command, or null.
	 */
	static @Nullable String engineOf(String command) {
		// either separator: a Windows path is read the same on any OS
		int slash = Math.max(command.lastIndexOf('/'), command.lastIndexOf('\\'));
		String name = command.substring(slash + 1).toLowerCase(Locale.ROOT);
		if (name.endsWith(".exe")) {
			name = name.substring(0, name.length() - 4);
		}
		return (name.equals("docker") || name.equals("podman")) ? name : null;
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
		// --opt=value carries its value
		return arg.startsWith("--") ? GLOBAL_VALUE_OPTIONS.contains(arg)
				: arg.length() == 2 && GLOBAL_VALUE_SHORT.indexOf(arg.charAt(1)) >= 0;
	}

	/**
	 * Read the options of {@code run} from {@code start}.
	 * @return the index of the image
	 */
	private int parseRunOptions(int start) {
		int i = start;
		while (i < this.args.size()) {
			String arg = this.args.get(i);
			if (arg.equals("--")) {
				return i + 1;
			}
			if (!arg.startsWith("-") || arg.equals("-")) {
				return i;
			}
			if (arg.startsWith("--")) {
				int eq = arg.indexOf('=');
				String option = (eq < 0) ? arg : arg.substring(0, eq);
				i += option(option, (eq < 0) ? null : arg.substring(eq + 1), RUN_FLAGS.contains(option), i);
			}
			else {
				i += parseShortGroup(i);
			}
		}
		return i;
	}

	/**
	 * Read a group of short options such as {@code -it}, {@code -i=false},
	 * {@code -eNAME=value} or {@code -e NAME=value}.
	 * @return how many arguments it used
	 */
	private int parseShortGroup(int index) {
		String arg = this.args.get(index);
		for (int j = 1; j < arg.length(); j++) {
			char letter = arg.charAt(j);
			boolean flag = RUN_SHORT_FLAGS.indexOf(letter) >= 0;
			String rest = arg.substring(j + 1);
			if (flag && !rest.startsWith("=")) {
				this.options.flag(longName(letter), true, index);
				continue;
			}
			// a flag's value follows '='; a short option with a value takes the rest of
			// the group, or the next argument
			String inline = rest.startsWith("=") ? rest.substring(1) : rest;
			return option(longName(letter), (flag || !inline.isEmpty()) ? inline : null, flag, index);
		}
		return 1;
	}

	/**
	 * Read one option of {@code run} at {@code index}: a flag, or an option with a value
	 * given inline or in the next argument.
	 * @param inline the value written in the same argument, or {@code null}
	 * @return how many arguments it used
	 */
	private int option(String option, @Nullable String inline, boolean flag, int index) {
		if (flag) {
			this.options.flag(option, (inline != null) ? parseBoolean(inline, this.args.get(index), index) : true,
					index);
			return 1;
		}
		if (inline != null) {
			this.options.value(option, inline, index);
			return 1;
		}
		this.options.value(option, (index + 1 < this.args.size()) ? this.args.get(index + 1) : "", index);
		return 2;
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
			default -> throw new ContainerRun.InvalidCommandException(
					"'" + arg + "' is not a boolean flag value (true or false)", index);
		};
	}

	static void refuse(boolean refused, String problem, int argIndex) {
		if (refused) {
			throw new InvalidCommandException(problem, argIndex);
		}
	}

	/**
	 * Return the arguments with ours inserted right after {@code run}: the user's options
	 * all come after ours, and what follows the image is untouched.
	 * @param additions our options
	 * @return the arguments to run
	 */
	List<String> argsWith(List<String> additions) {
		List<String> result = new ArrayList<>(this.args.subList(0, this.runIndex + 1));
		result.addAll(additions);
		result.addAll(this.args.subList(this.runIndex + 1, this.args.size()));
		return result;
	}

	/**
	 * Return the options given before the subcommand ({@code --context x},
	 * {@code -H tcp://…}), which every later call of the engine needs too.
	 * @return the global options
	 */
	List<String> globalOptions() {
		int end = this.runIndex;
		if (end > 0 && this.args.get(end - 1).equals("container")) {
			end--;
		}
		return this.args.subList(0, end);
	}

	/**
	 * Return the options that give the container the host itself: {@code --privileged},
	 * the host's pid or network namespace, a mount of the host's {@code /}. Each as the
	 * configuration wrote it, for a warning: the configuration is trusted.
	 * @return the options, in order, possibly none
	 */
	public List<String> hostAccess() {
		return this.options.hostAccess();
	}

	@Nullable String cidfile() {
		return this.options.cidfile();
	}

	boolean init() {
		return this.options.init();
	}

	/**
	 * A {@code docker run} or {@code podman run} command line that cannot serve MCP over
	 * stdio.
	 */
	public static final class InvalidCommandException extends IllegalArgumentException {

		private final int argIndex;

		InvalidCommandException(String message, int argIndex) {
			super(message);
			this.argIndex = argIndex;
		}

		/**
		 * Return the index of the offending argument in the server's {@code args}.
		 * @return the index, or -1 when the problem is a missing argument
		 */
		public int argIndex() {
			return this.argIndex;
		}

	}

}
