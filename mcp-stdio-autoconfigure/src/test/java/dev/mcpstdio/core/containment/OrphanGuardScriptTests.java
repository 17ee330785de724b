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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.tree.Membership;
import dev.mcpstdio.core.tree.Platform;
import dev.mcpstdio.core.tree.ProcReader;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessScanner;
import dev.mcpstdio.core.tree.ProcessTable;
import dev.mcpstdio.core.tree.ProcessTable.Proc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The orphan guard's script and {@link Membership} hold the same rule.
 *
 * @author mcp-stdio authors
 */
class OrphanGuardScriptTests {

	/** The dead JVM: its pid and start time, as the guard was started with them. */
	private static final long OWNER = 5_900_000;

	private static final long OWNER_START = 777;

	private static final String INSTANCE = OWNER + "." + OWNER_START + ".";

	/** Another user's id, for processes that must not count by their markers. */
	private static final int STRANGER_UID = 12345;

	@TempDir
	Path temp;

	@Test
	// over the same /proc (a copy written by the test), the members the script finds once
	// the JVM is gone are the ones the rule proves; the cases the issue names are written
	// out here, random worlds try the rest
	void theScriptAndTheRuleAgreeOnTheNamedCases() throws Exception {
		World world = new World();
		// a live root with its group, its session and their descendants
		world.proc(5_000_001, 1, 5_000_001, 5_000_001, 1000).root('g', 1000);
		world.proc(5_001_001, 1, 5_000_001, 5_001_001, 1010);
		world.proc(5_001_002, 1, 5_001_002, 5_000_001, 1010);
		world.proc(5_001_003, 5_001_001, 5_001_003, 5_001_003, 1020);
		world.proc(5_001_004, 5_001_001, 5_001_004, 5_001_004, 1005);
		// a zombie root: unreaped, its group and session still its own
		world.proc(5_000_002, 1, 5_000_002, 5_000_002, 1000).zombie().root('g', 1000);
		world.proc(5_002_001, 1, 5_000_002, 5_002_001, 1010);
		// a reaped root: its group and session prove nothing, its markers do
		world.root(5_000_003, 'g', 1000);
		world.proc(5_003_001, 1, 5_000_003, 5_003_001, 1010);
		world.proc(5_003_002, 1, 5_003_002, 5_000_003, 1010);
		world.proc(5_003_003, 1, 5_000_003, 5_000_003, 1010).env(marked());
		world.proc(5_003_004, 5_003_003, 5_003_004, 5_003_004, 1020);
		// a root's pid reused by a stranger leading a group and session of that id
		world.proc(5_000_004, 1, 5_000_004, 5_000_004, 2000).root('g', 1000);
		world.proc(5_004_001, 5_000_004, 5_000_004, 5_000_004, 2010);
		// a root that leads no group: itself and its descendants only
		world.proc(5_000_005, 1, 4_999_999, 4_999_999, 1000).root('p', 1000);
		world.proc(5_005_001, 5_000_005, 4_999_999, 4_999_999, 1010);
		world.proc(5_005_002, 1, 4_999_999, 4_999_999, 1010);
		// markers, complete and not
		world.proc(5_006_001, 1, 5_006_001, 5_006_001, 1100).env(marked());
		world.proc(5_006_002, 1, 5_006_002, 5_006_002, 1100).env(ProcessMarkers.INSTANCE + "=" + INSTANCE + "1");
		world.proc(5_006_003, 1, 5_006_003, 5_006_003, 1100).env(marked("", Long.toString(OWNER), INSTANCE + "1"));
		world.proc(5_006_004, 1, 5_006_004, 5_006_004, 1100)
			.env(marked("files", Long.toString(OWNER + 1), INSTANCE + "1"));
		world.proc(5_006_005, 1, 5_006_005, 5_006_005, 1100)
			.env(marked("files", Long.toString(OWNER), OWNER + "." + (OWNER_START + 1) + ".1"));
		world.proc(5_006_006, 1, 5_006_006, 5_006_006, 1100)
			.env(ProcessMarkers.INSTANCE + "=1.2.3", marked()[0], marked()[1], marked()[2]);
		world.proc(5_006_007, 1, 5_006_007, 5_006_007, 1100).env(marked()).uid(STRANGER_UID);
		world.proc(5_006_008, 1, 5_006_008, 5_006_008, 1100).env(marked("files", "0" + OWNER, INSTANCE + "1"));
		world.proc(5_006_009, 1, 5_006_009, 5_006_009, 1100).env(marked()).zombie();
		world.proc(5_006_010, 1, 5_006_010, 5_006_010, 1100)
			.env(marked("files", Long.toString(OWNER), INSTANCE + "1x"));
		world.proc(5_006_011, 1, 5_006_011, 5_006_011, 1100).env();
		Set<Long> rule = byRule(world);
		assertThat(rule).containsExactlyInAnyOrder(5_000_001L, 5_001_001L, 5_001_002L, 5_001_003L, 5_002_001L,
				5_003_003L, 5_003_004L, 5_000_005L, 5_005_001L, 5_006_001L, 5_006_008L);
		assertThat(byScript(world, "members")).isEqualTo(rule);
		assertThat(byScript(world, "proven")).isEqualTo(rule);
		assertThat(byLineage(world)).isEqualTo(rule);
	}

