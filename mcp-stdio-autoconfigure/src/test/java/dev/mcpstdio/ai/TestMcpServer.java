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

package dev.mcpstdio.ai;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small real MCP server over stdio for the tests, started with the JDK that runs them.
 * Tools: {@code echo}, {@code pid}, {@code children} (starts {@code sleep} children and
 * reports their pids), {@code slow} (answers after {@code millis}) and {@code crash}
 * (writes {@code stderr} to stderr and exits 3 without answering). Options:
 * <ul>
 * <li>{@code --exit-now <code>}: write {@code --stderr} (default
 * {@code boom: missing dependency}) to stderr and exit before reading anything;</li>
 * <li>{@code --starts <file>}: append its pid to the file, so that a test counts the
 * starts; start N also offers a tool {@code generation_N};</li>
 * <li>{@code --exit-first <n> <code>} and {@code --exit-after <n> <code>} (with
 * {@code --starts}): exit like {@code --exit-now} on the first n starts, or on every
 * start after the n-th;</li>
 * <li>{@code --require-env <name>}: exit 2 with {@code Error: <name> is not set} when the
 * variable is missing;</li>
 * <li>{@code --say-env <name> <n>}: write {@code upstream said: <value of name>} to
 * stderr n times before serving;</li>
 * <li>{@code --stall <millis>}: say nothing for that long before reading stdin;</li>
 * <li>{@code --tool-prefix <prefix>}: offer the listed tools under names with that
 * prefix;</li>
 * <li>{@code --refuse-init-after <n> <message>} (with {@code --starts}): answer
 * {@code initialize} with a JSON-RPC error of that message on every start after the
 * n-th;</li>
 * <li>{@code --kill-on-request <n>}: on its n-th request, write {@code --stderr} to
 * stderr and have itself killed with SIGKILL, without answering;</li>
 * <li>{@code --hold-pipes}: start a {@code sleep} that holds its stdout and stderr open,
 * and outlives it;</li>
 * <li>{@code --offer-meta}: list the tool {@code meta} too;</li>
 * <li>{@code --leak-env <name>}: put the value of that variable into its server info, its
 * instructions, and the name and description of a tool {@code tool_<value>}, as a hostile
 * server would.</li>
 * </ul>
 * It offers prompts and resources too, none of them. Tools that are not listed:
 * {@code fail} (answers with a JSON-RPC error whose message is its {@code message}),
 * {@code unsolicited} (writes {@code count} responses to ids never sent, then answers),
 * {@code twice} (answers twice), {@code odd} (writes a JSON object that is no JSON-RPC
 * message, holding its {@code text}, then answers), {@code quit} (writes its
 * {@code stderr} to stderr and exits 0 without answering), {@code close_stdout} (writes
 * its {@code stderr}, closes its stdout and lives on), {@code meta} (answers with the
 * request's {@code _meta} as JSON) and {@code add_tool} (offers a tool named after its
 * {@code name} from now on and says that its tools changed), {@code leaky_error} (a
 * JSON-RPC error that holds the value of {@code --leak-env} in its message and as a key
 * of its data, and the value of {@code DB_PASSWORD} as a number), {@code huge_code} (a
 * JSON-RPC error whose code has {@code digits} digits), {@code raw} (answers with its
 * {@code result}, JSON written into the line as it is) and {@code say} (writes its
 * {@code text} to stderr and, as a line that is no JSON, to stdout, then answers). It
 * reads and writes JSON with {@link TestJson}, not a JSON library, so that it starts
 * cheaply.
 *
 * @author mcp-stdio authors
 */
public final class TestMcpServer {

	private static final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

	/** Which start of the server this is, with {@code --starts}; else 0. */
	private static int generation;

	private static String toolPrefix = "";

	/** The message initialize is refused with, or {@code null}. */
	private static String initRefusal;

	/** The request on which it has itself killed, 0 for none. */
	private static int killOnRequest;

	private static String stderrLine = "";

	private static boolean offerMeta;

	/** The value of the variable {@code --leak-env} names, or {@code null}. */
	private static String leaked;

	private static final AtomicInteger requests = new AtomicInteger();

	private static final List<String> addedTools = new CopyOnWriteArrayList<>();

	private TestMcpServer() {
	}

