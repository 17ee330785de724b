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

package dev.mcpstdio.core.tree;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import dev.mcpstdio.core.tree.ProcessTable.Proc;
import org.junit.jupiter.api.Test;

import static dev.mcpstdio.core.tree.Procs.proc;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link TreeTerminator} against a fake machine whose processes react to
 * signals as told.
 *
 * @author mcp-stdio authors
 */
class TreeTerminatorTests {

	private static final Duration TERMINATE = Duration.ofMillis(300);

	@Test
	void processesThatHonourSigtermAreNotKilled() {
		FakeMachine machine = new FakeMachine(Set.of());
		machine.add(proc(10, 1, 10, 10, 100, null), proc(11, 10, 10, 10, 101, null));
		TreeTerminator.Result result = new TreeTerminator(machine, Duration.ofSeconds(2)).escalate(this::all, 0,
				TERMINATE, new TreeTerminator.Escalation() {
				});
		assertThat(result.terminated()).isEqualTo(2);
		assertThat(result.killed()).isZero();
		assertThat(machine.signals).containsExactlyInAnyOrder("TERM 10", "TERM 11");
	}

	@Test
	void processesThatIgnoreSigtermAreKilledAfterTheTimeout() {
		FakeMachine machine = new FakeMachine(Set.of(11L));
		machine.add(proc(10, 1, 10, 10, 100, null), proc(11, 10, 10, 10, 101, null));
		long begin = System.nanoTime();
		TreeTerminator.Result result = new TreeTerminator(machine, Duration.ofSeconds(2)).escalate(this::all, 0,
				TERMINATE, new TreeTerminator.Escalation() {
				});
		assertThat(Duration.ofNanos(System.nanoTime() - begin)).isGreaterThanOrEqualTo(TERMINATE);
		assertThat(result.killed()).isEqualTo(1);
		assertThat(result.survivors()).isZero();
		assertThat(machine.signals).containsExactly("TERM 10", "TERM 11", "KILL 11");
	}

	@Test
	void aProcessForkedAfterSigtermIsSignalledToo() {
		FakeMachine machine = new FakeMachine(Set.of(10L));
		machine.add(proc(10, 1, 10, 10, 100, null));
		machine.onSignal = (count) -> {
			if (count == 1) {
				machine.add(proc(12, 10, 10, 10, 102, null));
			}
		};
		new TreeTerminator(machine, Duration.ofSeconds(2)).escalate(this::all, 0, TERMINATE,
				new TreeTerminator.Escalation() {
				});
		assertThat(machine.signals).contains("TERM 12");
		assertThat(machine.alive()).isEmpty();
	}

	@Test
	void aProcessForkedAsTheOthersWereSignalledAndCaughtInExecIsSignalledToo() {
		// A shell's loop forks its next command as SIGTERM ends the shell: the child,
		// orphaned, is in exec at the next look, which cannot read its markers
		FakeMachine machine = new FakeMachine(Set.of());
		ProcessMarkers markers = new ProcessMarkers("files", ProcessMarkers.CURRENT_PID, "x", null);
		machine.add(proc(10, 1, 10, 10, 100, markers));
		machine.onSignal = (count) -> {
			if (count == 1) {
				machine.unreadScans.set(1);
				machine.add(proc(12, 1, 10, 10, 102, markers));
			}
		};
		TreeTerminator.Result result = new TreeTerminator(machine, Duration.ofSeconds(2)).escalate(this::marked, 0,
				TERMINATE, new TreeTerminator.Escalation() {
				});
		assertThat(machine.signals).containsExactly("TERM 10", "TERM 12");
		assertThat(machine.alive()).isEmpty();
		assertThat(result.killed()).isZero();
		// the looks while it may be in exec read again only what could not be read
		assertThat(machine.rereads.get()).isPositive();
	}

	@Test
	void aFirstScanThatCouldNotReadEveryEnvironmentIsRepeated() {
		// The process was in exec during the first scan: no markers could be read
		FakeMachine machine = new FakeMachine(Set.of());
		ProcessMarkers markers = new ProcessMarkers("files", ProcessMarkers.CURRENT_PID, "x", null);
		machine.unreadScans.set(2);
		machine.add(proc(20, 1, 20, 20, 200, markers));
		TreeTerminator.Result result = new TreeTerminator(machine, Duration.ofSeconds(2)).escalate(this::marked, 0,
				TERMINATE, new TreeTerminator.Escalation() {
				});
		assertThat(result.terminated()).isEqualTo(1);
		assertThat(machine.signals).containsExactly("TERM 20");
	}

