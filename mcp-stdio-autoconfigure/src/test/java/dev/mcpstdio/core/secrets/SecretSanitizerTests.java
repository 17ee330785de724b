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

package dev.mcpstdio.core.secrets;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Table-driven tests for {@link SecretSanitizer}: what is masked, and what must not be.
 * The table is also the list of cases in {@code docs/security.md}, kept equal by
 * {@link #docsListEveryCase()}.
 *
 * @author mcp-stdio authors
 */
class SecretSanitizerTests {

	private static final String GHP = "ghp_0123456789abcdefghijABCDEFGHIJ012345";

	private static final String GITHUB_PAT = "github_pat_11AAAAAAA0123456789_abcdefghijklmnopqrstuvwxyzABCDEFG";

	private static final String OPENAI = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t";

	private static final String ANTHROPIC = "sk-ant-api03-Zx9yW8vU7tS6rQ5pO4nM3";

	private static final String SLACK_BOT = "xoxb-123456789012-123456789012-AbCdEfGhIjKlMnOpQrStUvWx";

	private static final String SLACK_USER = "xoxp-123456789012-123456789012-123456789012-0123456789abcdef";

	private static final String AWS = "AKIAIOSFODNN7EXAMPLE";

	private static final String JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";

	private static final String LONG_CLASS_PATH = "/app/classes:"
			+ String.join(":", Collections.nCopies(6, "/root/.m2/repository/some/lib.jar"));

	static final List<Case> CASES = List.of(
			// Masked: command lines
			command("a header with a Bearer token", args("--header", "Authorization: Bearer abc.def.ghi123"),
					"srv --header Authorization: Bearer ******"),
			command("a header as --header=Name: value", args("--header=X-API-Key: k-123"),
					"srv --header=X-API-Key: ******"),
			command("a header after -H, no space", args("-H", "X-Api-Key:abc123"), "srv -H X-Api-Key:******"),
			command("Authorization:, Bearer and the token as three arguments",
					args("-H", "Authorization:", "Bearer", "abc123"), "srv -H Authorization: Bearer ******"),
			command("a JWT as a positional argument", args(JWT), "srv ******"),
			command("a query parameter after the first",
					args("https://api.example.com/v1?page=2&access_token=abc123&x=1"),
					"srv https://api.example.com/v1?page=2&access_token=******&x=1"),
			command("a SAS signature in a query string",
					args("https://acct.blob.core.windows.net/c?sv=2024-01-01&se=2026-01-01&sig=AbC%2Bd%3D"),
					"srv https://acct.blob.core.windows.net/c?sv=2024-01-01&se=2026-01-01&sig=******"),
			command("the password of a JDBC URL", args("jdbc:postgresql://bob:s3cret@db:5432/app"),
					"srv jdbc:postgresql://bob:******@db:5432/app"),
			command("a URI password holding @ and /", args("postgres://bob:p@ss/w0rd@db:5432/app"),
					"srv postgres://bob:******@db:5432/app"),
			command("a URI password in --url=", args("--url=https://alice:pa@ss@example.com/x"),
					"srv --url=https://alice:******@example.com/x"),
			command("an Oracle user/password@ connect string", args("jdbc:oracle:thin:scott/tiger@//db:1521/XE"),
					"srv jdbc:oracle:thin:scott/******@//db:1521/XE"),
			command("--auth VALUE", args("--auth", "alice:wonderland"), "srv --auth ******"),
			command("--pwd VALUE", args("--pwd", "hunter2"), "srv --pwd ******"),
			command("--pass VALUE", args("--pass", "hunter2"), "srv --pass ******"),
			command("--bearer VALUE", args("--bearer", "abc123"), "srv --bearer ******"),
			command("--token:VALUE", args("--token:abc"), "srv --token:******"),
			command("--token=VALUE and --Password=VALUE", args("--token=abc", "--Password=x"),
					"srv --token=****** --Password=******"),
			command("--api-key VALUE", args("--api-key", "sk-1"), "srv --api-key ******"),
			command("--db-password VALUE", args("--db-password", "hunter2"), "srv --db-password ******"),
			command("a password holding @ and / after --password=", args("--password=p@ss/w0rd"),
					"srv --password=******"),
			command("NAME=VALUE with a secret-looking name", args("OPENAI_API_KEY=xyz789", "-Dclient.secret=s"),
					"srv OPENAI_API_KEY=****** -Dclient.secret=******"),
			command("docker -e NAME=VALUE", "docker", args("run", "-e", "GITHUB_TOKEN=" + GHP, "-i", "img"),
					"docker run -e GITHUB_TOKEN=****** -i img"),
			command("a secret inside a JSON argument", args("--config={\"apiKey\":\"abc123\",\"port\":8080}"),
					"srv --config={\"apiKey\":\"******\",\"port\":8080}"),
			command("a GitHub token as a positional argument", args(GHP), "srv ghp_******"),
			command("a fine-grained GitHub token", args(GITHUB_PAT), "srv github_pat_******"),
			command("an OpenAI key", args(OPENAI), "srv sk-******"),
			command("an Anthropic key", args(ANTHROPIC), "srv sk-******"),
			command("a Slack bot token", args(SLACK_BOT), "srv xoxb-******"),
			command("a Slack user token", args(SLACK_USER), "srv xoxp-******"),
			command("an AWS access key id", args(AWS), "srv AKIA******"),
			command("a long class path is shortened, the secret after it masked",
					args("-cp", LONG_CLASS_PATH, "Main", "--token=t"),
					"srv -cp /app/classes:...(7 entries) Main --token=******"),
			// Masked: free text (stderr lines, messages)
			text("a name=value in a stderr line keeps the words around it", "boom: token=abc123", "boom: token=******"),
			text("an API key after a colon", "Error: Invalid API key: " + OPENAI, "Error: Invalid API key: ******"),
			text("a logged Authorization header", "Authorization: Bearer " + JWT, "Authorization: Bearer ******"),
			text("a query parameter after the first in a URL", "GET https://h/x?a=1&access_token=abc&b=2 failed (401)",
					"GET https://h/x?a=1&access_token=******&b=2 failed (401)"),
			text("a JSON password holding a space", "{\"password\": \"hunter 2\", \"user\": \"bob\"}",
					"{\"password\": \"******\", \"user\": \"bob\"}"),
			text("a URI password holding @ and /", "connecting to postgres://bob:p@ss/w0rd@db:5432/app",
					"connecting to postgres://bob:******@db:5432/app"),
			text("a quoted curl header", "curl -H 'Authorization: Bearer abcdef123456' https://h",
					"curl -H 'Authorization: Bearer ******' https://h"),
			text("a bare Bearer token", "bearer abc123def456 rejected", "bearer ****** rejected"),
			text("a password before a separator", "password=hunter2; retrying in 5s",
					"password=******; retrying in 5s"),
			text("a GitHub token in a sentence", "using token " + GHP + " for api.github.com",
					"using token ghp_****** for api.github.com"),
			text("a JWT in a sentence", "session " + JWT + " expired", "session ****** expired"),
			text("an AWS key id after a neutral name", "AWS_ACCESS_KEY_ID=" + AWS, "AWS_ACCESS_KEY_ID=AKIA******"),
			text("a Slack token in a message", "posting with " + SLACK_BOT, "posting with xoxb-******"),
			// Kept
			text("the working directory a shell exports", "PWD=/srv/files OLDPWD=/home/app",
					"PWD=/srv/files OLDPWD=/home/app"),
			command("an npx package and a path", "npx", args("-y", "@modelcontextprotocol/server-filesystem", "/tmp"),
					"npx -y @modelcontextprotocol/server-filesystem /tmp"),
			command("a port", args("--port", "8080", "-p", "8080"), "srv --port 8080 -p 8080"),
			command("a name that merely contains key", args("--keyboard", "us", "--monkey-patch", "true"),
					"srv --keyboard us --monkey-patch true"),
			command("tokens that are a count", args("--max-tokens", "4096"), "srv --max-tokens 4096"),
			command("where a secret is, not the secret", args("--token-file", "/run/secrets/token", "PASSWORD_FILE=/x"),
					"srv --token-file /run/secrets/token PASSWORD_FILE=/x"),
			command("a switch named after a secret", args("--no-auth", "/srv/data"), "srv --no-auth /srv/data"),
			command("a flag after a secret-looking flag is not its value", args("--token", "--verbose", "-y"),
					"srv --token --verbose -y"),
			command("a path that holds :…@", args("https://example.com/a:b@c"), "srv https://example.com/a:b@c"),
			command("JVM options", "java", args("-Xmx512m", "-Dlogging.level.root=INFO", "-jar", "app.jar"),
					"java -Xmx512m -Dlogging.level.root=INFO -jar app.jar"),
			command("an author is no auth", args("--author", "bob", "--use-keychain"),
					"srv --author bob --use-keychain"),
			command("a URL without credentials", args("--url", "http://localhost:8080/mcp?debug=true"),
					"srv --url http://localhost:8080/mcp?debug=true"),
			text("a diagnostic line", "boom: missing dependency", "boom: missing dependency"),
			text("a server's banner", "Secure MCP Filesystem Server running on stdio",
					"Secure MCP Filesystem Server running on stdio"),
			text("tool names and paths", "Tool read_file called with path /home/alice/keys/notes.txt",
					"Tool read_file called with path /home/alice/keys/notes.txt"),
			text("ordinary query parameters", "GET https://api.github.com/repos?page=2&per_page=100",
					"GET https://api.github.com/repos?page=2&per_page=100"),
			text("Bearer followed by a word", "Bearer token expired", "Bearer token expired"),
			text("a commit and an e-mail address", "commit 9e67434 by alice@example.com",
					"commit 9e67434 by alice@example.com"),
			text("a listing", "Allowed directories: [ '/tmp' ]", "Allowed directories: [ '/tmp' ]"),
			text("a word ending in sk-", "task-1234567890abcdefghij done", "task-1234567890abcdefghij done"),
			text("a placeholder the user must type", "pass it with env.NEEDED_API_KEY=${NEEDED_API_KEY}",
					"pass it with env.NEEDED_API_KEY=${NEEDED_API_KEY}"),
			command("a placeholder as an argument", args("--api-key=${API_KEY}"), "srv --api-key=${API_KEY}"));

	@ParameterizedTest(name = "{0}")
	@MethodSource("cases")
	void sanitizes(Case testCase) {
		String sanitized = testCase.sanitize();
		assertThat(sanitized).isEqualTo(testCase.expected());
		if (testCase.args() == null) {
			assertThat(SecretSanitizer.text(sanitized)).as("sanitizing twice changes nothing").isEqualTo(sanitized);
		}
	}

	static Stream<Case> cases() {
		return CASES.stream();
	}

	@Test
	void tableHasAtLeastFortyCasesOfBothKinds() {
		long kept = CASES.stream().filter(Case::kept).count();
		assertThat(CASES).hasSizeGreaterThanOrEqualTo(40);
		assertThat(kept).isGreaterThanOrEqualTo(10);
		assertThat(CASES.size() - kept).isGreaterThanOrEqualTo(30);
	}

	@Test
	void linesAreSanitizedOneByOne() {
		assertThat(SecretSanitizer.lines(List.of("boom", "token=abc", "password: x y"))).containsExactly("boom",
				"token=******", "password: ****** y");
	}

	@Test
	void docsListEveryCase() throws IOException {
		Path docs = Path.of("../docs/security.md");
		String content = Files.readString(docs);
		String start = "<!-- sanitizer-cases:start -->\n";
		String end = "<!-- sanitizer-cases:end -->";
		assertThat(content).contains(start, end);
		String listed = content.substring(content.indexOf(start) + start.length(), content.indexOf(end));
		assertThat(listed).as("the cases in docs/security.md (regenerate them from SecretSanitizerTests.CASES)")
			.isEqualTo(markdown());
	}

	/**
	 * Render the table as docs/security.md shows it.
	 * @return the markdown table
	 */
	static String markdown() {
		StringBuilder table = new StringBuilder();
		table.append("| | case | input | shown as |\n| --- | --- | --- | --- |\n");
		for (Case testCase : CASES) {
			table.append("| ")
				.append(testCase.kept() ? "kept" : "masked")
				.append(" | ")
				.append(testCase.description())
				.append(" | ")
				.append(code(testCase.input()))
				.append(" | ")
				.append(code(testCase.expected()))
				.append(" |\n");
		}
		return table.toString();
	}

	private static String code(String text) {
		String escaped = text.replace("|", "\\|");
		return escaped.contains("`") ? "`` " + escaped + " ``" : "`" + escaped + "`";
	}

	private static List<String> args(String... args) {
		return List.of(args);
	}

	private static Case command(String description, List<String> args, String expected) {
		return command(description, "srv", args, expected);
	}

	private static Case command(String description, String command, List<String> args, String expected) {
		return new Case(description, command, args, expected);
	}

	private static Case text(String description, String text, String expected) {
		return new Case(description, text, null, expected);
	}

	/**
	 * One case: a command line (a command and its arguments) or a text, and what it is
	 * shown as.
	 */
	record Case(String description, String command, List<String> args, String expected) {

		String sanitize() {
			return (this.args != null) ? SecretSanitizer.commandLine(this.command, this.args, SecretValues.NONE)
					: SecretSanitizer.text(this.command);
		}

		/** The input as a shell would take it, or the text. */
		String input() {
			if (this.args == null) {
				return this.command;
			}
			List<String> parts = new ArrayList<>();
			parts.add(this.command);
			for (String arg : this.args) {
				parts.add(arg.contains(" ") || arg.contains("\"") ? "'" + arg + "'" : arg);
			}
			return String.join(" ", parts);
		}

		boolean kept() {
			return !this.expected.contains(SecretSanitizer.MASK);
		}

		@Override
		public String toString() {
			return (kept() ? "kept: " : "masked: ") + this.description;
		}

	}

}