	@Test
	void theScriptAndTheRuleAgreeOnRandomWorlds() throws Exception {
		Random random = new Random(20261201);
		for (int i = 0; i < 40; i++) {
			World world = World.random(random);
			Set<Long> rule = byRule(world);
			assertThat(byScript(world, "members")).as("world %d:%n%s", i, world).isEqualTo(rule);
			assertThat(byLineage(world)).as("lineage, world %d:%n%s", i, world).isEqualTo(rule);
		}
	}

	@Test
	// a proof of each process of each world: a few processes started per process
	@Timeout(value = 5, unit = TimeUnit.MINUTES)
	void theScriptsProofBeforeASignalAndTheRuleAgreeOnRandomWorlds() throws Exception {
		// what is proven right before a signal: a process, and its ancestors when it
		// alone proves nothing, read afresh, by the same rule
		Random random = new Random(20261202);
		for (int i = 0; i < 12; i++) {
			World world = World.random(random);
			assertThat(byScript(world, "proven")).as("proven, world %d:%n%s", i, world).isEqualTo(byRule(world));
		}
	}

	private static String[] marked() {
		return marked("files", Long.toString(OWNER), INSTANCE + "1");
	}

	private static String[] marked(String server, String owner, String instance) {
		return new String[] { ProcessMarkers.SERVER + "=" + server, ProcessMarkers.OWNER_PID + "=" + owner,
				ProcessMarkers.INSTANCE + "=" + instance };
	}

	/** The members as {@link Membership} proves them, read through {@link ProcReader}. */
	private Set<Long> byRule(World world) throws IOException {
		Path proc = world.write(this.temp.resolve("rule-" + System.nanoTime()));
		ProcReader reader = new ProcReader(proc);
		ProcessTable table = new ProcessScanner(Platform.current(), reader).everyProcess().scan();
		Set<Long> members = new TreeSet<>();
		for (Proc member : members(table, reader, world)) {
			members.add(member.pid());
		}
		return members;
	}

	/**
	 * The processes that {@link Membership} proves from a fresh read of each one and its
	 * ancestors alone, as a stop proves a process right before it signals it.
	 */
	private Set<Long> byLineage(World world) throws IOException {
		Path proc = world.write(this.temp.resolve("lineage-" + System.nanoTime()));
		ProcReader reader = new ProcReader(proc);
		ProcessScanner scanner = new ProcessScanner(Platform.current(), reader);
		Set<Long> members = new TreeSet<>();
		for (long pid : reader.pids()) {
			for (Proc member : members(scanner.lineage(pid), reader, world)) {
				if (member.pid() == pid) {
					members.add(pid);
				}
			}
		}
		return members;
	}

	private static List<Proc> members(ProcessTable table, ProcReader reader, World world) {
		List<Membership.Root> roots = new ArrayList<>();
		// asked after the snapshot, as the guard asks
		for (World.Root root : world.roots) {
			ProcReader.Stat stat = reader.stat(root.pid());
			roots.add(new Membership.Root(root.pid(), root.start(), root.kind() == 'g',
					stat != null && stat.startTime() == root.start()));
		}
		return Membership.ofCurrentUser()
			.members(table, roots, (markers) -> markers.ownerPid() == OWNER && markers.instance().startsWith(INSTANCE));
	}