	@Test
	void anEnvironmentThatStaysEmptyIsReadAgainOnlyForAsLongAsAnExecMayTake() {
		// A process with no environment at all (env -i) is no member caught in exec: it
		// must not hold a stop for the whole SIGTERM wait
		FakeMachine machine = new FakeMachine(Set.of());
		machine.unreadScans.set(Integer.MAX_VALUE);
		machine.add(proc(20, 1, 20, 20, 200, null));
		long begin = System.nanoTime();
		TreeTerminator.Result result = new TreeTerminator(machine, Duration.ofSeconds(2)).escalate(this::marked, 0,
				Duration.ofSeconds(20), new TreeTerminator.Escalation() {
				});
		assertThat(result.terminated()).isZero();
		assertThat(machine.scans.get()).as("read again").isGreaterThan(1);
		assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(10));
	}

	@Test
	void anEmptyEnvironmentOfAProcessOlderThanTheTreeIsNotReadAgain() {
		FakeMachine machine = new FakeMachine(Set.of());
		machine.unreadScans.set(Integer.MAX_VALUE);
		machine.add(proc(20, 1, 20, 20, 200, null));
		TreeTerminator.Result result = new TreeTerminator(machine, Duration.ofSeconds(2)).escalate(this::marked, 300,
				TERMINATE, new TreeTerminator.Escalation() {
				});
		assertThat(result.terminated()).isZero();
		assertThat(machine.scans.get()).isEqualTo(1);
	}

	@Test
	void aStrangerBornInTheTickOfASignalledMembersEndIsNeverSignalled() {
		// The member 20 ends on SIGTERM and a stranger takes its pid in the same clock
		// tick, so with its start time: no marker, another parent, session and group. 21
		// ignores SIGTERM, so that the stop goes on to SIGKILL
		FakeMachine machine = new FakeMachine(Set.of(21L));
		ProcessMarkers markers = new ProcessMarkers("files", ProcessMarkers.CURRENT_PID, ProcessMarkers.newInstance(),
				null);
		machine.add(proc(20, 1, 20, 20, 200, markers), proc(21, 1, 21, 21, 201, markers));
		Proc stranger = proc(20, 7, 70, 70, 200, null);
		machine.onSignal = (count) -> {
			if (machine.signals.get(count - 1).equals("TERM 20")) {
				machine.add(stranger);
			}
		};
		new TreeTerminator(machine, Duration.ofSeconds(2)).escalate(this::marked, 0, TERMINATE,
				new TreeTerminator.Escalation() {
				});
		assertThat(machine.signals).containsExactlyInAnyOrder("TERM 20", "TERM 21", "KILL 21");
		assertThat(machine.alive()).containsExactly(stranger);
	}

	@Test
	void nothingToEndCostsOneScan() {
		FakeMachine machine = new FakeMachine(Set.of());
		TreeTerminator.Result result = new TreeTerminator(machine, Duration.ofSeconds(2)).escalate(this::all, 0,
				TERMINATE, new TreeTerminator.Escalation() {
				});
		assertThat(result.terminated()).isZero();
		assertThat(machine.scans.get()).isEqualTo(1);
	}

	private List<Proc> all(ProcessTable table) {
		return new ArrayList<>(table.all());
	}

	private List<Proc> marked(ProcessTable table) {
		List<Proc> marked = new ArrayList<>();
		for (Proc proc : table.all()) {
			if (proc.markers() != null) {
				marked.add(proc);
			}
		}
		return marked;
	}

	/** Processes that end on SIGTERM unless told not to, and always on SIGKILL. */
	static final class FakeMachine extends ScanningSource {

		final List<String> signals = new ArrayList<>();

		final AtomicInteger scans = new AtomicInteger();

		/** Reads of only the processes a snapshot could not read. */
		final AtomicInteger rereads = new AtomicInteger();

		/** Scans that, like one during an exec, cannot read the markers. */
		final AtomicInteger unreadScans = new AtomicInteger();

		private final Map<Long, Proc> processes = new LinkedHashMap<>();

		private final Set<Long> ignoreSigterm;

		java.util.function.IntConsumer onSignal = (count) -> {
		};

		FakeMachine(Set<Long> ignoreSigterm) {
			this.ignoreSigterm = ignoreSigterm;
		}

		synchronized void add(Proc... procs) {
			for (Proc proc : procs) {
				this.processes.put(proc.pid(), proc);
			}
		}

		synchronized List<Proc> alive() {
			return new ArrayList<>(this.processes.values());
		}

		@Override
		public synchronized ProcessTable scan() {
			this.scans.incrementAndGet();
			if (this.unreadScans.getAndDecrement() > 0) {
				List<Proc> unmarked = new ArrayList<>();
				for (Proc proc : this.processes.values()) {
					unmarked.add(new Proc(proc.ids(), proc.state(), proc.startTime(), proc.rssBytes(), null,
							Membership.CURRENT_UID));
				}
				return new ProcessTable(Procs.table(unmarked).processes(), System.nanoTime(), 0, unmarked);
			}
			return Procs.table(this.processes.values());
		}

		@Override
		public ProcessTable reread(ProcessTable table) {
			this.rereads.incrementAndGet();
			return scan();
		}

		@Override
		public synchronized boolean signal(Proc proc, boolean kill) {
			Proc now = this.processes.get(proc.pid());
			if (now == null || now.startTime() != proc.startTime()) {
				return false;
			}
			this.signals.add((kill ? "KILL " : "TERM ") + proc.pid());
			if (kill || !this.ignoreSigterm.contains(proc.pid())) {
				this.processes.remove(proc.pid());
			}
			this.onSignal.accept(this.signals.size());
			return true;
		}

	}

}
