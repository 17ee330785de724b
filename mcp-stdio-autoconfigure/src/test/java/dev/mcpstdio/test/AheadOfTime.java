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

package dev.mcpstdio.test;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application processed ahead of time as the build plugin's {@code process-aot} does
 * it ({@code SpringApplicationAotProcessor} in a JVM of its own), its generated sources
 * compiled: run it with {@link #java} ({@code -Dspring.aot.enabled=true}).
 *
 * @author mcp-stdio authors
 */
public final class AheadOfTime {

	private static final String PROCESSOR = "org.springframework.boot.SpringApplicationAotProcessor";

	private final String mainClass;

	private final List<String> classPath;

	private final Path sources;

	private final Path classes;

	private final Path resources;

	private AheadOfTime(String mainClass, List<String> classPath, Path sources, Path classes, Path resources) {
		this.mainClass = mainClass;
		this.classPath = classPath;
		this.sources = sources;
		this.classes = classes;
		this.resources = resources;
	}

	/**
	 * Process an application ahead of time with the entries of this JVM's class path that
	 * a filter keeps, and compile the sources it generated.
	 * @param mainClass the application's main class
	 * @param directory where the generated sources, resources and classes go
	 * @param keep which entries of the class path the application has
	 * @param args the application's arguments at build time (its configuration then)
	 * @return the processed application
	 * @throws Exception when it cannot be processed or compiled, with the processor's
	 * output
	 */
	public static AheadOfTime process(String mainClass, Path directory, Predicate<String> keep, String... args)
			throws Exception {
		List<String> classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter(keep)
			.toList();
		Path sources = Files.createDirectories(directory.resolve("sources"));
		Path resources = Files.createDirectories(directory.resolve("resources"));
		Path classes = Files.createDirectories(directory.resolve("classes"));
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(Fixtures.JVM_OPTIONS);
		command.addAll(List.of("-cp", String.join(File.pathSeparator, classPath), PROCESSOR, mainClass,
				sources.toString(), resources.toString(), classes.toString(), "dev.mcpstdio.test", "aot-test"));
		command.addAll(List.of(args));
		Path log = directory.resolve("process-aot.log");
		Process processor = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		try {
			// generous: a loaded machine
			assertThat(processor.waitFor(3, TimeUnit.MINUTES)).as("process-aot ended").isTrue();
		}
		finally {
			processor.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
		}
		String output = Files.readString(log, StandardCharsets.UTF_8);
		assertThat(processor.exitValue()).as(output).isZero();
		compile(sources, classes, classPath);
		return new AheadOfTime(mainClass, classPath, sources, classes, resources);
	}

	private static void compile(Path sources, Path classes, List<String> classPath) throws IOException {
		List<File> files;
		try (Stream<Path> walk = Files.walk(sources)) {
			files = walk.filter((path) -> path.toString().endsWith(".java")).map(Path::toFile).toList();
		}
		assertThat(files).as("generated sources").isNotEmpty();
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		StringWriter errors = new StringWriter();
		try (StandardJavaFileManager manager = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
			// the classes the processor generated (a configuration's CGLIB proxy) are
			// referenced by the generated sources
			List<String> entries = new ArrayList<>(List.of(classes.toString()));
			entries.addAll(classPath);
			List<String> options = List.of("-proc:none", "--release", "17", "-d", classes.toString(), "-cp",
					String.join(File.pathSeparator, entries));
			boolean compiled = compiler
				.getTask(errors, manager, null, options, null, manager.getJavaFileObjectsFromFiles(files))
				.call();
			assertThat(compiled).as(errors::toString).isTrue();
		}
	}

	/**
	 * Return the command that runs the processed application in AOT mode.
	 * @param args its arguments (its configuration at run time)
	 * @return the command
	 */
	public List<String> java(String... args) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(Fixtures.JVM_OPTIONS);
		command.addAll(List.of("-Xmx256m", "-Dspring.aot.enabled=true", "-cp", classPath(), this.mainClass));
		command.addAll(List.of(args));
		return command;
	}

	/**
	 * Return whether the processing generated a source file.
	 * @param name its path under the sources, such as
	 * {@code dev/mcpstdio/autoconfigure/ai/McpStdioAiAutoConfiguration__BeanDefinitions.java}
	 * @return whether it is there
	 */
	public boolean generated(String name) {
		return Files.isRegularFile(this.sources.resolve(name));
	}

	/**
	 * Return the class path of the processed application: the generated classes and
	 * resources first.
	 * @return the class path
	 */
	public String classPath() {
		List<String> entries = new ArrayList<>(List.of(this.classes.toString(), this.resources.toString()));
		entries.addAll(this.classPath);
		return String.join(File.pathSeparator, entries);
	}

}