	/**
	 * The members as the guard's script finds them, in one pass ({@code members}) or one
	 * process and its ancestors at a time ({@code proven}).
	 */
	private Set<Long> byScript(World world, String mode) throws Exception {
		Path proc = world.write(this.temp.resolve("script-" + System.nanoTime()));
		ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", GuardWatcher.LOADER, GuardWatcher.NAME, "app",
				Long.toString(OWNER), Long.toString(OWNER_START), proc.toString(), mode)
			.redirectError(ProcessBuilder.Redirect.INHERIT);
		builder.environment().put(GuardWatcher.SCRIPT_VARIABLE, GuardWatcher.SCRIPT);
		Process script = builder.start();
		StringBuilder lines = new StringBuilder();
		for (World.Root root : world.roots) {
			lines.append("S ")
				.append(root.pid())
				.append(' ')
				.append(root.kind())
				.append(' ')
				.append(root.start())
				.append(" 100 100\n");
		}
		script.getOutputStream().write(lines.toString().getBytes(StandardCharsets.US_ASCII));
		script.getOutputStream().close();
		byte[] out = script.getInputStream().readNBytes(1 << 20);
		assertThat(script.waitFor(60, TimeUnit.SECONDS)).isTrue();
		Set<Long> members = new TreeSet<>();
		for (String word : new String(out, StandardCharsets.US_ASCII).trim().split("\\s+")) {
			if (!word.isEmpty()) {
				members.add(Long.parseLong(word.substring(0, word.indexOf(':'))));
			}
		}
		return members;
	}

	/** A {@code /proc} to write: processes and the roots the guard was told of. */
	static final class World {

		private final Map<Long, P> procs = new LinkedHashMap<>();

		private final List<Root> roots = new ArrayList<>();

		private P last;

		World proc(long pid, long ppid, long pgid, long sid, long start) {
			this.last = new P(pid, ppid, pgid, sid, start);
			this.procs.put(pid, this.last);
			return this;
		}

		World zombie() {
			this.last.state = 'Z';
			return this;
		}

		World env(String... entries) {
			this.last.environ = entries;
			return this;
		}

		World uid(int uid) {
			this.last.uid = uid;
			return this;
		}

		World root(char kind, long start) {
			this.roots.add(new Root(this.last.pid, kind, start));
			return this;
		}

		World root(long pid, char kind, long start) {
			this.roots.add(new Root(pid, kind, start));
			return this;
		}

		Path write(Path proc) throws IOException {
			Files.createDirectories(proc.resolve("self"));
			for (P p : this.procs.values()) {
				Path dir = Files.createDirectories(proc.resolve(Long.toString(p.pid)));
				StringBuilder stat = new StringBuilder();
				stat.append(p.pid)
					.append(" (fake) ")
					.append(p.state)
					.append(' ')
					.append(p.ppid)
					.append(' ')
					.append(p.pgid)
					.append(' ')
					.append(p.sid)
					.append(" 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 ")
					.append(p.start)
					.append(" 1000000 25");
				for (int i = 0; i < 30; i++) {
					stat.append(" 0");
				}
				Files.writeString(dir.resolve("stat"), stat.append('\n').toString());
				StringBuilder environ = new StringBuilder("PATH=/bin\0");
				for (String entry : (p.environ != null) ? p.environ : new String[0]) {
					environ.append(entry).append('\0');
				}
				Files.writeString(dir.resolve("environ"),
						(p.environ != null && p.environ.length == 0) ? "" : environ.toString());
				if (p.uid != 0) {
					Files.setAttribute(dir, "unix:uid", p.uid);
				}
			}
			return proc;
		}

		static World random(Random random) {
			World world = new World();
			long[] roots = { 5_100_001, 5_100_002, 5_100_003 };
			for (long root : roots) {
				int fate = random.nextInt(4);
				char kind = random.nextInt(4) == 0 ? 'p' : 'g';
				if (fate == 0) {
					world.proc(root, 1, kind == 'g' ? root : 4_999_999, kind == 'g' ? root : 4_999_999, 1000);
				}
				else if (fate == 1) {
					world.proc(root, 1, root, root, 1000).zombie();
				}
				else if (fate == 2) {
					world.proc(root, 1, root, root, 1000 + 1 + random.nextInt(50));
				}
				world.root(root, kind, 1000);
			}
			List<Long> pids = new ArrayList<>(Arrays.stream(roots).boxed().toList());
			int count = 5 + random.nextInt(25);
			for (int i = 0; i < count; i++) {
				long pid = 5_200_000 + i;
				long ppid = random.nextInt(3) == 0 ? 1 : pids.get(random.nextInt(pids.size()));
				long[] ids = { pid, roots[random.nextInt(roots.length)], 4_999_999 };
				world.proc(pid, ppid, ids[random.nextInt(3)], ids[random.nextInt(3)], 990 + random.nextInt(60));
				switch (random.nextInt(8)) {
					case 0 -> world.env(marked());
					case 1 -> world.env(marked()).uid(STRANGER_UID);
					case 2 -> world.env(marked("files", Long.toString(OWNER), OWNER + ".1.1"));
					case 3 -> world.env(ProcessMarkers.INSTANCE + "=" + INSTANCE + "2");
					case 4 -> world.zombie();
					default -> {
					}
				}
				pids.add(pid);
			}
			return world;
		}

		@Override
		public String toString() {
			Set<String> lines = new HashSet<>();
			this.procs.values().forEach((p) -> lines.add(p.toString()));
			return this.roots + "\n" + String.join("\n", new TreeSet<>(lines));
		}

		record Root(long pid, char kind, long start) {

		}

		static final class P {

			final long pid;

			final long ppid;

			final long pgid;

			final long sid;

			final long start;

			char state = 'S';

			String[] environ;

			int uid;

			P(long pid, long ppid, long pgid, long sid, long start) {
				this.pid = pid;
				this.ppid = ppid;
				this.pgid = pgid;
				this.sid = sid;
				this.start = start;
			}

			@Override
			public String toString() {
				return this.pid + " ppid " + this.ppid + " pgid " + this.pgid + " sid " + this.sid + " start "
						+ this.start + " " + this.state + " uid " + this.uid + " env "
						+ ((this.environ != null) ? Arrays.toString(this.environ) : "-");
			}

		}

	}

}