	public static void main(String[] args) throws Exception {
		List<String> options = List.of(args);
		String stderr = option(options, "--stderr", 1, "boom: missing dependency");
		stderrLine = stderr;
		offerMeta = options.contains("--offer-meta");
		String leak = option(options, "--leak-env", 1, null);
		leaked = (leak != null) ? System.getenv(leak) : null;
		killOnRequest = Integer.parseInt(option(options, "--kill-on-request", 1, "0"));
		String starts = option(options, "--starts", 1, null);
		if (starts != null) {
			Path file = Path.of(starts);
			Files.writeString(file, ProcessHandle.current().pid() + "\n", StandardCharsets.UTF_8,
					StandardOpenOption.CREATE, StandardOpenOption.APPEND);
			generation = Files.readAllLines(file, StandardCharsets.UTF_8).size();
		}
		String required = option(options, "--require-env", 1, null);
		if (required != null && System.getenv(required) == null) {
			exit(2, "Error: " + required + " is not set");
		}
		String say = option(options, "--say-env", 1, null);
		if (say != null) {
			for (int i = 0; i < Integer.parseInt(option(options, "--say-env", 2, "1")); i++) {
				System.err.println("upstream said: " + System.getenv(say));
			}
			System.err.flush();
		}
		toolPrefix = option(options, "--tool-prefix", 1, "");
		String refuseAfter = option(options, "--refuse-init-after", 1, null);
		if (refuseAfter != null && generation > Integer.parseInt(refuseAfter)) {
			initRefusal = option(options, "--refuse-init-after", 2, "refused");
		}
		String exitNow = option(options, "--exit-now", 1, null);
		if (exitNow != null) {
			exit(Integer.parseInt(exitNow), stderr);
		}
		String first = option(options, "--exit-first", 1, null);
		if (first != null && generation <= Integer.parseInt(first)) {
			exit(Integer.parseInt(option(options, "--exit-first", 2, "3")), stderr + " (start " + generation + ")");
		}
		String after = option(options, "--exit-after", 1, null);
		if (after != null && generation > Integer.parseInt(after)) {
			exit(Integer.parseInt(option(options, "--exit-after", 2, "3")), stderr + " (start " + generation + ")");
		}
		if (options.contains("--hold-pipes")) {
			new ProcessBuilder("sleep", "300").inheritIO().start();
		}
		String stall = option(options, "--stall", 1, null);
		if (stall != null) {
			Thread.sleep(Long.parseLong(stall));
		}
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = in.readLine()) != null) {
			Map<?, ?> message = object(TestJson.parse(line));
			if (!message.containsKey("id") || !message.containsKey("method")) {
				continue;
			}
			if (requests.incrementAndGet() == killOnRequest) {
				System.err.println(stderrLine);
				System.err.flush();
				new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid())).start().waitFor();
				Thread.sleep(60_000);
			}
			Thread thread = new Thread(() -> answer(message));
			thread.setDaemon(true);
			thread.start();
		}
		System.exit(0);
	}

	private static String option(List<String> options, String name, int offset, String otherwise) {
		int at = options.indexOf(name);
		return (at >= 0 && at + offset < options.size()) ? options.get(at + offset) : otherwise;
	}

	private static void exit(int code, String stderr) {
		System.err.println(stderr);
		System.err.flush();
		System.exit(code);
	}

	private static void answer(Map<?, ?> request) {
		Map<?, ?> params = object(request.get("params"));
		String method = string(request, "method", "");
		String tool = string(params, "name", "");
		Map<?, ?> arguments = object(params.get("arguments"));
		if (method.equals("tools/call") && tool.equals("huge_code")) {
			String id = TestJson.write(request.get("id"));
			String code = "7".repeat((int) number(arguments, "digits", 1000));
			synchronized (out) {
				out.println("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"error\":{\"code\":" + code
						+ ",\"message\":\"a code too long\"}}");
			}
			return;
		}
		if (method.equals("tools/call") && tool.equals("raw")) {
			String id = TestJson.write(request.get("id"));
			synchronized (out) {
				out.println(
						"{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + string(arguments, "result", "{}") + "}");
			}
			return;
		}
		if (method.equals("tools/call") && tool.equals("leaky_error")) {
			Map<String, Object> error = new LinkedHashMap<>();
			error.put("code", -32000);
			error.put("message", "upstream rejected key " + leaked);
			Map<String, Object> data = new LinkedHashMap<>();
			data.put(String.valueOf(leaked), "as a key");
			data.put("pin", Long.parseLong(System.getenv("DB_PASSWORD")));
			error.put("data", data);
			write(request.get("id"), "error", error);
			return;
		}
		if (method.equals("tools/call") && tool.equals("say")) {
			String text = string(arguments, "text", "");
			System.err.println(text);
			System.err.flush();
			synchronized (out) {
				out.println(text);
			}
		}
		if ((method.equals("initialize") && initRefusal != null)
				|| (method.equals("tools/call") && tool.equals("fail"))) {
			Map<String, Object> error = new LinkedHashMap<>();
			error.put("code", -32000);
			error.put("message", method.equals("initialize") ? initRefusal : string(arguments, "message", ""));
			write(request.get("id"), "error", error);
			return;
		}
		if (method.equals("tools/call") && tool.equals("unsolicited")) {
			for (int i = 0; i < number(arguments, "count", 1); i++) {
				write("never-sent-" + i, "result", Map.of());
			}
		}
		if (method.equals("tools/call") && tool.equals("odd")) {
			Map<String, Object> odd = new LinkedHashMap<>();
			odd.put("jsonrpc", "2.0");
			odd.put("note", string(arguments, "text", ""));
			synchronized (out) {
				out.println(TestJson.write(odd));
			}
		}
		Object result = switch (method) {
			case "initialize" -> initializeResult(params);
			case "tools/list" -> Map.of("tools", tools());
			case "prompts/list" -> Map.of("prompts", List.of());
			case "resources/list" -> Map.of("resources", List.of());
			case "resources/templates/list" -> Map.of("resourceTemplates", List.of());
			case "tools/call" ->
				call(tool.startsWith(toolPrefix) ? tool.substring(toolPrefix.length()) : tool, arguments, params);
			default -> Map.of();
		};
		write(request.get("id"), "result", result);
		if (method.equals("tools/call") && tool.equals("twice")) {
			write(request.get("id"), "result", result);
		}
		if (method.equals("tools/call") && tool.equals("add_tool")) {
			Map<String, Object> changed = new LinkedHashMap<>();
			changed.put("jsonrpc", "2.0");
			changed.put("method", "notifications/tools/list_changed");
			synchronized (out) {
				out.println(TestJson.write(changed));
			}
		}
	}

	private static Map<String, Object> initializeResult(Map<?, ?> params) {
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("protocolVersion", string(params, "protocolVersion", "2025-06-18"));
		result.put("capabilities",
				Map.of("tools", Map.of("listChanged", true), "prompts", Map.of(), "resources", Map.of()));
		result.put("serverInfo", Map.of("name", (leaked != null) ? "leaky " + leaked : "test", "version", "1.0"));
		if (leaked != null) {
			result.put("instructions", "Use " + leaked + " wisely");
		}
		return result;
	}

	private static void write(Object id, String kind, Object value) {
		Map<String, Object> response = new LinkedHashMap<>();
		response.put("jsonrpc", "2.0");
		response.put("id", id);
		response.put(kind, value);
		synchronized (out) {
			out.println(TestJson.write(response));
		}
	}

	private static Map<?, ?> object(Object value) {
		return (value instanceof Map<?, ?> map) ? map : Map.of();
	}

	private static String string(Map<?, ?> object, String name, String otherwise) {
		Object value = object.get(name);
		return (value instanceof String || value instanceof Number || value instanceof Boolean) ? value.toString()
				: otherwise;
	}

	private static long number(Map<?, ?> object, String name, long otherwise) {
		Object value = object.get(name);
		if (value instanceof Number number) {
			return number.longValue();
		}
		try {
			return (value instanceof String string) ? Long.parseLong(string.trim()) : otherwise;
		}
		catch (NumberFormatException ex) {
			return otherwise;
		}
	}

	private static List<Map<String, Object>> tools() {
		List<Map<String, Object>> tools = new ArrayList<>(List.of(tool("echo", "Echoes its text", "text", "string"),
				tool("pid", "Returns the server's pid", null, null),
				tool("children", "Starts sleep children and returns their pids", "count", "integer"),
				tool("slow", "Answers after millis", "millis", "integer")));
		if (generation > 0) {
			tools.add(tool("generation_" + generation, "Names the start of the server that offers it", null, null));
		}
		if (leaked != null) {
			tools.add(tool("tool_" + leaked, "holds " + leaked, null, null));
		}
		if (offerMeta) {
			tools.add(tool("meta", "Answers with the request's _meta", null, null));
		}
		for (String added : addedTools) {
			tools.add(tool(added, "Added at run time", null, null));
		}
		return tools;
	}

	private static Map<String, Object> call(String name, Map<?, ?> arguments, Map<?, ?> params) {
		String text = switch (name) {
			case "quit" -> {
				System.err.println(string(arguments, "stderr", ""));
				System.err.flush();
				Runtime.getRuntime().halt(0);
				yield "unreachable";
			}
			case "close_stdout" -> {
				System.err.println(string(arguments, "stderr", ""));
				System.err.flush();
				out.close();
				try {
					Thread.sleep(120_000);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				yield "unreachable";
			}
			case "meta" -> TestJson.write(object(params.get("_meta")));
			case "add_tool" -> {
				addedTools.add(string(arguments, "name", "added"));
				yield "added";
			}
			case "echo" -> string(arguments, "text", "");
			case "pid" -> Long.toString(ProcessHandle.current().pid());
			case "children" -> {
				List<Long> pids = new ArrayList<>();
				for (int i = 0; i < number(arguments, "count", 1); i++) {
					try {
						pids.add(new ProcessBuilder("sleep", "300").start().pid());
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				}
				yield pids.toString();
			}
			case "crash" -> {
				// writes its argument to stderr and ends without an answer
				System.err.println(string(arguments, "stderr", ""));
				System.err.flush();
				Runtime.getRuntime().halt(3);
				yield "unreachable";
			}
			case "slow" -> {
				try {
					Thread.sleep(number(arguments, "millis", 1000));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				yield "slept";
			}
			default -> "unknown tool " + name;
		};
		return Map.of("content", List.of(Map.of("type", "text", "text", text)));
	}

	private static Map<String, Object> tool(String name, String description, String property, String type) {
		Map<String, Object> properties = (property != null) ? Map.of(property, Map.of("type", type)) : Map.of();
		return Map.of("name", toolPrefix + name, "description", description, "inputSchema",
				Map.of("type", "object", "properties", properties));
	}

}
