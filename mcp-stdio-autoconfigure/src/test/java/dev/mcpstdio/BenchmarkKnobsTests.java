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

package dev.mcpstdio;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The knobs of the benchmark harnesses ({@code bench/}, built only with {@code -Pbench}):
 * every {@code -Dbench.*} property a harness reads reaches it through
 * {@code bench/pom.xml}, which forks its JVM, and is in the knob table of
 * docs/benchmarks.md with the harness's default. A knob the pom does not pass is silently
 * ignored when given to Maven (issue 26: five documented knobs were).
 *
 * @author mcp-stdio authors
 */
class BenchmarkKnobsTests {

	private static final Path BENCH = Path.of("..", "bench");

	private static final Path SOURCES = BENCH.resolve(Path.of("src", "main", "java"));

	/** A knob read through {@code dev.mcpstdio.bench.Knobs}: name and default. */
	private static final Pattern KNOB_READ = Pattern
		.compile("Knobs\\.(?:integer|longValue|string)\\(\\s*\"(bench\\.[^\"]+)\",\\s*([^;]+?)\\)");

	/** A property read past {@code Knobs}, which a blank value would not default. */
	private static final Pattern PLAIN_READ = Pattern.compile(
			"(?:System\\.getProperty|Integer\\.getInteger|Long\\.getLong|Boolean\\.getBoolean)\\(\\s*\"(bench\\.[^\"]+)\"");

	/** What the pom passes: {@code -Dname=value}. */
	private static final Pattern PASSED = Pattern.compile("-D(bench\\.[^=]+)=(.*)");

	/** Not read by a harness: selects the harnesses (profiles of bench/pom.xml). */
	private static final String MAVEN_ONLY = "bench.only";

	private static final List<Harness> harnesses = new ArrayList<>();

	private static final Set<String> declared = new HashSet<>();

	@BeforeAll
	static void readPom() throws Exception {
		DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
		factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
		Document pom = factory.newDocumentBuilder().parse(BENCH.resolve("pom.xml").toFile());
		NodeList properties = ((Element) pom.getElementsByTagName("properties").item(0)).getChildNodes();
		for (int i = 0; i < properties.getLength(); i++) {
			if (properties.item(i) instanceof Element property) {
				declared.add(property.getTagName());
			}
		}
		NodeList executions = pom.getElementsByTagName("execution");
		for (int i = 0; i < executions.getLength(); i++) {
			Element execution = (Element) executions.item(i);
			NodeList arguments = execution.getElementsByTagName("argument");
			String mainClass = null;
			Map<String, String> passed = new LinkedHashMap<>();
			for (int j = 0; j < arguments.getLength(); j++) {
				String argument = arguments.item(j).getTextContent().trim();
				Matcher knob = PASSED.matcher(argument);
				if (knob.matches()) {
					passed.put(knob.group(1), knob.group(2));
				}
				else if (argument.startsWith("dev.mcpstdio.")) {
					mainClass = argument;
				}
			}
			if (mainClass != null) {
				String id = execution.getElementsByTagName("id").item(0).getTextContent().trim();
				harnesses.add(new Harness(id, mainClass, passed));
			}
		}
		assertThat(harnesses).extracting(Harness::id)
			.containsExactly("observability-benchmark", "transport-benchmark", "demand-benchmark",
					"lifecycle-benchmark");
	}

	@Test
	void everyKnobAHarnessReadsIsPassedThroughByThePom() throws IOException {
		for (Harness harness : harnesses) {
			Set<String> read = knobsRead(harness.source()).keySet();
			assertThat(read).as("knobs read by %s", harness.mainClass()).isNotEmpty();
			for (String knob : read) {
				assertThat(harness.passed())
					.as("%s reads %s: the %s execution of bench/pom.xml must pass -D%s=${%s}", harness.mainClass(),
							knob, harness.id(), knob, knob)
					.containsEntry(knob, "${" + knob + "}");
				assertThat(declared).as("%s is declared in bench/pom.xml's properties (blank: the default)", knob)
					.contains(knob);
			}
			// and nothing passed through that the harness ignores
			harness.passed()
				.forEach((knob, value) -> assertThat(read.contains(knob) || !value.equals("${" + knob + "}"))
					.as("bench/pom.xml passes %s to %s, which does not read it", knob, harness.mainClass())
					.isTrue());
		}
	}

