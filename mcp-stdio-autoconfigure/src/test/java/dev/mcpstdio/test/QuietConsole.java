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

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Keeps the console of a green build quiet and that of a red one telling. Registered
 * through {@code META-INF/services}, so it runs in every test JVM of the build, the
 * sample app's too (it has the test jar).
 * <p>
 * Where the system property {@value #OUTPUT} names a directory (the root pom sets it for
 * Surefire: {@code target/test-output} of each module), what the tests print and log
 * (Logback's console appender writes to {@code System.out}) goes to a file per test class
 * there, {@code <class>.txt}, and not to the console. A test or class that fails has its
 * part of that file printed on the console at its failure, between a line
 * {@code >>> FAILED <test> ...} and a line {@code <<< end of ...}: a test's own output,
 * after what its class printed before its first test (a Spring test context starting,
 * say) for the first failed test of the class; at most the first 100 and last 400 lines
 * of each part (the file has them all). Nothing is dropped: the loggers and their levels
 * stay as configured, so tests that capture log events see them all.
 * {@code -Dmcp-stdio.test-output=console} prints everything as it comes, as does a run
 * without the property (an IDE).
 * <p>
 * In any case a test or class that is skipped says why on the console, one line each:
 * {@code SKIPPED <class>.<method>: <reason>} (the assumption's message, or the reason for
 * a disabled test), or {@code SKIPPED <class> (the whole class): <reason>}.
 *
 * @author mcp-stdio authors
 */
public final class QuietConsole implements TestExecutionListener {

	/**
	 * The system property naming the directory of the output files, or {@code console}.
	 */
	public static final String OUTPUT = "mcp-stdio.test-output";

	private static final int HEAD_LINES = 100;

	private static final int TAIL_LINES = 400;

	private static final int MAX_LINE_BYTES = 4000;

	private final Map<String, Mark> marks = new ConcurrentHashMap<>();

	private @Nullable TestPlan plan;

	/** Where the running class's output started, and where that of its first test. */
	private @Nullable Mark classStart;

	private @Nullable Mark firstTest;

	@Override
	public void testPlanExecutionStarted(TestPlan testPlan) {
		this.plan = testPlan;
		Capture.install();
	}

	@Override
	public void executionStarted(TestIdentifier test) {
		Capture capture = Capture.installed();
		if (capture == null || test.getParentIdObject().isEmpty()) {
			// an engine: its failure is Surefire's to tell
			return;
		}
		boolean outermostClass = isOutermostClass(test);
		if (outermostClass && test.getSource().orElse(null) instanceof ClassSource source) {
			capture.startFile(source.getClassName());
		}
		Mark mark = capture.mark();
		if (mark == null) {
			return;
		}
		this.marks.put(test.getUniqueId(), mark);
		if (outermostClass) {
			this.classStart = mark;
			this.firstTest = null;
		}
		else if (this.firstTest == null) {
			this.firstTest = mark;
		}
	}

	@Override
	public void executionSkipped(TestIdentifier test, String reason) {
		console().println("SKIPPED " + name(test) + ": " + oneLine(reason));
	}

	@Override
	public void executionFinished(TestIdentifier test, TestExecutionResult result) {
		Mark mark = this.marks.remove(test.getUniqueId());
		boolean outermostClass = isOutermostClass(test);
		if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
			console().println("SKIPPED " + name(test) + ": " + oneLine(reason(result)));
		}
		else if (result.getStatus() == TestExecutionResult.Status.FAILED && mark != null) {
			Capture capture = Capture.installed();
			if (capture != null) {
				capture.print(name(test), sections(mark, outermostClass));
			}
		}
		if (outermostClass) {
			this.classStart = null;
			this.firstTest = null;
		}
	}

	/**
	 * What to show of a failed test or class: its own output; for a test, what its class
	 * printed before its first test (as a Spring test context starting) the first time.
	 */
	private List<Section> sections(Mark mark, boolean outermostClass) {
		List<Section> sections = new ArrayList<>();
		Mark classStart = this.classStart;
		Mark firstTest = this.firstTest;
		if (!outermostClass && classStart != null && firstTest != null && classStart.file().equals(firstTest.file())
				&& firstTest.offset() > classStart.offset()) {
			sections.add(new Section("what its class printed and logged before its first test", classStart.file(),
					classStart.offset(), firstTest.offset()));
			// once a class: the next failure of the class shows its own output only
			this.classStart = null;
		}
		sections.add(new Section("what " + (outermostClass ? "it" : "the test") + " printed and logged", mark.file(),
				mark.offset(), -1));
		return sections;
	}

	private static PrintStream console() {
		Capture capture = Capture.installed();
		return (capture != null) ? capture.console : System.out;
	}

	private boolean isOutermostClass(TestIdentifier test) {
		if (!(test.getSource().orElse(null) instanceof ClassSource)) {
			return false;
		}
		TestPlan plan = this.plan;
		TestIdentifier parent = (plan != null) ? plan.getParent(test).orElse(null) : null;
		return parent == null || !(parent.getSource().orElse(null) instanceof ClassSource);
	}

	private String name(TestIdentifier test) {
		TestSource source = test.getSource().orElse(null);
		if (source instanceof MethodSource method) {
			String name = method.getClassName() + "." + method.getMethodName();
			TestPlan plan = this.plan;
			TestIdentifier parent = (plan != null) ? plan.getParent(test).orElse(null) : null;
			// an invocation of a parameterized or repeated test: which one
			boolean invocation = parent != null && parent.getSource().orElse(null) instanceof MethodSource;
			return invocation ? name + " " + test.getDisplayName() : name;
		}
		if (source instanceof ClassSource type) {
			return type.getClassName() + (test.isContainer() ? " (the whole class)" : "");
		}
		return test.getDisplayName();
	}

	private static String reason(TestExecutionResult result) {
		Throwable cause = result.getThrowable().orElse(null);
		if (cause == null) {
			return "aborted, saying nothing";
		}
		String message = cause.getMessage();
		if (message == null || message.isBlank()) {
			return cause.getClass().getName();
		}
		// JUnit's assumptions prefix their message so
		return message.startsWith("Assumption failed: ") ? message.substring("Assumption failed: ".length()) : message;
	}

	private static String oneLine(String text) {
		return text.strip().replaceAll("\\s*\\R\\s*", " / ");
	}

	/**
	 * Where a test's output starts: a file and an offset in it.
	 */
	private record Mark(Path file, long offset) {
	}

	/**
	 * A part of an output file, {@code to} -1 for up to what is written now.
	 */
	private record Section(String title, Path file, long from, long to) {
	}

	/**
	 * {@code System.out} and {@code System.err} of the test JVM, once installed: the
	 * current class's file.
	 */
	private static final class Capture extends OutputStream {

		private static @Nullable Capture installed;

		private final PrintStream console;

		private final Path directory;

		private final Charset charset = Charset.defaultCharset();

		private @Nullable OutputStream out;

		private @Nullable Path file;

		private long written;

		private boolean broken;

		private Capture(PrintStream console, Path directory) {
			this.console = console;
			this.directory = directory;
		}

		static synchronized @Nullable Capture installed() {
			return installed;
		}

		/**
		 * Capture the JVM's output if the system property names a directory, once.
		 */
		static synchronized void install() {
			String directory = System.getProperty(OUTPUT, "").strip();
			if (installed != null || directory.isEmpty() || directory.equals("console")) {
				return;
			}
			Capture capture = new Capture(System.out, Path.of(directory));
			PrintStream stream = new PrintStream(capture, true, capture.charset);
			System.setOut(stream);
			System.setErr(stream);
			installed = capture;
		}

		/**
		 * Write what comes from now on to the file of this class; what threads of an
		 * earlier class print later goes there too.
		 * @param className the class
		 */
		synchronized void startFile(String className) {
			open(this.directory.resolve(className + ".txt"));
		}

		synchronized @Nullable Mark mark() {
			Path file = this.file;
			return (file != null) ? new Mark(file, this.written) : null;
		}

		private void open(Path file) {
			closeFile();
			if (this.broken) {
				return;
			}
			try {
				Files.createDirectories(this.directory);
				this.out = Files.newOutputStream(file);
				this.file = file;
				this.written = 0;
			}
			catch (IOException ex) {
				this.console.println("QuietConsole cannot write " + file + " (" + ex
						+ "): the tests' output goes to the console from now on");
				this.broken = true;
				this.file = null;
			}
		}

		private void closeFile() {
			OutputStream out = this.out;
			this.out = null;
			if (out != null) {
				try {
					out.close();
				}
				catch (IOException ex) {
					// what was written is on disk; the next file takes over
				}
			}
		}

		@Override
		public synchronized void write(int b) throws IOException {
			write(new byte[] { (byte) b }, 0, 1);
		}

		@Override
		public synchronized void write(byte[] bytes, int offset, int length) throws IOException {
			if (this.out == null && !this.broken) {
				// output before any class started (none is expected): a file of this
				// JVM's
				open(this.directory.resolve("jvm-" + ProcessHandle.current().pid() + ".txt"));
			}
			OutputStream out = this.out;
			if (out == null) {
				this.console.write(bytes, offset, length);
				return;
			}
			out.write(bytes, offset, length);
			this.written += length;
		}

		/**
		 * Print on the console what was written in these parts of the files, or the first
		 * and last lines of each.
		 * @param name the failed test or class
		 * @param sections the parts
		 */
		void print(String name, List<Section> sections) {
			this.console.println(">>> FAILED " + name + " (the whole output of its class: "
					+ sections.get(sections.size() - 1).file() + ")");
			for (Section section : sections) {
				long to = section.to();
				synchronized (this) {
					if (to < 0) {
						to = section.file().equals(this.file) ? this.written : Long.MAX_VALUE;
					}
				}
				Lines lines;
				try {
					lines = read(section.file(), section.from(), to);
				}
				catch (IOException ex) {
					this.console.println("--- " + section.title() + ": cannot be read (" + ex + ")");
					continue;
				}
				int shown = lines.head.size() + lines.tail.size();
				String part = (shown < lines.total) ? "its first " + lines.head.size() + " and last "
						+ lines.tail.size() + " of " + lines.total + " lines" : lines.total + " lines";
				this.console.println("--- " + section.title() + ": " + ((lines.total > 0) ? part : "nothing"));
				lines.head.forEach(this.console::println);
				if (shown < lines.total) {
					this.console.println("... " + (lines.total - shown) + " lines left out ...");
				}
				lines.tail.forEach(this.console::println);
			}
			this.console.println("<<< end of what " + name + " printed and logged");
		}

		private Lines read(Path file, long from, long to) throws IOException {
			Lines lines = new Lines();
			try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
				long end = Math.min(to, channel.size());
				channel.position(Math.min(from, end));
				InputStream in = new BufferedInputStream(Channels.newInputStream(channel));
				ByteArrayOutputStream line = new ByteArrayOutputStream();
				long position = channel.position();
				long more = 0;
				while (position < end) {
					int b = in.read();
					if (b < 0) {
						break;
					}
					position++;
					if (b == '\n') {
						lines.add(text(line, more));
						line.reset();
						more = 0;
					}
					else if (line.size() < MAX_LINE_BYTES) {
						line.write(b);
					}
					else {
						more++;
					}
				}
				if (line.size() > 0) {
					lines.add(text(line, more));
				}
			}
			return lines;
		}

		private String text(ByteArrayOutputStream line, long more) {
			String text = line.toString(this.charset);
			return (more > 0) ? text + " ... (" + more + " bytes more)" : text;
		}

	}

	/**
	 * The first and last lines of a part of a file, and how many it has.
	 */
	private static final class Lines {

		final List<String> head = new ArrayList<>();

		final Deque<String> tail = new ArrayDeque<>();

		int total;

		void add(String line) {
			this.total++;
			if (this.head.size() < HEAD_LINES) {
				this.head.add(line);
				return;
			}
			this.tail.addLast(line);
			if (this.tail.size() > TAIL_LINES) {
				this.tail.removeFirst();
			}
		}

	}

}