	@Test
	void knobsAreReadOnlyThroughKnobsInAHarnessMainClass() throws IOException {
		Set<Path> mains = new HashSet<>();
		harnesses.forEach((harness) -> mains.add(harness.source().normalize()));
		try (Stream<Path> files = Files.walk(SOURCES)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
				String source = Files.readString(file);
				if (!mains.contains(file.normalize())) {
					assertThat(knobsRead(file)).as("knobs read in %s: read them in the harness's main class", file)
						.isEmpty();
				}
				Matcher plain = PLAIN_READ.matcher(source);
				while (plain.find()) {
					// output files are fixed by the pom (under target/), not knobs
					assertThat(plain.group(1)).as("%s reads %s past Knobs", file, plain.group(1)).endsWith(".out");
				}
			}
		}
	}

	@Test
	void everyKnobIsInTheDocsWithTheHarnessDefault() throws IOException {
		Map<String, String> documented = documentedKnobs();
		Map<String, String> defaults = new LinkedHashMap<>();
		for (Harness harness : harnesses) {
			defaults.putAll(knobsRead(harness.source()));
		}
		Set<String> expected = new TreeSet<>(defaults.keySet());
		expected.add(MAVEN_ONLY);
		assertThat(new TreeSet<>(documented.keySet())).as("knobs in the table of docs/benchmarks.md")
			.isEqualTo(expected);
		defaults.forEach((knob, value) -> {
			String shown = documented.get(knob);
			if (shown != null) {
				assertThat(shown).as("default of %s in docs/benchmarks.md", knob).isEqualTo(value);
			}
		});
		assertThat(documented).as("some defaults are compared").containsValue("5000");
	}

	/**
	 * Return the knobs a file reads, each with its default as written (a text without its
	 * quotes).
	 */
	private static Map<String, String> knobsRead(Path file) throws IOException {
		Map<String, String> knobs = new LinkedHashMap<>();
		Matcher read = KNOB_READ.matcher(Files.readString(file));
		while (read.find()) {
			String defaultValue = read.group(2).trim().replaceAll("^\"|\"$", "");
			String before = knobs.put(read.group(1), defaultValue);
			assertThat(before == null || before.equals(defaultValue))
				.as("%s read twice in %s with different defaults", read.group(1), file)
				.isTrue();
		}
		return knobs;
	}

	/**
	 * Return the knobs of the table in docs/benchmarks.md's "Run it", each with its
	 * default where the row gives one per knob in backticks (else {@code null}).
	 */
	private static Map<String, String> documentedKnobs() throws IOException {
		String docs = Files.readString(Path.of("..", "docs", "benchmarks.md"));
		int table = docs.indexOf("| property | default | what |");
		assertThat(table).as("the knob table of docs/benchmarks.md").isNotNegative();
		Map<String, String> knobs = new LinkedHashMap<>();
		Pattern code = Pattern.compile("`([^`]+)`");
		for (String row : docs.substring(table).split("\n")) {
			if (!row.startsWith("|")) {
				break;
			}
			String[] cells = row.split("\\|");
			if (cells.length < 3 || !cells[1].contains("`bench.")) {
				continue;
			}
			List<String> names = all(code.matcher(cells[1]));
			List<String> values = all(code.matcher(cells[2]));
			for (int i = 0; i < names.size(); i++) {
				knobs.put(names.get(i), (values.size() == names.size()) ? values.get(i) : null);
			}
		}
		return knobs;
	}

	private static List<String> all(Matcher matcher) {
		List<String> found = new ArrayList<>();
		while (matcher.find()) {
			found.add(matcher.group(1));
		}
		return found;
	}

	/**
	 * One harness as the pom runs it.
	 *
	 * @param id the execution's id
	 * @param mainClass the class it runs
	 * @param passed the {@code -D} arguments it gets: name and value as written in the
	 * pom
	 */
	private record Harness(String id, String mainClass, Map<String, String> passed) {

		Path source() {
			return SOURCES.resolve(this.mainClass.replace('.', '/') + ".java");
		}

	}

}
